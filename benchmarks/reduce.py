"""Reducer benchmark: time against n, the growth exponent, α for the four
random DNF scenarios, and the sympy budget of the minimal reducer.

    .venv/bin/python benchmarks/reduce.py [--part scaling,alpha,sympy] [--seed S]
                                          [--max-n N] [--cover-max-n N] [--out DIR]

Not a test: it prints tables and writes CSV into benchmarks/results/
(reduce_scaling.csv, reduce_alpha.csv, reduce_sympy_budget.csv).

- scaling: n = 100 … 10,000 predicates (Zipf over 500 names, Carzaniga,
  Rembert & Wolf, Understanding Content-Based Routing Schemes, 2006, §4.2),
  the reduction of their disjunction timed for each reducer (the
  generation is not timed; fresh predicates each time, so no cached work is
  reused). The growth exponent is the slope of log(time) against log(n),
  fitted by least squares over n >= 500.
- alpha: α of every reducer on zipf-500, zipf-5000, uniform-50, uniform-500
  at n = 100, 1,000, 10,000 (``minimal`` with its default budget per
  group; benchmarks/minimal.py measures its certificate).
- sympy: time of the old minimal reducer's sympy step (SOPform with
  don't-cares, kept as tests/sympy_skeleton.py) against the number of atoms,
  on connected groups of conjunctions taken from the uniform-50 workload.
  This is how its MAX_ATOMS = 9 was chosen.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _harness import RESULTS, timed, write_csv

import cbalgebra as cb
from cbalgebra.reducers import REDUCERS, ReductionBudgetError, reduce
from cbalgebra.reducers import minimal as M

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the old sympy path, beside the tests
import sympy_skeleton as OLD
from cbalgebra.values import Constraint, Filter, Predicate
from cbalgebra.workloads._dnf import DNF_SCENARIOS

SIZES = [100, 200, 500, 1000, 2000, 5000, 10000]


def union(preds) -> Predicate:
    return Predicate([f for p in preds for f in p.filters])


def timed_reduce(p: Predicate, reducer: str) -> tuple[float, Predicate | None]:
    """(seconds, the reduced predicate or None where the reducer ran out of its budget)."""

    def run() -> Predicate | None:
        try:
            return reduce(p, reducer)
        except ReductionBudgetError:
            return None

    return timed(run)


def fit_exponent(ns, ts) -> float:
    xs = [math.log(n) for n in ns]
    ys = [math.log(t) for t in ts]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def cold(n: int, names: int, dist: str, seed: int, reducer: str) -> tuple[float, int, int | None]:
    """Time one reduction in a fresh interpreter: no cache warmed by another run."""
    code = (f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import reduce as b; "
            f"print(json.dumps(b._one({n:d}, {names:d}, {dist!r}, {seed:d}, {reducer!r})))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    dt, before, after = json.loads(res.stdout.strip().splitlines()[-1])
    return dt, before, after


def _one(n, names, dist, seed, reducer):
    preds = cb.workloads.dnf_predicates(n, names, dist, seed)
    dt, q = timed_reduce(union(preds), reducer)
    return dt, sum(p.size for p in preds), (q.size if q is not None else None)


def part_scaling(args, out: Path) -> None:
    sizes = [n for n in SIZES if n <= args.max_n]
    reducers = ["siena", "exact", "merge", "cover"]
    rows = []
    print(f"\n== time to reduce n predicates (zipf-500, seed {args.seed}; each in a fresh process) ==")
    print(f"{'n':>7} {'size':>7}" + "".join(f" {r + ' s':>10}" for r in reducers))
    times: dict[str, list[float]] = {r: [] for r in reducers}
    for n in sizes:
        line = f"{n:>7}"
        size = None
        cells = []
        for r in reducers:
            if r == "cover" and n > args.cover_max_n:
                cells.append(f" {'-':>10}")
                continue
            dt, size, after = cold(n, 500, "zipf", args.seed, r)
            times[r].append(dt)
            rows.append({"n": n, "reducer": r, "seconds": round(dt, 4), "size_before": size,
                         "size_after": after if after is not None else ""})
            cells.append(f" {dt:>10.3f}")
        print(line + f" {size:>7}" + "".join(cells), flush=True)
    print("fitted growth exponent (time ~ n^k, n >= 500):")
    for r in reducers:
        # "cover" skips the sizes above --cover-max-n, and SIZES ascend: its times are
        # a prefix of `sizes`, so the shorter zip pairs each time with its own n.
        pts = [(n, t) for n, t in zip(sizes, times[r], strict=False) if n >= 500]
        if len(pts) >= 2:
            k = fit_exponent(*zip(*pts, strict=True))
            print(f"  {r:>7}: k = {k:.2f}")
            rows.append({"n": "exponent", "reducer": r, "seconds": round(k, 3), "size_before": "", "size_after": ""})
    write_csv(out / "reduce_scaling.csv", rows, ["n", "reducer", "seconds", "size_before", "size_after"])


def part_alpha(args, out: Path) -> None:
    rows = []
    ns = [n for n in (100, 1000, 10000) if n <= args.max_n]
    print(f"\n== alpha by scenario, n and reducer (seed {args.seed}) ==")
    print(f"{'scenario':>12} {'n':>6}" + "".join(f" {r:>9}" for r in REDUCERS) + "   seconds")
    for scenario, (names, dist) in DNF_SCENARIOS.items():
        for n in ns:
            preds = cb.workloads.dnf_predicates(n, names, dist, args.seed)
            total = sum(p.size for p in preds)
            cells, secs = [], []
            for r in REDUCERS:
                if r == "cover" and n > args.cover_max_n:
                    cells.append(f" {'skipped':>9}")
                    secs.append("-")
                    rows.append({"scenario": scenario, "n": n, "reducer": r, "alpha": "", "seconds": "",
                                 "note": f"not run above n={args.cover_max_n}"})
                    continue
                dt, q = timed_reduce(union(preds), r)
                if q is None:
                    cells.append(f" {'budget':>9}")
                    note = "ReductionBudgetError"
                    rows.append({"scenario": scenario, "n": n, "reducer": r, "alpha": "", "seconds": round(dt, 3),
                                 "note": note})
                else:
                    a = q.size / total
                    cells.append(f" {a:>9.4f}")
                    rows.append({"scenario": scenario, "n": n, "reducer": r, "alpha": round(a, 5),
                                 "seconds": round(dt, 3), "note": ""})
                secs.append(f"{dt:.2f}")
            print(f"{scenario:>12} {n:>6}" + "".join(cells) + "   " + "/".join(secs), flush=True)
    write_csv(out / "reduce_alpha.csv", rows, ["scenario", "n", "reducer", "alpha", "seconds", "note"])


class _Timeout(Exception):
    pass


def part_sympy(args, out: Path) -> None:
    """Time sympy's step on connected groups with 3..11 atoms."""

    def alarm(*_):
        raise _Timeout

    signal.signal(signal.SIGALRM, alarm)
    rnd = random.Random(args.seed)
    pool = [p.filters[0] for p in cb.workloads.dnf_predicates(3000, 50, "uniform", args.seed)]
    samples: dict[int, list[float]] = {}
    rows = []
    print(f"\n== sympy SOPform time against atoms (cut at {args.sympy_timeout} s) ==", flush=True)
    tries = 0
    while tries < 4000 and any(len(samples.get(k, [])) < args.sympy_samples for k in range(3, 12)):
        tries += 1
        fs = rnd.sample(pool, rnd.randint(2, 6))
        # Fold the names onto three, so the conjunctions share attributes.
        ren = {nm: f"n{rnd.randint(0, 2)}" for f in fs for nm in sorted(f.names)}
        fs = [Filter([Constraint(c.type, ren[c.name], c.op, c.value) for c in f]) for f in fs]
        try:
            c = reduce(Predicate(fs), "cover")
        except Exception:  # broad on purpose: mixed types etc., just draw again
            continue
        for comp in M.components(c.filters):
            k = len(M.atoms_of(comp))
            if len(comp) < 2 or not 3 <= k <= 11 or len(samples.get(k, [])) >= args.sympy_samples:
                continue
            signal.alarm(args.sympy_timeout)
            t = time.perf_counter()
            try:
                OLD.minimize_component(comp)
                dt = time.perf_counter() - t
            except _Timeout:
                dt = math.inf
            finally:
                signal.alarm(0)
            samples.setdefault(k, []).append(dt)
            rows.append({"atoms": k, "seconds": round(dt, 4) if dt != math.inf else "timeout"})
    print(f"{'atoms':>5} {'n':>3} {'median s':>10} {'max s':>10}")
    for k in sorted(samples):
        ts = samples[k]
        med = statistics.median(ts)
        print(f"{k:>5} {len(ts):>3} {med:>10.4f} {max(ts):>10.4f}")
    write_csv(out / "reduce_sympy_budget.csv", sorted(rows, key=lambda r: r["atoms"]), ["atoms", "seconds"],
              say=lambda wrote: print(f"MAX_ATOMS = {OLD.MAX_ATOMS}; {wrote}"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="scaling,alpha", help="comma list of scaling, alpha, sympy")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-n", type=int, default=10000)
    ap.add_argument("--cover-max-n", type=int, default=10000)
    ap.add_argument("--sympy-samples", type=int, default=5)
    ap.add_argument("--sympy-timeout", type=int, default=60)
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}; "
          f"cbalgebra reducers {', '.join(REDUCERS)}")
    parts = args.part.split(",")
    if "scaling" in parts:
        part_scaling(args, out)
    if "alpha" in parts:
        part_alpha(args, out)
    if "sympy" in parts:
        part_sympy(args, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
