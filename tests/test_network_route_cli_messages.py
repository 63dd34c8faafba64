"""``cbalgebra route`` says where its predicates came from and names its own
flags in errors (issue 24 §4)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run
from test_network_route_cli import FIGURE_3_PREDICATES, figure_3_files


@pytest.fixture
def files(tmp_path):
    return figure_3_files(tmp_path)


def test_predicates_from_a_file_are_reported_as_read_from_it(capsys, files):
    net, preds = files
    code, out, err = run(capsys, "route", str(net), "--predicates", str(preds), "--count", "1", "--quiet")
    assert code == 0, err
    assert f"predicates read from {preds}" in out and "generated" not in out
    code, out, err = run(capsys, "route", str(net), "--predicates", str(preds), "--count", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["summary"]["predicates"] == f"read from {preds}"


def test_predicates_from_standard_input_are_reported_as_read_from_it(capsys, files, monkeypatch):
    import io

    net, _ = files
    monkeypatch.setattr("sys.stdin", io.StringIO(FIGURE_3_PREDICATES))
    code, out, err = run(capsys, "route", str(net), "--predicates", "-", "--count", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["summary"]["predicates"] == "read from standard input"


def test_generated_predicates_name_the_generator(capsys):
    code, out, err = run(capsys, "route", "grid", "-n", "4", "-k", "2", "--count", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["summary"]["predicates"].startswith("DNF generator of Carzaniga, Rembert & Wolf 2006")


@pytest.mark.parametrize("where", ["--source", "messages"])
def test_a_source_that_is_not_a_sender_names_the_senders_flag(capsys, files, tmp_path, where):
    net, preds = files
    if where == "--source":
        extra = ["--source", "2", "--count", "1"]
    else:
        msgs = tmp_path / "messages.txt"
        msgs.write_text("2: [int p1 = 1]\n")
        extra = ["--messages", str(msgs)]
    code, out, err = run(capsys, "route", str(net), "--predicates", str(preds), "--senders", "0,1", *extra)
    assert code == 2 and out == ""
    assert err == "error: processor 2 is not a sender: list it in --senders (given: 0,1)\n"
