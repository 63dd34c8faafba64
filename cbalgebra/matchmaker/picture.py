"""Notebook pictures of a Matchmaker instance and of a link marking, drawn as
SVG in Python (no Graphviz), in :mod:`cbalgebra.matchmaker.draw`'s style
(Ge, Ji, Kurose & Towsley, "Matchmaker", Figure 4): p-links blue and solid,
s-links orange and dashed, matchmaking nodes ringed in green, publishers and
subscribers filled, the network's other links in light grey.

``Instance._repr_html_`` shows the instance's trees; :meth:`Instance.picture`
returns a :class:`MarkingPicture`, which a notebook shows with its marking
(``graphviz=True`` draws it with Graphviz instead, or says in one line that
Graphviz is missing).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

from cbalgebra.notebook import escape, figure, graphviz_svg

from .algorithms import matchmaking_nodes
from .draw import BOTH, MATCH, P_COLOUR, PLAIN, PUBLISHER, S_COLOUR, SUBSCRIBER, node_positions, to_dot
from .instance import Instance, Marking, node_key

__all__ = ["MarkingPicture", "marking_svg"]

TREE_COLOUR = "#616161"  # a tree link before it is marked
_MARGIN = 24.0


def _arrowheads(prefix: str) -> str:
    heads = (("p", P_COLOUR), ("s", S_COLOUR), ("t", TREE_COLOUR))
    return "<defs>" + "".join(
        f'<marker id="{prefix}{k}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
        f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>' for k, colour in heads) + "</defs>"


def _bent(a: tuple[float, float], b: tuple[float, float], radius: float) -> str:
    """A curve from a to b, bent to its right (so u→v and v→u stay apart),
    ending at the rim of b's circle."""
    (x1, y1), (x2, y2) = a, b
    mx, my = (x1 + x2) / 2 - (y2 - y1) * 0.12, (y1 + y2) / 2 + (x2 - x1) * 0.12
    back = math.hypot(x2 - mx, y2 - my) or 1.0
    ex, ey = x2 - (x2 - mx) / back * radius, y2 - (y2 - my) / back * radius
    return f"M{x1:.1f},{y1:.1f} Q{mx:.1f},{my:.1f} {ex:.1f},{ey:.1f}"


def _fill(v: Hashable, pubs: set, subs: set) -> str:
    if v in pubs and v in subs:
        return BOTH
    return PUBLISHER if v in pubs else SUBSCRIBER if v in subs else PLAIN


def marking_svg(instance: Instance, marking: Marking | None = None, *, width: int = 640,
                id_prefix: str = "") -> str:
    """The instance's trees (``marking`` None) or ``marking`` over them as
    one SVG: each directed link of T one ``<path>`` of class ``p-link``,
    ``s-link`` or (unmarked) ``tree-link``; each node a ``<g class="node">``,
    ``matchmaker`` added where publications meet subscriptions."""
    raw = node_positions(instance)
    span = max((max(p) for p in raw.values()), default=1.0) or 1.0
    scale = (width - 2 * _MARGIN) / span
    pos = {v: (_MARGIN + x * scale, _MARGIN + y * scale) for v, (x, y) in raw.items()}
    height = int(max((y for _, y in pos.values()), default=0.0) + _MARGIN)
    radius = 9.0
    pubs, subs = set(instance.publishers), set(instance.subscribers)
    matches = set(matchmaking_nodes(instance, marking)) if marking is not None else set()
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">', _arrowheads(id_prefix)]
    marked = {frozenset(t) for t in instance.links}
    if instance.graph is not None:
        for u, v in sorted(instance.graph.edges, key=lambda e: (node_key(e[0]), node_key(e[1]))):
            if frozenset((u, v)) not in marked:
                (x1, y1), (x2, y2) = pos[u], pos[v]
                out.append(f'<line class="net-link" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                           'stroke="#e0e0e0" stroke-width="1"/>')
    for u, v in instance.links:
        kind = "t" if marking is None else marking[(u, v)]
        cls, colour = {"p": ("p-link", P_COLOUR), "s": ("s-link", S_COLOUR)}.get(kind, ("tree-link", TREE_COLOUR))
        dash = ' stroke-dasharray="5 3"' if kind == "s" else ""
        out.append(f'<path class="{cls}" d="{_bent(pos[u], pos[v], radius)}" fill="none" stroke="{colour}" '
                   f'stroke-width="1.6"{dash} marker-end="url(#{id_prefix}{kind})">'
                   f"<title>{escape(u)} → {escape(v)}: {cls}</title></path>")
    for v in sorted(pos, key=node_key):
        x, y = pos[v]
        ring = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius + 4:.1f}" fill="none" stroke="{MATCH}" '
                'stroke-width="2"/>') if v in matches else ""
        core = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius + 2:.1f}" fill="none" stroke="#424242"/>'
                if v == instance.core else "")
        out.append(f'<g class="node{" matchmaker" if v in matches else ""}"><title>{escape(v)}</title>{ring}{core}'
                   f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}" fill="{_fill(v, pubs, subs)}" stroke="#546e7a"/>'
                   f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="8" text-anchor="middle">{escape(v)}</text></g>')
    out.append("</svg>")
    return "".join(out)


LEGEND = ("blue solid: p-link (publications); orange dashed: s-link (subscriptions); green ring: matchmaking node; "
          "fill: blue publisher, orange subscriber, purple both; double ring: CBT core")


@dataclass(frozen=True, eq=False)
class MarkingPicture:
    """A marking over an instance, for a notebook (``_repr_html_``); the
    trees alone when ``marking`` is None. ``graphviz=True`` lays it out with
    Graphviz (:func:`cbalgebra.matchmaker.draw.to_dot`) and, where ``dot``
    is missing, shows :data:`cbalgebra.graphviz.MISSING` in one line."""

    instance: Instance
    marking: Marking | None = None
    title: str = ""
    graphviz: bool = False

    def svg(self) -> str:
        if self.graphviz:
            marking = self.marking if self.marking is not None else dict.fromkeys(self.instance.links, "p")
            return graphviz_svg(to_dot(self.instance, marking, self.title), options=("-Kneato", "-n"))
        return marking_svg(self.instance, self.marking, id_prefix=f"mm{id(self):x}-")

    def _repr_html_(self) -> str:
        head = f"{self.title}: " if self.title else ""
        return figure(self.svg(), f"{head}{self.instance!r}. {LEGEND}")
