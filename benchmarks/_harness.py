"""The scaffolding every benchmark script shares: timing, A/B against a baseline revision, CSV.

Timing
    :func:`timed` (one call), :func:`cpu_and_wall`, :func:`best_of` and
    :func:`median_of` (repeated calls, optional untimed ``setup`` before each
    and ``warm_up`` calls first), :func:`each` (one pass over items, the
    work a rate times), :func:`per_item` (one time per item, for
    medians and percentiles per message), :func:`rate` (items per second of
    one pass), :func:`child_usage` (wall, CPU and peak memory of a child
    process), :func:`load_average` and :func:`cpus_and_load`. On the shared
    machine CPU time (``time.process_time`` / ``time.thread_time``) is the
    clock to compare: wall time also counts waiting for a core.

A/B against a baseline revision
    The baseline is a git revision, by default where this branch left
    ``main`` (:func:`default_ref`). :func:`extracted` unpacks its tree with
    ``git archive`` into a scratch folder and lays it out as the installed
    package (``cbalgebra/`` with ``grammar/``, ``reducers/``, ``matcher/`` and
    ``studies/`` inside it, as setup.py maps them), so nothing is installed
    and the editable install of this checkout stays as it is. A child
    process imports the baseline when that folder is first on
    ``PYTHONPATH`` and the child's working folder is not this checkout
    (``python -m`` and ``-c`` put the working folder first on ``sys.path``):
    :func:`environment` and :func:`working_folder` give both; the editable
    install's import hook comes after the path entries, so it is not
    consulted. :func:`run_json` runs such a child and reads the JSON object
    on its last line, checking (``"package"``, the child's
    ``cbalgebra.__file__``) that it imported the package it was meant to.
    :func:`ab_rounds` runs a script's ``--round`` in children, baseline and
    this checkout alternating (:func:`ab_parser` and :func:`ab_script` are
    such a script's command line), and :func:`ab_table` prints the ratios.
    Scripts that compare one part side by side in one process load the
    baseline's matcher package under another name
    (:func:`load_baseline_matcher`, :func:`matcher_sources`,
    :func:`write_package`) or its ``values.py`` (:func:`load_baseline_values`),
    with the command line :func:`side_by_side_parser` (and :func:`output_folder`,
    :func:`show_log`). :func:`interleaved` is the one alternation loop: every
    side once per round, so that both see the same machine.

CSV
    :func:`write_csv` (under ``benchmarks/results/`` unless told otherwise;
    written to a temporary file and renamed, so an interrupted run leaves
    the previous results whole), :func:`append_csv` and :func:`read_csv`.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "tools"))  # tools/ is not a package: its layout module is read from there
from layout import MAPPED_FOLDERS  # noqa: E402 - the folders installed as subpackages, declared once in pyproject.toml

T = TypeVar("T")
Clock = Callable[[], float]


# ------------------------------------------------------------------ timing
def load_average(digits: int | None = 2) -> float:
    """The 1-minute load average (rounded to ``digits``; NaN where the system has none)."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - not on Linux
        return float("nan")
    return load if digits is None else round(load, digits)


def cpus_and_load() -> str:
    """``N cpus, load L``: the machine a run had, for its first line."""
    return f"{os.cpu_count()} cpus, load {load_average():.1f}"


def timed(fn: Callable[[], T], clock: Clock = time.perf_counter) -> tuple[float, T]:
    """(seconds of one call of ``fn`` by ``clock``, its value)."""
    start = clock()
    value = fn()
    return clock() - start, value


def cpu_and_wall(fn: Callable[[], T]) -> tuple[float, float, T]:
    """(CPU seconds of this process, wall seconds, value) of one call of ``fn``."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, value


def _repeated(repeats: int, fn: Callable[[], T], clock: Clock, setup: Callable[[], object] | None,
              warm_up: int) -> tuple[list[float], T]:
    for _ in range(warm_up):
        fn()
    times: list[float] = []
    value: Any = None
    for _ in range(repeats):
        if setup is not None:
            setup()
        seconds, value = timed(fn, clock)
        times.append(seconds)
    return times, value  # the value of the last call (repeats >= 1)


def best_of(repeats: int, fn: Callable[[], T], *, clock: Clock = time.perf_counter,
            setup: Callable[[], object] | None = None, warm_up: int = 0) -> tuple[float, T]:
    """(the least seconds of ``repeats`` calls, the last value); ``setup`` runs untimed
    before each call, ``warm_up`` untimed calls come first."""
    times, value = _repeated(repeats, fn, clock, setup, warm_up)
    return min(times), value


def median_of(repeats: int, fn: Callable[[], T], *, clock: Clock = time.perf_counter,
              setup: Callable[[], object] | None = None, warm_up: int = 0) -> tuple[float, T]:
    """(the median seconds of ``repeats`` calls, the last value); as :func:`best_of`."""
    times, value = _repeated(repeats, fn, clock, setup, warm_up)
    return statistics.median(times), value


def per_item(fn: Callable[[Any], object], items: Iterable[Any], clock: Clock = time.thread_time,
             results: list | None = None) -> list[float]:
    """The seconds of ``fn(item)`` for each item (this thread's CPU time by default);
    the values are appended to ``results`` if given."""
    times = []
    for item in items:
        start = clock()
        value = fn(item)
        times.append(clock() - start)
        if results is not None:
            results.append(value)
    return times


def each(fn: Callable[[Any], object], items: Iterable[Any]) -> None:
    """Call ``fn`` on every item (one pass, the results dropped): the work a rate times."""
    for item in items:
        fn(item)


def rate(fn: Callable[[Any], object], items: Sequence[Any], clock: Clock = time.process_time) -> float:
    """Items per second of one pass of ``fn`` over ``items`` (CPU time of this process by default)."""
    seconds, _ = timed(lambda: each(fn, items), clock)
    return len(items) / seconds


def child_usage(argv: Sequence[str], env: Mapping[str, str], cwd: str | Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one child
    process; its output is discarded. A failing child raises RuntimeError."""
    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        child = subprocess.Popen(list(argv), stdout=sink, stderr=subprocess.PIPE, env=dict(env), cwd=cwd)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        assert child.stderr is not None
        err = child.stderr.read().decode()
        child.stderr.close()
    seconds = time.perf_counter() - start
    if child.returncode != 0:
        raise RuntimeError(f"{list(argv)} failed ({child.returncode}): {err[:500]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # ru_maxrss is in KB on Linux


# ------------------------------------------------------- baseline revision
def default_ref() -> str:
    """The commit where this branch left ``main`` (``git merge-base HEAD main``)."""
    return _git("merge-base", "HEAD", "main").strip()


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout


def extract(ref: str, into: Path) -> Path:
    """``ref``'s package laid out as installed under ``into``; returns the folder to import it from.

    Older trees kept every subpackage inside ``cbalgebra/``; a mapped folder is
    moved in only where the tree has it beside ``cbalgebra/``.
    """
    tree = into / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    package_root = into / "package"
    shutil.copytree(tree / "cbalgebra", package_root / "cbalgebra")
    for folder in MAPPED_FOLDERS:
        if (tree / folder).is_dir() and not (package_root / "cbalgebra" / folder).exists():
            shutil.copytree(tree / folder, package_root / "cbalgebra" / folder)
    shutil.rmtree(tree)
    return package_root


@contextlib.contextmanager
def extracted(ref: str) -> Iterator[Path]:
    """:func:`extract` into a temporary folder, removed on leaving the block."""
    with tempfile.TemporaryDirectory(prefix="cbalgebra-baseline-") as scratch:
        yield extract(ref, Path(scratch))


def environment(package_root: Path | None, **extra: str) -> dict[str, str]:
    """The environment of a child importing the package at ``package_root`` (None: this checkout)."""
    env = {**os.environ, **extra}
    if package_root is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(package_root), os.environ.get("PYTHONPATH")) if p)
    return env


def working_folder(package_root: Path | None) -> Path:
    """Where such a child runs: outside this checkout for the baseline, so that it does not shadow it."""
    return package_root if package_root is not None else ROOT


def imported_package(result: dict[str, Any], package_root: Path | None) -> dict[str, Any]:
    """``result`` without its ``"package"`` entry, after checking that the child imported
    ``cbalgebra`` from ``package_root`` (None: this checkout)."""
    expected = package_root if package_root is not None else ROOT
    package = Path(result.pop("package"))
    if not package.resolve().is_relative_to(expected.resolve()):
        raise RuntimeError(f"the child imported {package}, expected a package under {expected}")
    return result


def run_json(argv: Sequence[str], package_root: Path | None, *, timeout: float | None = None,
             **env: str) -> dict[str, Any] | None:
    """Run ``argv`` importing the package at ``package_root`` (None: this checkout) and return
    the JSON object on its last line of output; None when it runs past ``timeout`` seconds.

    When the object has a ``"package"`` entry, it must name a file of that package."""
    try:
        done = subprocess.run(list(argv), env=environment(package_root, **env), cwd=working_folder(package_root),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if "package" in result:
        result = imported_package(result, package_root)
    return result


def side_by_side_parser(description: str, what: str, *, rounds: tuple[str, int, str],
                        quick: bool = True) -> argparse.ArgumentParser:
    """The command line of a script that loads a baseline revision's ``what`` beside this
    checkout's: ``--baseline REV`` (default HEAD~1), ``rounds`` (flag, default, help) for the
    alternations, ``--quick`` and ``--seed`` if ``quick``, and ``--out DIR`` (default
    benchmarks/results: see :func:`output_folder`)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--baseline", default="HEAD~1", help=f"git revision of the baseline {what} (default HEAD~1)")
    flag, default, help_text = rounds
    ap.add_argument(flag, type=int, default=default, help=help_text)
    if quick:
        ap.add_argument("--quick", action="store_true")
        ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    return ap


def output_folder(out: str | None) -> Path:
    """``--out`` as a folder, benchmarks/results when not given."""
    return Path(out) if out else RESULTS


def show_log() -> None:
    """Print the scripts' log records as time-stamped lines (long runs say how far they are)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")


def interleaved(rounds: int, sides: Mapping[str, Callable[[], T]]) -> dict[str, list[T]]:
    """Each side's results of ``rounds`` rounds, every side called once per round
    in the given order (so that baseline and current see the same machine)."""
    results: dict[str, list[T]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, run in sides.items():
            results[name].append(run())
    return results


def ab_rounds(script: str | Path, rounds: int, baseline: str | None) -> tuple[str, list[dict], list[dict]]:
    """(the baseline ref, its results, this checkout's): ``rounds`` runs of
    ``script --round`` in fresh interpreters, alternating the baseline's package
    (``baseline``, default :func:`default_ref`) and this checkout's. Each run
    prints one JSON object of numbers (and ``"package"``) as its last line."""
    ref = baseline or default_ref()

    def one_round(package_root: Path | None) -> dict:
        result = run_json([sys.executable, str(Path(script).resolve()), "--round"], package_root)
        assert result is not None  # no timeout was set
        return result

    with extracted(ref) as package_root:
        runs = interleaved(rounds, {"before": lambda: one_round(package_root), "after": lambda: one_round(None)})
    return ref, runs["before"], runs["after"]


def ab_parser(description: str) -> argparse.ArgumentParser:
    """The command line of an A/B script (:func:`ab_script`): ``--rounds`` (5),
    ``--baseline REV`` and the hidden ``--round`` a child runs."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds of each side")
    ap.add_argument("--baseline", default=None, help="git revision of the baseline (default: the merge base with main)")
    ap.add_argument("--round", action="store_true", help=argparse.SUPPRESS)
    return ap


def ab_script(args: argparse.Namespace, script: str | Path,
              one_round: Callable[[], dict]) -> tuple[str, list[dict], list[dict]] | None:
    """In a child (``--round``): print ``one_round()`` as JSON for the parent and return None.
    Otherwise :func:`ab_rounds` of ``script``."""
    if args.round:
        print(json.dumps(one_round()))
        return None
    return ab_rounds(script, args.rounds, args.baseline)


def ab_table(before: list[dict], after: list[dict], width: int) -> list[dict]:
    """Print best and median of each key of the rounds of both sides with their
    ratio (after / before: above 1 is faster, the numbers being rates); returns
    one row a key."""
    print(f"{'workload':<{width}} {'before best':>12} {'after best':>12} {'ratio':>6} "
          f"{'before med':>11} {'after med':>11} {'ratio':>6}")
    rows = []
    for key in before[0]:
        b, a = [r[key] for r in before], [r[key] for r in after]
        row = {"workload": key, "before_best": max(b), "after_best": max(a), "ratio_best": max(a) / max(b),
               "before_median": statistics.median(b), "after_median": statistics.median(a),
               "ratio_median": statistics.median(a) / statistics.median(b)}
        rows.append(row)
        print(f"{key:<{width}} {row['before_best']:>12,.0f} {row['after_best']:>12,.0f} {row['ratio_best']:>6.2f} "
              f"{row['before_median']:>11,.0f} {row['after_median']:>11,.0f} {row['ratio_median']:>6.2f}")
    return rows


def matcher_sources(rev: str | None, package: str) -> dict[str, str]:
    """The modules of the matcher package at git revision ``rev`` (the working
    tree for None), renamed to import each other as ``package``."""
    if rev is None:
        sources = {path.name: path.read_text() for path in (ROOT / "matcher").glob("*.py")}
    else:
        sources = {name: _git("show", f"{rev}:matcher/{name}")
                   for name in _git("ls-tree", "--name-only", f"{rev}:matcher").split() if name.endswith(".py")}
    return {name: text.replace("cbalgebra.matcher", package) for name, text in sources.items()}


def write_package(folder: Path, package: str, sources: Mapping[str, str]) -> Path:
    """``sources`` written as package ``package`` under ``folder``; returns the package's folder."""
    where = folder / package
    where.mkdir()
    for name, text in sources.items():
        (where / name).write_text(text)
    return where


def load_baseline_matcher(rev: str, folder: Path, package: str = "baseline_matcher") -> ModuleType:
    """The matcher package of ``rev``, importable as ``package`` from ``folder``: returns its table module."""
    write_package(folder, package, matcher_sources(rev, package))
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(f"{package}.table")


def load_baseline_values(rev: str, folder: Path) -> ModuleType:
    """``cbalgebra/values.py`` of ``rev`` (it imports nothing of cbalgebra),
    importable as ``baseline_values``: its Message, built side by side with
    this checkout's."""
    (folder / "baseline_values.py").write_text(_git("show", f"{rev}:cbalgebra/values.py"))
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module("baseline_values")


# ------------------------------------------------------------------ CSV
def write_csv(path: str | Path, rows: Sequence[Mapping[str, Any]], fields: Sequence[str] | None = None, *,
              say: Callable[[str], object] | None = print) -> Path:
    """Write ``rows`` as CSV to ``path`` (its folder made if need be) and ``say``
    ``wrote PATH``. The columns are ``fields``, by default every key of the rows
    in the order first seen; a row without a column leaves it empty. No rows,
    no file."""
    path = Path(path)
    if not rows:
        return path
    if fields is None:
        fields = list(dict.fromkeys(key for row in rows for key in row))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(fields))
        writer.writeheader()
        writer.writerows(rows)
    partial.replace(path)
    if say is not None:
        say(f"wrote {path}")
    return path


def append_csv(path: str | Path, row: Mapping[str, Any]) -> None:
    """Append one row to the CSV at ``path``, with a header of the row's keys if the file is new."""
    path = Path(path)
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)


def read_csv(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a CSV a benchmark wrote, numbers converted back (none if there is no file)."""
    path = Path(path)
    if not path.exists():
        return []

    def number(text: str) -> Any:
        """``text`` as an int, else as a float, else as it is."""
        with contextlib.suppress(ValueError):
            return int(text)
        with contextlib.suppress(ValueError):
            return float(text)
        return text

    with path.open(newline="", encoding="utf-8") as fh:
        return [{key: number(value) for key, value in row.items()} for row in csv.DictReader(fh)]
