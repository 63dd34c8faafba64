"""Covering benchmark: parse throughput, and covering decisions per second
through the rules layer and the z3 layer on the same filter pairs, side by
side in one process, plus the public ``cb.covers`` on a mixed workload.

    .venv/bin/python benchmarks/covering.py [--pairs N] [--seed S] [--csv PATH]

Not a test: it prints a table and writes CSV (default
benchmarks/results/covering.csv).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from _harness import RESULTS, best_of, per_item, timed, write_csv

import cbalgebra as cb
from cbalgebra import parse as parse_module
from cbalgebra.covering import filter_covers, solver
from cbalgebra.values import INT_MAX, INT_MIN, Constraint, Filter, Predicate

NAMES = ["price", "qty", "sym", "ex", "ratio", "flag", "city", "level"]
HOME_TYPE = {"price": "int", "qty": "int", "sym": "string", "ex": "string", "ratio": "float",
             "flag": "bool", "city": "string", "level": "int"}
INT_OPS = ["=", "!=", "<", ">", "<=", ">="]
STRING_OPS = [*INT_OPS, ">*", "*<", "*"]
WORDS = ["", "a", "ab", "abc", "b", "ba", "bz", "m", "ny", "nyse", "nasdaq", "z"]


def random_constraint(rng: random.Random, name: str, with_strings: bool) -> Constraint:
    t = HOME_TYPE[name]
    if t == "string" and not with_strings:
        t = "int"
    if rng.random() < 0.04:
        return Constraint(t, name, "any")
    if t == "int":
        v = rng.choice([rng.randint(-5, 5), rng.randint(-5, 5), rng.choice([INT_MIN, INT_MAX, 0])])
        return Constraint("int", name, rng.choice(INT_OPS), v)
    if t == "float":
        return Constraint("float", name, rng.choice(INT_OPS), rng.choice([-1.5, 0.0, 0.5, 1.0, 2.5]))
    if t == "bool":
        return Constraint("bool", name, rng.choice(["=", "!="]), rng.random() < 0.5)
    return Constraint("string", name, rng.choice(STRING_OPS), rng.choice(WORDS))


def random_filter(rng: random.Random, size: int, with_strings: bool = True) -> Filter:
    names = rng.sample(NAMES, k=min(size, len(NAMES)))
    cs = [random_constraint(rng, n, with_strings) for n in names]
    while len(cs) < size:  # a second constraint on some name: ranges, holes
        cs.append(random_constraint(rng, rng.choice(names), with_strings))
    return Filter(cs)


def specialize(rng: random.Random, g: Filter, with_strings: bool) -> Filter:
    """A filter likely covered by g: g plus more constraints."""
    extra = [random_constraint(rng, rng.choice(NAMES), with_strings) for _ in range(rng.randint(1, 3))]
    return Filter(list(g) + extra)


def filter_pairs(n: int, seed: int, with_strings: bool = True) -> list[tuple[Filter, Filter]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        g = random_filter(rng, rng.randint(3, 6), with_strings)
        f = specialize(rng, g, with_strings) if rng.random() < 0.4 else random_filter(rng, rng.randint(3, 6),
                                                                                        with_strings)
        pairs.append((g, f))
    return pairs


def fresh(f: Filter) -> Filter:
    """An equal filter without the cached normal form (a cold decision)."""
    return Filter(f.constraints)


def fresh_value(v: Filter | Predicate) -> Filter | Predicate:
    """An equal filter or predicate without cached normal forms."""
    return Predicate(v.filters) if isinstance(v, Predicate) else fresh(v)


def time_each(fn, items) -> tuple[float, list[float], list]:
    """(wall seconds of the pass, wall seconds of each item, the values)."""
    results: list = []
    total, times = timed(lambda: per_item(fn, items, time.perf_counter, results))
    return total, times, results


def bench_parse(n: int, seed: int) -> dict:
    rng = random.Random(seed)
    texts = [str(random_filter(rng, rng.randint(3, 6))) for _ in range(n)]
    cb.parse_filter(texts[0])
    total, _, _ = time_each(cb.parse_filter, texts)
    lark_total, _, _ = time_each(lambda t: parse_module._run(t, "predicate_text"), texts[: n // 4])
    doc = "\n".join("subscribe " + t for t in texts[: n // 4])
    doc_total, _ = timed(lambda: cb.parse_document(doc))
    return {
        "parse_filters_per_s": n / total,
        "lark_only_filters_per_s": (n // 4) / lark_total,
        "document_filters_per_s": (n // 4) / doc_total,
    }


def bench_pairs(pairs) -> dict:
    # Rules layer, cold: every decision normalizes both filters from scratch.
    cold = [(g, fresh(f)) for g, f in pairs]
    rules_cold_total, _, rules_answers = time_each(lambda p: filter_covers(p[0], p[1]), cold)
    # Rules layer, warm: the normal forms are cached on the filters (as in a poset or reducer).
    rules_warm_total, _, _ = time_each(lambda p: filter_covers(p[0], p[1]), cold)
    # z3 layer on the same pairs: g covers f iff no counterexample.
    z3_total, z3_times, z3_answers = time_each(lambda p: solver.covering_counterexample(p[1], [p[0]]) is None,
                                               pairs)
    disagreements = sum(a != b for a, b in zip(rules_answers, z3_answers, strict=True))
    n = len(pairs)
    return {
        "pairs": n,
        "covered_fraction": sum(rules_answers) / n,
        "rules_cold_per_s": n / rules_cold_total,
        "rules_warm_per_s": n / rules_warm_total,
        "z3_per_s": n / z3_total,
        "z3_max_ms": max(z3_times) * 1e3,
        "rules_vs_z3_speedup_cold": z3_total / rules_cold_total,
        "disagreements": disagreements,
    }


def mixed_workload(n: int, seed: int) -> list[tuple]:
    """Filters and predicates of all types and operators, in all pairings."""
    rng = random.Random(seed)
    items = []
    for _ in range(n):
        kind = rng.random()
        g = random_filter(rng, rng.randint(1, 5))
        if kind < 0.5:
            f = specialize(rng, g, True) if rng.random() < 0.4 else random_filter(rng, rng.randint(1, 5))
            items.append((g, f))
        elif kind < 0.8:
            p = Predicate([g] + [random_filter(rng, rng.randint(1, 4)) for _ in range(rng.randint(1, 4))])
            f = specialize(rng, g, True) if rng.random() < 0.5 else random_filter(rng, rng.randint(1, 4))
            items.append((p, f))
        else:
            p = Predicate([g] + [random_filter(rng, rng.randint(1, 4)) for _ in range(rng.randint(1, 3))])
            q = Predicate([specialize(rng, f, True) for f in p.filters[: rng.randint(1, len(p))]])
            items.append((p, q))
    return items


def bench_public(n: int, seed: int) -> dict:
    items = [(x, y) for x, y in mixed_workload(n, seed)]
    cb.covers(*items[0])
    # Fresh values: no cached forms carried over from the warm-up.
    items = [(fresh_value(x), fresh_value(y)) for x, y in items]
    layer = solver.layer()
    checks_before = layer.checks
    total, times, answers = time_each(lambda p: cb.covers(p[0], p[1]), items)
    # A raw maximum can be a garbage-collection pause that lands on a cheap
    # decision. Re-time the ten slowest cases on fresh copies (best of three)
    # to tell the cost of a case from a pause of the process.
    slowest = sorted(range(n), key=times.__getitem__, reverse=True)[:10]
    retimed = []
    for i in slowest:
        copies = iter([[fresh_value(v) for v in items[i]] for _ in range(3)])
        best, _ = best_of(3, lambda copies=copies: cb.covers(*next(copies)))
        retimed.append(best)
    return {
        "decisions": n,
        "covered_fraction": sum(answers) / n,
        "public_per_s": n / total,
        "public_median_us": statistics.median(times) * 1e6,
        "public_p99_ms": sorted(times)[int(0.99 * n)] * 1e3,
        "public_max_ms_raw": max(times) * 1e3,
        "public_slowest_case_ms": max(retimed) * 1e3,
        "z3_checks": layer.checks - checks_before,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--csv", default=str(RESULTS / "covering.csv"))
    args = ap.parse_args(argv)

    rows = []
    parse = bench_parse(args.pairs, args.seed)
    rows += [("parse", k, v) for k, v in parse.items()]
    for label, with_strings in (("numbers", False), ("all types", True)):
        r = bench_pairs(filter_pairs(args.pairs, args.seed + 1, with_strings))
        rows += [(f"filter pairs, {label}", k, v) for k, v in r.items()]
    public = bench_public(args.pairs // 2, args.seed + 2)
    rows += [("public cb.covers, mixed", k, v) for k, v in public.items()]

    width = max(len(f"{a}: {b}") for a, b, _ in rows)
    print(f"{'workload: metric':<{width}}  value")
    for group, key, value in rows:
        shown = f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"
        print(f"{group + ': ' + key:<{width}}  {shown}")
    write_csv(args.csv, [{"workload": group, "metric": key, "value": value} for group, key, value in rows])
    bad = [r for r in rows if r[1] == "disagreements" and r[2]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
