"""The studies on Spark: partitioning independence, atomic resumable output,
interruption, local[1] vs local[2], a real standalone cluster losing a worker.

One local[2] session is shared by the in-process tests; the CLI and cluster
tests run in subprocesses.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from cbalgebra.studies import alpha, general, jobs
from cbalgebra.studies.runner import ResultStore, StudyError, run_study
from cbalgebra.studies.spark import spark_session
from cbalgebra.studies.summary import DNF_SUMMARY_COLUMNS, GENERAL_SUMMARY_COLUMNS

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def spark():
    session = spark_session("local[2]", app_name="cbalgebra-studies-tests")
    yield session
    session.stop()


def small_general(**kw) -> jobs.Study:
    args = {"universes": (10_000,), "points": 5, "replicates": 3, "seed": 11}
    args.update(kw)
    return alpha.general_study(**args)


def stable(frame: pd.DataFrame, keys, volatile=alpha.VOLATILE_COLUMNS) -> pd.DataFrame:
    """The columns that do not depend on where or when a cell ran (not in ``volatile``), in key order."""
    cols = [c for c in frame.columns if c not in volatile]
    return frame[cols].sort_values(list(keys)).reset_index(drop=True)


def assert_same_results(a: pd.DataFrame, b: pd.DataFrame, keys, volatile=alpha.VOLATILE_COLUMNS) -> None:
    """The same rows, exactly, but for the ``volatile`` columns."""
    assert len(a) == len(b)
    pd.testing.assert_frame_equal(stable(a, keys, volatile), stable(b, keys, volatile), check_exact=True)


def no_session():
    raise AssertionError("no Spark session should be needed: every cell is done")


# ---------------------------------------------------------------- in process


def test_results_do_not_depend_on_partitioning(spark, tmp_path):
    study = small_general(points=6, replicates=2)
    jobs.execute(study, tmp_path / "a", session=spark, batch_size=3, progress=False)
    jobs.execute(study, tmp_path / "b", session=spark, batch_size=7, jobs_in_flight=1, progress=False)
    a = jobs.load_results(study, tmp_path / "a")
    b = jobs.load_results(study, tmp_path / "b")
    assert len(a) == len(study.cells)
    assert_same_results(a, b, study.key_columns)
    # ... and equal to the pure function run in this process, no Spark at all.
    pure = pd.DataFrame([general.run_general_cell(c) for c in study.cells])
    pure = pure.astype({c: a[c].dtype for c in pure.columns})
    assert_same_results(a, pure[a.columns], study.key_columns)
    # Two Python workers really shared the work.
    assert a["pid"].nunique() >= 1


def test_general_outputs(spark, tmp_path):
    study = small_general(points=6, replicates=4)
    outputs = jobs.execute(study, tmp_path, session=spark, progress=False)
    summary = pd.read_csv(outputs["summary"])
    assert tuple(summary.columns) == GENERAL_SUMMARY_COLUMNS
    assert (summary["sets"] == 4).all()
    uniform = summary[summary["distribution"] == "uniform"]
    zipf = summary[summary["distribution"] == "zipf"]
    assert zipf["closed_form"].isna().all()
    # Within 0.01, or within sampling noise for the noisiest points of a 4-set test.
    tolerance = (4 * uniform["alpha_std"] / 2).clip(lower=0.01)
    assert ((uniform["alpha_mean"] - uniform["closed_form"]).abs() <= tolerance).all()
    assert len(summary) == len({(p.distribution, p.universe, p.n, p.k) for p in
                                general.general_grid((10_000,), 6)})
    assert (tmp_path / "fig5_general.svg").stat().st_size > 1000 and not list(tmp_path.glob("*.png"))
    report = (tmp_path / "report.md").read_text()
    assert "five predicates" in report.lower() and "closed form" in report.lower()
    results = pd.read_parquet(tmp_path / "results.parquet")
    assert len(results) == len(study.cells)
    assert (tmp_path / "results.parquet").is_file() and not (tmp_path / "results.parts").exists()


def test_rerun_skips_finished_cells(spark, tmp_path):
    study = small_general()
    first = run_study(study, tmp_path, session=spark, progress=False)
    assert first.cells_run == len(study.cells)
    before = ResultStore(tmp_path, study.schema, study.key_columns).load()
    again = run_study(study, tmp_path, session_factory=no_session, progress=False)
    assert again.cells_run == 0 and again.cells_skipped == len(study.cells) and again.completed
    # A bigger study reuses the finished cells and runs only the new ones.
    bigger = small_general(replicates=5)
    third = run_study(bigger, tmp_path, session=spark, progress=False)
    assert third.cells_skipped == len(study.cells)
    assert third.cells_run == len(bigger.cells) - len(study.cells)
    after = ResultStore(tmp_path, study.schema, study.key_columns).load()
    old = after.merge(before[list(study.key_columns)], on=list(study.key_columns))
    # The old rows are the very same rows (same pid, same timings): not recomputed.
    pd.testing.assert_frame_equal(
        old.sort_values(list(study.key_columns)).reset_index(drop=True),
        before.sort_values(list(study.key_columns)).reset_index(drop=True),
    )


def test_output_of_another_study_is_refused(spark, tmp_path):
    run_study(small_general(points=2, replicates=1), tmp_path, session=spark, progress=False)
    other = alpha.dnf_study(max_n=5, points=2, replicates=1)
    with pytest.raises(StudyError, match="alpha-general"):
        run_study(other, tmp_path, session_factory=no_session, progress=False)


def test_dnf_study(spark, tmp_path):
    study = alpha.dnf_study(max_n=60, points=4, replicates=4, reducers=("siena", "merge"), seed=5)
    outputs = jobs.execute(study, tmp_path / "a", session=spark, progress=False)
    jobs.execute(study, tmp_path / "b", session=spark, batch_size=3, jobs_in_flight=1, progress=False)
    a = jobs.load_results(study, tmp_path / "a")
    b = jobs.load_results(study, tmp_path / "b")
    assert_same_results(a, b, study.key_columns)
    # Every reducer saw the same predicate sets.
    by_reducer = a.pivot_table(index=["scenario", "n", "replicate"], columns="reducer", values="size")
    assert (by_reducer["siena"] == by_reducer["merge"]).all()
    # 0 is possible: a lone unsatisfiable conjunction (x = 3 ∧ x = 5) reduces to nothing.
    assert ((a["alpha"] >= 0) & (a["alpha"] <= 1)).all()
    assert (a[a["n"] == 1]["alpha"] <= 1).all()
    summary = pd.read_csv(outputs["summary"])
    assert tuple(summary.columns) == DNF_SUMMARY_COLUMNS
    assert set(summary["scenario"]) == {"zipf-500", "zipf-5000", "uniform-50", "uniform-500"}
    assert (summary["sets"] == 4).all()
    ordered = summary[["alpha_min", "alpha_p05", "alpha_median", "alpha_p95", "alpha_max"]].to_numpy()
    assert (ordered[:, :-1] <= ordered[:, 1:] + 1e-12).all()
    for stem in ("fig6_zipf", "fig7_uniform", "alpha_dnf"):
        assert (tmp_path / "a" / f"{stem}.svg").exists() and not (tmp_path / "a" / f"{stem}.png").exists()
    assert "7,000" in (tmp_path / "a" / "report.md").read_text()


# ---------------------------------------------------------------- subprocesses


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    return subprocess.run([sys.executable, "-m", "cbalgebra.cli", *args], capture_output=True, text=True,
                          env=env, timeout=kw.pop("timeout", 300), **kw)


@pytest.mark.parametrize("args,message", [
    (["--master", "bogus"], "bad master"),
    (["--universes", "ten"], "--universes"),
    (["--points", "0"], "--points"),
    (["--distributions", "pareto"], "pareto"),
    (["--min-ratio", "5", "--max-ratio", "1"], "--min-ratio"),
])
def test_bad_arguments_exit_2_with_one_line(args, message, tmp_path):
    done = cli("study", "alpha-general", "--out", str(tmp_path), *args, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_bad_dnf_arguments_exit_2(tmp_path):
    for args in (["--scenarios", "zipf-7"], ["--reducers", "nope"], ["--max-n", "-3"],
                 ["--min-n", "50", "--max-n", "10"]):
        done = cli("study", "alpha-dnf", "--out", str(tmp_path), *args, timeout=60)
        assert done.returncode == 2, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


GENERAL_ARGS = ("--universes", "1000000", "--distributions", "zipf", "--points", "5",
                "--replicates", "10", "--no-zoom", "--seed", "17")


def general_args_study() -> jobs.Study:
    return alpha.general_study(universes=(1_000_000,), distributions=("zipf",), points=5,
                              replicates=10, zoom=False, seed=17)


def wait_for_parts(path: Path, count: int, proc: subprocess.Popen, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the study ended before being interrupted:\n{proc.stderr.read()}")
        parts = [p for p in path.glob("*.parquet") if not p.name.startswith(".")] if path.is_dir() else []
        if len(parts) >= count:
            return len(parts)
        time.sleep(0.1)
    raise AssertionError("no batch was committed in time")


def kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.mark.slow
def test_interrupted_run_resumes_without_loss(spark, tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    cmd = [sys.executable, "-m", "cbalgebra.cli", "study", "alpha-general", "--out", str(out),
           "--master", "local[2]", "--batch-size", "2", *GENERAL_ARGS]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        wait_for_parts(out / "results.parts", 2, proc, timeout=180)
    finally:
        kill_group(proc)  # SIGKILL: no chance to clean up
    study = general_args_study()
    store = ResultStore(out, study.schema, study.key_columns)
    committed = store.load()
    assert 0 < len(committed) < len(study.cells), "the kill must land mid-study"

    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert runs[-1]["cells_skipped"] == len(committed)
    assert runs[-1]["cells_run"] == len(study.cells) - len(committed)
    final = jobs.load_results(study, out)
    # Nothing finished before the kill was recomputed (same pid and timings) or lost.
    kept = final.merge(committed[list(study.key_columns)], on=list(study.key_columns))
    pd.testing.assert_frame_equal(kept.sort_values(list(study.key_columns)).reset_index(drop=True),
                                  committed.sort_values(list(study.key_columns)).reset_index(drop=True))
    # The final results equal those of an uninterrupted run.
    jobs.execute(study, tmp_path / "straight", session=spark, progress=False)
    assert_same_results(final, jobs.load_results(study, tmp_path / "straight"), study.key_columns)
    assert (out / "summary.csv").exists() and (out / "report.md").exists()


@pytest.mark.slow
def test_local1_equals_local2(spark, tmp_path):
    study = small_general(points=6)
    args = ("--universes", "10000", "--points", "6", "--replicates", "3", "--seed", "11")
    done = cli("study", "alpha-general", "--out", str(tmp_path / "one"), "--master", "local[1]",
               "--batch-size", "5", *args)
    assert done.returncode == 0, done.stderr
    assert "cells" in done.stderr and "ETA" in done.stderr  # progress on stderr
    jobs.execute(study, tmp_path / "two", session=spark, progress=False)
    assert_same_results(jobs.load_results(study, tmp_path / "one"),
                        jobs.load_results(study, tmp_path / "two"), study.key_columns)
    timing = json.loads((tmp_path / "one" / "timing.json").read_text())
    assert timing["master"] == "local[1]" and timing["slots"] == 1


# ---------------------------------------------------------------- standalone cluster


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


class Cluster:
    def __init__(self, tmp: Path):
        import pyspark  # seconds to import: only for the standalone-cluster test

        self.home = Path(pyspark.__file__).resolve().parent
        self.spark_class = self.home / "bin" / "spark-class"
        self.tmp = tmp
        self.procs: list[subprocess.Popen] = []
        self.env = dict(os.environ, SPARK_HOME=str(self.home), PYSPARK_PYTHON=sys.executable,
                        SPARK_LOCAL_IP="127.0.0.1", SPARK_NO_DAEMONIZE="1")
        self.port, self.ui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.workers: list[subprocess.Popen] = []

    def _start(self, name: str, *args: str) -> subprocess.Popen:
        # The Spark process writes its log here for as long as it runs, past this method.
        log = open(self.tmp / f"{name}.log", "w")  # noqa: SIM115 - outlives this block, as said above
        proc = subprocess.Popen([str(self.spark_class), *args], env=self.env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def alive_workers(self) -> int:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ui}/json/", timeout=2) as r:
            state = json.load(r)
        return sum(1 for w in state.get("workers", []) if w.get("state") == "ALIVE")

    def start(self) -> None:
        self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                    "--port", str(self.port), "--webui-port", str(self.ui))
        # Both the master's ports must be bound before the workers pick theirs: free_port() could
        # otherwise hand a worker the master's web UI port, and /json/ would then be a worker's page.
        for port in (self.port, self.ui):
            wait_for(lambda port=port: socket.create_connection(("127.0.0.1", port), timeout=1).close() or True,
                     90, "the master")
        for i in range(2):
            work = self.tmp / f"work{i}"
            work.mkdir()
            self.workers.append(self._start(
                f"worker{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                "--port", str(free_port()), "--webui-port", str(free_port()), "--cores", "1",
                "--memory", "1g", "--work-dir", str(work), self.url))
        wait_for(lambda: self.alive_workers() == 2, 90, "two workers")

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=15)


def run_losing_a_worker(spark, cluster, tmp_path: Path, name: str, args, study: jobs.Study, batch_size: int,
                        timeouts: tuple[float, float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run ``cbalgebra study NAME ARGS`` on the two-worker standalone cluster, kill one worker (and its
    executor) once the first batch is committed, and check that the run still finishes every cell; the
    cluster's rows and those of the same study run on the local ``spark``. ``timeouts``: seconds for the
    first batch and for the rest of the run."""
    out = tmp_path / "cluster-run"
    cmd = [sys.executable, "-m", "cbalgebra.cli", "study", name, "--out", str(out), "--master", cluster.url,
           "--batch-size", str(batch_size), "--conf", "spark.executor.memory=512m", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cluster.env,
                            start_new_session=True)
    try:
        wait_for_parts(out / "results.parts", 1, proc, timeout=timeouts[0])
        at_kill = len(ResultStore(out, study.schema, study.key_columns).load())
        os.killpg(cluster.workers[0].pid, signal.SIGKILL)
        cluster.workers[0].wait(timeout=30)
        _, stderr = proc.communicate(timeout=timeouts[1])
    finally:
        if proc.poll() is None:
            kill_group(proc)
    assert proc.returncode == 0, stderr
    assert at_kill < len(study.cells), "the worker must be lost mid-job"
    assert json.loads((out / "timing.json").read_text())["master"] == cluster.url
    remote = jobs.load_results(study, out)
    assert len(remote) == len(study.cells)
    jobs.execute(study, tmp_path / "local", session=spark, progress=False)
    return remote, jobs.load_results(study, tmp_path / "local")


@pytest.mark.slow
def test_standalone_cluster_survives_a_lost_worker(spark, cluster, tmp_path):
    study = general_args_study()
    remote, local = run_losing_a_worker(spark, cluster, tmp_path, "alpha-general", GENERAL_ARGS, study, 2,
                                        (240, 400))
    assert_same_results(remote, local, study.key_columns)


def test_dnf_study_with_minimal_runs_and_resumes_on_spark(spark, tmp_path):
    """``minimal`` cells run on the Spark runner like the others, record their certificate, and a rerun
    skips them; the outputs gain the optimum series and the finding."""
    study = alpha.dnf_study(scenarios=("zipf-500", "uniform-50"), max_n=8, points=3, replicates=2,
                            reducers=("siena", "minimal"), budget=5.0, seed=3)
    outputs = jobs.execute(study, tmp_path, session=spark, progress=False)
    results = jobs.load_results(study, tmp_path)
    minimal = results[results["reducer"] == "minimal"]
    assert len(minimal) == len(study.cells) // 2
    assert minimal["proven"].notna().all() and (minimal["alpha_lower"] <= minimal["alpha"]).all()
    assert results[results["reducer"] == "siena"]["proven"].isna().all()
    again = run_study(study, tmp_path, session_factory=no_session, progress=False)
    assert again.cells_run == 0 and again.cells_skipped == len(study.cells)
    assert "Beyond the paper: the optimum α" in outputs["report"].read_text()
    assert 'id="alpha-optimum-proven-zipf-500"' in (tmp_path / "fig6_zipf.svg").read_text()
