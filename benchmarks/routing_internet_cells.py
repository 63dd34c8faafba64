"""CPU per part of a cell of ``cbalgebra study routing --design internet``
(issue 27, item 4: which cells dominate the full design's 45 minutes).

    .venv/bin/python benchmarks/routing_internet_cells.py power_law:10000 gnp:100000 topohub:backbone/world
    .venv/bin/python benchmarks/routing_internet_cells.py --ips-max 5000 transit_stub:4642
    .venv/bin/python benchmarks/routing_internet_cells.py --budget 5000,10000,21544

``--budget``: the full design's predicted CPU minutes per part (each topohub
collection, each family) for each ``ips_max`` listed, from the design's
``cell_cost`` (CPU seconds fitted to this script's rows), and the cells of
the CSV beside their ``cell_cost``, to check the fit. Wall time on
``local[2]`` is about half the CPU time on an idle machine.

Each argument is one cell, ``family:n`` or a ``topohub:`` key, run in this
process with the design's default counting policy (``InternetGrid``; the
flags below change it) and the same steps as
``cbalgebra.studies.routing_internet.run_internet_cell``: the network, the
workload and the problem (``setup``), the hop distance d (``d``), then each
scheme. CPU seconds (``time.process_time``: the machine is shared, so wall
time also counts waiting for a core) go to
benchmarks/results/routing_internet_cells.csv, one row per cell, with the
load average.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from _harness import RESULTS, append_csv, load_average, read_csv

from cbalgebra.network.sizing import memory_problem
from cbalgebra.studies.routing import cell_workload
from cbalgebra.studies.routing_internet import (
    MODEL_VERSION,
    SCHEMES,
    InternetGrid,
    cell_cost,
    count_scheme,
    every_topohub_network,
    hop_distance,
    internet_cells,
    internet_network,
)

OUT = RESULTS / "routing_internet_cells.csv"


def the_cell(spec: str, grid: InternetGrid, seed: int) -> dict:
    """The design's cell for ``family:n`` or a topohub key."""
    if spec.startswith("topohub:"):
        one = dataclasses.replace(grid, families=(), real=(spec,))
    else:
        family, n = spec.split(":")
        one = dataclasses.replace(grid, families=(family,), ns=(int(n),), real=(), family_max=())
    return internet_cells(one, seed)[0]


def profile(cell: dict) -> dict:
    """CPU seconds of each part of one cell."""
    row: dict = {"cell": cell["topology"] if cell["n"] == 0 else f"{cell['topology']}:{cell['n']}"}
    cpu = time.process_time()
    graph = internet_network(cell["topology"], cell["n"], cell["seed"], cell["replicate"])
    row["graph"] = time.process_time() - cpu
    _, senders, predicates, _, _ = cell_workload(cell, graph.number_of_nodes(), "internet-predicates",
                                                 MODEL_VERSION)
    problem = memory_problem(graph, predicates, senders=senders)
    row["setup"] = time.process_time() - cpu
    row.update(n=graph.number_of_nodes(), links=graph.number_of_edges())
    t = time.process_time()
    hop_distance(problem, cell)
    row["d"] = time.process_time() - t
    for scheme in SCHEMES:
        t = time.process_time()
        counted = count_scheme(problem, scheme, cell)
        row[scheme] = time.process_time() - t
        row[f"{scheme}_sampled"] = counted["sampled"]
    row["total"] = time.process_time() - cpu
    return row


def part_of(cell: dict) -> str:
    """A topohub collection or a family."""
    return cell["topology"].split("/")[0] if cell["n"] == 0 else cell["topology"]


def budget(ips_maxes: list[int], seed: int) -> None:
    """Predicted CPU minutes of the full design per part, and the fit against the measured rows."""
    for ips_max in ips_maxes:
        grid = dataclasses.replace(InternetGrid(), real=every_topohub_network(), ips_max=ips_max)
        cells = internet_cells(grid, seed)
        parts: dict[str, float] = {}
        for cell in cells:
            parts[part_of(cell)] = parts.get(part_of(cell), 0.0) + cell_cost(cell) / 60
        total, longest = sum(parts.values()), max(cell_cost(c) for c in cells) / 60
        print(f"ips_max {ips_max:,}: {len(cells)} cells, {total:.1f} CPU-min (longest cell {longest:.1f}): "
              + ", ".join(f"{k} {v:.1f}" for k, v in sorted(parts.items())), flush=True)
    if OUT.exists():
        print("measured (CSV) / cell_cost, CPU seconds:")
        for row in read_csv(OUT):
            grid = dataclasses.replace(InternetGrid(), **{k: int(row[k]) for k in
                                                          ("ips_max", "exact_max", "pilot", "max_sample",
                                                           "d_sources")})
            predicted = cell_cost(the_cell(row["cell"], grid, seed))
            print(f"  {row['cell']:28s} ips_max {row['ips_max']:>6}  {float(row['total']):7.1f} / {predicted:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cells", nargs="*", help="family:n or topohub:<key>")
    parser.add_argument("--budget", metavar="LIST", help="ips_max values to predict the full design's CPU for")
    for name in ("ips_max", "exact_max", "pilot", "max_sample", "d_sources"):
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(InternetGrid(), name))
    parser.add_argument("--seed", type=int, default=2003)
    args = parser.parse_args()
    if args.budget:
        budget([int(x) for x in args.budget.split(",")], args.seed)
    grid = dataclasses.replace(InternetGrid(), **{k: getattr(args, k) for k in
                                                  ("ips_max", "exact_max", "pilot", "max_sample", "d_sources")})
    for spec in args.cells:
        row = profile(the_cell(spec, grid, args.seed))
        row.update({k: getattr(grid, k) for k in ("ips_max", "exact_max", "pilot", "max_sample", "d_sources")})
        row["load_avg"] = load_average()
        append_csv(OUT, {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
        print("  ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
