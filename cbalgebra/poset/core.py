"""The filters poset: Siena's routing table (seed 004 §3.4–3.5).

A :class:`Poset` stores filters (or advertisements) ordered by covering. It
keeps only the *immediate* relation, the Hasse diagram: an edge p → s means
p covers s and no other stored element lies strictly between them. Elements
that cover each other are one element. Each element carries the set of its
subscribers.

Inserting a subscription ``insert(x, U)`` follows §3.5:

1. some element covering x already has U among its subscribers: no change;
2. an element equivalent to x exists: U joins its subscribers;
3. otherwise x becomes a new element between its immediate predecessors
   (the minimal elements covering x) and immediate successors (the maximal
   elements x covers).

In cases 2 and 3, U is then removed from every element strictly covered by
x, and elements left without subscribers are dropped. An unsubscription
``remove(x, U)`` cancels U's subscriptions that x covers (§2.4.3).

How insert avoids comparing x with every element:

- *Up-set search.* The elements covering x form an up-set: if e does not
  cover x, nothing below e does. So the search starts at the roots and only
  descends from elements that cover x.
- *Signature index.* A satisfiable filter g is covered by f only if f's
  attribute names are a subset of g's (drop an attribute g does not
  constrain from a message of g: it still matches g but no longer f). For
  advertisements it is the other way round: a1 covers a2 only if every name
  on which a2 has a satisfiable constraint is a name a1 accepts. An
  inverted index from name to elements turns these into set queries, so
  most pairs are never compared at all.
- *Down-set marking.* Candidates that x may cover are tried roughly from
  the top (fewest constraints first for filters); once x covers one, all of
  its descendants are known covered without a check.
- An unsatisfiable filter is covered by everything and covers only other
  unsatisfiable filters: with exact covering it needs no check at all.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from cbalgebra.values import (
    FLOAT,
    GE,
    GT,
    INT,
    INT_MIN,
    RANGE_OPERATORS,
    Advertisement,
    Constraint,
    Filter,
    Message,
    Predicate,
)


__all__ = [
    "ADVERTISEMENTS",
    "COVERED",
    "INSERTED",
    "MERGED",
    "SUBSCRIPTIONS",
    "Element",
    "InsertResult",
    "Poset",
    "PosetStats",
    "RemoveResult",
    "Shape",
]

SUBSCRIPTIONS = "subscriptions"
ADVERTISEMENTS = "advertisements"
KINDS = (SUBSCRIPTIONS, ADVERTISEMENTS)

#: The three cases of insert (§3.5).
COVERED, MERGED, INSERTED = "covered", "merged", "inserted"

Value = Filter | Advertisement
Covers = Callable[[Any, Any], bool]

# A filter no message matches: an int attribute below the smallest int.
_UNSAT_FILTER = Filter([Constraint(INT, "x", "<", INT_MIN)])
_EMPTY_AD = Advertisement([])


class Element:
    """One element of a :class:`Poset`: a filter (or advertisement) standing
    for its equivalence class, with its subscribers and its immediate
    predecessors and successors. Read-only for users; the poset mutates it.

    An element removed from its poset keeps its value and last subscribers
    but has ``alive`` False and no neighbours.
    """

    __slots__ = ("_aliases", "_alive", "_bottom", "_preds", "_seq", "_sig", "_size", "_subs", "_succs", "value")

    def __init__(self, value: Value, sig: frozenset, bottom: bool, seq: int) -> None:
        self.value = value
        self._subs: dict[Hashable, None] = {}
        self._preds: dict[Element, None] = {}
        self._succs: dict[Element, None] = {}
        self._sig = sig
        self._bottom = bottom
        self._aliases: dict[Value, None] = {}
        self._seq = seq
        self._alive = True
        self._size = len(value.constraints)

    @property
    def subscribers(self) -> frozenset:
        return frozenset(self._subs)

    @property
    def predecessors(self) -> tuple[Element, ...]:
        """Immediate predecessors: the minimal elements strictly covering this one."""
        return tuple(sorted(self._preds, key=_seq))

    @property
    def successors(self) -> tuple[Element, ...]:
        """Immediate successors: the maximal elements this one strictly covers."""
        return tuple(sorted(self._succs, key=_seq))

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


def _seq(e: Element) -> int:
    return e._seq


@dataclass(frozen=True)
class InsertResult:
    """What ``insert`` did.

    ``case`` is ``"covered"`` (an element covering the value already holds
    the subscriber: nothing changed), ``"merged"`` (the subscriber joined an
    equivalent element) or ``"inserted"`` (a new element). ``element`` is the
    element that covers or now holds the subscription. ``cancelled`` lists
    the values from which the subscriber was removed because the new
    subscription covers them, and ``dropped`` those of them removed from the
    poset for want of subscribers. ``released`` are the live elements that
    were immediate successors of dropped ones (their predecessors changed).
    """

    case: str
    element: Element
    cancelled: tuple[Value, ...] = ()
    dropped: tuple[Value, ...] = ()
    released: tuple[Element, ...] = ()

    @property
    def changed(self) -> bool:
        return self.case != COVERED


@dataclass(frozen=True)
class RemoveResult:
    """What ``remove`` did: the values whose subscriber was cancelled, the
    values dropped from the poset, and the live elements released by drops."""

    cancelled: tuple[Value, ...] = ()
    dropped: tuple[Value, ...] = ()
    released: tuple[Element, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.cancelled)


@dataclass
class PosetStats:
    """Work counters. ``naive_checks`` is what inserting by comparing the new
    value with every element, in both directions, would have cost."""

    inserts: int = 0
    removes: int = 0
    insert_checks: int = 0
    remove_checks: int = 0
    lookup_checks: int = 0
    satisfiability_checks: int = 0
    naive_checks: int = 0

    @property
    def checks(self) -> int:
        return self.insert_checks + self.remove_checks + self.lookup_checks

    @property
    def checks_per_insert(self) -> float:
        return self.insert_checks / self.inserts if self.inserts else 0.0

    @property
    def avoided(self) -> float:
        """Fraction of the naive insert comparisons that were not made."""
        return 1.0 - self.insert_checks / self.naive_checks if self.naive_checks else 0.0

    def as_dict(self) -> dict[str, float]:
        return {
            "inserts": self.inserts,
            "removes": self.removes,
            "insert_checks": self.insert_checks,
            "remove_checks": self.remove_checks,
            "lookup_checks": self.lookup_checks,
            "satisfiability_checks": self.satisfiability_checks,
            "naive_checks": self.naive_checks,
            "checks_per_insert": self.checks_per_insert,
            "avoided": self.avoided,
        }


@dataclass(frozen=True)
class Shape:
    """The shape of a poset (§3.4): tall posets summarize well, flat ones do not.

    ``depth`` is the number of levels, a level being the length of the
    longest chain from a root; ``level_sizes[i]`` counts the elements at
    level i and ``widest_level`` is the first level of maximal size.
    ``leaves`` are the satisfiable elements covering no satisfiable element;
    ``unsatisfiable`` is 1 when the least element ⊥ of unsatisfiable filters
    is present (it is covered by every element, and sits alone at the
    deepest level).
    """

    elements: int
    roots: int
    leaves: int
    edges: int
    depth: int
    widest_level: int
    width: int
    subscribers: int
    level_sizes: tuple[int, ...]
    unsatisfiable: int = 0

    def __str__(self) -> str:
        if not self.elements:
            return "empty poset"
        return (
            f"{self.elements} element{'s' * (self.elements != 1)}, "
            f"{self.roots} root{'s' * (self.roots != 1)}, "
            f"{self.edges} edge{'s' * (self.edges != 1)}, depth {self.depth}, "
            f"widest level {self.widest_level} ({self.width} element{'s' * (self.width != 1)}), "
            f"{self.leaves} lea{'ves' if self.leaves != 1 else 'f'}, "
            f"{self.subscribers} subscriber{'s' * (self.subscribers != 1)}"
            + (", plus ⊥ (unsatisfiable filters)" if self.unsatisfiable else "")
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "elements": self.elements,
            "roots": self.roots,
            "leaves": self.leaves,
            "edges": self.edges,
            "depth": self.depth,
            "widest_level": self.widest_level,
            "width": self.width,
            "subscribers": self.subscribers,
            "level_sizes": list(self.level_sizes),
            "unsatisfiable": self.unsatisfiable,
        }


class Poset:
    """A partially ordered set of filters (S^S) or advertisements (A^A) under covering.

    ``kind`` is ``"subscriptions"`` or ``"advertisements"``; by default the
    first value inserted decides. ``covers(x, y)`` decides "x covers y"; by
    default the exact covering of :mod:`cbalgebra.covering`. A custom
    relation must be a covering of message sets (such as plain equality,
    for a baseline without covering), because the index relies on it.

    Values may be given as :class:`Filter` / :class:`Advertisement` or as
    text. Subscribers are any hashable ids (client names, neighbour servers,
    interface numbers).
    """

    #: Below this many elements the search from the roots is used alone
    #: (tests set 0 to search from below in small posets too).
    _seed_above = 64
    #: The search up from the leaves (minimal elements) is tried only when
    #: there are at most this many of them (tests raise it).
    _leaves_limit = 16

    def __init__(self, kind: str | None = None, *, covers: Covers | None = None) -> None:
        if kind is not None and kind not in KINDS:
            raise ValueError(f"kind must be {SUBSCRIPTIONS!r} or {ADVERTISEMENTS!r}, not {kind!r}")
        self._kind = kind
        self._custom_covers = covers
        self._exact = covers is None
        self._covers: Covers | None = covers
        self._seq = itertools.count()
        self._by_value: dict[Value, Element] = {}
        self._elements: dict[Element, None] = {}
        self._roots: dict[Element, None] = {}
        self._leaves: dict[Element, None] = {}  # elements without successors
        self._postings: dict[str, dict[Element, None]] = {}
        self._nosig: dict[Element, None] = {}
        self._bottoms: dict[Element, None] = {}
        self._by_sub: dict[Hashable, dict[Element, None]] = {}
        self._sig_cache: dict[Value, tuple[frozenset, bool]] = {}
        self._constraint_sat: dict[Constraint, bool] = {}
        self._version = 0
        self._levels_cache: tuple[int, list[list[Element]], dict[Element, int]] | None = None
        self._minimal_of: tuple[dict, int, list[Element]] | None = None
        # (name, type, operator) -> the elements with one ordered constraint
        # of that kind on the name, sorted by bound: (bounds, elements).
        self._bounds: dict[tuple[str, str, str], tuple[list, list[Element]]] = {}
        self.stats = PosetStats()

    # ------------------------------------------------------------ basics
    @property
    def kind(self) -> str | None:
        return self._kind

    def __len__(self) -> int:
        return len(self._elements)

    def __bool__(self) -> bool:
        return bool(self._elements)

    def __iter__(self) -> Iterator[Value]:
        """The values, roots first, level by level."""
        for level in self._levels()[1]:
            for e in level:
                yield e.value

    def __contains__(self, x: object) -> bool:
        try:
            return self._find(self._coerce(x, register=False), "lookup_checks") is not None
        except (TypeError, ValueError):
            return False

    def __repr__(self) -> str:
        kind = self._kind or "empty"
        return f"<Poset {kind}: {self.shape()}>"

    def elements(self) -> list[Element]:
        """All elements, roots first, level by level."""
        return [e for level in self._levels()[1] for e in level]

    def element(self, x: Value | str) -> Element:
        """The element equal or equivalent to x (KeyError if there is none)."""
        v = self._coerce(x, register=False)
        e = self._find(v, "lookup_checks")
        if e is None:
            raise KeyError(str(v))
        return e

    def roots(self) -> list[Value]:
        """The root values: elements no other element covers."""
        return [e.value for e in sorted(self._roots, key=_seq)]

    def predecessors(self, x: Value | str) -> list[Value]:
        """The immediate predecessors of x's element."""
        return [p.value for p in self.element(x).predecessors]

    def successors(self, x: Value | str) -> list[Value]:
        """The immediate successors of x's element."""
        return [s.value for s in self.element(x).successors]

    def subscribers(self, x: Value | str) -> frozenset:
        return self.element(x).subscribers

    def covered(self, x: Value | str) -> list[Value]:
        """Everything x's element covers, transitively (x itself excluded)."""
        return [e.value for e in self.descendants(self.element(x))]

    def subscriptions(self, subscriber: Hashable) -> list[Value]:
        """The values holding ``subscriber`` (an antichain: none covers another)."""
        return [e.value for e in sorted(self._by_sub.get(subscriber, ()), key=_seq)]

    def all_subscribers(self) -> set:
        return set(self._by_sub)

    def edges(self) -> list[tuple[Value, Value]]:
        """The immediate covering pairs (covering, covered)."""
        return [(p.value, s.value) for p in self.elements() for s in p.successors]

    def descendants(self, e: Element) -> list[Element]:
        """Elements strictly covered by ``e``, breadth first."""
        seen: dict[Element, None] = {}
        queue = deque(e._succs)
        while queue:
            n = queue.popleft()
            if n in seen:
                continue
            seen[n] = None
            queue.extend(n._succs)
        return list(seen)

    @staticmethod
    def descendants_within(e: Element, budget: int) -> set[Element] | None:
        """The elements strictly below ``e``, or None if there are more than ``budget``."""
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

    def ancestors(self, e: Element) -> list[Element]:
        """Elements strictly covering ``e``, breadth first."""
        seen: dict[Element, None] = {}
        queue = deque(e._preds)
        while queue:
            n = queue.popleft()
            if n in seen:
                continue
            seen[n] = None
            queue.extend(n._preds)
        return list(seen)

    # ------------------------------------------------------------ insert
    def insert(self, x: Value | str, subscriber: Hashable) -> InsertResult:
        """Subscribe ``subscriber`` to x (the three cases of §3.5)."""
        x = self._coerce(x)
        hash(subscriber)
        st = self.stats
        st.inserts += 1
        st.naive_checks += 2 * len(self._elements)
        xsig, xbot = self._signature(x)
        known = self._by_value.get(x)

        # The elements covering x: all of them, or (found from below) only
        # the minimal ones.
        up, complete = self._up_or_minimal(x, xsig, xbot, known, "insert_checks")
        held = self._by_sub.get(subscriber)
        if held:
            if not complete:
                if len(held) <= 32:
                    hits = [u for u in held if self._check(u.value, x, "insert_checks")]
                    if hits:
                        return InsertResult(COVERED, min(hits, key=_seq))
                    held = None
                else:
                    up, complete = self._close_upwards(up), True
        if held:
            hits = [u for u in held if u in up] if len(held) < len(up) else [u for u in up if u in held]
            if hits:
                return InsertResult(COVERED, min(hits, key=_seq))

        equal = known if known is not None else self._equivalent_in(x, up, xbot, "insert_checks")
        if equal is not None:
            target = equal
            case = MERGED
            if x != equal.value and x not in equal._aliases:
                equal._aliases[x] = None
                self._by_value[x] = equal
        else:
            target = self._new_element(x, xsig, xbot, up)
            case = INSERTED
        target._subs[subscriber] = None
        self._by_sub.setdefault(subscriber, {})[target] = None

        # Cancel the subscriber's subscriptions that x covers.
        cancelled, dropped, released = self._cancel(x, xsig, xbot, subscriber, target, "insert_checks")
        self._version += 1
        return InsertResult(case, target, cancelled, dropped, released)

    def insert_predicate(self, p: Predicate | Filter | str, subscriber: Hashable) -> list[InsertResult]:
        """Insert each filter of a predicate for ``subscriber``."""
        if isinstance(p, str):
            from cbalgebra.parse import parse_predicate

            p = parse_predicate(p)
        return [self.insert(f, subscriber) for f in Predicate.of(p)]

    def _new_element(self, x: Value, xsig: frozenset, xbot: bool, up: dict[Element, None]) -> Element:
        preds = self._minimal(up)
        succs = self._down_maximal(x, xsig, xbot, up, "insert_checks")
        node = Element(x, xsig, xbot, next(self._seq))
        pred_set = dict.fromkeys(sorted(preds, key=_seq))
        succ_set = dict.fromkeys(sorted(succs, key=_seq))
        for p in pred_set:
            for s in succ_set:
                if s in p._succs:
                    del p._succs[s]
                    del s._preds[p]
        for p in pred_set:
            p._succs[node] = None
            node._preds[p] = None
            self._leaves.pop(p, None)
        for s in succ_set:
            s._preds[node] = None
            node._succs[s] = None
            self._roots.pop(s, None)
        if not pred_set:
            self._roots[node] = None
        if not succ_set:
            self._leaves[node] = None
        self._index(node)
        return node

    # ------------------------------------------------------------ remove
    def remove(self, x: Value | str, subscriber: Hashable) -> RemoveResult:
        """Unsubscribe: cancel ``subscriber``'s subscriptions that x covers (§2.4.3)."""
        x = self._coerce(x, register=False)
        self.stats.removes += 1
        xsig, xbot = self._signature(x)
        cancelled, dropped, released = self._cancel(x, xsig, xbot, subscriber, None, "remove_checks")
        if cancelled:
            self._version += 1
        return RemoveResult(cancelled, dropped, released)

    def remove_predicate(self, p: Predicate | Filter | str, subscriber: Hashable) -> list[RemoveResult]:
        if isinstance(p, str):
            from cbalgebra.parse import parse_predicate

            p = parse_predicate(p)
        return [self.remove(f, subscriber) for f in Predicate.of(p)]

    def _cancel(
        self, x: Value, xsig: frozenset, xbot: bool, subscriber: Hashable, keep: Element | None, counter: str
    ) -> tuple[tuple[Value, ...], tuple[Value, ...], tuple[Element, ...]]:
        """Remove ``subscriber`` from the elements x covers (except ``keep``)."""
        held = self._by_sub.get(subscriber)
        if not held:
            return (), (), ()
        below = self.descendants_within(keep, len(held)) if keep is not None else None
        if below is not None:
            # x is stored as ``keep``: what it covers is exactly what lies below.
            hit = sorted((e for e in held if e in below), key=_seq)
        else:
            hit = []
            for e in held:
                if e is keep:
                    continue
                if (e.value == x or x in e._aliases
                        or (self._may_cover(xsig, xbot, e._sig, e._bottom) and self._check(x, e.value, counter))):
                    hit.append(e)
            hit.sort(key=_seq)
        dropped: list[Value] = []
        released: dict[Element, None] = {}
        for e in hit:
            del e._subs[subscriber]
            del held[e]
            if not e._subs:
                dropped.append(e.value)
                for s in self._drop(e):
                    released[s] = None
        if not held:
            del self._by_sub[subscriber]
        live = tuple(e for e in released if e._alive)
        return tuple(e.value for e in hit), tuple(dropped), live

    def _drop(self, e: Element) -> list[Element]:
        """Remove an element, reconnecting its predecessors to its successors
        wherever no other path joins them (no shortcut edges)."""
        preds = sorted(e._preds, key=_seq)
        succs = sorted(e._succs, key=_seq)
        for p in preds:
            del p._succs[e]
        for s in succs:
            del s._preds[e]
        e._preds.clear()
        e._succs.clear()
        e._alive = False
        self._unindex(e)
        if preds:
            for s in succs:
                if s._bottom and self._exact:
                    # Every element covers ⊥: p still reaches it through any
                    # other successor, and needs the edge only if it has none.
                    for p in preds:
                        if not p._succs:
                            p._succs[s] = None
                            s._preds[p] = None
                    continue
                reached = self._ancestors_among(s, preds)
                for p in preds:
                    if p not in reached:
                        p._succs[s] = None
                        s._preds[p] = None
        for s in succs:
            if not s._preds:
                self._roots[s] = None
        for p in preds:
            if not p._succs:
                self._leaves[p] = None
        return succs

    @staticmethod
    def _ancestors_among(s: Element, targets: list[Element]) -> set[Element]:
        """Which of ``targets`` are ancestors of s (search stops once all are found)."""
        want = set(targets)
        found: set[Element] = set()
        seen: set[Element] = set()
        stack = list(s._preds)
        while stack and len(found) < len(want):
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if n in want:
                found.add(n)
            stack.extend(n._preds)
        return found

    # ------------------------------------------------------------ matching
    def match(self, message: Message) -> set:
        """The subscribers of every element matching ``message``.

        Descends from the roots and skips everything below an element that
        does not match (its successors match fewer messages, §3.7).
        """
        from cbalgebra.semantics import matches

        out: set = set()
        seen: set[Element] = set()
        stack = list(self._roots)
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            if matches(e.value, message):
                out.update(e._subs)
                stack.extend(e._succs)
        return out

    # ------------------------------------------------------------ shape
    def levels(self) -> list[list[Value]]:
        """Values by level: level 0 holds the roots, level i the elements
        whose longest chain from a root has i edges."""
        return [[e.value for e in level] for level in self._levels()[1]]

    def level_of(self, e: Element) -> int:
        return self._levels()[2][e]

    def shape(self) -> Shape:
        _, levels, _ = self._levels()
        sizes = tuple(len(level) for level in levels)
        width = max(sizes, default=0)
        return Shape(
            elements=len(self._elements),
            roots=len(self._roots),
            leaves=sum(1 for e in self._elements if not e._bottom and all(s._bottom for s in e._succs)),
            edges=sum(len(e._succs) for e in self._elements),
            depth=len(levels),
            widest_level=sizes.index(width) if sizes else 0,
            width=width,
            subscribers=len(self._by_sub),
            level_sizes=sizes,
            unsatisfiable=len(self._bottoms),
        )

    def _levels(self) -> tuple[int, list[list[Element]], dict[Element, int]]:
        cache = self._levels_cache
        if cache is not None and cache[0] == self._version:
            return cache
        level: dict[Element, int] = {}
        indegree = {e: len(e._preds) for e in self._elements}
        queue = deque(sorted(self._roots, key=_seq))
        for r in queue:
            level[r] = 0
        order = []
        while queue:
            e = queue.popleft()
            order.append(e)
            for s in e._succs:
                level[s] = max(level.get(s, 0), level[e] + 1)
                indegree[s] -= 1
                if indegree[s] == 0:
                    queue.append(s)
        if len(order) != len(self._elements):  # pragma: no cover - would be a bug
            raise AssertionError("the poset's graph has a cycle")
        depth = max(level.values(), default=-1) + 1
        levels: list[list[Element]] = [[] for _ in range(depth)]
        for e in sorted(order, key=_seq):
            levels[level[e]].append(e)
        self._levels_cache = (self._version, levels, level)
        return self._levels_cache

    # ------------------------------------------------------------ pictures
    def to_dot(self, **options: Any) -> str:
        """Graphviz DOT of the Hasse diagram (see :func:`cbalgebra.poset.render.to_dot`)."""
        from cbalgebra.poset.render import to_dot

        return to_dot(self, **options)

    def to_svg(self, **options: Any) -> str:
        """SVG drawn by Graphviz ``dot``."""
        from cbalgebra.poset.render import to_svg

        return to_svg(self, **options)

    def to_png(self, **options: Any) -> bytes:
        from cbalgebra.poset.render import to_png

        return to_png(self, **options)

    def to_html(self, **options: Any) -> str:
        """One self-contained interactive HTML page (pan, zoom, search, highlight)."""
        from cbalgebra.poset.html import to_html

        return to_html(self, **options)

    def _repr_svg_(self) -> str:
        from cbalgebra.poset.render import repr_svg

        return repr_svg(self)

    # ------------------------------------------------------------ internals
    def _coerce(self, x: Any, register: bool = True) -> Value:
        if isinstance(x, str):
            from cbalgebra.parse import parse_advertisement, parse_predicate

            if self._kind == ADVERTISEMENTS:
                x = parse_advertisement(x)
            else:
                x = parse_predicate(x)
        if isinstance(x, Predicate):
            if len(x) != 1:
                raise TypeError(
                    f"a poset element is one filter; {x} has {len(x)} (use insert_predicate)"
                )
            x = x.filters[0]
        if isinstance(x, Filter):
            kind = SUBSCRIPTIONS
        elif isinstance(x, Advertisement):
            kind = ADVERTISEMENTS
        else:
            raise TypeError(f"a poset holds filters or advertisements, not {type(x).__name__}")
        if self._kind is None:
            if register:
                self._kind = kind
        elif kind != self._kind:
            raise TypeError(f"this poset holds {self._kind}, not a {type(x).__name__}")
        if self._covers is None and register:
            self._covers = _default_covers(kind)
        return x

    def _check(self, a: Value, b: Value, counter: str) -> bool:
        setattr(self.stats, counter, getattr(self.stats, counter) + 1)
        covers = self._covers
        if covers is None:  # nothing inserted yet
            covers = self._covers = _default_covers(SUBSCRIPTIONS if isinstance(a, Filter) else ADVERTISEMENTS)
        return covers(a, b)

    def _signature(self, x: Value) -> tuple[frozenset, bool]:
        """(signature, bottom) of a value: the names it constrains (for
        advertisements, only satisfiable constraints count) and whether it is
        a least element (matches nothing / covers only the empty message)."""
        e = self._by_value.get(x)
        if e is not None:
            return e._sig, e._bottom
        cached = self._sig_cache.get(x)
        if cached is not None:
            return cached
        self.stats.satisfiability_checks += 1
        if isinstance(x, Filter):
            sig = frozenset(c.name for c in x.constraints)
            if self._exact:
                from cbalgebra.covering import satisfiable

                bottom = not satisfiable(x)
            else:
                bottom = bool(self._covers and self._covers(_UNSAT_FILTER, x))
        else:
            names = set()
            for c in x.constraints:
                ok = self._constraint_sat.get(c)
                if ok is None:
                    if self._exact:
                        from cbalgebra.covering.rules import constraint_satisfiable

                        ok = constraint_satisfiable(c)
                    else:
                        ok = not (self._covers and self._covers(_EMPTY_AD, Advertisement([c])))
                    self._constraint_sat[c] = ok
                if ok:
                    names.add(c.name)
            sig = frozenset(names)
            bottom = not sig
        if len(self._sig_cache) > 4096:
            self._sig_cache.clear()
        self._sig_cache[x] = (sig, bottom)
        return sig, bottom

    def _may_cover(self, asig: frozenset, abot: bool, bsig: frozenset, bbot: bool) -> bool:
        """A necessary condition for "a covers b" (see the module docstring)."""
        if bbot:
            return True
        if abot:
            return False
        if self._kind == ADVERTISEMENTS:
            return bsig <= asig
        return asig <= bsig

    def _up(
        self, x: Value, xsig: frozenset, xbot: bool, known: Element | None, counter: str
    ) -> dict[Element, None]:
        """The elements covering x: descend from the roots through elements
        that cover x only (the set is up-closed)."""
        if xbot and self._exact:
            return dict.fromkeys(self._elements)
        up: dict[Element, None] = {}
        if known is not None:
            # x is stored: its coverers are its element and its ancestors.
            up[known] = None
            for a in self.ancestors(known):
                up[a] = None
            return up
        seen: set[Element] = set()
        stack = self._root_candidates(xsig, xbot)
        if xbot:  # only with a custom covering relation: check everything
            while stack:
                e = stack.pop()
                if e not in seen:
                    seen.add(e)
                    if self._check(e.value, x, counter):
                        up[e] = None
                        stack.extend(e._succs)
            return up
        # The loop of every insert: the necessary condition inlined.
        ads = self._kind == ADVERTISEMENTS
        covers = self._covers
        if self._exact and not ads:
            covers = _covers_of(x)
        checks = 0
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            if e._bottom or not (xsig <= e._sig if ads else e._sig <= xsig):
                continue
            checks += 1
            if covers(e.value, x):
                up[e] = None
                stack.extend(e._succs)
        setattr(self.stats, counter, getattr(self.stats, counter) + checks)
        return up

    def _up_or_minimal(
        self, x: Value, xsig: frozenset, xbot: bool, known: Element | None, counter: str
    ) -> tuple[dict[Element, None], bool]:
        """(up, True): every element covering x; or (minimal, False): only the
        minimal ones, found from below when an element x covers is at hand.

        Every element covering x covers each element d that x covers, so it
        lies above d. Searching upwards from d through elements that do not
        cover x meets every minimal coverer (the path from d up to one
        crosses no other coverer) and stops there. On a chain of same-name
        filters that is one or two checks, where the search from the roots
        walks every coverer (Carzaniga, Rosenblum & Wolf, Content-Based
        Addressing and Routing, 2000, §3.5 describes the top-down search).
        """
        if (known is not None or xbot or not self._exact or self._kind != SUBSCRIPTIONS
                or len(self._elements) < self._seed_above):
            return self._up(x, xsig, xbot, known, counter), True
        d = self._covered_seed(x, xsig, counter)
        if d is not None:
            start = [d]
        elif len(self._leaves) <= self._leaves_limit and self._covering_seed(x, xsig, counter):
            # x covers no stored element near it, but an element just above x
            # covers it: x will be a new leaf under (part of) a chain that the
            # search from the roots would walk in full. Every element lies
            # above a leaf, so the search up from all leaves (a virtual bottom
            # element that x covers) meets every minimal coverer: on an
            # ascending chain that is one check.
            start = list(self._leaves)
        else:
            return self._up(x, xsig, xbot, known, counter), True
        covers = _covers_of(x)
        minimal: dict[Element, None] = {}
        seen: set[Element] = set()
        stack = start
        checks = 0
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            if e._bottom or not e._sig <= xsig:
                # Not a coverer (names), yet what is above it may be.
                stack.extend(e._preds)
                continue
            checks += 1
            if covers(e.value, x):
                minimal[e] = None
            else:
                stack.extend(e._preds)
        setattr(self.stats, counter, getattr(self.stats, counter) + checks)
        # A coverer met is minimal unless one of its successors covers x.
        out: dict[Element, None] = {}
        for c in minimal:
            if not any(s in minimal or (s not in seen and not s._bottom and s._sig <= xsig
                                        and self._check(s.value, x, counter))
                       for s in c._succs):
                out[c] = None
        return out, False

    def _covered_seed(self, x: Filter, xsig: frozenset, counter: str) -> Element | None:
        """An element x covers, close to x: for an ordered constraint of x,
        the stored bounds just inside it (a few tried, each checked)."""
        tried = 0
        for c in x.constraints:
            if c.op not in RANGE_OPERATORS:
                continue
            entry = self._bounds.get((c.name, c.type, c.op))
            if not entry:
                continue
            keys, elems = entry
            if c.op in (GT, GE):  # inside: larger bounds, the nearest first
                k = bisect_left(keys, c.value)
                window = elems[k:k + 4]
            else:
                k = bisect_right(keys, c.value)
                window = elems[max(0, k - 4):k][::-1]
            for e in window:
                tried += 1
                if not e._bottom and xsig <= e._sig and self._check(x, e.value, counter):
                    return e
            if tried >= 8:
                break
        return None

    def _covering_seed(self, x: Filter, xsig: frozenset, counter: str) -> Element | None:
        """An element covering x, close to x: for an ordered constraint of x,
        the stored bounds just outside it (a few tried, each checked)."""
        tried = 0
        covers = None
        for c in x.constraints:
            if c.op not in RANGE_OPERATORS:
                continue
            entry = self._bounds.get((c.name, c.type, c.op))
            if not entry:
                continue
            keys, elems = entry
            if c.op in (GT, GE):  # outside: smaller bounds, the nearest first
                k = bisect_right(keys, c.value)
                window = elems[max(0, k - 4):k][::-1]
            else:
                k = bisect_left(keys, c.value)
                window = elems[k:k + 4]
            for e in window:
                tried += 1
                if not e._bottom and e._sig <= xsig:
                    if covers is None:
                        covers = _covers_of(x)
                    setattr(self.stats, counter, getattr(self.stats, counter) + 1)
                    if covers(e.value, x):
                        return e
            if tried >= 8:
                break
        return None

    def _close_upwards(self, minimal: dict[Element, None]) -> dict[Element, None]:
        """All elements covering x, from its minimal coverers (no check)."""
        up = dict(minimal)
        stack = list(minimal)
        while stack:
            for p in stack.pop()._preds:
                if p not in up:
                    up[p] = None
                    stack.append(p)
        return up

    def _root_candidates(self, xsig: frozenset, xbot: bool) -> list[Element]:
        """Roots that may cover x."""
        roots = self._roots
        if xbot or self._kind == ADVERTISEMENTS or len(roots) < 64:
            return list(roots)
        # Filters: a root covering x has names within x's names.
        out = [r for r in self._nosig if r in roots]
        counts: dict[Element, int] = {}
        for name in sorted(xsig):
            for e in self._postings.get(name, ()):
                if e in roots:
                    counts[e] = counts.get(e, 0) + 1
        out.extend(e for e, n in counts.items() if n == len(e._sig))
        return out

    def _minimal(self, up: dict[Element, None]) -> list[Element]:
        """The minimal elements of ``up`` (remembered for the last ``up``:
        one insert asks three times)."""
        cached = self._minimal_of
        if cached is not None and cached[0] is up and cached[1] == len(up):
            return cached[2]
        minimal = [u for u in up if not any(s in up for s in u._succs)]
        self._minimal_of = (up, len(up), minimal)
        return minimal

    def _equivalent_in(self, x: Value, up: dict[Element, None], xbot: bool, counter: str) -> Element | None:
        """The element equivalent to x, if any: the least element of up(x)."""
        if xbot and self._exact:
            return next(iter(self._bottoms), None)
        minimal = self._minimal(up)
        if len(minimal) == 1 and self._check(x, minimal[0].value, counter):
            return minimal[0]
        return None

    def _down_candidates(self, xsig: frozenset, xbot: bool) -> Iterable[Element]:
        if xbot:
            return list(self._bottoms) if self._exact else list(self._elements)
        if self._kind == ADVERTISEMENTS:
            # b with sig(b) ⊆ sig(x).
            out = list(self._nosig)
            counts: dict[Element, int] = {}
            for name in sorted(xsig):
                for e in self._postings.get(name, ()):
                    counts[e] = counts.get(e, 0) + 1
            out.extend(e for e, n in counts.items() if n == len(e._sig))
            return out
        # Filters: unsatisfiable ones, and those whose names include x's.
        if not xsig:
            return list(self._elements)
        lists = sorted((self._postings.get(n, {}) for n in sorted(xsig)), key=len)
        if not lists[0]:
            return list(self._bottoms)
        out = [e for e in lists[0] if xsig <= e._sig]
        out.extend(b for b in self._bottoms if not (xsig <= b._sig))
        return out

    def _down_maximal(
        self, x: Value, xsig: frozenset, xbot: bool, up: dict[Element, None], counter: str
    ) -> list[Element]:
        """The maximal elements strictly covered by x (x has no equivalent)."""
        if not xbot and self._narrow_frontier(up):
            # Few places to start below: the search from there (a chain
            # costs one check). Many (a wide poset, a new root among many):
            # the signature candidates below, which need no walk.
            return self._down_maximal_from_frontier(x, xsig, up, counter)
        cands = [c for c in self._down_candidates(xsig, xbot) if c not in up]
        if not cands:
            return []
        if up and len(cands) > 8:
            # What x covers lies below everything covering x: below each of
            # x's future predecessors. Walk below one (within a budget).
            below = self._below_some_predecessor(up, 4 * len(cands))
            if below is not None:
                cands = [c for c in cands if c in below]
                if not cands:
                    return []
        # Try the highest candidates first: those with no candidate above them
        # (⊥, with its many predecessors, is never one of them unless alone),
        # then the rest by size: fewer constraints tend to be higher for
        # filters, more for advertisements.
        cset = set(cands)
        tops = []
        rest = []
        for c in cands:
            if not c._bottom and not any(p in cset for p in c._preds):
                tops.append(c)
            else:
                rest.append(c)
        descending = self._kind == ADVERTISEMENTS
        rest.sort(key=lambda e: (-e._size if descending else e._size, e._seq))
        cands = tops + rest
        # Everything below a covered candidate is covered: mark it without a
        # check. A covered candidate is maximal unless reached from above.
        inside: set[Element] = set()
        below: set[Element] = set()
        positives = []
        for c in cands:
            if c in inside:
                continue
            if self._check(x, c.value, counter):
                positives.append(c)
                inside.add(c)
                stack = list(c._succs)
                while stack:
                    n = stack.pop()
                    below.add(n)
                    if n in inside:
                        continue
                    inside.add(n)
                    stack.extend(n._succs)
        return [c for c in positives if c not in below]

    def _narrow_frontier(self, up: dict[Element, None]) -> bool:
        if not up:
            return len(self._roots) <= 4
        return any(len(u._succs) <= 4 for u in self._minimal(up))

    def _down_maximal_from_frontier(
        self, x: Value, xsig: frozenset, up: dict[Element, None], counter: str
    ) -> list[Element]:
        """The maximal elements x covers, found top-down from just below up(x).

        The elements x covers form a down-set D, and D lies below every
        minimal element of up(x) (what x covers, its coverers cover). So a
        search that starts at the successors of one minimal element m of
        up(x) (at the roots when up(x) is empty) and descends only through
        elements x does not cover meets every maximal element of D: a path
        from m down to one runs through uncovered elements only. It never
        walks into D: inserting a new weakest element above a chain costs one
        check, not a walk over the chain. A covered element met is maximal iff
        none of its predecessors is covered (a predecessor in up(x) or met
        uncovered is not; any other one is checked).
        """
        ads = self._kind == ADVERTISEMENTS

        def may(e: Element) -> bool:
            return e._bottom or (e._sig <= xsig if ads else xsig <= e._sig)

        if up:
            minimal = self._minimal(up)
            m = min(minimal, key=lambda u: (len(u._succs), u._seq))
            stack = list(m._succs)
        else:
            stack = list(self._roots)
        seen: set[Element] = set()
        covered: set[Element] = set()
        positives: list[Element] = []
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            if may(e) and self._check(x, e.value, counter):
                covered.add(e)
                positives.append(e)
            else:
                stack.extend(e._succs)
        out = []
        for c in positives:
            for p in c._preds:
                if p in covered:
                    break
                if p in up or p in seen:
                    continue
                if may(p) and self._check(x, p.value, counter):
                    break
            else:
                out.append(c)
        return out

    def _below_some_predecessor(self, up: dict[Element, None], budget: int) -> set[Element] | None:
        """The descendants of a minimal element of ``up`` (the one that looks
        most specific), or None when there are more than ``budget``."""
        minimal = self._minimal(up)
        return self.descendants_within(min(minimal, key=lambda u: len(u._succs)), budget)

    def _find(self, x: Value, counter: str) -> Element | None:
        e = self._by_value.get(x)
        if e is not None or not self._elements:
            return e
        xsig, xbot = self._signature(x)
        up = self._up(x, xsig, xbot, None, counter)
        return self._equivalent_in(x, up, xbot, counter)

    def _index(self, e: Element) -> None:
        self._elements[e] = None
        self._by_value[e.value] = e
        if e._bottom:
            self._bottoms[e] = None
        if not e._sig:
            self._nosig[e] = None
        for name in e._sig:
            self._postings.setdefault(name, {})[e] = None
        for key, bound in _ordered_bounds(e):
            keys, elems = self._bounds.setdefault(key, ([], []))
            k = bisect_right(keys, bound)
            keys.insert(k, bound)
            elems.insert(k, e)

    def _unindex(self, e: Element) -> None:
        del self._elements[e]
        self._roots.pop(e, None)
        self._leaves.pop(e, None)
        self._bottoms.pop(e, None)
        self._nosig.pop(e, None)
        for v in (e.value, *e._aliases):
            if self._by_value.get(v) is e:
                del self._by_value[v]
        for name in e._sig:
            posting = self._postings[name]
            del posting[e]
            if not posting:
                del self._postings[name]
        for key, bound in _ordered_bounds(e):
            keys, elems = self._bounds[key]
            k = bisect_left(keys, bound)
            while elems[k] is not e:
                k += 1
            del keys[k]
            del elems[k]
            if not keys:
                del self._bounds[key]

    def check_invariants(self) -> None:
        """Assert the internal structure is consistent (for tests)."""
        for e in self._elements:
            assert e._alive
            assert e._subs, f"{e} has no subscribers"
            for s in e._succs:
                assert e in s._preds and s in self._elements
            for p in e._preds:
                assert e in p._succs and p in self._elements
            assert (not e._preds) == (e in self._roots), f"root status of {e}"
            assert (not e._succs) == (e in self._leaves), f"leaf status of {e}"
            for u in e._subs:
                assert e in self._by_sub[u]
            assert self._by_value[e.value] is e
        assert set(self._roots) <= set(self._elements)
        assert set(self._leaves) <= set(self._elements)
        for u, held in self._by_sub.items():
            assert held, f"empty subscriber entry {u!r}"
            for e in held:
                assert e._alive and u in e._subs


def _ordered_bounds(e: Element) -> list[tuple[tuple[str, str, str], Any]]:
    """The (name, type, operator) keys and bounds under which a satisfiable
    filter element is found by :meth:`Poset._covered_seed`: its names with
    exactly one constraint, an ordered one on an int or float."""
    if e._bottom or not isinstance(e.value, Filter):
        return []
    count: dict[str, int] = {}
    for c in e.value.constraints:
        count[c.name] = count.get(c.name, 0) + 1
    return [((c.name, c.type, c.op), c.value) for c in e.value.constraints
            if count[c.name] == 1 and c.op in RANGE_OPERATORS and c.type in (INT, FLOAT)]


def _covers_of(x: Filter) -> Callable[[Filter, Filter], bool]:
    """``filter_covers(g, x)`` for one satisfiable x and many g, remembering
    per constraint of g whether x implies it: filters of the same names
    share most constraints, so most of the work of a check is a lookup."""
    from cbalgebra.covering.rules import form_of

    forms = form_of(x).forms
    memo: dict[Constraint, bool] = {}

    def covers(g: Filter, _x: Filter) -> bool:
        for c in g.constraints:
            r = memo.get(c)
            if r is None:
                form = forms.get(c.name)
                r = memo[c] = form is not None and form.implies(c)
            if not r:
                return False
        return True

    return covers


def _default_covers(kind: str) -> Covers:
    if kind == SUBSCRIPTIONS:
        from cbalgebra.covering import filter_covers

        return filter_covers
    from cbalgebra.covering import covers

    return covers
