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

import argparse
import csv
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("forward-calls")


def load_baseline_package(rev: str, folder: Path):
    """The ``ForwardingTable`` of ``rev``'s matcher package, loaded as ``baseline_matcher``."""
    from forward import load_baseline_matcher

    return load_baseline_matcher(rev, folder).ForwardingTable


def median_cpu_per_message(table, messages) -> float:
    cpu = np.empty(len(messages))
    for k, m in enumerate(messages):
        c0 = time.thread_time()
        table.forward(m)
        cpu[k] = time.thread_time() - c0
    return float(np.median(cpu))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="HEAD~1", help="git revision of the baseline package (default HEAD~1)")
    ap.add_argument("--passes", type=int, default=7, help="alternating passes over the messages (best kept)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    out = Path(args.out) if args.out else ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    n_f = 25_000 if args.quick else 250_000
    n_i = 20_000 if args.quick else 200_000
    cases = [("I=20 §5.1, 10 attributes", dict(interfaces=20, filters_per_interface=n_f // 20,
                                                attributes_per_message=10)),
             ("I=F §5.1", dict(interfaces=n_i, filters_per_interface=1))]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        Baseline = load_baseline_package(args.baseline, Path(tmp))
        for name, shape in cases:
            w = cb.workloads.forwarding(messages=500 if args.quick else 1000, seed=args.seed, **shape)
            tables = {"baseline": Baseline.from_arrays(**w.table_arrays(), preprocessing_rounds=10),
                      "current": ForwardingTable.from_arrays(**w.table_arrays(), preprocessing_rounds=10)}
            messages = w.messages
            for m in messages[:50]:  # also compiles / loads both
                if not np.array_equal(tables["baseline"].forward(m), tables["current"].forward(m)):
                    raise SystemExit(f"{name}: the baseline and current tables forward differently")
            best = {k: np.inf for k in tables}
            for _ in range(args.passes):
                for k, table in tables.items():
                    best[k] = min(best[k], median_cpu_per_message(table, messages))
            row = {"workload": name, "constraints": w.n_constraints, "messages": len(messages),
                   "baseline_us": round(1e6 * best["baseline"], 2), "current_us": round(1e6 * best["current"], 2),
                   "current_over_baseline": round(best["current"] / best["baseline"], 3),
                   "baseline_rev": args.baseline, "load": round(os.getloadavg()[0], 2)}
            rows.append(row)
            log.info("%-26s forward() median CPU per message: baseline %8.2f us, current %8.2f us (x%.3f)",
                     name, row["baseline_us"], row["current_us"], row["current_over_baseline"])
    path = out / "forward_calls.csv"
    with open(path, "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    log.info("wrote %s", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
