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
   instead of n. A bucket whose members form an antichain in two ordered
   names at once (``[x > i, y < i]``), where each name alone admits about
   half of them, is answered by :func:`dominance` instead: a coverer of f
   matches f's corner message (``x = i + 1, y = i - 1``), and one bisection
   says whether any member does.

``tests/test_reducers_index.py`` checks the indexed answers against all pairs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import combinations
from typing import NamedTuple

from cbalgebra.covering import filter_satisfiable, filter_witness, form_of
from cbalgebra.semantics import matches
from cbalgebra.values import (ANY, ANYTYPE, EQ, GE, GT, INT, LE, LT, NE, PREFIX, RANGE_OPERATORS, STRING, SUBSTRING,
                              SUFFIX,
                              Attribute, Constraint, Filter, Message, Value)

from .attributes import MAX_CHAR, _int_interval, constraint_implies, special

#: Which of a member's constraints on a name files it (the best narrowing first).
_FILING_RANK = {EQ: 0, PREFIX: 1, SUFFIX: 2, LT: 3, LE: 3, GT: 3, GE: 3, SUBSTRING: 4}
_PROBED_OPS = (EQ, PREFIX, SUFFIX, SUBSTRING)
#: Longest value whose substrings are enumerated (longer: every member).
_MAX_SUBSTRING_PROBE = 48
#: Buckets up to this size are scanned without the per-name index (tests set
#: it to 0 to run the index on small generated cases).
SCAN_BELOW = 8
#: Buckets above this size are checked for the two-bound shape (see dominance).
_PAIR_ABOVE = 64
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
    """``attributes.special``, remembered per constraint (it builds a witness).

    Decided directly for ints and strings with a single operator: an int
    bound is special iff its interval has at most one value; a string ``<
    v`` iff v is "" or "\\x00" (nothing, or only "" below it), ``<= v`` iff
    v is "", ``>``/``>=`` iff v starts with the largest character; ``=``,
    ``!=``, ``any``, prefix, suffix and substring never are (``=`` pins,
    but the index probes it by value). ``test_reducers_index.py`` checks
    this against ``attributes.special``.
    """
    if c.op in (EQ, NE, ANY, PREFIX, SUFFIX, SUBSTRING) and c.type in (INT, STRING):
        return False
    if c.type == INT:
        lo, hi = _int_interval(c)
        return lo >= hi
    if isinstance(c.value, str):  # a string constraint (not any: answered above)
        v = c.value
        if c.op == LT:
            return v in ("", "\x00")
        if c.op == LE:
            return v == ""
        return v.startswith(MAX_CHAR)  # GT, GE
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

    __slots__ = ("by_value", "items", "op", "position", "type", "value_of")

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

    __slots__ = ("groups", "name", "where")

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



#: What an admitted group contributes: all its members (None), the first n of
#: an ordered group (int), its members with these values (a probed group), or
#: the implied prefix of the group being enumerated.
_Part = _Monotone | int | dict[Value, None] | None


class _Admitted:
    """The members of one slot that may cover the query on that name.

    ``parts`` maps a group to what it admits: an int k (its first k items),
    a set of values (the members with those values, probed groups), or None
    (all of it). Groups not in ``parts`` admit nothing.
    """

    __slots__ = ("ordered", "parts", "size", "slot")

    def __init__(self, slot: _Slot, parts: dict[_Group, _Part], ordered: bool) -> None:
        self.slot = slot
        self.parts = parts
        self.ordered = ordered  # ordered groups admitted in full, not yet cut
        size = 0
        for g, part in parts.items():
            if part is None or isinstance(part, _Monotone):
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
        if isinstance(part, dict):
            return g.value_of[i] in part
        raise TypeError("an enumerated group's implied prefix is not a membership test")


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
        #: Each conjunction's attribute names (``Filter.names`` builds a set per call).
        self.names: list[frozenset] = [f.names for f in self.filters]
        for i, names in enumerate(self.names):
            b = self.buckets.get(names)
            if b is None:
                b = self.buckets[names] = _Bucket()
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
        # Conjunctions with the same names share their candidate buckets.
        self._subsets: dict[frozenset, list[frozenset]] = {}
        self._pairs: dict[frozenset, Dominance | None] = {}  # bucket -> dominance(...), built when first asked

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
        names = self.names[i]
        keys = self._subsets.get(names)
        if keys is None:
            keys = self._subsets[names] = subsets_present(names, self.buckets, self._bucket_keys)
        corner: Message | None = None  # f's corner message, computed when first needed
        corner_known = False
        for key in keys:
            b = self.buckets[key]
            if narrow and len(b.members) > _PAIR_ABOVE:
                # A coverer of f matches every message of f: where the
                # bucket is [x > aᵢ, y < bᵢ]-shaped, one look-up says whether
                # any member matches f's corner message (an antichain in two
                # ordered names is otherwise the quadratic case).
                if key not in self._pairs:
                    self._pairs[key] = dominance(self.filters, b.members)
                pair = self._pairs[key]
                if pair is not None:
                    if not corner_known:
                        corner, corner_known = corner_message(f), True
                    if corner is not None and not pair_may_match(pair, i, corner):
                        continue
            cands: Iterable[int]
            others: list[_Admitted]
            if not b.slots or groups_f is None:  # groups_f is None when not narrowing
                cands, others = b.members, []
            else:
                cands, others = self._plan(f, groups_f, b.slots)
            for j in cands:
                if j == i or any(j not in a for a in others):
                    continue
                if covers(j) and valid(j):
                    return j
        return None

    def _plan(self, f: Filter, groups_f: Mapping[str, tuple[Constraint, ...]],
              slots: dict[str, _Slot]) -> tuple[_Admitted, list[_Admitted]]:
        """Which name of a bucket (its ``slots``) to enumerate, and the others' admitted sets.

        First every name's admitted set is bounded without a covering test
        (ordered groups count in full, probed ones exactly); the smallest is
        made exact (ordered groups cut to their implied prefix) and
        enumerated. The other names filter its members only when there are
        many of them: for a few, the exact test is cheaper than the cuts.
        """
        rough = [self._admitted(f, groups_f[name], slot, cut=False) for name, slot in sorted(slots.items())]
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
        parts: dict[_Group, _Part] = {}
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
    def _probe(cs: Sequence[Constraint], group: _Group) -> dict[Value, None] | None:
        """The values of ``group`` that the constraints ``cs`` (of the group's type) may imply; None: all."""
        op = group.op
        keys: list = []
        if op != EQ:
            keys.append("")
        for c in cs:
            value = c.value
            if value is None:  # the operator any (the only one of type any)
                continue
            if op == EQ:
                if c.op == EQ:
                    keys.append(value)
            elif not isinstance(value, str):  # the other probed groups are string groups
                continue
            elif op == PREFIX:
                if c.op in (EQ, PREFIX):
                    keys.extend(_prefixes(value))
            elif op == SUFFIX:
                if c.op in (EQ, SUFFIX):
                    keys.extend(_suffixes(value))
            elif op == SUBSTRING and c.op in (EQ, PREFIX, SUFFIX, SUBSTRING):
                if len(value) > _MAX_SUBSTRING_PROBE:
                    return None
                keys.extend(_substrings(value))
        return {k: None for k in keys if k in group.by_value}  # ordered: deterministic steps


def unindexed_find(filters: Sequence[Filter], i: int, covers: Callable[[int], bool],
                   valid: Callable[[int], bool]) -> int | None:
    """The all-pairs reference for :meth:`CoverIndex.find` (tests, benchmarks)."""
    for j in range(len(filters)):
        if j != i and covers(j) and valid(j):
            return j
    return None


class OverlapIndex:
    """Index over a fixed list of conjunctions for "who may overlap f".

    g can help cover f (in a disjunction) only if some message matches both,
    which needs g's names within f's (as for covering, fact 1) and, on each
    name, g's constraint consistent with f's. Per bucket of names, the
    members with one constraint on a name are filed by (type, operator);
    for f's single constraint on the name the consistent ones are found
    without a test: a string prefix q is consistent with prefix or ``=`` v
    only when q is a prefix of v (probed) or, for prefix v, starts with v (a
    sorted range); an int bound only when its interval meets f's (a sorted
    prefix, suffix or range). The name with the fewest is enumerated;
    :meth:`candidates` may still return conjunctions that do not overlap f
    (callers test), never misses one that does.
    """

    def __init__(self, filters: Sequence[Filter]) -> None:
        self.filters = list(filters)
        self.names = [f.names for f in self.filters]
        self.buckets: dict[frozenset, list[int]] = {}
        for i, names in enumerate(self.names):
            self.buckets.setdefault(names, []).append(i)
        self._keys = sorted(self.buckets, key=lambda s: (len(s), sorted(s)))
        # bucket -> name -> (type, op) -> sorted [(key, member)], plus the
        # members filed elsewhere (several constraints, other operators).
        self._slots: dict[frozenset, dict[str, tuple[dict, list[int]]]] = {}
        self._pairs: dict[frozenset, Dominance] = {}
        for key, members in self.buckets.items():
            if len(members) <= SCAN_BELOW:
                continue
            slots = {}
            for name in key:
                groups: dict[tuple[str, str], list] = {}
                rest: list[int] = []
                for i in members:
                    cs = self.filters[i].by_name[name]
                    d = cs[0]
                    if len(cs) == 1 and ((d.type == STRING and d.op == PREFIX)
                                         or (d.type == INT and d.op in (EQ, LT, LE, GT, GE))):
                        k: int | str
                        if isinstance(d.value, str):  # a string prefix
                            k = d.value
                        else:
                            lo, hi = _int_interval(d)
                            k = hi if d.op in (LT, LE) else lo
                        groups.setdefault((d.type, d.op if d.type == STRING or d.op == EQ else
                                           (LT if d.op in (LT, LE) else GT)), []).append((k, i))
                    else:
                        rest.append(i)
                for g in groups.values():
                    g.sort()
                slots[name] = ({t: ([k for k, _ in g], [i for _, i in g]) for t, g in groups.items()}, rest)
            self._slots[key] = slots
            pair = dominance(self.filters, members)
            if pair is not None:
                self._pairs[key] = pair
        self._subsets: dict[frozenset, list[frozenset]] = {}

    def may_match(self, i: int, message: Message) -> bool:
        """Whether a member j != i of a bucket within f's names may match
        ``message``, a message f matches (False: none does; True: perhaps)."""
        names = self.names[i]
        keys = self._subsets.get(names)
        if keys is None:
            keys = self._subsets[names] = subsets_present(names, self.buckets, self._keys)
        for key in keys:
            pair = self._pairs.get(key)
            if pair is None:
                # A member matching a message of f overlaps f.
                if any(matches(self.filters[j], message) for j in self._in_bucket(i, key)):
                    return True
                continue
            if pair_may_match(pair, i, message):
                return True
        return False

    def candidates(self, i: int) -> Iterator[int]:
        """Members j != i of the buckets within f's names that may overlap f."""
        names = self.names[i]
        keys = self._subsets.get(names)
        if keys is None:
            keys = self._subsets[names] = subsets_present(names, self.buckets, self._keys)
        for key in keys:
            yield from self._in_bucket(i, key)

    def _in_bucket(self, i: int, key: frozenset) -> Iterator[int]:
        """:meth:`candidates` within one bucket."""
        slots = self._slots.get(key)
        best: list | None = None
        if slots is not None:
            groups_f = self.filters[i].by_name
            for name, (groups, rest) in slots.items():
                admitted = self._admitted(groups_f[name], groups, rest)
                if admitted is not None and (best is None or sum(map(len, admitted)) < sum(map(len, best))):
                    best = admitted
        if best is None:
            yield from (j for j in self.buckets[key] if j != i)
        else:
            for part in best:
                yield from (j for j in part if j != i)

    @staticmethod
    def _admitted(cs: tuple[Constraint, ...], groups: dict, rest: list[int]) -> list | None:
        """Lists of the members consistent with f's constraints ``cs`` on one
        name (a superset), or None when this name does not narrow."""
        if len(cs) != 1:
            return None
        (c,) = cs

        out: list = [rest]
        for (type_, op), (ks, members) in groups.items():
            if type_ == STRING:  # prefix members
                if not isinstance(c.value, str) or c.op not in (PREFIX, EQ):  # not a string = or prefix
                    out.append(members)
                    continue
                v = c.value
                hits = []
                for k in range(len(v) + 1):  # members whose prefix is a prefix of v
                    p = v[:k]
                    a = bisect_left(ks, p)
                    while a < len(ks) and ks[a] == p:
                        hits.append(members[a])
                        a += 1
                if c.op == PREFIX:  # members whose prefix extends v (v itself counted above)
                    a = bisect_right(ks, v)
                    while a < len(ks) and ks[a].startswith(v):
                        hits.append(members[a])
                        a += 1
                out.append(hits)
                continue
            if c.type != INT or c.op not in (EQ, LT, LE, GT, GE):
                out.append(members)
                continue
            flo, fhi = _int_interval(c)
            if op == GT:  # members [k, INT_MAX]: consistent iff k <= fhi
                out.append(members[:bisect_right(ks, fhi)])
            elif op == LT:  # members [INT_MIN, k]: iff k >= flo
                out.append(members[bisect_left(ks, flo):])
            else:  # EQ: k in [flo, fhi]
                out.append(members[bisect_left(ks, flo):bisect_right(ks, fhi)])
        return out


class Dominance(NamedTuple):
    """What :func:`dominance` finds in a bucket of ``[x > aᵢ, y < bᵢ]``-shaped members."""

    name_a: str
    name_b: str
    op_a: str  # LT or GT: every member's bound on name_a is an upper (LT) or a lower (GT) one
    op_b: str
    keys_a: list[int]  # the members' bounds on name_a, sorted
    #: For each place p of keys_a: the two best (signed bound on name_b, member)
    #: among the members that match a message on name_a when p does.
    best: list[tuple[tuple[int, int], ...]]


def dominance(filters: Sequence[Filter], members: Sequence[int]) -> Dominance | None:
    """For members that all carry exactly one int bound on each of two names,
    ``[x > aᵢ, y < bᵢ]``-style: a structure for :func:`pair_may_match`.

    "Does a member match the message m" is then one bisection on the first
    name and a look-up: along its sorted bounds, the members matching m on
    it are a prefix (``>``, ``>=``) or a suffix (``<``, ``<=``), and among
    them the best bound on the second name (the largest upper / smallest
    lower one) decides whether one matches there too. The two best are kept
    so that the asking member can be excluded. None: not that shape.
    """
    if len(members) <= 1:
        return None
    first = filters[members[0]]
    kinds = {}
    for name in sorted(first.names):
        kind = None
        for i in members:
            cs = filters[i].by_name.get(name, ())
            if len(cs) != 1 or cs[0].type != INT or cs[0].op not in (LT, LE, GT, GE):
                kind = None
                break
            k = LT if cs[0].op in (LT, LE) else GT
            if kind is None:
                kind = k
            elif kind != k:
                kind = None
                break
        if kind is not None:
            kinds[name] = kind
        if len(kinds) == 2:
            break
    if len(kinds) < 2:
        return None
    (a, op_a), (b, op_b) = sorted(kinds.items())

    def bound(i: int, name: str, op: str) -> int:
        lo, hi = _int_interval(filters[i].by_name[name][0])
        return hi if op == LT else lo

    rows = sorted((bound(i, a, op_a), i) for i in members)
    ks_a = [k for k, _ in rows]
    sign = 1 if op_b == LT else -1  # LT: the largest upper bound is best; GT: the smallest lower
    best: list[tuple[tuple[int, int], ...]] = [()] * len(rows)
    top: tuple[tuple[int, int], ...] = ()
    order = range(len(rows)) if op_a == GT else range(len(rows) - 1, -1, -1)
    for p in order:
        j = rows[p][1]
        top = tuple(sorted((*top, (sign * bound(j, b, op_b), j)), reverse=True)[:2])
        best[p] = top
    return Dominance(a, b, op_a, op_b, ks_a, best)


def pair_may_match(pair: Dominance, i: int, message: Message) -> bool:
    """Whether a member j != i of a :func:`dominance` bucket matches ``message`` on both names."""
    a, b, op_a, op_b, ks_a, best = pair
    va, vb = message.get(a), message.get(b)
    if va is None or vb is None or va.type != INT or vb.type != INT:
        return False  # every member needs ints on a and b
    if op_a == GT:  # members [k, MAX] on a match iff k <= va: a prefix
        p = bisect_right(ks_a, va.value) - 1
        if p < 0:
            return False
    else:  # [MIN, k]: k >= va, a suffix
        p = bisect_left(ks_a, va.value)
        if p >= len(ks_a):
            return False
    for score, j in best[p]:
        if j != i:
            k = score if op_b == LT else -score
            return k >= vb.value if op_b == LT else k <= vb.value
    return False


def corner_message(f: Filter) -> Message | None:
    """A message f matches, taken at f's own bounds where it can be (``x > 5``
    → 6, ``x < 5`` → 4, prefix or ``=`` v → v): of the messages of f, the
    one least likely to match a conjunction that merely overlaps f. None
    when f is unsatisfiable."""
    base = filter_witness(f)
    if base is None:
        return None
    values = {name: base[name] for name in base}
    for name, cs in f.by_name.items():
        if len(cs) != 1:
            continue
        (c,) = cs
        if c.type == INT and c.op in (EQ, LT, LE, GT, GE):
            lo, hi = _int_interval(c)
            values[name] = Attribute(INT, hi if c.op in (LT, LE) else lo)
        elif isinstance(c.value, str) and c.op in (EQ, PREFIX, SUFFIX, SUBSTRING, LE, GE):
            values[name] = Attribute(STRING, c.value)
    m = Message(values)
    return m if matches(f, m) else base
