"""The report's findings, one function each, on small literal summaries (no Spark).

The findings are those of Carzaniga, Rembert & Wolf, "Understanding
Content-Based Routing Schemes" (TR 2006/05), §4.1 and §4.2.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from cbalgebra.studies import report, tables
from cbalgebra.studies.summary import DNF_SUMMARY_COLUMNS, GENERAL_SUMMARY_COLUMNS


def dnf_summary_frame(rows: dict[str, list[tuple]], reducer: str = "siena") -> pd.DataFrame:
    """rows: scenario -> [(n, min, p05, median, p95, max), ...]."""
    records = [
        {"scenario": sc, "reducer": reducer, "n": n, "sets": 30, "alpha_min": lo, "alpha_p05": p05,
         "alpha_median": med, "alpha_p95": p95, "alpha_max": hi}
        for sc, points in rows.items() for (n, lo, p05, med, p95, hi) in points
    ]
    return pd.DataFrame(records, columns=list(DNF_SUMMARY_COLUMNS))


def test_uniform_500_agrees_when_the_median_halves_near_7000():
    summary = dnf_summary_frame({"uniform-500": [
        (1000, 0.60, 0.70, 0.80, 0.90, 0.95),
        (5000, 0.45, 0.50, 0.60, 0.80, 0.85),
        (10000, 0.30, 0.35, 0.40, 0.70, 0.75),
    ]})
    layout = report.dnf_layout(summary)
    finding = report.uniform_500_halves_near_7000(summary, layout)
    # median: log-interpolated between 5,000 (0.6) and 10,000 (0.4): √(5,000 · 10,000) ≈ 7,071;
    # minimum: between 1,000 (0.6) and 5,000 (0.45), two thirds of the way in log n.
    assert finding.verdict == "**agree**"
    assert "median α ≤ 0.5 from n ≈ 7,071" in finding.ours
    assert f"minimum from ≈ {1000 * 5 ** (2 / 3):,.0f}" in finding.ours
    assert "95th percentile" not in finding.ours  # the 95th percentile never gets there


def test_uniform_500_disagrees_when_the_median_halves_early_and_is_undecided_on_a_short_grid():
    early = dnf_summary_frame({"uniform-500": [(100, .4, .5, .6, .7, .8), (1000, .2, .3, .4, .45, .5)]})
    finding = report.uniform_500_halves_near_7000(early, report.dnf_layout(early))
    assert finding.verdict == "**disagree**" and "≈ 316" in finding.ours
    short = dnf_summary_frame({"uniform-500": [(100, .6, .7, .8, .9, 1.0), (1000, .55, .6, .7, .8, .9)]})
    finding = report.uniform_500_halves_near_7000(short, report.dnf_layout(short))
    assert finding.verdict.startswith("**undecided**")
    assert finding.ours == "median α stays above 0.5 up to n = 1,000 (median 0.700 there)"
    absent = dnf_summary_frame({"zipf-500": [(100, .6, .7, .8, .9, 1.0)]})
    assert report.uniform_500_halves_near_7000(absent, report.dnf_layout(absent)) is None


def test_no_early_reduction_names_the_scenario_that_reduces_early():
    summary = dnf_summary_frame({
        "zipf-50": [(10, .5, .6, .7, .8, .9), (50, .2, .3, .4, .5, .6), (200, .1, .2, .3, .4, .5)],
        "uniform-50": [(10, .5, .6, .7, .8, .9), (50, .4, .5, .6, .7, .8), (200, .1, .2, .3, .4, .5)],
    })
    finding = report.no_early_reduction(summary, report.dnf_layout(summary))
    assert finding.verdict == "**disagree**"
    assert finding.ours == "zipf-50: 95th percentile ≤ 0.5 from n = 50"
    late = summary[summary["n"] >= 100]
    assert report.no_early_reduction(late, report.dnf_layout(late)).verdict == "not tested (no n < 100)"


def test_alpha_falls_and_settles():
    summary = dnf_summary_frame({"uniform-50": [
        (1, 1.0, 1.0, 1.0, 1.0, 1.0), (10, .5, .55, .8, .95, 1.0),
        (100, .4, .5, .6, .7, .8), (1000, .3, .34, .35, .36, .4),
    ]})
    layout = report.dnf_layout(summary)
    assert report.alpha_falls_with_n(summary, layout).verdict == "**agree**"
    settles = report.variability_settles(summary, layout)
    assert settles.verdict == "**agree**"  # widest band 0.40 at n = 10, 0.02 at the end
    assert "widest 0.40 at n = 10, 0.02 at n = 1,000" in settles.ours
    rising = summary.assign(alpha_median=[1.0, 0.5, 0.6, 0.35])
    finding = report.alpha_falls_with_n(rising, layout)
    assert finding.verdict == "**partly**" and "uniform-50: 1 rise(s) > 0.01" in finding.ours


def test_zipf_names_reduce_better_counts_points_with_n_at_least_10():
    summary = dnf_summary_frame({
        "zipf-500": [(1, 1, 1, 1.0, 1, 1), (10, 0, 0, 0.8, 1, 1), (100, 0, 0, 0.5, 1, 1), (1000, 0, 0, 0.3, 1, 1)],
        "uniform-500": [(1, 1, 1, 1.0, 1, 1), (10, 0, 0, 0.9, 1, 1), (100, 0, 0, 0.5, 1, 1), (1000, 0, 0, 0.2, 1, 1)],
    })
    finding = report.zipf_names_reduce_better(summary, report.dnf_layout(summary))
    assert finding.ours.startswith("zipf-500 median below uniform-500 at 1 of 3 points with n ≥ 10, "
                                   "equal at 1, above at n = 1000")
    assert finding.verdict == "**partly**"


def general_summary_frame(rows: list[tuple]) -> pd.DataFrame:
    """rows: (distribution, universe, n, k, alpha_mean, alpha_std, closed_form)."""
    records = [
        {"distribution": d, "universe": u, "n": n, "k": k, "ratio": n * k / u, "sets": 10,
         "alpha_mean": mean, "alpha_std": std, "closed_form": cf}
        for (d, u, n, k, mean, std, cf) in rows
    ]
    return pd.DataFrame(records, columns=list(GENERAL_SUMMARY_COLUMNS))


def expected(n: int, k: int, universe: int) -> float:
    return universe / (n * k) * (1 - (1 - k / universe) ** n)


@pytest.mark.parametrize("offset, verdict", [(0.001, "**agree** (every point within 0.01)"),
                                             (0.05, "**disagree**")])
def test_uniform_closed_form_verdict(offset, verdict):
    summary = general_summary_frame([
        ("uniform", 1000, n, 10, expected(n, 10, 1000) + (offset if n == 50 else 0.0), 0.01,
         expected(n, 10, 1000))
        for n in (1, 10, 50)
    ])
    finding = report.uniform_matches_closed_form(summary)
    assert finding.verdict == verdict
    assert f"max |mean α − E(α)| = {offset:.2e} over 3 points (at |M| = 1,000, n = 50, k = 10)" in finding.ours
    assert report.uniform_matches_closed_form(summary.iloc[0:0]) is None


def test_five_one_percent_predicates_and_zipf_beside_uniform():
    uniform = [("uniform", u, n, u // 100, expected(n, u // 100, u), 0.01, expected(n, u // 100, u))
               for u in (1000, 10000) for n in (1, 5)]
    zipf = [("zipf", u, n, u // 100, 1.0 if n == 1 else alpha, 0.01, math.nan)
            for u, alpha in ((1000, 0.52), (10000, 0.56)) for n in (1, 5)]
    summary = general_summary_frame(uniform + zipf)
    z = summary[summary["distribution"] == "zipf"]
    u = summary[summary["distribution"] == "uniform"]
    finding = report.five_one_percent_predicates_save_half(z)
    assert finding.ours == "α = 0.520–0.560, a saving of 46 % (mean over universes)"
    assert finding.verdict == "**agree**"
    assert report.five_one_percent_predicates_save_half(z.assign(alpha_mean=0.8)).verdict == "**disagree**"
    better = report.zipf_reduces_better(u, z)
    assert better.ours.startswith("Zipf mean below uniform at 2 of 2 points with n ≥ 2")
    assert better.verdict == "**agree**"


def test_report_is_its_sections_in_order():
    summary = dnf_summary_frame({"uniform-500": [(1, 1, 1, 1, 1, 1), (100, .4, .5, .6, .7, .8)]})
    text = report.dnf_report(summary, None, {"replicates": 30, "seed": 1}, None)
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == [
        "# α of random DNF predicates (Carzaniga, Rembert & Wolf 2006, §4.2, Figures 6 and 7)",
        "## Our numbers beside the paper's (reducer `siena`)",
        "### Where α reaches 0.5 (grid points from which the statistic stays ≤ 0.5)",
        "### α at key points, reducer `siena`",
        "## Why our numbers may differ from the paper's",
        "## Timing",
    ]
    assert "\n\n\n" not in text


# ---------------------------------------------------------------- the "≈ v" band (issue 24 §3)
@pytest.mark.parametrize("value, verdict", [
    (100, "agree"), (115, "agree"), (85, "agree"), (116, "partly"), (84, "partly"), (70, "partly"),
    (130, "partly"), (200, "partly"), (50, "partly"), (201, "disagree"), (49, "disagree"),
    (-100, "disagree"), (math.nan, "disagree"), (math.inf, "disagree"),
])
def test_about_v_agrees_within_fifteen_percent(value, verdict):
    assert tables.approx_verdict(value, 100) == verdict


@pytest.mark.parametrize("target", [3, 0.03, 75, 500, 3000])
def test_about_v_band_is_relative(target):
    assert tables.approx_verdict(target * 1.149, target) == "agree"
    assert tables.approx_verdict(target * 1.151, target) == "partly"
    assert tables.approx_verdict(target * 0.849, target) == "partly"
    assert tables.approx_verdict(target * 2.01, target) == "disagree"


def test_alpha_about_v_findings_use_the_shared_band():
    """Both "about v" findings of the α reports judge with ``approx_verdict``: a median halving point of
    9,500 (1.36 × 7,000) and a saving of 42 % (0.84 × 50 %) only partly agree."""
    summary = dnf_summary_frame({"uniform-500": [(9000, .45, .50, .55, .8, .85), (10000, .3, .35, .45, .7, .75)]})
    finding = report.uniform_500_halves_near_7000(summary, report.dnf_layout(summary))
    assert "n ≈ 9,4" in finding.ours and finding.verdict == "**partly**"
    zipf = general_summary_frame([("zipf", 1000, n, 10, 1.0 if n == 1 else 0.58, 0.01, math.nan) for n in (1, 5)])
    finding = report.five_one_percent_predicates_save_half(zipf)
    assert "a saving of 42 %" in finding.ours and finding.verdict == "**partly**"
