"""Measured numbers on the docs pages come from benchmarks/results/ (issue 28 item 3): they are
written between `<!-- bench ... -->` markers that tools/bench_numbers.py fills from the CSV files,
never typed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import bench_numbers  # noqa: E402 - tools/ is not a package: its path is added above

#: Pages whose every measurement is filled from the benchmarks' results.
FILLED_PAGES = ("docs/guide/performance.md", "docs/guide/poset.md", "docs/guide/language.md",
                "docs/guide/development.md", "docs/guide/forwarding.md", "docs/guide/reducers.md",
                "docs/guide/studies.md")
# a measurement: a number with a unit of time, rate, size or speed-up (percentages are mostly
# parameters, such as a workload's mix, and are left out)
MEASUREMENT = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:µs|ms|s|min|MB|GB|MiB|×|x|[a-z]+/s)(?![\w/])")
# a bound or target, or the paper's number, is typed on purpose
STATED = re.compile(r"(?:≤|≥|<|>|~|target|bound|limit|paper:?|within|under)\s*$")


def test_every_page_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_numbers.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def typed_measurements(markdown: str) -> list[str]:
    """The measurement-like numbers of a page outside markers, code and stated bounds."""
    text = bench_numbers.MARKED.sub(" N ", bench_numbers.TABLE.sub(" ", markdown))
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", " ", text)
    return [m.group(0) for m in MEASUREMENT.finditer(text) if not STATED.search(text[max(0, m.start() - 12):m.start()])]


@pytest.mark.parametrize("page", FILLED_PAGES)
def test_no_measurement_is_typed(page):
    assert typed_measurements((ROOT / page).read_text(encoding="utf-8")) == []


def test_the_guard_sees_a_typed_measurement_and_lets_bounds_through():
    assert typed_measurements("takes 7.8 s, 1,277 inserts/s and 3.5× less; 50 % strings") == [
        "7.8 s", "1,277 inserts/s", "3.5×"]
    assert typed_measurements("target ≤ 30 s; bound 50 ms; <!-- bench x.csv v -->7.8<!-- /bench --> s") == []


@pytest.fixture
def results(tmp_path, monkeypatch):
    (tmp_path / "t.csv").write_text("family,n,seconds\na,1,0.5\na,2,1.5\nb,1,4\n", encoding="utf-8")
    (tmp_path / "nan.csv").write_text("n,seconds\n1,nan\n", encoding="utf-8")
    (tmp_path / "t.json").write_text('{"insert": {"n": 10000, "name": "x"}}', encoding="utf-8")
    monkeypatch.setattr(bench_numbers, "RESULTS", tmp_path)
    bench_numbers.read_rows.cache_clear()
    yield tmp_path
    bench_numbers.read_rows.cache_clear()


def fill(marker: str) -> str:
    return bench_numbers.filled(f"<!-- bench {marker} -->?<!-- /bench -->").split("-->")[1].split("<!--")[0]


def test_a_marker_selects_scales_reduces_and_formats(results):
    assert fill("t.csv family=b n=1 seconds") == "4"
    assert fill("t.csv family=a n=2 seconds*1000 ,.0f") == "1,500"
    assert fill("t.csv family=a seconds@max .2f") == "1.50"
    assert fill("t.csv seconds/2@median .3g") == "0.75"
    assert fill("t.csv family=a seconds@count .0f") == "2"
    assert fill("t.json insert.n ,.0f") == "10,000"
    assert fill('t.csv family="a" n=1 seconds') == "0.5"


@pytest.mark.parametrize(("marker", "reason"), [
    ("t.csv family=a seconds", "2 rows match"),
    ("t.csv family=c seconds", "0 rows match"),
    ("t.csv family=a n=1 nothing", "not a number"),
    ("missing.csv seconds", "does not exist"),
    ("t.json insert.name", "not a number"),
    ("t.csv", "a CSV file and a column"),
])
def test_a_bad_marker_is_one_clear_error(results, marker, reason):
    with pytest.raises(bench_numbers.MarkerError, match=reason):
        fill(marker)


def test_a_table_marker_writes_one_row_per_matching_csv_row(results):
    text = ('<!-- bench-table t.csv family=a n,seconds "n|time (s)" -->\nstale\n<!-- /bench-table -->')
    assert bench_numbers.filled(text) == (
        '<!-- bench-table t.csv family=a n,seconds "n|time (s)" -->\n\n| n | time (s) |\n|---|---|\n'
        "| 1 | 0.5 |\n| 2 | 1.5 |\n\n<!-- /bench-table -->")
    assert "| 1 | — |" in bench_numbers.filled('<!-- bench-table nan.csv n,seconds "n|s" -->\n<!-- /bench-table -->')
    with pytest.raises(bench_numbers.MarkerError, match="2 columns but 1 headings"):
        bench_numbers.filled('<!-- bench-table t.csv n,seconds "n" -->\n<!-- /bench-table -->')
    with pytest.raises(bench_numbers.MarkerError, match="no row matches"):
        bench_numbers.filled('<!-- bench-table t.csv family=z n "n" -->\n<!-- /bench-table -->')
