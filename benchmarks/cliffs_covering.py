"""The two covering cliffs of string constraints on one attribute, against a baseline.

Families (all constraints on one string attribute ``s``):

* ``letters``: n substrings ``s * "a"``, ``s * "b"``, ... (distinct single
  characters);
* ``overlapping``: n distinct words of length 6 over {a, b}, so every
  pattern overlaps the others;
* ``mixed``: n distinct letters with a prefix, a suffix, an upper order
  bound and three ``!=``;
* ``exclusions``: n constraints ``s != "v00000"``, ``s != "v00001"``, ...

and operations on a filter f of the family and a weaker filter h (every
other constraint of f):

* ``satisfiable``: ``cb.satisfiable(f)``;
* ``self-cover``: ``cb.covers(f, f)``;
* ``subset-cover``: ``cb.covers(h, f)`` (true);
* ``counterexample``: ``cb.counterexample(f, h)`` (a message matched by h
  and not f, checked with ``cb.matches``).

Each (family, n, operation) runs in a fresh interpreter: once with this
checkout's package and once with a baseline package extracted by ``git
archive`` from ``--baseline`` (default: the merge base of HEAD and ``main``,
the code this branch started from) into a temporary directory (see
``_harness.py``; the worker checks which package it imported).
Every cache is cleared before each timed repetition. A baseline run that
exceeds ``--timeout`` seconds is reported as such and larger n of the same
family and operation are not tried; the speedup shown for a timeout is a
lower bound, (timeout - 2 s start-up allowance) / time now. The documented
bound is 50 ms for the substring families and 0.5 s for ``!=``. Prints a table and writes
``benchmarks/results/cliffs_covering.csv``. Not a test.

    .venv/bin/python benchmarks/cliffs_covering.py [--baseline REV] [--timeout 20] [--repeats 3] [--max-n N]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
from pathlib import Path

from _harness import RESULTS, best_of, default_ref, extracted, run_json, write_csv

import cbalgebra as cb
from cbalgebra.covering import rules, strings
from cbalgebra.values import Constraint, Filter


SUBSTRING_SIZES = (4, 8, 16, 20, 32, 64)
EXCLUSION_SIZES = (1_000, 4_000, 10_000)
FAMILIES = {
    "letters": SUBSTRING_SIZES,
    "overlapping": SUBSTRING_SIZES,
    "mixed": SUBSTRING_SIZES,
    "exclusions": EXCLUSION_SIZES,
}
OPERATIONS = ("satisfiable", "self-cover", "subset-cover", "counterexample")
#: Seconds of a baseline worker's wall time assumed to be start-up, not work,
#: when a timeout is turned into a lower bound on the speedup.
STARTUP_ALLOWANCE_S = 2.0
BOUND_SECONDS = {"letters": 0.05, "overlapping": 0.05, "mixed": 0.05, "exclusions": 0.5}


# ----------------------------------------------------------------- worker side
def letters(n: int) -> list[str]:
    """n distinct characters: ASCII letters, then Greek ones."""
    return [chr(ord("a") + i) if i < 26 else chr(0x3B1 + i - 26) for i in range(n)]


def family_constraints(family: str, n: int):
    def c(op: str, value: str) -> Constraint:
        return Constraint("string", "s", op, value)

    if family == "letters":
        return [c("*", x) for x in letters(n)]
    if family == "overlapping":
        words = ["".join(w) for w in itertools.product("ab", repeat=6)]
        # A fixed interleaving, so small n are not all "aaa..." words.
        words = words[::2] + words[1::2]
        return [c("*", w) for w in words[:n]]
    if family == "mixed":
        return [c("*", x) for x in letters(n)] + [
            c(">*", "0"), c("*<", "9"), c("<", "1"),
            c("!=", "0"), c("!=", "09"), c("!=", "0abc9"),
        ]
    if family == "exclusions":
        return [c("!=", f"v{i:05d}") for i in range(n)]
    raise ValueError(family)


def clear_caches() -> None:
    """Empty every memo of the covering code (present in this version or not)."""
    for name in ("_FORMS", "_VIOLATION_CACHE", "_SINGLE"):
        table = getattr(rules, name, None)
        if table is not None:
            table.clear()
    for name in dir(strings):
        fn = getattr(strings, name)
        if callable(getattr(fn, "cache_clear", None)):
            fn.cache_clear()


def decide(operation: str, f: Filter, h: Filter) -> bool:
    """The operation on the family's filter ``f`` and its half ``h``: True when
    the answer is the right one (every case is satisfiable, covered, refuted)."""
    if operation == "satisfiable":
        return cb.satisfiable(f)
    if operation == "self-cover":
        return cb.covers(f, f)
    if operation == "subset-cover":
        return cb.covers(h, f)
    m = cb.counterexample(f, h)
    return m is not None and cb.matches(h, m) and not cb.matches(f, m)


def run_worker(family: str, n: int, operation: str, repeats: int) -> dict:
    constraints = family_constraints(family, n)
    values: list[Filter] = []

    def fresh_values() -> None:
        """Empty caches and new filters: no memo or per-filter cache carried over."""
        clear_caches()
        values[:] = [Filter(constraints), Filter(constraints[::2])]

    best, answer = best_of(repeats, lambda: decide(operation, *values), setup=fresh_values)
    return {"seconds": best, "answer": answer, "package": cb.__file__}


# ----------------------------------------------------------------- driver side
def run_case(package_root: Path | None, family: str, n: int, operation: str,
             repeats: int, timeout: float) -> dict | None:
    """One worker run, importing the package at ``package_root`` (None: this checkout)."""
    return run_json([sys.executable, str(Path(__file__).resolve()), "--worker", family, str(n), operation,
                     str(repeats)], package_root, timeout=timeout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=None,
                    help="git revision for the baseline (default: merge base of HEAD and main; '' to skip)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per baseline case")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-n", type=int, default=None, help="only the sizes up to N (a quick check)")
    ap.add_argument("--csv", default=str(RESULTS / "cliffs_covering.csv"))
    ap.add_argument("--worker", nargs=4, metavar=("FAMILY", "N", "OPERATION", "REPEATS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        family, n, operation, repeats = args.worker
        print(json.dumps(run_worker(family, int(n), operation, int(repeats))))
        return 0

    if args.baseline is None:
        args.baseline = default_ref()
    with contextlib.ExitStack() as stack:
        baseline_path = stack.enter_context(extracted(args.baseline)) if args.baseline else None
        rows = []
        header = (f"{'family':<12} {'n':>6} {'operation':<15} {'seconds':>9} {'bound':>7} {'ok':>3} "
                  f"{'baseline s':>11} {'speedup':>9}")
        print(f"baseline: {args.baseline or '(none)'}; timeout {args.timeout:g} s per baseline case")
        print(header)
        print("-" * len(header))
        failures = 0
        for family, sizes in FAMILIES.items():
            for operation in OPERATIONS:
                baseline_gave_up = False
                for n in (n for n in sizes if args.max_n is None or n <= args.max_n):
                    now = run_case(None, family, n, operation, args.repeats, 600.0)
                    if now is None:  # pragma: no cover - would be a cliff of its own
                        raise RuntimeError(f"{family} n={n} {operation} took over 600 s")
                    base, base_note = None, ""
                    if baseline_path is None:
                        base_note = "not run"
                    elif baseline_gave_up:
                        base_note = "skipped (smaller n timed out)"
                    else:
                        base = run_case(baseline_path, family, n, operation, 1, args.timeout)
                        if base is None:
                            baseline_gave_up = True
                            base_note = f"timeout > {args.timeout:g} s"
                        elif base["answer"] != now["answer"]:
                            failures += 1
                            base_note = f"DISAGREES: baseline {base['answer']} now {now['answer']}"
                    bound = BOUND_SECONDS[family]
                    ok = now["seconds"] <= bound
                    correct = now["answer"] is True  # every case is satisfiable, covered, refuted
                    if not correct:
                        failures += 1
                    speedup = base["seconds"] / now["seconds"] if base else None
                    shown_base = f"{base['seconds']:.4f}" if base else base_note
                    if speedup is None and base_note.startswith("timeout"):
                        # A lower bound: the timeout, less a generous interpreter start-up.
                        speedup_floor = (args.timeout - STARTUP_ALLOWANCE_S) / now["seconds"]
                        shown_speedup = f">{speedup_floor:,.0f}x"
                    else:
                        speedup_floor = None
                        shown_speedup = f"{speedup:,.0f}x" if speedup else ""
                    print(f"{family:<12} {n:>6} {operation:<15} {now['seconds']:>9.4f} {bound:>7.2f} "
                          f"{'yes' if ok else 'NO':>3} {shown_base:>11} {shown_speedup:>9}", flush=True)
                    rows.append({
                        "family": family, "n": n, "operation": operation,
                        "seconds": f"{now['seconds']:.6f}", "answer": now["answer"],
                        "bound_seconds": bound, "within_bound": ok,
                        "baseline": args.baseline,
                        "baseline_seconds": f"{base['seconds']:.6f}" if base else "",
                        "baseline_note": base_note,
                        "speedup": f"{speedup:.1f}" if speedup else "",
                        "speedup_at_least": f"{speedup_floor:.0f}" if speedup_floor else "",
                    })
    write_csv(args.csv, rows)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
