"""Cliffs of the reducers and of the poset on same-name workloads, against main.

    .venv/bin/python benchmarks/cliffs_reduce_poset.py [--quick] [--baseline-ref REF]
                     [--baseline-timeout S] [--no-baseline] [--only KIND:WORKLOAD,...]
                     [--out DIR] [--csv NAME]

Not a test: it prints a table and writes benchmarks/results/cliffs_reduce_poset.csv
(the poset shapes alone, ``--only poset:same,...  --csv cliffs_poset.csv``:
benchmarks/results/cliffs_poset.csv).

Workloads (generated, not timed):

- ``same``: ``[int x > r, string s >* "XY"]`` × n, r uniform in 0..10⁶
  (seed 1): every conjunction in one names bucket, so an index keyed by
  attribute names alone compares all pairs. (Sorted, the weakest comes
  first, and main finds it at once);
- ``same-lt``: ``[int x < r, string s >* "XY"]``: the same with the weakest
  bound sorted last (main tests about n/2 pairs per conjunction);
- ``same-anti``: ``[int x > r, string s >* "XY<r>"]``: almost nothing covers
  anything (every pair is tested on main);
- ``dnf``: the DNF model of Carzaniga, Rembert & Wolf 2006, §4.2 (``cbalgebra.workloads.dnf_predicates``,
  zipf over 500 names, seed 1), as in benchmarks/reduce.py;
- poset ``same``: the ``same`` filters inserted one by one, each by its own
  subscriber (a chain in random order); poset ``chain``: ``[int x > n-k,
  string s >* "XY"]`` for k = 0..n-1, each new filter weaker than all before
  (a descending chain: two checks per insert); poset ``chain-up``: ``[int x >
  k, string s >* "XY"]`` for k = 0..n-1, each new filter below all before
  (an ascending chain: the search up from the leaves); poset ``dnf``: the
  ``dnf`` filters inserted one by one (benchmarks/poset.py's workload);
- ``cross``: ``[int x > i, int y < i]`` for i < n, reduced by ``cover``: an
  antichain in two ordered names, every pair overlapping;
- poset ``anti-root`` (issue 23 §6): ``[int x any]``, then ``[int x = i]``
  for i = 0..n-1 (n + 1 inserts): an antichain of n filters below one root,
  each new filter a sibling of all before;
- poset ``same-anti``, the *near-antichain* of issue 23 §6 (its 2,000-insert
  figure is this case): the ``same-anti`` filters inserted one by one. Every
  filter has the same two names and overlaps almost every other, and g
  covers f only where g's bound r is at most f's and "XY<r_g>" is a prefix
  of "XY<r_f>": a handful of covering pairs among n²;
- poset ``near-eq``, a second near-antichain: ``[int x = i, int y > r]``,
  i uniform in 0..n/4-1, r uniform in 0..10⁶ (seed 1): filters with
  different constants of x never compare, those with the same one form
  short chains in y (about four filters each).

Every case runs in a fresh interpreter (no warm caches), once with this
checkout and once with the baseline: the tree of ``--baseline-ref`` (default:
where this branch left ``main``, ``git merge-base HEAD main``) extracted with
``git archive`` into a temporary directory and imported instead of this
checkout (``_harness.py``). Times are CPU seconds of the timed call
(``time.process_time``): the machine is shared, and wall time under load
says more about the neighbours than about the code; wall seconds are in the
CSV too. A baseline run longer than ``--baseline-timeout`` is stopped and
shown as ``>T``, its ratio as ``>=``.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import random
import sys
from pathlib import Path

from _harness import RESULTS, cpu_and_wall, cpus_and_load, default_ref, extracted, run_json, write_csv

import cbalgebra as cb
from cbalgebra.poset.core import Poset
from cbalgebra.reducers import reduce
from cbalgebra.values import INT, STRING, Constraint, Filter, Predicate

REDUCE_BOUND_10K = 2.0  # seconds, every reducer but minimal, at n = 10,000
SIENA_BOUND_100K = 10.0
POSET_BOUND_20K = 30.0
POSET_ANTICHAIN_BOUND_8K = 8.0  # issue 23 §6: [int x any], then 8,000 filters x = i
COVER_ANTICHAIN_BOUND_10K = 2.0  # cover on same-anti and cross at n = 10,000


# ----------------------------------------------------------------- workloads
def same_filters(n: int, seed: int = 1, op: str = ">", distinct_prefix: bool = False):
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        r = rnd.randint(0, 10**6)
        prefix = f"XY{r}" if distinct_prefix else "XY"
        out.append(Filter([Constraint(INT, "x", op, r), Constraint(STRING, "s", ">*", prefix)]))
    return out


WORKLOADS = {
    "same": lambda n: same_filters(n),
    "same-lt": lambda n: same_filters(n, op="<"),
    "same-anti": lambda n: same_filters(n, distinct_prefix=True),
    "dnf": lambda n: dnf_filters(n),
    "chain": lambda n: chain_filters(n),
    "chain-up": lambda n: chain_filters(n, ascending=True),
    "cross": lambda n: cross_filters(n),
    "anti-root": lambda n: antichain_below_root(n),
    "near-eq": lambda n: near_eq_filters(n),
}


def antichain_below_root(n: int):
    """``[int x any]``, then ``[int x = i]`` for i < n."""
    return [Filter([Constraint(INT, "x", "any", None)])] + [Filter([Constraint(INT, "x", "=", i)]) for i in range(n)]


def near_eq_filters(n: int, seed: int = 1):
    """``[int x = i, int y > r]``: different constants of x never compare."""
    rnd = random.Random(seed)
    groups = max(1, n // 4)
    return [Filter([Constraint(INT, "x", "=", rnd.randrange(groups)), Constraint(INT, "y", ">", rnd.randint(0, 10**6))])
            for _ in range(n)]


def chain_filters(n: int, ascending: bool = False):
    bound = (lambda k: k) if ascending else (lambda k: n - k)
    return [Filter([Constraint(INT, "x", ">", bound(k)), Constraint(STRING, "s", ">*", "XY")]) for k in range(n)]


def cross_filters(n: int):
    """``[int x > i, int y < i]`` for i < n: every pair overlaps, none covers."""
    return [Filter([Constraint(INT, "x", ">", i), Constraint(INT, "y", "<", i)]) for i in range(n)]


def dnf_filters(n: int, seed: int = 1):
    return [f for p in cb.workloads.dnf_predicates(n, 500, "zipf", seed) for f in p.filters]


def run_case(kind: str, workload: str, n: int, reducer: str) -> dict:
    """One timed case in this process (called in a fresh interpreter)."""
    if kind == "reduce":
        p = Predicate(WORKLOADS[workload](n))
        cpu, wall, q = cpu_and_wall(lambda: reduce(p, reducer))
        return {"cpu": cpu, "wall": wall, "size_before": p.size, "size_after": q.size}
    filters = WORKLOADS[workload](n)
    poset = Poset()

    def insert_all() -> None:
        for k, f in enumerate(filters):
            poset.insert(f, k)

    cpu, wall, _ = cpu_and_wall(insert_all)
    return {"cpu": cpu, "wall": wall, "size_before": n, "size_after": len(poset),
            "checks_per_insert": round(poset.stats.checks_per_insert, 2)}


# ----------------------------------------------------------------- baseline
_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import cbalgebra
import cliffs_reduce_poset as b
print(json.dumps({{**b.run_case({kind!r}, {workload!r}, {n}, {reducer!r}), "package": cbalgebra.__file__}}))
"""


def cold(kind: str, workload: str, n: int, reducer: str, baseline: Path | None,
         timeout: float | None) -> dict | None:
    """One case in a fresh interpreter importing the package at ``baseline`` (None: this checkout)."""
    code = _CHILD.format(here=str(Path(__file__).resolve().parent), kind=kind, workload=workload, n=n,
                         reducer=reducer)
    return run_json([sys.executable, "-c", code], baseline, timeout=timeout, PYTHONHASHSEED="0")


# ----------------------------------------------------------------- the table
def cases(quick: bool) -> list[tuple[str, str, int, str, float | None]]:
    """(kind, workload, n, reducer, bound in seconds or None)."""
    ns = [1000, 4000] if quick else [1000, 4000, 10000]
    out = []
    for workload in ("same", "same-lt", "same-anti", "dnf"):
        for n in ns:
            for reducer in ("siena", "exact", "merge", "cover"):
                out.append(("reduce", workload, n, reducer, REDUCE_BOUND_10K if n == 10000 else None))
        if not quick:
            out.append(("reduce", workload, 100000, "siena", SIENA_BOUND_100K if workload in ("same", "dnf") else None))
    # The two-bound antichain: every pair overlaps, none covers.
    for n in ns:
        out.append(("reduce", "cross", n, "cover", COVER_ANTICHAIN_BOUND_10K if n == 10000 else None))
    for n in ([4000] if quick else [4000, 20000]):
        out.append(("poset", "same", n, "", POSET_BOUND_20K if n == 20000 else None))
    for n in ([4000] if quick else [4000, 20000]):
        out.append(("poset", "chain", n, "", None))
    for n in ([4000] if quick else [4000, 20000]):
        out.append(("poset", "chain-up", n, "", POSET_BOUND_20K if n == 20000 else None))
    # The random DNF workload of benchmarks/poset.py, one filter per insert.
    out.append(("poset", "dnf", 4000 if quick else 10000, "", None))
    # Issue 23 §6: an antichain below one root, and near-antichains.
    for n in ([2000] if quick else [2000, 8000, 20000]):
        out.append(("poset", "anti-root", n, "", POSET_ANTICHAIN_BOUND_8K if n == 8000 else None))
    for workload in ("same-anti", "near-eq"):
        for n in ([2000] if quick else [2000, 20000]):
            out.append(("poset", workload, n, "", POSET_BOUND_20K if n == 20000 else None))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n up to 4,000 only")
    ap.add_argument("--baseline-ref", default=None,
                    help="git ref of the baseline (default: git merge-base HEAD main)")
    ap.add_argument("--baseline-timeout", type=float, default=90.0, help="seconds before a baseline run is stopped")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--only", help="comma list of kind:workload filters, e.g. reduce:same,poset:chain")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--csv", default="cliffs_reduce_poset.csv",
                    help="file name of the CSV under --out (a run with --only writes part of the table)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}; "
          f"{cpus_and_load()}; CPU seconds of the timed call, fresh process each")
    ref = args.baseline_ref or default_ref()
    with contextlib.ExitStack() as stack:
        base = None if args.no_baseline else stack.enter_context(extracted(ref))
        print(f"baseline: {ref}")
        rows = []
        head = (f"{'kind':>6} {'workload':>8} {'n':>7} {'reducer':>7} {'after':>7} {'new s':>8} "
                f"{'bound':>6} {'base s':>8} {'ratio':>7}")
        print(head)
        wanted = set(args.only.split(",")) if args.only else None
        last: dict[tuple, tuple[int, float | None]] = {}  # (kind, workload, reducer) -> baseline (n, cpu)
        for kind, workload, n, reducer, bound in cases(args.quick):
            if wanted and f"{kind}:{workload}" not in wanted:
                continue
            new = cold(kind, workload, n, reducer, None, None)
            # Skip a baseline run that a smaller one says will time out
            # (assuming at best quadratic growth where it already was slow).
            prev = last.get((kind, workload, reducer))
            hopeless = prev is not None and (
                prev[1] is None or (prev[1] > 1 and prev[1] * (n / prev[0]) ** 2 > args.baseline_timeout))
            old = cold(kind, workload, n, reducer, base, args.baseline_timeout) if base and not hopeless else None
            last[(kind, workload, reducer)] = (n, old["cpu"] if old else None)
            if base and old is not None and old["size_after"] != new["size_after"]:
                raise SystemExit(f"result sizes differ from the baseline: {old} vs {new}")
            if old is None:
                base_s = f">{args.baseline_timeout:.0f}" if base else "-"
                ratio = f">={args.baseline_timeout / new['cpu']:.0f}x" if base else "-"
            else:
                base_s = f"{old['cpu']:.2f}"
                ratio = f"{old['cpu'] / new['cpu']:.1f}x"
            ok = "" if bound is None else ("ok" if new["cpu"] <= bound else "OVER")
            print(f"{kind:>6} {workload:>8} {n:>7} {reducer or '-':>7} {new['size_after']:>7} {new['cpu']:>8.2f} "
                  f"{(f'{bound:.0f}' if bound else '-'):>6} {base_s:>8} {ratio:>7} {ok}", flush=True)
            rows.append({"kind": kind, "workload": workload, "n": n, "reducer": reducer,
                         "size_before": new["size_before"], "size_after": new["size_after"],
                         "cpu_s": round(new["cpu"], 3), "wall_s": round(new["wall"], 3),
                         "bound_s": bound or "", "within_bound": "" if bound is None else new["cpu"] <= bound,
                         "baseline_cpu_s": (round(old["cpu"], 3) if old
                                            else (f">{args.baseline_timeout:.0f}" if base else "")),
                         "baseline_wall_s": round(old["wall"], 3) if old else "",
                         "speedup": round(old["cpu"] / new["cpu"], 2) if old else "",
                         "checks_per_insert": new.get("checks_per_insert", ""),
                         "baseline_checks_per_insert": old.get("checks_per_insert", "") if old else ""})
    write_csv(out / args.csv, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
