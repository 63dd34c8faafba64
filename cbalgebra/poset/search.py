"""Where a new value goes: the searches behind :meth:`Poset.insert`.

Inserting x (Carzaniga, Rosenblum & Wolf, Content-Based Addressing and
Routing, 2000, §3.5) needs the elements covering x, the one equivalent to x
if any, and the maximal elements x covers. These functions find them over
the core's Hasse diagram and its indexes, without comparing x with every
element:

- *Up-set search.* The elements covering x form an up-set: if e does not
  cover x, nothing below e does. So the search starts at the roots and only
  descends from elements that cover x (:func:`coverers`).
- *Search from below.* When an element x covers is at hand (a stored bound
  just inside one of x's ordered constraints), the search goes up from it
  and stops at the minimal coverers (:func:`coverers_or_minimal`).
- *Signature index.* A satisfiable filter g is covered by f only if f's
  attribute names are a subset of g's (drop an attribute g does not
  constrain from a message of g: it still matches g but no longer f). For
  advertisements it is the other way round: a1 covers a2 only if every name
  on which a2 has a satisfiable constraint is a name a1 accepts. An
  inverted index from name to elements turns these into set queries, so
  most pairs are never compared at all.
- *Down-set marking.* Candidates that x may cover are tried roughly from
  the top (fewest constraints first for filters); once x covers one, all of
  its descendants are known covered without a check
  (:func:`maximal_covered`).
- *Witness indexes* (:mod:`cbalgebra.poset.points`). A filter covering x
  matches a message x matches, and x matches the messages of what it
  covers: so the stored filters that may cover x, or that x may cover, are
  found from witness messages by dictionary and bisection lookups. Where
  they are few (an antichain ``x = i`` below a root ``x any``, filters of
  the same names that almost never compare) they replace the scan of a
  wide level or of a whole signature bucket.
- An unsatisfiable filter is covered by everything and covers only other
  unsatisfiable filters: with exact covering it needs no check at all.

These are the core's own helpers (they read its indexes), not a user API:
users ask :mod:`cbalgebra.poset.queries`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Set
from typing import TYPE_CHECKING

from cbalgebra.covering import constraint_covers_filter
from cbalgebra.poset.element import ADVERTISEMENTS, SUBSCRIPTIONS, Element, Value
from cbalgebra.poset.points import matches_witness
from cbalgebra.poset.queries import ancestors, descendants_within
from cbalgebra.poset.traversal import DOWN, UP, walk
from cbalgebra.values import GE, GT, RANGE_OPERATORS, Constraint, Filter

if TYPE_CHECKING:
    from cbalgebra.poset.core import Poset

__all__ = [
    "coverers",
    "coverers_or_minimal",
    "equivalent_in",
    "implied_by",
    "maximal_covered",
    "minimal",
    "upward_closure",
]

#: How many stored bounds next to one constraint of x are tried as a seed,
#: and how many in all.
_SEED_WINDOW = 4
_SEED_TRIES = 8


def implied_by(x: Filter) -> Callable[[Value, Value], bool]:
    """``filter_covers(g, x)`` for one x and many g.

    g covers x iff each constraint of g covers x (docs/design.md, "Deciding
    covering"), and filters of the same names share most of their
    constraints: so the answer per constraint of g is remembered, and most
    of a check is a lookup.
    """
    memo: dict[Constraint, bool] = {}

    def covers(g: Value, _x: Value) -> bool:
        for c in g.constraints:
            r = memo.get(c)
            if r is None:
                r = memo[c] = constraint_covers_filter(c, x)
            if not r:
                return False
        return True

    return covers


def _count(poset: Poset, counter: str, checks: int) -> None:
    setattr(poset.stats, counter, getattr(poset.stats, counter) + checks)


# ------------------------------------------------------------ coverers of x
def coverers(
    poset: Poset, x: Value, xsig: frozenset, xbot: bool, known: Element | None, counter: str
) -> dict[Element, None]:
    """The elements covering x: descend from the roots through elements
    that cover x only (the set is up-closed)."""
    if xbot and poset._exact:
        return dict.fromkeys(poset._elements)
    up: dict[Element, None] = {}
    if known is not None:
        # x is stored: its coverers are its element and its ancestors.
        up[known] = None
        for a in ancestors(known):
            up[a] = None
        return up
    if xbot:  # only with a custom covering relation: check everything

        def checked(e: Element) -> bool:
            if not poset._check(e.value, x, counter):
                return False
            up[e] = None
            return True

        walk(poset._roots, DOWN, visit=checked)
        return up
    ads = poset._kind == ADVERTISEMENTS
    covers = poset._covers
    if poset._exact and not ads:
        assert isinstance(x, Filter)
        covers = implied_by(x)
        few = poset._witnesses.may_cover(x, _candidate_limit(poset)) if poset._witness_share > 0 else None
        if few is not None:
            # Every ancestor of a coverer covers x, so is a candidate: the
            # search from the roots steps onto candidates only.
            roots = poset._roots
            return _up_set(poset, x, xsig, [c for c in few if c in roots], covers, counter, set(few))
    assert covers is not None
    return _up_set(poset, x, xsig, _root_candidates(poset, xsig, xbot), covers, counter)


def _up_set(
    poset: Poset, x: Value, xsig: frozenset, start: list[Element], covers: Callable[[Value, Value], bool],
    counter: str, within: set[Element] | None = None,
) -> dict[Element, None]:
    """The elements covering x: the walk down from ``start`` (the roots
    that may cover x) goes on only past elements covering x, as the set is
    up-closed; ``within``, a superset of the coverers, narrows its steps."""
    ads = poset._kind == ADVERTISEMENTS
    up: dict[Element, None] = {}
    checks = 0

    def covering(e: Element) -> bool:
        # The loop of every insert: the necessary condition inlined.
        nonlocal checks
        if e._bottom or not (xsig <= e._sig if ads else e._sig <= xsig):
            return False
        checks += 1
        if covers(e.value, x):
            up[e] = None
            return True
        return False

    walk(start, DOWN, visit=covering, within=within)
    _count(poset, counter, checks)
    return up


def _candidate_limit(poset: Poset) -> int:
    """Candidates that may cover x, from the witness index, are used when
    there are at most this many (``Poset._witness_share`` of the elements):
    a list that long costs less than the search it replaces; longer lists
    are left to the search over the diagram, which prunes by the up-set and
    the signatures."""
    return int(min(len(poset._elements) * poset._witness_share, 1 << 62))


def coverers_or_minimal(
    poset: Poset, x: Value, xsig: frozenset, xbot: bool, known: Element | None, counter: str
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
    if (known is not None or xbot or not poset._exact or poset._kind != SUBSCRIPTIONS
            or len(poset._elements) < poset._seed_above):
        return coverers(poset, x, xsig, xbot, known, counter), True
    assert isinstance(x, Filter)
    d = _nearest_bound(poset, x, xsig, "covered", counter)
    if d is not None:
        start = [d]
    elif len(poset._leaves) <= poset._leaves_limit and _nearest_bound(poset, x, xsig, "covering", counter):
        # x covers no stored element near it, but an element just above x
        # covers it: x will be a new leaf under (part of) a chain that the
        # search from the roots would walk in full. Every element lies
        # above a leaf, so the search up from all leaves (a virtual bottom
        # element that x covers) meets every minimal coverer: on an
        # ascending chain that is one check.
        start = list(poset._leaves)
    else:
        return coverers(poset, x, xsig, xbot, known, counter), True
    covers = implied_by(x)
    found: dict[Element, None] = {}
    seen: dict[Element, None] = {}
    checks = 0

    def below_x(e: Element) -> bool:
        nonlocal checks
        if e._bottom or not e._sig <= xsig:
            return True  # not a coverer (names), yet what is above it may be
        checks += 1
        if covers(e.value, x):
            found[e] = None
            return False
        return True

    walk(start, UP, visit=below_x, seen=seen)
    _count(poset, counter, checks)
    # A coverer met is minimal unless one of its successors covers x.
    out: dict[Element, None] = {}
    for c in found:
        if not any(s in found or (s not in seen and not s._bottom and s._sig <= xsig
                                  and poset._check(s.value, x, counter))
                   for s in c._succs):
            out[c] = None
    return out, False


def _nearest_bound(poset: Poset, x: Filter, xsig: frozenset, want: str, counter: str) -> Element | None:
    """An element close to x that x covers (``want="covered"``) or that
    covers x (``want="covering"``), or None.

    For each ordered constraint of x (a bound on an int or float), the index
    of stored single bounds under the same name, type and operator gives the
    neighbours of x's bound: a few of them, nearest first, are checked. The
    ones inside x's bound (larger for > and >=, smaller for < and <=) are
    candidates x covers; those outside, candidates covering x.
    """
    inside = want == "covered"
    tried = 0
    for c in x.constraints:
        if c.op not in RANGE_OPERATORS:
            continue
        entry = poset._bounds.get((c.name, c.type, c.op))
        if not entry:
            continue
        keys, elems = entry
        if (c.op in (GT, GE)) == inside:  # larger bounds, the nearest first
            k = bisect_left(keys, c.value)
            window = elems[k:k + _SEED_WINDOW]
        else:  # smaller bounds, the nearest first
            k = bisect_right(keys, c.value)
            window = elems[max(0, k - _SEED_WINDOW):k][::-1]
        for e in window:
            tried += 1
            if e._bottom:
                continue
            v = e.value
            assert isinstance(v, Filter)  # the bound index holds filters only
            # On a chain the nearest neighbour is the answer. After a miss
            # (a near-antichain: most neighbours neither cover nor are
            # covered) the witness test turns most away before a check.
            sift = tried > 1
            if inside:
                if xsig <= e._sig and (not sift or matches_witness(x, v)) and poset._check(x, v, counter):
                    return e
            elif e._sig <= xsig and (not sift or matches_witness(v, x)) and poset._check(v, x, counter):
                return e
        if tried >= _SEED_TRIES:
            break
    return None


def upward_closure(minimal: dict[Element, None]) -> dict[Element, None]:
    """All elements covering x, from its minimal coverers (no check)."""
    up = dict(minimal)
    up.update(dict.fromkeys(walk(minimal, UP)))
    return up


def _root_candidates(poset: Poset, xsig: frozenset, xbot: bool) -> list[Element]:
    """Roots that may cover x."""
    roots = poset._roots
    if xbot or poset._kind == ADVERTISEMENTS or len(roots) < 64:
        return list(roots)
    # Filters: a root covering x has names within x's names.
    out = [r for r in poset._nosig if r in roots]
    counts: dict[Element, int] = {}
    for name in sorted(xsig):
        for e in poset._postings.get(name, ()):
            if e in roots:
                counts[e] = counts.get(e, 0) + 1
    out.extend(e for e, n in counts.items() if n == len(e._sig))
    return out


def minimal(poset: Poset, up: dict[Element, None]) -> list[Element]:
    """The minimal elements of ``up`` (remembered for the last ``up``:
    one insert asks three times)."""
    cached = poset._minimal_of
    if cached is not None and cached[0] is up and cached[1] == len(up):
        return cached[2]
    # An element above a wide antichain has more successors than up(x) has
    # elements: look for its successors in up(x) the other way round.
    least = [u for u in up
             if not (any(s in u._succs for s in up) if len(u._succs) > len(up) else any(s in up for s in u._succs))]
    poset._minimal_of = (up, len(up), least)
    return least


def equivalent_in(poset: Poset, x: Value, up: dict[Element, None], xbot: bool, counter: str) -> Element | None:
    """The element equivalent to x, if any: the least element of up(x)."""
    if xbot and poset._exact:
        return next(iter(poset._bottoms), None)
    least = minimal(poset, up)
    if len(least) == 1 and poset._check(x, least[0].value, counter):
        return least[0]
    return None


# ------------------------------------------------------------ covered by x
def maximal_covered(
    poset: Poset, x: Value, xsig: frozenset, xbot: bool, up: dict[Element, None], counter: str
) -> list[Element]:
    """The maximal elements strictly covered by x (x has no equivalent)."""
    if not xbot and _narrow_frontier(poset, up):
        # Few places to start below: the search from there (a chain
        # costs one check). Many (a wide poset, a new root among many):
        # the signature candidates below, which need no walk.
        return _maximal_covered_from_frontier(poset, x, xsig, up, counter)
    cands = [c for c in _down_candidates(poset, x, xsig, xbot) if c not in up]
    if not cands:
        return []
    if up and len(cands) > 8:
        # What x covers lies below everything covering x: below each of
        # x's future predecessors. Walk below one (within a budget).
        below_one = _below_some_predecessor(poset, up, 4 * len(cands))
        if below_one is not None:
            cands = [c for c in cands if c in below_one]
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
    descending = poset._kind == ADVERTISEMENTS
    rest.sort(key=lambda e: (-e._size if descending else e._size, e._seq))
    cands = tops + rest
    # Everything below a covered candidate is covered: mark it without a
    # check. A covered candidate is maximal unless reached from above.
    inside: set[Element] = set()
    below: dict[Element, None] = {}  # met by a walk from a covered candidate

    def unmarked(n: Element) -> bool:
        if n in inside:
            return False  # marked already, with all it covers
        inside.add(n)
        return True

    positives = []
    for c in cands:
        if c in inside:
            continue
        if poset._check(x, c.value, counter):
            positives.append(c)
            inside.add(c)
            walk(c._succs, DOWN, visit=unmarked, seen=below)
    return [c for c in positives if c not in below]


def _down_candidates(poset: Poset, x: Value, xsig: frozenset, xbot: bool) -> Iterable[Element]:
    """The elements x may cover, by the signature index or, when it gives
    fewer, by the witness index of :mod:`cbalgebra.poset.points`."""
    if xbot:
        return list(poset._bottoms) if poset._exact else list(poset._elements)
    if poset._kind == ADVERTISEMENTS:
        # b with sig(b) ⊆ sig(x).
        out = list(poset._nosig)
        counts: dict[Element, int] = {}
        for name in sorted(xsig):
            for e in poset._postings.get(name, ()):
                counts[e] = counts.get(e, 0) + 1
        out.extend(e for e, n in counts.items() if n == len(e._sig))
        return out
    # Filters: unsatisfiable ones, and those whose names include x's.
    if not xsig:
        return list(poset._elements)
    lists = sorted((poset._postings.get(n, {}) for n in sorted(xsig)), key=len)
    if not lists[0]:
        return list(poset._bottoms)
    if poset._exact and poset._witness_share > 0:
        assert isinstance(x, Filter)
        few = poset._witnesses.may_be_covered(x, len(lists[0]) - 1)
        if few is not None:
            out = [e for e in few if xsig <= e._sig]
            out.extend(poset._bottoms)  # unsatisfiable: not in the witness index
            return out
    out = [e for e in lists[0] if xsig <= e._sig]
    out.extend(b for b in poset._bottoms if not (xsig <= b._sig))
    return out


def _narrow_frontier(poset: Poset, up: dict[Element, None]) -> bool:
    if not up:
        return len(poset._roots) <= 4
    return any(len(u._succs) <= 4 for u in minimal(poset, up))


def _maximal_covered_from_frontier(
    poset: Poset, x: Value, xsig: frozenset, up: dict[Element, None], counter: str
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
    ads = poset._kind == ADVERTISEMENTS

    def may(e: Element) -> bool:
        return e._bottom or (e._sig <= xsig if ads else xsig <= e._sig)

    if up:
        m = min(minimal(poset, up), key=lambda u: (len(u._succs), u._seq))
        start: Iterable[Element] = m._succs
    else:
        start = poset._roots
    seen: dict[Element, None] = {}
    covered: set[Element] = set()
    positives: list[Element] = []

    def uncovered(e: Element) -> bool:
        if may(e) and poset._check(x, e.value, counter):
            covered.add(e)
            positives.append(e)
            return False
        return True

    walk(start, DOWN, visit=uncovered, seen=seen)
    out = []
    for c in positives:
        for p in c._preds:
            if p in covered:
                break
            if p in up or p in seen:
                continue
            if may(p) and poset._check(x, p.value, counter):
                break
        else:
            out.append(c)
    return out


def _below_some_predecessor(poset: Poset, up: dict[Element, None], budget: int) -> Set[Element] | None:
    """The descendants of a minimal element of ``up`` (the one that looks
    most specific), or None when there are more than ``budget``."""
    return descendants_within(min(minimal(poset, up), key=lambda u: len(u._succs)), budget)
