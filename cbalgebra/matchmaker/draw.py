"""A picture of one link marking (Ge, Ji, Kurose & Towsley, "Matchmaker:
Signaling for Dynamic Publish/Subscribe Applications", Figure 4's style):
p-links and s-links as arrows in two colours, the matchmaking nodes (where
publications meet subscriptions) as double octagons, publishers and
subscribers filled, the network's other links in light grey.

:func:`to_dot` writes Graphviz DOT with fixed positions; :func:`render`
runs ``dot -Kneato -n`` for SVG or PNG.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

import networkx as nx

from cbalgebra.graphviz import run_dot

from .algorithms import matchmaking_nodes
from .instance import Instance, Marking, node_key

__all__ = ["P_COLOUR", "S_COLOUR", "node_positions", "render", "to_dot"]

P_COLOUR, S_COLOUR = "#1565c0", "#e65100"  # blue publications, orange subscriptions
PUBLISHER, SUBSCRIBER, BOTH, PLAIN, MATCH = "#90caf9", "#ffcc80", "#ce93d8", "#ffffff", "#2e7d32"
_SCALE = 900.0  # points across the picture


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def node_positions(instance: Instance) -> dict[Hashable, tuple[float, float]]:
    """Where each node sits, in points: Kamada-Kawai over hop distances (spring
    layout past 300 nodes), the larger side ``_SCALE`` long."""
    graph = instance.graph
    if graph is None:
        graph = nx.Graph()
        for edges in instance.trees.values():
            graph.add_edges_from(edges)
    graph = graph.copy()
    graph.add_nodes_from([*instance.publishers, *instance.subscribers])
    # Hop distances, not link weights: a stub domain's unit links would collapse it.
    pos = (nx.kamada_kawai_layout(graph, weight=None) if graph.number_of_nodes() <= 300
           else nx.spring_layout(graph, seed=2003, weight=None))
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    return {v: ((p[0] - min(xs)) / span * _SCALE, (p[1] - min(ys)) / span * _SCALE) for v, p in pos.items()}


def to_dot(instance: Instance, marking: Marking, title: str = "") -> str:
    """DOT text of ``marking`` over ``instance`` (positions fixed: render with ``-Kneato -n``)."""
    pos = node_positions(instance)
    ids = {v: f"n{i}" for i, v in enumerate(sorted(pos, key=node_key))}
    matches = set(matchmaking_nodes(instance, marking))
    pubs, subs = set(instance.publishers), set(instance.subscribers)
    lines = ["digraph matchmaker {", '  graph [outputorder=edgesfirst, fontname="Helvetica", labelloc=t'
             + (f", label={_quote(title)}" if title else "") + "];",
             '  node [shape=circle, style=filled, fontname="Helvetica", fontsize=9, width=0.3, fixedsize=true];',
             "  edge [arrowsize=0.5];"]
    for v in sorted(pos, key=node_key):
        x, y = pos[v]
        fill = BOTH if v in pubs and v in subs else PUBLISHER if v in pubs else SUBSCRIBER if v in subs else PLAIN
        attrs = [f"label={_quote(str(v))}", f'pos="{x:.1f},{y:.1f}!"', f'fillcolor="{fill}"']
        if v in matches:
            attrs += ["shape=doubleoctagon", f'color="{MATCH}"', "penwidth=2", "width=0.45"]
        if v == instance.core:
            attrs.append("peripheries=2")
        lines.append(f"  {ids[v]} [{', '.join(attrs)}];")
    marked = {frozenset(t) for t in instance.links}
    if instance.graph is not None:
        for u, v in sorted(instance.graph.edges, key=lambda e: (node_key(e[0]), node_key(e[1]))):
            if frozenset((u, v)) not in marked:
                lines.append(f'  {ids[u]} -> {ids[v]} [dir=none, color="#d0d0d0"];')
    for u, v in instance.links:
        colour = S_COLOUR if marking[(u, v)] == "s" else P_COLOUR
        style = "dashed" if marking[(u, v)] == "s" else "solid"
        lines.append(f'  {ids[u]} -> {ids[v]} [color="{colour}", style={style}, penwidth=1.6];')
    lines.append(f'  legend [shape=plaintext, style="", pos="{_SCALE / 2:.0f},-40!", fixedsize=false, '
                 f'label=<<font color="{P_COLOUR}">&#8594; p-link (publications)</font>    '
                 f'<font color="{S_COLOUR}">&#8594; s-link (subscriptions), dashed</font>    '
                 f'<font color="{MATCH}">&#9671; matchmaking node</font>    '
                 f'fill: <font color="#1565c0">publisher</font>, <font color="#e65100">subscriber</font>, '
                 f'<font color="#8e24aa">both</font>; double ring: CBT core>];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot_text: str, out: Path) -> None:
    """Write ``out`` (.svg or .png) from DOT text with Graphviz; GraphvizError without ``dot``."""
    fmt = Path(out).suffix.lower().lstrip(".")
    picture = run_dot(dot_text, fmt, options=("-Kneato", "-n"), instead="draw to a .dot file")
    Path(out).write_bytes(picture)
