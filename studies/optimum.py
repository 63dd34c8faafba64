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
import numpy as np
import pandas as pd

from cbalgebra.studies.dnf import SCENARIOS
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
    pairs = paired(results, simple, optimal)
    pairs["order"] = pairs["scenario"].map({s: i for i, s in enumerate(SCENARIOS)}).fillna(len(SCENARIOS))
    for (_, scenario, n), g in pairs.groupby(["order", "scenario", "n"], sort=True):
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


def optimum_finding(gaps: pd.DataFrame, simple: str = SIMPLE) -> Finding:
    """The paper's α against the optimum: at the grid points where every set is proven optimal, how often
    the median ratio is 1 and its largest value; at the others, the largest interval; and how many sets
    are proven, and already optimal under the simple reducer."""
    claim = (f"The paper measures α with its simple reducer (`{simple}` here) only: an upper bound on the "
             "optimum α.")
    total_sets, proven_sets = int(gaps["sets"].sum()), int(gaps["proven"].sum())
    complete = gaps[gaps["proven"] == gaps["sets"]]
    partial = gaps[gaps["proven"] < gaps["sets"]]
    counts = (f"{proven_sets} of {total_sets} sets proven optimal, `{simple}` already optimal in "
              f"{int(gaps['simple_optimal'].sum())}")
    if complete.empty:
        return Finding(claim, f"no grid point has every set proven optimal; {counts}", "not tested at this size")
    high = complete.iloc[int(np.argmax(complete["ratio_median"].to_numpy()))]
    ours = (f"at the {len(complete)} of {len(gaps)} grid points where every set is proven optimal, the median "
            f"α_{simple} / α_opt is 1.000 at {int((complete['ratio_median'] == 1.0).sum())} and at most "
            f"{_times(high['ratio_median'])} ({high['scenario']}, n = {high['n']:,})")
    if not partial.empty:
        worst = partial.iloc[int(np.argmax(partial["ratio_bound_median"].to_numpy()))]
        ours += (f"; where some set is only bounded ({len(partial)} points) it lies in at most "
                 f"[{_times(worst['ratio_median'])}, {_times(worst['ratio_bound_median'])}] ({worst['scenario']}, "
                 f"n = {worst['n']:,})")
    verdict = "**new**: the paper's α is the optimum here" if high["ratio_median"] == 1.0 else \
        f"**new**: the paper's α overstates the optimum by up to {_times(high['ratio_median'])}× (median, proven)"
    return Finding(claim, f"{ours}; {counts}", verdict)


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
