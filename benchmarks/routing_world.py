"""Deliveries at scale (issue 27 item 5): ``Routing.deliver`` on the largest
real network topohub ships, ``topohub:backbone/world`` (3,815 nodes), for
PSF, PIF and DRP built with ``lazy=True`` (rows and tables only at the
processors a message reaches), every delivery checked correct and
latency-minimal (:attr:`cbalgebra.network.Delivery.latency_minimal`).

    .venv/bin/python benchmarks/routing_world.py                    # 1,000 deliveries per scheme
    .venv/bin/python benchmarks/routing_world.py --deliveries 100 --network topohub:caida/2024-08/7018

Workload: receivers r = ⌈r_frac·n⌉ processors (seeded), each with k = 10
conjunctions of Carzaniga, Rembert & Wolf 2006's DNF generator (zipf-500);
every processor a sender; deliveries from sources drawn uniformly (seeded)
with messages aimed at a random receiver's conjunction. The all-pairs
shortest paths, which every scheme shares and the latency check reads, are
timed apart. Timings on a shared machine vary; the 1-minute load average
is written with every row. CSV: benchmarks/results/routing_world.csv.
"""

from __future__ import annotations

import argparse
import math
from functools import partial
from pathlib import Path

import numpy as np
from _harness import RESULTS, load_average, timed, write_csv

from cbalgebra.network import topology
from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.schemes import build
from cbalgebra.network.workload import messages, processor_predicates

FIELDS = ["network", "n", "links", "scheme", "receivers", "deliveries", "paths_s", "build_s", "deliver_s",
          "check_s", "processors_with_tables", "packets_mean", "correct", "latency_minimal", "load_avg"]


def deliver_and_check(routing, msgs: list, sources: list[int]) -> tuple[float, float, list]:
    """Seconds delivering one by one, seconds checking, the deliveries."""
    deliver_s, deliveries = timed(lambda: [routing.deliver(m, v) for m, v in zip(msgs, sources, strict=True)])
    check_s, _ = timed(lambda: [(d.correct, d.latency_minimal) for d in deliveries])
    return deliver_s, check_s, deliveries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", default="topohub:backbone/world")
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--r-frac", type=float, default=0.1)
    parser.add_argument("--schemes", default="psf,pif,drp")
    parser.add_argument("--out", type=Path, default=RESULTS / "routing_world.csv")
    args = parser.parse_args()
    graph = topology(args.network)
    n = graph.number_of_nodes()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([27, 5])))
    receivers = sorted(int(x) for x in rng.choice(n, size=math.ceil(args.r_frac * n), replace=False))
    predicates = processor_predicates(receivers, 10, names=500, distribution="zipf", seed=27)
    msgs = messages(args.deliveries, names=500, distribution="zipf", seed=27, aim_at=predicates)
    sources = [int(v) for v in rng.integers(0, n, size=args.deliveries)]
    paths_s, paths = timed(partial(ShortestPaths, graph))
    print(f"{args.network}: n={n}, {graph.number_of_edges()} links, {len(receivers)} receivers; "
          f"all-pairs shortest paths {paths_s:.1f} s", flush=True)
    rows = []
    for scheme in args.schemes.split(","):
        build_s, routing = timed(partial(build, scheme, graph, predicates, paths=paths, lazy=True))
        deliver_s, check_s, deliveries = deliver_and_check(routing, msgs, sources)
        with_tables = len([u for u, t in routing.tables.items() if t is not None and t != {}])
        row = {"network": args.network, "n": n, "links": graph.number_of_edges(), "scheme": scheme,
               "receivers": len(receivers), "deliveries": len(deliveries), "paths_s": round(paths_s, 2),
               "build_s": round(build_s, 2), "deliver_s": round(deliver_s, 2), "check_s": round(check_s, 2),
               "processors_with_tables": with_tables,
               "packets_mean": round(float(np.mean([d.size for d in deliveries])), 2),
               "correct": sum(d.correct for d in deliveries),
               "latency_minimal": sum(d.latency_minimal for d in deliveries), "load_avg": load_average()}
        rows.append(row)
        print(f"{scheme:4s} build {build_s:6.2f} s  {len(deliveries)} deliveries {deliver_s:6.2f} s  checks "
              f"{check_s:6.2f} s  tables at {with_tables} processors  {row['packets_mean']} packets each  "
              f"correct {row['correct']}  latency-minimal {row['latency_minimal']}  load {row['load_avg']}",
              flush=True)
    write_csv(args.out, rows, FIELDS)


if __name__ == "__main__":
    main()
