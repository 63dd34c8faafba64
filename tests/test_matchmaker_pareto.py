"""The bounded Pareto CD counts of Matchmaker §4.4.1, sampled by inverse CDF."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from cbalgebra.matchmaker.pareto import bounded_pareto, cd_count, cdf, density, quantile


def test_literal_quantiles():
    # F^-1(u) = 1 / (1 - 0.99 u) for k = 1, p = 100, alpha = 1
    assert quantile(0.0) == 1.0
    assert quantile(1.0) == pytest.approx(100.0)
    assert quantile(0.5) == pytest.approx(1 / (1 - 0.495))  # median 1.9802
    assert quantile(0.9) == pytest.approx(1 / (1 - 0.891))  # 9.1743
    assert quantile(0.99) == pytest.approx(1 / (1 - 0.9801))  # 50.251


def test_density_integrates_to_the_cdf():
    total, _ = integrate.quad(density, 1, 100, points=[2, 10])
    assert total == pytest.approx(1.0, rel=1e-7)
    for n in (1.5, 2, 7.3, 40, 99):
        part, _ = integrate.quad(density, 1, n)
        assert part == pytest.approx(cdf(n), rel=1e-7)
    assert density(0.5) == density(101) == 0.0


@given(st.floats(0, 1), st.floats(0.2, 3), st.floats(1.01, 1000))
def test_quantile_inverts_cdf(u, alpha, p):
    x = quantile(u, 1.0, p, alpha)
    assert 1.0 <= x <= p
    assert cdf(x, 1.0, p, alpha) == pytest.approx(u, abs=1e-9)


def test_samples_follow_the_density():
    """A Kolmogorov-Smirnov test of 20,000 draws (fixed seed) against the CDF:
    with a true sampler the p-value is uniform, so 1e-3 is a generous bar; the
    statistic itself is also bounded (D < 0.015, ~1.5x the 1% critical value)."""
    draws = bounded_pareto(random.Random(2003), 20_000)
    result = stats.kstest(draws, np.vectorize(cdf))
    assert result.pvalue > 1e-3 and result.statistic < 0.015
    assert min(draws) >= 1.0 and max(draws) <= 100.0
    mean = sum(draws) / len(draws)
    assert mean == pytest.approx(math.log(100) / 0.99, rel=0.05)  # E[X] = ln(p/k) k/(1 - k/p) for alpha = 1


def test_integer_counts_are_truncated():
    counts = cd_count(bounded_pareto(random.Random(1), 5_000))
    assert all(isinstance(c, int) and 1 <= c <= 100 for c in counts)
    share_of_ones = counts.count(1) / len(counts)
    assert share_of_ones == pytest.approx(cdf(2.0), abs=0.02)  # P(1 <= X < 2) = 0.505


@pytest.mark.parametrize(("k", "p", "alpha"), [(0, 10, 1), (5, 5, 1), (1, 10, 0), (1, math.inf, 1)])
def test_bad_parameters(k, p, alpha):
    with pytest.raises(ValueError):
        quantile(0.5, k, p, alpha)
