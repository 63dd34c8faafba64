"""``cbalgebra forward`` (through the main CLI and ``python -m cbalgebra.matcher``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from test_matcher_bulk import documents

import cbalgebra as cb
from cbalgebra.cli import main

TABLE = """// Figure 2 of Carzaniga & Wolf (SIGCOMM 2003), as an SFF driver file
set preprocessing_limit = 5;
ifconfig 1 dest = "Atlanta", price < 500 | stock = "DYS", quantity > 1000, price < 500;
ifconfig 2 airline = "UA", orig = "Chicago", dest = "Atlanta" | dest = "New York", price < 200
  | orig = "Chicago" | airline = "UA", upgradeable = true;
ifconfig 3 stock = "MSFT", price < 200;
select orig = "Chicago" price = 100;
select stock = "MSFT" price = 150;
select price = 1;
"""


@pytest.fixture
def files(tmp_path):
    table = tmp_path / "table.sff"
    table.write_text(TABLE)
    msgs = tmp_path / "messages.txt"
    msgs.write_text('publish [string dest = "New York", int price = 10, string stock = "MSFT"]\n')
    return table, msgs


def test_forward_text_and_json(files, capsys):
    table, msgs = files
    assert main(["forward", str(table)]) == 0
    assert capsys.readouterr().out == "2\n3\n\n"
    assert main(["forward", str(table), str(msgs), "--batch"]) == 0
    assert capsys.readouterr().out == "2 3\n"
    assert main(["forward", str(table), "--json", "--broadcast", "1,3", "--preprocessing-rounds", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["interfaces"] == [1, 2, 3] and doc["preprocessing_rounds"] == 0
    assert [r["interfaces"] for r in doc["results"]] == [[], [3], []]
    assert [r["line"] for r in doc["results"]] == [7, 8, 9]


def test_forward_stats_and_stdin(files, capsys, monkeypatch):
    table, _ = files
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("select price = 100 stock = \"MSFT\";\n"))
    assert main(["forward", str(table), "-", "--stats"]) == 0
    out = capsys.readouterr()
    assert out.out == "3\n"
    assert "constraints" in out.err and "us/message" in out.err


@pytest.mark.parametrize("args,needle", [
    (["forward", "/no/such/file.sff"], "no such file"),
    (["forward", "{bad}"], "line 1"),
    (["forward", "{table}", "--broadcast", "x"], "--broadcast"),
    (["forward", "{mixed}"], "either ifconfig or subscribe"),
])
def test_forward_errors_one_line(files, tmp_path, capsys, args, needle):
    table, _ = files
    bad = tmp_path / "bad.sff"
    bad.write_text("ifconfig 1 price <;\n")
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("ifconfig 1 x = 1;\nsubscribe x = 2\n")
    args = [a.format(bad=bad, table=table, mixed=mixed) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_forward_on_generated_sff(tmp_path, capsys):
    w = cb.workloads.forwarding(interfaces=8, filters_per_interface=(1, 30), messages=50, seed=3)
    path = tmp_path / "w.sff"
    w.write_sff(path)
    assert main(["forward", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = [" ".join(str(i) for i, p in sorted(w.predicates().items()) if cb.matches(p, m)) for m in w.messages]
    assert lines == expected


def test_python_dash_m(files):
    table, msgs = files
    r = subprocess.run([sys.executable, "-m", "cbalgebra.matcher", "forward", str(table), str(msgs)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "2 3\n"
    r = subprocess.run([sys.executable, "-m", "cbalgebra.matcher", "forward", str(table) + ".missing"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_forward_numbers_sff_and_write_sff(tmp_path, capsys):
    import json

    from sff_oracle import parse as sff_parse

    table = tmp_path / "t.sff"
    table.write_text("set preprocessing_limit = 2;\nifconfig 1 x > 2;\nifconfig 2 x > 2.5, y <= 4;\n"
                     "select x = 3.0;\nselect x = 3 y = 4;\nselect x = 2.5;\n")
    assert main(["forward", str(table)]) == 0
    assert capsys.readouterr().out == "\n1\n\n"  # strict: 3.0 is not an int, 3 not a float
    out = tmp_path / "out.sff"
    assert main(["forward", str(table), "--numbers", "sff", "--json", "--write-sff", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["numbers"] == "sff"
    assert [r["interfaces"] for r in doc["results"]] == [[1], [1, 2], []]
    written = out.read_text()
    kinds = [s.kind for s in sff_parse(written)]  # SFF's grammar accepts it, limit after the table
    assert kinds == ["ifconfig", "ifconfig", "set", "select", "select", "select"]
    assert "y < 5" in written
    assert main(["forward", str(out), "--numbers", "sff"]) == 0
    assert capsys.readouterr().out == "1\n1 2\n\n"


@pytest.mark.parametrize("args, needle", [
    (["--write-sff", "-"], "--write-sff needs a file name"),
    (["--write-sff", "{missing}/x.sff"], "--write-sff: cannot write"),
])
def test_forward_numbers_and_write_sff_errors(tmp_path, capsys, args, needle):
    table = tmp_path / "t.sff"
    table.write_text("ifconfig 1 x > 2;\nselect x = 3;\n")
    args = [a.format(missing=tmp_path / "missing") for a in args]
    assert main(["forward", str(table), *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_write_sff_refuses_what_sff_cannot_say(tmp_path, capsys):
    table = tmp_path / "t.sff"
    table.write_text('ifconfig 1 x = 1;\nselect s = "\\01";\n')  # U+0000 then "1": SFF would read \01
    out = tmp_path / "out.sff"
    assert main(["forward", str(table), "--write-sff", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--write-sff" in err and "U+0000" in err and err.count("\n") == 1
    assert not out.exists()


def test_forward_numbers_usage_error(tmp_path, capsys):
    table = tmp_path / "t.sff"
    table.write_text("ifconfig 1 x > 2;\n")
    assert main(["forward", str(table), "--numbers", "loose"]) == 2
    assert "invalid choice" in capsys.readouterr().err


# ------------------------------------------- the bulk reader behind the command
def _object_path_answer(text: str, name: str) -> tuple[int, str, str]:
    """What ``cbalgebra forward`` printed when it read its table through the
    value parser and ``ForwardingTable.compile`` (before issue 23): the
    reference of the bulk path it reads through now."""
    from cbalgebra.matcher.document import read_document, table_from_document_objects
    from cbalgebra.parse import ParseError

    try:
        doc = read_document(text)
        table = table_from_document_objects(text)
    except ParseError as e:
        return 2, "", f"error: {name}: line {e.line}, column {e.column}: {e.reason}\n"
    return 0, "".join(" ".join(str(i) for i in table.forward(m).tolist()) + "\n" for m in doc.messages), ""


def test_forward_reads_its_table_through_the_bulk_reader(tmp_path, capsys, monkeypatch):
    """The command no longer builds a Constraint per row (issue 23 §5)."""
    from cbalgebra.matcher import document

    def no_values(*args, **kwargs):
        raise AssertionError("the table went through the value parser (read_document)")

    path = tmp_path / "t.sff"
    path.write_text(TABLE)
    monkeypatch.setattr(document, "parse_document", no_values)  # what read_document reads with
    assert main(["forward", str(path)]) == 0
    assert capsys.readouterr().out == "2\n3\n\n"


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=documents())
def test_forward_answers_as_the_object_path_did(text, tmp_path, capsys):
    """Generated documents, valid and malformed: the same output, exit code
    and one-line error as the value parser and ``compile`` gave."""
    path = tmp_path / "doc.sff"
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    code = main(["forward", str(path)])
    out, err = capsys.readouterr()
    assert (code, out, err) == _object_path_answer(text, str(path)), text
    if code == 0:
        assert main(["forward", str(path), "--json"]) == 0
        results = json.loads(capsys.readouterr().out)["results"]
        from cbalgebra.matcher.document import read_document

        assert [r["line"] for r in results] == read_document(text).message_lines
