"""Throughput of the string decision procedure against z3's string theory.

Generates conjunctions of string atoms on one attribute (2-6 atoms,
constants of 1-8 characters, about half negated) in three workloads:

* ``mixed``: all operators, the lexicographic order ones included;
* ``no-order``: ``= != >* *< * any`` (no ``< <= > >=``);
* ``intervals``: ``= != < <= > >= >* any``, which the fast path decides.

and decides each with the fast path (where it applies), the product
automaton alone, ``solve_string`` (fast path + automaton, its per-decision
cache cleared before each pass) and z3 (one solver, push/pop, a timeout per
check). Prints decisions per second side by side and writes
``benchmarks/results/strings.csv``. Not a test.

    .venv/bin/python benchmarks/strings.py [--cases 5000] [--z3-cases 400] [--timeout-ms 2000]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

import z3
from _harness import RESULTS as RESULTS_FOLDER
from _harness import best_of, each, write_csv

from cbalgebra.covering import strings as S

Atom = tuple[str, "str | None", bool]

ALL_OPERATORS = ("=", "!=", "<", "<=", ">", ">=", ">*", "*<", "*", "any")
WORKLOADS = {
    "mixed": ALL_OPERATORS,
    "no-order": ("=", "!=", ">*", "*<", "*", "any"),
    "intervals": ("=", "!=", "<", "<=", ">", ">=", ">*", "any"),
}
# A small alphabet, so constants share prefixes, suffixes and substrings and
# the atoms interact (random words over 26 letters would rarely meet).
LETTERS = "abcd"
RESULTS = RESULTS_FOLDER / "strings.csv"


def generate(rng: random.Random, operators: Sequence[str], count: int) -> list[list[Atom]]:
    cases = []
    for _ in range(count):
        atoms: list[Atom] = []
        for _ in range(rng.randint(2, 6)):
            op = rng.choice(operators)
            value = None if op == "any" else "".join(rng.choices(LETTERS, k=rng.randint(1, 8)))
            atoms.append((op, value, rng.random() < 0.5))
        cases.append(atoms)
    return cases


def best_rate(decide: Callable[[list[Atom]], object], cases: list[list[Atom]], repeats: int,
              before_pass: Callable[[], None] = lambda: None) -> float:
    """Decisions per second, best of ``repeats`` passes over the cases."""
    best, _ = best_of(repeats, lambda: each(decide, cases), setup=before_pass)
    return len(cases) / best


FIELDS = ("workload", "method", "decisions", "per_second", "sat_fraction", "unknown", "disagreements")


def row(*values: object) -> dict:
    """One row of the CSV, the values in the order of FIELDS."""
    return dict(zip(FIELDS, values, strict=True))


def z3_formula(s: z3.SeqRef, op: str, value: str | None) -> z3.BoolRef:
    if op == "any":
        return z3.BoolVal(True)
    c = z3.StringVal(value)
    return {
        "=": s == c, "!=": s != c, "<": s < c, "<=": s <= c, ">": c < s, ">=": c <= s,
        ">*": z3.PrefixOf(c, s), "*<": z3.SuffixOf(c, s), "*": z3.Contains(s, c),
    }[op]


def z3_run(cases: list[list[Atom]], timeout_ms: int) -> tuple[float, int, int]:
    """(decisions per second, unknown count, disagreements with solve_string)."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    s = z3.String("s")
    unknown = disagreements = 0
    elapsed = 0.0
    for atoms in cases:
        start = time.perf_counter()
        solver.push()
        for op, value, positive in atoms:
            formula = z3_formula(s, op, value)
            solver.add(formula if positive else z3.Not(formula))
        result = solver.check()
        solver.pop()
        elapsed += time.perf_counter() - start
        if result == z3.unknown:
            unknown += 1
        elif (result == z3.sat) != (S.solve_string(atoms) is not None):
            disagreements += 1
            print(f"  DISAGREEMENT z3={result} ours={S.solve_string(atoms)!r}: {atoms}")
    return len(cases) / elapsed, unknown, disagreements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--z3-cases", type=int, default=400)
    parser.add_argument("--timeout-ms", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()

    rows = []
    header = f"{'workload':<10} {'method':<13} {'decisions':>9} {'per second':>11} {'sat':>5} {'unknown':>7}"
    print(header)
    print("-" * len(header))
    for name, operators in WORKLOADS.items():
        rng = random.Random(f"{args.seed}/{name}")
        cases = generate(rng, operators, args.cases)
        sat = sum(S.solve_string(atoms) is not None for atoms in cases) / len(cases)
        methods: dict[str, tuple[Callable, Callable[[], None]]] = {
            "automaton": (S.solve_string_automaton, lambda: None),
            "solve_string": (S.solve_string, S._solve_canonical.cache_clear),
        }
        if name == "intervals":
            methods = {"fast path": (S.solve_string_intervals, lambda: None), **methods}
        rates = {}
        for method, (decide, before_pass) in methods.items():
            rates[method] = best_rate(decide, cases, args.repeats, before_pass)
            rows.append(row(name, method, len(cases), round(rates[method], 1), round(sat, 3), 0, 0))
            print(f"{name:<10} {method:<13} {len(cases):>9} {rates[method]:>11.0f} {sat:>5.2f} {'':>7}")
        z3_cases = cases[: args.z3_cases]
        z3_rate, unknown, disagreements = z3_run(z3_cases, args.timeout_ms)
        rows.append(row(name, "z3", len(z3_cases), round(z3_rate, 1), round(sat, 3), unknown, disagreements))
        print(f"{name:<10} {'z3':<13} {len(z3_cases):>9} {z3_rate:>11.1f} {sat:>5.2f} {unknown:>7}")
        print(f"{name:<10} automaton / z3 = {rates['automaton'] / z3_rate:,.0f}x"
              f"  (z3 timeout {args.timeout_ms} ms, {disagreements} disagreements)")
        print()

    write_csv(RESULTS, rows)


if __name__ == "__main__":
    main()
