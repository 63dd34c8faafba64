"""Outputs of ``cbalgebra study matchmaker``: the summary, Figures 7 and 8 and
the sweeps' figures, and report.md with the paper's numbers beside ours.

The paper is Ge, Ji, Kurose & Towsley, "Matchmaker: Signaling for Dynamic
Publish/Subscribe Applications", §4.4.2. Each of its findings is one
function returning a :class:`cbalgebra.studies.tables.Finding`; every
function here is pure except :func:`draw`, which writes the figures (and
reads the per-sample rows of ``results.parquet`` for the CDFs).

Verdicts: a number the paper gives as "approximately v" is judged by the
shared band of :func:`cbalgebra.studies.tables.approx_verdict` (agrees within
±15 % of v, partly within a factor of 2); a share the paper
gives as "more than q" agrees when ours exceeds q and partly agrees within
10 points below; "in 90 % of samples" agrees within ±5 points and partly
within ±15.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cbalgebra.studies.matchmaker import (
    ALGORITHMS,
    KEY_COLUMNS,
    PAPER_POINT,
    TREES,
    cells,
    column,
    points_of,
    schema,
)
from cbalgebra.studies.plots import finish_figure, pyplot
from cbalgebra.studies.tables import (APPROX_AGREE, APPROX_PARTLY, Finding, approx_verdict, compose, findings_section,
                                      markdown_table, timing_section)
from cbalgebra.studies.runner import ResultStore
from cbalgebra.studies.summary import restrict

TITLES = {"all_p": "All-P", "all_s": "All-S", "mcm": "MCM", "tdm": "TDM"}
COLOURS = {"all_p": "#1565c0", "all_s": "#e65100", "mcm": "#2e7d32", "tdm": "#6a1b9a"}
POINT_COLUMNS = ("n", "publishers", "subscribers")


# -------------------------------------------------------------------- summary
def _share(mask: np.ndarray) -> float:
    return float(np.mean(mask)) if mask.size else float("nan")


def point_summary(group: pd.DataFrame, tree: str) -> dict:
    """The numbers of one grid point and tree kind."""
    c = {a: group[column(tree, a)].to_numpy(dtype=float) for a in ALGORITHMS}
    row: dict = {"trees": tree, "samples": len(group),
                 "links_median": float(np.median(group[column(tree, "links")]))}
    for a in ALGORITHMS:
        p10, p50, p90 = np.percentile(c[a], [10, 50, 90])
        row.update({f"{a}_p10": p10, f"{a}_median": p50, f"{a}_p90": p90})
    with np.errstate(divide="ignore", invalid="ignore"):
        to_p = np.where(c["all_p"] > 0, c["mcm"] / c["all_p"], 1.0)
        to_s = np.where(c["all_s"] > 0, c["mcm"] / c["all_s"], 1.0)
    row.update({
        "mcm_over_all_p_median": float(np.median(to_p)), "mcm_over_all_s_median": float(np.median(to_s)),
        "mcm_over_best_broadcast_median": float(np.median(np.maximum(to_p, to_s))),
        "share_mcm_below_20pct_of_both": _share((to_p < 0.2) & (to_s < 0.2)),
        "share_mcm_below_20pct_of_all_p": _share(to_p < 0.2),
        "share_mcm_below_20pct_of_all_s": _share(to_s < 0.2),
        "share_reduction_two_thirds_both": _share((to_p <= 1 / 3) & (to_s <= 1 / 3)),
        "share_reduction_two_thirds_all_p": _share(to_p <= 1 / 3),
        "share_reduction_two_thirds_all_s": _share(to_s <= 1 / 3),
        "share_tdm_optimal": _share(c["tdm"] == c["mcm"]),
        "share_tdm_over_twice": _share(c["tdm"] > 2 * c["mcm"]),
        "max_tdm_over_mcm": float(np.max(np.where(c["mcm"] > 0, c["tdm"] / np.maximum(c["mcm"], 1), 1.0))),
        "share_all_s_cheaper_than_all_p": _share(c["all_s"] < c["all_p"]),
        "share_mcm_at_lower_bound": _share(c["mcm"] == group[column(tree, "lower_bound")].to_numpy()),
        "matchmakers_median": float(np.median(group[column(tree, "matchmakers")])),
        "all_valid": bool(group[column(tree, "all_valid")].all()),
        "property_1_holds": bool(np.all(c["mcm"] <= np.minimum(c["all_p"], c["all_s"]))),
        "mcm_le_tdm": bool(np.all(c["mcm"] <= c["tdm"])),
        "cyclic_samples": int(group[column(tree, "cyclic")].sum()),
    })
    return row


def summarise(results: pd.DataFrame, config: dict) -> pd.DataFrame:
    """One row per grid point (n, |P|, |S|) and tree kind (``summary.csv``)."""
    rows = []
    for key, group in results.groupby(list(POINT_COLUMNS), sort=True):
        for tree in TREES:
            rows.append({**dict(zip(POINT_COLUMNS, (int(k) for k in key), strict=True)),
                         **point_summary(group, tree)})
    return pd.DataFrame(rows)


def _at(summary: pd.DataFrame, point: tuple[int, int, int], tree: str) -> pd.Series | None:
    n, p, s = point
    hit = summary[(summary["n"] == n) & (summary["publishers"] == p) & (summary["subscribers"] == s)
                  & (summary["trees"] == tree)]
    return None if hit.empty else hit.iloc[0]


# -------------------------------------------------------------------- findings
def _at_paper_point(tree: str) -> Callable[[Callable[[pd.Series], Finding]], Callable[[pd.DataFrame], Finding | None]]:
    """A finding judged on the summary row of the paper's point on ``tree`` trees: called with the
    summary, it returns None where the run has no such row."""
    def judge_at_paper_point(judge: Callable[[pd.Series], Finding]) -> Callable[[pd.DataFrame], Finding | None]:
        @functools.wraps(judge)
        def finding(summary: pd.DataFrame) -> Finding | None:
            row = _at(summary, PAPER_POINT, tree)
            return None if row is None else judge(row)
        return finding
    return judge_at_paper_point


def _about(value: float, target: float) -> str:
    return f"**{approx_verdict(value, target)}**"


def _more_than(share: float, threshold: float) -> str:
    if share > threshold:
        return "**agree**"
    return "**partly**" if share > threshold - 0.10 else "**disagree**"


@_at_paper_point("shared")
def mcm_median_about_500(row: pd.Series) -> Finding:
    return Finding("shared trees: median Cost of MCM ≈ 500", f"{row['mcm_median']:.0f}",
                   _about(row["mcm_median"], 500))


@_at_paper_point("shared")
def broadcast_medians_about_3000(row: pd.Series) -> Finding:
    verdicts = [_about(row["all_p_median"], 3000), _about(row["all_s_median"], 3000)]
    verdict = verdicts[0] if verdicts[0] == verdicts[1] else "**partly**"
    return Finding("shared trees: median Cost of All-P and of All-S ≈ 3,000 each",
                   f"All-P {row['all_p_median']:.0f}, All-S {row['all_s_median']:.0f}", verdict)


@_at_paper_point("shared")
def broadcast_p90_above_5500(row: pd.Series) -> Finding:
    above = [row["all_p_p90"] > 5500, row["all_s_p90"] > 5500]
    verdict = "**agree**" if all(above) else ("**partly**" if any(above) else "**disagree**")
    return Finding("shared trees: 90th percentiles of All-P and All-S > 5,500",
                   f"All-P {row['all_p_p90']:.0f}, All-S {row['all_s_p90']:.0f}", verdict)


@_at_paper_point("shared")
def mcm_p90_about_800(row: pd.Series) -> Finding:
    return Finding("shared trees: 90th percentile of MCM ≈ 800", f"{row['mcm_p90']:.0f}",
                   _about(row["mcm_p90"], 800))


def _per_curve(row: pd.Series, claim: str, share: str, curves: tuple[str, str], threshold: float) -> Finding:
    """A claim on Figure 8, which plots one CDF per ratio: it holds for a curve when the share of samples
    ``{share}_all_p`` (or ``_all_s``) passes ``threshold``; ``curves`` name the two, and the share where
    both hold at once (``{share}_both``) stands beside them."""
    shares = [row[f"{share}_{which}"] for which in ("all_p", "all_s", "both")]
    verdicts = {_more_than(shares[0], threshold), _more_than(shares[1], threshold)}
    return Finding(claim, f"{curves[0]} in {100 * shares[0]:.1f} %, {curves[1]} in {100 * shares[1]:.1f} % "
                          f"(both at once: {100 * shares[2]:.1f} %)",
                   verdicts.pop() if len(verdicts) == 1 else "**partly**")


@_at_paper_point("per-source")
def mcm_below_20pct_in_half(row: pd.Series) -> Finding:
    return _per_curve(row, "per-source trees: MCM < 20 % of the Cost of either All-P or All-S in > 50 % of samples "
                      "(Figure 8: each curve at 0.2)", "share_mcm_below_20pct_of",
                      ("MCM/All-P < 0.2", "MCM/All-S < 0.2"), 0.5)


@_at_paper_point("per-source")
def two_thirds_reduction_in_95pct(row: pd.Series) -> Finding:
    return _per_curve(row, "per-source trees: MCM cuts Cost by ≥ 2/3 against All-P and against All-S in > 95 % "
                      "of samples", "share_reduction_two_thirds", ("against All-P", "against All-S"), 0.95)


@_at_paper_point("per-source")
def tdm_optimal_in_90pct(row: pd.Series) -> Finding:
    share = row["share_tdm_optimal"]
    gap = abs(share - 0.9)
    verdict = "**agree**" if gap <= 0.05 else ("**partly**" if gap <= 0.15 else "**disagree**")
    return Finding("per-source trees: TDM optimal (Cost ratio 1) in 90 % of samples",
                   f"{100 * share:.1f} % of samples", verdict)


@_at_paper_point("per-source")
def tdm_rarely_twice(row: pd.Series) -> Finding:
    share = row["share_tdm_over_twice"]
    verdict = "**agree**" if share <= 0.01 else ("**partly**" if share <= 0.05 else "**disagree**")
    return Finding("per-source trees: TDM rarely costs more than twice the optimum",
                   f"TDM > 2 × MCM in {100 * share:.1f} % of samples (worst {row['max_tdm_over_mcm']:.2f} ×)",
                   verdict)


def claims_hold_everywhere(summary: pd.DataFrame) -> Finding:
    """Property 1, Claim 1 (Figure 5 optimal on shared trees; here MCM = TDM = Σ min(sigma, tau)) and
    validity, over every sample of every grid point."""
    shared = summary[summary["trees"] == "shared"]
    ok_valid = bool(summary["all_valid"].all())
    ok_p1 = bool(summary["property_1_holds"].all())
    ok_shared = bool((shared["share_tdm_optimal"] == 1).all() and (shared["share_mcm_at_lower_bound"] == 1).all())
    samples = int(summary["samples"].sum())
    ours = (f"{samples:,} solved instances: every marking valid: {'yes' if ok_valid else 'NO'}; "
            f"MCM ≤ min(All-P, All-S): {'yes' if ok_p1 else 'NO'}; on shared trees TDM = MCM = "
            f"Σ min(sigma, tau): {'yes' if ok_shared else 'NO'}")
    return Finding("Property 1; Claim 1 (Figure 5 optimal on a shared tree); TDM = Figure 5 on a shared tree (§4.3)",
                   ours, "**agree**" if ok_valid and ok_p1 and ok_shared else "**disagree**")


def broadcast_choice_follows_majority(summary: pd.DataFrame) -> Finding | None:
    """§6.1 (about BP and BS in the AMSP simulation): when publishers outnumber
    subscribers BS beats BP, otherwise BP beats BS. Here: the static costs of
    All-S and All-P across the asymmetry sweep (per-source trees)."""
    sweep = summary[(summary["n"] == 100) & (summary["trees"] == "per-source")
                    & (summary["publishers"] != summary["subscribers"])]
    if sweep.empty:
        return None
    agree = []
    for _, row in sweep.iterrows():
        s_cheaper = row["all_s_median"] < row["all_p_median"]
        agree.append(s_cheaper == (row["publishers"] > row["subscribers"]))
    verdict = "**agree**" if all(agree) else ("**partly**" if any(agree) else "**disagree**")
    return Finding("§6.1 (AMSP simulation): more publishers than subscribers → BS (All-S) beats BP (All-P), "
                   "else BP beats BS", f"static Cost, per-source trees: holds at {sum(agree)} of "
                   f"{len(agree)} asymmetric points (median All-S vs All-P)", verdict)


FINDINGS: tuple[Callable[[pd.DataFrame], Finding | None], ...] = (
    mcm_median_about_500, broadcast_medians_about_3000, broadcast_p90_above_5500, mcm_p90_about_800,
    mcm_below_20pct_in_half, two_thirds_reduction_in_95pct, tdm_optimal_in_90pct, tdm_rarely_twice,
    claims_hold_everywhere, broadcast_choice_follows_majority,
)


# -------------------------------------------------------------------- sections
def _shared_tree(config: dict) -> str:
    return config.get("shared_tree", "pruned")


def header(config: dict) -> str:
    points = config.get("points", [])
    total = sum(p[3] for p in points)
    variant = "" if _shared_tree(config) == "pruned" else f" --shared-tree {_shared_tree(config)}"
    return (
        "# Matchmaker: the cost of link markings (Ge, Ji, Kurose & Towsley, §4.4)\n\n"
        "Ge, Ji, Kurose & Towsley, \"Matchmaker: Signaling for Dynamic Publish/Subscribe Applications\": "
        "random GT-ITM transit-stub instances, publishers and subscribers on stub nodes, bounded-Pareto "
        "CD counts (k = 1, p = 100, α = 1); each instance solved on shared (CBT) and on per-source "
        "(DVMRP) trees by All-P, All-S, MCM (the optimum) and TDM. "
        f"{total:,} instances at {len(points)} grid points (n, |P|, |S|), base seed {config.get('seed')}"
        f"{', --quick' if config.get('quick') else ''}. Reproduce: `cbalgebra study matchmaker"
        f"{' --quick' if config.get('quick') else ''} --seed {config.get('seed')}{variant}`.\n"
    )


#: What T_x is on the shared tree, by the study's --shared-tree.
SHARED_TREE_CHOICES = {
    "pruned": "every member joins along its shortest path to the core; T_x is the links of that tree on "
              "the paths from x to the subscribers, as §3.1 defines it (\"reaches all subscriber nodes\"); "
              "Property 3 holds on it, so Figure 5 is optimal (checked on every sample: the findings above). "
              "`--shared-tree whole` takes the whole tree oriented away from x instead (branches leading only "
              "to other publishers included)",
    "whole": "every member joins along its shortest path to the core; T_x is the whole tree oriented away "
             "from x, branches leading only to other publishers included (`--shared-tree whole`; not the "
             "paper's §3.1 T_x, which is the links on the paths from x to the subscribers: the default)",
}


def unstated_section(config: dict | None = None) -> str:
    rows = [
        ("GT-ITM edge probabilities and link weights", "transit-stub defaults of `cbalgebra.network.topology` "
         "(p_transit 0.6, p_stub 0.4; weights transit 10 > transit-stub 5 > stub 1); one stub domain hangs "
         "from its transit node by one link"),
        ("drawing P and S", "|P| distinct stub nodes uniformly, then |S| distinct stub nodes independently "
         "(a node may be both); one seeded stream draws P, S, f, g, then the core"),
        ("CD counts", "inverse-CDF draws of the bounded Pareto, truncated to integers (1..99)"),
        ("which transit node is the CBT core", "one drawn uniformly from the transit nodes (seeded)"),
        ("the shared tree", SHARED_TREE_CHOICES[_shared_tree(config or {})]),
        ("the per-source trees", "the union of the shortest paths from every subscriber to x (DVMRP), "
         "i.e. x's shortest-path tree pruned to S"),
        ("ties between shortest paths", "a node's parent toward the root is its smallest-id neighbour on "
         "a shortest path"),
        ("Figure 5 / Figure 6 at sigma = tau", "s-link (line 6/8: p-link only when sigma < tau)"),
        ("TDM order (footnote 1)", "ready links by ascending sigma − tau, then link order; the marking does "
         "not depend on the order when ∪R_x is acyclic (it was in every sample: see below)"),
        ("MCM on per-source trees", "maximum-weight closure by a minimum cut (scipy Dinic); among optimal "
         "markings, the one with the most s-links"),
        ("sigma^t(M), tau^t(M) of an arbitrary marking", "PCDs travel down p-links from the publisher, SCDs up "
         "s-links from the subscriber, once per link; Lemma 1 is then checked, not assumed"),
        ("networks larger than 100 nodes", "n/100 transit domains of the paper's shape"),
    ]
    return ("## What the paper leaves unstated, and what we chose\n\n"
            + markdown_table(("parameter", "our choice"), rows)
            + "\n")


def paper_point_section(summary: pd.DataFrame) -> str | None:
    rows = []
    for tree in TREES:
        row = _at(summary, PAPER_POINT, tree)
        if row is None:
            continue
        for a in ALGORITHMS:
            rows.append((tree, TITLES[a], f"{row[f'{a}_p10']:.0f}", f"{row[f'{a}_median']:.0f}",
                         f"{row[f'{a}_p90']:.0f}"))
    if not rows:
        return None
    shared, per_source = _at(summary, PAPER_POINT, "shared"), _at(summary, PAPER_POINT, "per-source")
    extra = ""
    if shared is not None and per_source is not None:
        extra = (f"\nMedian |T|: {shared['links_median']:.0f} links (shared), {per_source['links_median']:.0f} "
                 f"(per-source). Median ratios on per-source trees: MCM/All-P "
                 f"{per_source['mcm_over_all_p_median']:.3f}, MCM/All-S {per_source['mcm_over_all_s_median']:.3f}, "
                 f"MCM/TDM 1 in {100 * per_source['share_tdm_optimal']:.1f} % of samples. Cycles in ∪R_x: "
                 f"{int(per_source['cyclic_samples'])} of {int(per_source['samples'])} per-source samples. "
                 f"All-S cheaper than All-P in {100 * shared['share_all_s_cheaper_than_all_p']:.1f} % (shared), "
                 f"{100 * per_source['share_all_s_cheaper_than_all_p']:.1f} % (per-source) of samples.\n")
    return ("## The paper's setting: n = 100, |P| = |S| = 20 (Figures 7 and 8)\n\n"
            + markdown_table(("trees", "algorithm", "Cost p10", "median", "p90"), rows) + "\n" + extra
            + "\n![Figure 7](fig7_shared_costs.svg)\n\n![Figure 8](fig8_per_source_ratios.svg)\n\n"
            "![companions](companions.svg)\n")


def asymmetry_section(summary: pd.DataFrame) -> str | None:
    sweep = summary[(summary["n"] == 100) & ((summary["publishers"] == 20) | (summary["subscribers"] == 20))]
    if sweep["publishers"].nunique() + sweep["subscribers"].nunique() <= 2:
        return None
    rows = []
    for _, r in sweep.sort_values(["trees", "publishers", "subscribers"]).iterrows():
        rows.append((r["trees"], f"{r['publishers']}/{r['subscribers']}", int(r["samples"]),
                     f"{r['all_p_median']:.0f}", f"{r['all_s_median']:.0f}", f"{r['mcm_median']:.0f}",
                     f"{r['tdm_median']:.0f}", f"{r['mcm_over_best_broadcast_median']:.3f}",
                     f"{100 * r['share_tdm_optimal']:.0f} %"))
    return ("## Sweep: asymmetry |P|/|S| (n = 100; not in the paper)\n\n"
            + markdown_table(("trees", "|P|/|S|", "samples", "All-P median", "All-S median", "MCM median",
                      "TDM median", "MCM / best broadcast (median)", "TDM optimal"), rows)
            + "\n\n![asymmetry](asymmetry.svg)\n")


def size_section(summary: pd.DataFrame) -> str | None:
    sweep = summary[((summary["publishers"] == 20) & (summary["subscribers"] == 20))
                    | ((summary["publishers"] == summary["n"] // 5) & (summary["subscribers"] == summary["n"] // 5))]
    if sweep["n"].nunique() <= 1:
        return None
    rows = []
    for _, r in sweep.sort_values(["trees", "publishers", "n"]).iterrows():
        rows.append((r["trees"], int(r["n"]), f"{r['publishers']}/{r['subscribers']}", int(r["samples"]),
                     f"{r['links_median']:.0f}", f"{r['all_p_median']:.0f}", f"{r['all_s_median']:.0f}",
                     f"{r['mcm_median']:.0f}", f"{r['mcm_over_best_broadcast_median']:.3f}",
                     f"{100 * r['share_tdm_optimal']:.0f} %", f"{r['max_tdm_over_mcm']:.2f}"))
    return ("## Sweep: network size n (not in the paper)\n\n"
            "n/100 transit domains; |P| = |S| = 20, and |P| = |S| = n/5 (the paper's density).\n\n"
            + markdown_table(("trees", "n", "|P|/|S|", "samples", "|T| median", "All-P median", "All-S median",
                      "MCM median", "MCM / best broadcast (median)", "TDM optimal", "worst TDM/MCM"), rows)
            + "\n\n![size](size.svg)\n")


#: What the matchmaker study's rows record as ``gen_seconds``, ``reduce_seconds`` and the rest of a task.
TIMING_PHASES = ("Σ instance generation: network, P, S, counts, trees, sigma, tau (in tasks)",
                 "Σ the four algorithms (in tasks)", "Σ pricing and checking the markings (in tasks)")


def report(summary: pd.DataFrame, results: pd.DataFrame, config: dict, timing: dict | None) -> str:
    findings = [f for f in (fn(summary) for fn in FINDINGS) if f is not None]
    return compose([
        header(config),
        findings_section(findings),
        f"Verdicts: \"≈ v\" agrees within ±{APPROX_AGREE * 100:g} % and partly within a factor of {APPROX_PARTLY:g}; "
        "\"> q\" agrees above q and "
        "partly within 10 points below; \"in 90 %\" agrees within ±5 points and partly within ±15; "
        "\"rarely\" agrees at ≤ 1 % and partly at ≤ 5 %.\n",
        paper_point_section(summary),
        asymmetry_section(summary),
        size_section(summary),
        unstated_section(config),
        timing_section(timing, TIMING_PHASES, commits=False),
    ])


# -------------------------------------------------------------------- figures
def _load_rows(out_dir: Path, config: dict) -> pd.DataFrame:
    store = ResultStore(out_dir, schema(), KEY_COLUMNS)
    return restrict(store.load(), cells(points_of(config), config["seed"]), KEY_COLUMNS)


def _cdf(ax: Any, values: np.ndarray, **style: Any) -> None:
    xs = np.sort(values)
    ax.step(np.r_[xs[:1], xs], np.r_[0.0, np.arange(1, xs.size + 1) / xs.size], where="post", **style)


def _paper_point(rows: pd.DataFrame) -> pd.DataFrame:
    n, p, s = PAPER_POINT
    return rows[(rows["n"] == n) & (rows["publishers"] == p) & (rows["subscribers"] == s)]


def _cdf_frame(ax: Any, xlabel: str, title: str, xmax: float) -> None:
    """The frame of a CDF panel: the cumulative fraction of samples, 0 to 1, against ``xlabel`` from 0 to ``xmax``."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel("cumulative fraction of samples")
    ax.set_title(title, fontsize=9)
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1.01)
    ax.grid(True, alpha=0.3)


def _cost_axis_end(rows: pd.DataFrame, tree: str) -> float:
    """Where a Cost axis ends: 10,000, or further to hold 97 % of All-S's samples."""
    return max(10_000, float(np.percentile(rows[column(tree, "all_s")], 97)))


def _mcm_ratio(rows: pd.DataFrame, tree: str, algorithm: str) -> np.ndarray:
    """MCM's Cost over ``algorithm``'s, sample by sample (1 where ``algorithm`` costs nothing)."""
    mcm = rows[column(tree, "mcm")].to_numpy(dtype=float)
    other = rows[column(tree, algorithm)].to_numpy(dtype=float)
    return np.where(other > 0, mcm / np.maximum(other, 1), 1.0)


def figure_7(rows: pd.DataFrame, out_dir: Path) -> list[Path]:
    fig, ax = pyplot().subplots(figsize=(6.4, 4.6))
    for a in ("all_p", "all_s", "mcm"):
        _cdf(ax, rows[column("shared", a)].to_numpy(), color=COLOURS[a], lw=1.6, label=TITLES[a])
    ax.plot([500, 3000], [0.5, 0.5], "kx", ms=8, label="paper: medians ≈ 500 (MCM), ≈ 3,000 (All-P, All-S)")
    ax.plot([800], [0.9], "k+", ms=10, label="paper: MCM 90th percentile ≈ 800")
    ax.axvline(5500, color="k", ls=":", lw=1, label="paper: All-P, All-S 90th percentiles > 5,500")
    _cdf_frame(ax, "Cost (CDs propagated)",
               f"Figure 7: Cost on shared trees ({len(rows)} samples, n = 100, |P| = |S| = 20)",
               _cost_axis_end(rows, "shared"))
    ax.legend(fontsize=7, loc="lower right")
    return finish_figure(fig, out_dir, "fig7_shared_costs")


def figure_8(rows: pd.DataFrame, out_dir: Path) -> list[Path]:
    fig, ax = pyplot().subplots(figsize=(6.4, 4.6))
    for a in ("all_p", "all_s", "tdm"):
        _cdf(ax, _mcm_ratio(rows, "per-source", a), color=COLOURS[a], lw=1.6, label=f"MCM / {TITLES[a]}")
    ax.plot([0.2], [0.5], "kx", ms=8, label="paper: > 50 % of samples below 0.2 (All-P, All-S)")
    ax.plot([1 / 3], [0.95], "k+", ms=10, label="paper: > 95 % of samples at or below 1/3")
    ax.plot([0.999], [0.1], "k^", ms=6, label="paper: MCM/TDM = 1 in 90 % of samples")
    _cdf_frame(ax, "Cost ratio", f"Figure 8: Cost ratios on per-source trees ({len(rows)} samples)", 1.02)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(0.4, 0.55))
    return finish_figure(fig, out_dir, "fig8_per_source_ratios")


def companions(rows: pd.DataFrame, out_dir: Path) -> list[Path]:
    """What the paper does not plot: Costs on per-source trees, ratios on shared trees."""
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(11, 4.4))
    for a in ALGORITHMS:
        _cdf(left, rows[column("per-source", a)].to_numpy(), color=COLOURS[a], lw=1.4,
             ls="--" if a == "tdm" else "-", label=TITLES[a])
    _cdf_frame(left, "Cost", "Cost on per-source trees", _cost_axis_end(rows, "per-source"))
    for a in ("all_p", "all_s"):
        _cdf(right, _mcm_ratio(rows, "shared", a), color=COLOURS[a], lw=1.4, label=f"MCM / {TITLES[a]}")
    _cdf_frame(right, "Cost ratio", "Cost ratios on shared trees (MCM = TDM there)", 1.02)
    for ax in (left, right):
        ax.legend(fontsize=7, loc="lower right")
    return finish_figure(fig, out_dir, "companions")


def asymmetry_figure(summary: pd.DataFrame, out_dir: Path) -> list[Path]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    base = summary[summary["n"] == 100]
    for ax, tree in zip(axes, TREES, strict=True):
        vary_s = base[(base["trees"] == tree) & (base["publishers"] == 20)].sort_values("subscribers")
        vary_p = base[(base["trees"] == tree) & (base["subscribers"] == 20)].sort_values("publishers")
        for a in ALGORITHMS:
            ax.plot(vary_s["subscribers"], vary_s[f"{a}_median"], "-o", ms=3.5, color=COLOURS[a],
                    label=f"{TITLES[a]}, |P| = 20, |S| varies")
            ax.plot(vary_p["publishers"], vary_p[f"{a}_median"], "--s", ms=3.5, color=COLOURS[a], mfc="none",
                    label=f"{TITLES[a]}, |S| = 20, |P| varies")
        ax.set_yscale("log")
        ax.set_xlabel("the varying |S| (solid) or |P| (dashed)")
        ax.set_title(f"{tree} trees, n = 100: median Cost", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("median Cost")
    axes[1].legend(fontsize=6.5, loc="lower right", ncol=2)
    return finish_figure(fig, out_dir, "asymmetry")


def size_figure(summary: pd.DataFrame, out_dir: Path) -> list[Path]:
    plt = pyplot()
    fig, (left, mid, right) = plt.subplots(1, 3, figsize=(14, 4.2))
    fixed = summary[(summary["publishers"] == 20) & (summary["subscribers"] == 20)]
    dense = summary[(summary["publishers"] == summary["n"] // 5) & (summary["subscribers"] == summary["n"] // 5)]
    for tree, ls in (("shared", "-"), ("per-source", "--")):
        f = fixed[fixed["trees"] == tree].sort_values("n")
        d = dense[dense["trees"] == tree].sort_values("n")
        for a in ALGORITHMS:
            left.plot(f["n"], f[f"{a}_median"], ls, marker="o", ms=3, color=COLOURS[a],
                      label=f"{TITLES[a]} ({tree})")
        mid.plot(f["n"], f["mcm_over_best_broadcast_median"], ls, marker="o", ms=3, color="#2e7d32",
                 label=f"|P| = |S| = 20 ({tree})")
        mid.plot(d["n"], d["mcm_over_best_broadcast_median"], ls, marker="s", ms=3, color="#8d6e63",
                 label=f"|P| = |S| = n/5 ({tree})")
        if tree == "per-source":
            right.plot(f["n"], 100 * f["share_tdm_optimal"], "--o", ms=3, color="#6a1b9a",
                       label="|P| = |S| = 20")
            right.plot(d["n"], 100 * d["share_tdm_optimal"], "--s", ms=3, color="#8d6e63",
                       label="|P| = |S| = n/5")
    left.set_yscale("log")
    left.set_title("median Cost, |P| = |S| = 20", fontsize=9)
    mid.set_title("median of MCM / min(All-P, All-S)", fontsize=9)
    right.set_title("per-source trees: samples where TDM is optimal (%)", fontsize=9)
    for ax in (left, mid, right):
        ax.set_xscale("log")
        ax.set_xlabel("network size n")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6.5)
    return finish_figure(fig, out_dir, "size")


def draw(summary: pd.DataFrame, out_dir: Path, config: dict, figures: str) -> list[Path]:
    """Figures 7 and 8 (PNG and SVG), their companions, and the two sweeps."""
    rows = _paper_point(_load_rows(Path(out_dir), config))
    paths: list[Path] = []
    if not rows.empty:
        paths += figure_7(rows, out_dir) + figure_8(rows, out_dir)
        if figures != "overview":
            paths += companions(rows, out_dir)
    if figures != "overview":
        if summary[summary["n"] == 100][["publishers", "subscribers"]].drop_duplicates().shape[0] > 1:
            paths += asymmetry_figure(summary, out_dir)
        if summary["n"].nunique() > 1:
            paths += size_figure(summary, out_dir)
    return paths


__all__: Sequence[str] = ("draw", "report", "summarise")
