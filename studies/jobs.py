"""Every study as a runnable job: execute its cells on Spark, then summarise, plot and report.

A study is a :class:`~cbalgebra.studies.plugin.StudyPlugin`'s design
(:class:`~cbalgebra.studies.runner.Study`); :func:`execute` runs what is left
of it and :func:`finalize` writes its outputs. :func:`study_in` rebuilds the
design a results folder holds from its manifest, so that a committed study
is finalized again with :func:`finalize` alone.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from cbalgebra.studies.plugin import plugin
from cbalgebra.studies.runner import (
    MANIFEST,
    ResultStore,
    RunStats,
    Study,
    StudyError,
    atomic_write_text,
    run_study,
)
from cbalgebra.studies.spark import spark_session
from cbalgebra.studies.summary import restrict, summary_csv

if TYPE_CHECKING:  # pandas and Spark load only when a study runs
    import pandas as pd
    from pyspark.sql import SparkSession

TIMING = "timing.json"
RUNS = "runs.jsonl"


def load_results(study: Study, out_dir: Path) -> pd.DataFrame:
    """The committed rows of the study's own cells."""
    store = ResultStore(out_dir, study.schema, study.key_columns)
    return restrict(store.load(), study.cells, study.key_columns)


def _record_run(out_dir: Path, study: Study, stats: RunStats) -> None:
    record = {"kind": study.kind, "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
              "config": study.config, **stats.as_dict()}
    with open(Path(out_dir) / RUNS, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
    if stats.cells_run:
        atomic_write_text(Path(out_dir) / TIMING, json.dumps(record, indent=2, sort_keys=True) + "\n")


def read_timing(out_dir: Path) -> dict | None:
    path = Path(out_dir) / TIMING
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def execute(
    study: Study,
    out_dir: Path,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
    batch_size: int | None = None,
    progress: bool = True,
    session: SparkSession | None = None,
    jobs_in_flight: int = 2,
    on_commit: Callable[[Path, int], None] | None = None,
    finalize_outputs: bool = True,
    figures: str = "all",
) -> dict[str, Path]:
    """Run the study's missing cells, then write summary, figures and report.

    With ``session=None`` a session is created only if some cell is left to
    run, and stopped at the end.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    created: list[SparkSession] = []

    def factory() -> SparkSession:
        s = spark_session(master, app_name=f"cbalgebra {study.kind}", conf=conf)
        created.append(s)
        return s

    try:
        stats = run_study(
            study, out_dir, session_factory=None if session is not None else factory, session=session,
            batch_size=batch_size, jobs_in_flight=jobs_in_flight, progress=progress, on_commit=on_commit,
        )
    finally:
        for s in created:
            s.stop()
    _record_run(out_dir, study, stats)
    if not finalize_outputs:
        return {"results": out_dir / "results.parquet"}
    return finalize(study, out_dir, figures=figures)


def finalize(study: Study, out_dir: Path, figures: str = "all") -> dict[str, Path]:
    """Compact the results; write summary.csv, the figures and report.md.

    ``figures="overview"`` draws only the one-figure overview (the demo).
    """
    out_dir = Path(out_dir)
    results = compact_and_load(study, out_dir)
    summary = summarise(study, results)
    atomic_write_text(out_dir / "summary.csv", summary_csv(summary))
    drawn = draw_figures(study, summary, out_dir, figures)
    atomic_write_text(out_dir / "report.md", write_report(study, summary, results, read_timing(out_dir)))
    outputs: dict[str, Path] = {
        "results": out_dir / "results.parquet",
        "summary": out_dir / "summary.csv",
        "report": out_dir / "report.md",
    }
    for path in drawn:
        if path.suffix == ".svg":
            outputs.setdefault("figure", path)
            outputs[f"figure:{path.stem}"] = path
    return outputs


def compact_and_load(study: Study, out_dir: Path) -> pd.DataFrame:
    """Merge the committed batches into one file; the rows of every cell of the study."""
    ResultStore(out_dir, study.schema, study.key_columns).compact()
    results = load_results(study, out_dir)
    if len(results) != len(study.cells):
        raise StudyError(f"{out_dir}: {len(study.cells) - len(results)} cells missing; rerun to finish")
    return results


def summarise(study: Study, results: pd.DataFrame) -> pd.DataFrame:
    """One row per grid point (``summary.csv``)."""
    if study.summarise is None:
        raise _no_outputs(study)
    return study.summarise(results, study.config)


def draw_figures(study: Study, summary: pd.DataFrame, out_dir: Path, figures: str = "all") -> list[Path]:
    """The study's figures (PNG and SVG); ``figures="overview"`` draws only the one-figure overview."""
    if study.draw is None:
        raise _no_outputs(study)
    return study.draw(summary, out_dir, study.config, figures)


def write_report(study: Study, summary: pd.DataFrame, results: pd.DataFrame, timing: dict | None) -> str:
    """The text of report.md."""
    if study.report is None:
        raise _no_outputs(study)
    return study.report(summary, results, study.config, timing)


def study_in(out_dir: Path) -> Study:
    """The design whose results ``out_dir`` holds, rebuilt from its manifest by the registered study
    of that kind (stamped with the code fingerprint of the code that runs now)."""
    path = Path(out_dir) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
        kind = plugin(manifest["kind"])
        config = manifest["config"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise StudyError(f"{path}: not the manifest of a registered study ({e})") from None
    return kind.study(config)


def _no_outputs(study: Study) -> StudyError:
    return StudyError(f"study {study.kind!r} does not say how to summarise, draw and report its results")
