"""Questions about a poset, asked from outside its core: what an element
covers or is covered by, and who a message reaches.

Functions over the core, in the style of networkx's algorithms: they read
the Hasse diagram (each element's immediate predecessors and successors) and
change nothing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import TYPE_CHECKING

from cbalgebra.semantics import matches
from cbalgebra.values import Message

if TYPE_CHECKING:
    from cbalgebra.poset.core import Poset
    from cbalgebra.poset.element import Element, Value

__all__ = ["ancestors", "covered", "covering", "descendants", "descendants_within", "match"]


def descendants(e: Element) -> list[Element]:
    """The elements strictly covered by ``e``, breadth first."""
    return _breadth_first(e, upwards=False)


def ancestors(e: Element) -> list[Element]:
    """The elements strictly covering ``e``, breadth first."""
    return _breadth_first(e, upwards=True)


def _breadth_first(e: Element, upwards: bool) -> list[Element]:
    seen: dict[Element, None] = {}
    queue = deque(e._preds if upwards else e._succs)
    while queue:
        n = queue.popleft()
        if n in seen:
            continue
        seen[n] = None
        queue.extend(n._preds if upwards else n._succs)
    return list(seen)


def descendants_within(e: Element, budget: int) -> set[Element] | None:
    """The elements strictly below ``e``, or None if there are more than ``budget``
    (a caller that would otherwise compare with each of ``budget`` candidates)."""
    seen: set[Element] = set()
    stack = list(e._succs)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if len(seen) > budget:
            return None
        stack.extend(n._succs)
    return seen


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
    seen: set[Element] = set()
    stack = list(poset.root_elements())
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if matches(e.value, message):
            out.update(e._subs)
            stack.extend(e._succs)
    return out
