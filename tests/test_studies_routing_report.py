"""The routing study's report (issue 24 §2 and §4): the PIF formula finding
judged against the sum of the paper's own per-processor terms, and the
measured/formula figure's axes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cbalgebra.studies import routing_report

FAMILIES = ("tree", "power_law", "transit_stub", "gnp")


def growth_frame(printed_exponent: float = -1.0, summed_exponent: float = 0.0) -> pd.DataFrame:
    rows = []
    for fam in FAMILIES:
        for n in (20, 100, 500, 1000):
            rows.append({"topology": fam, "n_actual": n, "delta": 8, "ratio_pif": 0.6 * (n / 20) ** printed_exponent,
                         "ratio_pif_summed": 0.6 * (n / 20) ** summed_exponent, "ratio_drp": 1 + 2e-16 * (n % 3 - 1)})
    rows.append({"topology": "topohub:sndlib/ta2", "n_actual": 65, "delta": 10, "ratio_pif": 0.01,
                 "ratio_pif_summed": 0.7, "ratio_drp": 1.0})
    return pd.DataFrame(rows)


def plain_results(share: float = 1.0) -> pd.DataFrame:
    return pd.DataFrame({"reducer": ["none", "none", "merge"], "pif_one_row_share": [1.0, share, np.nan]})


def test_the_pif_finding_calls_the_printed_total_a_bound_loose_by_a_factor_n():
    finding = routing_report.pif_formula_factor(growth_frame(), plain_results())
    assert finding.verdict == "printed bound loose by a factor n"
    assert "n(s Δ log n + r M_p α)" in finding.ours and "one more factor n" in finding.ours
    assert "exactly one F*_u(w)" in finding.ours and "true of every (u, x) pair in all 2 cells" in finding.ours
    assert "at most r predicates per link" not in finding.ours
    assert "families 0.60–0.60" in finding.ours


def test_the_pif_finding_is_partly_where_the_summed_ratio_is_not_flat_or_one_row_fails():
    drifting = routing_report.pif_formula_factor(growth_frame(summed_exponent=0.5), plain_results())
    assert drifting.verdict == "partly"
    finding = routing_report.pif_formula_factor(growth_frame(), plain_results(share=0.9))
    assert "true of every pair in 1 of 2 cells without a reducer; the least share of pairs 90.0 %" in finding.ours


def test_ratio_axes_hold_at_least_half_to_double():
    assert routing_report.ratio_axis_limits([1 - 2e-16, 1.0, 1 + 2e-16]) == (0.5, 2.0)
    low, high = routing_report.ratio_axis_limits([0.001, 0.04, float("nan")])
    assert np.isclose(low, 0.001 / 1.5) and high == 2.0


def test_the_drp_panel_draws_rounding_noise_flat(monkeypatch, tmp_path):
    """DRP's ratio is 1 ± 2e-16: its log axis must not autoscale around the noise."""
    figures = {}

    def keep(fig, out_dir, stem):
        figures[stem] = fig
        return []

    monkeypatch.setattr(routing_report, "save_figure", keep)
    summary = growth_frame().assign(
        r_frac=0.5, s_frac=0.5, k=10, scenario="zipf-500", reducer="none", designs="growth",
        ips_classes_mean=2.0, ips_classes_all_mean=3.0, optimum_exact=1, deliveries=1, optimum_size_mean=3.0,
        **{f"{s}_{c}": 1.0 for s in routing_report.SCHEMES for c in ("total_bits", "packets")},
        **{c: 1.0 for c in routing_report.RATIOS if c not in ("ratio_pif", "ratio_pif_summed", "ratio_drp")})
    config = {"base_r": 0.5, "base_s": 0.5, "base_k": 10, "base_scenario": "zipf-500", "base_reducer": "none"}
    routing_report.draw(summary, tmp_path, config)
    axes = figures["formula_ratios"].axes
    titles = [ax.get_title() for ax in axes]
    drp = next(ax for ax, title in zip(axes, titles, strict=True) if title.startswith("drp"))
    low, high = drp.get_ylim()
    assert low <= 0.5 and high >= 2.0, (low, high)
    assert "pif, its terms summed (§3.3)" in titles


def test_the_report_names_the_pif_union_and_its_measured_effect():
    results = pd.DataFrame({"reducer": ["none", "none", "none", "merge"], "s_frac": [0.5, 0.5, 1.0, 0.5],
                            "pif_processors_constraints": [150, 160, 90, 99],
                            "pif_senders_constraints": [100, 100, 90, 1],
                            "topology": ["tree"] * 4})
    text = routing_report.pif_union_effect(results)
    assert text is not None and "s/n = 0.5: 1.50–1.60×; s/n = 1: 1.00–1.00×" in text
    config = {"design": "oat", "base_r": 0.5, "base_s": 0.5, "base_k": 10, "base_scenario": "zipf-500",
              "base_reducer": "none", "base_n": 100, "replicates": 2}
    for union, words in (("processors", "over every processor v ∈ V, as §3.3 defines it"),
                         ("senders", "over the senders only (the option `--pif-union senders`")):
        assert words in routing_report.header_section(results, {**config, "pif_union": union})


def test_a_sweep_too_short_to_fit_is_not_judged_and_prints_no_empty_field():
    """Issue 24 §3: a quick run (two sizes per family) cannot test a claim about
    growth in n; its report says so instead of judging it 'partly' or printing
    'PSF , DRP ' and '± –'."""
    rows = [{"topology": fam, "n_actual": n, "delta": 4, "d": 2.0, "ratio_pif": 0.5, "ratio_pif_summed": 0.9,
             "ratio_ips_tree": 1.0, "ips_id_bits": 0, "s": 1, "id_bits_per_id": 5,
             **{f"{s}_total_bits": 1000.0 * n for s in routing_report.SCHEMES}}
            for fam in FAMILIES for n in (16, 20)]
    growth = pd.DataFrame(rows)
    findings = [routing_report.ips_tree(growth), routing_report.pif_formula_factor(growth, plain_results()),
                routing_report.chung_lu_distance(growth)]
    exponents, section = routing_report.growth_exponents(growth, {"base_r": 0.5, "base_s": 0.5})
    for finding in [*findings, exponents]:
        assert finding.verdict == "not tested at this size", finding
        assert "± –" not in finding.ours and " , " not in finding.ours and "PSF  " not in finding.ours
    assert "|---|" not in section and "Too few sizes" in section
