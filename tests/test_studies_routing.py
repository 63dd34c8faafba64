"""The routing study's pure parts: the memory counts without tables, the
processor-sampling estimator, the formulas of Carzaniga, Rembert & Wolf
2006 §3 on literal cases, and one cell end to end (no Spark)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbalgebra.network import topology
from cbalgebra.network.memory import (
    estimate_total,
    exact_memory,
    make_combiner,
    processor_constraints,
    tree_orders,
)
from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.schemes import BITS_PER_CONSTRAINT, build
from cbalgebra.network.workload import processor_predicates
from cbalgebra.parse import parse_predicate
from cbalgebra.studies import routing
from cbalgebra.studies.cli import add_study_command
from cbalgebra.studies.routing import (
    Grid,
    drp_formula,
    ips_tree_formula,
    pif_formula,
    psf_exact_formula,
    psf_simplified_formula,
    routing_cells,
    run_routing_cell,
)


def roles_of(n: int, seed: int) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    return sorted(rng.sample(range(n), max(1, n // 2))), sorted(rng.sample(range(n), max(1, (2 * n) // 3)))


NETWORKS = [("tree", 14), ("power_law", 16), ("gnp", 15), ("grid", 16), ("waxman", 14), ("ring", 9)]


# ---------------------------------------------------------------- exact counts

@pytest.mark.parametrize(("name", "n"), NETWORKS)
@pytest.mark.parametrize("seed", [1, 2])
def test_exact_memory_equals_the_built_tables(name, n, seed):
    g = topology(name, n, seed=seed)
    receivers, senders = roles_of(n, seed)
    preds = processor_predicates(receivers, 3, seed=seed)
    paths = ShortestPaths(g)
    exact = exact_memory(paths, preds, senders)
    for scheme in ("psf", "ips", "pif", "drp"):
        m = build(scheme, g, preds, senders=senders, paths=paths).memory()
        assert exact[scheme]["id_bits"] == m["id_bits"], scheme
        assert exact[scheme]["predicate_constraints"] == m["predicate_constraints"], scheme
        assert exact[scheme]["total_bits"] == m["total_bits"], scheme


@settings(max_examples=15, deadline=None)
@given(st.integers(4, 12), st.integers(0, 10**6), st.sampled_from(["tree", "gnp", "power_law", "ring"]))
def test_exact_memory_on_generated_networks(n, seed, name):
    g = topology(name, n, seed=seed)
    receivers, senders = roles_of(n, seed)
    preds = processor_predicates(receivers, 2, seed=seed % 1000)
    paths = ShortestPaths(g)
    exact = exact_memory(paths, preds, senders)
    for scheme in ("psf", "ips", "pif", "drp"):
        m = build(scheme, g, preds, senders=senders, paths=paths).memory()
        assert (exact[scheme]["id_bits"], exact[scheme]["predicate_constraints"]) == \
            (m["id_bits"], m["predicate_constraints"]), scheme


@pytest.mark.parametrize("reducer", ["none", "siena", "merge"])
def test_processor_rows_sum_to_the_built_tables(reducer):
    g = topology("power_law", 12, seed=3)
    receivers, senders = roles_of(12, 3)
    preds = processor_predicates(receivers, 3, seed=3)
    paths = ShortestPaths(g)
    combiner = make_combiner(preds, reducer)
    for scheme in ("psf", "ips", "pif"):
        total = sum(processor_constraints(scheme, u, paths, preds, senders, reducer, combiner=combiner)
                    for u in range(12))
        assert total == build(scheme, g, preds, senders=senders, paths=paths, reducer=reducer) \
            .memory()["predicate_constraints"], scheme


def test_tree_orders_make_subtrees_intervals():
    g = topology("gnp", 13, seed=5)
    paths = ShortestPaths(g)
    orders = tree_orders(paths)
    for v in range(13):
        for x in range(13):
            inside = {int(y) for y in orders.order[v, orders.tin[v, x]:orders.tout[v, x]]}
            assert inside == set(paths.subtree(v, x))
            assert orders.hops[v, x] == len(paths.path(v, x)) - 1


# ---------------------------------------------------------------- the estimator

def test_estimator_is_unbiased_over_every_sample():
    """Averaged over every m-subset of the processors, T̂ is exactly the total."""
    g = topology("power_law", 8, seed=2)
    receivers, senders = roles_of(8, 2)
    preds = processor_predicates(receivers, 2, seed=2)
    paths = ShortestPaths(g)
    combiner = make_combiner(preds, "merge")
    for scheme in ("psf", "ips", "pif"):
        ys = [processor_constraints(scheme, u, paths, preds, senders, "merge", combiner=combiner) for u in range(8)]
        exact = build(scheme, g, preds, senders=senders, paths=paths, reducer="merge").memory()
        assert sum(ys) == exact["predicate_constraints"]
        for m in (1, 3, 5):
            subsets = list(itertools.combinations(range(8), m))
            mean = sum(Fraction(8, m) * sum(ys[u] for u in s) for s in subsets) / len(subsets)
            assert mean == sum(ys)
            got = np.mean([estimate_total([ys[u] for u in s], 8).total for s in subsets])
            assert math.isclose(got, sum(ys), rel_tol=1e-12)


def test_estimator_standard_error_matches_the_sampling_spread():
    """The SE formula's mean square over every sample is the estimator's
    variance (the finite-population formula is exact in expectation)."""
    ys = [3.0, 9.0, 1.0, 4.0, 7.0, 12.0, 0.0]
    n, m = len(ys), 3
    samples = list(itertools.combinations(range(n), m))
    estimates = [estimate_total([ys[i] for i in s], n) for s in samples]
    variance = np.var([e.total for e in estimates])
    mean_square_se = np.mean([e.standard_error ** 2 for e in estimates])
    assert math.isclose(variance, mean_square_se, rel_tol=1e-12)
    whole = estimate_total(ys, n)
    assert whole.exact and whole.standard_error == 0 and whole.total == sum(ys)


def test_estimator_rejects_impossible_samples():
    with pytest.raises(ValueError):
        estimate_total([], 5)
    with pytest.raises(ValueError):
        estimate_total([1.0] * 6, 5)


# ---------------------------------------------------------------- formulas

def test_formulas_on_literal_cases():
    # s = 2 senders, ⌈log2 n⌉ = 3, Σ size·hops = 10 constraints: 2·3 + 10·88
    assert psf_exact_formula(2, 3, 10, 88) == 886
    # s log n + s r M_p d = 4·4 + 4·5·88·2.5
    assert psf_simplified_formula(4, 4, 5, 88.0, 2.5) == 16 + 4400
    assert ips_tree_formula(10, 5, 88.0, 0.5) == 2200
    # n(s Δ log n + n r M_p α) = 10·(2·3·4 + 10·5·88·1)
    assert pif_formula(10, 2, 3, 4, 5, 88.0, 1.0) == 10 * (24 + 4400)
    # n r log n + s r M_p = 10·5·4 + 2·5·88
    assert drp_formula(10, 5, 4, 2, 88.0) == 200 + 880


def test_psf_exact_ratio_is_one_on_a_path():
    """A path 0 - 1 - 2 - 3, receivers 1..3 of one constraint, source 0:
    pred(x) sits on the x hops of the path, so Σ size·hops = 1 + 2 + 3."""
    g = nx.path_graph(4)
    nx.set_edge_attributes(g, 1, "weight")
    preds = {x: parse_predicate(f"a{x} = {x}") for x in (1, 2, 3)}
    m = build("psf", g, preds, senders=[0]).memory()
    assert m["total_bits"] == psf_exact_formula(1, 2, 6, BITS_PER_CONSTRAINT)
    drp = build("drp", g, preds, senders=[0]).memory()
    assert drp["total_bits"] == drp_formula(4, 3, 2, 1, BITS_PER_CONSTRAINT)


# ---------------------------------------------------------------- cells

SMALL = Grid(families=("tree", "power_law"), ns=(12, 16), real=(), rs_real=(), r_fracs=(0.5, 1.0),
             s_fracs=(0.5, 1.0), ks=(1,), scenarios=("zipf-500",), reducers=("none", "merge"), replicates=1,
             base_n=12, base_k=1, reducer_ns=(12,), sources=2, messages=2, siena_max=16, check_max=16)


def test_cells_cover_each_sweep_once():
    cells = routing_cells(SMALL, 7)
    keys = [tuple(c[k] for k in routing.KEY_COLUMNS) for c in cells]
    assert len(keys) == len(set(keys))
    designs = {d for c in cells for d in c["designs"].split("+")}
    assert designs == {"growth", "senders-receivers", "k", "scenario", "reducer"}
    factorial = routing_cells(Grid(**{**SMALL.__dict__, "design": "factorial"}), 7)
    assert len(factorial) == 2 * 2 * 2 * 2 * 1 * 1 * 2


def test_cells_at_alpha_one_meet_the_exact_formula():
    for cell in routing_cells(SMALL, 3)[:6]:
        row = run_routing_cell(cell)
        if row["reducer"] == "none":
            assert row["psf_total_bits"] == row["psf_exact_formula"]
            assert row["psf_alpha"] == 1.0
            assert math.isclose(row["drp_total_bits"], row["drp_formula"], rel_tol=1e-12)
        assert row["memory_checked"]
        for scheme in routing.SCHEMES:
            assert row[f"{scheme}_correct"] == 1.0
        assert row["psf_latency_minimal"] == 1.0
        assert row["drp_packets"] == row["psf_packets"]
        assert row["pif_packets"] >= row["psf_packets"]


def test_a_reduced_cell_has_alpha_below_one_and_seeds_hold():
    cell = next(c for c in routing_cells(SMALL, 3) if c["reducer"] == "merge")
    a, b = run_routing_cell(cell), run_routing_cell(cell)
    for row in (a, b):
        assert 0 < row["psf_alpha"] <= 1 and 0 < row["pif_alpha"] <= 1
        assert row["memory_method"].startswith("exact")
    stable = [c for c in a if c not in routing.VOLATILE_COLUMNS]
    assert {c: a[c] for c in stable} == {c: b[c] for c in stable}


def test_roles_are_nested_across_fractions():
    r1, s1 = routing.roles(50, 0.1, 0.5, 9, "tree", 50, 0)
    r2, s2 = routing.roles(50, 0.5, 1.0, 9, "tree", 50, 0)
    assert set(r1) <= set(r2) and set(s1) <= set(s2)
    assert len(r1) == 5 and len(s2) == 50


def test_transit_stub_parameters_come_near_n():
    for n in (20, 38, 74, 141, 271, 521, 1000):
        p = routing.transit_stub_params(n)
        total = p["transit_domains"] * p["transit_nodes"] * (1 + p["stubs_per_transit"] * p["stub_nodes"])
        assert abs(total - n) <= max(6, 0.2 * n)


# ---------------------------------------------------------------- PIF's F* (issue 24 §2)

def test_pif_summed_formula_drops_the_printed_second_factor_n():
    # n(s Δ log n + r M_p α) = 10·(2·3·4 + 5·88·1); the printed total has n·r·M_p·α inside
    assert routing.pif_summed_formula(10, 2, 3, 4, 5, 88.0, 1.0) == 10 * (24 + 440)
    assert pif_formula(10, 2, 3, 4, 5, 88.0, 1.0) - routing.pif_summed_formula(10, 2, 3, 4, 5, 88.0, 1.0) \
        == 10 * (10 - 1) * 5 * 88


@pytest.mark.parametrize("union", ["processors", "senders"])
def test_a_cell_counts_pif_over_the_union_its_design_names(union):
    grid = Grid(**{**SMALL.__dict__, "pif_union": union})
    cell = next(c for c in routing_cells(grid, 3) if c["reducer"] == "none" and c["s_frac"] == 0.5)
    assert cell["pif_union"] == union
    row = run_routing_cell(cell)
    # at α = 1 the paper's F* holds every receiver x once at every u ≠ x: (n − 1) Σ size(pred x)
    assert row["pif_processors_constraints"] == (row["n_actual"] - 1) * row["receiver_constraints"]
    assert row["pif_senders_constraints"] < row["pif_processors_constraints"]
    assert row["pif_one_row_share"] == 1.0
    held = row[f"pif_{union}_constraints"]
    assert row["pif_pred_bits"] == held * BITS_PER_CONSTRAINT
    assert row["memory_checked"] and row["pif_correct"] == 1.0
    assert 0.3 < row["pif_total_bits"] / row["pif_summed_formula"] <= 1.0


def test_the_study_design_records_the_pif_union():
    import argparse

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="study_command")
    add_study_command(sub, routing.PLUGIN)
    for argv, want in ((["routing", "--quick"], "processors"),
                       (["routing", "--quick", "--pif-union", "senders"], "senders")):
        study = routing.PLUGIN.study_from_args(parser.parse_args(argv))
        assert study.config["pif_union"] == want
        assert {c["pif_union"] for c in study.cells} == {want}
