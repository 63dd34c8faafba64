"""The witness indexes of a filters poset: which stored filters may cover a
new filter x, and which ones x may cover, found from single messages.

On a flat poset, finding a new filter's neighbours is a sequential scan of
the table (Carzaniga, Rosenblum & Wolf, Content-Based Addressing and
Routing, 2000, §3.7). These indexes avoid it. Both rest on one fact:
covering is inclusion of the sets of messages matched (§2.1, §3.3), so if g
covers f, g matches every message f matches, in particular a witness of f
(one message f matches, :func:`cbalgebra.covering.filter_witness`).

- *Who may cover x.* Every constraint of a filter covering x holds on the
  witness of x. Each stored satisfiable filter is filed under one *access
  constraint* of its own (an equality if it has one, else a prefix, else a
  suffix: the ones a value satisfies for few keys), or as unfiled. The
  filters that may cover x are the unfiled ones and those filed under a key
  the witness of x satisfies: per attribute of the witness, its equality key
  and its prefixes and suffixes (of the lengths filed). Filters
  ``int x = i`` below a root ``int x any`` are one lookup apart instead of a
  scan of the root's successors.
- *What x may cover.* x covers e only if x matches the witness of e. The
  witnesses' values are kept sorted per attribute name and type; each
  constraint of x selects a contiguous range of them (``=``, ``<``, ``<=``,
  ``>``, ``>=``, a prefix), and the stored filters x may cover lie in the
  narrowest range.

Both answers are supersets (necessary conditions): the poset still decides
covering for every candidate, so the Hasse diagram is the one the searches
without these indexes build (tests/test_poset_index.py compares both with the
transitive reduction of covering decided for every pair).

Only satisfiable filters are indexed, and only under exact covering: a custom
relation need not follow the witnesses, and unsatisfiable filters have none.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from cbalgebra.covering import form_of
from cbalgebra.semantics import value_satisfies
from cbalgebra.values import ANYTYPE, EQ, GE, GT, LE, LT, PREFIX, STRING, SUFFIX, Attribute, Filter

if TYPE_CHECKING:
    from cbalgebra.poset.element import Element

__all__ = ["WitnessIndex", "access_key", "matches_witness", "witness"]

#: Compares above every insertion number: (v, _AFTER) follows every (v, seq).
_AFTER = float("inf")
_MAX_CHAR = "\U0010ffff"
#: Inserts after which a sorted list of witness values nobody asked for is loosened.
_LOOSEN_AFTER = 64

# A filed key: (name, type, operator, value) of the access constraint.
Key = tuple[str, str, str, Any]
# A stored witness value: (value, insertion number, element).
Point = tuple[Any, int, "Element"]
# A witness message, as its (name, attribute) pairs.
Witness = tuple[tuple[str, Attribute], ...]


def witness(f: Filter) -> Witness:
    """The attributes of a message the satisfiable filter f matches: those of
    :func:`cbalgebra.covering.filter_witness`, read from the filter's form
    without building the message (its wire encoding is not needed here)."""
    form = form_of(f)
    assert form.satisfiable, f"{f} is unsatisfiable"
    return tuple((name, attribute.value) for name, attribute in form.forms.items())


def matches_witness(g: Filter, f: Filter) -> bool:
    """Whether g matches the witness of the satisfiable filter f: necessary
    for "g covers f", and a dictionary lookup and a comparison per constraint
    of g where deciding covering may solve string constraints."""
    attributes = dict(witness(f))
    for c in g.constraints:
        attr = attributes.get(c.name)
        if attr is None:
            return False
        if c.type != ANYTYPE and (attr.type != c.type or not value_satisfies(c.op, c.value, attr.value)):
            return False
    return True


def access_key(f: Filter) -> Key | None:
    """The key a satisfiable filter is filed under for "who may cover x":
    its first equality (by the canonical constraint order), else its first
    prefix, else its first suffix; None when it has none of them."""
    for op in (EQ, PREFIX, SUFFIX):
        for c in f.constraints:
            if c.op == op and c.type != ANYTYPE:
                return (c.name, c.type, op, c.value)
    return None


def _prefix_end(p: str) -> str | None:
    """The least string above every string that starts with ``p`` (None: no such string)."""
    p = p.rstrip(_MAX_CHAR)
    return p[:-1] + chr(ord(p[-1]) + 1) if p else None


class WitnessIndex:
    """The two indexes of the module docstring over a poset's satisfiable filters."""

    def __init__(self) -> None:
        self._filed: dict[Key, dict[Element, None]] = {}
        self._unfiled: dict[Element, None] = {}
        # (name, operator) -> length of a filed prefix or suffix -> how many:
        # the witness's string is cut at those lengths only.
        self._cuts: dict[tuple[str, str], dict[int, int]] = {}
        # The witnesses' values per (name, type), in one of two states. Sorted:
        # a list of (value, insertion number, element), kept sorted (the
        # insertion numbers are unique, so elements are never compared).
        # Loose: element -> value, sorted when first asked for. A sorted list
        # not asked for during _LOOSEN_AFTER inserts is loosened again: an
        # insert into a long list moves memory (a descending chain inserts at
        # the front every time), and workloads that never ask (chains, which
        # the search from below handles) should not pay for it.
        self._sorted: dict[tuple[str, str], list[Point]] = {}
        self._unasked: dict[tuple[str, str], int] = {}
        self._loose: dict[tuple[str, str], dict[Element, Any]] = {}
        # Each filed element's witness and access key.
        self._filed_as: dict[Element, tuple[Witness, Key | None]] = {}
        # Elements added since the last question: filed when one is asked
        # (a chain, whose inserts the searches from below place, never asks).
        self._pending: dict[Element, None] = {}

    def __len__(self) -> int:
        return len(self._filed_as) + len(self._pending)

    # ------------------------------------------------------------ upkeep
    def add(self, e: Element) -> None:
        """Take a satisfiable filter element (filed before the next question)."""
        assert isinstance(e.value, Filter)
        self._pending[e] = None

    def _flush(self) -> None:
        for e in self._pending:
            self._file(e)
        self._pending.clear()

    def _file(self, e: Element) -> None:
        assert isinstance(e.value, Filter)
        w = witness(e.value)
        key = access_key(e.value)
        self._filed_as[e] = (w, key)
        if key is None:
            self._unfiled[e] = None
        else:
            self._filed.setdefault(key, {})[e] = None
            if key[2] != EQ:
                cuts = self._cuts.setdefault((key[0], key[2]), {})
                cuts[len(key[3])] = cuts.get(len(key[3]), 0) + 1  # a prefix or suffix: a string
        for name, attr in w:
            where = (name, attr.type)
            points = self._sorted.get(where)
            if points is None:
                self._loose.setdefault(where, {})[e] = attr.value
                continue
            point = (attr.value, e._seq, e)
            points.insert(bisect_left(points, point), point)
            unasked = self._unasked[where] = self._unasked[where] + 1
            if unasked > _LOOSEN_AFTER:
                self._loose[where] = {p[2]: p[0] for p in points}
                del self._sorted[where], self._unasked[where]

    def discard(self, e: Element) -> None:
        """Forget an element (nothing if it was never added)."""
        if self._pending.pop(e, False) is None:
            return
        filed = self._filed_as.pop(e, None)
        if filed is None:
            return
        w, key = filed
        if key is None:
            del self._unfiled[e]
        else:
            bucket = self._filed[key]
            del bucket[e]
            if not bucket:
                del self._filed[key]
            if key[2] != EQ:
                _decrement(self._cuts, (key[0], key[2]), len(key[3]))
        for name, attr in w:
            where = (name, attr.type)
            points = self._sorted.get(where)
            if points is None:
                loose = self._loose[where]
                del loose[e]
                if not loose:
                    del self._loose[where]
                continue
            del points[bisect_left(points, (attr.value, e._seq))]
            if not points:
                del self._sorted[where], self._unasked[where]

    # ------------------------------------------------------------ queries
    def may_cover(self, x: Filter, limit: int) -> list[Element] | None:
        """The stored filters that may cover the satisfiable filter x (a
        superset of those that do), or None when there are more than ``limit``."""
        self._flush()
        w = witness(x)
        total = len(self._unfiled)
        if total > limit:
            return None
        buckets: list[dict[Element, None]] = [self._unfiled] if self._unfiled else []
        filed = self._filed
        for name, attr in w:
            value = attr.value
            keys: list[Key] = [(name, attr.type, EQ, value)]
            if isinstance(value, str):
                for op, cut in ((PREFIX, _prefix_of), (SUFFIX, _suffix_of)):
                    for n in self._cuts.get((name, op), ()):
                        if n <= len(value):
                            keys.append((name, STRING, op, cut(value, n)))
            for key in keys:
                bucket = filed.get(key)
                if bucket:
                    total += len(bucket)
                    if total > limit:
                        return None
                    buckets.append(bucket)
        return [e for bucket in buckets for e in bucket]

    def may_be_covered(self, x: Filter, limit: int) -> list[Element] | None:
        """The stored filters the satisfiable filter x may cover (a superset
        of those it covers), or None when there are more than ``limit``."""
        self._flush()
        best: tuple[int, int, list[Point]] | None = None
        for c in x.constraints:
            if c.type == ANYTYPE:
                continue  # holds on every attribute of the name: selects nothing
            points = self._sorted_points((c.name, c.type))
            if points is None:
                return []  # no witness has this attribute with c's type
            lo, hi = _range(points, c.op, c.value)
            if best is None or hi - lo < best[1] - best[0]:
                best = (lo, hi, points)
        if best is None or best[1] - best[0] > limit:
            return None
        lo, hi, points = best
        return [point[2] for point in points[lo:hi]]

    def _sorted_points(self, where: tuple[str, str]) -> list[Point] | None:
        """The sorted witness values of one (name, type), or None if there are none."""
        points = self._sorted.get(where)
        if points is None:
            loose = self._loose.pop(where, None)
            if loose is None:
                return None
            points = self._sorted[where] = sorted((v, e._seq, e) for e, v in loose.items())
        self._unasked[where] = 0
        return points


def _prefix_of(s: str, n: int) -> str:
    return s[:n]


def _suffix_of(s: str, n: int) -> str:
    return s[len(s) - n:]


def _range(keys: list[Point], op: str, v: Any) -> tuple[int, int]:
    """The slice of sorted witness values that may satisfy ``op v`` (a
    superset: bounds are taken inclusive; other operators take all)."""
    if op == EQ:
        return bisect_left(keys, (v,)), bisect_left(keys, (v, _AFTER))
    if op in (GT, GE):
        return bisect_left(keys, (v,)), len(keys)
    if op in (LT, LE):
        return 0, bisect_left(keys, (v, _AFTER))
    if op == PREFIX:
        end = _prefix_end(v)
        return bisect_left(keys, (v,)), (len(keys) if end is None else bisect_left(keys, (end,)))
    return 0, len(keys)


def _decrement(counts: dict[tuple[str, str], dict[int, int]], key: tuple[str, str], n: int) -> None:
    inner = counts[key]
    inner[n] -= 1
    if not inner[n]:
        del inner[n]
        if not inner:
            del counts[key]

