"""One study-plugin protocol (issue 25): every registered study implements StudyPlugin, the command line
offers exactly the registered studies, and a committed results folder is rebuilt, resumed and reported
through the protocol alone."""

from __future__ import annotations

import argparse
import inspect
import json
import pickle
import re
from pathlib import Path

import pandas as pd
import pytest

from cbalgebra.cli import build_parser
from cbalgebra.studies import jobs, report
from cbalgebra.studies.cli import SHARED_FLAGS
from cbalgebra.studies.flags import (
    conf_type,
    fraction_list,
    int_list,
    name_list,
    positive_int_type,
    seconds_type,
    seed_type,
)
from cbalgebra.studies.plugin import REGISTRY, SHARED_FLAG_NAMES, StudyPlugin, plugin, registered
from cbalgebra.studies.runner import StudyError
from cbalgebra.studies.summary import summary_csv

from cbalgebra.clibase import UsageError

RESULTS = Path(__file__).resolve().parent.parent / "studies" / "results"
NAMES = [p.name for p in registered()]


def _study_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    study = next(a for a in parser._subparsers._group_actions if "study" in a.choices).choices["study"]
    return dict(next(a for a in study._subparsers._group_actions).choices)


def _manifest(name: str) -> dict:
    return json.loads((RESULTS / name / "study.json").read_text())


@pytest.mark.parametrize("study", registered(), ids=NAMES)
def test_every_registered_study_implements_the_protocol(study):
    assert isinstance(study, StudyPlugin)
    assert not inspect.isabstract(type(study))
    for text in (study.name, study.summary, study.help, study.description):
        assert isinstance(text, str) and text.strip()
    assert tuple(study.shared_flags) == SHARED_FLAG_NAMES
    assert all(m is None or (isinstance(m, str) and m) for m in study.shared_flags.values())
    assert "seed" in study.key_columns and len(set(study.key_columns)) == len(study.key_columns)
    assert isinstance(study.model_version, int)
    # Spark ships the cell function by reference: it must be a module-level function.
    assert pickle.loads(pickle.dumps(study.run_cell)) is study.run_cell
    assert study.outputs is not None or all(
        getattr(type(study), m) is not getattr(StudyPlugin, m) for m in ("summarise", "draw", "report"))


def test_the_registry_names_each_study_once_in_its_order():
    assert len(REGISTRY) == len(NAMES) == len(set(NAMES))
    assert NAMES == ["alpha-general", "alpha-dnf", "routing", "matchmaker", "amsp"]
    assert [plugin(name) for name in NAMES] == list(registered())
    with pytest.raises(ValueError, match="no study is called 'alpha'"):
        plugin("alpha")


def test_the_command_line_offers_exactly_the_registered_studies():
    parsers = _study_parsers()
    assert list(parsers) == NAMES
    assert list(SHARED_FLAGS) == NAMES
    for name, parser in parsers.items():
        assert parser.description == plugin(name).description
        assert parser.get_default("func").keywords["study"] is plugin(name)


@pytest.mark.parametrize("name", NAMES)
def test_a_committed_manifest_rebuilds_its_design(name):
    """study(config) of the manifest's configuration is the committed design (the fingerprint aside,
    which the code of today stamps); a rerun into the folder resumes it."""
    manifest = _manifest(name)
    study = jobs.study_in(RESULTS / name)
    assert study.kind == manifest["kind"] == name
    rebuilt = json.loads(json.dumps(study.config))
    committed = dict(manifest["config"])
    if "code_fingerprint" in committed:
        assert rebuilt.pop("code_fingerprint") and committed.pop("code_fingerprint")
    assert rebuilt == committed
    keys = pd.read_parquet(RESULTS / name / "results.parquet", columns=list(study.key_columns))
    assert len(keys) == len(study.cells)
    assert {tuple(r) for r in keys.itertuples(index=False, name=None)} == {study.key(c) for c in study.cells}


@pytest.mark.parametrize("name", NAMES)
def test_the_committed_summary_and_report_come_back_from_the_committed_rows(name, monkeypatch):
    """The outputs of the protocol, from the committed rows, are the committed summary.csv and report.md
    (the alpha reports print the day they were made: that day is given back to them)."""
    folder = RESULTS / name
    committed_report = (folder / "report.md").read_text(encoding="utf-8")
    day = re.search(r" on (\d{4}-\d\d-\d\d)\.", committed_report)
    if day is not None:
        monkeypatch.setattr(report.time, "strftime", lambda fmt: day.group(1))
    study = jobs.study_in(folder)
    results = jobs.load_results(study, folder)
    summary = jobs.summarise(study, results)
    assert summary_csv(summary) == (folder / "summary.csv").read_text(encoding="utf-8")
    assert jobs.write_report(study, summary, results, jobs.read_timing(folder)) == committed_report


def test_a_folder_of_no_registered_study_is_one_line(tmp_path):
    (tmp_path / "study.json").write_text(json.dumps({"kind": "alpha-mystery", "config": {}}))
    with pytest.raises(StudyError, match="not the manifest of a registered study") as info:
        jobs.study_in(tmp_path)
    assert "\n" not in str(info.value)
    with pytest.raises(StudyError):
        jobs.study_in(tmp_path / "missing")


# ------------------------------------------------------------------ the flag parsers every study shares
@pytest.mark.parametrize(("parse", "text", "value"), [
    (positive_int_type, "12", 12), (positive_int_type, "1e3", 1000), (seed_type, "0", 0),
    (seconds_type, "1", 1.0), (conf_type, " spark.x = 1=2", ("spark.x", " 1=2")),
])
def test_argument_types_accept(parse, text, value):
    assert parse(text) == value


@pytest.mark.parametrize(("parse", "text", "message"), [
    (positive_int_type, "0", "'0' must be at least 1"), (positive_int_type, "2.5", "'2.5' is not an integer"),
    (positive_int_type, "x", "'x' is not a number"), (seed_type, "-1", "'-1' must be non-negative"),
    (seed_type, "1e3", "'1e3' is not an integer"), (seconds_type, "inf", "'inf' must be at least 1 second"),
    (seconds_type, "nan", "'nan' must be at least 1 second"), (conf_type, "=1", "'=1' is not KEY=VALUE"),
])
def test_argument_types_refuse_in_one_line(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as info:
        parse(text)
    assert str(info.value) == message


def test_lists_keep_the_first_of_each_value_in_order():
    assert int_list("3, 1,,3", "--ks") == (3, 1)
    assert int_list("-2,0", "--sizes", minimum=None) == (-2, 0)
    assert fraction_list("0.5,1,0.5", "--r-fracs") == (0.5, 1.0)
    assert name_list("b,a,b", "--x", ("a", "b")) == ("b", "a")
    assert name_list("", "--real") == ()


@pytest.mark.parametrize(("call", "message"), [
    (lambda: int_list("4,3", "--ns", 4), "--ns: '3' must be at least 4"),
    (lambda: int_list("4,x", "--ns"), "--ns: 'x' is not an integer"),
    (lambda: int_list(" , ", "--ks"), "--ks: empty list"),
    (lambda: fraction_list("0", "--s-fracs"), "--s-fracs: '0' must be in (0, 1]"),
    (lambda: name_list("zipf-7", "--scenarios", ("zipf-500",), "scenario "),
     "--scenarios: unknown scenario 'zipf-7' (zipf-500)"),
    (lambda: name_list(",", "--reducers", ("siena",), required=True), "--reducers: empty list ','"),
])
def test_lists_refuse_naming_the_flag(call, message):
    with pytest.raises(UsageError) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("name", NAMES)
def test_a_committed_study_is_one_results_file_and_one_format_per_figure(name):
    """Issue 28 item 7: raw results in one file with a fixed name (no timestamped batches), and
    every figure once, as SVG, each one the report shows being there."""
    folder = RESULTS / name
    assert (folder / "results.parquet").is_file() and not (folder / "results.parts").exists()
    assert list(folder.glob("*.svg")) and not list(folder.glob("*.png"))
    shown = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (folder / "report.md").read_text(encoding="utf-8"))
    assert all(link.endswith(".svg") and (folder / link).is_file() for link in shown)
