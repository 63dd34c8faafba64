"""table_memory (cbalgebra.network.sizing): M(S) without tables or all-pairs
distances, exact and sampled, against the built tables' Routing.memory()."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbalgebra.network import RoutingError, build, table_memory, topology
from cbalgebra.network.paths import ShortestPaths, SourceTrees
from cbalgebra.network.sizing import (
    MEMORY_SCHEMES,
    combine_units,
    memory_problem,
    sample_units,
    unit_values,
)
from cbalgebra.network.workload import processor_predicates

NETWORKS = [
    ("tree", 18, {}), ("ring", 12, {}), ("grid", 16, {}), ("gnp", 20, {}),
    ("power_law", 22, {}), ("power_law", 22, {"model": "chung_lu", "sampler": "skip"}),
    ("waxman", 16, {}), ("gnp", 14, {"weight_range": (1, 3)}),
    ("transit_stub", None, {"transit_domains": 1, "transit_nodes": 3, "stubs_per_transit": 2, "stub_nodes": 2}),
    ("topohub:sndlib/polska", None, {}),
]


def _problem(name, n, params, seed):
    g = topology(name, n, seed=seed, **params) if not name.startswith("topohub:") else topology(name)
    nodes = g.number_of_nodes()
    rng = random.Random(seed)
    receivers = rng.sample(range(nodes), max(1, nodes // 2))
    senders = rng.sample(range(nodes), max(1, nodes // 3))
    return g, processor_predicates(receivers, 3, seed=seed), senders


@pytest.mark.parametrize("reducer", [None, "siena"])
@pytest.mark.parametrize("name,n,params", NETWORKS, ids=lambda x: str(x))
def test_exact_equals_the_built_tables(name, n, params, reducer):
    """Every generator (and a real network in km), with and without a
    reducer, every sender and a subset: the same constraints and id bits as
    build(...).memory(), scheme by scheme."""
    for seed in (0, 1):
        g, predicates, subset = _problem(name, n, params, seed)
        for senders in (None, subset):
            for scheme in MEMORY_SCHEMES:
                built = build(scheme, g, predicates, reducer=reducer, senders=senders).memory()
                counted = table_memory(scheme, g, predicates, senders=senders, reducer=reducer)
                assert counted.exact and counted.standard_error == 0 and counted.sampled == counted.population
                assert (counted.predicate_constraints, counted.id_bits, counted.total_bits) == \
                    (built["predicate_constraints"], built["id_bits"], built["total_bits"]), (scheme, seed, senders)


def test_no_all_pairs_object_is_built(monkeypatch):
    """The scalable path never constructs ShortestPaths (n x n distances)."""
    g, predicates, senders = _problem("gnp", 30, {}, 3)
    expected = {s: table_memory(s, g, predicates, senders=senders) for s in MEMORY_SCHEMES}

    def refuse(*args, **kwargs):
        raise AssertionError("ShortestPaths built")

    monkeypatch.setattr(ShortestPaths, "__init__", refuse)
    for scheme in MEMORY_SCHEMES:
        assert table_memory(scheme, g, predicates, senders=senders) == expected[scheme]
        assert table_memory(scheme, g, predicates, senders=senders, reducer="merge").exact


def test_estimates_fall_within_three_standard_errors():
    """1,000 seeded samples per scheme on a small network: the estimate lies
    within 3 standard errors of the exact total in at least 99 % of them,
    and the estimates average to the exact total (unbiased)."""
    g, predicates, _ = _problem("power_law", 200, {"model": "chung_lu"}, 5)
    problem = memory_problem(g, predicates, senders=range(0, 200, 2))
    assert table_memory("pif", problem, sample=40).exact   # α = 1: Σ_{x≠u} size(x), no tree to sample
    for scheme in ("psf", "ips"):
        units = problem.units(scheme)
        everything = unit_values(problem, scheme, units)
        exact = combine_units(problem, scheme, everything)
        assert exact == table_memory(scheme, problem)
        index = {int(u): i for i, u in enumerate(units.tolist())}
        inside, estimates = 0, []
        for trial in range(1000):
            chosen = sample_units(problem, scheme, 40, seed=trial)
            picked = [index[int(u)] for u in chosen]
            values = type(everything)(everything.units[picked], everything.constraints[picked],
                                      everything.id_bits[picked])
            estimate = combine_units(problem, scheme, values)
            assert not estimate.exact and estimate.sampled == 40 and estimate.population == len(units)
            inside += abs(estimate.predicate_constraints - exact.predicate_constraints) <= 3 * estimate.standard_error
            estimates.append(estimate.total_bits)
        assert inside >= 990, (scheme, inside)
        spread = np.std(estimates) / math.sqrt(len(estimates))
        assert abs(np.mean(estimates) - exact.total_bits) <= 4 * spread + 1e-9, scheme


def test_sampled_units_agree_with_the_whole_computation():
    """unit_values of a subset equals the full computation restricted to it,
    so tasks that each count some units (Spark) add up to the local answer."""
    g, predicates, senders = _problem("waxman", 25, {}, 2)
    for reducer in (None, "cover"):
        problem = memory_problem(g, predicates, senders=senders, reducer=reducer)
        for scheme in MEMORY_SCHEMES:
            units = problem.units(scheme)
            whole = unit_values(problem, scheme, units)
            some = sample_units(problem, scheme, 5, seed=9)
            part = unit_values(problem, scheme, some)
            at = np.searchsorted(units, some)
            assert (part.constraints == whole.constraints[at]).all() and (part.id_bits == whole.id_bits[at]).all()
            estimate = table_memory(scheme, problem, sample=5, seed=9)
            assert estimate == combine_units(problem, scheme, part)
            cheap = scheme == "drp" or (scheme == "pif" and reducer is None)   # no tree: always exact
            assert estimate.sampled == (len(units) if cheap else min(5, len(units))) and estimate.standard_error >= 0
            assert estimate.exact == cheap


def test_bad_input_is_one_line():
    g, predicates, _ = _problem("ring", 8, {}, 0)
    with pytest.raises(RoutingError, match="table_memory counts"):
        table_memory("siena", g, predicates)
    with pytest.raises(RoutingError, match="sample must be"):
        table_memory("psf", g, predicates, sample=1)
    with pytest.raises(RoutingError, match="sample must be"):
        table_memory("psf", g, predicates, sample="3")
    with pytest.raises(RoutingError, match="unknown reducer"):
        table_memory("psf", g, predicates, reducer="nope")
    with pytest.raises(RoutingError, match="sender"):
        table_memory("psf", g, predicates, senders=[99])
    assert table_memory("pif", g, predicates, sample=100).exact   # a sample of everyone is the census


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 25), seed=st.integers(0, 10**6), float_weights=st.booleans())
def test_source_trees_are_the_shortest_path_trees(n, seed, float_weights):
    params = {} if float_weights else {"weight_range": (1, 4)}
    g = topology("waxman" if float_weights else "gnp", n, seed=seed, **params)
    expected = ShortestPaths(g).parent
    trees = SourceTrees.from_graph(g)
    assert (trees.parents(range(n)) == expected).all()
    assert (trees.parents([n - 1]) == expected[[n - 1]]).all()


