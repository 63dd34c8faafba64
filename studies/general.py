"""The general data model of Carzaniga, Rembert & Wolf, "Understanding
Content-Based Routing Schemes" (TR 2006/05), §4.1 (Figure 5): pure functions.

Messages are the integers ``0 .. |M|-1``. A predicate is a set of ``k``
distinct messages, drawn

- ``uniform``: uniformly among all k-subsets;
- ``zipf``: by successive sampling without replacement, message ``i`` (rank
  ``i + 1``) weighing ``1 / (i + 1)`` (Zipf, exponent 1). The set is the first
  ``k`` distinct values of an i.i.d. Zipf sequence, which is the same thing.

For a set of ``n`` predicates, ``alpha = |p_1 ∪ ... ∪ p_n| / (n k)``.

The closed form of the paper, ``E(alpha) = (|M|/(n k)) (1 - (1 - k/|M|)^n)``,
is kept as a sympy expression. Its limit for ``n -> oo`` at fixed
``x = n k / |M|`` is the paper's approximation ``(1 - e^{-x}) / x``.

Nothing here imports Spark: ``run_general_cell`` is the body of one Spark
task, and any Python process can call it.
"""

from __future__ import annotations

import functools
import math
import os
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cbalgebra.studies.seeding import cell_rng, cell_seed

if TYPE_CHECKING:  # sympy loads only for the closed form's series
    import sympy

DISTRIBUTIONS: tuple[str, ...] = ("uniform", "zipf")
DEFAULT_UNIVERSES: tuple[int, ...] = (10_000, 100_000, 1_000_000)
#: The sweep keeps k / |M| fixed at this selectivity and varies n, so that the
#: smallest ratio of the grid, 0.001, is one predicate.
DEFAULT_SELECTIVITY = 0.001
#: The zoomed Zipf panel adds a series of predicates that each select one
#: message in a hundred, n = 1 .. 10 (ratio 0.01 .. 0.1): the paper's remark.
ZOOM_SELECTIVITY = 0.01
ZOOM_MAX_RATIO = 0.1
MIN_RATIO, MAX_RATIO = 0.001, 10.0

#: Bump when a change alters the numbers a cell produces.
MODEL_VERSION = 2

KEY_COLUMNS: tuple[str, ...] = ("distribution", "universe", "k", "n", "replicate")


# --------------------------------------------------------------------------
# The closed form, symbolically


@functools.cache
def symbols():
    """The sympy symbols ``n, k, M, x, s`` (x = nk/|M|, s = k/|M|)."""
    import sympy as sp  # about a second to import: only for the closed form

    n, k, M, x, s = sp.symbols("n k M x s", positive=True)
    return n, k, M, x, s


@functools.cache
def closed_form():
    """``E(alpha) = (M/(n k)) (1 - (1 - k/M)^n)`` as a sympy expression in n, k, M."""
    n, k, M, _, _ = symbols()
    return M / (n * k) * (1 - (1 - k / M) ** n)


@functools.cache
def closed_form_in_ratio():
    """The closed form in x = nk/|M| and s = k/|M| (n = x/s)."""
    import sympy as sp  # about a second to import: only for the closed form

    n, k, M, x, s = symbols()
    return sp.simplify(closed_form().subs(k, s * M).subs(n, x / s))


@functools.cache
def paper_approximation():
    """The paper's approximation ``(1 - e^{-x}) / x``, x = nk/|M|."""
    import sympy as sp  # about a second to import: only for the closed form

    x = symbols()[3]
    return (1 - sp.exp(-x)) / x


@functools.cache
def limit_many_small_predicates():
    """Limit of the closed form when ``n -> oo`` at fixed ratio x = nk/|M|.

    Derived by sympy from ``(M/(nk))(1 - (1 - x/n)^n)``; it is the paper's
    approximation.
    """
    import sympy as sp  # about a second to import: only for the closed form

    n, _, _, x, _ = symbols()
    expr = (1 / x) * (1 - (1 - x / n) ** n)
    return sp.simplify(sp.limit(expr, n, sp.oo))


@functools.cache
def first_order_small_ratio():
    """First-order expansion of the limit for small x: ``1 - x/2``."""
    x = symbols()[3]
    return limit_many_small_predicates().series(x, 0, 2).removeO()


@functools.cache
def approximation_error_series(order: int = 3) -> sympy.Expr:
    """``closed form - approximation`` expanded in s = k/|M| at fixed x.

    The leading term, ``s e^{-x} / 2``, is the error the paper's ``e^{-x}``
    approximation makes; the closed form is always the larger of the two.
    """
    import sympy as sp  # about a second to import: only for the closed form

    x, s = symbols()[3], symbols()[4]
    # (1 - s)^(x/s) = exp((x/s) log(1 - s)); expanding the exponent first
    # keeps sympy on a plain power series.
    exponent = sp.series((x / s) * sp.log(1 - s), s, 0, order + 1).removeO()
    exact = (1 - sp.exp(exponent)) / x
    err = sp.series(exact - paper_approximation(), s, 0, order).removeO()
    return sp.simplify(sp.expand(err))


@functools.cache
def approximation_error_leading():
    """The first-order term of ``approximation_error_series``: ``s e^{-x} / 2``."""
    import sympy as sp  # about a second to import: only for the closed form

    s = symbols()[4]
    series = sp.expand(approximation_error_series())
    return sp.simplify(series.coeff(s, 1) * s)


@functools.cache
def _lambdified():
    import sympy as sp  # about a second to import: only for the closed form

    n, k, M, x, s = symbols()
    return {
        "closed_form": sp.lambdify((n, k, M), closed_form(), "numpy"),
        "approximation": sp.lambdify(x, paper_approximation(), "numpy"),
        "first_order": sp.lambdify(x, first_order_small_ratio(), "numpy"),
        "error_leading": sp.lambdify((x, s), approximation_error_leading(), "numpy"),
    }


def expected_alpha(n, k, universe):
    """The closed form evaluated with numpy (scalars or arrays)."""
    n = np.asarray(n, dtype=float)
    k = np.asarray(k, dtype=float)
    universe = np.asarray(universe, dtype=float)
    return _lambdified()["closed_form"](n, k, universe)


def approximate_alpha(ratio):
    """The paper's ``(1 - e^{-x}) / x`` evaluated with numpy."""
    return _lambdified()["approximation"](np.asarray(ratio, dtype=float))


def first_order_alpha(ratio):
    """``1 - x/2`` evaluated with numpy."""
    return _lambdified()["first_order"](np.asarray(ratio, dtype=float))


def approximation_error_bound(ratio, selectivity):
    """The leading error term ``s e^{-x}/2`` evaluated with numpy."""
    return _lambdified()["error_leading"](
        np.asarray(ratio, dtype=float), np.asarray(selectivity, dtype=float)
    )


# --------------------------------------------------------------------------
# Monte Carlo


_EULER_GAMMA = 0.5772156649015329


@functools.lru_cache(maxsize=8)
def _zipf_cumulative(universe: int) -> np.ndarray:
    """``H_1, H_2, ..., H_|M|``: the unnormalised Zipf(1) cumulative weights."""
    return np.cumsum(1.0 / np.arange(1, universe + 1, dtype=float))


def _zipf_draws(rng: np.random.Generator, universe: int, shape: int | tuple[int, ...]) -> np.ndarray:
    """I.i.d. Zipf(1) messages (0 = the most popular), by inverse transform.

    The result is exactly ``searchsorted(H, u H_|M|, side="right")``: an
    estimate from ``H_i ~ ln(i + 1/2) + gamma`` lands within a step or two of
    the answer, and a few vectorised corrections against the exact cumulative
    weights finish the job. This is several times faster than a binary search
    over a million weights.
    """
    cum = _zipf_cumulative(universe)
    target = rng.random(shape) * cum[-1]
    with np.errstate(over="ignore"):
        est = np.ceil(np.exp(target - _EULER_GAMMA) - 1.5)
    j = np.clip(est, 0, universe - 1).astype(np.int64)
    while True:  # too far left: cum[j] <= target
        low = cum[j] <= target
        if not low.any():
            break
        j[low] = np.minimum(j[low] + 1, universe - 1)
        if (j[low] == universe - 1).all():
            break
    while True:  # too far right: cum[j - 1] > target
        high = (j > 0) & (cum[np.maximum(j - 1, 0)] > target)
        if not high.any():
            break
        j[high] -= 1
    return j


def draw_messages(rng: np.random.Generator, universe: int, distribution: str,
                  shape: int | tuple[int, ...]) -> np.ndarray:
    """I.i.d. messages of a universe of ``universe``, ``uniform`` or ``zipf`` (with replacement)."""
    if distribution == "uniform":
        return rng.integers(0, universe, size=shape, dtype=np.int64)
    if distribution == "zipf":
        return _zipf_draws(rng, universe, shape)
    raise ValueError(
        f"unknown distribution {distribution!r} (expected one of {', '.join(DISTRIBUTIONS)})"
    )


@functools.cache
def _kernel():
    """The sampling loop, compiled with numba on first use (cached on disk).

    For each predicate, draw i.i.d. messages (Zipf by inverse transform, as in
    ``_zipf_draws``, or uniform) until ``k`` distinct ones are in; ``stamp``
    remembers which predicate last took each message, so a repeat costs one
    comparison. Every taken message is marked in ``covered`` and, when
    ``out`` has rows, written to ``out[p]``.
    """
    from numba import njit  # slow to import: only when the fast sampler is built

    gamma = _EULER_GAMMA

    @njit(cache=True, nogil=True)
    def mark(rng, cum, universe, k, n, zipf, covered, out):
        stamp = np.full(universe, -1, dtype=np.int64)
        total = cum[universe - 1]
        record = out.shape[0] > 0
        for p in range(n):
            got = 0
            while got < k:
                if zipf:
                    t = rng.random() * total
                    est = math.ceil(math.exp(t - gamma) - 1.5)
                    if est < 0.0:
                        j = 0
                    elif est > universe - 1:
                        j = universe - 1
                    else:
                        j = int(est)
                    while j < universe - 1 and cum[j] <= t:
                        j += 1
                    while j > 0 and cum[j - 1] > t:
                        j -= 1
                else:
                    j = int(rng.random() * universe)
                    if j >= universe:
                        j = universe - 1
                if stamp[j] != p:
                    stamp[j] = p
                    covered[j] = True
                    if record:
                        out[p, got] = j
                    got += 1

    return mark


_NO_OUT = np.empty((0, 0), dtype=np.int64)


def _mark_predicates(
    rng: np.random.Generator,
    universe: int,
    k: int,
    n: int,
    distribution: str,
    covered: np.ndarray,
    out: np.ndarray | None = None,
) -> None:
    """Draw ``n`` predicates of ``k`` distinct messages; mark them in ``covered``.

    Each predicate is the set of the first ``k`` distinct values of its own
    i.i.d. sequence (successive sampling without replacement).
    """
    if distribution not in DISTRIBUTIONS:
        raise ValueError(
            f"unknown distribution {distribution!r} (expected one of {', '.join(DISTRIBUTIONS)})"
        )
    zipf = distribution == "zipf"
    cum = _zipf_cumulative(universe) if zipf else np.zeros(1)
    _kernel()(rng, cum, universe, k, n, zipf, covered, _NO_OUT if out is None else out)


def sample_predicates(
    rng: np.random.Generator, universe: int, k: int, n: int, distribution: str
) -> list[np.ndarray]:
    """``n`` predicates, each an array of ``k`` distinct messages of ``0 .. universe-1``."""
    _check_sizes(universe, k, n)
    out = np.empty((n, k), dtype=np.int64)
    _mark_predicates(rng, universe, k, n, distribution, np.zeros(universe, dtype=bool), out)
    return list(out)


def _check_sizes(universe: int, k: int, n: int) -> None:
    if universe < 1:
        raise ValueError(f"the universe must hold at least one message, not {universe}")
    if not 1 <= k <= universe:
        raise ValueError(f"k must be in 1..{universe}, not {k}")
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")


def union_size(rng: np.random.Generator, universe: int, k: int, n: int, distribution: str) -> int:
    """``|p_1 ∪ ... ∪ p_n|`` for ``n`` random predicates of size ``k``."""
    _check_sizes(universe, k, n)
    covered = np.zeros(universe, dtype=bool)
    _mark_predicates(rng, universe, k, n, distribution, covered)
    return int(np.count_nonzero(covered))


def seed_key(distribution: str, universe: int, k: int, n: int, replicate: int) -> tuple:
    """The part of a cell's key that its random stream depends on."""
    return ("general", MODEL_VERSION, distribution, universe, k, n, replicate)


def estimate_alpha_general(
    universe: int, k: int, n: int, distribution: str, seed: int, replicate: int = 0
) -> float:
    """One Monte Carlo estimate of alpha = |∪ p_i| / (n k).

    The random stream is derived from ``seed`` and the cell key
    ``(distribution, universe, k, n, replicate)`` only.
    """
    rng = cell_rng(seed, seed_key(distribution, universe, k, n, replicate))
    return union_size(rng, universe, k, n, distribution) / (n * k)


# --------------------------------------------------------------------------
# The grid and the cells


@dataclass(frozen=True)
class GeneralPoint:
    distribution: str
    universe: int
    k: int
    n: int
    series: str  # "sweep" or "zoom"

    @property
    def ratio(self) -> float:
        return self.n * self.k / self.universe


def general_grid(
    universes: Sequence[int] = DEFAULT_UNIVERSES,
    points: int = 25,
    distributions: Sequence[str] = DISTRIBUTIONS,
    selectivity: float = DEFAULT_SELECTIVITY,
    min_ratio: float = MIN_RATIO,
    max_ratio: float = MAX_RATIO,
    zoom: bool = True,
    zoom_selectivity: float = ZOOM_SELECTIVITY,
    zoom_max_ratio: float = ZOOM_MAX_RATIO,
) -> list[GeneralPoint]:
    """The grid points of the Figure 5 study.

    The sweep: ``points`` ratios on a log grid over ``[min_ratio, max_ratio]``,
    with ``k = round(selectivity |M|)`` and ``n = round(ratio |M| / k)`` (at
    least 1; duplicates after rounding are dropped, so the actual ratio of a
    point is ``n k / |M|``). The zoom series: ``k = round(zoom_selectivity |M|)``
    and every n up to ``zoom_max_ratio |M| / k``.
    """
    if points < 1:
        raise ValueError("points must be at least 1")
    if not 0 < min_ratio <= max_ratio:
        raise ValueError("need 0 < min ratio <= max ratio")
    grid: dict[tuple, GeneralPoint] = {}
    ratios = np.geomspace(min_ratio, max_ratio, points) if points > 1 else np.array([max_ratio])
    for universe in universes:
        if universe < 1:
            raise ValueError(f"a universe must hold at least one message, not {universe}")
        k = max(1, round(selectivity * universe))
        for distribution in distributions:
            if distribution not in DISTRIBUTIONS:
                raise ValueError(f"unknown distribution {distribution!r}")
            for r in ratios:
                n = max(1, round(r * universe / k))
                key = (distribution, universe, k, n)
                grid.setdefault(key, GeneralPoint(distribution, universe, k, n, "sweep"))
            if zoom:
                kz = max(1, round(zoom_selectivity * universe))
                for n in range(1, math.floor(zoom_max_ratio * universe / kz + 1e-9) + 1):
                    key = (distribution, universe, kz, n)
                    grid.setdefault(key, GeneralPoint(distribution, universe, kz, n, "zoom"))
    return list(grid.values())


def general_cells(grid: Sequence[GeneralPoint], replicates: int, seed: int) -> list[dict]:
    """One cell per (grid point, replicate): plain dicts, cheap to ship to Spark."""
    cells = []
    for p in grid:
        for r in range(replicates):
            cells.append(
                {
                    "distribution": p.distribution,
                    "universe": p.universe,
                    "k": p.k,
                    "n": p.n,
                    "replicate": r,
                    "series": p.series,
                    "seed": seed,
                }
            )
    return cells


def general_cell_cost(cell: dict) -> float:
    """Relative cost, for longest-first scheduling and the ETA."""
    per_draw = 3.0 if cell["distribution"] == "zipf" else 1.0
    return cell["n"] * (20.0 + per_draw * cell["k"]) + 2e-3 * cell["universe"]


def run_general_cell(cell: dict) -> dict:
    """The body of one Spark task: one general-model cell, one result row."""
    start = time.perf_counter()
    universe, k, n = cell["universe"], cell["k"], cell["n"]
    key = seed_key(cell["distribution"], universe, k, n, cell["replicate"])
    rng = cell_rng(cell["seed"], key)
    union = union_size(rng, universe, k, n, cell["distribution"])
    compute = time.perf_counter() - start
    return {
        "distribution": cell["distribution"],
        "universe": int(universe),
        "k": int(k),
        "n": int(n),
        "replicate": int(cell["replicate"]),
        "series": cell["series"],
        "seed": int(cell["seed"]),
        "cell_seed": cell_seed(cell["seed"], key),
        "ratio": n * k / universe,
        "union": union,
        "alpha": union / (n * k),
        "gen_seconds": compute,
        "reduce_seconds": 0.0,
        "task_seconds": time.perf_counter() - start,
        "host": socket.gethostname(),
        "pid": os.getpid(),
    }
