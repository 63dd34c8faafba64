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
import subprocess
import time
from pathlib import Path

from _harness import RESULTS, append_csv, load_average, median_of

import cbalgebra as cb


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
    for syntax, text in (("sff", sff_text), ("canonical", canonical)):
        seconds, items = median_of(args.repeats, lambda text=text: cb.parse_document(text), clock=time.process_time)
        n_filters = sum(len(item.value) for item in items if isinstance(item.value, cb.Predicate))
        rate = n_filters / seconds
        load = load_average(None)
        print(f"{args.label} ({rev}): parse_document, {syntax} syntax, {n_filters:,} filters: "
              f"{rate:,.0f} filters/s (median of {args.repeats}, load {load:.1f})")
        append_csv(RESULTS / "forward_objects.csv", {
            "label": args.label, "revision": rev, "syntax": syntax, "filters": n_filters, "filters_per_s": round(rate),
            "repeats": args.repeats, "load": round(load, 2)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
