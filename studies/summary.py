"""Per-grid-point summaries of the result rows (the ``summary.csv`` files)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from cbalgebra.studies.general import expected_alpha

DNF_SUMMARY_COLUMNS = (
    "scenario", "reducer", "n", "sets",
    "alpha_min", "alpha_p05", "alpha_median", "alpha_p95", "alpha_max",
    "proven", "lower_median",
)
GENERAL_SUMMARY_COLUMNS = (
    "distribution", "universe", "n", "k", "ratio", "sets", "alpha_mean", "alpha_std", "closed_form",
)


def restrict(results: pd.DataFrame, cells: Sequence[dict], key_columns: Sequence[str]) -> pd.DataFrame:
    """The rows of ``results`` that belong to ``cells`` (a directory may hold more)."""
    if results.empty:
        return results
    wanted = pd.DataFrame([{c: cell[c] for c in key_columns} for cell in cells]).drop_duplicates()
    return results.merge(wanted, on=list(key_columns), how="inner")


def _order(values: Sequence[str], preferred: Sequence[str]) -> list[str]:
    known = [v for v in preferred if v in set(values)]
    return known + sorted(set(values) - set(known))


def _certificate(group: pd.DataFrame) -> dict:
    """``proven``: how many sets the reducer proved optimal; ``lower_median``: the median of their proven
    lower bounds α_lower. Both empty (NaN) for a reducer that proves nothing (``proven`` is null).

    The median of the optimum α lies between ``lower_median`` and ``alpha_median``: each set's optimum
    lies between its α_lower and its α, and a median is monotone in each of its values.
    """
    if "proven" not in group.columns or group["proven"].isna().any():
        return {"proven": float("nan"), "lower_median": float("nan")}
    return {"proven": int(group["proven"].astype(bool).sum()),
            "lower_median": float(np.median(group["alpha_lower"].to_numpy(dtype=float)))}


def dnf_summary(results: pd.DataFrame, scenario_order: Sequence[str] = (),
                reducer_order: Sequence[str] = ()) -> pd.DataFrame:
    """min, 5th percentile, median, 95th percentile and max of α per (scenario, reducer, n); for a
    certifying reducer (``minimal``) also how many sets are proven optimal and the median lower bound."""
    if results.empty:
        return pd.DataFrame(columns=list(DNF_SUMMARY_COLUMNS))
    rows = []
    for (scenario, reducer, n), group in results.groupby(["scenario", "reducer", "n"], sort=False):
        a = group["alpha"].to_numpy(dtype=float)
        p05, median, p95 = np.percentile(a, [5, 50, 95])
        rows.append({
            "scenario": scenario, "reducer": reducer, "n": int(n), "sets": int(a.size),
            "alpha_min": float(a.min()), "alpha_p05": float(p05), "alpha_median": float(median),
            "alpha_p95": float(p95), "alpha_max": float(a.max()), **_certificate(group),
        })
    frame = pd.DataFrame(rows, columns=list(DNF_SUMMARY_COLUMNS))
    scen = _order(frame["scenario"].unique(), scenario_order)
    red = _order(frame["reducer"].unique(), reducer_order)
    frame["_s"] = frame["scenario"].map({s: i for i, s in enumerate(scen)})
    frame["_r"] = frame["reducer"].map({r: i for i, r in enumerate(red)})
    frame = frame.sort_values(["_s", "_r", "n"]).drop(columns=["_s", "_r"])
    return frame.reset_index(drop=True)


def general_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation of α per (distribution, universe, n, k), beside the closed form."""
    if results.empty:
        return pd.DataFrame(columns=list(GENERAL_SUMMARY_COLUMNS))
    rows = []
    for (distribution, universe, n, k), group in results.groupby(
        ["distribution", "universe", "n", "k"], sort=False
    ):
        a = group["alpha"].to_numpy(dtype=float)
        rows.append({
            "distribution": distribution, "universe": int(universe), "n": int(n), "k": int(k),
            "ratio": n * k / universe, "sets": int(a.size), "alpha_mean": float(a.mean()),
            "alpha_std": float(a.std(ddof=1)) if a.size > 1 else float("nan"),
            "closed_form": float(expected_alpha(n, k, universe)) if distribution == "uniform" else float("nan"),
        })
    frame = pd.DataFrame(rows, columns=list(GENERAL_SUMMARY_COLUMNS))
    order = {d: i for i, d in enumerate(("uniform", "zipf"))}
    frame["_d"] = frame["distribution"].map(lambda d: order.get(d, 99))
    frame = frame.sort_values(["_d", "distribution", "universe", "k", "n"]).drop(columns=["_d"])
    return frame.reset_index(drop=True)


def summary_csv(frame: pd.DataFrame) -> str:
    """CSV text; NaN (no closed form for Zipf, no std of one set) is an empty field."""
    return frame.to_csv(index=False, float_format="%.6g", na_rep="")
