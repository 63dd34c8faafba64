"""benchmarks/_harness.py, the one scaffolding of the benchmark scripts:
its timing loops on a scripted clock (no real time is asserted), the
alternation of the A/B sides, CSV written and read back, and the baseline
revision laid out as the installed package."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import _harness as H


class ScriptedClock:
    """A clock whose readings are given: each call returns the next one."""

    def __init__(self, readings):
        self.readings = iter(readings)

    def __call__(self) -> float:
        return next(self.readings)


@given(st.lists(st.integers(0, 1000), min_size=1, max_size=9))
def test_best_and_median_of_the_durations_the_clock_gives(durations):
    readings = [x for d in durations for x in (0.0, float(d))]  # each call takes d
    calls = []
    best, value = H.best_of(len(durations), lambda: calls.append(1) or len(calls), clock=ScriptedClock(readings))
    assert best == min(durations) and value == len(durations) == len(calls)
    median, _ = H.median_of(len(durations), lambda: None, clock=ScriptedClock(readings))
    ordered = sorted(durations)
    middle = len(ordered) // 2
    assert median == (ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2)


def test_setup_and_warm_up_run_untimed_around_the_timed_calls():
    events = []
    clock = ScriptedClock([0.0, 5.0, 10.0, 12.0])  # two timed calls: 5 and 2
    seconds, _ = H.best_of(2, lambda: events.append("call"), clock=clock, setup=lambda: events.append("setup"),
                           warm_up=1)
    assert seconds == 2.0
    assert events == ["call", "setup", "call", "setup", "call"]


def test_per_item_and_rate_time_each_item():
    results: list = []
    times = H.per_item(lambda x: x * 2, [1, 2, 3], clock=ScriptedClock([0, 1, 1, 3, 3, 6]), results=results)
    assert times == [1, 2, 3] and results == [2, 4, 6]
    assert H.rate(lambda x: x, [1, 2, 3, 4], clock=ScriptedClock([10.0, 12.0])) == 2.0


def test_interleaved_alternates_the_sides_round_by_round():
    order = []
    runs = H.interleaved(3, {"before": lambda: order.append("b") or len(order),
                             "after": lambda: order.append("a") or len(order)})
    assert order == ["b", "a"] * 3
    assert runs == {"before": [1, 3, 5], "after": [2, 4, 6]}


def test_ab_table_gives_best_median_and_their_ratios(capsys):
    rows = H.ab_table([{"x": 1.0}, {"x": 3.0}, {"x": 2.0}], [{"x": 4.0}, {"x": 2.0}, {"x": 6.0}], width=10)
    assert rows == [{"workload": "x", "before_best": 3.0, "after_best": 6.0, "ratio_best": 2.0,
                     "before_median": 2.0, "after_median": 4.0, "ratio_median": 2.0}]
    assert capsys.readouterr().out.splitlines()[1].split() == ["x", "3", "6", "2.00", "2", "4", "2.00"]


@given(st.lists(st.fixed_dictionaries({"a": st.integers(), "b": st.floats(allow_nan=False, allow_infinity=False)},
                                      optional={"c": st.text("xyz", min_size=1)}),
                min_size=1, max_size=5))
def test_csv_written_is_read_back_with_its_numbers(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("csv") / "sub" / "rows.csv"
    said = []
    H.write_csv(path, rows, say=said.append)
    assert said == [f"wrote {path}"]
    back = H.read_csv(path)
    columns = list(dict.fromkeys(key for row in rows for key in row))
    assert [list(row) for row in back] == [columns] * len(rows)
    for row, read in zip(rows, back, strict=True):
        assert read["a"] == row["a"] and read["b"] == row["b"]
        assert read.get("c", "") == row.get("c", "")


def test_no_rows_write_no_file_and_appending_writes_one_header(tmp_path):
    assert not H.write_csv(tmp_path / "none.csv", [], say=None).exists()
    path = tmp_path / "log.csv"
    H.append_csv(path, {"label": "a", "rate": 1})
    H.append_csv(path, {"label": "b", "rate": 2})
    assert H.read_csv(path) == [{"label": "a", "rate": 1}, {"label": "b", "rate": 2}]


def test_the_baseline_is_laid_out_as_the_installed_package(tmp_path):
    package_root = H.extract("HEAD", tmp_path)
    for folder in H.MAPPED_FOLDERS:
        assert (package_root / "cbalgebra" / folder / "__init__.py").is_file()
    assert H.working_folder(package_root) == package_root and H.working_folder(None) == H.ROOT
    assert H.environment(package_root)["PYTHONPATH"].split(os.pathsep)[0] == str(package_root)
    result = H.run_json([sys.executable, "-c", "import cbalgebra, json; print(json.dumps({'package': "
                         "cbalgebra.__file__, 'n': 1}))"], package_root)
    assert result == {"n": 1}  # and the child imported the extracted package, or run_json raises
    with pytest.raises(RuntimeError, match="expected a package under"):
        H.imported_package({"package": str(H.ROOT / "cbalgebra" / "__init__.py")}, package_root)


def test_matcher_sources_import_each_other_under_the_given_name():
    sources = H.matcher_sources(None, "matcher_under_test")
    assert "table.py" in sources and "_kernels.py" in sources
    assert not any("cbalgebra.matcher" in text for text in sources.values())
    assert any("matcher_under_test." in text for text in sources.values())
