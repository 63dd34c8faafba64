"""M(S) without tables (issue 12): time of ``cbalgebra.network.memory.exact_memory``
against building every scheme's tables and calling ``Routing.memory()``, on
Chung–Lu power-law networks (exponent 2.5) with Carzaniga, Rembert & Wolf 2006's DNF predicates
(k = 10), every processor a sender and a receiver. Both give the same bits
(checked here on every row); the ratio is what makes the routing study's
n = 1,000 cells affordable.

    .venv/bin/python benchmarks/routing_memory.py            # n = 50, 100, 200, 400
    .venv/bin/python benchmarks/routing_memory.py --quick    # n = 50, 100

The baseline (the built tables) is run side by side on the same graph and
predicates; ShortestPaths is shared and excluded from both. Timings depend on
the machine's load: the 1-minute load average is written with every row.
CSV: benchmarks/results/routing_memory.csv.
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from _harness import RESULTS, load_average, timed, write_csv

from cbalgebra.network import topology
from cbalgebra.network.memory import exact_memory, tree_orders
from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.schemes import build, ips_structure
from cbalgebra.network.workload import processor_predicates

FIELDS = ["n", "links", "scheme", "tables_s", "exact_s", "ratio_tables_over_exact", "total_bits", "same",
          "load_avg"]


def exact_bits(paths: ShortestPaths, predicates: dict, n: int) -> dict:
    """M(S) of the four schemes from the trees alone (every processor a sender and a receiver)."""
    return exact_memory(paths, predicates, range(n), orders=tree_orders(paths), ips=ips_structure(paths, range(n)))


def table_bits(scheme: str, graph, predicates: dict, paths: ShortestPaths) -> dict:
    """``Routing.memory()`` of the scheme's built tables."""
    return build(scheme, graph, predicates, paths=paths).memory()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS / "routing_memory.csv")
    args = parser.parse_args()
    sizes = (50, 100) if args.quick else (50, 100, 200, 400)
    rows = []
    for n in sizes:
        graph = topology("power_law", n, seed=12, model="chung_lu", gamma=2.5)
        predicates = processor_predicates(n, 10, seed=12)
        paths = ShortestPaths(graph)
        exact_s, exact = timed(partial(exact_bits, paths, predicates, n))
        for scheme in ("psf", "ips", "pif", "drp"):
            tables_s, memory = timed(partial(table_bits, scheme, graph, predicates, paths))
            same = (memory["total_bits"] == exact[scheme]["total_bits"])
            row = {"n": n, "links": graph.number_of_edges(), "scheme": scheme, "tables_s": round(tables_s, 3),
                   "exact_s": round(exact_s, 3), "ratio_tables_over_exact": round(tables_s / exact_s, 1),
                   "total_bits": memory["total_bits"], "same": same, "load_avg": load_average()}
            rows.append(row)
            print(f"n={n:5d} {scheme:4s} tables {tables_s:8.2f} s   exact (all four) {exact_s:6.2f} s   "
                  f"x{tables_s / exact_s:7.1f}   same bits: {same}", flush=True)
            if not same:
                raise SystemExit(f"{scheme} at n={n}: {memory['total_bits']} bits from the tables, "
                                 f"{exact[scheme]['total_bits']} from the trees")
    write_csv(args.out, rows, FIELDS)


if __name__ == "__main__":
    main()
