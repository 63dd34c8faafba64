"""The command line: exit codes, outputs, and no traceback ever."""

import io
import json
import subprocess
import sys

import pytest

from cbalgebra.cli import main
from cbalgebra.clibase import graphviz_available


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_covers_yes(capsys):
    code, out, _ = run(capsys, "covers", "int x = 2", "int x > 1 && int x < 3")
    assert code == 0 and out.strip() == "yes"


def test_covers_no_prints_a_counterexample(capsys):
    code, out, _ = run(capsys, "covers", 's <= "bz"', 's >* "b"')
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "no" and lines[1].startswith("counterexample: [string s = ")


def test_covers_predicates_and_advertisements(capsys):
    assert run(capsys, "covers", "[int x > 5] || [int x < 10]", "int x > 0")[0] == 0
    code, out, _ = run(capsys, "covers", "-a", 'what = "alarm"', 'what = "alarm", what = "login"')
    assert code == 1 and '"login"' in out


def test_arguments_from_files(tmp_path, capsys):
    (tmp_path / "x.txt").write_text("[int x > 5] || [int x < 10]\n")
    (tmp_path / "y.txt").write_text("int x > 0")
    assert run(capsys, "covers", f"@{tmp_path / 'x.txt'}", f"@{tmp_path / 'y.txt'}")[0] == 0


def test_match(capsys):
    p = '[alert-type="intrusion" ∧ severity>2 ∨ class="alert" ∧ device-type="web-server"]'
    m = '[class="alert", severity=6, device-type="web-server", alert-type="hardware failure"]'
    assert run(capsys, "match", p, m)[0] == 0
    assert run(capsys, "match", p, "[severity = 1]")[0] == 1


def test_overlaps(capsys):
    code, out, _ = run(capsys, "overlaps", "int x > 1", "int x < 3")
    assert code == 0 and "witness: [int x = 2]" in out
    assert run(capsys, "overlaps", "int x > 1", "int x < 2")[0] == 1


def test_parse_prints_canonical_form_and_json(tmp_path, capsys):
    f = tmp_path / "p.txt"
    f.write_text("x > 1, s >* \"a\" or y any int")
    code, out, _ = run(capsys, "parse", str(f))
    assert code == 0 and out.strip() == '[string s >* "a", int x > 1] || [int y any]'
    code, out, _ = run(capsys, "parse", "--json", str(f))
    data = json.loads(out)
    assert data["kind"] == "predicate" and len(data["filters"]) == 2


def test_parse_document(tmp_path, capsys):
    f = tmp_path / "d.txt"
    f.write_text("# a document\nsubscribe x > 1\npublish [x = 2]\nifconfig 1 y = 2;\n")
    code, out, _ = run(capsys, "parse", str(f))
    assert code == 0 and out.splitlines() == ["subscribe [int x > 1]", "publish [int x = 2]", "ifconfig 1 int y = 2;"]


def test_parse_from_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("int x > 1"))
    assert run(capsys, "parse", "-") == (0, "[int x > 1]\n", "")


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["covers", "x >", "y = 1"], "unexpected end of input"),
        (["covers", "int x >* 1", "y = 1"], "operator prefix does not apply to int"),
        (["match", "x = 1", "[x = 1, x = 2]"], "duplicate attribute 'x' in message"),
        (["parse", "/no/such/file"], "no such file"),
        (["covers", "@/no/such/file", "x = 1"], "no such file"),
        (["covers", "-a", "x = 1", "x = 1 || y = 2"], "cannot hold a disjunction"),
    ],
)
def test_bad_input_exits_2_with_the_reason(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err and "Traceback" not in err + out


def test_parse_error_shows_the_caret(capsys):
    _, _, err = run(capsys, "covers", "int x > 1 && y ~ 2", "x = 1")
    assert err.splitlines()[-1].strip() == "^" and "line 1, column 16" in err


@pytest.mark.slow
def test_console_script_and_module_never_show_a_traceback(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe not utf-8")
    for argv in (["covers", "x >", "y"], ["parse", str(bad)], ["nonsense-command"]):
        proc = subprocess.run([sys.executable, "-m", "cbalgebra", *argv], capture_output=True, text=True)
        assert proc.returncode == 2, proc
        assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_demo_runs_without_the_study(tmp_path, capsys):
    code, out, err = run(capsys, "demo", "--out", str(tmp_path), "--no-study")
    assert code == 0, err
    assert "matches(predicate, message) = True" in out
    assert "counterexample" in out and "cover:" in out and "forward(message) -> interfaces [1, 3]" in out
    assert (tmp_path / "poset.html").is_file()
    if graphviz_available():  # without it, tests/test_demo_fresh.py checks the demo skips the SVG
        assert (tmp_path / "poset.svg").read_text().lstrip().startswith("<")
