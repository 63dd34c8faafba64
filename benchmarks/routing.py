"""Routing schemes at scale (issue 11 §6): build time and delivery time of
PSF, iPS, PIF and DRP (and Siena with --siena) on power-law networks with
Carzaniga, Rembert & Wolf 2006's DNF predicates, every processor a sender and a receiver.

    .venv/bin/python benchmarks/routing.py            # the full run
    .venv/bin/python benchmarks/routing.py --quick    # a few minutes

Part 1, the target: n = 200 (Barabási-Albert, m = 2), k = 10 conjunctions
per processor, build each scheme's tables (goal ≤ 60 s each) and deliver
10,000 messages (goal ≤ 30 s per scheme) with Routing.deliver_many. Messages
are aimed (each matches one random conjunction of one random processor) and
sources cycle through the processors. A sample of deliveries is checked
(correct, latency-minimal) against cbalgebra.matches.

Part 2, growth: the same for n up to 1,000 (fewer deliveries, scaled to
10,000 in the printout), with the ratio of each time to the smallest n. A
scheme whose build at the previous size took longer than --build-budget
seconds is not run at larger sizes, and PSF/iPS are not run where M(PSF) at
α = 1 (Carzaniga, Rembert & Wolf 2006, §3.1: Σ_v Σ_x hops(v, x)·size(pred x), about n² log n
constraints) exceeds --max-constraints (150 M by default: n = 1,000 needs
114 M, and about 2-3 GB of memory while its tables are built); both are
reported as skipped.

Build times exclude the all-pairs shortest paths (ShortestPaths, shared by
all schemes; under a second at n = 1,000, see benchmarks/routing_paths.py).

Timings depend on the machine's load: the 1-minute load average is printed
and written with every row. CSV: benchmarks/results/routing.csv.
"""

from __future__ import annotations

import argparse
import random
import sys

import numpy as np
from _harness import RESULTS, load_average, timed, write_csv
from cbalgebra.matcher.table import warm_up

from cbalgebra.network import topology
from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.schemes import build
from cbalgebra.network.workload import messages, processor_predicates

FIELDS = ["part", "scheme", "n", "links", "k", "build_s", "deliveries", "deliver_s", "per_10000_s",
          "packets", "checked", "correct", "latency_minimal", "memory_bits", "predicate_constraints",
          "compiled_constraints", "load_avg"]


def psf_constraints(n: int, k: int, seed: int = 0) -> int:
    """M(PSF)'s predicate part at α = 1 (Carzaniga, Rembert & Wolf 2006, §3.1): Σ_v Σ_x hops(v, x)·size(pred x),
    an upper bound for iPS, computed without building anything."""
    g = topology("power_law", n, seed=seed)
    d = ShortestPaths(g).dist
    sizes = np.array([p.size for _, p in sorted(processor_predicates(n, k, seed=seed).items())])
    return int((d.sum(axis=0) * sizes).sum())


def run_one(scheme: str, n: int, k: int, deliveries: int, check: int, seed: int = 0) -> dict:
    g = topology("power_law", n, seed=seed)
    preds = processor_predicates(n, k, seed=seed)
    pool = messages(min(deliveries, 2000), seed=seed, aim_at=preds)
    paths = ShortestPaths(g)
    build_s, routing = timed(lambda: build(scheme, g, preds, paths=paths))
    msgs = [pool[i % len(pool)] for i in range(deliveries)]
    sources = [i % n for i in range(deliveries)]
    deliver_s, done = timed(lambda: routing.deliver_many(msgs, sources))
    # A seeded random sample: with sources cycling through 0..n-1, a stride
    # would check only a few sources.
    picks = random.Random(seed).sample(range(len(done)), min(check, len(done)))
    sample = [done[i] for i in sorted(picks)]
    mem = routing.memory()
    return {
        "scheme": scheme, "n": n, "links": g.number_of_edges(), "k": k,
        "build_s": round(build_s, 3), "deliveries": deliveries, "deliver_s": round(deliver_s, 3),
        "per_10000_s": round(deliver_s * 10000 / max(1, deliveries), 2),
        "packets": sum(d.size for d in done), "checked": len(sample),
        "correct": sum(d.correct for d in sample), "latency_minimal": sum(d.latency_minimal for d in sample),
        "memory_bits": mem["total_bits"], "predicate_constraints": mem["predicate_constraints"],
        "compiled_constraints": sum(p["compiled_constraints"] for p in mem["per_processor"].values()),
        "load_avg": load_average(),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="n=200 with 2,000 deliveries; growth to n=400")
    ap.add_argument("--schemes", default="psf,ips,pif,drp")
    ap.add_argument("--siena", action="store_true", help="also Siena (its subscription simulation is slow)")
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--deliveries", type=int, default=None)
    ap.add_argument("--sizes", default=None, help="growth sizes, comma-separated")
    ap.add_argument("--growth-deliveries", type=int, default=None)
    ap.add_argument("--no-growth", action="store_true", help="part 1 only")
    ap.add_argument("--build-budget", type=float, default=None,
                    help="skip a scheme at larger sizes once a build took longer (seconds)")
    ap.add_argument("--check", type=int, default=100, help="deliveries checked per run")
    ap.add_argument("--max-constraints", type=float, default=150e6,
                    help="skip PSF/iPS where M(PSF) at α = 1 exceeds this many constraints (memory)")
    ap.add_argument("--out", default=str(RESULTS / "routing.csv"))
    args = ap.parse_args(argv)
    schemes = [s for s in args.schemes.split(",") if s] + (["siena"] if args.siena else [])
    deliveries = args.deliveries or (2000 if args.quick else 10000)
    sizes = [int(x) for x in (args.sizes or ("100,200,400" if args.quick else "100,200,400,700,1000")).split(",")]
    growth_deliveries = args.growth_deliveries or (500 if args.quick else 1000)
    budget = args.build_budget or (60.0 if args.quick else 300.0)

    print(f"numba warm-up {warm_up():.1f} s; load average {load_average()}", flush=True)
    rows = []
    print(f"\n# Part 1: power-law n={args.n}, k={args.k}, every processor a sender and a receiver, "
          f"{deliveries} deliveries (goals: build <= 60 s, 10,000 deliveries <= 30 s)")
    print(f"{'scheme':7} {'build s':>9} {'deliver s':>10} {'per 10k s':>10} {'packets':>9} "
          f"{'ok/lat-min/checked':>19} {'memory Mbit':>12} {'constraints':>12} {'compiled':>10} {'load':>5}")
    for scheme in schemes:
        r = run_one(scheme, args.n, args.k, deliveries, args.check)
        r["part"] = "target"
        rows.append(r)
        print(f"{scheme:7} {r['build_s']:9.2f} {r['deliver_s']:10.2f} {r['per_10000_s']:10.2f} {r['packets']:9d} "
              f"{r['correct']:>7}/{r['latency_minimal']}/{r['checked']:<5} {r['memory_bits'] / 1e6:12.2f} "
              f"{r['predicate_constraints']:12d} "
              f"{r['compiled_constraints']:10d} {r['load_avg']:5.1f}", flush=True)

    if not args.no_growth:
        print(f"\n# Part 2: growth with n (power-law, k={args.k}, {growth_deliveries} deliveries, "
              f"scaled to 10,000; ratios to n={sizes[0]})")
        print(f"{'scheme':7} {'n':>5} {'build s':>9} {'x':>6} {'per 10k s':>10} {'x':>6} {'memory Mbit':>12} "
              f"{'x':>6} {'load':>5}")
    for scheme in [] if args.no_growth else schemes:
        base = None
        stopped = None
        for n in sizes:
            if stopped is not None:
                print(f"{scheme:7} {n:5d}   skipped: the build at n={stopped[0]} took {stopped[1]:.0f} s "
                      f"> {budget:.0f} s", flush=True)
                continue
            if scheme in ("psf", "ips"):
                need = psf_constraints(n, args.k)
                if need > args.max_constraints:
                    print(f"{scheme:7} {n:5d}   skipped: M(PSF) = {need / 1e6:.0f} M constraints "
                          f"> --max-constraints {args.max_constraints / 1e6:.0f} M", flush=True)
                    continue
            r = run_one(scheme, n, args.k, growth_deliveries, min(args.check, 20))
            r["part"] = "growth"
            rows.append(r)
            base = base or r
            print(f"{scheme:7} {n:5d} {r['build_s']:9.2f} {r['build_s'] / max(base['build_s'], 1e-9):6.1f} "
                  f"{r['per_10000_s']:10.2f} {r['per_10000_s'] / max(base['per_10000_s'], 1e-9):6.1f} "
                  f"{r['memory_bits'] / 1e6:12.2f} {r['memory_bits'] / base['memory_bits']:6.1f} "
                  f"{r['load_avg']:5.1f}", flush=True)
            if r["correct"] != r["checked"]:
                print(f"  !! {r['checked'] - r['correct']} incorrect deliveries", flush=True)
            if r["build_s"] > budget:
                stopped = (n, r["build_s"])

    print()
    write_csv(args.out, rows, FIELDS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
