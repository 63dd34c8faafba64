"""All-pairs shortest paths for the routing schemes: scipy against networkx.

    .venv/bin/python benchmarks/routing_paths.py [--n 1000] [--repeat 3] [--seed 0]
        [--out benchmarks/results]

For each network (about ``n`` processors: Barabási–Albert, connected G(n, p)
with integer weights 1..10, Chung–Lu, a GT-ITM transit-stub graph scaled up,
and the largest CAIDA router-level graph topohub ships), times

- ``dist(g, "scipy")``: the exact distances rounded to floats (scipy.sparse.csgraph
  Dijkstra from every source where float64 is exact);
- ``dist(g, "networkx")``: networkx's all_pairs_dijkstra_path_length into
  the same array (the baseline);
- ``ShortestPaths(g)``: the exact distances plus the tie-broken parent of
  every node in every T_v (what the routing schemes use), and which
  arithmetic made them exact (float64, or Python ints when the weights'
  scales differ too much: the last network);

best of ``repeat`` wall-clock runs each, checks that both dist tables agree,
prints the ratio networkx/scipy, and writes ``routing_paths.csv`` under
``--out``. The budget the issue sets is 10 s for all pairs at n = 1,000.
Not a test.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
from pathlib import Path

import numpy as np
from _harness import RESULTS, best_of, cpus_and_load, write_csv

from cbalgebra.network import topology
from cbalgebra.network.paths import ShortestPaths, dist


def networks(n: int, seed: int):
    yield "power_law ba m=2", topology("power_law", n=n, seed=seed)
    yield "gnp deg 4 w 1..10", topology("gnp", n=n, seed=seed, weight_range=(1, 10))
    yield "power_law chung_lu 2.5", topology("power_law", n=n, seed=seed, model="chung_lu")
    # 4 transit domains x 5 nodes, 3 stubs of 16 nodes each: 980 nodes.
    stub_nodes = max(1, round((n / 20 - 1) / 3))
    yield f"transit_stub 4x5 3x{stub_nodes}", topology(
        "transit_stub", seed=seed, transit_domains=4, transit_nodes=5, stubs_per_transit=3,
        stub_nodes=stub_nodes)
    yield "topohub caida/7018 (km)", topology("topohub:caida/2024-08/7018")
    # Weights 1e-12 beside 1e12 (issue 23 §3): no float64 Dijkstra is exact
    # on them, so ShortestPaths runs its Dijkstra on Python integers.
    g = topology("gnp", n=n, seed=seed)
    rng = random.Random(seed)
    for u, v in sorted(g.edges):
        g.edges[u, v]["weight"] = rng.choice([1e-12, 2e-12, 1.0, 1e12, 2e12])
    yield "gnp deg 4 w 1e-12..1e12", g


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="about how many processors a network has")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each computation (best kept)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated networks")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of routing_paths.csv")
    args = parser.parse_args(argv)

    print(f"python {platform.python_version()}, {cpus_and_load()}")
    print(f"{'network':28} {'n':>5} {'m':>6} {'scipy s':>9} {'networkx s':>11} {'nx/scipy':>9} "
          f"{'ShortestPaths s':>16}  exact in")
    rows = []
    for name, g in networks(args.n, args.seed):
        t_scipy, d_scipy = best_of(args.repeat, lambda g=g: dist(g, "scipy"))
        t_nx, d_nx = best_of(args.repeat, lambda g=g: dist(g, "networkx"))
        if not np.allclose(d_scipy, d_nx, rtol=1e-12, atol=0):
            print(f"{name}: scipy and networkx disagree", file=sys.stderr)
            return 1
        t_full, sp = best_of(args.repeat, lambda g=g: ShortestPaths(g))
        row = {"network": name, "n": g.number_of_nodes(), "m": g.number_of_edges(),
               "scipy_s": round(t_scipy, 4), "networkx_s": round(t_nx, 4),
               "ratio_networkx_over_scipy": round(t_nx / t_scipy, 1),
               "shortest_paths_s": round(t_full, 4),
               "exact_arithmetic": "float64" if sp.exact_dist.dtype == np.float64 else "python ints"}
        rows.append(row)
        print(f"{name:28} {row['n']:5} {row['m']:6} {t_scipy:9.3f} {t_nx:11.3f} "
              f"{t_nx / t_scipy:9.1f} {t_full:16.3f}  {row['exact_arithmetic']}", flush=True)
    write_csv(args.out / "routing_paths.csv", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
