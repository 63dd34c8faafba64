"""One Graphviz runner (issue 25 §3): every drawing command finds and runs
``dot`` through ``cbalgebra.graphviz`` and, without it, gives the one
message (naming the Debian package and how to install it) and exit 69; the
demo still runs and says how to get Graphviz."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from cbalgebra import graphviz
from cbalgebra.cli import main

ROOT = Path(__file__).resolve().parent.parent
REAL_WHICH = shutil.which

FIGURE_4 = {"network": {"edges": [["A", "B"], ["B", "C"], ["B", "D"]]},
            "publishers": [["A", 2]], "subscribers": [["C", 1], ["D", 3]], "trees": "per-source"}


def _hide_dot(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "dot" else REAL_WHICH(name, *a, **k))


def _fake_dot(tmp_path, monkeypatch):
    """A ``dot`` on PATH that fails as Graphviz does on a syntax error."""
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Error: <stdin>: syntax error in line 1 near x' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(shutil, "which",
                        lambda name, *a, **k: str(fake) if name == "dot" else REAL_WHICH(name, *a, **k))


def _commands(tmp_path) -> dict[str, list[str]]:
    doc = tmp_path / "subs.txt"
    doc.write_text("subscribe [int x > 1]\nsubscribe [int x > 5]\n")
    net = tmp_path / "net.edges"
    net.write_text("0 1 1\n1 2 1\n")
    preds = tmp_path / "preds.txt"
    preds.write_text("0: [int x > 0]\n2: [int x > 0]\n")
    msgs = tmp_path / "msgs.txt"
    msgs.write_text("0: [int x = 1]\n")
    instance = tmp_path / "instance.json"
    instance.write_text(json.dumps(FIGURE_4))
    return {
        "poset svg": ["poset", str(doc), "--format", "svg"],
        "poset png": ["poset", str(doc), "-o", str(tmp_path / "p.png")],
        "route svg": ["route", str(net), "--predicates", str(preds), "--messages", str(msgs),
                      "--draw", str(tmp_path / "d.svg")],
        "route png": ["route", str(net), "--predicates", str(preds), "--messages", str(msgs),
                      "--draw", str(tmp_path / "d.png")],
        "matchmaker svg": ["matchmaker", str(instance), "--draw", str(tmp_path / "m.svg")],
        "matchmaker png": ["matchmaker", str(instance), "--draw", str(tmp_path / "m.png")],
    }


COMMANDS = ["poset svg", "poset png", "route svg", "route png", "matchmaker svg", "matchmaker png"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_drawing_command_without_dot_gives_the_one_error(command, tmp_path, capsys, monkeypatch):
    argv = _commands(tmp_path)[command]
    _hide_dot(monkeypatch)
    assert main(argv) == 69
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: " + graphviz.MISSING.removesuffix(")"))  # the one message, maybe with "; or ..."
    assert "Debian package graphviz" in err and "apt-get install graphviz" in err
    assert not any(p.suffix in (".svg", ".png") for p in tmp_path.iterdir())


@pytest.mark.parametrize("command", COMMANDS)
def test_a_failing_dot_is_exit_69_with_its_reason(command, tmp_path, capsys, monkeypatch):
    argv = _commands(tmp_path)[command]
    _fake_dot(tmp_path, monkeypatch)
    assert main(argv) == 69
    err = capsys.readouterr().err
    assert err == "error: Graphviz 'dot' failed: Error: <stdin>: syntax error in line 1 near x\n"


def test_the_demo_without_dot_runs_and_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    _hide_dot(monkeypatch)
    assert main(["demo", "--no-study", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"skipped poset.svg: {graphviz.MISSING}" in lines
    assert (tmp_path / "poset.html").is_file() and not (tmp_path / "poset.svg").exists()


def test_the_library_drawings_raise_the_one_error(tmp_path, monkeypatch):
    import networkx as nx

    from cbalgebra.matchmaker import Instance, mcm
    from cbalgebra.matchmaker import draw as matchmaker_draw
    from cbalgebra.network import build
    from cbalgebra.network import draw as network_draw
    from cbalgebra.poset import Poset, render
    from cbalgebra.values import Filter, Message, Predicate

    _hide_dot(monkeypatch)
    poset = Poset()
    poset.insert(Filter(), "a")
    g = nx.path_graph(3)
    nx.set_edge_attributes(g, 1, "weight")
    delivery = build("psf", g, {2: Predicate([Filter()])}).deliver(Message(), 0)
    instance = Instance.from_trees({"A": [("A", "B"), ("B", "C")]}, {"A": 1}, {"C": 1})
    for draw in (lambda: render.to_svg(poset), lambda: render.to_png(poset),
                 lambda: network_draw.render(delivery, tmp_path / "d.svg"),
                 lambda: matchmaker_draw.render(matchmaker_draw.to_dot(instance, mcm(instance)), tmp_path / "m.svg")):
        with pytest.raises(graphviz.GraphvizError, match="Debian package graphviz"):
            draw()


def _runs_programs(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
            if "subprocess" in names:
                return True
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "which"
                and any(isinstance(a, ast.Constant) and a.value == "dot" for a in node.args)):
            return True
    return False


def test_only_the_runner_finds_or_runs_dot():
    sources = [p for folder in ("cbalgebra", "matcher", "reducers", "studies") for p in (ROOT / folder).rglob("*.py")]
    assert [str(p.relative_to(ROOT)) for p in sources if _runs_programs(p)] == ["cbalgebra/graphviz.py"]
