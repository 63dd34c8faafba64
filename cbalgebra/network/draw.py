"""Pictures of one delivery over its network, as in Carzaniga, Rembert & Wolf 2006's Figures 1-4
(Carzaniga, Rembert & Wolf, "Understanding Content-Based Routing Schemes",
2006): links in grey with their lengths, the source in green, interested
processors filled in orange, processors the message reached outlined in
blue, every packet as an arrow from its parent, and packets to a processor
that receives the message more than once in red.

- :func:`to_dot` writes Graphviz DOT with fixed positions (rendered to SVG or
  PNG by ``dot -Kneato -n``, see :func:`render`);
- :func:`to_html` writes one self-contained HTML page (inline SVG, no
  scripts, nothing to install), with the packet list beside the picture.

Positions come from networkx's spring layout with a fixed seed; a real
network with coordinates (topohub's ``pos`` = (longitude, latitude), or
``longitude``/``latitude`` attributes) is drawn at them. Both outputs show
the same picture.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import networkx as nx

from cbalgebra.errors import UsageError
from cbalgebra.graphviz import run_dot

if TYPE_CHECKING:
    from .routing import Delivery, Routing

__all__ = ["LEGEND", "caption", "layout", "render", "routing_svg", "to_dot", "to_html", "to_svg"]

SOURCE, INTERESTED, REACHED, PLAIN = "#2e7d32", "#ffb74d", "#1565c0", "#9e9e9e"
PACKET, DUPLICATE = "#212121", "#d32f2f"


def layout(graph: nx.Graph) -> dict[int, tuple[float, float]]:
    """Node positions in [0, 1]^2."""
    coords = {}
    for x, data in graph.nodes(data=True):
        lon, lat = data.get("longitude", data.get("Longitude")), data.get("latitude", data.get("Latitude"))
        pos = data.get("pos")
        if lon is None and isinstance(pos, (tuple, list)) and len(pos) == 2:
            lon, lat = pos  # topohub: (longitude, latitude)
        if isinstance(lon, (int, float)) and isinstance(lat, (int, float)):
            coords[x] = (float(lon), -float(lat))
    if len(coords) != graph.number_of_nodes():
        coords = {x: (float(p[0]), float(p[1])) for x, p in nx.spring_layout(graph, seed=2006).items()}
    xs = [p[0] for p in coords.values()]
    ys = [p[1] for p in coords.values()]
    span_x = (max(xs) - min(xs)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0
    return {x: ((p[0] - min(xs)) / span_x, (p[1] - min(ys)) / span_y) for x, p in coords.items()}


def _label(graph: nx.Graph, x: int) -> str:
    name = graph.nodes[x].get("name")
    return f"{x}" if name is None or str(name) == str(x) else f"{x} ({name})"


def _weight(w: float) -> str:
    return f"{w:g}"


def _title(delivery: Delivery) -> str:
    r = delivery.routing
    return (f"{r.scheme.upper()} on {r.graph.graph.get('name', 'network')}: message from {delivery.source}, "
            f"{delivery.size} packets, {len(delivery.interested)} interested, "
            f"{'correct' if delivery.correct else 'NOT correct'}, "
            f"{'latency-minimal' if delivery.latency_minimal else 'not latency-minimal'}"
            + (f", duplicates at {', '.join(map(str, sorted(delivery.duplicates)))}" if delivery.duplicates else ""))


def to_dot(delivery: Delivery, scale: float = 640.0) -> str:
    """The delivery as Graphviz DOT, positions fixed in points (render with
    neato -n; ``scale`` is the picture's width)."""
    g = delivery.routing.graph
    pos = layout(g)
    dup = set(delivery.duplicates)
    reached = delivery.receivers
    lines = ["digraph delivery {",
             (f'  graph [label="{_escape(_title(delivery))}", labelloc=t, fontname="Helvetica", '
             'splines=true, outputorder=edgesfirst];'),
             '  node [shape=circle, style=filled, fontname="Helvetica", fontsize=11, width=0.4, fixedsize=true];',
             '  edge [fontname="Helvetica", fontsize=9];']
    for x in sorted(g.nodes):
        fill = INTERESTED if x in delivery.interested else "white"
        color = SOURCE if x == delivery.source else (REACHED if x in reached else PLAIN)
        pen = 3 if x == delivery.source or x in reached else 1
        px, py = pos[x]
        lines.append(f'  {x} [label="{_escape(str(x))}", tooltip="{_escape(_label(g, x))}", fillcolor="{fill}", '
                     f'color="{color}", penwidth={pen}, pos="{px * scale:.3f},{py * scale:.3f}!"];')
    for u, v, w in sorted(g.edges(data="weight")):
        lines.append(f'  {u} -> {v} [dir=none, color="#cfcfcf", label="{_weight(w)}", fontcolor="#8a8a8a"];')
    for p in delivery.packets:
        if p.parent is None:
            continue
        color = DUPLICATE if p.processor in dup else PACKET
        lines.append(f'  {p.parent} -> {p.processor} [color="{color}", penwidth=2, '
                     f'tooltip="{_escape(_header(p.header))}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _header(h: Any) -> str:
    if isinstance(h, frozenset):
        return "{" + ", ".join(map(str, sorted(h))) + "}"
    return "-" if h is None else str(h)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def render(delivery: Delivery, path: str | Path) -> Path:
    """Write the delivery to ``path``: .svg or .png through Graphviz, .html
    or .dot without it. Raises :class:`cbalgebra.graphviz.GraphvizError`
    when dot is needed and absent, UsageError for any other suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".html":
        path.write_text(to_html(delivery), encoding="utf-8")
        return path
    if suffix in (".dot", ".gv"):
        path.write_text(to_dot(delivery), encoding="utf-8")
        return path
    if suffix not in (".svg", ".png"):
        raise UsageError(f"cannot draw to {path.name}: use .svg, .png (Graphviz), .html or .dot")
    picture = run_dot(to_dot(delivery), suffix[1:], options=("-Kneato", "-n"), timeout=120,
                      instead="draw to .html")
    path.write_bytes(picture)
    return path


def _frame(graph: nx.Graph, width: int, height: int) -> Callable[[int], tuple[float, float]]:
    """Where each processor sits in a ``width`` x ``height`` picture."""
    pos = layout(graph)
    margin = 40

    def xy(x: int) -> tuple[float, float]:
        px, py = pos[x]
        return margin + px * (width - 2 * margin), margin + py * (height - 2 * margin)
    return xy


def _links(graph: nx.Graph, xy: Callable[[int], tuple[float, float]]) -> list[str]:
    """The network's links in light grey, each with its length."""
    out = []
    for u, v, w in sorted(graph.edges(data="weight")):
        (x1, y1), (x2, y2) = xy(u), xy(v)
        out.append(f'<line class="link" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#dddddd" '
                   f'stroke-width="2"><title>({u}, {v}) length {_weight(w)}</title></line>')
        out.append(f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 3:.1f}" font-size="9" fill="#999" '
                   f'text-anchor="middle">{html.escape(_weight(w))}</text>')
    return out


def _processor(x: int, at: tuple[float, float], fill: str, stroke: str, width: float, tip: str) -> str:
    cx, cy = at
    return (f'<g class="processor" data-id="{x}"><title>{html.escape(tip)}</title>'
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="12" fill="{fill}" stroke="{stroke}" stroke-width="{width}"/>'
            f'<text x="{cx:.1f}" y="{cy + 4:.1f}" font-size="11" text-anchor="middle">{x}</text></g>')


def _svg_open(width: int, height: int) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">')


def to_svg(delivery: Delivery, width: int = 900, height: int = 700, *, id_prefix: str = "") -> str:
    """The delivery as one inline SVG (no Graphviz): the network's links in
    grey, one arrow (``class="packet"``) per transmitted packet, i.e. per
    link of the delivery tree, red (``packet duplicate``) into a processor
    reached more than once. ``id_prefix`` keeps the arrowheads' ids apart
    when several pictures share one page (a notebook)."""
    g = delivery.routing.graph
    xy = _frame(g, width, height)
    dup = set(delivery.duplicates)
    reached = delivery.receivers
    svg = [_svg_open(width, height),
           ('<defs>'
           f'<marker id="{id_prefix}a" viewBox="0 0 10 10" refX="19" refY="5" markerWidth="7" markerHeight="7" '
           f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{PACKET}"/></marker>'
           f'<marker id="{id_prefix}d" viewBox="0 0 10 10" refX="19" refY="5" markerWidth="7" markerHeight="7" '
           f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{DUPLICATE}"/></marker>'
           '</defs>'), *_links(g, xy)]
    seen: Counter = Counter()
    for p in delivery.packets:
        if p.parent is None:
            continue
        seen[(p.parent, p.processor)] += 1
        (x1, y1), (x2, y2) = xy(p.parent), xy(p.processor)
        bend = 10 * (seen[(p.parent, p.processor)] - 1)
        is_dup = p.processor in dup
        color, marker, cls = (DUPLICATE, "d", "packet duplicate") if is_dup else (PACKET, "a", "packet")
        mx, my = (x1 + x2) / 2 + bend, (y1 + y2) / 2 - bend
        svg.append(f'<path class="{cls}" data-from="{p.parent}" data-to="{p.processor}" '
                   f'd="M{x1:.1f},{y1:.1f} Q{mx:.1f},{my:.1f} {x2:.1f},{y2:.1f}" fill="none" '
                   f'stroke="{color}" stroke-width="2.2" marker-end="url(#{id_prefix}{marker})">'
                   f'<title>{p.parent} → {p.processor}: header {html.escape(_header(p.header))}, '
                   f'path length {_weight(p.path_length)}</title></path>')
    for x in sorted(g.nodes):
        fill = INTERESTED if x in delivery.interested else "#ffffff"
        stroke = SOURCE if x == delivery.source else (REACHED if x in reached else PLAIN)
        sw = 3.5 if x == delivery.source or x in reached else 1.2
        svg.append(_processor(x, xy(x), fill, stroke, sw, _label(g, x)))
    svg.append("</svg>")
    return "".join(svg)


def routing_svg(routing: Routing, width: int = 720, height: int = 540) -> str:
    """A routing scheme's network as one inline SVG (no Graphviz): each
    processor's predicate in its tooltip, senders outlined in green,
    receivers (a processor with a predicate) filled in orange."""
    g = routing.graph
    xy = _frame(g, width, height)
    senders, receivers = set(routing.senders), set(routing.receivers)
    svg = [_svg_open(width, height), *_links(g, xy)]
    for x in sorted(g.nodes):
        fill = INTERESTED if x in receivers else "#ffffff"
        stroke, sw = (SOURCE, 3.0) if x in senders else (PLAIN, 1.2)
        tip = f"{_label(g, x)}: {routing.predicates.get(x, 'no predicate')}"
        svg.append(_processor(x, xy(x), fill, stroke, sw, tip))
    svg.append("</svg>")
    return "".join(svg)


#: What the colours of :func:`to_svg` mean, in words.
LEGEND = ("green ring: source; orange fill: interested; blue ring: reached; arrow: packet "
          "(red: into a processor reached more than once)")


def caption(delivery: Delivery) -> str:
    """One line that says what the picture of ``delivery`` shows, and its legend."""
    return f"{_title(delivery)}. {LEGEND}"


def to_html(delivery: Delivery, width: int = 900, height: int = 700) -> str:
    """One self-contained HTML page: an inline SVG picture and the packets."""
    dup = set(delivery.duplicates)
    svg = [to_svg(delivery, width, height)]
    rows = "\n".join(
        f"<tr{' class=dup' if p.processor in dup else ''}><td>{i}</td><td>{p.processor}</td>"
        f"<td>{'' if p.parent is None else p.parent}</td><td>{html.escape(_header(p.header))}</td>"
        f"<td>{_weight(p.path_length)}</td></tr>"
        for i, p in enumerate(delivery.packets))
    legend = (f'<p class="legend"><span style="color:{SOURCE}">◯ source</span> · '
              f'<span style="background:{INTERESTED}">&nbsp;interested&nbsp;</span> · '
              f'<span style="color:{REACHED}">◯ reached</span> · '
              f'<span style="color:{PACKET}">→ packet</span> · '
              f'<span style="color:{DUPLICATE}">→ packet to a processor reached more than once</span></p>')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(_title(delivery))}</title>
<style>
body {{ font-family: Helvetica, Arial, sans-serif; margin: 1.5em; color: #222; }}
.wrap {{ display: flex; gap: 2em; align-items: flex-start; flex-wrap: wrap; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ border-bottom: 1px solid #eee; padding: 2px 8px; text-align: left; }}
tr.dup td {{ color: {DUPLICATE}; }}
.legend span {{ margin-right: .3em; }}
</style></head><body>
<h2>{html.escape(_title(delivery))}</h2>
<p>message: <code>{html.escape(str(delivery.message))}</code></p>
{legend}
<div class="wrap"><div>{''.join(svg)}</div>
<table><thead><tr><th>#</th><th>processor</th><th>from</th><th>header</th><th>path length</th></tr></thead>
<tbody>
{rows}
</tbody></table></div>
</body></html>
"""
