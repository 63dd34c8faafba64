"""The one walk over the Hasse diagram.

Every traversal of the package (descendants and ancestors, who a message
reaches, the searches of insert, the drops of remove, Siena's forwarding
sets in :mod:`cbalgebra.network.siena`) is this function with a different
start, direction and ``visit``: it goes from element to immediate successor
(``"down"``, towards what is covered) or to immediate predecessor (``"up"``,
towards what covers), meets each element once, and yields it.

``visit(e)`` decides whether the walk goes on past ``e``. The searches of
Carzaniga, Rosenblum & Wolf (Content-Based Addressing and Routing, 2000,
§3.5 and §3.7) are pruned walks: the elements covering x, or matching a
message, form an up-set, so the walk descends only from elements that do.
A caller that wants to stop early breaks out of the loop.
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
    seen: set[Element] | None = None,
    within: Collection[Element] | None = None,
    breadth_first: bool = False,
) -> Iterable[Element]:
    """Each element reachable from ``start`` (an element or several,
    themselves included), once, depth first (``breadth_first``: level by
    level from the start).

    - ``visit(e)`` is called on each element met; the walk goes on past
      ``e`` only if it returns a true value.
    - ``seen``: the set of elements met, filled in place; elements already
      in it are not met again (several walks can share one).
    - ``within``: the walk steps only onto these elements (the start is not
      checked). An element with more neighbours than ``within`` has
      elements (a root above a wide antichain) is expanded by scanning
      ``within`` instead of its neighbours.

    Without ``visit`` and ``within`` the walk is lazy: an iterator over the
    elements in the order met, which a caller may leave early (a walk within
    a budget, or until some elements are found). With either, the walk runs
    to its end at once (a visitor's walk is a search: the insert's, a
    message's) and returns the set of elements met (``seen`` if given): no
    generator to resume at every step, which the searches of every insert
    would pay for (measured: 10-15 % on inserts and on ``match``).
    """
    if direction not in (DOWN, UP):
        raise ValueError(f"direction must be {DOWN!r} or {UP!r}, not {direction!r}")
    upwards = direction == UP
    frontier: deque[Element] = deque((start,) if isinstance(start, Element) else start)
    met = set() if seen is None else seen
    if visit is None and within is None:
        return _lazy(frontier, upwards, met, breadth_first)
    take = frontier.popleft if breadth_first else frontier.pop
    extend = frontier.extend
    add = met.add
    while frontier:
        e = take()
        if e in met:
            continue
        add(e)
        if visit is not None and not visit(e):
            continue
        # The core's own tables: a view would cost a call a step.
        neighbours = e._preds if upwards else e._succs
        if within is None:
            extend(neighbours)
        elif len(neighbours) > len(within):
            extend(c for c in within if c in neighbours)
        else:
            extend(n for n in neighbours if n in within)
    return met


def _lazy(frontier: deque[Element], upwards: bool, met: set[Element], breadth_first: bool) -> Iterator[Element]:
    """The plain walk, one element at a time."""
    take = frontier.popleft if breadth_first else frontier.pop
    extend = frontier.extend
    add = met.add
    while frontier:
        e = take()
        if e not in met:
            add(e)
            yield e
            extend(e._preds if upwards else e._succs)
