"""The vocabulary of the poset package: the two kinds of poset and the node
type, :class:`Element`.

Every other module of the package (the core, the insert search, the queries,
the statistics and the drawings) reads elements; only the core changes them.
"""

from __future__ import annotations

from collections.abc import Hashable, KeysView

from cbalgebra.values import Advertisement, Filter

__all__ = ["ADVERTISEMENTS", "KINDS", "SUBSCRIPTIONS", "Element", "Value", "by_age"]

SUBSCRIPTIONS = "subscriptions"
ADVERTISEMENTS = "advertisements"
KINDS = (SUBSCRIPTIONS, ADVERTISEMENTS)

#: What a poset holds: filters (S^S) or advertisements (A^A).
Value = Filter | Advertisement


class Element:
    """One element of a poset: a filter (or advertisement) standing for its
    equivalence class, with its subscribers and its immediate predecessors
    and successors. Read-only for users; the core mutates it.

    An element removed from its poset keeps its value and last subscribers
    but has ``alive`` False and no neighbours.

    Two ways to read the neighbours and subscribers, as networkx offers
    ``G.succ[n]`` beside ``sorted(G.successors(n))``:

    - ``predecessors``, ``successors`` (tuples oldest first) and
      ``subscribers`` (a frozenset): snapshots, stable to print and to keep;
    - ``predecessor_view``, ``successor_view`` and ``subscriber_view``: live,
      read-only set views of the element's own tables. They copy nothing
      (one small view object per call) and follow every later change, so
      walks and hot loops outside the core read these.

    The underscored slots are the core's; inside the package the insert
    search reads them directly too.
    """

    __slots__ = ("_aliases", "_alive", "_bottom", "_preds", "_seq", "_sig", "_size", "_subs", "_succs", "value")

    def __init__(self, value: Value, sig: frozenset, bottom: bool, seq: int) -> None:
        self.value = value
        self._subs: dict[Hashable, None] = {}
        self._preds: dict[Element, None] = {}
        self._succs: dict[Element, None] = {}
        #: The attribute names that decide which elements can cover which
        #: (see the signature index in :mod:`cbalgebra.poset.search`).
        self._sig = sig
        #: True for the least element: unsatisfiable filters, or advertisements
        #: that allow no attribute at all.
        self._bottom = bottom
        self._aliases: dict[Value, None] = {}
        #: Insertion order: ties are broken by age, so every listing is stable.
        self._seq = seq
        self._alive = True
        self._size = len(value.constraints)

    @property
    def subscribers(self) -> frozenset:
        """A snapshot of the subscribers (see :attr:`subscriber_view` for a live view)."""
        return frozenset(self._subs)

    @property
    def subscriber_view(self) -> KeysView[Hashable]:
        """The subscribers as a live read-only set view: no copy, no order."""
        return self._subs.keys()

    @property
    def predecessor_view(self) -> KeysView[Element]:
        """The immediate predecessors as a live read-only set view: no copy, no order."""
        return self._preds.keys()

    @property
    def successor_view(self) -> KeysView[Element]:
        """The immediate successors as a live read-only set view: no copy, no order."""
        return self._succs.keys()

    @property
    def age(self) -> int:
        """When the element was created in its poset (0 for the first): every
        listing breaks ties by age, so it is stable (see :func:`by_age`)."""
        return self._seq

    @property
    def predecessors(self) -> tuple[Element, ...]:
        """Immediate predecessors: the minimal elements strictly covering this one."""
        return tuple(sorted(self._preds, key=by_age))

    @property
    def successors(self) -> tuple[Element, ...]:
        """Immediate successors: the maximal elements this one strictly covers."""
        return tuple(sorted(self._succs, key=by_age))

    @property
    def equivalents(self) -> tuple[Value, ...]:
        """Other spellings inserted for this element (values equivalent to ``value``)."""
        return tuple(self._aliases)

    @property
    def is_root(self) -> bool:
        return self._alive and not self._preds

    @property
    def satisfiable(self) -> bool:
        """False for the element of unsatisfiable filters (covered by everything)."""
        return not self._bottom

    @property
    def alive(self) -> bool:
        return self._alive

    def __repr__(self) -> str:
        subs = ", ".join(sorted(map(str, self._subs)))
        state = "" if self._alive else ", removed"
        return f"<Element {self.value} subscribers={{{subs}}}{state}>"


def by_age(e: Element) -> int:
    """Sort key: the order in which elements were created."""
    return e._seq
