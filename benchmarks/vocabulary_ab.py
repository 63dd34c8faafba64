"""Did one vocabulary (issue 10 §1) slow anything? CPU time, interleaved A/B.

The refactor moved the type and operator maps into the tables of
``cbalgebra/values.py`` and replaced if-chains by table look-ups, on the
hot paths of parsing, constructing constraints, matching and covering. This
runs those paths in fresh interpreters, alternating a baseline package (``git
archive`` of ``--baseline``, default the merge base of HEAD and main; see
``_harness.py``) with this checkout, ``--rounds`` times each, and prints best and
median items per CPU second of each side with their ratio (after / before;
above 1 is faster). CPU time, because wall time on a shared machine swings by
2x between runs of identical code. Writes benchmarks/results/vocabulary_ab.csv.
Not a test.

    .venv/bin/python benchmarks/vocabulary_ab.py [--rounds 5] [--baseline REV]
"""

from __future__ import annotations

import random
import sys
import time

import covering as C
from _harness import RESULTS, ab_parser, ab_script, ab_table, rate, timed, write_csv

import cbalgebra as cb
from cbalgebra import parse as parse_module
from cbalgebra.covering import rules
from cbalgebra.values import Constraint, Message


def one_round() -> dict:
    out = {"package": cb.__file__}
    rng = random.Random(2026)
    texts = [str(C.random_filter(rng, rng.randint(3, 6))) for _ in range(6000)]
    out["parse_filter (fast scanner)"] = rate(cb.parse_filter, texts)
    out["parse (Lark only)"] = rate(lambda t: parse_module._run(t, "predicate_text"), texts[:1500])
    doc = "\n".join("subscribe " + t for t in texts)
    seconds, _ = timed(lambda: cb.parse_document(doc), clock=time.process_time)
    out["parse_document statements"] = len(texts) / seconds
    filters = [cb.parse_filter(t) for t in texts]
    args = [(c.type, c.name, c.op, c.value) for f in filters for c in f.constraints]
    out["Constraint(...)"] = rate(lambda a: Constraint(*a), args)
    # A message per filter, with the filter's constants as values: half the
    # constraints hold, so matching does not stop at the first one.
    messages = [Message({c.name: c.value for c in f.constraints if c.value is not None})
                for f in filters[:3000] if len({c.name for c in f.constraints}) == len(f.constraints)]
    pairs = [(filters[i % len(filters)], m) for i, m in enumerate(messages)]
    out["cb.matches filter x message"] = rate(lambda p: cb.matches(p[0], p[1]), pairs)
    for label, with_strings in (("numbers", False), ("all types", True)):
        cover_pairs = [(C.fresh(g), C.fresh(f)) for g, f in C.filter_pairs(4000, 2027, with_strings)]
        out[f"filter_covers {label} cold"] = rate(lambda p: rules.filter_covers(*p), cover_pairs)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = ab_parser(__doc__.splitlines()[0])
    ap.add_argument("--csv", default=str(RESULTS / "vocabulary_ab.csv"))
    args = ap.parse_args(argv)
    sides = ab_script(args, __file__, one_round)
    if sides is None:
        return 0
    baseline, before, after = sides
    print(f"baseline {baseline}, {args.rounds} interleaved rounds, items per CPU second")
    rows = ab_table(before, after, width=30)
    write_csv(args.csv, [{"workload": row.pop("workload"), "baseline": baseline, "rounds": args.rounds, **row}
                         for row in rows], say=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
