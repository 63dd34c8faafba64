"""One self-contained HTML page for exploring a poset.

The page inlines its SVG drawing (the built-in layered layout), its style
and its script, and declares a Content-Security-Policy that forbids every
network request. It offers pan (drag) and zoom (wheel, buttons, + and -),
a search box (by filter text or subscriber; Enter steps through matches),
and a click on a node highlights everything that node covers, transitively,
with the node's details in a side panel.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

from cbalgebra.poset.queries import descendants
from cbalgebra.poset.render import draw, select, summary_line

if TYPE_CHECKING:
    from cbalgebra.poset.core import Poset

__all__ = ["to_html"]

_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _asset(name: str) -> str:
    return resources.files("cbalgebra.poset").joinpath("assets", name).read_text("utf-8")


def _script_safe(text: str) -> str:
    return text.replace("</", "<\\/")


def _json_for_script(data: Any) -> str:
    """JSON that cannot end or confuse its <script> block: no raw < > &."""
    return (
        json.dumps(data, ensure_ascii=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )


def to_html(poset: Poset, **options: Any) -> str:
    """The interactive page as a string. ``options`` choose what is drawn,
    as for :func:`cbalgebra.poset.render.select` (``max_nodes``,
    ``top_levels``, ``title``, ``annotate(element)`` for extra label lines)."""
    view = select(poset, **options)
    drawing = draw(view)
    drawn = set(view.elements)
    nodes: dict[str, Any] = {}
    for e in view.elements:
        i = view.ids[e]
        subs = sorted(map(str, e.subscribers))
        text = str(e.value)
        nodes[i] = {
            "text": text,
            "subscribers": subs,
            "level": view.level[e],
            "root": e.is_root,
            "succ": [view.ids[s] for s in e.successors if s in drawn],
            "pred": [view.ids[p] for p in e.predecessors if p in drawn],
            "covers": len(descendants(e)),
            "equivalents": [str(v) for v in e.equivalents],
            "search": (text + " " + " ".join(subs) + " " + " ".join(str(v) for v in e.equivalents)).lower(),
        }
    payload = {"width": round(drawing.width, 1), "height": round(drawing.height, 1), "nodes": nodes}

    # Let the SVG fill the viewport; the script handles pan and zoom.
    svg = drawing.svg
    head, rest = svg.split(">", 1)
    head = (
        head.replace(f' width="{drawing.width:.0f}"', ' width="100%"')
        .replace(f' height="{drawing.height:.0f}"', ' height="100%"')
        .replace(f' viewBox="0 0 {drawing.width:.0f} {drawing.height:.0f}"', "")
    )
    svg = head + ">" + rest

    notes = "".join(f"<p>{html.escape(n)}</p>" for n in view.notes)
    page_title = html.escape(view.title)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="cbalgebra poset">
<title>{page_title}</title>
<style>
{_asset("poset.css")}
</style>
</head>
<body>
<header>
  <h1>{page_title}</h1>
  <span id="summary">{html.escape(summary_line(view))}</span>
  <div id="tools">
    <input id="search" type="search" placeholder="Search filters or subscribers  ( / )" autocomplete="off"
      aria-label="Search filters or subscribers">
    <span id="matches" aria-live="polite"></span>
    <button id="zoom-in" title="Zoom in (+)">+</button>
    <button id="zoom-out" title="Zoom out (-)">−</button>
    <button id="fit" title="Fit to window (0)">Fit</button>
    <button id="clear" title="Clear search and selection (Esc)">Clear</button>
  </div>
</header>
{f'<div id="notes" role="note">{notes}</div>' if notes else ''}
<main id="viewport">
{svg}
<div id="help">Drag to pan · wheel to zoom · click a filter to highlight everything it covers</div>
<aside id="info" hidden></aside>
</main>
<script type="application/json" id="poset-data">{_json_for_script(payload)}</script>
<script>
{_script_safe(_asset("poset.js"))}
</script>
</body>
</html>
"""
