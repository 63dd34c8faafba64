"""Strict-mode kernel speed against a baseline revision, and the cost of
``numbers="sff"``, measured side by side in one process.

    .venv/bin/python benchmarks/forward_numbers.py [--baseline REV] [--rounds N] [--quick] [--out DIR]

The shared machine's load changes from minute to minute, so separate runs of
``benchmarks/forward.py`` cannot tell a few percent apart. Here the baseline
revision's matcher package is loaded from ``git show REV:matcher/...``
(default ``HEAD~1``) next to the current one; each revision compiles the same
workload into its own table arrays (the layouts differ between revisions:
issue 15 replaced the ordered constraints' values by rank tables) and encodes
the same messages, and the two kernels run alternating, ``--rounds`` times;
the best CPU time of each is kept. Their results must agree. Not a test:
nothing is asserted. Writes ``forward_numbers.csv`` into DIR (default
benchmarks/results).

Two calling conventions are understood (``call_kernel``): kernels that take
the table as a tuple ``T`` and the parameters as an int64 vector ``P``
(before the NamedTuple refactor of issue 10 §3), and kernels with
``TableArrays`` / ``Params`` / ``Scratch`` that take plain tuples in those
field orders; building the packing is outside the timed call.

Rows: for each workload and pre-processing rounds r in (0, 10), the kernel's
mean CPU time per message (one thread) of the baseline and of the current
kernel in strict mode, their ratio, and the current kernel under
``numbers="sff"`` (messages encoded with the extra converted rows; on the
§5.1 workload's int/string mix, and on a mix with half the numbers floats).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
from _harness import (
    interleaved,
    load_average,
    load_baseline_matcher,
    output_folder,
    show_log,
    side_by_side_parser,
    timed,
    write_csv,
)

import cbalgebra as cb
from cbalgebra.matcher import warm_up

log = logging.getLogger("forward-numbers")


def load_baseline(rev: str, folder: Path):
    """The matcher package of ``rev``, importable as ``baseline_matcher``
    (its modules refer to each other under that name): returns its table
    module, whose ``ForwardingTable`` compiles a table into that revision's
    arrays, and its kernel module."""
    return load_baseline_matcher(rev, folder), importlib.import_module("baseline_matcher._kernels")


def kernel_arguments(kernels, compiled, maxlen: int) -> tuple[tuple, object, tuple]:
    """(table, params, scratch) packed for ``kernels``' calling convention;
    ``compiled`` is the table as the kernels' own revision compiled it."""
    table = tuple(compiled.arrays)
    if hasattr(kernels, "Params"):  # named fields, passed as plain tuples
        params = tuple(compiled.params)
        scratch = tuple(kernels.new_scratch(kernels.Params(*params), compiled.counter_dtype, maxlen))
    else:  # T tuple and P vector, P indexed by the module's P_* constants
        params = np.zeros(kernels.NPARAMS, dtype=np.int64)
        for name, value in compiled.params._asdict().items():
            params[getattr(kernels, LEGACY_PARAM[name])] = value
        scratch = kernels.new_scratch(params, np.zeros(0, compiled.counter_dtype), maxlen)
    return table, params, scratch


#: Params field -> the index constant of the legacy parameter vector
LEGACY_PARAM = {
    "n_keys": "P_NKEYS", "n_names": "P_NNAMES", "n_interfaces": "P_NIFACES", "n_words": "P_WORDS",
    "info_shift": "P_SHIFT", "rounds": "P_ROUNDS", "hash_mask": "P_HMASK", "substring_base": "P_SUBBASE",
    "n_substrings": "P_NSUB", "n_filters": "P_NFILTERS", "n_live": "P_NLIVE",
}


def kernel_cpu(kernels, table, batch, results: list | None = None) -> float:
    """CPU seconds of one serial kernel pass over the whole batch; appends
    (count per message, dense ids) to ``results`` if given."""
    compiled = table._compiled
    n = len(batch)
    arrays, params, scratch = kernel_arguments(kernels, compiled, max(batch.maxlen, 64))
    out = np.empty(max(1, n * max(1, compiled.n_live)), dtype=np.int32)
    counts = np.zeros(n, dtype=np.int64)
    every_interface = np.full(n, -1, np.int64)
    # kernels before issue 15's last changes took the first message's stamp;
    # later ones keep it in the scratch
    stamp = (0,) if "stamp0" in inspect.signature(kernels.forward_serial.py_func).parameters else ()
    seconds, _ = timed(lambda: kernels.forward_serial(
        arrays, params, batch.attrs, batch.m_off, batch.s_chars, batch.s_off, every_interface, np.zeros(1, np.int64),
        np.zeros(0, np.int32), scratch, *stamp, out, counts), clock=time.process_time)
    if results is not None:
        results.append((counts, out[: int(counts.sum())].copy()))
    return seconds


def workloads(quick: bool, seed: int):
    n_f = 25_000 if quick else 250_000
    n_m = 500 if quick else 2000
    yield "I=20 §5.1 (string/int)", cb.workloads.forwarding(
        interfaces=20, filters_per_interface=n_f // 20, messages=n_m, attributes_per_message=10, seed=seed)
    n_i = 20_000 if quick else 200_000
    yield "I=F §5.1 (string/int)", cb.workloads.forwarding(
        interfaces=n_i, filters_per_interface=1, messages=n_m // 2, seed=seed)
    yield "I=20 int/float/string mix", cb.workloads.forwarding(
        interfaces=20, filters_per_interface=n_f // 20, messages=n_m, attributes_per_message=10, seed=seed,
        type_weights={"string": 2, "int": 1, "float": 1})


def main(argv: list[str] | None = None) -> int:
    args = side_by_side_parser(__doc__.split("\n\n")[0], "kernel", rounds=(
        "--rounds", 7, "alternations of baseline and current (best kept)")).parse_args(argv)
    show_log()
    from cbalgebra.matcher import _kernels as current

    warm_up()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        baseline_table_module, baseline = load_baseline(args.baseline, Path(tmp))
        for name, w in workloads(args.quick, args.seed):
            table10 = w.table(preprocessing_rounds=10)
            old10 = baseline_table_module.ForwardingTable.from_arrays(**w.table_arrays(), preprocessing_rounds=10)
            for r in (10, 0):
                table = table10 if r == 10 else table10.with_preprocessing_rounds(0)
                old = old10 if r == 10 else old10.with_preprocessing_rounds(0)
                sff = table.with_numbers("sff")
                batch, sff_batch = table.encode(w.messages), sff.encode(w.messages)
                old_batch = old.encode(w.messages)
                first: list = []  # compile / load both before timing, and check they agree
                kernel_cpu(baseline, old, old_batch, first)
                kernel_cpu(current, table, batch, first)
                if not all(np.array_equal(a, b) for a, b in zip(first[0], first[1], strict=True)):
                    raise SystemExit(f"{name} r={r}: the baseline and current kernels forward differently")
                rounds = interleaved(args.rounds, {
                    "baseline": partial(kernel_cpu, baseline, old, old_batch),
                    "strict": partial(kernel_cpu, current, table, batch),
                    "sff": partial(kernel_cpu, current, sff, sff_batch)})
                best = {side: min(seconds) for side, seconds in rounds.items()}
                n = len(batch)
                row = {
                    "workload": name, "constraints": w.n_constraints, "messages": n, "rounds": r,
                    "baseline_us": round(1e6 * best["baseline"] / n, 3),
                    "strict_us": round(1e6 * best["strict"] / n, 3),
                    "strict_over_baseline": round(best["strict"] / best["baseline"], 3),
                    "sff_us": round(1e6 * best["sff"] / n, 3),
                    "sff_over_strict": round(best["sff"] / best["strict"], 3),
                    "extra_rows_sff": int(sff_batch.attrs.shape[0] - batch.attrs.shape[0]),
                    "baseline_rev": args.baseline, "load": load_average(),
                }
                rows.append(row)
                log.info("%-28s r=%-2d baseline %8.2f us  strict %8.2f us (x%.3f)  sff %8.2f us (x%.3f of strict)",
                         name, r, row["baseline_us"], row["strict_us"], row["strict_over_baseline"],
                         row["sff_us"], row["sff_over_strict"])
    write_csv(output_folder(args.out) / "forward_numbers.csv", rows, say=log.info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
