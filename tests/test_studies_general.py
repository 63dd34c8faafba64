"""The general data model of Carzaniga, Rembert & Wolf, "Understanding Content-Based
Routing Schemes" (TR 2006/05), §4.1: closed form, sampling, grid (no Spark)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from cbalgebra.studies import general as g
from cbalgebra.studies.seeding import cell_rng, cell_seed


# ---------------------------------------------------------------- closed form


def test_closed_form_is_the_papers_expression():
    n, k, M, _, _ = g.symbols()
    expected = (M / (n * k)) * (1 - (1 - k / M) ** n)
    assert sp.simplify(g.closed_form() - expected) == 0


def test_limit_is_the_papers_approximation():
    x = g.symbols()[3]
    assert sp.simplify(g.limit_many_small_predicates() - (1 - sp.exp(-x)) / x) == 0
    assert sp.simplify(g.paper_approximation() - g.limit_many_small_predicates()) == 0
    # And the approximation tends to 1 for few, small predicates.
    assert sp.limit(g.limit_many_small_predicates(), x, 0) == 1


def test_first_order_expansion():
    x = g.symbols()[3]
    assert sp.simplify(g.first_order_small_ratio() - (1 - x / 2)) == 0


def test_error_series_leading_term():
    x, s = g.symbols()[3], g.symbols()[4]
    assert sp.simplify(g.approximation_error_leading() - s * sp.exp(-x) / 2) == 0


@pytest.mark.parametrize("universe", [10_000, 100_000, 1_000_000])
@pytest.mark.parametrize("fraction", [0.001, 0.01])
def test_approximation_error_within_the_predicted_error(universe, fraction):
    """Closed form − e^{-x} approximation is the leading term s e^{-x}/2, up to O(s²)."""
    k = int(round(fraction * universe))
    s = k / universe
    ns = np.unique(np.rint(np.geomspace(1, 10 * universe / k, 40)).astype(int))
    x = ns * k / universe
    exact = g.expected_alpha(ns, k, universe)
    approx = g.approximate_alpha(x)
    err = exact - approx
    predicted = g.approximation_error_bound(x, s)
    # The approximation is low, never high (since (1 - s)^n <= e^{-ns}).
    assert np.all(err >= -1e-12)
    # Within the predicted first-order error, up to the second-order term
    # of sympy's series (bounded here by 2 s² e^{-x} / 3 + s² e^{-x} x / 8, rounded up).
    second = s * s * np.exp(-x) * (1.0 + x / 4)
    assert np.all(np.abs(err - predicted) <= second + 1e-12)
    assert np.all(err <= predicted + second + 1e-12)


def test_second_order_term_matches_sympy_series():
    x, s = g.symbols()[3], g.symbols()[4]
    series = sp.expand(g.approximation_error_series())
    second = sp.simplify(series.coeff(s, 2))
    assert sp.simplify(second - sp.exp(-x) * (8 - 3 * x) / 24) == 0


def test_lambdified_closed_form_matches_direct_numpy():
    n = np.array([1, 5, 100, 10_000])
    assert np.allclose(g.expected_alpha(n, 10, 10_000), (10_000 / (n * 10)) * (1 - (1 - 10 / 10_000) ** n))
    assert g.expected_alpha(1, 7, 100) == pytest.approx(1.0)
    assert np.allclose(g.first_order_alpha([0.0, 0.1]), [1.0, 0.95])


# ---------------------------------------------------------------- sampling


@pytest.mark.parametrize("distribution", ["uniform", "zipf"])
@pytest.mark.parametrize("universe,k", [(10, 10), (50, 7), (10_000, 100), (100_000, 100)])
def test_predicates_have_k_distinct_messages(distribution, universe, k):
    rng = np.random.default_rng(3)
    sets = g.sample_predicates(rng, universe, k, 25, distribution)
    assert len(sets) == 25
    for p in sets:
        assert len(p) == k
        assert len(np.unique(p)) == k
        assert p.min() >= 0 and p.max() < universe


def test_zipf_draws_equal_a_binary_search_of_the_cumulative_weights():
    for universe in (1, 2, 7, 1000, 100_000):
        cum = g._zipf_cumulative(universe)
        a = g._zipf_draws(np.random.default_rng(11), universe, 50_000)
        u = np.random.default_rng(11).random(50_000) * cum[-1]
        b = np.minimum(np.searchsorted(cum, u, side="right"), universe - 1)
        assert np.array_equal(a, b)


def test_zipf_frequencies_follow_one_over_rank():
    universe = 1000
    draws = g._zipf_draws(np.random.default_rng(5), universe, 400_000)
    counts = np.bincount(draws, minlength=universe)
    p = (1 / np.arange(1, universe + 1)) / g._zipf_cumulative(universe)[-1]
    for rank in (0, 1, 9, 99):
        expected = p[rank] * draws.size
        assert abs(counts[rank] - expected) < 5 * math.sqrt(expected)


def test_zipf_without_replacement_prefers_popular_messages():
    rng = np.random.default_rng(2)
    sets = g.sample_predicates(rng, 10_000, 10, 2000, "zipf")
    hits = np.bincount(np.concatenate(sets), minlength=10_000)
    assert hits[0] > 0.5 * 2000  # rank 1 is in most predicates
    assert hits[0] > hits[10] > hits[1000]


def test_uniform_subsets_are_uniform():
    rng = np.random.default_rng(4)
    sets = g.sample_predicates(rng, 20, 5, 8000, "uniform")
    hits = np.bincount(np.concatenate(sets), minlength=20)
    expected = 8000 * 5 / 20
    assert np.all(np.abs(hits - expected) < 5 * math.sqrt(expected))


def test_bad_sizes_are_rejected():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        g.union_size(rng, 10, 11, 1, "uniform")
    with pytest.raises(ValueError):
        g.union_size(rng, 10, 1, 0, "uniform")
    with pytest.raises(ValueError):
        g.union_size(rng, 10, 1, 1, "pareto")


# ---------------------------------------------------------------- estimates


def test_estimate_is_deterministic_and_depends_on_the_key():
    a = g.estimate_alpha_general(10_000, 10, 300, "zipf", seed=7, replicate=0)
    assert a == g.estimate_alpha_general(10_000, 10, 300, "zipf", seed=7, replicate=0)
    others = {g.estimate_alpha_general(10_000, 10, 300, "zipf", seed=7, replicate=r) for r in range(1, 6)}
    assert len(others | {a}) > 1
    assert g.estimate_alpha_general(10_000, 10, 300, "zipf", seed=8, replicate=0) != a


def test_single_predicate_has_alpha_one():
    for dist in ("uniform", "zipf"):
        assert g.estimate_alpha_general(1000, 37, 1, dist, seed=1) == 1.0


def test_uniform_estimates_match_the_closed_form_within_001():
    for universe in (10_000, 100_000):
        for p in g.general_grid([universe], points=9, distributions=["uniform"]):
            values = [g.estimate_alpha_general(universe, p.k, p.n, "uniform", 3, r) for r in range(10)]
            assert abs(np.mean(values) - g.expected_alpha(p.n, p.k, universe)) <= 0.01, p


def test_zipf_reduces_better_than_uniform():
    for n in (5, 50, 500):
        z = np.mean([g.estimate_alpha_general(10_000, 10, n, "zipf", 1, r) for r in range(4)])
        u = np.mean([g.estimate_alpha_general(10_000, 10, n, "uniform", 1, r) for r in range(4)])
        assert z < u


def test_run_general_cell_row():
    cell = {"distribution": "zipf", "universe": 10_000, "k": 100, "n": 5, "replicate": 2,
            "series": "zoom", "seed": 9}
    row = g.run_general_cell(cell)
    assert row["alpha"] == g.estimate_alpha_general(10_000, 100, 5, "zipf", 9, 2)
    assert row["union"] == round(row["alpha"] * 500)
    assert row["ratio"] == pytest.approx(0.05)
    assert row["task_seconds"] >= row["gen_seconds"] >= 0


# ---------------------------------------------------------------- grid and seeds


def test_grid_covers_the_ratio_range_with_one_predicate_at_the_bottom():
    grid = g.general_grid([10_000, 1_000_000], points=25)
    sweep = [p for p in grid if p.series == "sweep"]
    for universe in (10_000, 1_000_000):
        ratios = sorted(p.ratio for p in sweep if p.universe == universe and p.distribution == "uniform")
        assert ratios[0] == pytest.approx(0.001)
        assert ratios[-1] == pytest.approx(10.0)
        assert 20 <= len(ratios) <= 25  # rounding n merges a few points at the bottom
        assert len(set(ratios)) == len(ratios)
    zoom = [p for p in grid if p.series == "zoom" and p.universe == 10_000 and p.distribution == "zipf"]
    assert sorted(p.n for p in zoom) == list(range(1, 11))
    assert all(p.k == 100 for p in zoom)


def test_cell_seeds_are_stable_and_distinct():
    assert cell_seed(1, ("a", 2, 3)) == cell_seed(1, ("a", 2, 3))
    assert cell_seed(1, ("a", 2, 3)) != cell_seed(1, ("a", 2, 4))
    assert cell_seed(1, ("a", 2, 3)) != cell_seed(2, ("a", 2, 3))
    assert 0 <= cell_seed(123, ("zipf-500", 10_000, 29)) < 2**63
    # Known value: the derivation must not change silently between versions,
    # or finished results would no longer match a rerun.
    assert cell_seed(2003, ("dnf", 1, "zipf-500", 10, 0)) == cell_seed(2003, ["dnf", 1, "zipf-500", 10, 0])
    a = cell_rng(5, ("x",)).random(3)
    assert np.array_equal(a, cell_rng(5, ("x",)).random(3))
    with pytest.raises(ValueError):
        cell_seed(1, (-1,))
