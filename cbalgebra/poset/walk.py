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
) -> Iterator[Element]:
    """Each element reachable from ``start`` (an element or several,
    themselves included), once, depth first (``breadth_first``: level by
    level from the start).

    - ``visit(e)`` is called on each element met, before it is yielded; the
      walk goes on past ``e`` only if it returns a true value (by default it
      always does).
    - ``seen``: the set of elements met, filled in place; elements already
      in it are not met again (several walks can share one).
    - ``within``: the walk steps only onto these elements (the start is not
      checked). An element with more neighbours than ``within`` has
      elements (a root above a wide antichain) is expanded by scanning
      ``within`` instead of its neighbours.
    """
    if direction not in (DOWN, UP):
        raise ValueError(f"direction must be {DOWN!r} or {UP!r}, not {direction!r}")
    upwards = direction == UP
    frontier: deque[Element] = deque((start,) if isinstance(start, Element) else start)
    take = frontier.popleft if breadth_first else frontier.pop
    extend = frontier.extend
    met = set() if seen is None else seen
    if visit is None and within is None:
        # The plain walk (descendants, ancestors): the shortest loop, per
        # direction, reads the core's tables (a view would cost a call a step).
        while frontier:
            e = take()
            if e not in met:
                met.add(e)
                yield e
                extend(e._preds if upwards else e._succs)
        return
    while frontier:
        e = take()
        if e in met:
            continue
        met.add(e)
        onwards = visit is None or visit(e)
        yield e
        if not onwards:
            continue
        neighbours = e._preds if upwards else e._succs
        if within is None:
            extend(neighbours)
        elif len(neighbours) > len(within):
            extend(c for c in within if c in neighbours)
        else:
            extend(n for n in neighbours if n in within)
