"""The smallest latency-minimal delivery tree: time of the exact search and
how far the union of T_v paths (PSF's tree) is from it.

    .venv/bin/python benchmarks/routing_steiner.py [--trials 5] [--seed 0]
        [--out benchmarks/results]

For each network and number k of interested processors, ``trials`` random
(source, interested set) draws: the exact tree
(``smallest_latency_minimal_tree`` with no size limit: a 0-1 program solved by
branch and bound in HiGHS) against the union of the T_v paths. Printed and
written to ``routing_steiner.csv``: the mean and worst time of the exact
search, the mean sizes, and the mean and worst ratio bound/exact. Grids are
the cliff: every node has two shortest-path parents, and the search time
grows fast with the grid (a 30 x 30 grid with 10 interested processors took
203 s here once, so it is not in the default list). Not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from functools import partial
from pathlib import Path

from _harness import RESULTS, cpus_and_load, timed, write_csv

from cbalgebra.network import topology
from cbalgebra.network.delivery import (
    smallest_latency_minimal_tree,
    union_of_tree_paths,
)
from cbalgebra.network.paths import ShortestPaths

NETWORKS = [
    ("grid 10x10", lambda s: topology("grid", n=100)),
    ("grid 20x20", lambda s: topology("grid", n=400)),
    ("transit_stub default", lambda s: topology("transit_stub", seed=s)),
    ("gnp 300 deg 6", lambda s: topology("gnp", n=300, seed=s, avg_degree=6)),
    ("power_law ba 1000", lambda s: topology("power_law", n=1000, seed=s)),
    ("topohub sndlib/germany50 km", lambda s: topology("topohub:sndlib/germany50")),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5, help="random (source, interested set) draws per cell")
    parser.add_argument("--seed", type=int, default=0, help="seed of the networks and the draws")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of routing_steiner.csv")
    args = parser.parse_args(argv)
    print(cpus_and_load())
    print(f"{'network':28} {'k':>3} {'exact s mean':>12} {'max':>7} {'|exact|':>8} {'|union|':>8} "
          f"{'ratio mean':>10} {'max':>6}")
    rows = []
    for name, build in NETWORKS:
        g = build(args.seed)
        sp = ShortestPaths(g)
        n = g.number_of_nodes()
        for k in (5, 20, 50):
            if k >= n:
                continue
            rng = random.Random(f"{name}:{k}:{args.seed}")
            times, exact_sizes, union_sizes, ratios = [], [], [], []
            for _ in range(args.trials):
                source = rng.randrange(n)
                interested = rng.sample(range(n), k)
                seconds, best = timed(partial(smallest_latency_minimal_tree, g, source, interested, paths=sp,
                                              exact_limit=n))
                times.append(seconds)
                assert best.exact
                union = union_of_tree_paths(sp, source, interested)
                exact_sizes.append(best.size)
                union_sizes.append(union.size)
                ratios.append(union.size / best.size)
            row = {"network": name, "n": n, "k": k, "trials": args.trials,
                   "exact_s_mean": round(statistics.mean(times), 4), "exact_s_max": round(max(times), 4),
                   "exact_size_mean": round(statistics.mean(exact_sizes), 2),
                   "union_size_mean": round(statistics.mean(union_sizes), 2),
                   "ratio_mean": round(statistics.mean(ratios), 3), "ratio_max": round(max(ratios), 3)}
            rows.append(row)
            print(f"{name:28} {k:3} {row['exact_s_mean']:12.3f} {row['exact_s_max']:7.3f} "
                  f"{row['exact_size_mean']:8.1f} {row['union_size_mean']:8.1f} "
                  f"{row['ratio_mean']:10.3f} {row['ratio_max']:6.3f}", flush=True)
    write_csv(args.out / "routing_steiner.csv", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
