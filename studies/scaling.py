"""Scaling laws fitted to measurements: y ≈ c·n^e by least squares on log y
against log n, with a t-based confidence interval, and where two fitted laws
cross.

The interval is the classical one for a regression slope (normal errors on
the log scale, unknown variance): e ± t_{1−(1−level)/2, k−2}·SE(e) with
SE(e) = sqrt(RSS/(k−2)/Σ(x−x̄)²) over the k points. With k = 2 points it has
no width to estimate (NaN). Pure numpy and scipy, no pandas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PowerLaw:
    """y ≈ exp(intercept)·n^exponent on the points fitted, with the exponent's
    confidence interval at ``level`` (t-based, see the module docstring)."""
    exponent: float
    intercept: float
    exponent_se: float
    ci_low: float
    ci_high: float
    level: float
    points: int
    r_squared: float
    n_low: float
    n_high: float
    #: the points' log n: their mean and Σ(x − x̄)², for the interval of a prediction
    x_mean: float
    x_spread: float
    residual_sd: float

    def at(self, n: float) -> float:
        """The fitted y at n."""
        return math.exp(self.intercept + self.exponent * math.log(n))

    def interval_at(self, n: float) -> tuple[float, float]:
        """The confidence interval (same level) of the fitted mean of log y at n, back on y's scale."""
        if self.points < 3 or not math.isfinite(self.residual_sd):
            return math.nan, math.nan
        x = math.log(n)
        half = _t(self.level, self.points - 2) * self.residual_sd * math.sqrt(
            1 / self.points + (x - self.x_mean) ** 2 / self.x_spread)
        centre = self.intercept + self.exponent * x
        return math.exp(centre - half), math.exp(centre + half)


def _t(level: float, dof: int) -> float:
    # deferred: scipy.stats takes a second to import
    from scipy.stats import t

    return float(t.ppf(1 - (1 - level) / 2, dof))


def fit_power_law(n: Sequence[float], y: Sequence[float], level: float = 0.95) -> PowerLaw | None:
    """The least-squares fit of log y on log n over the points where both are finite and positive;
    None with fewer than two distinct n."""
    xs, ys = np.asarray(n, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(xs) & np.isfinite(ys) & (xs > 0) & (ys > 0)
    x, z = np.log(xs[ok]), np.log(ys[ok])
    if len(np.unique(x)) < 2:
        return None
    k = len(x)
    x_mean = float(x.mean())
    spread = float(((x - x_mean) ** 2).sum())
    slope = float(((x - x_mean) * (z - z.mean())).sum() / spread)
    intercept = float(z.mean() - slope * x_mean)
    residual = z - (intercept + slope * x)
    rss = float(residual @ residual)
    total = float(((z - z.mean()) ** 2).sum())
    r2 = 1 - rss / total if total > 0 else 1.0
    if k > 2:
        sd = math.sqrt(rss / (k - 2))
        se = sd / math.sqrt(spread)
        half = _t(level, k - 2) * se
    else:
        sd = se = half = math.nan
    return PowerLaw(slope, intercept, se, slope - half, slope + half, level, k, r2, float(np.exp(x.min())),
                    float(np.exp(x.max())), x_mean, spread, sd)


def crossover(a: PowerLaw, b: PowerLaw) -> float | None:
    """The n where the fitted laws are equal, c_a·n^e_a = c_b·n^e_b; beyond it the one with the larger
    exponent is the larger. None when the exponents are equal (parallel lines never cross)."""
    if a.exponent == b.exponent:
        return None
    log_n = (b.intercept - a.intercept) / (a.exponent - b.exponent)
    if log_n > 700:  # beyond any float: no crossing within reach
        return None
    return math.exp(log_n)


def interpolate_loglog(n: Sequence[float], y: Sequence[float], at: float) -> float:
    """y at ``at`` by linear interpolation of log y in log n between the measured points (NaN outside them)."""
    xs, ys = np.asarray(n, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(xs) & np.isfinite(ys) & (xs > 0) & (ys > 0)
    xs, ys = xs[ok], ys[ok]
    order = np.argsort(xs)
    xs, ys = xs[order], ys[order]
    if len(xs) == 0 or not xs[0] <= at <= xs[-1]:
        return math.nan
    return float(np.exp(np.interp(math.log(at), np.log(xs), np.log(ys))))
