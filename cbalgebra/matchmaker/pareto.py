"""The bounded Pareto distribution of CD counts (Ge, Ji, Kurose & Towsley,
"Matchmaker: Signaling for Dynamic Publish/Subscribe Applications", §4.4.1).

The density on k <= n <= p is

    f(n) = α k^α n^(-α-1) / (1 - (k/p)^α)

so the CDF is F(n) = (1 - (k/n)^α) / (1 - (k/p)^α) and its inverse

    F⁻¹(u) = k / (1 - u (1 - (k/p)^α))^(1/α),   0 <= u < 1.

The paper uses k = 1, p = 100, α = 1.0. Samples are drawn by inverse-CDF
sampling of uniform variates. The paper counts CDs, so an instance needs an
integer; it does not say how the continuous draw becomes one. We truncate
(``floor``, what a C or Java cast does), which gives counts 1..99 and, with
probability zero, 100 (:func:`cd_count`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

__all__ = ["ALPHA", "K", "P", "bounded_pareto", "cd_count", "cdf", "density", "quantile"]

#: The paper's parameters (§4.4.1).
K, P, ALPHA = 1.0, 100.0, 1.0


def _check(k: float, p: float, alpha: float) -> None:
    if not (math.isfinite(k) and math.isfinite(p) and math.isfinite(alpha)):
        raise ValueError("bounded Pareto: k, p and alpha must be finite")
    if not 0 < k < p:
        raise ValueError(f"bounded Pareto: need 0 < k < p, not k={k}, p={p}")
    if alpha <= 0:
        raise ValueError(f"bounded Pareto: alpha must be > 0, not {alpha}")


def density(n: float, k: float = K, p: float = P, alpha: float = ALPHA) -> float:
    """The density f(n) of §4.4.1 (0 outside [k, p])."""
    _check(k, p, alpha)
    if not k <= n <= p:
        return 0.0
    return alpha * k**alpha * n ** (-alpha - 1) / (1 - (k / p) ** alpha)


def cdf(n: float, k: float = K, p: float = P, alpha: float = ALPHA) -> float:
    """P(X <= n), the integral of :func:`density`."""
    _check(k, p, alpha)
    if n <= k:
        return 0.0
    if n >= p:
        return 1.0
    return (1 - (k / n) ** alpha) / (1 - (k / p) ** alpha)


def quantile(u: float, k: float = K, p: float = P, alpha: float = ALPHA) -> float:
    """F⁻¹(u) for 0 <= u <= 1: the inverse of :func:`cdf`."""
    _check(k, p, alpha)
    if not 0 <= u <= 1:
        raise ValueError(f"bounded Pareto: a quantile level is in [0, 1], not {u}")
    value = k / (1 - u * (1 - (k / p) ** alpha)) ** (1 / alpha)
    return min(max(value, k), p)  # rounding must not leave the support


def bounded_pareto(rng: random.Random, size: int, k: float = K, p: float = P,
                   alpha: float = ALPHA) -> list[float]:
    """``size`` independent draws by inverse-CDF sampling of ``rng.random()``."""
    _check(k, p, alpha)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ValueError(f"bounded Pareto: size must be an integer >= 0, not {size!r}")
    return [quantile(rng.random(), k, p, alpha) for _ in range(size)]


def cd_count(draws: Sequence[float]) -> list[int]:
    """CD counts from continuous draws: truncated (see the module docstring)."""
    return [math.floor(x) for x in draws]
