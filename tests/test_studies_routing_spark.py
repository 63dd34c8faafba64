"""``cbalgebra study routing`` on Spark: a quick run through the command
(outputs, progress), an interrupted run that resumes without loss, local[1]
against local[2], and a standalone cluster losing a worker mid-job whose
results equal a local run. The cluster helpers are those of the α studies'
tests (tests/test_studies_spark.py)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from test_studies_spark import assert_same_results, kill_group, run_losing_a_worker, wait_for_parts

from cbalgebra.studies import jobs, routing
from cbalgebra.studies.cli import add_study_command
from cbalgebra.studies.runner import ResultStore, Study

pytestmark = pytest.mark.spark

#: a small grid through the command's own flags: 2 families, 2 sizes, every sweep
ARGS = ("--quick", "--families", "tree,power_law", "--ns", "10,14", "--real", "", "--r-fracs", "0.5,1",
        "--s-fracs", "1", "--ks", "1", "--scenarios", "zipf-500", "--reducers", "none,siena", "--base-n", "10",
        "--sources", "2", "--messages", "1", "--seed", "5")


def study_of(args: tuple[str, ...] = ARGS) -> Study:
    """The Study the command builds from ``args``."""
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="study_command")
    add_study_command(sub, routing.PLUGIN)
    return routing.PLUGIN.study_from_args(parser.parse_args(["routing", *args]))


def run_cli(out: Path, *extra: str, master: str = "local[2]", timeout: float = 600,
            env: dict | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "cbalgebra.cli", "study", "routing", "--out", str(out), "--master", master,
           *extra, *ARGS]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=env or dict(os.environ, PYSPARK_PYTHON=sys.executable))


@pytest.fixture(scope="module")
def spark():
    from cbalgebra.studies.spark import spark_session

    session = spark_session("local[2]", app_name="cbalgebra-routing-tests")
    yield session
    session.stop()


def test_study_grid_from_flags():
    study = study_of()
    tops = {c["topology"] for c in study.cells}
    assert tops == {"tree", "power_law"}
    assert {c["reducer"] for c in study.cells} == {"none", "siena"}
    assert study.config["code_fingerprint"] and study.kind == "routing"


@pytest.mark.slow
def test_quick_run_outputs_and_equals_the_pure_cells(spark, tmp_path):
    study = study_of()
    outputs = jobs.execute(study, tmp_path / "run", session=spark, batch_size=3, progress=False)
    for name in ("results", "summary", "report"):
        assert outputs[name].exists()
    for stem in ("memory_vs_n", "formula_ratios", "ips_classes", "traffic", "winner_map", "alpha_tables"):
        assert (tmp_path / "run" / f"{stem}.svg").exists() and not (tmp_path / "run" / f"{stem}.png").exists()
    report = (tmp_path / "run" / "report.md").read_text()
    assert "| paper | ours | verdict |" in report and "agree" in report
    results = jobs.load_results(study, tmp_path / "run")
    assert len(results) == len(study.cells)
    plain = results[results["reducer"] == "none"]
    assert len(plain) and (plain["psf_total_bits"] == plain["psf_exact_formula"]).all()
    reduced = results[results["reducer"] != "none"]
    assert len(reduced) and (reduced["psf_alpha"] <= 1).all()
    pure = pd.DataFrame([routing.run_routing_cell(c) for c in study.cells[:4]])
    pure = pure.astype({c: results[c].dtype for c in pure.columns})
    keys = list(study.key_columns)
    assert_same_results(results.merge(pure[keys], on=keys)[results.columns], pure[results.columns], keys,
                        routing.VOLATILE_COLUMNS)


@pytest.mark.slow
def test_interrupted_run_resumes_without_loss(spark, tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    cmd = [sys.executable, "-m", "cbalgebra.cli", "study", "routing", "--out", str(out), "--master", "local[2]",
           "--batch-size", "1", *ARGS]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        wait_for_parts(out / "results.parts", 2, proc, timeout=400)
    finally:
        kill_group(proc)
    study = study_of()
    committed = ResultStore(out, study.schema, study.key_columns).load()
    assert 0 < len(committed) < len(study.cells), "the kill must land mid-study"
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert runs[-1]["cells_skipped"] == len(committed)
    final = jobs.load_results(study, out)
    keys = list(study.key_columns)
    kept = final.merge(committed[keys], on=keys)
    pd.testing.assert_frame_equal(kept.sort_values(keys).reset_index(drop=True),
                                  committed.sort_values(keys).reset_index(drop=True))
    jobs.execute(study, tmp_path / "straight", session=spark, progress=False)
    assert_same_results(final, jobs.load_results(study, tmp_path / "straight"), keys, routing.VOLATILE_COLUMNS)


@pytest.mark.slow
def test_local1_equals_local2(spark, tmp_path):
    study = study_of()
    done = run_cli(tmp_path / "one", "--batch-size", "4", master="local[1]")
    assert done.returncode == 0, done.stderr
    assert "cells" in done.stderr and "ETA" in done.stderr
    jobs.execute(study, tmp_path / "two", session=spark, progress=False)
    assert_same_results(jobs.load_results(study, tmp_path / "one"), jobs.load_results(study, tmp_path / "two"),
                        study.key_columns, routing.VOLATILE_COLUMNS)
    timing = json.loads((tmp_path / "one" / "timing.json").read_text())
    assert timing["master"] == "local[1]" and timing["slots"] == 1


@pytest.mark.slow
def test_standalone_cluster_survives_a_lost_worker(spark, cluster, tmp_path):
    study = study_of()
    remote, local = run_losing_a_worker(spark, cluster, tmp_path, "routing", ARGS, study, 1, (400, 900))
    assert_same_results(remote, local, study.key_columns, routing.VOLATILE_COLUMNS)
