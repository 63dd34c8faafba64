"""``cbalgebra study routing --design internet``: its cells and their costs,
the scaling fits (a known exponent recovered with an interval that covers it,
crossovers of known lines), the report's numbers against a recomputation
from the rows, and the design run end to end on local Spark (and on a
standalone cluster losing a worker, equal to the local run)."""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbalgebra.errors import UsageError
from cbalgebra.network.topology import topohub_networks
from cbalgebra.studies import jobs, routing, routing_internet
from cbalgebra.studies import routing_internet_report as outputs
from cbalgebra.studies.cli import add_study_command
from cbalgebra.studies.routing_internet import InternetGrid, cell_cost, internet_cells
from cbalgebra.studies.runner import Study
from cbalgebra.studies.scaling import crossover, fit_power_law

#: the smallest design through the command's own flags
ARGS = ("--design", "internet", "--quick", "--families", "power_law,gnp", "--real", "sndlib/abilene,gabriel/50/0",
        "--seed", "5")


def study_of(*args: str) -> Study:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="study_command")
    add_study_command(sub, routing.PLUGIN)
    return routing.PLUGIN.study_from_args(parser.parse_args(["routing", *args]))


# ---------------------------------------------------------------- the cells


def test_the_full_design_has_every_topohub_network_and_every_generated_size():
    study = study_of("--design", "internet")
    grid = InternetGrid()
    real = [c for c in study.cells if c["n"] == 0]
    assert sorted(c["topology"] for c in real) == sorted(f"topohub:{k}" for k, _, _ in topohub_networks())
    assert {c["topology"].split("/")[0] for c in real} == {"topohub:topozoo", "topohub:sndlib", "topohub:caida",
                                                          "topohub:backbone", "topohub:gabriel"}
    generated = {(c["topology"], c["n"]) for c in study.cells if c["n"]}
    expected = {(f, n) for f in grid.families for n in grid.ns}
    assert generated == expected and ("gnp", 100_000) in generated     # gnp's skip sampler is O(n + links)
    assert min(grid.ns) <= 1_000 and max(grid.ns) == 100_000 and routing_internet.INTERNET_N in grid.ns
    assert len(study.cells) == len(real) + len(expected)
    assert study.kind == "routing" and study.config["design"] == "internet"
    assert study.config["code_fingerprint"] == routing_internet.code_fingerprint()


def test_cells_are_each_network_and_replicate_once_and_costs_grow_with_n():
    grid = InternetGrid(families=("power_law", "gnp"), ns=(100, 1_000, 20_000), real=("topohub:sndlib/abilene",),
                        family_max=(("gnp", 1_000),), replicates=2)
    cells = internet_cells(grid, seed=7)
    keys = [(c["topology"], c["n"], c["replicate"]) for c in cells]
    assert len(keys) == len(set(keys)) == 2 * (3 + 2 + 1)
    assert all(c["seed"] == 7 and c["rse_target"] == grid.rse_target for c in cells)
    costs = {c["n"]: cell_cost(c) for c in cells if c["topology"] == "power_law"}
    assert 0 < costs[100] < costs[1_000] < costs[20_000]
    assert max(cells, key=cell_cost)["n"] == 20_000


def test_flags_of_the_other_designs_are_refused():
    with pytest.raises(UsageError, match="--ks"):
        study_of("--design", "internet", "--ks", "1")
    with pytest.raises(UsageError, match="--rse-target"):
        study_of("--rse-target", "0.05")
    with pytest.raises(UsageError, match="not a topohub network"):
        study_of("--design", "internet", "--real", "nowhere/at-all")


def test_the_counting_flags_reach_the_grid_and_only_this_design_takes_them():
    study = study_of("--design", "internet", "--families", "gnp", "--real", "", "--ips-max", "20000",
                     "--exact-max", "3000", "--pilot", "16", "--max-sample", "500", "--d-sources", "64",
                     "--rse-target", "0.02")
    policy = {"ips_max": 20_000, "exact_max": 3_000, "pilot": 16, "max_sample": 500, "d_sources": 64,
              "rse_target": 0.02}
    assert {k: study.config[k] for k in policy} == policy
    assert all({k: c[k] for k in policy} == policy for c in study.cells)
    assert routing.PLUGIN.study(study.config).cells == study.cells
    for flag in ("--ips-max", "--exact-max", "--pilot", "--max-sample", "--d-sources"):
        with pytest.raises(UsageError, match=f"{flag} applies to --design internet only"):
            study_of(flag, "10")


def test_a_manifest_of_the_design_rebuilds_the_same_study():
    study = study_of(*ARGS)
    again = routing.PLUGIN.study(study.config)
    assert again.cells == study.cells and again.schema == study.schema
    assert again.task is routing_internet.run_internet_cell


# ---------------------------------------------------------------- the fits


def test_the_fit_recovers_a_known_exponent_and_its_interval_covers_it():
    n = np.geomspace(1_000, 100_000, 8)
    covered = 0
    for seed in range(400):
        noise = np.random.default_rng(seed).normal(0.0, 0.05, len(n))
        law = fit_power_law(n, 3.0 * n ** 1.7 * np.exp(noise))
        assert law is not None and abs(law.exponent - 1.7) < 0.1
        covered += law.ci_low <= 1.7 <= law.ci_high
    # a 95 % interval: its coverage over 400 draws lies in [0.92, 0.98] with probability > 0.99
    assert 0.92 <= covered / 400 <= 0.98


@settings(max_examples=40, deadline=None)
@given(e=st.floats(0.2, 3.0), c=st.floats(0.01, 100.0))
def test_an_exact_power_law_is_fitted_exactly(e, c):
    n = np.array([1e3, 4e3, 2e4, 1e5])
    law = fit_power_law(n, c * n ** e)
    assert law is not None
    assert law.exponent == pytest.approx(e, abs=1e-9)
    assert law.at(5e4) == pytest.approx(c * 5e4 ** e, rel=1e-9)
    assert law.ci_high - law.ci_low == pytest.approx(0.0, abs=1e-6)


def test_crossover_of_known_lines():
    n = np.geomspace(10, 1e4, 5)
    steep, flat = fit_power_law(n, 1.0 * n ** 2), fit_power_law(n, 10.0 * n)
    assert steep is not None and flat is not None
    assert crossover(steep, flat) == pytest.approx(10.0)
    assert crossover(flat, flat) is None
    fitted = {("gnp", "psf"): steep, ("gnp", "drp"): flat}
    (found,) = outputs.crossovers(fitted)
    assert (found["overtakes"], found["overtaken"]) == ("psf", "drp")
    assert found["n"] == pytest.approx(10.0) and found["where"] == "within the sizes fitted"


# ---------------------------------------------------------------- the report


@pytest.fixture(scope="module")
def quick_rows():
    """The tiny design's rows, each cell computed in this process."""
    study = study_of(*ARGS)
    return study, pd.DataFrame([routing_internet.run_internet_cell(c) for c in study.cells])


def test_rows_agree_with_exact_counts_and_formulas(quick_rows):
    study, rows = quick_rows
    exact = rows[rows["n_actual"] <= study.config["exact_max"]]
    assert len(exact) and exact[[f"{s}_exact" for s in routing_internet.SCHEMES]].all().all()
    assert (exact["psf_total_se"] == 0).all()
    sampled = rows[rows["n_actual"] > study.config["exact_max"]]
    assert len(sampled) and (~sampled["psf_exact"]).all() and (sampled["psf_total_se"] > 0).all()
    # iPS is exact wherever it is counted (ips_exact): its n + s trees cost the same whatever the sample
    ips = sampled[sampled["n_actual"] <= study.config["ips_max"]]
    assert study.config["ips_exact"] and len(ips) and ips["ips_exact"].all() and (ips["ips_total_se"] == 0).all()
    assert (ips["ips_sampled"] == ips["ips_population"]).all()
    # DRP is exact at every size and is its formula (§3.4) term for term
    assert np.allclose(rows["drp_total_bits"], rows["drp_formula"])


def test_the_reports_numbers_equal_a_recomputation(quick_rows):
    study, rows = quick_rows
    config = study.config
    summary = outputs.summarise(rows, config)
    text = outputs.report(summary, rows, config, None)
    target = config["target_n"]
    for family in ("power_law", "gnp"):
        cell = rows[(rows["topology"] == family) & (rows["n"] == target)].iloc[0]
        totals = {s: cell[f"{s}_total_bits"] for s in routing_internet.SCHEMES}
        smallest = min(totals, key=lambda s: totals[s])
        assert f"**{family}**: smallest measured at n ≈ {target:,}: **{smallest}**" in text
        for s in routing_internet.SCHEMES:
            ratio = totals[s] / cell[{"psf": "psf_simple_formula", "ips": "ips_tree_formula",
                                      "pif": "pif_formula", "drp": "drp_formula"}[s]]
            assert outputs.ratio_text(ratio) in text
        grown = rows[(rows["topology"] == family) & (rows["n_actual"] >= config["fit_min_n"])]
        for s in routing_internet.SCHEMES:
            slope = np.polyfit(np.log(grown["n_actual"]), np.log(grown[f"{s}_total_bits"]), 1)[0]
            assert f"| {family} | {s} | {slope:.3f} |" in text


def test_the_headline_table_is_the_reports_numbers(quick_rows):
    study, rows = quick_rows
    summary = outputs.summarise(rows, study.config)
    table = outputs.headline_table(summary, study.config)
    law = outputs.fits(summary, study.config["fit_min_n"])["power_law", "pif"]
    assert f"| pif | {law.exponent:.2f} [{law.ci_low:.2f}, {law.ci_high:.2f}] |" in table


# ---------------------------------------------------------------- on Spark


def run_cli(out, *extra: str, master: str = "local[2]") -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "cbalgebra.cli", "study", "routing", "--out", str(out), "--master", master,
           *extra, *ARGS]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PYSPARK_PYTHON=sys.executable))


@pytest.mark.spark
@pytest.mark.slow
def test_the_design_runs_end_to_end_on_local_spark(tmp_path, quick_rows):
    from test_studies_spark import assert_same_results

    study, rows = quick_rows
    done = run_cli(tmp_path / "run", "--batch-size", "3")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "run"
    assert {p.suffix for p in out.iterdir() if p.stem.startswith("internet_")} == {".svg"}
    for stem in outputs.figure_stems(outputs.summarise(rows, study.config), study.config):
        assert (out / f"{stem}.svg").exists()
    results = jobs.load_results(study, out)
    rows = rows.astype({c: results[c].dtype for c in rows.columns})
    assert_same_results(results, rows[results.columns], list(study.key_columns), routing_internet.VOLATILE_COLUMNS)
    report = (out / "report.md").read_text()
    assert report == outputs.report(outputs.summarise(results, study.config), results, study.config,
                                    jobs.read_timing(out))
    assert not math.isnan(results["psf_total_bits"].sum())


@pytest.mark.spark
@pytest.mark.slow
def test_a_standalone_cluster_gives_the_same_numbers(cluster, tmp_path, quick_rows):
    from test_studies_spark import assert_same_results, run_losing_a_worker

    from cbalgebra.studies.spark import spark_session

    study, _ = quick_rows
    spark = spark_session("local[2]", app_name="cbalgebra-internet-tests")
    try:
        remote, local = run_losing_a_worker(spark, cluster, tmp_path, "routing", ARGS, study, 2, (400, 900))
    finally:
        spark.stop()
    assert_same_results(remote, local, list(study.key_columns), routing_internet.VOLATILE_COLUMNS)


# ---------------------------------------------------------------- the committed study


def test_the_readme_markers_are_filled_between_them():
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    from internet_headline import BEGIN, END, readme_with_table

    text = readme_with_table(f"a\n{BEGIN}\nold\n{END}\nb\n", "| new |")
    assert text == f"a\n{BEGIN}\n| new |\n{END}\nb\n"
    with pytest.raises(ValueError, match="markers"):
        readme_with_table("no markers", "| new |")


COMMITTED = Path(__file__).resolve().parent.parent / "studies" / "results" / "routing-internet"


def test_the_committed_cells_are_the_full_designs_and_recompute_exactly():
    """Every committed row is a cell of the full design (so that the full design run into the folder resumes
    it), and the cheapest committed cell, recomputed here, give the same numbers."""
    from test_studies_spark import assert_same_results

    from cbalgebra.studies.runner import ResultStore

    study = jobs.study_in(COMMITTED)
    assert study.config["design"] == "internet" and not study.config["quick"]
    full = study_of("--design", "internet")
    by_key = {full.key(c): c for c in full.cells}
    rows = ResultStore(COMMITTED, full.schema, full.key_columns).load()
    keys = [tuple(r) for r in rows[list(full.key_columns)].itertuples(index=False, name=None)]
    assert rows.shape[0] > 0 and all(k in by_key for k in keys)
    cheapest = rows.sort_values("cpu_seconds").head(1)
    again = pd.DataFrame([routing_internet.run_internet_cell(by_key[tuple(r)]) for r in
                          cheapest[list(full.key_columns)].itertuples(index=False, name=None)])
    again = again.astype({c: cheapest[c].dtype for c in again.columns})
    assert_same_results(cheapest.reset_index(drop=True), again[cheapest.columns], list(full.key_columns),
                        routing_internet.VOLATILE_COLUMNS)


def test_the_readme_headline_is_the_committed_studys():
    """The README's table is generated from studies/results/routing-internet (tools/internet_headline.py)."""
    tool = Path(__file__).resolve().parent.parent / "tools" / "internet_headline.py"
    done = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_the_committed_outputs_come_back_from_the_committed_rows():
    """summary.csv and report.md are what the outputs make of the committed rows; the figures are SVG only."""
    from cbalgebra.studies.summary import summary_csv

    study = jobs.study_in(COMMITTED)
    results = jobs.load_results(study, COMMITTED)
    assert len(results) == len(study.cells)
    summary = jobs.summarise(study, results)
    assert summary_csv(summary) == (COMMITTED / "summary.csv").read_text(encoding="utf-8")
    assert jobs.write_report(study, summary, results, jobs.read_timing(COMMITTED)) == \
        (COMMITTED / "report.md").read_text(encoding="utf-8")
    assert not list(COMMITTED.glob("*.png"))
    assert {p.stem for p in COMMITTED.glob("*.svg")} == set(outputs.figure_stems(summary, study.config))
