"""Siena's subscription forwarding at the routing study's sizes (issue 27
item 3): ``build("siena", ...)`` on the study's growth cells (power_law,
r/n = s/n = 0.5, k = 10, zipf-500, replicate 0, seed 2003: the network,
roles and predicates exactly as ``cbalgebra study routing`` makes them),
then ``memory()`` and 32 deliveries (8 sources × 4 messages, as a cell).

    .venv/bin/python benchmarks/routing_siena.py                  # n = 200 (3 runs) and 1,000 (1 run)
    .venv/bin/python benchmarks/routing_siena.py --sizes 200 --simulated

The build computes the converged tables in bulk
(:mod:`cbalgebra.network.siena_state`); ``--simulated`` also times the
message-by-message simulation (``Siena.bulk = False``, minutes at n = 200)
and checks that both give the same memory and traffic. Timings on a shared
machine vary: the median is printed and the 1-minute load average is
written with every row. CSV: benchmarks/results/routing_siena.csv.
"""

from __future__ import annotations

import argparse
import statistics
from functools import partial
from pathlib import Path

from _harness import RESULTS, load_average, timed, write_csv

from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.schemes import Siena, build
from cbalgebra.network.workload import messages
from cbalgebra.studies.routing import MODEL_VERSION, cell_seed, make_network, roles, scenario_parameters

FIELDS = ["n", "mode", "run", "subscriptions", "build_s", "memory_s", "deliveries", "deliver_s", "tables_compiled",
          "subscribe_messages", "total_bits", "load_avg"]
SEED, TOPOLOGY, SCENARIO, K = 2003, "power_law", "zipf-500", 10


def study_cell(n: int) -> tuple:
    """The growth cell's graph, senders and predicates, as the study makes them."""
    # deferred: workload loads the DNF generator
    from cbalgebra.network.workload import processor_predicates

    graph = make_network(TOPOLOGY, n, SEED, 0)
    receivers, senders = roles(graph.number_of_nodes(), 0.5, 0.5, SEED, TOPOLOGY, n, 0)
    names, distribution = scenario_parameters(SCENARIO)
    seed = cell_seed(SEED, ("predicates", MODEL_VERSION, TOPOLOGY, n, 0, K, SCENARIO)) % (2**32)
    predicates = processor_predicates(receivers, K, names=names, distribution=distribution, seed=seed)
    return graph, senders, predicates, names, distribution


def one_run(n: int, mode: str, run: int) -> dict:
    graph, senders, predicates, names, distribution = study_cell(n)
    paths = ShortestPaths(graph)
    Siena.bulk = mode == "bulk"
    try:
        build_s, routing = timed(partial(build, "siena", graph, predicates, senders=senders, paths=paths))
    finally:
        Siena.bulk = True
    memory_s, memory = timed(routing.memory)
    msgs = messages(32, names=names, distribution=distribution, seed=run, aim_at=predicates)
    sources = [senders[(5 * i) % len(senders)] for i in range(len(msgs))]
    deliver_s, deliveries = timed(partial(routing.deliver_many, msgs, sources))
    assert all(d.correct for d in deliveries)
    return {"n": graph.number_of_nodes(), "mode": mode, "run": run,
            "subscriptions": sum(len(p.filters) for p in predicates.values()),
            "build_s": round(build_s, 2), "memory_s": round(memory_s, 2), "deliveries": len(deliveries),
            "deliver_s": round(deliver_s, 2), "tables_compiled": len(routing.tables),
            "subscribe_messages": routing.traffic.subscribe, "total_bits": memory["total_bits"],
            "load_avg": load_average()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[200, 1000])
    parser.add_argument("--runs", type=int, default=None, help="runs per size (default 3 below 500 nodes, else 1)")
    parser.add_argument("--simulated", action="store_true", help="also time the message-by-message simulation")
    parser.add_argument("--out", type=Path, default=RESULTS / "routing_siena.csv")
    args = parser.parse_args()
    rows = []
    for n in args.sizes:
        runs = args.runs or (3 if n < 500 else 1)
        for mode in ("bulk", "simulated") if args.simulated else ("bulk",):
            mine = [one_run(n, mode, run) for run in range(runs if mode == "bulk" else 1)]
            rows += mine
            for r in mine:
                print(f"n={r['n']:5d} {mode:9s} run {r['run']}: build {r['build_s']:7.2f} s  memory "
                      f"{r['memory_s']:5.2f} s  {r['deliveries']} deliveries {r['deliver_s']:6.2f} s "
                      f"({r['tables_compiled']} tables)  {r['subscribe_messages']} subscribe messages  "
                      f"{r['total_bits']} bits  load {r['load_avg']}", flush=True)
            print(f"n={n}: median build {statistics.median(r['build_s'] for r in mine):.2f} s ({mode})", flush=True)
        if args.simulated:
            same = {(r["subscribe_messages"], r["total_bits"]) for r in rows if r["n"] == rows[-1]["n"]}
            if len(same) != 1:
                raise SystemExit(f"n={n}: bulk and simulation disagree: {sorted(same)}")
            print(f"n={n}: bulk and simulation give the same traffic and memory", flush=True)
    write_csv(args.out, rows, FIELDS)


if __name__ == "__main__":
    main()
