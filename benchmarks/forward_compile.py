"""Cold numba compile time of the forwarding kernels: a baseline revision
against the current source, side by side.

    .venv/bin/python benchmarks/forward_compile.py [--baseline REV] [--rounds N] [--out DIR]

Two things are measured. ``forward()``: what a new user's first table and
first ``forward()`` cost (``ForwardingTable.compile`` of a small table with
substring constraints, then one ``forward``; issue 28 asks for at most 8 s
of CPU). The batch entries: the kernel module's ``forward_serial`` and
``forward_parallel``, each called once (below).

Each measurement runs in a fresh subprocess with an empty ``NUMBA_CACHE_DIR``,
so numba compiles everything. The revision's whole matcher package is loaded
from a folder (the baseline's from ``git show REV:matcher/...``, the current
one copied from ``matcher/``), so that each kernel runs on a table compiled
by its own revision (the table layouts differ between revisions; the core,
``cbalgebra/``, is this checkout's for both), and the
kernel module's two entry points, ``forward_serial`` and
``forward_parallel``, are called once each on a small table, after it is
built (also timed: since issue 28 building the first table compiles what
``forward()`` needs, which the entries share; ``total_cpu`` is the sum);
the CPU time of each first call is the compile time (compiling is single-threaded,
so CPU time is what a busy shared machine does not inflate; the wall time is
recorded beside it). Baseline and current alternate ``--rounds`` times and
the best of each figure is kept. Each run also logs, for ``forward()``, the
CPU seconds numba spent on each function it compiled (its own, its callees
that are not inlined apart), to show where a cold compile goes. Not a test: nothing is asserted. Writes
``forward_compile.csv`` into DIR (default benchmarks/results).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from _harness import (
    ROOT,
    interleaved,
    load_average,
    matcher_sources,
    output_folder,
    show_log,
    side_by_side_parser,
    write_csv,
    write_package,
)

log = logging.getLogger("forward-compile")

#: the name under which a revision's matcher package is imported
PACKAGE = "matcher_under_test"

# Runs in the subprocess: argv[1] is the folder holding the package to load.
_CHILD = r"""
import importlib, json, sys, time
import cbalgebra as cb  # first, as in a user's program (it chooses numba's settings, see cbalgebra/__init__.py)
import numpy as np
sys.path.insert(0, {bench!r})
import forward_numbers as fn

sys.path.insert(0, sys.argv[1])
ForwardingTable = importlib.import_module({package!r} + ".table").ForwardingTable
kernels = importlib.import_module({package!r} + "._kernels")

timing = {{}}
# building the table is timed too: since issue 28 it compiles forward()'s kernels, which the entries share
c0, t0 = time.process_time(), time.perf_counter()
table = ForwardingTable.compile({{0: cb.parse_filter('[a > 1, b >* "x", b * "y"]'), 1: cb.parse_filter('[c = true]')}})
batch = table.encode([cb.parse_message('[a=2, b="xy", c=true]')] * 4)
timing["build_cpu"], timing["build_wall"] = time.process_time() - c0, time.perf_counter() - t0
compiled = table._compiled
c0, t0 = time.process_time(), time.perf_counter()
fn.kernel_cpu(kernels, table, batch)
timing["serial_cpu"], timing["serial_wall"] = time.process_time() - c0, time.perf_counter() - t0
arrays, params, _ = fn.kernel_arguments(kernels, compiled, 64)
n = len(batch)
lo, hi = np.array([0, 2], np.int64), np.array([2, 4], np.int64)
cap = 2 * max(1, compiled.n_live)
c0, t0 = time.process_time(), time.perf_counter()
kernels.forward_parallel(arrays, params, batch.attrs, batch.m_off, batch.s_chars, batch.s_off, batch.maxlen,
                         np.full(n, -1, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int32),
                         np.zeros(0, compiled.counter_dtype), lo, hi, cap, max(1, compiled.n_live),
                         np.empty(2 * cap, np.int32), np.zeros(n, np.int64), np.empty(2, np.int64))
timing["parallel_cpu"], timing["parallel_wall"] = time.process_time() - c0, time.perf_counter() - t0
print(json.dumps(timing))
"""


# A new user's first table and first forward(), in a process of its own.
# numba's event API (numba.core.event, "numba:compile") gives each compiled
# function's CPU seconds, its own: less those of the functions compiled while
# it was being typed (its callees that are not inlined).
_FORWARD_CHILD = r"""
import importlib, json, sys, time
import cbalgebra as cb  # first, as in a user's program (it chooses numba's settings, see cbalgebra/__init__.py)
from numba.core import event

own, open_compiles = {{}}, []

class ByFunction(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        open_compiles.append([function.__module__.rsplit(".", 1)[-1] + "." + function.__name__,
                              time.process_time(), 0.0])

    def on_end(self, ev):
        name, start, inner = open_compiles.pop()
        seconds = time.process_time() - start
        if open_compiles:
            open_compiles[-1][2] += seconds
        own[name] = own.get(name, 0.0) + seconds - inner

event.register("numba:compile", ByFunction())
sys.path.insert(0, sys.argv[1])
ForwardingTable = importlib.import_module({package!r} + ".table").ForwardingTable
filters = {{0: cb.parse_filter('[a > 1, b >* "x", b * "y"]'), 1: cb.parse_filter('[c = true]')}}
message = cb.parse_message('[a=2, b="xy", c=true]')
c0, t0 = time.process_time(), time.perf_counter()
assert list(ForwardingTable.compile(filters).forward(message)) == [0, 1]
print(json.dumps({{"forward_cpu": time.process_time() - c0, "forward_wall": time.perf_counter() - t0,
                  "by_function": own}}))
"""


def _child(child: str, sources: dict[str, str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as folder:
        # a private copy, so that numba's cache index cannot be shared with another run
        write_package(Path(folder), PACKAGE, sources)
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = child.format(bench=str(ROOT / "benchmarks"), package=PACKAGE)
        done = subprocess.run([sys.executable, "-c", code, folder], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"compiling failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def cold_compile(sources: dict[str, str]) -> dict[str, Any]:
    return {**_child(_FORWARD_CHILD, sources), **_child(_CHILD, sources)}


def logged_cold_compile(which: str, sources: dict[str, str]) -> dict[str, Any]:
    timing = cold_compile(sources)
    by_function = timing.pop("by_function")
    log.info("%-8s forward()'s own CPU seconds per compiled function: %s", which, ", ".join(
        f"{name} {seconds:.2f}" for name, seconds in sorted(by_function.items(), key=lambda item: -item[1])
        if seconds >= 0.1))
    log.info("%-8s forward() %.1f s CPU (%.1f wall); build %.1f s CPU, then serial %.1f s CPU (%.1f wall), "
             "parallel %.1f s CPU (%.1f wall)", which, timing["forward_cpu"], timing["forward_wall"],
             timing["build_cpu"], timing["serial_cpu"], timing["serial_wall"], timing["parallel_cpu"],
             timing["parallel_wall"])
    return timing


def main(argv: list[str] | None = None) -> int:
    args = side_by_side_parser(__doc__.split("\n\n")[0], "kernel", rounds=(
        "--rounds", 2, "alternations of baseline and current (best kept)"), quick=False).parse_args(argv)
    show_log()
    packages = {"baseline": matcher_sources(args.baseline, PACKAGE), "current": matcher_sources(None, PACKAGE)}
    timings = interleaved(args.rounds, {which: partial(logged_cold_compile, which, sources)
                                        for which, sources in packages.items()})
    best = {which: {key: min(run[key] for run in runs) for key in runs[0]} for which, runs in timings.items()}
    rows = []
    for which, timing in best.items():
        rows.append({"kernels": which, "revision": args.baseline if which == "baseline" else "working tree",
                     **{k: round(v, 2) for k, v in timing.items()},
                     "total_cpu": round(timing["build_cpu"] + timing["serial_cpu"] + timing["parallel_cpu"], 2),
                     "load": load_average()})
    for key, what in (("forward_cpu", "ForwardingTable + first forward()"),
                      ("total_cpu", "a table and the batch entries")):
        log.info("cold compile of %s, CPU: baseline %.1f s, current %.1f s (x%.2f)", what, rows[0][key],
                 rows[1][key], rows[1][key] / rows[0][key])
    write_csv(output_folder(args.out) / "forward_compile.csv", rows, say=log.info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
