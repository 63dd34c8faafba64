"""Pictures of a poset: what to draw, node labels, Graphviz DOT / SVG / PNG,
and an SVG drawn without Graphviz (the layout of :mod:`layout`).

Roots are on top and edges go from the covering element to the covered one.
Each node shows its filter in canonical syntax and its subscribers. Big
posets stay readable: above ``max_nodes`` elements only the top levels are
drawn (as many as fit, or ``top_levels``), and a note says what was left out.

The least element of unsatisfiable filters, if any, is covered by every
element. Its in-edges would join it to every minimal element, so when it has
more than a few predecessors they are not drawn and a note says so.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cbalgebra.graphviz import GraphvizError, run_dot
from cbalgebra.graphviz import available as dot_available
from cbalgebra.poset.layout import Box, layered_layout
from cbalgebra.poset.stats import shape as shape_of

if TYPE_CHECKING:
    from cbalgebra.poset.core import Element, Poset
    from cbalgebra.poset.stats import Shape

__all__ = [
    "MAX_NODES",
    "GraphvizError",
    "View",
    "builtin_svg",
    "dot_available",
    "label_lines",
    "repr_svg",
    "select",
    "to_dot",
    "to_png",
    "to_svg",
]

#: Above this many elements, only the top levels are drawn.
MAX_NODES = 300
#: The least (unsatisfiable) element's in-edges are drawn up to this many.
MAX_BOTTOM_EDGES = 6
LINE_CHARS = 44
MAX_LINES = 6
CHAR_WIDTH = 7.2  # px at 12 px monospace
LINE_HEIGHT = 15.0


@dataclass
class View:
    """The part of a poset that is drawn."""

    poset: Poset
    elements: list[Element]
    ids: dict[Element, str]
    level: dict[Element, int]
    edges: list[tuple[Element, Element]]
    hidden_successors: dict[Element, int]
    notes: list[str]
    shape: Shape
    title: str
    #: Extra label lines per element (for example a server's forwards sets).
    annotate: Callable[[Element], list[str]] | None = None

    def labels(self, e: Element) -> list[str]:
        extra = self.annotate(e) if self.annotate is not None else []
        return label_lines(e, self.hidden_successors.get(e, 0), extra)

    @property
    def truncated(self) -> bool:
        return len(self.elements) < self.shape.elements


def coverage(poset: Poset) -> dict[Element, int]:
    """How many elements each element covers (transitively), for all
    elements: descendant sets as bitsets, deepest level first."""
    _, levels, _ = poset._levels()
    order = [e for level in levels for e in level]
    bit = {e: 1 << i for i, e in enumerate(order)}
    below: dict[Element, int] = {}
    for e in reversed(order):
        acc = 0
        for s in e._succs:
            acc |= below[s] | bit[s]
        below[e] = acc
    return {e: b.bit_count() for e, b in below.items()}


#: Above this many elements, coverage is ranked by immediate successors
#: (cheaper) instead of exact descendant counts.
EXACT_COVERAGE_LIMIT = 40_000


def select(
    poset: Poset,
    *,
    max_nodes: int = MAX_NODES,
    top_levels: int | None = None,
    title: str | None = None,
    annotate: Callable[[Element], list[str]] | None = None,
) -> View:
    """Choose what to draw.

    A poset of at most ``max_nodes`` elements is drawn whole. Otherwise the
    drawing keeps the ``max_nodes`` elements that cover the most others. An
    element covers strictly more than anything below it, so the kept set is
    closed upward: the skeleton of the poset, the subscriptions that summarize
    the others. ``top_levels`` further restricts the drawing to levels
    0 .. top_levels-1.
    """
    if max_nodes < 1:
        raise ValueError("max_nodes must be at least 1")
    if top_levels is not None and top_levels < 1:
        raise ValueError("top_levels must be at least 1")
    shape = shape_of(poset)
    _, levels, level_of = poset._levels()
    notes: list[str] = []
    limit = len(levels) if top_levels is None else min(top_levels, len(levels))
    pool = [e for level in levels[:limit] for e in level]
    if len(pool) <= max_nodes:
        chosen = pool
        ranked_by = ""
    else:
        if shape.elements <= EXACT_COVERAGE_LIMIT:
            cov = coverage(poset)
            ranked_by = "cover the most elements"
        else:
            cov = {e: len(e._succs) for e in pool}
            ranked_by = "have the most immediate successors"
        keep = set(sorted(pool, key=lambda e: (-cov[e], level_of[e], e._seq))[:max_nodes])
        chosen = [e for e in pool if e in keep]
    drawn_set = set(chosen)
    if len(chosen) < shape.elements:
        parts = []
        if top_levels is not None and limit < len(levels):
            parts.append(f"the top {limit} of {len(levels)} levels")
        if ranked_by:
            parts.append(f"the {len(chosen)} elements that {ranked_by}")
        hidden = [(i, n) for i in range(len(levels)) if (n := sum(1 for e in levels[i] if e not in drawn_set))]
        total = sum(n for _, n in hidden)
        if len(hidden) <= 4:
            rest = ", ".join(f"{n} on level {i}" for i, n in hidden)
        else:
            big_i, big_n = max(hidden, key=lambda t: t[1])
            rest = (f"{total} elements on levels {hidden[0][0]}–{hidden[-1][0]} "
                    f"(the most, {big_n}, on level {big_i})")
        notes.append(
            f"Large poset: drawn are {' and of them '.join(parts)} ({len(chosen)} of {shape.elements} elements). "
            f"Not drawn: {rest}."
        )
    drawn = set(chosen)
    ids = {e: f"n{i}" for i, e in enumerate(chosen)}
    edges: list[tuple[Element, Element]] = []
    hidden_succ: dict[Element, int] = {}
    omitted_bottom = 0
    for e in chosen:
        n_hidden = 0
        for s in e.successors:
            if s not in drawn:
                n_hidden += 1
            elif not s.satisfiable and len(s._preds) > MAX_BOTTOM_EDGES:
                omitted_bottom += 1
            else:
                edges.append((e, s))
        if n_hidden:
            hidden_succ[e] = n_hidden
    if omitted_bottom:
        notes.append(
            f"⊥ (unsatisfiable filters) is covered by every element; its {omitted_bottom} incoming edges are not drawn."
        )
    if title is None:
        title = "Advertisements poset" if poset.kind == "advertisements" else "Subscriptions poset"
    return View(poset, chosen, ids, dict(level_of), edges, hidden_succ, notes, shape, title, annotate)


def _short(s: str, limit: int) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"


def filter_lines(value: Any, width: int = LINE_CHARS, max_lines: int = MAX_LINES) -> list[str]:
    """The canonical text of a filter, wrapped between constraints."""
    parts = [str(c) for c in value.constraints]
    if not parts:
        return ["[]"]
    lines: list[str] = []
    current = "["
    for i, part in enumerate(parts):
        piece = part + ("]" if i == len(parts) - 1 else ",")
        if current not in ("[", "") and len(current) + 1 + len(piece) > width:
            lines.append(current)
            current = " " + piece
        else:
            current = current + ("" if current in ("[", "") else " ") + piece
    lines.append(current)
    lines = [_short(line, width + 8) for line in lines]
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], f" … {len(parts)} constraints]"]
    return lines


def subscribers_line(e: Element, limit: int = LINE_CHARS) -> str:
    subs = sorted(map(str, e._subs))
    text = "subscribers: " + ", ".join(subs)
    if len(text) <= limit:
        return text
    shown: list[str] = []
    for s in subs:
        candidate = "subscribers: " + ", ".join([*shown, s]) + f" +{len(subs) - len(shown) - 1}"
        if len(candidate) > limit:
            break
        shown.append(s)
    return "subscribers: " + ", ".join(shown) + f" +{len(subs) - len(shown)}"


def label_lines(e: Element, hidden: int = 0, extra: list[str] | None = None) -> list[str]:
    lines = filter_lines(e.value)
    if not e.satisfiable:
        lines[0] = "⊥ " + lines[0]
    lines.append(subscribers_line(e))
    lines.extend(_short(line, LINE_CHARS + 8) for line in extra or ())
    if hidden:
        lines.append(f"▼ {hidden} successor{'s' * (hidden != 1)} not drawn")
    return lines


def summary_line(view: View) -> str:
    return str(view.shape)


# ---------------------------------------------------------------- DOT
def _dot_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_caption(lines: list[str]) -> str:
    """A graph label with left-justified lines (Graphviz's \\l)."""
    return '"' + "".join(_dot_string(line)[1:-1] + "\\l" for line in lines) + '"'


def to_dot(
    poset: Poset,
    *,
    max_nodes: int = MAX_NODES,
    top_levels: int | None = None,
    title: str | None = None,
    view: View | None = None,
    annotate: Callable[[Element], list[str]] | None = None,
) -> str:
    """The Hasse diagram in Graphviz DOT: roots on top (same rank), edges from
    covering to covered, nodes labelled with filter and subscribers."""
    v = view or select(poset, max_nodes=max_nodes, top_levels=top_levels, title=title, annotate=annotate)
    caption = [v.title, summary_line(v), *v.notes]
    out = [
        "digraph poset {",
        ("  graph [rankdir=TB, labelloc=t, labeljust=l, fontname=\"Helvetica\", fontsize=12, "
        f"nodesep=0.25, ranksep=0.45, label={_dot_caption(caption)}];"),
        ('  node [shape=box, style="rounded,filled", fillcolor="#ffffff", color="#5b6b7f", '
        'fontname="DejaVu Sans Mono", fontsize=10, margin="0.12,0.06"];'),
        '  edge [color="#7a8799", arrowsize=0.7];',
    ]
    for e in v.elements:
        attrs = {"label": "\n".join(v.labels(e)), "tooltip": str(e.value)}
        if e.is_root:
            attrs["fillcolor"] = "#dcebfa"
            attrs["color"] = "#2f6db3"
        if not e.satisfiable:
            attrs["fillcolor"] = "#eeeeee"
        if e in v.hidden_successors:
            attrs["style"] = "rounded,filled,dashed"
        rendered = ", ".join(f"{k}={_dot_string(val)}" for k, val in attrs.items())
        out.append(f"  {v.ids[e]} [{rendered}];")
    roots = [v.ids[e] for e in v.elements if e.is_root]
    if roots:
        out.append("  { rank=min; " + "; ".join(roots) + "; }")
    for a, b in v.edges:
        out.append(f"  {v.ids[a]} -> {v.ids[b]};")
    out.append("}")
    return "\n".join(out) + "\n"


def to_svg(poset: Poset, **options: Any) -> str:
    """SVG drawn by Graphviz ``dot``."""
    return run_dot(to_dot(poset, **options), "svg").decode("utf-8")


def to_png(poset: Poset, *, dpi: int = 96, **options: Any) -> bytes:
    """PNG drawn by Graphviz ``dot``."""
    text = to_dot(poset, **options).replace("graph [", f"graph [dpi={int(dpi)}, ", 1)
    return run_dot(text, "png")


def repr_svg(poset: Poset) -> str:
    """For notebooks: Graphviz if installed, the built-in layout otherwise."""
    if dot_available():
        try:
            return to_svg(poset)
        except GraphvizError:
            pass
    return builtin_svg(poset)


# ------------------------------------------------------ built-in SVG drawing
@dataclass
class Drawing:
    view: View
    svg: str
    width: float
    height: float


def node_size(lines: list[str]) -> tuple[float, float]:
    return max(len(s) for s in lines) * CHAR_WIDTH + 18, len(lines) * LINE_HEIGHT + 10


def draw(view: View, *, id_prefix: str = "") -> Drawing:
    """Lay out and draw a view as SVG markup (used by the HTML page)."""
    labels = {e: view.labels(e) for e in view.elements}
    boxes: dict[Hashable, Box] = {}
    for e in view.elements:
        w, h = node_size(labels[e])
        boxes[view.ids[e]] = Box(w, h, view.level[e])
    lay = layered_layout(boxes, [(view.ids[a], view.ids[b]) for a, b in view.edges])
    marker = f"{id_prefix}arrow"
    parts = [
        (f'<svg class="poset-svg" xmlns="http://www.w3.org/2000/svg" width="{lay.width:.0f}" height="{lay.height:.0f}" '
        f'viewBox="0 0 {lay.width:.0f} {lay.height:.0f}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
        'font-size="12">'),
        (f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" '
        'markerWidth="9" markerHeight="9" orient="auto-start-reverse">'
        '<path d="M0,0 L10,5 L0,10 z" fill="#7a8799"/></marker></defs>'),
        f'<g class="scene" id="{id_prefix}scene">',
        '<g class="edge-layer">',
    ]
    for a, b in view.edges:
        ia, ib = view.ids[a], view.ids[b]
        pts = lay.routes[(ia, ib)]
        parts.append(
            f'<path class="edge" data-from="{ia}" data-to="{ib}" d="{_curve(pts)}" fill="none" '
            f'stroke="#7a8799" stroke-width="1.2" marker-end="url(#{marker})"/>'
        )
    parts.append("</g>")
    parts.append('<g class="node-layer">')
    for e in view.elements:
        i = view.ids[e]
        box = boxes[i]
        x, y = lay.x[i], lay.y[i]
        cls = ["node"]
        if e.is_root:
            cls.append("root")
        if not e.satisfiable:
            cls.append("bottom")
        if e in view.hidden_successors:
            cls.append("more")
        fill = "#dcebfa" if e.is_root else ("#eeeeee" if not e.satisfiable else "#ffffff")
        stroke = "#2f6db3" if e.is_root else "#5b6b7f"
        dash = ' stroke-dasharray="4 3"' if e in view.hidden_successors else ""
        parts.append(
            f'<g class="{" ".join(cls)}" id="{id_prefix}{i}" data-id="{i}" data-level="{view.level[e]}" '
            f'transform="translate({x:.1f},{y:.1f})">'
        )
        parts.append(f"<title>{html.escape(str(e.value))}</title>")
        parts.append(
            f'<rect x="{-box.width / 2:.1f}" y="{-box.height / 2:.1f}" width="{box.width:.1f}" '
            f'height="{box.height:.1f}" '
            f'rx="6" fill="{fill}" stroke="{stroke}" stroke-width="1.3"{dash}/>'
        )
        lines = labels[e]
        top = -box.height / 2 + 5 + LINE_HEIGHT * 0.78
        parts.append(f'<text text-anchor="middle" x="0" y="{top:.1f}" fill="#1d2633">')
        for k, line in enumerate(lines):
            cls_line = ' class="subs"' if line.startswith("subscribers:") else (
                ' class="more-note"' if line.startswith("▼") else "")
            dy = "0" if k == 0 else f"{LINE_HEIGHT:.0f}"
            parts.append(f'<tspan x="0" dy="{dy}"{cls_line} xml:space="preserve">{html.escape(line)}</tspan>')
        parts.append("</text></g>")
    parts.append("</g></g></svg>")
    return Drawing(view, "".join(parts), lay.width, lay.height)


def _curve(pts: list[tuple[float, float]]) -> str:
    (x0, y0) = pts[0]
    d = [f"M{x0:.1f},{y0:.1f}"]
    for (xa, ya), (xb, yb) in itertools.pairwise(pts):
        dy = (yb - ya) / 2
        d.append(f"C{xa:.1f},{ya + dy:.1f} {xb:.1f},{yb - dy:.1f} {xb:.1f},{yb:.1f}")
    return " ".join(d)


def builtin_svg(poset: Poset, **options: Any) -> str:
    """A standalone SVG from the built-in layout (no Graphviz needed)."""
    view = select(poset, **options)
    d = draw(view, id_prefix=f"p{id(poset) % 100000}-")
    caption = [view.title, summary_line(view), *view.notes]
    head = "".join(
        f'<text x="20" y="{18 + 16 * i}" font-family="Helvetica, Arial, sans-serif" font-size="13" '
        f'fill="#1d2633">{html.escape(line)}</text>'
        for i, line in enumerate(caption)
    )
    offset = 16 * len(caption) + 10
    inner = d.svg.split(">", 1)[1].rsplit("</svg>", 1)[0]
    w, h = d.width, d.height + offset
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" viewBox="0 0 {w:.0f} {h:.0f}">'
        f'<rect width="100%" height="100%" fill="#ffffff"/>{head}'
        f'<g transform="translate(0,{offset})" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
        f'font-size="12">{inner}</g></svg>'
    )
