"""Finding the conjunctions that may cover a conjunction, without all pairs.

Two facts make it cheap (for a satisfiable conjunction f):

1. g covers f only if g's attribute names are a subset of f's: every
   constraint of g requires its attribute to be present, and f matches a
   message that carries f's attributes only. So f's candidates live in the
   buckets keyed by the subsets of f's name set (at most 2⁶ - 1 of them for
   the paper's conjunctions; the buckets are scanned instead when there are
   fewer buckets than subsets). The same holds for the pairwise (Siena)
   relation, which needs a constraint of f on each name of g.
2. A one-constraint conjunction ``[d]`` covers f iff f implies d. Those are
   indexed by attribute name, then by (type, operator):

   - ``<``, ``<=``, ``>``, ``>=``: sorted by value, weakest first. The values
     v for which f implies ``x < v`` form an up-set, so the scan stops at the
     first one that does not cover f;
   - ``=``: a dictionary by value (f implies ``x = v`` only when f says
     ``x = v``, or pins x to one value: see ``attributes.special``);
   - prefix ``>*`` / suffix ``*<`` / substring ``*``: dictionaries by value,
     probed with the prefixes / suffixes / substrings of the value of f's
     ``=`` or same-kind constraint, and with the empty string;
   - ``!=``, ``any`` and bools: scanned (few survive a reduction).

   Where f's constraints on the name may imply d only together (two or more
   constraints on it, under exact covering) or one of them is special
   (unsatisfiable, pinned to one value, forcing a first character), every
   group on the name is scanned. ``tests/test_reducers_index.py`` checks the
   indexed answers against all pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from cbalgebra.values import ANY, ANYTYPE, EQ, GE, GT, LE, LT, PREFIX, SUBSTRING, SUFFIX, Filter

from .attributes import by_name, special

_ORDER_OPS = (LT, LE, GT, GE)
_PROBED_OPS = (EQ, PREFIX, SUFFIX, SUBSTRING)
#: Longest value whose substrings are enumerated (longer: scan the group).
_MAX_SUBSTRING_PROBE = 48


def _prefixes(s: str) -> list[str]:
    return [s[:k] for k in range(len(s) + 1)]


def _suffixes(s: str) -> list[str]:
    return [s[k:] for k in range(len(s) + 1)]


def _substrings(s: str) -> list[str]:
    return sorted({s[i:j] for i in range(len(s) + 1) for j in range(i, len(s) + 1)})


def subsets_present(names: frozenset, buckets: dict, keys: Sequence[frozenset]) -> list[frozenset]:
    """The keys of ``buckets`` that are subsets of ``names``, smallest first.

    Enumerates the subsets of ``names`` when there are fewer of them than
    buckets, and scans ``keys`` (the buckets' keys, sorted) otherwise.
    """
    k = len(names)
    if k < 20 and (1 << k) <= 2 * len(keys):
        order = sorted(names)
        found = []
        for r in range(0, k + 1):
            for combo in combinations(order, r):
                s = frozenset(combo)
                if s in buckets:
                    found.append(s)
        return found
    return [s for s in keys if s <= names]


class _Group:
    """The one-constraint conjunctions on one (name, type, operator)."""

    __slots__ = ("op", "items", "by_value", "values")

    def __init__(self, op: str) -> None:
        self.op = op
        self.items: list[tuple] = []  # (value, filter index)
        self.by_value: dict = {}
        self.values: list = []

    def add(self, value, i: int) -> None:
        self.items.append((value, i))

    def freeze(self) -> None:
        if self.op in _ORDER_OPS:
            # Weakest first: largest bound for < and <=, smallest for > and >=.
            self.items.sort(key=lambda t: t[0], reverse=self.op in (LT, LE))
        else:
            self.items.sort(key=lambda t: (t[0] is not None, t[0] if t[0] is not None else ""))
        if self.op in _PROBED_OPS:
            for v, i in self.items:
                self.by_value.setdefault(v, i)
        self.values = [v for v, _ in self.items]

    def all(self) -> list[int]:
        return [i for _, i in self.items]


class CoverIndex:
    """Index over a fixed list of conjunctions for "who may cover f".

    ``exact`` selects what "covers" means for the narrowing: True for exact
    filter covering, False for the pairwise Siena relation (each constraint of
    g implied by one constraint of f).
    """

    def __init__(self, filters: Sequence[Filter], exact: bool) -> None:
        self.filters = list(filters)
        self.exact = exact
        self.buckets: dict[frozenset, list[int]] = {}
        self.singles: dict[str, dict[tuple[str, str], _Group]] = {}
        for i, f in enumerate(self.filters):
            if len(f.constraints) == 1:
                (d,) = f.constraints
                groups = self.singles.setdefault(d.name, {})
                g = groups.get((d.type, d.op))
                if g is None:
                    g = groups[(d.type, d.op)] = _Group(d.op)
                g.add(d.value, i)
            else:
                self.buckets.setdefault(f.names, []).append(i)
        for groups in self.singles.values():
            for g in groups.values():
                g.freeze()
        self._bucket_keys = sorted(self.buckets, key=lambda s: (len(s), sorted(s)))

    # ------------------------------------------------------------- queries
    def find(self, i: int, covers: Callable[[int], bool], valid: Callable[[int], bool]) -> int | None:
        """An index j != i with ``covers(j)`` and ``valid(j)``, or None.

        ``covers(j)``: conjunction j covers conjunction i. ``valid(j)``: j may
        stand in for i (checked only when j covers i).
        """
        f = self.filters[i]

        def ok(j: int) -> bool:
            return j != i and covers(j) and valid(j)

        groups_f = by_name(f)
        for name in sorted(groups_f):
            groups = self.singles.get(name)
            if groups:
                j = self._find_single(i, groups_f[name], groups, covers, ok)
                if j is not None:
                    return j
        for key in self._subsets(f.names):
            for j in self.buckets[key]:
                if ok(j):
                    return j
        return None

    def _subsets(self, names: frozenset) -> list[frozenset]:
        return subsets_present(names, self.buckets, self._bucket_keys)

    def _find_single(self, i, cs, groups, covers, ok) -> int | None:
        # Exact covering: several constraints on the name may imply d only
        # together (x > 3, x < 6, x != 4 implies x = 5), so scan.
        scan_all = (self.exact and len(cs) >= 2) or any(special(c) for c in cs)
        types = {c.type for c in cs} | {ANYTYPE}
        for (type_, op), group in sorted(groups.items()):
            if not scan_all and type_ not in types:
                continue
            if op in _ORDER_OPS:
                for j in group.all():
                    if j == i:
                        continue
                    if not covers(j):
                        break  # monotone: weaker bounds were tried first
                    if ok(j):
                        return j
                continue
            if scan_all or op not in _PROBED_OPS:
                cand = group.all()
            else:
                cand = self._probe([c for c in cs if c.type == type_], group)
            for j in cand:
                if ok(j):
                    return j
        return None

    @staticmethod
    def _probe(cs, group: _Group) -> list[int]:
        """Candidates among ``group`` for the constraints ``cs`` of the group's type."""
        op = group.op
        keys: list = []
        if op != EQ:
            keys.append("")
        for c in cs:
            if c.op == ANY or c.type == ANYTYPE:
                continue
            if op == EQ:
                if c.op == EQ:
                    keys.append(c.value)
            elif op == PREFIX:
                if c.op in (EQ, PREFIX):
                    keys.extend(_prefixes(c.value))
            elif op == SUFFIX:
                if c.op in (EQ, SUFFIX):
                    keys.extend(_suffixes(c.value))
            elif op == SUBSTRING:
                if c.op in (EQ, PREFIX, SUFFIX, SUBSTRING):
                    if len(c.value) > _MAX_SUBSTRING_PROBE:
                        return group.all()
                    keys.extend(_substrings(c.value))
        out = []
        seen = set()
        for k in keys:
            j = group.by_value.get(k)
            if j is not None and j not in seen:
                seen.add(j)
                out.append(j)
        return out
