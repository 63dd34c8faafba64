"""Beyond the paper: how far the paper's simple reducer is from the optimum α (pure functions).

Carzaniga, Rembert & Wolf (TR 2006/05, §4.2) measure α with their "simple
reduction algorithm" (our ``siena``), so Figures 6 and 7 bound from above what
any reducer saves. ``minimal`` (``cbalgebra.reducers.minimize``) returns a
cover with a proven lower bound on the optimum size, and says when the two
meet. On the same predicate set, the optimum α of a set lies in
[α_lower, α_min], so the true ratio α_siena / α_opt lies in
[α_siena / α_min, α_siena / α_lower]: one number where ``proven``, an interval
otherwise. The report's finding and its table are computed here from the
result rows, never typed.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from cbalgebra.studies.tables import Finding, markdown_table

#: The paper's reducer and the certifying one the finding sets side by side.
SIMPLE, OPTIMAL = "siena", "minimal"

GAP_COLUMNS = ("scenario", "n", "sets", "proven", "simple_median", "optimal_median", "ratio_median",
               "ratio_bound_median", "ratio_max", "simple_optimal")


def ratio(a: float, b: float) -> float:
    """a / b for sizes (or α of one set): 1 when both are 0, infinite when only b is."""
    if b == 0:
        return 1.0 if a == 0 else math.inf
    return a / b


def paired(results: pd.DataFrame, simple: str = SIMPLE, optimal: str = OPTIMAL) -> pd.DataFrame:
    """One row per predicate set both reducers ran on: α of each, the optimum's lower bound and
    ``proven``."""
    keys = ["scenario", "n", "replicate", "seed"]
    a = results[results["reducer"] == simple][[*keys, "alpha"]].rename(columns={"alpha": "simple"})
    b = results[results["reducer"] == optimal][[*keys, "alpha", "alpha_lower", "proven"]]
    b = b.rename(columns={"alpha": "optimal", "alpha_lower": "lower"})
    return a.merge(b, on=keys, how="inner")


def optimum_gaps(results: pd.DataFrame, simple: str = SIMPLE, optimal: str = OPTIMAL) -> pd.DataFrame:
    """Per (scenario, n): sets, how many are proven optimal, the median α of each reducer, the median and
    maximum of the per-set ratio α_simple / α_optimal, the median of α_simple / α_lower (the ratio's
    upper end where a set is only bounded), and in how many sets the simple reducer is already optimal
    (same size, proven)."""
    rows = []
    for (scenario, n), g in paired(results, simple, optimal).groupby(["scenario", "n"], sort=False):
        r = np.array([ratio(s, o) for s, o in zip(g["simple"], g["optimal"], strict=True)])
        bound = np.array([ratio(s, low) for s, low in zip(g["simple"], g["lower"], strict=True)])
        proven = g["proven"].astype(bool).to_numpy()
        rows.append({
            "scenario": scenario, "n": int(n), "sets": len(g), "proven": int(proven.sum()),
            "simple_median": float(np.median(g["simple"])), "optimal_median": float(np.median(g["optimal"])),
            "ratio_median": float(np.median(r)), "ratio_bound_median": float(np.median(bound)),
            "ratio_max": float(r.max()), "simple_optimal": int(np.sum(proven & (r == 1.0))),
        })
    return pd.DataFrame(rows, columns=list(GAP_COLUMNS))


def _times(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.3f}"


def ratio_text(row: pd.Series) -> str:
    """The median α_simple / α_opt of a grid point: one number when every set is proven optimal, else
    the interval it lies in."""
    if row["proven"] == row["sets"]:
        return _times(row["ratio_median"])
    return f"{_times(row['ratio_median'])} – {_times(row['ratio_bound_median'])}"


class Extremes(NamedTuple):
    smallest: pd.Series
    largest: pd.Series


def extremes(gaps: pd.DataFrame) -> Extremes | None:
    """The grid points, all of whose sets are proven, with the smallest and the largest median ratio."""
    proven = gaps[gaps["proven"] == gaps["sets"]]
    if proven.empty:
        return None
    order = proven["ratio_median"].to_numpy()
    return Extremes(proven.iloc[int(np.argmin(order))], proven.iloc[int(np.argmax(order))])


def optimum_finding(gaps: pd.DataFrame, simple: str = SIMPLE) -> Finding:
    """The paper's α against the optimum: the range of the median ratio over the proven grid points."""
    claim = (f"The paper measures α with its simple reducer (`{simple}` here) only: an upper bound on the "
             "optimum α.")
    total_sets, proven_sets = int(gaps["sets"].sum()), int(gaps["proven"].sum())
    found = extremes(gaps)
    if found is None:
        return Finding(claim, f"no grid point has every set proven optimal ({proven_sets} of {total_sets} "
                       "sets proven)", "not tested at this size")
    low, high = found
    complete = int((gaps["proven"] == gaps["sets"]).sum())
    ours = (f"median α_{simple} / α_opt from {_times(low['ratio_median'])} ({low['scenario']}, n = {low['n']:,}) "
            f"to {_times(high['ratio_median'])} ({high['scenario']}, n = {high['n']:,}) over the {complete} of "
            f"{len(gaps)} grid points proven optimal in every set; {proven_sets} of {total_sets} sets proven, "
            f"`{simple}` already optimal in {int(gaps['simple_optimal'].sum())}")
    verdict = "**new**: the paper's α is the optimum here" if high["ratio_median"] == 1.0 else \
        f"**new**: the paper's α overstates the optimum by up to {_times(high['ratio_median'])}× (median)"
    return Finding(claim, ours, verdict)


def optimum_section(results: pd.DataFrame | None, simple: str = SIMPLE, optimal: str = OPTIMAL) -> str | None:
    """The report's section on the optimum α (None unless both reducers ran on some set)."""
    if results is None or not {simple, optimal} <= set(results["reducer"]):
        return None
    gaps = optimum_gaps(results, simple, optimal)
    if gaps.empty:
        return None
    finding = optimum_finding(gaps, simple)
    rows = [(r["scenario"], f"{r['n']:,}", f"{r['proven']} of {r['sets']}", f"{r['simple_median']:.3f}",
             f"{r['optimal_median']:.3f}", ratio_text(r), _times(r["ratio_max"]),
             f"{r['simple_optimal']} of {r['sets']}")
            for _, r in gaps.iterrows()]
    return (
        "## Beyond the paper: the optimum α\n\n"
        f"`{optimal}` returns the smallest equivalent predicate with a proof where it finishes within the "
        "budget, and otherwise its best cover and a proven lower bound, so the optimum α of a set lies in "
        f"[α_lower, α_min] and the ratio α_{simple} / α_opt in [α_{simple} / α_min, α_{simple} / α_lower]. "
        "Ratios are per predicate set (both reducers see the same sets); an interval where some set of "
        "the point is only bounded.\n\n"
        + markdown_table(("paper", "ours", "verdict"), [finding]) + "\n\n"
        + markdown_table(("scenario", "n", "proven optimal", f"α {simple} (median)", f"α {optimal} (median)",
                          f"α_{simple} / α_opt (median)", f"max α_{simple} / α_min", f"`{simple}` optimal"),
                         rows) + "\n"
    )
