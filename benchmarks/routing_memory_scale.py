"""M(S) at Internet scale (issue 27, item 3): ``cbalgebra.network.table_memory``
on the largest network topohub ships and on a 100,000-node power-law graph,
with the routing study's workload (Carzaniga, Rembert & Wolf 2006's DNF
predicates, k = 10, zipf-500; half the processors receivers, half senders,
drawn by ``cbalgebra.studies.routing.roles``).

    .venv/bin/python benchmarks/routing_memory_scale.py world        # backbone/world, exact, all four schemes
    .venv/bin/python benchmarks/routing_memory_scale.py internet     # Chung–Lu n = 100,000 on local[2] Spark

``world``: topohub:backbone/world (3,815 nodes), every scheme exact
(target: 2 min in all). ``internet``: a Chung–Lu graph (exponent 2.5, mean
degree 4, ``sampler="skip"``) of ``--n`` nodes, each scheme estimated by
``cbalgebra.studies.sizing.spark_table_memory`` on ``--master`` with
``--sample`` sampled units (target: relative standard error ≤ 1 %, 10 min
in all). iPS needs n + s trees whatever the sample (branch sizes at every
processor, then every sender's classes at the sampled processors and the
priority sample of classes, 100 per sampled unit, that estimates its
constraints), spread over the Spark tasks; ``--skip-ips`` leaves it out. Timings depend on the
load of the machine (written with each row). CSV:
benchmarks/results/routing_memory_scale.csv (rows appended per run).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _harness import RESULTS, append_csv, load_average

from cbalgebra.network import table_memory, topology
from cbalgebra.network.sizing import MEMORY_SCHEMES, memory_problem
from cbalgebra.network.workload import processor_predicates
from cbalgebra.studies.routing import roles, scenario_parameters

FIELDS = ["network", "n", "links", "scheme", "method", "seconds", "predicate_constraints", "total_bits",
          "relative_standard_error", "sampled", "population", "load_avg"]


def workload(graph, name: str, seed: int):
    """The routing study's base workload on ``graph``: receivers, senders, predicates."""
    nodes = graph.number_of_nodes()
    receivers, senders = roles(nodes, 0.5, 0.5, seed, name, nodes, 0)
    names, distribution = scenario_parameters("zipf-500")
    return processor_predicates(receivers, 10, names=names, distribution=distribution, seed=seed), senders


def record(out: Path, network: str, graph, scheme: str, method: str, seconds: float, m) -> None:
    row = {"network": network, "n": graph.number_of_nodes(), "links": graph.number_of_edges(), "scheme": scheme,
           "method": method, "seconds": round(seconds, 2), "predicate_constraints": m.predicate_constraints,
           "total_bits": m.total_bits, "relative_standard_error": round(m.relative_standard_error, 5),
           "sampled": m.sampled, "population": m.population, "load_avg": load_average()}
    append_csv(out, {k: row[k] for k in FIELDS})
    print(f"{network} {scheme:4s} {method:22s} {seconds:8.1f} s  constraints {m.predicate_constraints:.6g}  "
          f"RSE {100 * m.relative_standard_error:.3f} %  ({m.sampled} of {m.population} {m.unit}s"
          f"{f', {m.sampled_classes} classes' if m.sampled_classes else ''})", flush=True)


def world(args: argparse.Namespace) -> None:
    name = "topohub:backbone/world"
    graph = topology(name)
    predicates, senders = workload(graph, name, args.seed)
    start = time.perf_counter()
    problem = memory_problem(graph, predicates, senders=senders)
    for scheme in MEMORY_SCHEMES:
        t = time.perf_counter()
        m = table_memory(scheme, problem)
        record(args.out, name, graph, scheme, "exact", time.perf_counter() - t, m)
    print(f"all four schemes exact in {time.perf_counter() - start:.1f} s (problem set-up included)")


def internet(args: argparse.Namespace) -> None:
    # deferred: Spark starts only for this run
    from cbalgebra.studies.sizing import spark_table_memory
    from cbalgebra.studies.spark import spark_session

    name = f"power_law(chung_lu, n={args.n})"
    t = time.perf_counter()
    graph = topology("power_law", args.n, seed=args.seed, model="chung_lu", gamma=2.5, sampler="skip")
    predicates, senders = workload(graph, name, args.seed)
    problem = memory_problem(graph, predicates, senders=senders)
    print(f"graph, workload and problem in {time.perf_counter() - t:.1f} s", flush=True)
    session = spark_session(args.master)
    start = time.perf_counter()
    for scheme in ("psf", "pif", "drp", *(() if args.skip_ips else ("ips",))):
        t = time.perf_counter()
        m = spark_table_memory(session, scheme, problem, sample=args.sample, seed=args.seed)
        method = "exact" if m.exact else f"sampled on {args.master}"
        record(args.out, name, graph, scheme, method, time.perf_counter() - t, m)
    print(f"schemes done in {time.perf_counter() - start:.1f} s on {args.master}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("world", "internet"))
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=400, help="sampled units per scheme (internet)")
    parser.add_argument("--seed", type=int, default=2003)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--skip-ips", action="store_true", help="leave iPS out (internet: its n + s trees)")
    parser.add_argument("--out", type=Path, default=RESULTS / "routing_memory_scale.csv")
    args = parser.parse_args()
    world(args) if args.what == "world" else internet(args)


if __name__ == "__main__":
    main()
