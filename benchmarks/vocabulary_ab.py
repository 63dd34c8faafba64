"""Did one vocabulary (issue 10 §1) slow anything? CPU time, interleaved A/B.

The refactor moved the type and operator maps into the tables of
``cbalgebra/values.py`` and replaced if-chains by table look-ups, on the
hot paths of parsing, constructing constraints, matching and covering. This
runs those paths in fresh interpreters, alternating a baseline package (``git
archive`` of ``--baseline``, default the merge base of HEAD and main; see
``_baseline.py``) with this checkout, ``--rounds`` times each, and prints best and
median items per CPU second of each side with their ratio (after / before;
above 1 is faster). CPU time, because wall time on a shared machine swings by
2x between runs of identical code. Writes benchmarks/results/vocabulary_ab.csv.
Not a test.

    .venv/bin/python benchmarks/vocabulary_ab.py [--rounds 5] [--baseline REV]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import statistics
import sys
import time
from pathlib import Path

import covering as C
from _baseline import default_ref, extracted, run_json

import cbalgebra as cb
from cbalgebra import parse as parse_module
from cbalgebra.covering import rules
from cbalgebra.values import Constraint, Message

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def cpu_rate(fn, items) -> float:
    start = time.process_time()
    for x in items:
        fn(x)
    return len(items) / (time.process_time() - start)


def one_round() -> dict:
    out = {"package": cb.__file__}
    rng = random.Random(2026)
    texts = [str(C.random_filter(rng, rng.randint(3, 6))) for _ in range(6000)]
    out["parse_filter (fast scanner)"] = cpu_rate(cb.parse_filter, texts)
    out["parse (Lark only)"] = cpu_rate(lambda t: parse_module._run(t, "predicate_text"), texts[:1500])
    doc = "\n".join("subscribe " + t for t in texts)
    start = time.process_time()
    cb.parse_document(doc)
    out["parse_document statements"] = len(texts) / (time.process_time() - start)
    filters = [cb.parse_filter(t) for t in texts]
    args = [(c.type, c.name, c.op, c.value) for f in filters for c in f.constraints]
    out["Constraint(...)"] = cpu_rate(lambda a: Constraint(*a), args)
    # A message per filter, with the filter's constants as values: half the
    # constraints hold, so matching does not stop at the first one.
    messages = [Message({c.name: c.value for c in f.constraints if c.value is not None})
                for f in filters[:3000] if len({c.name for c in f.constraints}) == len(f.constraints)]
    pairs = [(filters[i % len(filters)], m) for i, m in enumerate(messages)]
    out["cb.matches filter x message"] = cpu_rate(lambda p: cb.matches(p[0], p[1]), pairs)
    for label, with_strings in (("numbers", False), ("all types", True)):
        cover_pairs = [(C.fresh(g), C.fresh(f)) for g, f in C.filter_pairs(4000, 2027, with_strings)]
        out[f"filter_covers {label} cold"] = cpu_rate(lambda p: rules.filter_covers(*p), cover_pairs)
    return out


def run(package_root: Path | None) -> dict:
    """One round in a fresh interpreter importing the package at ``package_root`` (None: this checkout)."""
    result = run_json([sys.executable, str(Path(__file__).resolve()), "--round"], package_root)
    assert result is not None  # no timeout was set
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--csv", default=str(RESULTS / "vocabulary_ab.csv"))
    ap.add_argument("--round", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.round:
        print(json.dumps(one_round()))
        return 0
    baseline = args.baseline or default_ref()
    before, after = [], []
    with extracted(baseline) as package_root:
        for _ in range(args.rounds):
            before.append(run(package_root))
            after.append(run(None))
    rows = []
    print(f"baseline {baseline}, {args.rounds} interleaved rounds, items per CPU second")
    print(f"{'workload':<30} {'before best':>12} {'after best':>12} {'ratio':>6} "
          f"{'before med':>11} {'after med':>11} {'ratio':>6}")
    for key in before[0]:
        b, a = [r[key] for r in before], [r[key] for r in after]
        row = {"workload": key, "baseline": baseline, "rounds": args.rounds,
               "before_best": max(b), "after_best": max(a), "ratio_best": max(a) / max(b),
               "before_median": statistics.median(b), "after_median": statistics.median(a),
               "ratio_median": statistics.median(a) / statistics.median(b)}
        rows.append(row)
        print(f"{key:<30} {row['before_best']:>12,.0f} {row['after_best']:>12,.0f} {row['ratio_best']:>6.2f} "
              f"{row['before_median']:>11,.0f} {row['after_median']:>11,.0f} {row['ratio_median']:>6.2f}")
    Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
    with open(args.csv, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
