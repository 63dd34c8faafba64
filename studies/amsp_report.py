"""Summary, figures and report of ``cbalgebra study amsp`` (Ge, Ji, Kurose & Towsley,
"Matchmaker: Signaling for Dynamic Publish/Subscribe Applications", §6.1, Figures 11-13).

Each of the paper's findings is one function returning a
:class:`~cbalgebra.studies.tables.Finding` (the paper's statement, our number,
a verdict); ``report`` puts them in order with the parameters the paper
leaves unstated and the checks every run made. Pure functions of the
results; no Spark.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from cbalgebra.studies.amsp import (
    BASELINE,
    BROADCAST_AXES,
    SENSITIVITY,
    SENSITIVITY_AXES,
    SENSITIVITY_BASELINE,
    rate_column,
    variant_name,
)
from cbalgebra.studies.plots import finish_figure, pyplot
from cbalgebra.studies.tables import (APPROX_AGREE, APPROX_PARTLY, NOT_TESTED, Finding, approx_verdict, compose,
                                      findings_section, fixed, markdown_table, timing_section)

PROTOCOL_ORDER = ("BP", "BS", "AMSP")
COLORS = {"BP": "#1f77b4", "BS": "#d62728", "AMSP": "#2ca02c"}
SMOOTHING = 30  # seconds: Figure 11's window
#: The message kinds of §6.1, as the study's rate columns name them (``amsp.rate_column``).
KIND_NAMES = {"CD_UPDATE/PCD": "PCD", "CD_UPDATE/SCD": "SCD", "CD_UPDATE/MCD": "MCD",
              "COST_ANNOUNCE": "COST_ANNOUNCE", "CHANGE_MARKING": "CHANGE_MARKING",
              "CHANGE_MARKING_REPLY": "CHANGE_MARKING_REPLY"}
RATE_COLUMNS = tuple(rate_column(k) for k in KIND_NAMES) + tuple(rate_column(k, "marking") for k in KIND_NAMES)
SUMMARY_COLUMNS = ("figure", "x", "protocol", "variant", "runs", "rate_mean", "rate_std", "ci90", "marking_share",
                   "marking_changes", "links", "moves_per_second", "sim_seconds", "events_per_second", "conserved",
                   *RATE_COLUMNS)
#: Figure 11's configuration: its absolute claims (levels, shares) are judged only on a run of it.
PAPER_PUBLISHERS = PAPER_SUBSCRIBERS = 20
PAPER_GRID = 1000


# --------------------------------------------------------------------------
# Summary


def _ci90(values: np.ndarray) -> float:
    """Half-width of the two-sided 90 % Student-t confidence interval of the mean."""
    n = len(values)
    if n < 2:
        return float("nan")
    # deferred: scipy loads only for the confidence intervals
    from scipy import stats

    return float(stats.t.ppf(0.95, n - 1) * values.std(ddof=1) / math.sqrt(n))


def smoothed(series: Sequence[int], window: int = SMOOTHING) -> np.ndarray:
    """Messages per second over the trailing ``window`` seconds (fewer at the start)."""
    counts = np.asarray(series, dtype=float)
    cumulative = np.concatenate(([0.0], np.cumsum(counts)))
    ends = np.arange(1, len(counts) + 1)
    starts = np.maximum(0, ends - window)
    return (cumulative[ends] - cumulative[starts]) / (ends - starts)


def summarise(results: pd.DataFrame, config: dict) -> pd.DataFrame:
    """One row per (figure, x, protocol); plus, for Figure 11, one row per second of the smoothed rate
    (figure ``fig11-series``, x the second, ``rate_mean`` all messages, ``marking_share`` the share of
    link-marking messages in the window)."""
    rows = []
    if "variant" not in results.columns:
        results = results.assign(variant=BASELINE)
    for (figure, x, protocol, variant), g in results.groupby(["figure", "x", "protocol", "variant"], sort=False):
        rates = g["rate"].to_numpy(dtype=float)
        durations = g["duration"].to_numpy(dtype=float)
        rows.append({
            "figure": figure, "x": int(x), "protocol": protocol, "variant": variant, "runs": len(g),
            "rate_mean": float(rates.mean()), "rate_std": float(rates.std(ddof=1)) if len(g) > 1 else float("nan"),
            "ci90": _ci90(rates), "marking_share": float(g["marking_share"].mean()),
            "marking_changes": float(g["marking_changes"].mean()), "links": float(g["links"].mean()),
            "moves_per_second": float((g["moves"].to_numpy(dtype=float) / durations).mean()),
            "sim_seconds": float(g["sim_seconds"].mean()), "events_per_second": float(g["events_per_second"].mean()),
            "conserved": bool(g["conserved"].all()),
            **{c: float(g[c].mean()) for c in RATE_COLUMNS if c in g.columns},
        })
        if figure == "fig11":
            total = np.mean([smoothed(s) for s in g["series_total"]], axis=0)
            marking = np.mean([smoothed(s) for s in g["series_marking"]], axis=0)
            for t, (value, mark) in enumerate(zip(total, marking, strict=True)):
                rows.append({"figure": "fig11-series", "x": t + 1, "protocol": protocol, "variant": variant,
                             "runs": len(g), "rate_mean": float(value),
                             "marking_share": float(mark / value) if value else 0.0})
    frame = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    order = {p: i for i, p in enumerate(PROTOCOL_ORDER)}
    frame["_f"] = frame["figure"].map({"fig11": 0, "fig11-series": 1, "fig12": 2, "fig13": 3, SENSITIVITY: 4})
    frame["_p"] = frame["protocol"].map(order)
    frame = frame.sort_values(["_f", "variant", "_p", "x"]).drop(columns=["_f", "_p"])
    return frame.reset_index(drop=True)


def _points(summary: pd.DataFrame, figure: str, protocol: str) -> pd.DataFrame:
    return summary[(summary["figure"] == figure) & (summary["protocol"] == protocol)].sort_values("x")


def paper_size(config: dict) -> bool:
    """Whether the run has Figure 11's configuration (20 publishers, 20 subscribers, full sizes), on which
    the paper's absolute numbers (3,000 and 800 messages/s, 3 %, 75 %) can be compared with ours."""
    return (not config.get("quick") and int(config.get("publishers", 0)) == PAPER_PUBLISHERS
            and int(config.get("fig11_subscribers", 0)) == PAPER_SUBSCRIBERS)


def _size_note(config: dict) -> str:
    return (f" (the paper's numbers are for {PAPER_PUBLISHERS} publishers and {PAPER_SUBSCRIBERS} subscribers; "
            f"this run has {config.get('publishers')} and {config.get('fig11_subscribers')}"
            + (", quick sizes" if config.get("quick") else "") + ")")


# --------------------------------------------------------------------------
# Figures


def draw(summary: pd.DataFrame, out_dir: Path, config: dict, figures: str = "all") -> list[Path]:
    plt = pyplot()
    paths: list[Path] = []
    if (summary["figure"] == "fig11-series").any():
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for protocol in PROTOCOL_ORDER:
            s = _points(summary, "fig11-series", protocol)
            if len(s):
                ax.plot(s["x"], s["rate_mean"], color=COLORS[protocol], label=protocol, lw=1.4)
        amsp = _points(summary, "fig11-series", "AMSP")
        if len(amsp):
            ax.plot(amsp["x"], amsp["rate_mean"] * amsp["marking_share"], color=COLORS["AMSP"], ls="--", lw=1.0,
                    label="AMSP link marking")
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel(f"signalling messages/s ({SMOOTHING} s window)")
        ax.set_title(f"Figure 11: {config.get('publishers')} publishers, {config.get('fig11_subscribers')} "
                     f"subscribers, per-source trees")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        paths += finish_figure(fig, out_dir, "fig11_rate_over_time")
    for figure, stem, xlabel, title in (
        ("fig12", "fig12_rate_vs_subscribers", "subscribers",
         f"Figure 12: {config.get('publishers')} publishers, per-source trees"),
        ("fig13", "fig13_rate_vs_grid", "grid G (a G × G world)",
         f"Figure 13: {config.get('publishers')} publishers, {config.get('fig11_subscribers')} subscribers"),
    ):
        if not (summary["figure"] == figure).any():
            continue
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for protocol in PROTOCOL_ORDER:
            s = _points(summary, figure, protocol)
            if len(s):
                ax.errorbar(s["x"], s["rate_mean"], yerr=s["ci90"].fillna(0), color=COLORS[protocol], marker="o",
                            ms=4, capsize=3, label=protocol)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean signalling messages/s (90 % CI)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend()
        paths += finish_figure(fig, out_dir, stem)
    return paths


# --------------------------------------------------------------------------
# Findings (§6.1), one function each


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f} %" if whole > 0 else "none (no MCD updates)"


def _span(low: float, high: float) -> str:
    """``low``-``high`` for non-negative bounds, "low to high" when a sign would make the dash ambiguous."""
    return f"{low:.0f}-{high:.0f}" if low >= 0 else f"{low:.0f} to {high:.0f}"


def _verdict(ok: bool, partly: bool = False) -> str:
    return "agree" if ok else ("partly" if partly else "disagree")


def broadcast_above_3000_amsp_below_800(summary: pd.DataFrame, config: dict) -> Finding | None:
    warm = float(config.get("warmup", 60))
    series = summary[(summary["figure"] == "fig11-series") & (summary["x"] > warm + SMOOTHING)]
    if series.empty:
        return None
    lows = {p: series[series["protocol"] == p]["rate_mean"].min() for p in ("BP", "BS")}
    high = series[series["protocol"] == "AMSP"]["rate_mean"].max()
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (*lows.values(), high)):
        return None
    ok = min(lows.values()) > 3000 and high < 800
    tested = paper_size(config)
    return Finding(
        "Fig. 11: after the start, BP and BS need more than 3,000 messages/s, AMSP less than 800",
        f"after {warm + SMOOTHING:g} s, smoothed minimum BP {lows['BP']:.0f}, BS {lows['BS']:.0f}; AMSP maximum "
        f"{high:.0f} (the absolute level follows the entity speeds, which the paper does not give)"
        + ("" if tested else _size_note(config)),
        _verdict(ok, partly=min(lows.values()) > 2 * high) if tested else NOT_TESTED)


def marking_share_three_percent(summary: pd.DataFrame, config: dict) -> Finding | None:
    row = summary[(summary["figure"] == "fig11") & (summary["protocol"] == "AMSP")]
    if row.empty:
        return None
    share = float(row["marking_share"].iloc[0])
    tested = paper_size(config)
    return Finding("Fig. 11: about 3 % of AMSP's messages do link marking (COST_ANNOUNCE, CHANGE_MARKING, "
                   "CHANGE_MARKING_REPLY)",
                   f"{100 * share:.1f} %" + ("" if tested else _size_note(config)),
                   approx_verdict(share, 0.03) if tested else NOT_TESTED)


def _series(summary: pd.DataFrame, figure: str) -> dict[str, pd.DataFrame]:
    return {p: _points(summary, figure, p) for p in PROTOCOL_ORDER if len(_points(summary, figure, p))}


def _slope(points: pd.DataFrame) -> float:
    if len(points) < 2:
        return float("nan")
    return float(np.polyfit(points["x"].to_numpy(dtype=float), points["rate_mean"].to_numpy(dtype=float), 1)[0])


def rate_grows_with_subscribers(summary: pd.DataFrame, config: dict) -> Finding | None:
    s = _series(summary, "fig12")
    if len(s) < 3 or len(s["BP"]) < 2:
        return None
    slopes = {p: _slope(v) for p, v in s.items()}
    ok = all(v > 0 for v in slopes.values())
    return Finding("Fig. 12: the rate grows with the number of subscribers for all three approaches",
                   "least-squares slopes (messages/s per subscriber): "
                   + ", ".join(f"{p} {v:.1f}" for p, v in slopes.items()), _verdict(ok))


def crossover_bs_bp(summary: pd.DataFrame, config: dict) -> Finding | None:
    s = _series(summary, "fig12")
    if "BP" not in s or "BS" not in s:
        return None
    publishers = int(config.get("publishers", 20))
    merged = s["BP"][["x", "rate_mean"]].merge(s["BS"][["x", "rate_mean"]], on="x", suffixes=("_bp", "_bs"))
    fewer = merged[merged["x"] < publishers]
    more = merged[merged["x"] > publishers]
    bs_wins_fewer = int((fewer["rate_mean_bs"] < fewer["rate_mean_bp"]).sum())
    bp_wins_more = int((more["rate_mean_bp"] < more["rate_mean_bs"]).sum())
    ok = bs_wins_fewer == len(fewer) and bp_wins_more == len(more)
    partly = bs_wins_fewer + bp_wins_more > (len(fewer) + len(more)) / 2
    cross = None
    diff = (merged["rate_mean_bs"] - merged["rate_mean_bp"]).to_numpy()
    xs = merged["x"].to_numpy(dtype=float)
    for i in range(len(diff) - 1):
        if diff[i] < 0 <= diff[i + 1]:
            cross = xs[i] + (xs[i + 1] - xs[i]) * (-diff[i]) / (diff[i + 1] - diff[i])
            break
    where = f"; the curves cross near {cross:.1f} subscribers" if cross is not None else ""
    return Finding(
        f"Fig. 12: with more publishers than subscribers BS beats BP, otherwise BP beats BS ({publishers} publishers)",
        f"BS below BP at {bs_wins_fewer}/{len(fewer)} points with fewer than {publishers} subscribers; "
        f"BP below BS at {bp_wins_more}/{len(more)} points with more{where}", _verdict(ok, partly))


def bs_slope_lower_than_bp(summary: pd.DataFrame, config: dict) -> Finding | None:
    s = _series(summary, "fig12")
    if "BP" not in s or "BS" not in s or len(s["BP"]) < 2:
        return None
    bp, bs = _slope(s["BP"]), _slope(s["BS"])
    return Finding(
        "Fig. 12: \"the slope of increase associated with BS is lower than that with BP, suggesting that BP scales "
        "better with the number of subscribers\" (the two halves of the sentence contradict each other, and a BS "
        "curve that starts below BP and ends above it must be the steeper one)",
        f"slopes: BP {bp:.1f}, BS {bs:.1f} messages/s per subscriber: "
        + ("BS is the steeper, so BP scales better with the subscribers" if bs > bp else "BP is the steeper"),
        "partly" if bs > bp else "agree (first half only)")


def amsp_lowest_and_flattest(summary: pd.DataFrame, config: dict, figure: str) -> Finding | None:
    s = _series(summary, figure)
    if len(s) < 3:
        return None
    merged = s["AMSP"][["x", "rate_mean"]].rename(columns={"rate_mean": "amsp"})
    for p in ("BP", "BS"):
        merged = merged.merge(s[p][["x", "rate_mean"]].rename(columns={"rate_mean": p}), on="x")
    lowest = int((merged["amsp"] < merged[["BP", "BS"]].min(axis=1)).sum())
    slopes = {p: _slope(v) for p, v in s.items()}
    flattest = slopes["AMSP"] < min(slopes["BP"], slopes["BS"])
    reduction = 1 - (merged["amsp"] / merged[["BP", "BS"]].min(axis=1))
    what = "subscriber" if figure == "fig12" else "unit of G"
    name = "Fig. 12" if figure == "fig12" else "Fig. 13"
    return Finding(
        f"{name}: AMSP has the lowest rate at every point and the smallest increase",
        f"AMSP lowest at {lowest}/{len(merged)} points, {_span(100 * reduction.min(), 100 * reduction.max())} % "
        f"below the better broadcast; slopes per {what}: "
        + ", ".join(f"{p} {v:.2f}" for p, v in slopes.items()),
        _verdict(lowest == len(merged) and flattest, partly=lowest == len(merged)))


def finer_grid_costs_more(summary: pd.DataFrame, config: dict,
                          results: pd.DataFrame | None = None) -> Finding | None:
    s = _series(summary, "fig13")
    if len(s) < 3 or len(s["BP"]) < 2:
        return None
    rising = {p: bool(np.all(np.diff(v["rate_mean"].to_numpy()) > 0)) for p, v in s.items()}
    ratios = {p: float(v["rate_mean"].iloc[-1] / v["rate_mean"].iloc[0]) for p, v in s.items()}
    first, last = int(s["BP"]["x"].iloc[0]), int(s["BP"]["x"].iloc[-1])
    paired = paired_steps_text(results) if results is not None else ""
    return Finding(
        "Fig. 13: every approach signals more as the grid gets finer (200 × 200 to 2000 × 2000)",
        f"rate at G = {last} over G = {first}: " + ", ".join(f"{p} ×{r:.1f}" for p, r in ratios.items())
        + "; increasing at every step: " + ", ".join(f"{p} {'yes' if v else 'no'}" for p, v in rising.items())
        + (f"; replicates (same network and entity paths at every G) in which the rate rose, per step: {paired}"
           if paired else ""),
        _verdict(all(rising.values()), partly=all(r > 1 for r in ratios.values())))


def seventy_five_percent_less(summary: pd.DataFrame, config: dict) -> Finding | None:
    rows = summary[summary["figure"].isin(["fig11", "fig12", "fig13"])]
    pivot = rows.pivot_table(index=["figure", "x"], columns="protocol", values="rate_mean")
    if not {"BP", "BS", "AMSP"} <= set(pivot.columns):
        return None
    reduction = 1 - pivot["AMSP"] / pivot[["BP", "BS"]].min(axis=1)
    tested = paper_size(config)
    return Finding("§1: AMSP needs about 75 % less signalling than the broadcast approaches",
                   f"median {100 * reduction.median():.0f} % less than the better broadcast "
                   f"(range {_span(100 * reduction.min(), 100 * reduction.max())} % over every point)"
                   + ("" if tested else _size_note(config)),
                   approx_verdict(float(reduction.median()), 0.75) if tested else NOT_TESTED)


def paired_grid_steps(results: pd.DataFrame, protocol: str) -> dict[tuple[int, int], tuple[int, int]]:
    """Figure 13 with common random numbers: for each step between neighbouring grids, in how many
    replicates (same network, same entity paths) the protocol's rate rose, out of how many."""
    fig = results[(results["figure"] == "fig13") & (results["protocol"] == protocol)]
    if "variant" in fig.columns:
        fig = fig[fig["variant"] == BASELINE]
    table = fig.pivot_table(index="replicate", columns="x", values="rate")
    grids = sorted(table.columns)
    steps = {}
    for a, b in itertools.pairwise(grids):
        pair = table[[a, b]].dropna()
        steps[(int(a), int(b))] = (int((pair[b] > pair[a]).sum()), len(pair))
    return steps


def paired_steps_text(results: pd.DataFrame) -> str:
    parts = []
    for protocol in PROTOCOL_ORDER:
        steps = paired_grid_steps(results, protocol)
        if steps:
            parts.append(f"{protocol} " + ", ".join(f"{a}→{b} {up}/{n}" for (a, b), (up, n) in steps.items()))
    return "; ".join(parts)


# --------------------------------------------------------------------------
# Why AMSP is not monotone in the grid: its messages by kind


def _loglog_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(pts) < 2:
        return float("nan")
    return float(np.polyfit([p[0] for p in pts], [p[1] for p in pts], 1)[0])


def grid_breakdown(summary: pd.DataFrame) -> pd.DataFrame:
    """Per (protocol, G) of Figure 13: the rate of each kind of message after the warm-up, and the MCD
    rate that descends from AMSP's marking changes (the same MCDs re-sent when a meeting point moves)."""
    fig = summary[(summary["figure"] == "fig13")]
    rows = []
    for _, r in fig.iterrows():
        cd = r[rate_column("CD_UPDATE/PCD")] + r[rate_column("CD_UPDATE/SCD")]
        marking = sum(r[rate_column(k)] for k in ("COST_ANNOUNCE", "CHANGE_MARKING", "CHANGE_MARKING_REPLY"))
        rows.append({"protocol": r["protocol"], "grid": int(r["x"]), "total": r["rate_mean"],
                     "pcd_scd": cd, "mcd": r[rate_column("CD_UPDATE/MCD")],
                     "mcd_marking": r[rate_column("CD_UPDATE/MCD", "marking")], "marking": marking,
                     "crossings": r["moves_per_second"]})
    return pd.DataFrame(rows)


def grid_breakdown_section(summary: pd.DataFrame) -> str | None:
    table = grid_breakdown(summary)
    if table.empty or table[["pcd_scd", "mcd"]].isna().all().all():
        return None
    rows = []
    for protocol in PROTOCOL_ORDER:
        for _, r in table[table["protocol"] == protocol].sort_values("grid").iterrows():
            total = r["total"] or float("nan")
            rows.append((protocol, r["grid"], f"{r['total']:.0f}",
                         f"{r['pcd_scd']:.0f} ({100 * r['pcd_scd'] / total:.0f} %)",
                         f"{r['mcd']:.0f} ({100 * r['mcd'] / total:.0f} %)",
                         f"{r['mcd_marking']:.0f} ({100 * r['mcd_marking'] / total:.0f} %)",
                         f"{r['marking']:.0f} ({100 * r['marking'] / total:.0f} %)", f"{r['crossings']:.0f}"))
    text = ["## Why AMSP's rate is not monotone in the grid: its messages by kind\n",
            "Mean rates after the warm-up (messages/s) of Figure 13's runs, by the kind of message; in brackets "
            "the share of the protocol's total. \"MCD re-sent after marking changes\" counts the MCD updates "
            "that descend from a COST_ANNOUNCE (a marking change moved a pair's meeting point, and the old "
            "matchmaker withdrew the MCD over the whole path while the new one installed it over the whole "
            "path), not from a CD change.\n",
            markdown_table(("protocol", "G", "total", "PCD + SCD updates", "MCD updates", "MCD re-sent after marking "
                    "changes", "COST_ANNOUNCE + CHANGE_MARKING(_REPLY)", "cell crossings/s"), rows) + "\n"]
    amsp = table[table["protocol"] == "AMSP"].sort_values("grid")
    if len(amsp) >= 2:
        grids = amsp["grid"].tolist()
        cd_slope = _loglog_slope(grids, amsp["pcd_scd"].tolist())
        mcd_slope = _loglog_slope(grids, amsp["mcd"].tolist())
        cross_slope = _loglog_slope(grids, amsp["crossings"].tolist())
        lowest = int(amsp.loc[amsp["total"].idxmin(), "grid"])
        first, last = amsp.iloc[0], amsp.iloc[-1]
        broadcast_rising = {
            p: bool(np.all(np.diff(table[table["protocol"] == p].sort_values("grid")["total"].to_numpy()) > 0))
            for p in ("BP", "BS") if (table["protocol"] == p).any()}
        amsp_rising = bool(np.all(np.diff(amsp["total"].to_numpy()) > 0))
        text.append(
            "Measured: the cell crossings grow as G^" + fixed(cross_slope, 2) + " (an entity crosses G/1000 times as "
            "many cells), and with them the PCD and SCD updates, as G^" + fixed(cd_slope, 2) + ". The MCD updates "
            "fall as G^" + fixed(mcd_slope, 2) + ": a CD is the 3 × 3 square around its entity, so on a coarse grid "
            "every square covers a larger part of the world and overlaps many more squares of the other side "
            "(their number per CD should fall as 1/G²), and each crossing changes the MCD of every overlapping pair, "
            "re-sent hop by hop over the whole path from publisher to subscriber. AMSP's total is the sum of a "
            f"falling MCD term and a rising CD term: the MCD updates are {100 * first['mcd'] / first['total']:.0f} % "
            f"of AMSP's messages at G = {int(first['grid'])} and {100 * last['mcd'] / last['total']:.0f} % at "
            f"G = {int(last['grid'])}, and the total is lowest at G = {lowest} of the grids run (rising at every "
            f"step: {'yes' if amsp_rising else 'no'}). BP and BS carry the same MCD term beside their PCD or SCD "
            "floods (rising at every step: "
            + ", ".join(f"{p} {'yes' if v else 'no'}" for p, v in broadcast_rising.items())
            + "); AMSP removes most of the floods, which uncovers the MCD term at coarse grids. Of AMSP's MCD "
            f"updates after the warm-up, {_share(first['mcd_marking'], first['mcd'])} at G = {int(first['grid'])} "
            f"and {_share(last['mcd_marking'], last['mcd'])} at G = {int(last['grid'])} descend from marking "
            "changes: " + (
                "at the coarsest grid the MCD term is mostly MCDs re-sent because a marking change moved their "
                "meeting point (what the `segment` policy of the sensitivity section saves).\n"
                if first["mcd"] > 0 and first["mcd_marking"] > first["mcd"] / 2 else
                "the MCD term is mostly the re-signalling of MCDs whose region changed because an entity moved, "
                "not of MCDs whose meeting point moved (what the `segment` policy of the sensitivity section "
                "saves).\n"))
    return "\n".join(text)


# --------------------------------------------------------------------------
# The sensitivity study


def _variant_label(variant: str) -> str:
    if variant == BASELINE:
        return "baseline: " + ", ".join(f"{k} {v}" for k, v in SENSITIVITY_BASELINE.items())
    return variant.replace("=", " ")


def sensitivity_rows(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (variant, G, replicate): the three protocols' rates and AMSP's shares. A variant's BP
    and BS are its own runs on the speed axis and the baseline's (same replicate and G) on the others."""
    if "variant" not in results.columns:
        return pd.DataFrame()
    base = results[(results["figure"] == "fig13") & (results["variant"] == BASELINE)]
    sens = results[results["figure"] == SENSITIVITY]
    if sens.empty or base.empty:
        return pd.DataFrame()
    grids = set(sens["x"])
    frames = [base[base["x"].isin(grids)].assign(variant=BASELINE), sens]
    rows = []
    for (variant, grid, replicate), g in pd.concat(frames).groupby(["variant", "x", "replicate"]):
        by = {r["protocol"]: r for _, r in g.iterrows()}
        if "AMSP" not in by:
            continue
        axis = variant.split("=", 1)[0]
        ref = base[(base["x"] == grid) & (base["replicate"] == replicate)]
        ref_by = {r["protocol"]: r for _, r in ref.iterrows()}
        broadcast = by if axis in BROADCAST_AXES else ref_by
        if "BP" not in broadcast or "BS" not in broadcast or "AMSP" not in ref_by:
            continue
        amsp = by["AMSP"]
        rows.append({
            "variant": variant, "grid": int(grid), "replicate": int(replicate),
            "BP": float(broadcast["BP"]["rate"]), "BS": float(broadcast["BS"]["rate"]),
            "AMSP": float(amsp["rate"]), "AMSP_baseline": float(ref_by["AMSP"]["rate"]),
            "marking_share": float(amsp["marking_share"]),
            "mcd_share": float(amsp[rate_column("CD_UPDATE/MCD")] / amsp["rate"]) if amsp["rate"] else 0.0,
            "mcd_sent": float(amsp["sent_cd_update_mcd"]),
            "mcd_sent_baseline": float(ref_by["AMSP"]["sent_cd_update_mcd"]),
        })
    return pd.DataFrame(rows)


def _variant_order(variants: Sequence[str]) -> list[str]:
    order = [BASELINE] + [variant_name(a, v) for a, vs in SENSITIVITY_AXES.items() for v in vs]
    return [v for v in order if v in set(variants)]


def _sensitivity_summary(changes: dict[str, float], verdicts: dict[str, tuple[str, ...]]) -> str:
    """Which variants move AMSP most, and which of the paper's claims change verdict under them."""
    claims = ("the ≈ 3 % link-marking share", "the ≈ 75 % reduction", "AMSP lowest", "Figure 11's levels")
    varied = [v for v in changes if v != BASELINE]
    if not varied:
        return "Only the baseline ran.\n"
    ranked = sorted(varied, key=lambda v: -abs(changes[v]))
    moves = ", ".join(f"{_variant_label(v)} {100 * changes[v]:+.0f} %" for v in ranked)
    base = verdicts.get(BASELINE)
    flips = []
    for v in ranked:
        if base is None:
            break
        changed = [f"{claim} {b} → {w}" for claim, b, w in zip(claims, base, verdicts[v], strict=True) if b != w]
        if changed:
            flips.append(f"{_variant_label(v)}: " + ", ".join(changed))
    return (f"AMSP's paired change, largest first: {moves}. "
            + ("Verdicts that differ from the baseline's: " + "; ".join(flips) + "."
               if flips else "No verdict differs from the baseline's.") + "\n")


def sensitivity_section(results: pd.DataFrame, config: dict) -> str | None:
    rows = sensitivity_rows(results)
    if rows.empty:
        return None
    tested = paper_size(config)
    grid0 = int(config.get("sensitivity_grid", PAPER_GRID))
    table = []
    changes: dict[str, float] = {}
    verdicts: dict[str, tuple[str, ...]] = {}
    for variant in _variant_order(rows["variant"].unique()):
        v = rows[(rows["variant"] == variant) & (rows["grid"] == grid0)]
        if v.empty:
            continue
        bp, bs, amsp = v["BP"].mean(), v["BS"].mean(), v["AMSP"].mean()
        reduction = 1 - amsp / min(bp, bs)
        share = v["marking_share"].mean()
        change = (v["AMSP"] / v["AMSP_baseline"]).mean() - 1
        lowest = int((v["AMSP"] < v[["BP", "BS"]].min(axis=1)).sum())
        levels = min(bp, bs) > 3000 and amsp < 800
        changes[variant] = change
        verdicts[variant] = (
            approx_verdict(share, 0.03) if tested else NOT_TESTED,
            approx_verdict(reduction, 0.75) if tested else NOT_TESTED,
            "agree" if lowest == len(v) else "disagree",
            ("agree" if levels else _verdict(False, partly=min(bp, bs) > 2 * amsp)) if tested else NOT_TESTED)
        table.append((
            _variant_label(variant), f"{bp:.0f}", f"{bs:.0f}", f"{amsp:.0f}",
            "–" if variant == BASELINE else f"{100 * change:+.0f} %",
            f"{100 * v['mcd_share'].mean():.0f} %",
            f"{100 * share:.1f} % ({verdicts[variant][0]})",
            f"{100 * reduction:.0f} % ({verdicts[variant][1]})",
            f"{lowest}/{len(v)} ({verdicts[variant][2]})",
            verdicts[variant][3],
        ))
    text = [
        "## Sensitivity to what the paper leaves open\n",
        f"One axis at a time from the baseline (our defaults), on Figure 13's replicates at G = {grid0} "
        f"({config.get('publishers')} publishers, {config.get('fig11_subscribers')} subscribers, per-source "
        f"trees, {fixed(config.get('fig13_duration'), 0)} s runs, the mean rate after the "
        f"{fixed(config.get('warmup'), 0)} s "
        "warm-up): the same networks and entity paths as the baseline (common random numbers), so the "
        "\"AMSP vs baseline\" column is a paired change. BP and BS do not read AMSP's parameters: only the speed "
        "axis reruns them. The paper's claims are re-judged under each variant (\"≈ v\" within "
        f"±{100 * APPROX_AGREE:.0f} %, partly within a factor of {APPROX_PARTLY:g}); the levels of Figure 11 "
        "are judged on these runs' mean rates.\n",
        markdown_table(("variant", "BP", "BS", "AMSP", "AMSP vs baseline", "MCD share of AMSP",
                "link-marking share (≈ 3 %)", "AMSP below the better broadcast (≈ 75 %)",
                "AMSP lowest (replicates)", "BP, BS > 3,000 and AMSP < 800"), table) + "\n",
    ]
    text.append(_sensitivity_summary(changes, verdicts))
    segment = rows[rows["variant"] == variant_name("mcd_update", "segment")]
    if not segment.empty:
        per_grid = []
        for grid, g in segment.groupby("grid"):
            base_rate = g["AMSP_baseline"].mean()
            per_grid.append((int(grid), f"{base_rate:.0f}", f"{g['AMSP'].mean():.0f}",
                             f"{100 * ((g['AMSP'] / g['AMSP_baseline']).mean() - 1):+.1f} %",
                             f"{g['mcd_sent_baseline'].mean():,.0f} → {g['mcd_sent'].mean():,.0f} "
                             f"({100 * ((g['mcd_sent'] / g['mcd_sent_baseline']).mean() - 1):+.0f} %)",
                             f"{100 * (1 - g['AMSP'].mean() / g[['BP', 'BS']].min(axis=1).mean()):.0f} %"))
        amsp_seg = segment.groupby("grid")["AMSP"].mean().sort_index()
        rising = bool(np.all(np.diff(amsp_seg.to_numpy()) > 0))
        lowest_all = bool((segment["AMSP"] < segment[["BP", "BS"]].min(axis=1)).all())
        text += [
            "### The MCD update policy at every grid of Figure 13\n",
            "`mcd_update=segment` re-signals an MCD only where it changes: when a marking change moves a "
            "pair's meeting point, the new matchmaker already holds the MCD and sends nothing, and an update "
            "stops at the first node that holds it already. The default (`path`) re-sends it over the whole "
            "path, as our reading of §5.4 (\"sends CD_UPDATE messages carrying MCD information ... along the "
            "multicast data dissemination path between the source publisher and the requesting "
            "subscriber\").\n",
            markdown_table(("G", "AMSP, path (default)", "AMSP, segment", "paired change after the warm-up",
                    "MCD updates per run, warm-up included: path → segment", "segment below the better "
                    "broadcast"), per_grid) + "\n",
            "The MCD updates the `segment` policy saves are those a marking change re-sends; over a whole run "
            "they are the difference in the column before last, and after the warm-up the paired change of the "
            "rate shows how many of them remain once the marking has settled.\n",
            "Figure 13 re-judged with `segment`: AMSP's rate rises at every step of G: "
            + ("yes (agree)" if rising else "no (partly)") + "; AMSP lowest at every grid and replicate: "
            + ("yes (agree)" if lowest_all else "no (disagree)") + ".\n",
        ]
    return "\n".join(text)


# --------------------------------------------------------------------------
# Other sections

UNSTATED = (
    ("entity speeds (random waypoint)", "per leg uniform in the class's range, in cells/s of the 1000 × 1000 grid: "
     "high 0.05-0.15, medium 0.005-0.015, low 0.0005-0.0015 (a cell as 1 km: aircraft, vehicles, people); "
     "scaled by G/1000 on a G × G grid (the same world, finer cells)"),
    ("speed class shares", "one third each"),
    ("random waypoint destination and pause", "destination uniform in the world; pause U[0, 60] s"),
    ("where an entity is born", "uniformly at random in the world"),
    ("CD at the world's edge", "the 3 × 3 square clipped to the grid"),
    ("what counts as a CD update", "every cell crossing (a corner crossing is one update), the birth, and the "
     "explicit withdrawal at death; the initial population announces at time 0"),
    ("rate measurement interval", "10 s plus U[0, 1] s jitter (§5.2 says only \"a small random value\")"),
    ("smoothing parameter α", "0.25; the first estimate is the first measurement"),
    ("\"significant\" change for COST_ANNOUNCE", "more than 10 % of the last announced value and more than "
     "0.01 CD updates/s"),
    ("hysteresis δ (Figure 9)", "0.5 CD updates/s"),
    ("AMSP's initial marking", "every link a p-link (§5.3's example)"),
    ("MCD update when a pair's meeting point moves", "the old matchmaker withdraws the MCD over the whole path "
     "and the new one installs it over the whole path (`mcd_update=path`); the sensitivity section measures "
     "`segment`, which re-signals only where the MCD changes"),
    ("CHANGE_MARKING_REPLY", "sent for every CHANGE_MARKING (an acknowledgement; it carries SCDs when the link "
     "becomes an s-link); each is one message whatever the number of CDs it carries"),
    ("MCD signalling", "an MCD (its id: PCD id, SCD id, matchmaker) is sent hop by hop from the matchmaker up to "
     "the publisher and down to the subscriber when it appears, changes region, or disappears; one CD_UPDATE per "
     "hop each time"),
    ("per-hop delay", "none: a message is delivered after all messages sent before it in the same instant "
     "(the simulator also runs with per-hop delays proportional to the link weights; the tests use both)"),
    ("publisher and subscriber on one node", "two applications; they match locally, without messages"),
    ("trees and publishers/subscribers of Figure 13", "per-source trees, 20 publishers, 20 subscribers"),
    ("network", "the Matchmaker package's transit-stub instance (§4.4.1: 100 nodes, 4 transit, 12 stub domains; "
     "P and S drawn among the stub nodes; DVMRP per-source trees); a new network per replicate; in Figure 13 "
     "and the sensitivity study, replicate r has the same network, members and entity paths at every grid "
     "size and variant (common random numbers)"),
    ("run length and averaging", "{duration:g} s for Figure 11, {fig12_duration:g} s per run for Figure 12 and "
     "{fig13_duration:g} s for Figure 13; the mean rate excludes a {warmup:g} s warm-up (the initial "
     "population's announcements at time 0)"),
    ("replicates of Figure 13", "{fig13_replicates} per grid size (Figure 12: {fig12_replicates}; the paper "
     "averages 10 experiments per point)"),
    ("points of Figure 12", "{fig12_subscribers} subscribers (the paper plots 5 to 50 in steps of 5; "
     "`--subscribers 5,10,...,50` runs them all)"),
    ("grid sizes of Figure 13", "{fig13_grids}"),
    ("confidence intervals", "two-sided 90 % Student-t intervals of the mean over replicates"),
)


def header(config: dict) -> str:
    return (
        "# AMSP against broadcast publication and broadcast subscription\n\n"
        "Ge, Ji, Kurose & Towsley, *Matchmaker: Signaling for Dynamic Publish/Subscribe Applications*, §5-6, "
        "Figures 11-13, rerun as a SimPy discrete-event simulation (`cbalgebra.matchmaker.amsp`). Every "
        "per-hop signalling message is counted by type: CD_UPDATE (carrying a PCD, an SCD or an MCD), "
        "COST_ANNOUNCE, CHANGE_MARKING and CHANGE_MARKING_REPLY. CDs are cbalgebra filters "
        "`[int x >= a, int x <= b, int y >= c, int y <= d]`; matches and MCDs are decided by the covering "
        "algebra (`overlaps`, and an intersection built on `constraint_covers`).\n\n"
        f"Base seed {config.get('seed')}; {'quick sizes' if config.get('quick') else 'full sizes'}; trees "
        f"{config.get('trees')}; protocols {', '.join(config.get('protocols', []))}.\n"
    )


def verdicts_note() -> str:
    return (f"Verdicts: \"about v\" agrees within ±{100 * APPROX_AGREE:.0f} % and partly within a factor of "
            f"{APPROX_PARTLY:g}; a claim tied to the paper's configuration ({PAPER_PUBLISHERS} publishers, "
            f"{PAPER_SUBSCRIBERS} subscribers) is \"{NOT_TESTED}\" on a run of another size.\n")


def unstated_section(config: dict) -> str:
    """The table of UNSTATED, with the sizes this run used."""
    from cbalgebra.studies.amsp import FULL

    sizes = {**FULL, **config}
    values = {k: ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v for k, v in sizes.items()}
    rows = [(name, choice.format_map(values)) for name, choice in UNSTATED]
    return (f"## What the paper leaves unstated, and what we chose ({len(UNSTATED)} choices)\n\n"
            + markdown_table(("parameter", "our choice"), rows) + "\n")


def checks_section(results: pd.DataFrame) -> str:
    conserved = int(results["conserved"].sum())
    keys = ["figure", "x", "replicate"] + (["variant"] if "variant" in results.columns else [])
    same_world = results.groupby(keys)[["cd_events", "moves", "births", "deaths"]].nunique()
    identical = int((same_world.max(axis=1) == 1).sum())
    rows = [
        ("every message sent was received once (after the final drain)", f"{conserved}/{len(results)} runs"),
        ("the three protocols of a point saw the same entities (same CD changes)",
         f"{identical}/{len(same_world)} (point, replicate) groups"),
        ("PCD × SCD square pairs decided by the algebra (match-cache misses), all runs",
         f"{int(results['algebra_decisions'].sum()):,}"),
    ]
    return ("## Checks made by every run\n\n" + markdown_table(("check", "result"), rows) + "\n\n"
            "The test suite (`tests/test_amsp.py`) also checks, on small busy worlds: the installed MCDs equal a "
            "static oracle (every PCD × SCD overlap along every data path, decided directly by the algebra) at "
            "checkpoints and after draining with link delays; the same seed gives the same run, and the same entity "
            "paths at every grid size; with motion off and fixed rates AMSP's marking converges to `tdm` of the "
            "Matchmaker package on every generated instance. That convergence needs an acyclic upstream relation "
            "(Figure 9's \"an upstream s-link forces an s-link\"): shared trees always have one, and none of 400 "
            "generated instances has a cycle, but on a custom set of per-source trees whose links form a cycle "
            "(a→b→c, b→c→a, c→a→b) AMSP locks into all s-links, at twice tdm's cost "
            "(`Overlay.upstream_cycle` finds such a cycle).\n")


def performance_section(summary: pd.DataFrame) -> str:
    rows = []
    for figure in ("fig11", "fig12", "fig13"):
        for protocol in PROTOCOL_ORDER:
            s = _points(summary, figure, protocol)
            if len(s):
                rows.append((figure, protocol, f"{(s['sim_seconds'] * s['runs']).sum() / s['runs'].sum():.1f}",
                             f"{s['events_per_second'].mean():,.0f}", f"{s['moves_per_second'].mean():.0f}"))
    return ("## Simulation speed\n\n" + markdown_table(("figure", "protocol", "mean wall s per run",
                                                 "events/s (messages delivered + CD changes + timers)",
                                                 "cell crossings/s"), rows) + "\n")


def numbers_section(summary: pd.DataFrame) -> str:
    rows = []
    for figure in ("fig11", "fig12", "fig13"):
        for _, r in summary[summary["figure"] == figure].iterrows():
            rows.append((figure, int(r["x"]), r["protocol"], int(r["runs"]), f"{r['rate_mean']:.0f}",
                         fixed(r["ci90"], 0), f"{100 * r['marking_share']:.1f} %", f"{r['marking_changes']:.0f}"))
    return ("## Mean rates (messages/s after the warm-up)\n\n"
            + markdown_table(("figure", "x", "protocol", "runs", "mean", "90 % CI ±", "link-marking share",
                      "marking changes"), rows) + "\n")


def report(summary: pd.DataFrame, results: pd.DataFrame, config: dict, timing: dict | None) -> str:
    findings = [f for f in (
        broadcast_above_3000_amsp_below_800(summary, config),
        marking_share_three_percent(summary, config),
        rate_grows_with_subscribers(summary, config),
        crossover_bs_bp(summary, config),
        bs_slope_lower_than_bp(summary, config),
        amsp_lowest_and_flattest(summary, config, "fig12"),
        finer_grid_costs_more(summary, config, results),
        amsp_lowest_and_flattest(summary, config, "fig13"),
        seventy_five_percent_less(summary, config),
    ) if f is not None]
    return compose([
        header(config),
        findings_section(findings),
        verdicts_note(),
        numbers_section(summary),
        grid_breakdown_section(summary),
        sensitivity_section(results, config),
        unstated_section(config),
        checks_section(results),
        performance_section(summary),
        timing_section(timing),
    ])
