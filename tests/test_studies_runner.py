"""The study runner's pieces that need no Spark: store, manifest, batches, progress, summaries."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from cbalgebra.studies import alpha, dnf, jobs
from cbalgebra.studies.general import run_general_cell
from cbalgebra.studies.runner import (
    Progress,
    ResultStore,
    RunStats,
    StudyError,
    _batches,
    check_manifest,
    close_stats,
    pending_cells,
    plan_run,
    record_batch,
    run_study,
    write_manifest,
)
from cbalgebra.studies.summary import DNF_SUMMARY_COLUMNS, dnf_summary, summary_csv

SCHEMA = pa.schema([("key", pa.string()), ("r", pa.int64()), ("alpha", pa.float64())])


def rows(*pairs):
    return [{"key": k, "r": r, "alpha": a} for k, r, a in pairs]


def test_store_commits_atomically_and_ignores_temporary_files(tmp_path):
    store = ResultStore(tmp_path, SCHEMA, ("key", "r"))
    assert store.load().empty
    store.commit(rows(("a", 0, 0.5), ("a", 1, 0.25)))
    # A crash mid-write leaves only a hidden temporary file: never read.
    (tmp_path / "results.parts" / ".part-x.parquet.123.tmp").write_bytes(b"half a file")
    store.commit(rows(("b", 0, 1.0)))
    frame = store.load()
    assert sorted(frame["key"]) == ["a", "a", "b"]
    assert store.done_keys() == {("a", 0), ("a", 1), ("b", 0)}
    # pandas reads the batches directly too.
    assert len(pd.read_parquet(tmp_path / "results.parts")) == 3


def test_compaction_leaves_one_file_with_a_fixed_name(tmp_path):
    """Issue 28 item 7: a finished study's raw results are one file, not timestamped parts,
    and a later run that adds cells rewrites that same file."""
    store = ResultStore(tmp_path, SCHEMA, ("key", "r"))
    store.commit(rows(("b", 1, 0.75)))
    store.commit(rows(("a", 0, 0.5)))
    store.compact()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.parquet"]
    assert pd.read_parquet(tmp_path / "results.parquet")["key"].tolist() == ["a", "b"]  # sorted by key
    store.commit(rows(("c", 2, 0.125)))
    assert store.done_keys() == {("a", 0), ("b", 1), ("c", 2)}  # the file and the new part together
    store.compact()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.parquet"]
    assert len(pd.read_parquet(tmp_path / "results.parquet")) == 3


def test_a_legacy_results_folder_is_read_and_compacted_into_one_file(tmp_path):
    """Studies committed before item 7 keep their batches in a ``results.parquet/`` folder."""
    legacy = tmp_path / "results.parquet"
    legacy.mkdir()
    pd.DataFrame(rows(("a", 0, 0.5), ("b", 1, 0.75))).to_parquet(legacy / "part-20260101T000000-all-x.parquet")
    (legacy / ".part-y.parquet.9.tmp").write_bytes(b"half a file")
    store = ResultStore(tmp_path, SCHEMA, ("key", "r"))
    assert store.done_keys() == {("a", 0), ("b", 1)}
    store.commit(rows(("c", 2, 0.125)))
    store.compact()
    assert legacy.is_file() and not (tmp_path / "results.parts").exists()
    assert sorted(pd.read_parquet(legacy)["key"]) == ["a", "b", "c"]


def test_compaction_keeps_every_cell_once(tmp_path):
    store = ResultStore(tmp_path, SCHEMA, ("key", "r"))
    store.commit(rows(("a", 0, 0.5)))
    store.commit(rows(("a", 0, 0.5), ("b", 1, 0.75)))  # a duplicate, as after a crash mid-compaction
    assert len(store.load()) == 2
    store.compact()
    assert store.parts() == [] and store.files() == [tmp_path / "results.parquet"]
    assert sorted(map(tuple, store.load()[["key", "r"]].to_numpy().tolist())) == [("a", 0), ("b", 1)]


def test_manifest_refuses_another_study_or_other_code(tmp_path):
    write_manifest(tmp_path, "alpha-dnf", {"model_version": 1, "code_fingerprint": "abc"})
    check_manifest(tmp_path, "alpha-dnf", {"model_version": 1, "code_fingerprint": "abc"})
    with pytest.raises(StudyError, match="alpha-dnf"):
        check_manifest(tmp_path, "alpha-general", {})
    with pytest.raises(StudyError, match="code fingerprint"):
        check_manifest(tmp_path, "alpha-dnf", {"model_version": 1, "code_fingerprint": "def"})
    with pytest.raises(StudyError, match="model version"):
        check_manifest(tmp_path, "alpha-dnf", {"model_version": 2, "code_fingerprint": "abc"})


def test_results_without_manifest_are_refused(tmp_path):
    ResultStore(tmp_path, SCHEMA, ("key", "r")).commit(rows(("a", 0, 0.5)))
    with pytest.raises(StudyError, match=r"study\.json"):
        check_manifest(tmp_path, "alpha-general", {})


def test_finished_study_needs_no_spark(tmp_path):
    study = alpha.general_study(universes=(1000,), points=3, replicates=2, zoom=False)
    store = ResultStore(tmp_path, study.schema, study.key_columns)
    write_manifest(tmp_path, study.kind, study.config)
    store.commit([run_general_cell(c) for c in study.cells[:3]])
    pending, done = pending_cells(study, tmp_path)
    assert done == 3 and len(pending) == len(study.cells) - 3
    store.commit([run_general_cell(c) for c in pending])

    def no_session():
        raise AssertionError("Spark must not start")

    stats = run_study(study, tmp_path, session_factory=no_session, progress=False)
    assert stats.completed and stats.cells_run == 0 and stats.cells_skipped == len(study.cells)
    outputs = jobs.finalize(study, tmp_path)
    assert outputs["summary"].exists() and outputs["report"].exists()


def test_plan_skips_committed_cells_and_weighs_the_rest(tmp_path):
    study = alpha.general_study(universes=(1000,), points=3, replicates=2, zoom=False)
    write_manifest(tmp_path, study.kind, study.config)
    ResultStore(tmp_path, study.schema, study.key_columns).commit([run_general_cell(c) for c in study.cells[:2]])
    plan = plan_run(study, tmp_path)
    assert plan.skipped == 2 and plan.pending == study.cells[2:]
    assert plan.total_cost == pytest.approx(sum(study.cost(c) for c in study.cells))
    assert plan.done_cost == pytest.approx(sum(study.cost(c) for c in study.cells[:2]))


def test_run_statistics_add_up_batches_and_overhead():
    stats = RunStats(slots=2)
    record_batch(stats, [{"task_seconds": 1.0, "gen_seconds": 0.25, "reduce_seconds": 0.5}] * 3, 0.1)
    record_batch(stats, [{"task_seconds": 2.0}], 0.2)
    assert (stats.batches, stats.cells_run) == (2, 4)
    assert stats.task_seconds == 5.0 and stats.gen_seconds == 0.75 and stats.reduce_seconds == 1.5
    assert stats.commit_seconds == pytest.approx(0.3)
    close_stats(stats, wall_seconds=4.0)
    assert stats.wall_seconds == 4.0 and stats.overhead_seconds == 3.0  # 2 slots × 4 s − 5 s of tasks
    close_stats(stats, wall_seconds=1.0)
    assert stats.overhead_seconds == 0.0  # never negative


def test_batches_run_longest_first():
    cells = [{"n": n} for n in (1, 500, 20, 10_000, 3, 10_000)]
    batches = _batches(cells, lambda c: c["n"], slots=2, batch_size=2)
    assert [c["n"] for c in batches[0]] == [10_000, 10_000]
    assert [c["n"] for b in batches for c in b] == sorted((c["n"] for c in cells), reverse=True)
    auto = _batches([{"n": n} for n in range(1, 400)], lambda c: c["n"], slots=2, batch_size=None)
    assert sum(len(b) for b in auto) == 399
    assert all(len(b) >= 4 for b in auto[:-1])


def test_progress_line_has_counts_and_eta():
    stream = io.StringIO()
    p = Progress("alpha-dnf", total=10, done=2, total_cost=100.0, done_cost=20.0, stream=stream)
    p.started -= 10.0  # ten seconds ago
    p.committed(4, 40.0)
    line = p.line()
    assert line.startswith("[alpha-dnf] 6/10 cells (60.0%)")
    assert "ETA 00:10" in line  # 40 cost units in 10 s, 40 left
    p.show(force=True)
    assert "6/10 cells" in stream.getvalue()


def test_dnf_grid_and_cells():
    ns = dnf.dnf_grid(10_000, 17)
    assert ns[0] == 1 and ns[-1] == 10_000 and len(ns) == 17
    assert dnf.dnf_grid(10_000, 21)[-2] == 6310
    cells = dnf.dnf_cells(["zipf-500", "uniform-50"], [1, 10], 3, ["siena", "merge"], seed=4)
    assert len(cells) == 2 * 2 * 3 * 2
    with pytest.raises(ValueError):
        dnf.dnf_cells(["zipf-7"], [1], 1, ["siena"], seed=0)
    # The predicate set's seed ignores the reducer and depends on the rest of the key.
    assert dnf.predicate_seed(4, "zipf-500", 10, 2) == dnf.predicate_seed(4, "zipf-500", 10, 2)
    assert dnf.predicate_seed(4, "zipf-500", 10, 2) != dnf.predicate_seed(4, "zipf-500", 10, 1)
    assert dnf.predicate_seed(4, "zipf-500", 10, 2) != dnf.predicate_seed(4, "uniform-500", 10, 2)


def test_dnf_summary_percentiles():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame([
        {"scenario": s, "reducer": "siena", "n": n, "alpha": a}
        for s in ("uniform-50", "zipf-500") for n in (1, 10) for a in rng.random(30)
    ])
    summary = dnf_summary(frame, ("zipf-500", "uniform-50"), ("siena",))
    assert tuple(summary.columns) == DNF_SUMMARY_COLUMNS
    assert list(summary["scenario"]) == ["zipf-500", "zipf-500", "uniform-50", "uniform-50"]
    row = summary.iloc[0]
    values = frame[(frame.scenario == "zipf-500") & (frame.n == 1)]["alpha"]
    assert row["sets"] == 30
    assert row["alpha_min"] == values.min() and row["alpha_max"] == values.max()
    assert row["alpha_median"] == pytest.approx(np.median(values))
    assert row["alpha_p05"] == pytest.approx(np.percentile(values, 5))
    text = summary_csv(summary)
    assert text.splitlines()[0] == ",".join(DNF_SUMMARY_COLUMNS)


def test_dnf_fingerprint_is_stable():
    assert dnf.code_fingerprint() == dnf.code_fingerprint()
    assert len(dnf.code_fingerprint()) == 16


def test_demo_study_is_importable_without_spark():
    code = ("import sys, cbalgebra.studies as s, cbalgebra.studies.cli; "
            "assert callable(s.demo_study); "
            "assert 'pyspark' not in sys.modules and 'matplotlib' not in sys.modules; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_summary_csv_writes_missing_values_as_empty():
    frame = pd.DataFrame({"a": [1.0, float("nan")], "b": ["x", "y"]})
    assert summary_csv(frame).splitlines() == ["a,b", "1,x", ",y"]
    json.dumps(alpha.general_study(universes=(1000,), points=2, replicates=1).config)
