"""The routing study runs Siena in every cell of its default grid up to
n = 1,000 (issue 27 item 3), and a cell's Siena columns are those of
build("siena", ...) on the cell's network (built once, shared by memory and
traffic)."""

from __future__ import annotations

import math

from cbalgebra.network.schemes import build
from cbalgebra.studies import routing
from cbalgebra.studies.routing import Grid, routing_cells, run_routing_cell, siena_runs


def test_the_default_grid_runs_siena_in_every_generated_cell_up_to_1000():
    cells = [c for c in routing_cells(Grid(), 2003) if c["n"]]
    assert max(c["n"] for c in cells) == 1000
    assert all(siena_runs(c, c["n"], math.ceil(c["r_frac"] * c["n"])) for c in cells)
    # and the real networks of the grid, at their sizes (the largest has 594 nodes)
    real = [c for c in routing_cells(Grid(), 2003) if not c["n"]]
    assert all(siena_runs(c, 594, 594) for c in real)


def test_a_cells_siena_memory_is_the_built_scheme():
    grid = Grid(families=("power_law",), ns=(30,), real=(), rs_real=(), r_fracs=(0.5,), s_fracs=(0.5,), ks=(3,),
                scenarios=("zipf-500",), reducers=("none",), replicates=1, base_n=30, base_k=3, reducer_ns=(),
                sources=2, messages=2, check_max=10)
    cell = routing_cells(grid, 5)[0]
    row = run_routing_cell(cell)
    graph = routing.make_network(cell["topology"], cell["n"], cell["seed"], 0)
    receivers, senders = routing.roles(graph.number_of_nodes(), 0.5, 0.5, cell["seed"], cell["topology"],
                                       cell["n"], 0)
    names, distribution = routing.scenario_parameters("zipf-500")
    seed = routing.cell_seed(cell["seed"], ("predicates", routing.MODEL_VERSION, cell["topology"], cell["n"], 0, 3,
                                            "zipf-500"))
    from cbalgebra.network.workload import processor_predicates

    preds = processor_predicates(receivers, 3, names=names, distribution=distribution, seed=seed % (2**32))
    memory = build("siena", graph, preds, senders=senders).memory()
    assert row["siena_total_bits"] == memory["total_bits"] and row["siena_correct"] == 1.0
