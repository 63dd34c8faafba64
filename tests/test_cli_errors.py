"""One error policy for every command: exit codes, messages a user can act on."""

import ast
import io
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from cbalgebra import cli, clibase, covering
from cbalgebra.cli import main
from cbalgebra.covering.errors import UndecidedError
from cbalgebra.parse import ParseError
from cbalgebra.poset import cli as poset_cli
from cbalgebra.poset.render import GraphvizError
from cbalgebra.reducers.minimal import ReductionBudgetError
from cbalgebra.studies import cli as studies_cli
from cbalgebra.values import InvalidValueError

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def binary_stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


# ------------------------------------------------------------ one policy
def test_one_set_of_exit_codes_and_one_usage_error():
    assert (clibase.EXIT_YES, clibase.EXIT_NO, clibase.EXIT_USAGE, clibase.EXIT_UNDECIDED,
            clibase.EXIT_UNAVAILABLE, clibase.EXIT_INTERNAL) == (0, 1, 2, 3, 69, 70)
    assert cli.UsageError is studies_cli.UsageError is poset_cli.UsageError is clibase.UsageError


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _package_imports(name: str) -> set[str]:
    return {m for m in _imports(ROOT / "cbalgebra" / f"{name}.py") if m.startswith("cbalgebra")}


def test_the_policy_module_imports_only_leaves():
    # the error root, the Graphviz runner and the Java finder, which import nothing else of the package
    assert _package_imports("clibase") == {"cbalgebra.errors", "cbalgebra.graphviz", "cbalgebra.java"}
    assert _package_imports("graphviz") == {"cbalgebra.errors"}
    assert _package_imports("java") == {"cbalgebra.errors"}
    assert _package_imports("errors") == set()


@pytest.mark.parametrize("plugin", ["matcher/cli.py", "matcher/__main__.py", "cbalgebra/poset/cli.py",
                                    "studies/cli.py", "reducers/cli.py", "cbalgebra/network/cli.py"])
def test_plugins_do_not_import_the_registry(plugin):
    assert "cbalgebra.cli" not in _imports(ROOT / plugin)


def test_no_installed_part_checks_are_left():
    for path in (ROOT / "cbalgebra" / "cli.py", ROOT / "cbalgebra" / "demo.py"):
        text = path.read_text(encoding="utf-8")
        assert "find_spec" not in text and "ModuleNotFoundError" not in text


@pytest.mark.parametrize("exc, code, needle", [
    (clibase.UsageError("bad"), 2, "error: bad"),
    (clibase.UnavailableError("no dot"), 69, "error: no dot"),
    (FileNotFoundError(2, "No such file or directory", "out/x"), 2, "No such file or directory: out/x"),
])
def test_report_maps_known_errors(capsys, exc, code, needle):
    assert clibase.report(exc) == code
    assert needle in capsys.readouterr().err


def test_report_maps_library_errors():
    assert clibase.describe(ParseError("oops", 1, 2, "x\n ^"))[1] == 2
    assert clibase.describe(InvalidValueError("bad"))[1] == 2
    assert clibase.describe(UndecidedError("z3 unknown")) == ("undecided: z3 unknown", 3)
    assert clibase.describe(ReductionBudgetError("minimal: too big"))[1] == 3
    assert clibase.describe(GraphvizError("dot failed"))[1] == 69
    assert clibase.describe(ZeroDivisionError()) is None  # a bug: exit 70


def test_a_bug_is_exit_70_without_a_traceback(capsys, monkeypatch):
    monkeypatch.delenv("CBALGEBRA_DEBUG", raising=False)
    monkeypatch.setattr(covering, "counterexample", lambda x, y: 1 / 0)
    code, _, err = run(capsys, "covers", "x = 1", "x = 1")
    assert code == 70 and "internal error: ZeroDivisionError" in err and "Traceback" not in err


# ---------------------------------------------------------------- flags
def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"cbalgebra {version('cbalgebra')}"


@pytest.mark.parametrize("command, usage", [
    (["covers", "--bogus", "x = 1", "x = 1"], "usage: cbalgebra covers "),
    (["match", "x = 1", "[x = 1]", "--bogus"], "usage: cbalgebra match "),
    (["reduce", "f.txt", "--bogus"], "usage: cbalgebra reduce "),
    (["forward", "t.sff", "--bogus"], "usage: cbalgebra forward "),
    (["poset", "d.txt", "--bogus"], "usage: cbalgebra poset "),
    (["study", "alpha-dnf", "--bogus"], "usage: cbalgebra study alpha-dnf "),
    (["demo", "--bogus"], "usage: cbalgebra demo "),
])
def test_unknown_flag_prints_the_subcommands_usage(capsys, command, usage):
    code, out, err = run(capsys, *command)
    assert code == 2 and out == ""
    assert err.startswith(usage), err
    assert err.rstrip().endswith("unrecognized arguments: --bogus")


def test_missing_argument_prints_the_subcommands_usage(capsys):
    code, _, err = run(capsys, "covers", "x = 1")
    assert code == 2 and err.startswith("usage: cbalgebra covers ") and "required: Y" in err


def test_a_bad_value_of_one_argument_is_one_line(capsys):
    code, _, err = run(capsys, "reduce", "-", "--reducer", "nope")
    assert code == 2 and len(err.splitlines()) == 1 and "invalid choice: 'nope'" in err


# ------------------------------------------------------ messages in words
@pytest.mark.parametrize("argv, needle", [
    (["covers", "@", "x = 1"], "X: '@' needs a file name after it"),
    (["covers", "x = 1", "@/no/such/file"], "Y: no such file: /no/such/file"),
    (["covers", "", "x = 1"], "X is empty"),
    (["match", "x = 1", "@"], "MESSAGE: '@' needs a file name"),
    (["reduce", "@"], "'@' needs a file name"),
    (["parse", "--kind", "filter", "@/no/such/file"], "no such file: /no/such/file"),
])
def test_argument_errors_say_what_to_do(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and needle in err and "Traceback" not in err


def test_covers_of_a_directory(tmp_path, capsys):
    code, _, err = run(capsys, "covers", f"@{tmp_path}", "x = 1")
    assert code == 2 and "is a directory, not a file" in err


def test_messages_name_cli_syntax_not_python_functions(capsys):
    code, _, err = run(capsys, "covers", "-a", "x = 1", "x = 1 || y = 2")
    assert code == 2 and "cannot hold a disjunction" in err
    assert "parse_" not in err and "()" not in err


@pytest.mark.parametrize("argv", [["parse", "-"], ["covers", "-", "x = 1"], ["reduce", "-"],
                                  ["poset", "-"], ["forward", "-"]])
def test_invalid_utf8_on_stdin_is_bad_input(capsys, monkeypatch, argv):
    binary_stdin(monkeypatch, b"subscribe [s = \"\xff\"]\n")
    code, _, err = run(capsys, *argv)
    assert code == 2 and "standard input is not UTF-8 text" in err, err


def test_invalid_utf8_in_a_file_gets_the_same_message(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff x = 1")
    for argv in (["parse", str(bad)], ["covers", f"@{bad}", "x = 1"], ["reduce", str(bad)]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and f"{bad} is not UTF-8 text" in err, (argv, err)


# --------------------------------------------- one set of argument forms
def test_text_arguments_take_stdin_and_files(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("int x > 0"))
    assert run(capsys, "covers", "[int x > 5] || [int x < 10]", "-")[:2] == (0, "yes\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO('[x = 1, s = "a"]'))
    assert run(capsys, "match", "x = 1", "@-")[:2] == (0, "yes\n")
    f = tmp_path / "m.txt"
    f.write_text("[x = 2]")
    assert run(capsys, "overlaps", "x > 1", f"@{f}")[0] == 0


@pytest.mark.parametrize("argv", [["covers", "-", "@-"], ["overlaps", "-", "-"], ["match", "@-", "-"]])
def test_standard_input_is_read_once(capsys, monkeypatch, argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO("x = 1"))
    code, _, err = run(capsys, *argv)
    assert code == 2 and "both read standard input" in err


def test_file_arguments_take_at_file_too(tmp_path, capsys):
    f = tmp_path / "preds.txt"
    f.write_text("x > 1\nx > 2\n")
    code, out, _ = run(capsys, "reduce", f"@{f}")
    assert code == 0 and out.startswith("[int x > 1]\n")
    one = tmp_path / "one.txt"
    one.write_text("x > 1 || y = 2")
    assert run(capsys, "parse", f"@{one}")[:2] == (0, "[int x > 1] || [int y = 2]\n")
    doc = tmp_path / "doc.txt"
    doc.write_text("subscribe x > 1\n")
    assert run(capsys, "poset", f"@{doc}")[0] == 0


def test_a_file_named_with_an_at_sign_is_read_as_named(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("@odd.txt").write_text("x > 1\n")
    assert run(capsys, "reduce", "@odd.txt")[0] == 0


def test_help_documents_the_argument_forms(capsys):
    with pytest.raises(SystemExit):
        build = __import__("cbalgebra.cli", fromlist=["build_parser"]).build_parser()
        build.parse_args(["covers", "--help"])
    out = capsys.readouterr().out
    assert "@FILE" in out and "standard input" in out


# ------------------------------------------------------------ studies
def test_study_out_is_an_existing_file_is_a_usage_error(tmp_path, capsys):
    existing = tmp_path / "results.txt"
    existing.write_text("not a folder\n")
    code, _, err = run(capsys, "study", "alpha-dnf", "--quick", "--no-progress", "--out", str(existing))
    assert code == 2 and f"--out {existing} is a file" in err
    assert existing.read_text() == "not a folder\n"


def test_demo_out_is_an_existing_file_is_a_usage_error(tmp_path, capsys):
    existing = tmp_path / "f"
    existing.write_text("")
    code, _, err = run(capsys, "demo", "--no-study", "--out", str(existing))
    assert code == 2 and "is a file" in err


def test_study_without_java_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(clibase, "java_available", lambda: False)
    code, _, err = run(capsys, "study", "alpha-dnf", "--quick", "--no-progress", "--out", str(tmp_path / "o"))
    assert code == 69 and "Spark needs Java" in err and "apt-get install" in err


def test_java_lookup_follows_java_home(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert not clibase.java_available()
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text("#!/bin/sh\n")
    java.chmod(0o755)
    assert clibase.java_available()


# ------------------------------------------------ python -m entry points
@pytest.mark.slow
@pytest.mark.parametrize("module, argv", [
    ("cbalgebra.reducers", ["reduce", "/no/such/file"]),
    ("cbalgebra.matcher", ["forward", "/no/such/file"]),
    ("cbalgebra.poset", ["/no/such/file"]),
    ("cbalgebra.studies", ["study", "alpha-dnf", "--points", "0"]),
])
def test_each_part_alone_follows_the_policy(module, argv):
    proc = subprocess.run([sys.executable, "-m", module, *argv], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr


# ----------------------------------------- what the docs say (docs/guide/)
def test_subscriber_option_overrides_from_name(tmp_path, capsys):
    doc = tmp_path / "doc.txt"
    doc.write_text("subscribe [int price < 500] from alice\nsubscribe [int price < 300]\n")
    code, out, _ = run(capsys, "poset", str(doc))
    assert code == 0 and "[int price < 500]  <- alice" in out and "[int price < 300]  <- L2" in out
    code, out, _ = run(capsys, "poset", str(doc), "--subscriber", "bob")
    assert code == 0 and "<- bob" in out and "alice" not in out


def test_forward_counts_subscribe_interfaces_from_0(tmp_path, capsys):
    doc = tmp_path / "doc.txt"
    doc.write_text("subscribe [int x > 1]\nsubscribe [int x > 5]\npublish [x = 3]\npublish [x = 7]\n")
    assert run(capsys, "forward", str(doc))[:2] == (0, "0\n0 1\n")
