"""Pictures for notebooks: what ``_repr_html_`` returns for the library's values.

Jupyter (and VS Code, Colab) shows an object by calling its ``_repr_html_``.
The classes keep a two-line method that imports this module on first use, so
``import cbalgebra`` loads no drawing code. Everything returned here is one
self-contained fragment: inline styles only (no ``<style>`` that would leak
into the notebook's page), every name and value escaped, and no network
request.

- :func:`value_html`: a constraint, a filter, an advertisement, a predicate or
  a message typeset in its canonical form (the text :func:`str` gives, one
  coloured token at a time).
- :func:`framed_page`: a whole HTML page (the poset's interactive page)
  inside an ``<iframe srcdoc>``, so its script runs in the notebook without
  touching the notebook's own page.
- :func:`graphviz_svg`: Graphviz's SVG of DOT text, or, when ``dot`` is
  missing or fails, the one line of :mod:`cbalgebra.graphviz` in its place.
- :func:`figure`: an inline SVG with a caption.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from cbalgebra.graphviz import GraphvizError, run_dot
from cbalgebra.values import (
    Advertisement,
    Constraint,
    Filter,
    Message,
    Predicate,
    format_name,
    format_value,
)

__all__ = ["NOTE_CLASS", "escape", "figure", "framed_page", "graphviz_svg", "note", "value_html"]

#: The class of the one-line note shown instead of a picture that needs Graphviz.
NOTE_CLASS = "cbalgebra-note"

_MONO = "font-family: DejaVu Sans Mono, Menlo, Consolas, monospace; font-size: 13px"
_TYPE, _NAME, _OP, _VALUE, _PUNCT = "#6a1b9a", "#0d47a1", "#bf360c", "#1b5e20", "#757575"


def escape(text: object) -> str:
    """``str(text)`` safe inside an element and inside a quoted attribute."""
    return html.escape(str(text), quote=True)


def _token(text: str, colour: str, cls: str, bold: bool = False) -> str:
    weight = "; font-weight: bold" if bold else ""
    return f'<span class="{cls}" style="color: {colour}{weight}">{escape(text)}</span>'


def _constraint(c: Constraint) -> str:
    parts = [_token(c.type, _TYPE, "type"), _token(format_name(c.name), _NAME, "name", bold=True),
             _token(c.op, _OP, "op")]
    if c.value is not None:
        parts.append(_token(format_value(c.type, c.value), _VALUE, "value"))
    return f'<span class="constraint">{" ".join(parts)}</span>'


def _bracketed(items: Sequence[str]) -> str:
    comma = _token(", ", _PUNCT, "punct")
    return _token("[", _PUNCT, "punct") + comma.join(items) + _token("]", _PUNCT, "punct")


def _filter(f: Filter | Advertisement) -> str:
    return f'<span class="filter">{_bracketed([_constraint(c) for c in f.constraints])}</span>'


def _attributes(m: Message) -> list[str]:
    return [
        f'<span class="attribute">{_token(a.type, _TYPE, "type")} {_token(format_name(n), _NAME, "name", True)} '
        f'{_token("=", _OP, "op")} {_token(format_value(a.type, a.value), _VALUE, "value")}</span>'
        for n, a in m.attributes]


def value_html(value: object) -> str:
    """The value typeset: its canonical text, token by token, in one ``<div>``
    whose ``title`` is the plain text (``str(value)``), which is also the
    fragment's text content. A predicate puts one
    filter per line, joined by ||; the empty predicate reads ``false``.
    TypeError for anything but a :class:`Constraint`, :class:`Filter`,
    :class:`Advertisement`, :class:`Predicate` or :class:`Message`."""
    kind = type(value).__name__.lower()
    if isinstance(value, Constraint):
        body = _constraint(value)
    elif isinstance(value, (Filter, Advertisement)):
        body = _filter(value)
    elif isinstance(value, Message):
        body = f'<span class="message">{_bracketed(_attributes(value))}</span>'
    elif isinstance(value, Predicate):
        if not value.filters:
            body = _token("false", _OP, "false", bold=True)
        else:
            line = f'<br/>{_token(" || ", _OP, "or", bold=True)}'
            body = line.join(_filter(f) for f in value.filters)
    else:
        raise TypeError(f"no notebook picture for {type(value).__name__}")
    return (f'<div class="cbalgebra-{kind}" title="{escape(value)}" style="{_MONO}; line-height: 1.5">'
            f"{body}</div>")


#: Line breaks and tabs as character references: an XML reader (and so a
#: notebook's sanitizer) would read them in an attribute as spaces.
_WHITESPACE_REFS = str.maketrans({"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def framed_page(page: str, *, height: int = 560, title: str = "") -> str:
    """A whole HTML page shown inline: an ``<iframe srcdoc>`` (the page escaped
    into the attribute), sandboxed to run its own scripts and nothing else."""
    return (f'<iframe class="cbalgebra-page" title="{escape(title)}" sandbox="allow-scripts" '
            f'style="width: 100%; height: {int(height)}px; border: 1px solid #d0d7de; border-radius: 4px" '
            f'srcdoc="{escape(page).translate(_WHITESPACE_REFS)}"></iframe>')


def figure(svg: str, caption: str) -> str:
    """An inline SVG with its caption below it (the caption escaped here)."""
    return (f'<figure class="cbalgebra-figure" style="margin: 0">{svg}'
            f'<figcaption style="font: 13px Helvetica, Arial, sans-serif; color: #333">{escape(caption)}'
            f"</figcaption></figure>")


def graphviz_svg(dot_text: str, *, options: Sequence[str] = ()) -> str:
    """Graphviz's SVG of ``dot_text`` (its XML prologue dropped, to sit inline),
    or one line saying why there is none: :data:`cbalgebra.graphviz.MISSING`
    when ``dot`` is not installed, its error when it fails."""
    try:
        svg = run_dot(dot_text, "svg", options=options, timeout=120).decode("utf-8")
    except GraphvizError as e:
        return note(str(e))
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def note(text: Any) -> str:
    """One line in place of a picture."""
    return f'<p class="{NOTE_CLASS}" style="color: #8a6d3b; font: 13px Helvetica, Arial, sans-serif">{escape(text)}</p>'
