"""``ForwardingTable.forward()`` end to end (Python wrapper, dispatch and
kernel) per message: a baseline revision's matcher package against the
current one, side by side in one process.

    .venv/bin/python benchmarks/forward_calls.py [--baseline REV] [--passes N] [--quick] [--out DIR]

``benchmarks/forward_numbers.py`` compares the kernels alone; this compares
what a caller of ``forward`` pays, which includes encoding the message and
numba's dispatch of the kernel's arguments (the part a change of argument
types, such as NamedTuples, would move). The baseline package is written
from ``git show REV:matcher/*.py`` into a temporary folder as package
``baseline_matcher``; both tables are built from the same workload arrays,
checked to forward the first messages identically, then timed pass after
pass, alternating; per pass the median CPU time (this thread) per message,
and the best pass of each is kept. Not a test: nothing is asserted. Writes
``forward_calls.csv`` into DIR (default benchmarks/results).
"""

from __future__ import annotations

import logging
import sys
import tempfile
from functools import partial
from pathlib import Path

import numpy as np
from _harness import (
    interleaved,
    load_average,
    load_baseline_matcher,
    output_folder,
    per_item,
    show_log,
    side_by_side_parser,
    write_csv,
)

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable

log = logging.getLogger("forward-calls")


def median_cpu_per_message(table, messages) -> float:
    """The median CPU time (this thread) of ``table.forward`` over the messages."""
    return float(np.median(per_item(table.forward, messages)))


def main(argv: list[str] | None = None) -> int:
    args = side_by_side_parser(__doc__.split("\n\n")[0], "package", rounds=(
        "--passes", 7, "alternating passes over the messages (best kept)")).parse_args(argv)
    show_log()
    n_f = 25_000 if args.quick else 250_000
    n_i = 20_000 if args.quick else 200_000
    cases = [("I=20 §5.1, 10 attributes", dict(interfaces=20, filters_per_interface=n_f // 20,
                                                attributes_per_message=10)),
             ("I=F §5.1", dict(interfaces=n_i, filters_per_interface=1))]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        Baseline = load_baseline_matcher(args.baseline, Path(tmp)).ForwardingTable
        for name, shape in cases:
            w = cb.workloads.forwarding(messages=500 if args.quick else 1000, seed=args.seed, **shape)
            tables = {"baseline": Baseline.from_arrays(**w.table_arrays(), preprocessing_rounds=10),
                      "current": ForwardingTable.from_arrays(**w.table_arrays(), preprocessing_rounds=10)}
            messages = w.messages
            for m in messages[:50]:  # also compiles / loads both
                if not np.array_equal(tables["baseline"].forward(m), tables["current"].forward(m)):
                    raise SystemExit(f"{name}: the baseline and current tables forward differently")
            passes = interleaved(args.passes, {k: partial(median_cpu_per_message, table, messages)
                                               for k, table in tables.items()})
            best = {k: min(medians) for k, medians in passes.items()}
            row = {"workload": name, "constraints": w.n_constraints, "messages": len(messages),
                   "baseline_us": round(1e6 * best["baseline"], 2), "current_us": round(1e6 * best["current"], 2),
                   "current_over_baseline": round(best["current"] / best["baseline"], 3),
                   "baseline_rev": args.baseline, "load": load_average()}
            rows.append(row)
            log.info("%-26s forward() median CPU per message: baseline %8.2f us, current %8.2f us (x%.3f)",
                     name, row["baseline_us"], row["current_us"], row["current_over_baseline"])
    write_csv(output_folder(args.out) / "forward_calls.csv", rows, say=log.info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
