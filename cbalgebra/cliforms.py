"""What the commands read and print, shared by the registry (``cbalgebra.cli``)
and the plug-ins, so that no plug-in imports the registry: document detection
and the JSON form of every value."""

from __future__ import annotations

from typing import Any

from cbalgebra._fastparse import skip
from cbalgebra.values import Advertisement, Constraint, Filter, Message, Predicate

_STATEMENT_WORDS = ("subscribe", "advertise", "publish", "ifconfig", "select", "set", "consolidate",
                    "timer", "statistics", "clear", "output", "help")


# ----------------------------------------------------------------- inputs
def looks_like_document(text: str) -> bool:
    """Whether the first word after blanks and comments (``#``, ``//`` and
    ``/* ... */``, over several lines too) opens a statement."""
    start = skip(text, 0)
    end = start
    while end < len(text) and (text[end].isascii() and (text[end].isalnum() or text[end] == "_")):
        end += 1
    return text[start:end] in _STATEMENT_WORDS


# ----------------------------------------------------------------- output
def to_json(x: Any) -> Any:
    """A JSON-ready structure for any value of the package."""
    if isinstance(x, Constraint):
        return {"type": x.type, "name": x.name, "op": x.op, "value": x.value}
    if isinstance(x, Filter):
        return {"kind": "filter", "constraints": [to_json(c) for c in x]}
    if isinstance(x, Predicate):
        return {"kind": "predicate", "filters": [to_json(f)["constraints"] for f in x]}
    if isinstance(x, Advertisement):
        return {"kind": "advertisement", "constraints": [to_json(c) for c in x]}
    if isinstance(x, Message):
        return {"kind": "message", "attributes": {n: {"type": a.type, "value": a.value} for n, a in x.items()}}
    if isinstance(x, list):
        return [to_json(i) for i in x]
    if hasattr(x, "kind") and hasattr(x, "value"):  # DocumentItem
        item = {"kind": x.kind, "line": x.line, "value": to_json(x.value) if not isinstance(x.value, tuple)
                else list(x.value)}
        if x.interface is not None:
            item["interface"] = x.interface
        if getattr(x, "origin", None) is not None:
            item["origin"] = x.origin
        return item
    return x
