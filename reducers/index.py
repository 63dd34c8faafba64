"""Finding the conjunctions that may cover a conjunction, without all pairs.

Two facts make it cheap (for a satisfiable conjunction f):

1. g covers f only if g's attribute names are a subset of f's: every
   constraint of g requires its attribute to be present, and f matches a
   message that carries f's attributes only. So f's candidates live in the
   buckets keyed by the subsets of f's name set (at most 2⁶ - 1 of them for
   the paper's conjunctions; the buckets are scanned instead when there are
   fewer buckets than subsets). The same holds for the pairwise (Siena)
   relation, which needs a constraint of f on each name of g.
2. Attributes are independent, so g covers f only if, on every name of g,
   f's constraints on that name imply g's (for the pairwise relation: each
   constraint of g on it is implied by one constraint of f on it). Inside a
   bucket the members are therefore indexed per name: a member with one
   constraint d on the name sits in the group of d's (type, operator):

   - ``<``, ``<=``, ``>``, ``>=``: sorted by value, weakest first. The values
     v for which f implies ``x < v`` form an up-set, so the members whose d
     f implies are a prefix of the group, found by galloping and bisection
     with the exact per-name test (O(log k) tests for a prefix of k, not n);
   - ``=``: a dictionary by value (f implies ``x = v`` only when f says
     ``x = v``, or pins x to one value: see ``attributes.special``);
   - prefix ``>*`` / suffix ``*<`` / substring ``*``: dictionaries by value,
     probed with the prefixes / suffixes / substrings of the value of f's
     ``=`` or same-kind constraint, and with the empty string;
   - ``!=``, ``any`` and bools: always candidates (few survive a reduction).

   A member with several constraints on the name is filed under one of them
   (an ``=`` or prefix rather than a ``!=``): f's constraints must imply each
   of them, so one is a sound filter.

   Where f's constraints on the name may imply d only together (two or more
   constraints on it, under exact covering) or one of them is special
   (unsatisfiable, pinned to one value, forcing a first character), the
   probed groups give every member. For each bucket the name with the
   fewest candidates is enumerated (weakest bound first), every candidate is
   tested for membership in the other names' candidate sets (an integer
   comparison for a sorted group), and only the survivors get the exact
   covering test. So a bucket where every conjunction uses the same names
   (``[int x < r, string s >* "XY"]`` × n) costs a few tests per conjunction
   instead of n. What it does not make sub-quadratic: a bucket whose
   members form an antichain in two ordered names at once (``[x > i,
   y < i]``), where each name alone admits about half of them; the
   membership tests are then the quadratic part, at well under a
   microsecond each.

``tests/test_reducers_index.py`` checks the indexed answers against all pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations

from cbalgebra.covering.rules import filter_satisfiable, form_of
from cbalgebra.values import (
    ANY,
    ANYTYPE,
    EQ,
    GE,
    GT,
    LE,
    LT,
    PREFIX,
    RANGE_OPERATORS,
    SUBSTRING,
    SUFFIX,
    Constraint,
    Filter,
)

from .attributes import constraint_implies, special

#: Which of a member's constraints on a name files it (the best narrowing first).
_FILING_RANK = {EQ: 0, PREFIX: 1, SUFFIX: 2, LT: 3, LE: 3, GT: 3, GE: 3, SUBSTRING: 4}
_PROBED_OPS = (EQ, PREFIX, SUFFIX, SUBSTRING)
#: Longest value whose substrings are enumerated (longer: every member).
_MAX_SUBSTRING_PROBE = 48
#: Buckets up to this size are scanned without the per-name index (tests set
#: it to 0 to run the index on small generated cases).
SCAN_BELOW = 8
#: Candidates of the enumerated name above which the other names filter them.
_FILTER_ABOVE = 16


def _prefixes(s: str) -> list[str]:
    return [s[:k] for k in range(len(s) + 1)]


def _suffixes(s: str) -> list[str]:
    return [s[k:] for k in range(len(s) + 1)]


def _substrings(s: str) -> list[str]:
    return sorted({s[i:j] for i in range(len(s) + 1) for j in range(i, len(s) + 1)})


_SPECIAL: dict[Constraint, bool] = {}


def _special(c: Constraint) -> bool:
    """``attributes.special``, remembered per constraint (it builds a witness)."""
    r = _SPECIAL.get(c)
    if r is None:
        if len(_SPECIAL) > 1 << 16:
            _SPECIAL.clear()
        r = _SPECIAL[c] = special(c)
    return r


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
    """The members of a bucket with one constraint on a name, for one (type, operator)."""

    __slots__ = ("op", "type", "items", "by_value", "position", "value_of")

    def __init__(self, type_: str, op: str) -> None:
        self.type = type_
        self.op = op
        self.items: list[tuple] = []  # (value, member index, constraint)
        self.by_value: dict = {}  # value -> member indices (probed operators)
        self.position: dict[int, int] = {}  # member index -> place in items
        self.value_of: dict[int, object] = {}  # member index -> its bound

    def freeze(self) -> None:
        if self.op in RANGE_OPERATORS:
            # Weakest first: largest bound for < and <=, smallest for > and >=.
            self.items.sort(key=lambda t: (t[0], t[1]), reverse=self.op in (LT, LE))
        else:
            self.items.sort(key=lambda t: (t[0] is not None, t[0] if t[0] is not None else "", t[1]))
        if self.op in _PROBED_OPS:
            for v, i, _ in self.items:
                self.by_value.setdefault(v, []).append(i)
        self.position = {i: k for k, (_, i, _) in enumerate(self.items)}
        self.value_of = {i: v for v, i, _ in self.items}

    def members(self, upto: int | None = None) -> Iterator[int]:
        items = self.items if upto is None else self.items[:upto]
        return (i for _, i, _ in items)


class _Slot:
    """One name of one bucket: its members grouped by the constraint they put on it."""

    __slots__ = ("name", "groups", "where")

    def __init__(self, name: str) -> None:
        self.name = name
        self.groups: dict[tuple[str, str], _Group] = {}
        self.where: dict[int, _Group] = {}

    def add(self, i: int, cs: tuple[Constraint, ...]) -> None:
        # A member is filed under one of its constraints on the name: f's
        # constraints on the name must imply each of them (under either
        # relation), so the one that narrows best stands for the member.
        d = cs[0] if len(cs) == 1 else min(cs, key=lambda c: (_FILING_RANK.get(c.op, len(_FILING_RANK)), c.sort_key))
        g = self.groups.get((d.type, d.op))
        if g is None:
            g = self.groups[(d.type, d.op)] = _Group(d.type, d.op)
        g.items.append((d.value, i, d))
        self.where[i] = g

    def freeze(self) -> None:
        for g in self.groups.values():
            g.freeze()


class _Monotone:
    """An ordered group's implied prefix, found while enumerating it."""

    __slots__ = ("implied",)

    def __init__(self, implied: Callable[[Constraint], bool]) -> None:
        self.implied = implied


class _Admitted:
    """The members of one slot that may cover the query on that name.

    ``parts`` maps a group to what it admits: an int k (its first k items),
    a set of values (the members with those values, probed groups), or None
    (all of it). Groups not in ``parts`` admit nothing.
    """

    __slots__ = ("slot", "parts", "size", "ordered")

    def __init__(self, slot: _Slot, parts: dict[_Group, object], ordered: bool) -> None:
        self.slot = slot
        self.parts = parts
        self.ordered = ordered  # ordered groups admitted in full, not yet cut
        size = 0
        for g, part in parts.items():
            if part is None:
                size += len(g.items)
            elif isinstance(part, int):
                size += part
            else:
                size += sum(len(g.by_value[v]) for v in part)
        self.size = size

    def __iter__(self) -> Iterator[int]:
        for g, part in self.parts.items():
            if isinstance(part, _Monotone):
                for _, i, d in g.items:
                    if not part.implied(d):
                        break
                    yield i
            elif part is None:
                yield from g.members()
            elif isinstance(part, int):
                yield from g.members(part)
            else:
                for v in part:
                    yield from g.by_value[v]

    def __contains__(self, i: int) -> bool:
        g = self.slot.where[i]
        if g not in self.parts:
            return False
        part = self.parts[g]
        if part is None:
            return True
        if isinstance(part, int):
            return g.position[i] < part
        return g.value_of[i] in part


class _Bucket:
    __slots__ = ("members", "slots")

    def __init__(self) -> None:
        self.members: list[int] = []
        self.slots: dict[str, _Slot] | None = None


class CoverIndex:
    """Index over a fixed list of conjunctions for "who may cover f".

    ``exact`` selects what "covers" means for the narrowing: True for exact
    filter covering, False for the pairwise Siena relation (each constraint of
    g implied by one constraint of f).
    """

    def __init__(self, filters: Sequence[Filter], exact: bool) -> None:
        self.filters = list(filters)
        self.exact = exact
        self.buckets: dict[frozenset, _Bucket] = {}
        for i, f in enumerate(self.filters):
            b = self.buckets.get(f.names)
            if b is None:
                b = self.buckets[f.names] = _Bucket()
            b.members.append(i)
        for key, b in self.buckets.items():
            if len(b.members) > SCAN_BELOW:
                slots = {name: _Slot(name) for name in key}
                for i in b.members:
                    for name, cs in self.filters[i].by_name.items():
                        slots[name].add(i, cs)
                for slot in slots.values():
                    slot.freeze()
                b.slots = slots
        self._bucket_keys = sorted(self.buckets, key=lambda s: (len(s), sorted(s)))

    # ------------------------------------------------------------- queries
    def find(self, i: int, covers: Callable[[int], bool], valid: Callable[[int], bool]) -> int | None:
        """An index j != i with ``covers(j)`` and ``valid(j)``, or None.

        ``covers(j)``: conjunction j covers conjunction i. ``valid(j)``: j may
        stand in for i (checked only when j covers i).
        """
        f = self.filters[i]
        # An unsatisfiable f is covered by everything: the per-name narrowing
        # (fact 2) holds for satisfiable conjunctions only.
        narrow = not self.exact or filter_satisfiable(f)
        groups_f = f.by_name if narrow else None
        for key in subsets_present(f.names, self.buckets, self._bucket_keys):
            b = self.buckets[key]
            if not b.slots or not narrow:
                cands: object = b.members
                others: list[_Admitted] = []
            else:
                cands, others = self._plan(f, groups_f, b)
            for j in cands:
                if j == i or any(j not in a for a in others):
                    continue
                if covers(j) and valid(j):
                    return j
        return None

    def _plan(self, f: Filter, groups_f: dict, b: _Bucket) -> tuple[_Admitted, list[_Admitted]]:
        """Which name of bucket ``b`` to enumerate, and the others' admitted sets.

        First every name's admitted set is bounded without a covering test
        (ordered groups count in full, probed ones exactly); the smallest is
        made exact (ordered groups cut to their implied prefix) and
        enumerated. The other names filter its members only when there are
        many of them: for a few, the exact test is cheaper than the cuts.
        """
        rough = [self._admitted(f, groups_f[name], slot, cut=False) for name, slot in sorted(b.slots.items())]
        # Ties go to a name with ordered groups: they enumerate weakest first.
        best = min(range(len(rough)), key=lambda k: (rough[k].size, not rough[k].ordered))
        first = rough[best]
        if first.ordered:
            # Enumerated weakest first, stopping at the first bound f does not
            # imply: no test spent past the coverer found first.
            implied = self._implies_on_name(f, groups_f[first.slot.name])
            for g in first.parts:
                if g.op in RANGE_OPERATORS:
                    first.parts[g] = _Monotone(implied)
        others = rough[:best] + rough[best + 1:]
        if first.size > _FILTER_ABOVE:
            others = [self._admitted(f, groups_f[a.slot.name], a.slot, cut=True) if a.ordered else a
                      for a in others]
            return first, others
        return first, []

    def _implies_on_name(self, f: Filter, cs: tuple[Constraint, ...]) -> Callable[[Constraint], bool]:
        """d -> whether f's constraints ``cs`` on d's name imply d (exactly, or pairwise)."""
        if self.exact:
            return form_of(f).forms[cs[0].name].implies
        if len(cs) == 1:
            (c,) = cs
            return lambda d: constraint_implies(c, d)
        return lambda d: any(constraint_implies(c, d) for c in cs)

    def _admitted(self, f: Filter, cs: tuple[Constraint, ...], slot: _Slot, cut: bool) -> _Admitted:
        """The members of ``slot`` whose constraint f's constraints ``cs`` may
        imply; ordered groups are cut to their implied prefix when ``cut``."""
        scan_all = None  # computed on the first group that is not ordered
        types = {c.type for c in cs} | {ANYTYPE}
        implied = None
        parts: dict[_Group, object] = {}
        ordered = False
        for (type_, op), group in slot.groups.items():
            if op in RANGE_OPERATORS and not cut:
                parts[group] = None
                ordered = True
                continue
            if op in RANGE_OPERATORS:
                # Monotone in the bound: bisect for the end of the implied prefix.
                if implied is None:
                    implied = self._implies_on_name(f, cs)
                items = group.items
                # Galloping, then bisection: O(log k) tests for k implied
                # members, one test when the weakest is not implied.
                if not items or not implied(items[0][2]):
                    continue
                bound = 1
                while bound < len(items) and implied(items[bound][2]):
                    bound *= 2
                lo, hi = bound // 2 + 1, min(bound, len(items))
                while lo < hi:
                    mid = (lo + hi) // 2
                    if implied(items[mid][2]):
                        lo = mid + 1
                    else:
                        hi = mid
                if lo:
                    parts[group] = lo
                continue
            if scan_all is None:
                scan_all = (self.exact and len(cs) >= 2) or any(_special(c) for c in cs)
            if not scan_all and type_ not in types:
                continue
            if scan_all or op not in _PROBED_OPS:
                parts[group] = None
            else:
                found = self._probe([c for c in cs if c.type == type_], group)
                if found is None or found:
                    parts[group] = found
        return _Admitted(slot, parts, ordered)

    @staticmethod
    def _probe(cs, group: _Group) -> dict | None:
        """The values of ``group`` that the constraints ``cs`` (of the group's type) may imply; None: all."""
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
                        return None
                    keys.extend(_substrings(c.value))
        return {k: None for k in keys if k in group.by_value}  # ordered: deterministic steps


def unindexed_find(filters: Sequence[Filter], i: int, covers: Callable[[int], bool],
                   valid: Callable[[int], bool]) -> int | None:
    """The all-pairs reference for :meth:`CoverIndex.find` (tests, benchmarks)."""
    for j in range(len(filters)):
        if j != i and covers(j) and valid(j):
            return j
    return None
