"""The filters poset: Siena's routing table (Carzaniga, Rosenblum & Wolf,
Content-Based Addressing and Routing, 2000, §3.4–3.5), as a small core.

A :class:`Poset` stores filters (or advertisements) ordered by covering. It
keeps only the *immediate* relation, the Hasse diagram: an edge p → s means
p covers s and no other stored element lies strictly between them. Elements
that cover each other are one element. Each element carries the set of its
subscribers.

The core holds the elements, the immediate edges, the roots and the index
of who subscribes where, and changes them by two operations.
Inserting a subscription ``insert(x, U)`` follows §3.5:

1. some element covering x already has U among its subscribers: no change;
2. an element equivalent to x exists: U joins its subscribers;
3. otherwise x becomes a new element between its immediate predecessors
   (the minimal elements covering x) and immediate successors (the maximal
   elements x covers).

In cases 2 and 3, U is then removed from every element strictly covered by
x, and elements left without subscribers are dropped. An unsubscription
``remove(x, U)`` cancels U's subscriptions that x covers (§2.4.3).

Everything else is a function over the core, in the style of networkx:

- :mod:`cbalgebra.poset.traversal`: the one traversal of the diagram, up or
  down, pruned by a visitor, that every search and query below uses;
- :mod:`cbalgebra.poset.search`: where insert puts a new value (the
  searches over the diagram and the signature and bound indexes);
- :mod:`cbalgebra.poset.points`: the witness indexes those searches ask
  which stored filters may cover a new one, or be covered by it;
- :mod:`cbalgebra.poset.queries`: descendants, ancestors, what x covers,
  who a message reaches;
- :mod:`cbalgebra.poset.stats`: the shape and the levels;
- :mod:`cbalgebra.poset.build`: predicates and documents into a poset;
- :mod:`cbalgebra.poset.render` and :mod:`cbalgebra.poset.html`: the
  drawings, which this module never imports.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from cbalgebra.covering import covers as covers_exactly
from cbalgebra.covering import filter_covers, satisfiable
from cbalgebra.parse import parse_advertisement, parse_predicate
from cbalgebra.poset import search
from cbalgebra.poset.element import ADVERTISEMENTS, KINDS, SUBSCRIPTIONS, Element, Value, by_age
from cbalgebra.poset.points import WitnessIndex
from cbalgebra.poset.queries import descendants_within
from cbalgebra.poset.stats import PosetStats, shape
from cbalgebra.poset.traversal import UP, walk
from cbalgebra.values import (
    FLOAT,
    INT,
    INT_MIN,
    RANGE_OPERATORS,
    Advertisement,
    Constraint,
    Filter,
    Predicate,
)

__all__ = ["COVERED", "INSERTED", "MERGED", "InsertResult", "Poset", "RemoveResult"]

#: The three cases of insert (§3.5); one name a line, so the API reference (which reads the
#: sources) sees each of them.
COVERED = "covered"
MERGED = "merged"
INSERTED = "inserted"

Covers = Callable[[Any, Any], bool]

# A filter no message matches: an int attribute below the smallest int.
_UNSAT_FILTER = Filter([Constraint(INT, "x", "<", INT_MIN)])
_EMPTY_AD = Advertisement([])


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
    #: Candidates from the witness indexes (:mod:`cbalgebra.poset.points`)
    #: replace the search over the diagram for the coverers of x when there
    #: are at most this share of the elements (tests set 0 to never use them,
    #: or a large number to use them always).
    _witness_share = 0.25

    def __init__(self, kind: str | None = None, *, covers: Covers | None = None) -> None:
        if kind is not None and kind not in KINDS:
            raise ValueError(f"kind must be {SUBSCRIPTIONS!r} or {ADVERTISEMENTS!r}, not {kind!r}")
        self._kind = kind
        self._exact = covers is None
        self._covers: Covers | None = covers
        self._seq = itertools.count()
        self._by_value: dict[Value, Element] = {}
        self._elements: dict[Element, None] = {}
        self._roots: dict[Element, None] = {}
        self._leaves: dict[Element, None] = {}  # elements without successors
        # The signature index (see cbalgebra.poset.search): name -> the
        # elements whose signature holds it; elements with an empty
        # signature; the least elements.
        self._postings: dict[str, dict[Element, None]] = {}
        self._nosig: dict[Element, None] = {}
        self._bottoms: dict[Element, None] = {}
        # (name, type, operator) -> the elements with one ordered constraint
        # of that kind on the name, sorted by bound: (bounds, elements).
        self._bounds: dict[tuple[str, str, str], tuple[list, list[Element]]] = {}
        # The witness indexes (see cbalgebra.poset.points): satisfiable
        # filters under exact covering.
        self._witnesses = WitnessIndex()
        self._by_sub: dict[Hashable, dict[Element, None]] = {}
        self._sig_cache: dict[Value, tuple[frozenset, bool]] = {}
        self._constraint_sat: dict[Constraint, bool] = {}
        # Bumped by every change: the levels are cached for one version.
        self._version = 0
        self._levels_cache: tuple[int, list[list[Element]], dict[Element, int]] | None = None
        # The minimal elements of the last up-set (see search.minimal).
        self._minimal_of: tuple[dict, int, list[Element]] | None = None
        self.stats = PosetStats()

    # ------------------------------------------------------------ reading
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
        return f"<Poset {kind}: {shape(self)}>"

    def _repr_html_(self) -> str:
        """For notebooks: the interactive page (:func:`cbalgebra.poset.html.to_html`) inline."""
        from cbalgebra.notebook import framed_page  # drawing loads on first use, never with the core
        from cbalgebra.poset.html import to_html
        return framed_page(to_html(self), title=repr(self))

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
        return [e.value for e in self.root_elements()]

    def root_elements(self) -> list[Element]:
        """The root elements, oldest first."""
        return sorted(self._roots, key=by_age)

    def predecessors(self, x: Value | str) -> list[Value]:
        """The immediate predecessors of x's element."""
        return [p.value for p in self.element(x).predecessors]

    def successors(self, x: Value | str) -> list[Value]:
        """The immediate successors of x's element."""
        return [s.value for s in self.element(x).successors]

    def edges(self) -> list[tuple[Value, Value]]:
        """The immediate covering pairs (covering, covered)."""
        return [(p.value, s.value) for p in self.elements() for s in p.successors]

    def holding(self, value: Value) -> Element | None:
        """The element that holds exactly ``value`` (its value or one of its
        equivalent spellings), or None: one dictionary lookup, no covering
        check. :meth:`element` also finds an equivalent value never inserted."""
        return self._by_value.get(value)

    def coerce(self, x: Value | Predicate | str) -> Value:
        """x as a value this poset can hold: text parsed by the poset's kind,
        a one-filter predicate unwrapped. TypeError for anything else (or a
        value of the other kind); the poset's kind is not fixed by this."""
        return self._coerce(x, register=False)

    def element_covers(self, a: Element, b: Element) -> bool:
        """Whether a's value covers b's, by the poset's covering relation,
        with the attribute-name test of the signature index first (most
        pairs need no covering check). Counted in ``stats.lookup_checks``."""
        if not self._may_cover(a._sig, a._bottom, b._sig, b._bottom):
            return False
        return self._check(a.value, b.value, "lookup_checks")

    def subscriptions(self, subscriber: Hashable) -> list[Value]:
        """The values holding ``subscriber`` (an antichain: none covers another)."""
        return [e.value for e in sorted(self._by_sub.get(subscriber, ()), key=by_age)]

    def all_subscribers(self) -> set[Hashable]:
        """Everyone holding a subscription."""
        return set(self._by_sub)

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
        up, complete = search.coverers_or_minimal(self, x, xsig, xbot, known, "insert_checks")
        held = self._by_sub.get(subscriber)
        if held and not complete:
            # Only x's minimal coverers are known: check the subscriber's few
            # elements directly, or close the set upwards for many.
            if len(held) <= 32:
                hits = [u for u in held if self._check(u.value, x, "insert_checks")]
                if hits:
                    return InsertResult(COVERED, min(hits, key=by_age))
                held = None
            else:
                up, complete = search.upward_closure(up), True
        if held:
            hits = [u for u in held if u in up] if len(held) < len(up) else [u for u in up if u in held]
            if hits:
                return InsertResult(COVERED, min(hits, key=by_age))

        equal = known if known is not None else search.equivalent_in(self, x, up, xbot, "insert_checks")
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

    def _new_element(self, x: Value, xsig: frozenset, xbot: bool, up: dict[Element, None]) -> Element:
        preds = search.minimal(self, up)
        succs = search.maximal_covered(self, x, xsig, xbot, up, "insert_checks")
        node = Element(x, xsig, xbot, next(self._seq))
        pred_set = dict.fromkeys(sorted(preds, key=by_age))
        succ_set = dict.fromkeys(sorted(succs, key=by_age))
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

    def _cancel(
        self, x: Value, xsig: frozenset, xbot: bool, subscriber: Hashable, keep: Element | None, counter: str
    ) -> tuple[tuple[Value, ...], tuple[Value, ...], tuple[Element, ...]]:
        """Remove ``subscriber`` from the elements x covers (except ``keep``)."""
        held = self._by_sub.get(subscriber)
        if not held or (len(held) == 1 and keep in held):
            return (), (), ()  # nothing held, or only what x is stored as
        below = descendants_within(keep, len(held)) if keep is not None else None
        if below is not None:
            # x is stored as ``keep``: what it covers is exactly what lies below.
            hit = sorted((e for e in held if e in below), key=by_age)
        else:
            hit = []
            for e in held:
                if e is keep:
                    continue
                if (e.value == x or x in e._aliases
                        or (self._may_cover(xsig, xbot, e._sig, e._bottom) and self._check(x, e.value, counter))):
                    hit.append(e)
            hit.sort(key=by_age)
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
        preds = sorted(e._preds, key=by_age)
        succs = sorted(e._succs, key=by_age)
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
                reached = _ancestors_among(s, preds)
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

    # ------------------------------------------------------------ internals
    def _levels(self) -> tuple[int, list[list[Element]], dict[Element, int]]:
        """(version, levels, level of each element): level i holds the
        elements whose longest chain from a root has i edges. The order of
        iteration; :mod:`cbalgebra.poset.stats` and the drawings read it."""
        cache = self._levels_cache
        if cache is not None and cache[0] == self._version:
            return cache
        level: dict[Element, int] = {}
        indegree = {e: len(e._preds) for e in self._elements}
        queue = deque(sorted(self._roots, key=by_age))
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
        for e in sorted(order, key=by_age):
            levels[level[e]].append(e)
        self._levels_cache = (self._version, levels, level)
        return self._levels_cache

    def _coerce(self, x: Any, register: bool = True) -> Value:
        if isinstance(x, str):
            x = parse_advertisement(x) if self._kind == ADVERTISEMENTS else parse_predicate(x)
        if isinstance(x, Predicate):
            if len(x) != 1:
                raise TypeError(
                    f"a poset element is one filter; {x} has {len(x)} (use build.insert_predicate)"
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
        """Whether a covers b, counted under ``counter`` in :attr:`stats`."""
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
            # With a custom relation, x is least iff it is covered by a filter no message matches.
            bottom = not satisfiable(x) if self._exact else bool(self._covers and self._covers(_UNSAT_FILTER, x))
        else:
            names = set()
            for c in x.constraints:
                ok = self._constraint_sat.get(c)
                if ok is None:
                    if self._exact:
                        ok = satisfiable(Filter((c,)))  # once per constraint: remembered above
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
        """A necessary condition for "a covers b" (the signature index of
        :mod:`cbalgebra.poset.search`)."""
        if bbot:
            return True
        if abot:
            return False
        if self._kind == ADVERTISEMENTS:
            return bsig <= asig
        return asig <= bsig

    def _find(self, x: Value, counter: str) -> Element | None:
        e = self._by_value.get(x)
        if e is not None or not self._elements:
            return e
        xsig, xbot = self._signature(x)
        up = search.coverers(self, x, xsig, xbot, None, counter)
        return search.equivalent_in(self, x, up, xbot, counter)

    def _index(self, e: Element) -> None:
        self._elements[e] = None
        self._by_value[e.value] = e
        if e._bottom:
            self._bottoms[e] = None
        if not e._sig:
            self._nosig[e] = None
        for name in e._sig:
            self._postings.setdefault(name, {})[e] = None
        if self._exact and not e._bottom and isinstance(e.value, Filter):
            self._witnesses.add(e)
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
        self._witnesses.discard(e)
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


def _ancestors_among(s: Element, targets: list[Element]) -> set[Element]:
    """Which of ``targets`` are ancestors of s (the walk stops once all are found)."""
    want = set(targets)
    found: set[Element] = set()
    for n in walk(s._preds, UP, lazy=True):
        if n in want:
            found.add(n)
            if len(found) == len(want):
                break
    return found


def _ordered_bounds(e: Element) -> list[tuple[tuple[str, str, str], Any]]:
    """The (name, type, operator) keys and bounds under which a satisfiable
    filter element is found by the search from below (its names with exactly
    one constraint, an ordered one on an int or float)."""
    if e._bottom or not isinstance(e.value, Filter):
        return []
    count: dict[str, int] = {}
    for c in e.value.constraints:
        count[c.name] = count.get(c.name, 0) + 1
    return [((c.name, c.type, c.op), c.value) for c in e.value.constraints
            if count[c.name] == 1 and c.op in RANGE_OPERATORS and c.type in (INT, FLOAT)]


def _default_covers(kind: str) -> Covers:
    return filter_covers if kind == SUBSCRIPTIONS else covers_exactly
