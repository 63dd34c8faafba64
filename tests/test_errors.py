"""One exception root (issue 25 §3): every exception class of the package
derives from ``cbalgebra.CbalgebraError`` and says its own exit code, and
the command line maps an error by ``isinstance`` and that code, never by the
class's module or name."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path

import pytest

import cbalgebra
from cbalgebra import clibase
from cbalgebra.covering import UndecidedError
from cbalgebra.errors import EXIT_INTERNAL, CbalgebraError, UnavailableError, UsageError
from cbalgebra.graphviz import GraphvizError
from cbalgebra.matchmaker import InstanceError
from cbalgebra.network import DeliveryError, RoutingError, TopologyError
from cbalgebra.parse import ParseError
from cbalgebra.reducers import ReductionBudgetError
from cbalgebra.values import InvalidValueError

ROOT = Path(__file__).resolve().parent.parent


def _package_roots() -> dict[str, Path]:
    """``cbalgebra`` and the folders beside it that are its subpackages (setup.py's mapping)."""
    roots = {"cbalgebra": ROOT / "cbalgebra"}
    for folder in sorted(ROOT.iterdir()):
        if (folder / "__init__.py").is_file() and folder.name != "cbalgebra":
            spec = importlib.util.find_spec(f"cbalgebra.{folder.name}")
            if spec is not None and spec.origin and Path(spec.origin).resolve().parent == folder.resolve():
                roots[f"cbalgebra.{folder.name}"] = folder
    return roots


def _module_names() -> list[str]:
    names = []
    for package, folder in _package_roots().items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__main__" or "results" in parts:  # running __main__ runs a command
                continue
            names.append(".".join((package, *parts[:-1])) if parts[-1] == "__init__" else ".".join((package, *parts)))
    return names


def _exception_classes() -> list[type[BaseException]]:
    """Every public exception class defined in a module of the package."""
    found = []
    for name in _module_names():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name
                    and not attr.startswith("_")):
                found.append(value)
    return found


EXCEPTION_CLASSES = _exception_classes()


def test_the_walk_finds_the_packages_errors():
    names = {cls.__name__ for cls in EXCEPTION_CLASSES}
    assert {"ParseError", "UndecidedError", "ReductionBudgetError", "InstanceError", "StudyError",
            "RoutingStudyError", "GraphvizError", "TopologyError"} <= names
    assert "cbalgebra.reducers" in _package_roots() and "cbalgebra.studies" in _package_roots()


@pytest.mark.parametrize("cls", EXCEPTION_CLASSES, ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_every_exception_derives_from_the_root_with_an_int_exit_code(cls):
    assert issubclass(cls, CbalgebraError)
    assert isinstance(cls.exit_code, int) and not isinstance(cls.exit_code, bool)
    assert isinstance(cls.label, str) and cls.label


def test_the_root_is_public():
    assert cbalgebra.CbalgebraError is CbalgebraError and "CbalgebraError" in cbalgebra.__all__


def _planted(cls: type[BaseException], text: str = "planted") -> BaseException:
    """An instance whatever the class's constructor takes: only its message matters here."""
    exc = cls.__new__(cls)
    Exception.__init__(exc, text)
    return exc


@pytest.mark.parametrize("cls", EXCEPTION_CLASSES, ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_report_gives_each_class_its_own_code_and_label(cls, capsys, monkeypatch):
    monkeypatch.delenv("CBALGEBRA_DEBUG", raising=False)
    code = clibase.report(_planted(cls))
    err = capsys.readouterr().err
    if cls.exit_code == EXIT_INTERNAL:
        assert code == 70 and "internal error" in err
    else:
        assert code == cls.exit_code and err == f"{cls.label}: planted\n"


# The documented exit codes (docs/guide/cli.md, clibase): written out, not read from the classes.
DOCUMENTED = [
    (ParseError("unexpected ']'", 1, 5, "[x =]\n    ^"), 2, "error: line 1, column 5: unexpected ']'"),
    (InvalidValueError("not a number"), 2, "error: not a number"),
    (UsageError("no such file: x"), 2, "error: no such file: x"),
    (InstanceError("trees: 'Q' is not a publisher"), 2, "error: trees: 'Q' is not a publisher"),
    (TopologyError("unknown topology 'x'"), 2, "error: unknown topology 'x'"),
    (RoutingError("unknown reducer 'x'"), 2, "error: unknown reducer 'x'"),
    (DeliveryError("not a tree"), 2, "error: not a tree"),
    (UndecidedError("z3 said unknown"), 3, "undecided: z3 said unknown"),
    (ReductionBudgetError("minimal: 12 atoms"), 3, "error: minimal: 12 atoms"),
    (UnavailableError("Java is not installed"), 69, "error: Java is not installed"),
    (GraphvizError("Graphviz 'dot' failed: x"), 69, "error: Graphviz 'dot' failed: x"),
]


@pytest.mark.parametrize(("exc", "code", "line"), DOCUMENTED, ids=lambda x: type(x).__name__)
def test_a_planted_error_of_each_kind_gives_the_documented_exit_code(exc, code, line, capsys):
    assert clibase.report(exc) == code
    assert capsys.readouterr().err.startswith(line + "\n")


def test_study_errors_map_too(capsys):
    from cbalgebra.studies.routing import RoutingStudyError
    from cbalgebra.studies.runner import StudyError

    assert clibase.report(StudyError("--out is a file")) == 2
    assert clibase.report(RoutingStudyError("psf delivered to 3 needlessly")) == 70  # a bug, not bad input
    assert "internal error: RoutingStudyError" in capsys.readouterr().err


def test_the_code_goes_with_the_class_not_its_name_or_module(capsys):
    # A class defined here, named like nothing in the package: its code is what it says.
    class ReachedTheLimit(CbalgebraError):
        exit_code = 3

    class StrangeInput(UsageError):
        pass

    class Undecided(UndecidedError):  # a subclass keeps its parent's code and label
        pass

    Renamed = type("ParseError", (CbalgebraError,), {"exit_code": 69, "__module__": "somewhere.else"})
    assert clibase.report(ReachedTheLimit("budget")) == 3
    assert clibase.report(StrangeInput("odd")) == 2
    assert clibase.report(Undecided("z3")) == 3
    assert clibase.report(Renamed("moved")) == 69
    assert capsys.readouterr().err == "error: budget\nerror: odd\nundecided: z3\nerror: moved\n"


def test_a_look_alike_outside_the_root_is_a_bug(capsys, monkeypatch):
    monkeypatch.delenv("CBALGEBRA_DEBUG", raising=False)
    Lookalike = type("UndecidedError", (RuntimeError,), {"__module__": "cbalgebra.covering.errors"})
    assert clibase.report(Lookalike("z3")) == 70
    assert "internal error" in capsys.readouterr().err


def test_errors_stay_catchable_as_the_builtin_they_were():
    assert issubclass(ParseError, ValueError) and issubclass(InvalidValueError, ValueError)
    assert issubclass(UndecidedError, RuntimeError) and issubclass(ReductionBudgetError, RuntimeError)
    assert issubclass(GraphvizError, RuntimeError) and issubclass(TopologyError, ValueError)
