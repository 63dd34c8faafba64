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
    UnitValues,
    class_priorities,
    class_salt,
    class_sample_estimate,
    combine_units,
    ips_branch_sizes,
    ips_classes,
    ips_unit_values,
    memory_problem,
    merge_ips_classes,
    sample_units,
    select_class_sample,
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
    """1,000 seeded samples of PSF's senders on a small network: the estimate
    lies within 3 standard errors of the exact total in at least 99 % of
    them, and the estimates average to the exact total (unbiased). (iPS:
    the test below.)"""
    g, predicates, _ = _problem("power_law", 200, {"model": "chung_lu"}, 5)
    problem = memory_problem(g, predicates, senders=range(0, 200, 2))
    assert table_memory("pif", problem, sample=40).exact   # α = 1: Σ_{x≠u} size(x), no tree to sample
    for scheme in ("psf",):
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


def _subset(values: UnitValues, units: np.ndarray) -> UnitValues:
    at = np.searchsorted(values.units, units)
    return UnitValues(values.units[at], values.constraints[at], values.id_bits[at])


def test_ips_priority_samples_fall_within_three_standard_errors():
    """iPS's constraints from a priority sample of its classes (Duffield,
    Lund & Thorup 2007), 1,000 seeds on a small network, the sample drawn
    from every class at once: the estimate lies within 3 standard errors of
    the exact total in at least 99 % of them and averages to it
    (unbiased); the total bits, with the id bits from the sampled
    processors, average to the exact total bits."""
    g, predicates, _ = _problem("power_law", 200, {"model": "chung_lu"}, 5)
    problem = memory_problem(g, predicates, senders=range(0, 200, 2))
    branch = ips_branch_sizes(problem)
    every = ips_classes(problem, np.arange(problem.n), branch)
    exact = table_memory("ips", problem)
    everything = ips_unit_values(problem, np.arange(problem.n), every)
    assert combine_units(problem, "ips", everything) == exact
    weight = every.size - problem.sizes[every.units]
    stored = weight > 0
    k = int(stored.sum()) // 8
    assert k >= 20
    inside, constraints, bits = 0, [], []
    for trial in range(1000):
        priority = class_priorities(every.units[stored], every.key0[stored], weight[stored],
                                    class_salt(problem.n, trial))
        sample = select_class_sample(k, every.units[stored], every.key0[stored], every.key1[stored],
                                     every.first[stored], weight[stored], priority)
        estimate, se = class_sample_estimate(problem, sample)
        assert se > 0
        inside += abs(estimate - exact.predicate_constraints) <= 3 * se
        constraints.append(estimate)
        chosen = sample_units(problem, "ips", 40, seed=trial)
        combined = combine_units(problem, "ips", _subset(everything, chosen), sample)
        assert combined.predicate_constraints == estimate and combined.sampled_classes == k and not combined.exact
        bits.append(combined.total_bits)
    assert inside >= 990, inside
    for values, target in ((constraints, exact.predicate_constraints), (bits, exact.total_bits)):
        assert abs(np.mean(values) - target) <= 4 * np.std(values) / math.sqrt(len(values)) + 1e-9


@pytest.mark.parametrize("reducer", [None, "siena"])
def test_ips_class_sample_of_the_pass_is_the_sample_of_every_class(reducer):
    """The priority sample the pass over senders keeps (threshold rising as
    trees come, senders split in chunks and merged, as on Spark) is the one
    selected from every class at once; with room for every class it is
    exact."""
    g, predicates, _ = _problem("power_law", 60, {"model": "chung_lu", "sampler": "skip"}, 3)
    problem = memory_problem(g, predicates, senders=range(0, 60, 2), reducer=reducer)
    branch = ips_branch_sizes(problem)
    units = sample_units(problem, "ips", 10, seed=4)
    every = ips_classes(problem, np.arange(problem.n), branch)
    weight = every.size - problem.sizes[every.units]
    stored = weight > 0
    salt = class_salt(problem.n, 4)
    for k in (5, 40, int(stored.sum()), int(stored.sum()) + 10):
        whole = select_class_sample(k, every.units[stored], every.key0[stored], every.key1[stored],
                                    every.first[stored], weight[stored],
                                    class_priorities(every.units[stored], every.key0[stored], weight[stored], salt))
        one = ips_classes(problem, units, branch, class_sample=k, seed=4)
        chunks = np.array_split(problem.senders, 4)
        merged = merge_ips_classes(ips_classes(problem, units, branch, c, class_sample=k, seed=4) for c in chunks)
        for sample in (one.sample, merged.sample):
            assert sample is not None
            for field in ("units", "key0", "key1", "first", "weight", "priority"):
                assert np.array_equal(getattr(sample, field), getattr(whole, field)), (k, field)
        if k >= stored.sum():
            exact = table_memory("ips", problem)
            assert class_sample_estimate(problem, whole) == (exact.predicate_constraints, 0.0)
            assert table_memory("ips", problem, sample=10, seed=4, class_sample=k).predicate_constraints == \
                exact.predicate_constraints


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
            classes = ips_classes(problem, some, ips_branch_sizes(problem), class_sample=500, seed=9).sample \
                if scheme == "ips" and len(some) < len(units) else None
            assert estimate == combine_units(problem, scheme, part, classes)
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


