"""Object parser rate (issue 15): filters per second of ``cbalgebra.parse_document``
on an SFF driver file, i.e. the immutable values of ``cbalgebra/values.py``
(Constraint, Filter, Predicate) built for every filter of the file.

Prints the median of ``--repeats`` runs (CPU time of this process) and appends
a row to ``benchmarks/results/forward_objects.csv`` tagged with ``--label``
(run it once on the baseline revision and once on this one to compare; the
machine's load average is recorded beside each row).

    .venv/bin/python benchmarks/forward_objects.py --label now
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import time
from pathlib import Path

import numpy as np

import cbalgebra as cb

RESULTS = Path(__file__).resolve().parent / "results" / "forward_objects.csv"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--filters", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--label", default="now")
    args = ap.parse_args(argv)
    w = cb.workloads.forwarding(interfaces=20, filters_per_interface=args.filters // 20, messages=1,
                                attributes_per_message=10, seed=args.seed)
    sff_text = w.sff(table=True, messages=False)
    # the same table in the grammar's own syntax (typed constraints), which
    # the parser's fast path reads: there the values are most of the time
    canonical = "".join(f"{item}\n" for item in cb.parse_document(sff_text))
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parent).stdout.strip()
    new = not RESULTS.exists()
    with RESULTS.open("a", newline="") as fh:
        out = csv.writer(fh)
        if new:
            out.writerow(["label", "revision", "syntax", "filters", "filters_per_s", "repeats", "load"])
        for syntax, text in (("sff", sff_text), ("canonical", canonical)):
            times = []
            for _ in range(args.repeats):
                t0 = time.process_time()
                items = cb.parse_document(text)
                times.append(time.process_time() - t0)
            n_filters = sum(len(item.value) for item in items if isinstance(item.value, cb.Predicate))
            rate = n_filters / float(np.median(times))
            load = os.getloadavg()[0]
            print(f"{args.label} ({rev}): parse_document, {syntax} syntax, {n_filters:,} filters: "
                  f"{rate:,.0f} filters/s (median of {args.repeats}, load {load:.1f})")
            out.writerow([args.label, rev, syntax, n_filters, round(rate), args.repeats, round(load, 2)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
