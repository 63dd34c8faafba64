"""Running a study's cells as Spark tasks, with atomic, resumable output.

- One Spark task per cell: each batch of cells is one RDD with one
  partition per cell, mapped through the study's (pure) task function.
- Cells run longest first (by the study's cost estimate), and two batches
  are in flight at once so that a batch's last, long task does not leave
  the other cores idle.
- Each finished batch is written to ``results.parts/`` as one Parquet
  file, first under a hidden temporary name and then renamed: a reader (or a
  rerun after a crash) sees a batch entirely or not at all. When the run
  ends, the batches are merged into the one file ``results.parquet``.
- A rerun into the same directory reads the finished cells and runs only the
  others; since a cell's seed depends only on the base seed and its key, the
  final results equal those of an uninterrupted run.
- The driver prints progress (cells done / total, elapsed, ETA) to stderr.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import json
import math
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, TextIO
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cbalgebra.errors import CbalgebraError
from cbalgebra.reducers.progress import Progress as Meter

if TYPE_CHECKING:  # Spark loads only when a study runs
    from pyspark import SparkContext, StatusTracker
    from pyspark.sql import SparkSession

RESULTS = "results.parquet"
PARTS = "results.parts"
MANIFEST = "study.json"


class StudyError(CbalgebraError):
    """An expected failure (bad output directory, mismatched study...): one line for the user."""


@dataclass
class Study:
    """What the runner needs to know about a study: one design of a registered study, as
    :meth:`cbalgebra.studies.plugin.StudyPlugin.study` builds it from the plugin's members."""

    kind: str  # "alpha-general", "alpha-dnf", ...: the study's name, checked on resume
    cells: list[dict]
    key_columns: tuple[str, ...]
    task: Callable[[dict], dict]  # module-level function: pickled by reference
    cost: Callable[[dict], float]
    schema: pa.Schema
    config: dict = field(default_factory=dict)
    #: How the finished results become outputs (``cbalgebra.studies.jobs.finalize``):
    #: one row per grid point, the figures (PNG and SVG), and the text of report.md
    #: (the plugin's ``summarise``, ``draw`` and ``report``).
    summarise: Callable[[pd.DataFrame, dict], pd.DataFrame] | None = None
    draw: Callable[[pd.DataFrame, Path, dict, str], list[Path]] | None = None
    report: Callable[[pd.DataFrame, pd.DataFrame, dict, dict | None], str] | None = None

    def key(self, cell: dict) -> tuple:
        return tuple(cell[c] for c in self.key_columns)


@dataclass
class RunStats:
    master: str = ""
    slots: int = 0
    cells_total: int = 0
    cells_skipped: int = 0
    cells_run: int = 0
    batches: int = 0
    startup_seconds: float = 0.0
    wall_seconds: float = 0.0  # from the first job to the last commit
    task_seconds: float = 0.0  # Σ time inside the task function
    gen_seconds: float = 0.0
    reduce_seconds: float = 0.0
    commit_seconds: float = 0.0
    overhead_seconds: float = 0.0  # slots × wall − Σ task time
    completed: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------
# Atomic files


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _write_parquet_atomically(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with open(tmp, "wb") as f:
        pq.write_table(table, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


# --------------------------------------------------------------------------
# The result store


#: Field metadata of a column a study added after results of it were committed: a part written before
#: lacks the column and reads as null there, so that its cells stay done (:func:`column_added_later`).
ADDED_LATER = {b"cbalgebra.added_later": b"true"}


def column_added_later(name: str, type_: pa.DataType) -> pa.Field:
    """A nullable result column that older parts of a study may lack (they read as null)."""
    return pa.field(name, type_, nullable=True, metadata=ADDED_LATER)


def added_later(f: pa.Field) -> bool:
    """Whether ``f`` is a column older parts may lack (:func:`column_added_later`)."""
    return bool(f.metadata) and f.metadata.get(b"cbalgebra.added_later") == b"true"


class ResultStore:
    """A study's rows: ``DIR/results.parquet``, one file, plus ``DIR/results.parts/`` while a run
    is under way.

    A run commits each finished batch to ``results.parts/`` as its own file (written under a
    hidden temporary name, then renamed), so a crash loses at most the batches in flight and a
    rerun resumes from the committed ones. :meth:`compact` merges the parts into the one file
    ``results.parquet`` (sorted by the key columns, atomically replaced) and then removes them:
    a finished study is one file with a fixed name, which is what gets committed and diffed.

    Files whose names start with ``.`` are temporary and ignored. Rows are keyed by the study's
    key columns; should a crash between a compaction's rename and its clean-up leave a cell in
    both places, readers keep one copy (both copies are equal). A ``results.parquet/``
    *directory* (the layout before parts had their own folder) is read as parts, and the next
    compaction turns it into the one file.
    """

    def __init__(self, out_dir: Path, schema: pa.Schema, key_columns: Sequence[str]):
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / RESULTS
        self.parts_dir = self.out_dir / PARTS
        self.schema = schema
        self.key_columns = tuple(key_columns)

    def parts(self) -> list[Path]:
        """The committed batches not yet compacted (a legacy ``results.parquet/`` folder's files too)."""
        found: list[Path] = []
        for folder in (self.parts_dir, self.path):
            if folder.is_dir():
                found += sorted(p for p in folder.glob("*.parquet") if not p.name.startswith((".", "_")))
        return found

    def files(self) -> list[Path]:
        """Every file holding rows: the compacted one first, then the parts."""
        return ([self.path] if self.path.is_file() else []) + self.parts()

    def load(self) -> pd.DataFrame:
        files = self.files()
        if not files:
            return self.schema.empty_table().to_pandas()
        tables = []
        for file in files:
            table = pq.read_table(file)
            missing = [f for f in self.schema if f.name not in table.column_names]
            lacking = [f.name for f in missing if not added_later(f)]
            if lacking:
                raise StudyError(
                    f"{file} lacks columns {', '.join(lacking)}: it was written by another "
                    "study or version; use a fresh --out directory"
                )
            for f in missing:  # written before the study recorded these columns: nothing known
                table = table.append_column(f, pa.nulls(len(table), f.type))
            tables.append(table.select(self.schema.names).cast(self.schema))
        frame = pa.concat_tables(tables).to_pandas()
        return frame.drop_duplicates(list(self.key_columns), keep="first").reset_index(drop=True)

    def done_keys(self) -> set[tuple]:
        frame = self.load()
        return {
            tuple(v.item() if hasattr(v, "item") else v for v in row)
            for row in frame[list(self.key_columns)].itertuples(index=False, name=None)
        }

    def commit(self, rows: Sequence[dict]) -> Path:
        """Write one batch atomically to ``results.parts/``; return its file."""
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pylist(list(rows), schema=self.schema)
        part = self.parts_dir / f"part-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:12]}.parquet"
        _write_parquet_atomically(table, part)
        return part

    def compact(self) -> None:
        """Merge the parts into the one file ``results.parquet`` (atomically), then drop them.

        Every step leaves the rows readable: a legacy ``results.parquet/`` folder's files first
        move, one rename each, into ``results.parts/``; the merged file replaces the old one in
        one rename; only then are the parts removed.
        """
        self._adopt_legacy_folder()
        parts = self.parts()
        if not parts:
            return
        frame = self.load()
        sort_cols = [c for c in self.key_columns if c in frame.columns]
        frame = frame.sort_values(sort_cols, kind="stable").reset_index(drop=True)
        _write_parquet_atomically(pa.Table.from_pandas(frame, schema=self.schema, preserve_index=False), self.path)
        for part in parts:
            part.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            self.parts_dir.rmdir()  # only when empty: a concurrent writer's part stays
        _fsync_dir(self.out_dir)

    def _adopt_legacy_folder(self) -> None:
        if not self.path.is_dir():
            return
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        for part in self.path.iterdir():
            if part.name.startswith((".", "_")):
                part.unlink()  # an unfinished temporary file, or Spark's _SUCCESS marker
            else:
                os.replace(part, self.parts_dir / part.name)
        _fsync_dir(self.parts_dir)
        self.path.rmdir()


#: Manifest entries that must match for finished cells to be reused (``budget``: the seconds an
#: anytime reducer of alpha-dnf may spend on a group, which changes what it proves).
COMPATIBILITY_KEYS = ("model_version", "code_fingerprint", "budget")


def check_manifest(out_dir: Path, kind: str, config: dict | None = None) -> None:
    """Refuse to mix two kinds of study, or results of other code, in one directory."""
    path = Path(out_dir) / MANIFEST
    if path.exists():
        try:
            manifest = json.loads(path.read_text())
        except (OSError, ValueError):
            manifest = {}
        existing = manifest.get("kind")
        if existing and existing != kind:
            raise StudyError(f"{out_dir} holds an {existing} study; use another --out for {kind}")
        old_config = manifest.get("config", {})
        for key in COMPATIBILITY_KEYS:
            old, new = old_config.get(key), (config or {}).get(key)
            if old is not None and new is not None and old != new:
                raise StudyError(
                    f"{out_dir} holds results computed with another {key.replace('_', ' ')} "
                    f"({old} here, {new} now); use another --out"
                )
    else:
        for held in (RESULTS, PARTS):
            if (Path(out_dir) / held).exists():
                raise StudyError(f"{out_dir}/{held} exists but {MANIFEST} does not; use another --out")


def write_manifest(out_dir: Path, kind: str, config: dict) -> None:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out_dir / MANIFEST, json.dumps({"kind": kind, "config": config}, indent=2, sort_keys=True) + "\n")


# --------------------------------------------------------------------------
# Progress


def _fmt_duration(seconds: float | None) -> str:
    if seconds is None or math.isnan(seconds) or seconds == float("inf"):
        return "--:--"
    seconds = round(max(0.0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress(Meter):
    """Cells done / total with elapsed time and an ETA, on stderr: the
    command line's one meter (:class:`cbalgebra.reducers.progress.Progress`)
    showing a study's line.

    The ETA weighs cells by their estimated cost, so that a sweep whose big
    cells run first does not promise too much too early. On a terminal the
    line rewrites itself; in a log it is printed at most every ``interval``.
    """

    def __init__(self, label: str, total: int, done: int, total_cost: float, done_cost: float,
                 stream: TextIO | None = None, interval: float | None = None, enabled: bool = True):
        super().__init__(stream, delay=0.0, every_tty=0.5, every_log=5.0)
        if interval is not None:
            self.every = interval
        self.label = label
        self.total = total
        self.done = done
        self.start_done = done
        self.total_cost = max(total_cost, 1e-12)
        self.done_cost = done_cost
        self.start_done_cost = done_cost
        self.enabled = enabled
        self._running_done = 0  # tasks finished in batches not yet committed
        self._running_cost = 0.0
        self._lock = threading.Lock()

    def set_running(self, tasks_done: int, cost_done: float) -> None:
        with self._lock:
            self._running_done = tasks_done
            self._running_cost = cost_done

    def committed(self, cells: int, cost: float) -> None:
        with self._lock:
            self.done += cells
            self.done_cost += cost

    def line(self) -> str:
        with self._lock:
            done = min(self.total, self.done + self._running_done)
            done_cost = self.done_cost + self._running_cost
        elapsed = self.clock() - self.started
        ran_cost = done_cost - self.start_done_cost
        eta = None
        if done >= self.total:
            eta = 0.0
        elif ran_cost > 0 and elapsed > 0:
            eta = elapsed * (self.total_cost - done_cost) / ran_cost
        pct = 100.0 * done / self.total if self.total else 100.0
        return (f"[{self.label}] {done}/{self.total} cells ({pct:.1f}%) "
                f"elapsed {_fmt_duration(elapsed)} ETA {_fmt_duration(eta)}")

    def show(self, force: bool = False) -> None:
        if self.enabled:
            self.write(self.line(), force=force)

    def finish(self) -> None:
        if self.enabled:
            self.show(force=True)
            self.end()


# --------------------------------------------------------------------------
# Running


def _batches(cells: list[dict], cost: Callable[[dict], float], slots: int,
             batch_size: int | None) -> list[list[dict]]:
    """Longest first, cut into batches.

    With ``batch_size`` set, batches hold that many cells. Otherwise a batch
    holds at least ``2 × slots`` cells and about 1/40 of the total cost, so
    that cheap cells share a batch and costly ones commit soon.
    """
    ordered = sorted(cells, key=cost, reverse=True)
    if batch_size:
        return [ordered[i:i + batch_size] for i in range(0, len(ordered), batch_size)]
    total = sum(cost(c) for c in ordered)
    target = total / 40.0
    minimum, maximum = 2 * slots, 512
    batches: list[list[dict]] = []
    current: list[dict] = []
    current_cost = 0.0
    for cell in ordered:
        current.append(cell)
        current_cost += cost(cell)
        if len(current) >= maximum or (len(current) >= minimum and current_cost >= target):
            batches.append(current)
            current, current_cost = [], 0.0
    if current:
        batches.append(current)
    return batches


#: Cells between two full garbage collections in a Python worker.
GC_EVERY = 64
_cells_since_collection = 0


def _after_cell() -> None:
    """Keep PySpark's per-task ``gc.collect()`` cheap in a reused Python worker.

    PySpark's daemon runs a full collection after every task. Once a worker
    holds a large long-lived heap (the reducers' caches after a few cells of
    10,000 predicates), that collection costs about half a second per task,
    several times the cost of a small cell. Freezing the heap after each cell
    leaves only the next cell's objects to scan; every ``GC_EVERY`` cells a
    real full collection reclaims any cyclic garbage that was frozen.
    """
    global _cells_since_collection
    _cells_since_collection += 1
    if _cells_since_collection >= GC_EVERY:
        gc.unfreeze()
        gc.collect()
        _cells_since_collection = 0
    gc.freeze()


class CellTask:
    """The function Spark maps over cells: the study's task, then ``_after_cell``."""

    def __init__(self, task: Callable[[dict], dict]):
        self.task = task

    def __call__(self, cell: dict) -> dict:
        row = self.task(cell)
        _after_cell()
        return row


def pending_cells(study: Study, out_dir: Path) -> tuple[list[dict], int]:
    """The cells not yet in ``out_dir``, and how many were found done."""
    store = ResultStore(out_dir, study.schema, study.key_columns)
    done = store.done_keys()
    pending = [c for c in study.cells if study.key(c) not in done]
    return pending, len(study.cells) - len(pending)


# Phases of a run, in order: claim the directory, find what is left (resume),
# start Spark only if something is, run the batches and commit each one, then
# close the statistics. ``cbalgebra.studies.jobs.finalize`` summarises, plots
# and reports afterwards.


def claim_directory(study: Study, out_dir: Path) -> ResultStore:
    """Refuse a directory of another study or other code; record this study's manifest."""
    check_manifest(out_dir, study.kind, study.config)
    write_manifest(out_dir, study.kind, study.config)
    return ResultStore(out_dir, study.schema, study.key_columns)


@dataclass(frozen=True)
class RunPlan:
    """The cells left to run (a rerun skips the committed ones) and their share of the cost."""

    pending: list[dict]
    skipped: int
    total_cost: float
    pending_cost: float

    @property
    def done_cost(self) -> float:
        return self.total_cost - self.pending_cost


def plan_run(study: Study, out_dir: Path) -> RunPlan:
    pending, skipped = pending_cells(study, out_dir)
    return RunPlan(
        pending=pending,
        skipped=skipped,
        total_cost=sum(study.cost(c) for c in study.cells),
        pending_cost=sum(study.cost(c) for c in pending),
    )


def record_batch(stats: RunStats, rows: Sequence[dict], commit_seconds: float) -> None:
    """Add one committed batch's rows (and the time its commit took) to the run's statistics."""
    stats.commit_seconds += commit_seconds
    stats.batches += 1
    stats.cells_run += len(rows)
    for row in rows:
        stats.task_seconds += float(row.get("task_seconds", 0.0))
        stats.gen_seconds += float(row.get("gen_seconds", 0.0))
        stats.reduce_seconds += float(row.get("reduce_seconds", 0.0))


def close_stats(stats: RunStats, wall_seconds: float) -> None:
    """Wall time of the jobs and the Spark overhead: slots × wall − Σ task time."""
    stats.wall_seconds = wall_seconds
    stats.overhead_seconds = max(0.0, stats.slots * stats.wall_seconds - stats.task_seconds)


# --------------------------------------------------------------------------
# Spark


def open_session(
    session: SparkSession | None, session_factory: Callable[[], SparkSession] | None
) -> tuple[SparkSession, float]:
    """The live session (created by the factory if none was given) and its start-up time."""
    t0 = time.monotonic()
    if session is None:
        if session_factory is None:
            raise ValueError("run_study needs a session or a session_factory")
        session = session_factory()
    return session, time.monotonic() - t0


def _run_batch(sc: SparkContext, task: Callable[[dict], dict], batch: list[dict], group: str) -> list[dict]:
    sc.setJobGroup(group, f"{len(batch)} cells", interruptOnCancel=True)
    return sc.parallelize(batch, len(batch)).map(CellTask(task)).collect()


class RunningBatches:
    """Progress inside the batches in flight, read from Spark's status tracker.

    A daemon thread polls the tracker every half second and tells ``meter``
    how many tasks (and how much estimated cost) of the uncommitted batches
    have finished. The tracker is best effort: an error in it never stops a run.
    """

    def __init__(self, sc: SparkContext, cost: Callable[[dict], float], meter: Progress):
        self.sc = sc
        self.cost = cost
        self.meter = meter
        self._batches: dict[str, list[dict]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="study-progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def add(self, group: str, batch: list[dict]) -> None:
        with self._lock:
            self._batches[group] = batch

    def remove(self, group: str) -> None:
        with self._lock:
            self._batches.pop(group, None)

    def _finished_tasks(self, tracker: StatusTracker, group: str) -> int:
        finished = 0
        for job_id in tracker.getJobIdsForGroup(group):
            job = tracker.getJobInfo(job_id)
            if job is None:
                continue
            for stage_id in job.stageIds:
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    finished += stage.numCompletedTasks
        return finished

    def _watch(self) -> None:
        tracker = self.sc.statusTracker()
        while not self._stop.wait(0.5):
            try:
                with self._lock:
                    groups = dict(self._batches)
                tasks, cost = 0, 0.0
                for group, batch in groups.items():
                    finished = min(self._finished_tasks(tracker, group), len(batch))
                    tasks += finished
                    cost += finished * sum(self.cost(c) for c in batch) / len(batch)
                self.meter.set_running(tasks, cost)
                self.meter.show()
            except Exception:  # the tracker is best effort; never kill the run
                pass


def run_batches_on_spark(
    sc: SparkContext,
    study: Study,
    batches: list[list[dict]],
    store: ResultStore,
    stats: RunStats,
    meter: Progress,
    jobs_in_flight: int,
    on_commit: Callable[[Path, int], None] | None,
) -> None:
    """Run the batches, ``jobs_in_flight`` at a time; commit each one as soon as it finishes.

    On any exception (a failed job, Ctrl-C) the other jobs are cancelled and
    the exception propagates; the batches committed so far stay.
    """
    run_id = uuid.uuid4().hex[:8]
    running = RunningBatches(sc, study.cost, meter)
    running.start()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs_in_flight))
    futures: dict[concurrent.futures.Future, tuple[str, list[dict]]] = {}
    queue = list(enumerate(batches))

    def submit_next() -> None:
        if not queue:
            return
        i, batch = queue.pop(0)
        group = f"cbalgebra-{study.kind}-{run_id}-{i}"
        running.add(group, batch)
        futures[pool.submit(_run_batch, sc, study.task, batch, group)] = (group, batch)

    try:
        for _ in range(max(1, jobs_in_flight)):
            submit_next()
        while futures:
            done, _ = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                group, batch = futures.pop(future)
                rows = future.result()
                c0 = time.monotonic()
                part = store.commit(rows)
                record_batch(stats, rows, time.monotonic() - c0)
                running.remove(group)
                meter.committed(len(rows), sum(study.cost(c) for c in batch))
                meter.set_running(0, 0.0)
                meter.show()
                if on_commit is not None:
                    on_commit(part, len(rows))
                submit_next()
    except BaseException:
        with contextlib.suppress(Exception):  # best effort: the context may already be gone
            sc.cancelAllJobs()
        raise
    finally:
        running.stop()
        pool.shutdown(wait=False, cancel_futures=True)


def run_study(
    study: Study,
    out_dir: Path,
    session_factory: Callable[[], SparkSession] | None = None,
    session: SparkSession | None = None,
    batch_size: int | None = None,
    jobs_in_flight: int = 2,
    progress: bool = True,
    on_commit: Callable[[Path, int], None] | None = None,
) -> RunStats:
    """Run the study's missing cells; commit each finished batch atomically.

    Either pass a live ``session`` or a ``session_factory`` (called only if
    some cell is left to run). Returns the statistics of this run.
    """
    out_dir = Path(out_dir)
    store = claim_directory(study, out_dir)
    plan = plan_run(study, out_dir)
    stats = RunStats(cells_total=len(study.cells), cells_skipped=plan.skipped)
    meter = Progress(study.kind, len(study.cells), plan.skipped, plan.total_cost, plan.done_cost,
                     enabled=progress)
    if not plan.pending:
        stats.completed = True
        if progress:
            sys.stderr.write(f"[{study.kind}] all {len(study.cells)} cells already done in {out_dir}\n")
        return stats

    session, stats.startup_seconds = open_session(session, session_factory)
    sc = session.sparkContext
    stats.master = sc.master or ""
    stats.slots = max(1, int(sc.defaultParallelism))
    batches = _batches(plan.pending, study.cost, stats.slots, batch_size)
    meter.show(force=True)
    started = time.monotonic()
    try:
        run_batches_on_spark(sc, study, batches, store, stats, meter, jobs_in_flight, on_commit)
        stats.completed = True
    finally:
        close_stats(stats, time.monotonic() - started)
        meter.finish()
    return stats


def merge_stats(previous: Iterable[dict]) -> dict:
    """Add up the statistics of several runs of one study (resumed runs)."""
    total: dict = {}
    for stats in previous:
        for key, value in stats.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value
    return total
