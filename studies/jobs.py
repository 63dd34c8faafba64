"""The two studies as runnable jobs: build, execute on Spark, summarise, plot, report."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from cbalgebra.studies import dnf, general, plots, report
from cbalgebra.studies.runner import (
    ResultStore,
    RunStats,
    Study,
    StudyError,
    atomic_write_text,
    run_study,
)
from cbalgebra.studies.spark import spark_session
from cbalgebra.studies.summary import dnf_summary, general_summary, restrict, summary_csv

if TYPE_CHECKING:  # pandas and Spark load only when a study runs
    import pandas as pd
    from pyspark.sql import SparkSession

GENERAL_KIND, DNF_KIND = "alpha-general", "alpha-dnf"
TIMING = "timing.json"
RUNS = "runs.jsonl"

GENERAL_SCHEMA = pa.schema([
    ("distribution", pa.string()), ("universe", pa.int64()), ("k", pa.int64()), ("n", pa.int64()),
    ("replicate", pa.int64()), ("seed", pa.int64()), ("series", pa.string()), ("cell_seed", pa.int64()),
    ("ratio", pa.float64()), ("union", pa.int64()), ("alpha", pa.float64()),
    ("gen_seconds", pa.float64()), ("reduce_seconds", pa.float64()), ("task_seconds", pa.float64()),
    ("host", pa.string()), ("pid", pa.int64()),
])
DNF_SCHEMA = pa.schema([
    ("scenario", pa.string()), ("n", pa.int64()), ("replicate", pa.int64()), ("reducer", pa.string()),
    ("seed", pa.int64()), ("distribution", pa.string()), ("names", pa.int64()), ("cell_seed", pa.int64()),
    ("size", pa.int64()), ("reduced_size", pa.int64()), ("alpha", pa.float64()),
    ("gen_seconds", pa.float64()), ("reduce_seconds", pa.float64()), ("task_seconds", pa.float64()),
    ("host", pa.string()), ("pid", pa.int64()),
])
#: Columns that depend on where and when a cell ran, not on what it computed.
VOLATILE_COLUMNS = ("gen_seconds", "reduce_seconds", "task_seconds", "host", "pid")


def general_study(
    universes: Sequence[int] = general.DEFAULT_UNIVERSES,
    points: int = 25,
    replicates: int = 10,
    seed: int = 2003,
    distributions: Sequence[str] = general.DISTRIBUTIONS,
    selectivity: float = general.DEFAULT_SELECTIVITY,
    min_ratio: float = general.MIN_RATIO,
    max_ratio: float = general.MAX_RATIO,
    zoom: bool = True,
    quick: bool = False,
) -> Study:
    grid = general.general_grid(universes, points, distributions, selectivity, min_ratio, max_ratio, zoom)
    config = {
        "universes": list(universes), "points": points, "replicates": replicates, "seed": seed,
        "distributions": list(distributions), "selectivity": selectivity, "min_ratio": min_ratio,
        "max_ratio": max_ratio, "zoom": zoom, "zoom_selectivity": general.ZOOM_SELECTIVITY,
        "quick": quick, "model_version": general.MODEL_VERSION,
    }
    return Study(
        kind=GENERAL_KIND,
        cells=general.general_cells(grid, replicates, seed),
        key_columns=(*general.KEY_COLUMNS, "seed"),
        task=general.run_general_cell,
        cost=general.general_cell_cost,
        schema=GENERAL_SCHEMA,
        config=config,
        summarise=_general_summary,
        draw=_general_figures,
        report=_general_report,
    )


def dnf_study(
    scenarios: Sequence[str] = tuple(dnf.SCENARIOS),
    max_n: int = 10_000,
    points: int = 17,
    min_n: int = 1,
    replicates: int = 30,
    reducers: Sequence[str] = (dnf.DEFAULT_REDUCER,),
    seed: int = 2003,
    quick: bool = False,
) -> Study:
    ns = dnf.dnf_grid(max_n, points, min_n)
    config = {
        "scenarios": list(scenarios), "max_n": max_n, "min_n": min_n, "points": points, "ns": ns,
        "replicates": replicates, "reducers": list(reducers), "seed": seed, "quick": quick,
        "model_version": dnf.MODEL_VERSION, "code_fingerprint": dnf.code_fingerprint(),
    }
    return Study(
        kind=DNF_KIND,
        cells=dnf.dnf_cells(scenarios, ns, replicates, reducers, seed),
        key_columns=(*dnf.KEY_COLUMNS, "seed"),
        task=dnf.run_dnf_cell,
        cost=dnf.dnf_cell_cost,
        schema=DNF_SCHEMA,
        config=config,
        summarise=_dnf_summary,
        draw=_dnf_figures,
        report=_dnf_report,
    )


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
        if path.suffix == ".png":
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


def _no_outputs(study: Study) -> StudyError:
    return StudyError(f"study {study.kind!r} does not say how to summarise, draw and report its results")


# --------------------------------------------------------------------------
# The outputs of the two alpha studies (Carzaniga, Rembert & Wolf 2006,
# §4), in the form Study expects.


def _general_summary(results: pd.DataFrame, config: dict) -> pd.DataFrame:
    return general_summary(results)


def _dnf_summary(results: pd.DataFrame, config: dict) -> pd.DataFrame:
    return dnf_summary(results, tuple(dnf.SCENARIOS), config.get("reducers", ()))


def _general_figures(summary: pd.DataFrame, out_dir: Path, config: dict, figures: str) -> list[Path]:
    return plots.plot_general(summary, out_dir, config.get("selectivity"))


def _dnf_figures(summary: pd.DataFrame, out_dir: Path, config: dict, figures: str) -> list[Path]:
    which = ("overview",) if figures == "overview" else ("fig6", "fig7", "overview")
    figure_sets = plots.plot_dnf(summary, out_dir, which)
    return [p for paths in figure_sets.values() for p in paths]


def _general_report(summary: pd.DataFrame, results: pd.DataFrame, config: dict, timing: dict | None) -> str:
    return report.general_report(summary, results, config, timing)


def _dnf_report(summary: pd.DataFrame, results: pd.DataFrame, config: dict, timing: dict | None) -> str:
    return report.dnf_report(summary, results, config, timing)
