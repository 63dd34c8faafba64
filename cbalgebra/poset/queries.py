"""Questions about a poset, asked from outside its core: what an element
covers or is covered by, and who a message reaches.

Functions over the core, in the style of networkx's algorithms: they read
the Hasse diagram (each element's immediate predecessors and successors) and
change nothing.
"""

from __future__ import annotations

from collections.abc import Hashable, Set
from typing import TYPE_CHECKING

from cbalgebra.poset.traversal import DOWN, UP, walk
from cbalgebra.semantics import matches
from cbalgebra.values import Message

if TYPE_CHECKING:
    from cbalgebra.poset.core import Poset
    from cbalgebra.poset.element import Element, Value

__all__ = ["ancestors", "covered", "covering", "descendants", "descendants_within", "match"]


def descendants(e: Element) -> list[Element]:
    """The elements strictly covered by ``e``, breadth first."""
    return list(walk(e._succs, DOWN, breadth_first=True))


def ancestors(e: Element) -> list[Element]:
    """The elements strictly covering ``e``, breadth first."""
    return list(walk(e._preds, UP, breadth_first=True))


def descendants_within(e: Element, budget: int) -> Set[Element] | None:
    """The elements strictly below ``e``, or None if there are more than ``budget``
    (a caller that would otherwise compare with each of ``budget`` candidates)."""
    below: dict[Element, None] = {}
    for _ in walk(e._succs, DOWN, seen=below, lazy=True):
        if len(below) > budget:
            return None
    return below.keys()


def covered(poset: Poset, x: Value | str) -> list[Value]:
    """Everything x's element covers, transitively (x itself excluded)."""
    return [e.value for e in descendants(poset.element(x))]


def covering(poset: Poset, x: Value | str) -> list[Value]:
    """Everything that covers x's element, transitively (x itself excluded)."""
    return [e.value for e in ancestors(poset.element(x))]


def match(poset: Poset, message: Message) -> set[Hashable]:
    """The subscribers of every element matching ``message``.

    Descends from the roots and skips everything below an element that does
    not match: its successors match fewer messages (Carzaniga, Rosenblum &
    Wolf, Content-Based Addressing and Routing, 2000, §3.7).
    """
    out: set[Hashable] = set()

    def reached(e: Element) -> bool:
        if not matches(e.value, message):
            return False
        out.update(e._subs)
        return True

    walk(poset.root_elements(), DOWN, visit=reached)
    return out
