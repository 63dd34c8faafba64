"""The witness indexes of a filters poset: which stored filters may cover a
new filter x, and which ones x may cover, found from single messages.

Both rest on one fact. Covering is inclusion of the sets of messages matched
(Carzaniga, Rosenblum & Wolf, Content-Based Addressing and Routing, 2000,
§3.4): if g covers f, g matches every message f matches, in particular a
witness of f (one message f matches, :func:`cbalgebra.covering.filter_witness`).

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

from cbalgebra.covering import filter_witness
from cbalgebra.values import ANYTYPE, EQ, GE, GT, LE, LT, PREFIX, STRING, SUFFIX, Filter, Message

if TYPE_CHECKING:
    from cbalgebra.poset.element import Element

__all__ = ["WitnessIndex", "access_key"]

#: Compares above every insertion number: (v, _AFTER) follows every (v, seq).
_AFTER = float("inf")
_MAX_CHAR = "\U0010ffff"

# A filed key: (name, type, operator, value) of the access constraint.
Key = tuple[str, str, str, Any]


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
        # (name, type) -> the witnesses' values with insertion numbers, sorted,
        # and the elements in the same order.
        self._points: dict[tuple[str, str], tuple[list[tuple[Any, int]], list[Element]]] = {}
        # Each filed element's witness and access key.
        self._filed_as: dict[Element, tuple[Message, Key | None]] = {}

    def __len__(self) -> int:
        return len(self._filed_as)

    # ------------------------------------------------------------ upkeep
    def add(self, e: Element) -> None:
        """File a satisfiable filter element."""
        assert isinstance(e.value, Filter)
        w = filter_witness(e.value)
        assert w is not None, f"{e.value} is unsatisfiable"
        key = access_key(e.value)
        self._filed_as[e] = (w, key)
        if key is None:
            self._unfiled[e] = None
        else:
            self._filed.setdefault(key, {})[e] = None
            if key[2] != EQ:
                cuts = self._cuts.setdefault((key[0], key[2]), {})
                cuts[len(key[3])] = cuts.get(len(key[3]), 0) + 1  # a prefix or suffix: a string
        for name, attr in w.attributes:
            keys, elems = self._points.setdefault((name, attr.type), ([], []))
            point = (attr.value, e._seq)
            k = bisect_left(keys, point)
            keys.insert(k, point)
            elems.insert(k, e)

    def discard(self, e: Element) -> None:
        """Forget an element (nothing if it was never filed)."""
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
        for name, attr in w.attributes:
            keys, elems = self._points[(name, attr.type)]
            k = bisect_left(keys, (attr.value, e._seq))
            del keys[k]
            del elems[k]
            if not keys:
                del self._points[(name, attr.type)]

    # ------------------------------------------------------------ queries
    def may_cover(self, x: Filter, limit: int) -> list[Element] | None:
        """The stored filters that may cover the satisfiable filter x (a
        superset of those that do), or None when there are more than ``limit``."""
        w = filter_witness(x)
        assert w is not None, f"{x} is unsatisfiable"
        total = len(self._unfiled)
        if total > limit:
            return None
        buckets: list[dict[Element, None]] = [self._unfiled] if self._unfiled else []
        filed = self._filed
        for name, attr in w.attributes:
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
        best: tuple[int, int, list[Element]] | None = None
        for c in x.constraints:
            if c.type == ANYTYPE:
                continue  # holds on every attribute of the name: selects nothing
            entry = self._points.get((c.name, c.type))
            if entry is None:
                return []  # no witness has this attribute with c's type
            keys, elems = entry
            lo, hi = _range(keys, c.op, c.value)
            if best is None or hi - lo < best[1] - best[0]:
                best = (lo, hi, elems)
        if best is None or best[1] - best[0] > limit:
            return None
        lo, hi, elems = best
        return elems[lo:hi]


def _prefix_of(s: str, n: int) -> str:
    return s[:n]


def _suffix_of(s: str, n: int) -> str:
    return s[len(s) - n:]


def _range(keys: list[tuple[Any, int]], op: str, v: Any) -> tuple[int, int]:
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

