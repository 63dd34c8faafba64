"""Pictures of the poset: DOT, Graphviz SVG/PNG, the built-in layout, the
self-contained HTML page, and the ``cbalgebra poset`` command."""

from __future__ import annotations

import itertools
import json
import re
import shutil

import pytest

import cbalgebra as cb
from cbalgebra.poset import Poset, render
from cbalgebra.poset import cli as poset_cli
from cbalgebra.poset.build import from_document
from cbalgebra.poset.html import to_html
from cbalgebra.poset.queries import covered
from cbalgebra.poset.stats import shape
from cbalgebra.poset.layout import Box, layered_layout
from cbalgebra.values import Constraint, Filter

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")

DOC = """\
# flights
subscribe [string airline any]
subscribe [airline = "UA", dest = "ARN"]
subscribe [airline = "UA"]
subscribe [string airline any] || [int price < 500]
subscribe [int price < 300, airline = "AZ"]
subscribe [int price < 200]
subscribe [airline >* "U"]
subscribe [int price < 100, int price > 200]
advertise [string airline any, int price any]
advertise [string airline = "UA"]
publish [airline = "UA"]
"""


def count_nodes(markup: str) -> int:
    """Node groups of the built-in drawing: class "node" plus role classes."""
    return len(re.findall(r'<g class="node(?: [a-z ]+)?"', markup))


def small() -> Poset:
    p, _ = from_document(DOC)
    return p


def chain_poset(n: int, width: int = 1) -> Poset:
    p = Poset()
    for i in range(n):
        for j in range(width):
            p.insert(Filter([Constraint("int", f"x{j}", ">", i)]), f"s{i}-{j}")
    return p


# ---------------------------------------------------------------- DOT
def test_dot_has_roots_on_top_edges_down_and_labels():
    p = small()
    dot = render.to_dot(p)
    assert dot.startswith("digraph poset {")
    ids = dict(re.findall(r"^  (n\d+) \[label=\"([^\n]*?)\\n", dot, flags=re.MULTILINE))
    assert len(re.findall(r"^  n\d+ \[label=", dot, flags=re.MULTILINE)) == len(p)
    rank = re.search(r"\{ rank=min; (.*); \}", dot).group(1).split("; ")
    root_labels = {ids[r] for r in rank}
    assert root_labels == {"[string airline any]", "[int price < 500]"}
    edges = re.findall(r"^  (n\d+) -> (n\d+);", dot, flags=re.MULTILINE)
    assert len(edges) == shape(p).edges
    # Labels carry the canonical filter (quotes escaped) and the subscribers.
    assert r'[string airline = \"UA\", string dest = \"ARN\"]\nsubscribers: L3' in dot
    assert "subscribers: L2, L5" in dot
    assert "8 elements, 2 roots" in dot and "⊥" in dot


def test_dot_escapes_backslashes_and_quotes():
    p = Poset()
    p.insert(Filter([Constraint("string", "s", "=", 'a"b\\c')]), 'x"y')
    dot = render.to_dot(p)
    assert r'[string s = \"a\\\"b\\\\c\"]' in dot
    assert r'subscribers: x\"y' in dot


@needs_dot
def test_graphviz_svg_and_png():
    p = small()
    svg = render.to_svg(p)
    assert svg.lstrip().startswith("<?xml") or "<svg" in svg[:400]
    assert svg.count('class="node"') == len(p)
    assert render.repr_svg(p).count('class="node"') == len(p)
    png = render.to_png(p)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


def test_repr_svg_without_graphviz(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    p = small()
    svg = render.repr_svg(p)
    assert svg.startswith("<svg") and count_nodes(svg) == len(p)
    with pytest.raises(render.GraphvizError, match="graphviz"):
        render.to_svg(p)


# ---------------------------------------------------------------- layout
def test_layout_keeps_levels_in_rows_without_overlap():
    p = chain_poset(6, width=3)
    p.insert("[int x0 > 2, int x1 > 2]", "both")
    view = render.select(p)
    d = render.draw(view)
    assert d.width > 0 and d.height > 0
    boxes = {}
    for e in view.elements:
        w, h = render.node_size(render.label_lines(e))
        boxes[view.ids[e]] = Box(w, h, view.level[e])
    lay = layered_layout(boxes, [(view.ids[a], view.ids[b]) for a, b in view.edges])
    rows: dict[int, list] = {}
    for n, b in boxes.items():
        rows.setdefault(b.level, []).append((lay.x[n] - b.width / 2, lay.x[n] + b.width / 2, lay.y[n]))
    for spans in rows.values():
        assert len({round(y) for _, _, y in spans}) == 1
        spans.sort()
        assert all(a[1] <= b[0] + 1e-6 for a, b in itertools.pairwise(spans))
    ys = [rows[k][0][2] for k in sorted(rows)]
    assert ys == sorted(ys)  # roots on top
    for pts in lay.routes.values():
        assert pts[0][1] < pts[-1][1]  # edges go down, from covering to covered


def test_layout_reduces_crossings():
    # Two roots whose successors were inserted crosswise.
    p = Poset()
    p.insert("[int a any]", "r1")
    p.insert("[int b any]", "r2")
    for i in range(4):
        p.insert(f"[int b = {i}]", f"b{i}")
        p.insert(f"[int a = {i}]", f"a{i}")
    view = render.select(p)
    boxes = {view.ids[e]: Box(*render.node_size(render.label_lines(e)), view.level[e]) for e in view.elements}
    lay = layered_layout(boxes, [(view.ids[a], view.ids[b]) for a, b in view.edges])
    assert lay.crossings == 0


# ---------------------------------------------------------------- large posets
def test_large_poset_draws_an_upward_closed_skeleton_with_a_note():
    p = chain_poset(40, width=10)  # 400 elements, 10 chains of 40
    view = render.select(p, max_nodes=120)
    assert len(view.elements) == 120
    drawn = set(view.elements)
    assert all(pred in drawn for e in view.elements for pred in e.predecessors)
    assert view.notes and "120 of 400 elements" in view.notes[0]
    assert sum(view.hidden_successors.values()) == 10
    html = to_html(p, max_nodes=120)
    assert count_nodes(html) == 120 and "Large poset" in html
    dot = render.to_dot(p, max_nodes=120)
    assert "Large poset" in dot and "successor not drawn" in dot


def test_top_levels_option():
    p = chain_poset(10, width=2)
    view = render.select(p, top_levels=3)
    assert {view.level[e] for e in view.elements} == {0, 1, 2}
    assert len(view.elements) == 6
    assert "top 3 of 10 levels" in view.notes[0]


def test_unsatisfiable_element_in_edges_are_summarized():
    p = chain_poset(1, width=10)
    p.insert("[int x0 > 5, int x0 < 2]", "nobody")
    view = render.select(p)
    assert not any(not b.satisfiable for _, b in view.edges)
    assert any("⊥" in n and "10 incoming edges" in n for n in view.notes)
    assert shape(p).unsatisfiable == 1 and shape(p).leaves == 10


# ---------------------------------------------------------------- HTML
def test_html_is_one_offline_page():
    p = small()
    page = to_html(p)
    assert page.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # No external resource of any kind.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page, flags=re.IGNORECASE)
    assert "@import" not in page and "url(http" not in page
    assert count_nodes(page) == len(p)
    data = json.loads(re.search(r'<script type="application/json" id="poset-data">(.*?)</script>', page, re.DOTALL)
                      .group(1))
    assert len(data["nodes"]) == len(p)
    by_text = {n["text"]: k for k, n in data["nodes"].items()}
    for e in p.elements():
        node = data["nodes"][by_text[str(e.value)]]
        assert {data["nodes"][s]["text"] for s in node["succ"]} == {str(s.value) for s in e.successors}
        assert node["covers"] == len(covered(p, e.value))
        assert node["subscribers"] == sorted(map(str, e.subscribers))


def test_html_survives_hostile_strings():
    p = Poset()
    p.insert(Filter([Constraint("string", "s", "=", "</script><script>alert(1)</script>")]), "<b>u</b>")
    page = to_html(p)
    assert "</script><script>alert(1)" not in page
    assert page.count("<script") == 2  # the data block and the viewer
    data = re.search(r'<script type="application/json" id="poset-data">(.*?)</script>', page, re.DOTALL).group(1)
    assert json.loads(data)["nodes"]["n0"]["subscribers"] == ["<b>u</b>"]


# ---------------------------------------------------------------- CLI
def run_cli(*args: str) -> int:
    return poset_cli.main(list(args))


def test_cli_formats(tmp_path, capsys):
    src = tmp_path / "subs.txt"
    src.write_text(DOC)
    assert run_cli(str(src)) == 0
    out = capsys.readouterr().out
    assert out.startswith("Subscriptions poset: 8 elements, 2 roots")
    assert '  [string airline >* "U"]  <- L8' in out and "(see above)" in out
    for ext in ("dot", "html") + (("svg", "png") if shutil.which("dot") else ()):
        target = tmp_path / f"p.{ext}"
        assert run_cli(str(src), "-o", str(target)) == 0
        assert target.stat().st_size > 200
        assert "wrote" in capsys.readouterr().out
    assert run_cli(str(src), "--format", "dot", "--top-levels", "1") == 0
    assert "Large poset: drawn are the top 1" in capsys.readouterr().out


def test_cli_subscribers_advertisements_and_sff(tmp_path, capsys):
    src = tmp_path / "subs.txt"
    src.write_text(DOC)
    assert run_cli(str(src), "--subscriber", "me") == 0
    out = capsys.readouterr().out
    # One subscriber: what its earlier subscriptions cover adds nothing.
    assert out.startswith("Subscriptions poset: 2 elements, 2 roots, 0 edges")
    assert run_cli(str(src), "--advertisements") == 0
    out = capsys.readouterr().out
    assert out.startswith("Advertisements poset: 2 elements, 1 root")
    sff = tmp_path / "table.sff"
    sff.write_text("ifconfig 1 price < 10, price > 2 | airline = \"UA\";\nifconfig 2 price < 20;\n")
    assert run_cli(str(sff)) == 0
    out = capsys.readouterr().out
    assert "[int price < 20]  <- 2" in out and "<- 1" in out


@pytest.mark.parametrize(
    "content, args, message",
    [
        ("subscribe [x >]\n", (), "line 1"),
        ("advertise [int x any]\n", (), "use --advertisements"),
        ("subscribe [int x > 1]\n", ("--advertisements",), "drop --advertisements"),
        ("publish [x = 1]\n", (), "no subscribe lines"),
        ("subscribe [int x > 1]\n", ("--format", "png"), "png output needs -o"),
        ("subscribe [int x > 1]\n", ("-o", "out.pdf"), "cannot tell the format"),
        ("subscribe [int x > 1]\n", ("--top-levels", "0"), "at least 1"),
    ],
)
def test_cli_bad_input_exits_2_with_one_message(tmp_path, capsys, content, args, message):
    src = tmp_path / "in.txt"
    src.write_text(content)
    assert run_cli(str(src), *args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_outline_of_a_very_deep_poset():
    p = Poset()
    for i in range(1099, -1, -1):  # each new filter covers the chain so far: one check each
        p.insert(Filter([Constraint("int", "x", ">", i)]), i)
    text = poset_cli.outline(p)
    assert text.count("\n") == 1101 and text.splitlines()[-1].startswith(" " * 2198 + "[int x > 1099]")


def test_cli_missing_file(capsys):
    assert run_cli("/nonexistent/file.txt") == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_missing_graphviz(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    src = tmp_path / "in.txt"
    src.write_text("subscribe [int x > 1]\n")
    assert run_cli(str(src), "-o", str(tmp_path / "p.svg")) == 69
    assert "graphviz" in capsys.readouterr().err


def test_top_level_cli_dispatches_to_poset(tmp_path, capsys):
    main = pytest.importorskip("cbalgebra.cli").main
    src = tmp_path / "in.txt"
    src.write_text("subscribe [int x > 1] || [int x > 5]\n")
    assert main(["poset", str(src)]) == 0
    assert capsys.readouterr().out.startswith("Subscriptions poset: 1 element")
    assert cb.Poset is Poset
