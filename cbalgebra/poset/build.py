"""Filling a poset: a predicate's filters, or a document's statements.

Functions over the core (:class:`cbalgebra.poset.core.Poset`), which inserts
one filter or advertisement at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from cbalgebra.parse import parse_document, parse_predicate
from cbalgebra.poset.core import InsertResult, Poset, RemoveResult
from cbalgebra.poset.element import ADVERTISEMENTS, SUBSCRIPTIONS
from cbalgebra.values import Filter, Predicate

__all__ = ["from_document", "insert_predicate", "remove_predicate"]


def _filters(p: Predicate | Filter | str) -> tuple[Filter, ...]:
    return Predicate.of(parse_predicate(p) if isinstance(p, str) else p).filters


def insert_predicate(poset: Poset, p: Predicate | Filter | str, subscriber: Hashable) -> list[InsertResult]:
    """Insert each filter of a predicate for ``subscriber``."""
    return [poset.insert(f, subscriber) for f in _filters(p)]


def remove_predicate(poset: Poset, p: Predicate | Filter | str, subscriber: Hashable) -> list[RemoveResult]:
    """Remove each filter of a predicate for ``subscriber``."""
    return [poset.remove(f, subscriber) for f in _filters(p)]


def from_document(
    source: str | Iterable[Any], *, advertisements: bool = False, subscriber: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[Poset, int]:
    """Build a poset from a document's text (or parsed items).

    Returns the poset and the number of statements used. A statement's
    subscriber is, in order of precedence, ``subscriber`` (one for the whole
    document), the interface of an ``ifconfig`` line or the statement's
    ``from NAME`` clause, and otherwise its line number (``L12``).
    ``progress(stage, done, total)`` hears how the inserts go.
    """
    items = parse_document(source) if isinstance(source, str) else list(source)
    poset = Poset(ADVERTISEMENTS if advertisements else SUBSCRIPTIONS)
    used = 0
    for k, item in enumerate(items, 1):
        if progress is not None and not k & 255:
            progress("poset: insert", k, len(items))
        if advertisements:
            if item.kind != "advertise":
                continue
        elif item.kind not in ("subscribe", "ifconfig"):
            continue
        if subscriber is not None:
            who = subscriber
        elif item.kind == "ifconfig":
            who = item.interface
        elif getattr(item, "origin", None) is not None:
            who = item.origin
        else:
            who = f"L{item.line}" if getattr(item, "line", 0) else f"#{k}"
        used += 1
        if advertisements:
            poset.insert(item.value, who)
        else:
            for f in Predicate.of(item.value).filters:
                poset.insert(f, who)
    return poset, used
