"""The exact ``minimal`` reducer (issue 26): time, size against ``cover`` and
against the old sympy path (where it runs), proven / gap, per family and size.

    .venv/bin/python benchmarks/minimal.py [--instances R] [--budget S] [--sizes 10,20,30,40]
                                           [--part groups,scenarios] [--out DIR]

Not a test: it prints tables and writes CSV into benchmarks/results/
(minimal_groups.csv, one row per group; minimal_scenarios.csv, one row per
seed-002 scenario at n = 100).

- groups: one group of conjunctions sharing attributes per instance, with
  about k distinct constraints (k in ``--sizes``), from these families:
  ``dnf`` (connected groups of the seed-002 DNF generator,
  ``cbalgebra.workloads.dnf_predicates``, the four scenarios of
  studies/dnf.py, the group whose size is nearest k), ``intervals`` (many
  overlapping int intervals on one name, each with a tag attribute),
  ``prefixes`` (string prefixes that nest, with ``!=`` exceptions and a tag),
  ``ne-chains`` (``!=`` chains on one name, each with a tag). Each instance
  is reduced by ``cover`` first (timed apart); ``minimal`` then runs with
  ``--budget`` seconds per group. The old sympy path (tests/sympy_skeleton.py)
  runs where the group has at most 9 atoms.
- scenarios: n = 100 predicates of each seed-002 scenario (zipf-500 holds a
  group of about 200 constraints), the whole disjunction.

Targets (issue 26): groups of up to 40 distinct constraints proven minimal,
median <= 2 s, 95th percentile <= 10 s; n = 100 of each scenario proven or
gap <= 5 % in <= 60 s each. Times are CPU seconds of this process
(``time.process_time``) and wall seconds; the machine is shared.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from _harness import ROOT, output_folder, write_csv

from cbalgebra.reducers import minimize, reduce
from cbalgebra.reducers.minimal import atoms_of, components
from cbalgebra.values import Constraint, Filter, Predicate
from cbalgebra.workloads import DNF_SCENARIOS, dnf_predicates

sys.path.insert(0, str(ROOT / "tests"))  # the old sympy path is kept beside the tests, as their reference
from sympy_skeleton import MAX_ATOMS, minimize_component

C = Constraint


def _pred(filters) -> Predicate:
    return Predicate(Filter(f) for f in filters)


def dnf_group(k: int, seed: int) -> Predicate:
    """The connected group of a seed-002 DNF disjunction nearest k distinct constraints."""
    rng = random.Random(seed)
    scenario = sorted(DNF_SCENARIOS)[seed % len(DNF_SCENARIOS)]
    names, dist = DNF_SCENARIOS[scenario]
    best: list[Filter] = []
    for n in (10, 20, 30, 40, 60, 80, 100):
        preds = dnf_predicates(n, names, dist, rng.randrange(10**6))
        cover = reduce(Predicate([f for p in preds for f in p.filters]), "cover")
        for g in components(cover.filters):
            if abs(len(atoms_of(g)) - k) < abs(len(atoms_of(best)) - k):
                best = g
    return Predicate(best)


def grown(k: int, seed: int, conjunction) -> Predicate:
    """Conjunctions drawn by ``conjunction(rng)`` until the disjunction, reduced
    by ``cover``, has k distinct constraints (or a draw adds none for a while)."""
    rng = random.Random(seed)
    filters: list[Filter] = []
    stale = 0
    best = 0
    while stale < 20:
        filters.append(Filter(conjunction(rng)))
        atoms = len(atoms_of(reduce(Predicate(filters), "cover").filters))
        if atoms > k:
            filters.pop()
            stale += 1
            continue
        stale = stale + 1 if atoms <= best else 0
        best = max(best, atoms)
        if atoms == k:
            break
    return Predicate(filters)


def intervals(k: int, seed: int) -> Predicate:
    """[x > a, x < b, tag = t]: overlapping intervals on x, a tag each."""
    return grown(k, seed, lambda rng: (
        C("int", "x", ">", (a := rng.randrange(0, 60))), C("int", "x", "<", a + rng.randrange(3, 30)),
        C("int", "tag", "=", rng.randrange(k // 4 + 1))))


def prefixes(k: int, seed: int) -> Predicate:
    """Nested string prefixes of one word, with != exceptions and a tag."""
    word = "".join(random.Random(seed).choice("abc") for _ in range(16))

    def draw(rng: random.Random) -> list[Constraint]:
        cut = rng.randrange(1, len(word))
        f = [C("string", "s", ">*", word[:cut]),
             C("int", "tag", rng.choice(["=", "<", ">"]), rng.randrange(k // 2 + 1)),
             C("int", "u", "=", rng.randrange(3))]
        if rng.random() < 0.5:
            f.append(C("string", "s", "!=", word[:rng.randrange(cut, len(word) + 1)] + rng.choice(["", "a", "b"])))
        return f

    return grown(k, seed, draw)


def ne_chains(k: int, seed: int) -> Predicate:
    """[x > lo, x != a, x != a+1, ..., tag = t]: != chains that overlap, above a bound."""
    return grown(k, seed, lambda rng: (
        C("int", "x", ">", (a := rng.randrange(0, 30)) - rng.randrange(1, 5)),
        *(C("int", "x", "!=", a + i) for i in range(rng.randrange(1, 4))),
        C("int", "tag", "=", rng.randrange(k // 4 + 1))))


FAMILIES = {"dnf": dnf_group, "intervals": intervals, "prefixes": prefixes, "ne-chains": ne_chains}


def old_sympy(cover: Predicate) -> int | None:
    """The old path's size (one pass of SOPform per group), or None above 9 atoms."""
    out = []
    for g in components(cover.filters):
        if len(atoms_of(g)) > MAX_ATOMS:
            return None
        new = minimize_component(g) if len(g) > 1 else None
        out.extend(new if new is not None else g)
    return sum(f.size for f in out)


def run_one(family: str, k: int, p: Predicate, budget: float) -> dict:
    cover = reduce(p, "cover")
    cpu, wall = time.process_time(), time.perf_counter()
    m = minimize(cover, budget=budget)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    sympy = old_sympy(cover)
    return {"family": family, "k": k, "atoms": max((len(atoms_of(g)) for g in components(cover.filters)), default=0),
            "input": p.size, "cover": cover.size, "minimal": m.size, "sympy": "" if sympy is None else sympy,
            "lower_bound": m.lower_bound, "proven": m.proven, "gap": round(m.gap, 4),
            "cpu_s": round(cpu, 3), "wall_s": round(wall, 3)}


def groups_part(sizes: list[int], instances: int, budget: float) -> list[dict]:
    rows = []
    print(f"{'family':<10} {'k':>3} {'atoms':>9} {'median s':>9} {'p95 s':>7} {'proven':>7} {'max gap':>8} "
          f"{'Σcover':>7} {'Σmin':>6} {'min<=sympy':>11}")
    for family, make in FAMILIES.items():
        for k in sizes:
            batch = [run_one(family, k, make(k, seed), budget) for seed in range(instances)]
            rows += batch
            times = sorted(r["cpu_s"] for r in batch)
            p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
            sym = [r for r in batch if r["sympy"] != ""]
            vs = f"{sum(r['minimal'] <= r['sympy'] for r in sym)}/{len(sym)}" if sym else "-"
            print(f"{family:<10} {k:>3} {min(r['atoms'] for r in batch):>4}-{max(r['atoms'] for r in batch):<4} "
                  f"{statistics.median(times):>9.3f} {p95:>7.3f} {sum(r['proven'] for r in batch):>3}/{len(batch):<3} "
                  f"{max(r['gap'] for r in batch):>8.3f} {sum(r['cover'] for r in batch):>7} "
                  f"{sum(r['minimal'] for r in batch):>6} {vs:>11}", flush=True)
    return rows


def scenarios_part(n: int, budget: float) -> list[dict]:
    rows = []
    for name, (names, dist) in DNF_SCENARIOS.items():
        preds = dnf_predicates(n, names, dist, 1)
        p = Predicate([f for q in preds for f in q.filters])
        cpu, wall = time.process_time(), time.perf_counter()
        cover = reduce(p, "cover")
        cover_cpu = time.process_time() - cpu
        m = minimize(p, budget=budget)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        largest = max(len(atoms_of(g)) for g in components(cover.filters))
        row = {"scenario": name, "n": n, "largest_group_atoms": largest, "input": p.size, "cover": cover.size,
               "minimal": m.size, "lower_bound": m.lower_bound, "proven": m.proven, "gap": round(m.gap, 4),
               "groups": len(m.groups), "cover_cpu_s": round(cover_cpu, 3), "cpu_s": round(cpu, 3),
               "wall_s": round(wall, 3)}
        rows.append(row)
        print(f"{name:<12} n={n} largest group {largest} atoms: cover {cover.size} -> minimal {m.size}, "
              f"bound {m.lower_bound}, proven {m.proven}, gap {100 * m.gap:.1f}%, {cpu:.2f} s CPU "
              f"({wall:.2f} s wall, cover and minimal)", flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=10, help="instances per family and size")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per group")
    ap.add_argument("--sizes", default="5,10,20,30,40")
    ap.add_argument("--part", default="groups,scenarios")
    ap.add_argument("--n", type=int, default=100, help="predicates per scenario (scenarios part)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = output_folder(args.out)
    parts = args.part.split(",")
    if "groups" in parts:
        rows = groups_part([int(s) for s in args.sizes.split(",")], args.instances, args.budget)
        write_csv(Path(out) / "minimal_groups.csv", rows)
    if "scenarios" in parts:
        write_csv(Path(out) / "minimal_scenarios.csv", scenarios_part(args.n, args.budget))


if __name__ == "__main__":
    main()
