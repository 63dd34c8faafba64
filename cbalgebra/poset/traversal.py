"""The one walk over the Hasse diagram.

Every traversal of the package (descendants and ancestors, who a message
reaches, the searches of insert, the drops of remove, Siena's forwarding
sets in :mod:`cbalgebra.network.siena`) is this function with a different
start, direction and ``visit``: it goes from element to immediate successor
(``"down"``, towards what is covered) or to immediate predecessor (``"up"``,
towards what covers) and meets each element once.

``visit(e)`` decides whether the walk goes on past ``e``. The searches of
Carzaniga, Rosenblum & Wolf (Content-Based Addressing and Routing, 2000,
§3.5 and §3.7) are pruned walks: the elements covering x, or matching a
message, form an up-set, so the walk descends only from elements that do.
A caller that wants to stop early asks for a lazy walk and leaves its loop.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator

from cbalgebra.poset.element import Element

__all__ = ["DOWN", "UP", "walk"]

#: Towards the covered elements (immediate successors).
DOWN = "down"
#: Towards the covering elements (immediate predecessors).
UP = "up"


def walk(
    start: Element | Iterable[Element],
    direction: str = DOWN,
    *,
    visit: Callable[[Element], object] | None = None,
    seen: dict[Element, None] | None = None,
    within: Collection[Element] | None = None,
    breadth_first: bool = False,
    lazy: bool = False,
) -> Iterable[Element]:
    """Each element reachable from ``start`` (an element or several,
    themselves included), once, depth first (``breadth_first``: level by
    level from the start). Returns the elements met, in the order met (a
    dict used as an ordered set: ``seen`` if given).

    - ``visit(e)`` is called on each element met; the walk goes on past
      ``e`` only if it returns a true value.
    - ``seen``: the elements met, filled in place; elements already in it
      are not met again (several walks can share one).
    - ``within``: the walk steps only onto these elements (the start is not
      checked). An element with more neighbours than ``within`` has
      elements (a root above a wide antichain) is expanded by scanning
      ``within`` instead of its neighbours.
    - ``lazy``: an iterator instead, yielding each element as it is met,
      for a caller that may stop early (a walk within a budget, or until
      some elements are found).

    The walk runs to its end at once unless ``lazy``: a generator resumed at
    every step would cost the searches of every insert 10-15 %.
    """
    if direction not in (DOWN, UP):
        raise ValueError(f"direction must be {DOWN!r} or {UP!r}, not {direction!r}")
    upwards = direction == UP
    frontier: deque[Element] = deque((start,) if isinstance(start, Element) else start)
    met: dict[Element, None] = {} if seen is None else seen
    if lazy:
        return _lazy(frontier, upwards, visit, met, within, breadth_first)
    while frontier:
        e = frontier.popleft() if breadth_first else frontier.pop()
        if e in met:
            continue
        met[e] = None
        if visit is not None and not visit(e):
            continue
        # The core's own tables: a view would cost a call a step.
        neighbours = e._preds if upwards else e._succs
        frontier.extend(neighbours if within is None else _inside(neighbours, within))
    return met


def _lazy(
    frontier: deque[Element], upwards: bool, visit: Callable[[Element], object] | None, met: dict[Element, None],
    within: Collection[Element] | None, breadth_first: bool,
) -> Iterator[Element]:
    """The walk one element at a time (the loop of :func:`walk`, yielding)."""
    while frontier:
        e = frontier.popleft() if breadth_first else frontier.pop()
        if e in met:
            continue
        met[e] = None
        onwards = visit is None or visit(e)
        yield e
        if onwards:
            neighbours = e._preds if upwards else e._succs
            frontier.extend(neighbours if within is None else _inside(neighbours, within))


def _inside(neighbours: dict[Element, None], within: Collection[Element]) -> Iterable[Element]:
    """The neighbours that are in ``within``, scanning the smaller side."""
    if len(neighbours) > len(within):
        return [c for c in within if c in neighbours]
    return [n for n in neighbours if n in within]
