"""Per-attribute algebra used by the rules: normal forms and unions.

Attributes are independent (docs/design.md, §3), so every rule that rewrites the
inside of a conjunction works on the constraints of one attribute name at a
time. Numbers use the covering layer's interval-with-holes sets
(the domain algebra of ``cbalgebra.covering``): an int set is ``[lo, hi]`` minus holes, a
float set the same over *ordinals* (an order-preserving numbering of the
finite doubles, ``-0.0`` = ``0.0``), so ``x < 3.0`` is ``x <= prev(3.0)``
exactly.

Inside one conjunction every constraint on a name requires the attribute to be
present with its type, so there the complement of ``x < 3`` really is
``x >= 3``; outside a conjunction it is not (absence), and nothing here
assumes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import combinations

from cbalgebra.covering import constraint_covers, predicate_covers_filter
from cbalgebra.covering import (
    IntSet,
    bool_values,
    constraint_satisfiable,
    filter_covers,
    filter_witness,
    number_bounds,
    number_of,
)
from cbalgebra.covering import number_set as atoms_number_set
from cbalgebra.covering import constraint_filter as single
from cbalgebra.semantics import value_satisfies
from cbalgebra.values import (
    ANY,
    ANYTYPE,
    BOOL,
    EQ,
    FLOAT,
    GE,
    GT,
    INT,
    INT_MAX,
    INT_MIN,
    LE,
    LT,
    NE,
    PREFIX,
    STRING,
    SUBSTRING,
    SUFFIX,
    Constraint,
    Filter,
    Predicate,
    float_of_order_key,
)

NUMBER_TYPES = (INT, FLOAT)
MAX_CHAR = chr(0x10FFFF)


def implies(cs: Sequence[Constraint], c: Constraint) -> bool:
    """Whether the conjunction ``cs`` implies the constraint ``c`` (exact)."""
    return filter_covers(single(c), Filter(cs))


def equivalent_sets(a: Sequence[Constraint], b: Sequence[Constraint]) -> bool:
    fa, fb = Filter(a), Filter(b)
    return filter_covers(fa, fb) and filter_covers(fb, fa)


def concrete_type(cs: Iterable[Constraint]) -> str | None:
    """The one concrete type the constraints force, ANYTYPE when only
    ``any name any`` appears, None when two concrete types conflict."""
    types = {c.type for c in cs if c.type != ANYTYPE}
    if not types:
        return ANYTYPE
    return types.pop() if len(types) == 1 else None


# ------------------------------------------------------------ special atoms
@lru_cache(maxsize=1 << 16)
def special(c: Constraint) -> bool:
    """Constraints whose coverers the index cannot narrow by operator.

    They are the unsatisfiable ones, the ones satisfied by one value only
    (``int x <= INT_MIN``, ``bool b != true``, ``string s <= ""``) and the
    string bounds that force a first character (``s >= "\\U0010ffff..."``).
    The index scans every single-constraint conjunction on the name for them.
    """
    if not constraint_satisfiable(c):
        return True
    if c.op == ANY:
        return False
    if c.op == EQ:
        return False
    if isinstance(c.value, str) and c.op in (GT, GE) and c.value.startswith(MAX_CHAR):
        return True
    witness = filter_witness(single(c))
    assert witness is not None, c  # c is satisfiable
    w = witness[c.name]
    return constraint_covers(Constraint(c.type, c.name, EQ, w.value), c)


# ------------------------------------------------------------ number forms
def number_set(type_: str, cs: Iterable[Constraint]) -> IntSet:
    """The values of an int or float attribute that satisfy every constraint in ``cs``."""
    return atoms_number_set(type_, [(c.op, c.value, True) for c in cs if c.op != ANY])


def _spell_bound(type_: str, name: str, lower: bool, o: int) -> Constraint:
    """A constraint for ``x >= value(o)`` (lower) or ``x <= value(o)``.

    Ints use the strict operators of the paper (``x > o-1``, ``x < o+1``);
    floats the spelling with the shorter literal (``x > 2.5`` rather than
    ``x >= 2.5000000000000004``), ties going to the non-strict one.
    """
    if type_ == INT:
        return Constraint(INT, name, GT, o - 1) if lower else Constraint(INT, name, LT, o + 1)
    inclusive = float_of_order_key(o)
    strict = float_of_order_key(o - 1 if lower else o + 1)
    if len(repr(strict)) < len(repr(inclusive)):
        return Constraint(FLOAT, name, GT if lower else LT, strict)
    return Constraint(FLOAT, name, GE if lower else LE, inclusive)


def set_constraints(type_: str, name: str, s: IntSet,
                    spellings: Sequence[Constraint] = ()) -> tuple[Constraint, ...] | None:
    """The fewest constraints whose conjunction is the number set ``s``
    (None when ``s`` is empty). A constraint of ``spellings`` equivalent to a
    needed one is reused, so a tight input keeps its own spelling."""
    if s.empty:
        return None
    lo_min, hi_max = number_bounds(type_)
    if s.lo == s.hi:
        needed = [Constraint(type_, name, EQ, number_of(type_, s.lo))]
    else:
        needed = []
        if s.lo > lo_min:
            needed.append(_spell_bound(type_, name, True, s.lo))
        if s.hi < hi_max:
            needed.append(_spell_bound(type_, name, False, s.hi))
        needed.extend(Constraint(type_, name, NE, number_of(type_, h)) for h in sorted(s.holes))
        if not needed:
            needed = [Constraint(type_, name, ANY)]
    return tuple(_reuse(k, spellings) for k in needed)


def _reuse(k: Constraint, spellings: Sequence[Constraint]) -> Constraint:
    if k in spellings:
        return k
    for c in sorted(spellings):
        if c.type == k.type and c.op != ANY and k.op != ANY and c.op != NE and k.op != NE \
                and constraint_covers(c, k) and constraint_covers(k, c):
            return c
    return k


def bool_constraints(name: str, values: Sequence[bool],
                     spellings: Sequence[Constraint] = ()) -> tuple[Constraint, ...] | None:
    if not values:
        return None
    if len(values) == 2:
        return (Constraint(BOOL, name, ANY),)
    k = Constraint(BOOL, name, EQ, values[0])
    return (_reuse(k, spellings),)


def normal_form(cs: Sequence[Constraint]) -> tuple[Constraint, ...] | None:
    """The tightest form of one attribute's int, float or bool constraints
    inside a conjunction (None: unsatisfiable). Other types: unchanged."""
    if not cs:
        return ()
    name = cs[0].name
    t = concrete_type(cs)
    if t is None:
        return None
    if t == ANYTYPE:
        return (Constraint(ANYTYPE, name, ANY),)
    typed = [c for c in cs if c.type == t]
    if t in NUMBER_TYPES:
        return set_constraints(t, name, number_set(t, typed), typed)
    if t == BOOL:
        return bool_constraints(name, bool_values([(c.op, c.value, True) for c in typed if c.op != ANY]), typed)
    return tuple(cs)


@lru_cache(maxsize=1 << 16)
def single_normal_form(c: Constraint) -> tuple[Constraint, ...] | None:
    """:func:`normal_form` of one constraint (cached: it rarely changes)."""
    if c.type not in (*NUMBER_TYPES, BOOL):
        return (c,)
    return normal_form((c,))


# ------------------------------------------------------------------ unions
def _member(s: IntSet, o: int) -> bool:
    return s.lo <= o <= s.hi and o not in s.holes


def number_union(type_: str, a: IntSet, b: IntSet, max_holes: int) -> IntSet | None:
    """``a ∪ b`` as one interval with at most ``max_holes`` holes, or None."""
    if a.empty:
        return b
    if b.empty:
        return a
    if b.lo < a.lo:
        a, b = b, a
    holes = {h for h in a.holes if not _member(b, h)} | {h for h in b.holes if not _member(a, h)}
    if b.lo > a.hi + 1:
        gap = b.lo - a.hi - 1
        if gap + len(holes) > max_holes:
            return None
        holes.update(range(a.hi + 1, b.lo))
    if len(holes) > max_holes:
        return None
    return IntSet(a.lo, max(a.hi, b.hi), frozenset(holes))


def _prefix_upper(p: str) -> str | None:
    """The least string above every string with prefix p (None: none)."""
    while p and p[-1] == MAX_CHAR:
        p = p[:-1]
    if not p:
        return None
    nxt = ord(p[-1]) + 1
    if 0xD800 <= nxt <= 0xDFFF:
        nxt = 0xE000
    return p[:-1] + chr(nxt)


def _string_pool(name: str, a: Sequence[Constraint], b: Sequence[Constraint]) -> list[Constraint]:
    """Candidate constraints for the union of two string conjunctions: both
    sides' own constraints, presence, and the order bounds of their hulls."""
    pool = {Constraint(STRING, name, ANY), *a, *b}
    for x in a:
        for y in b:
            for c, d in ((x, y), (y, x)):
                if c.op == ANY or d.op == ANY:
                    continue
                v, w = c.value, d.value
                if c.op == EQ and d.op == LT and v == w:
                    pool.add(Constraint(STRING, name, LE, v))
                if c.op == EQ and d.op == GT and v == w:
                    pool.add(Constraint(STRING, name, GE, v))
                if c.op == LT and d.op == GT and v == w:
                    pool.add(Constraint(STRING, name, NE, v))
    lowers, uppers = [], []
    for c in (*a, *b):
        if c.op in (GT, GE, EQ, PREFIX):
            lowers.append(Constraint(STRING, name, GT if c.op == GT else GE, c.value))
        if c.op in (LT, LE, EQ):
            uppers.append(Constraint(STRING, name, LT if c.op == LT else LE, c.value))
        if c.op == PREFIX and isinstance(c.value, str):
            up = _prefix_upper(c.value)
            if up is not None:
                uppers.append(Constraint(STRING, name, LT, up))
    pool.update(lowers)
    pool.update(uppers)
    return sorted(pool)


def string_union(name: str, a: Sequence[Constraint], b: Sequence[Constraint],
                 limit: int) -> tuple[Constraint, ...] | None:
    """A conjunction of at most ``limit`` string constraints equivalent to
    ``a ∨ b``, built from the candidate pool, or None. Decided exactly."""
    fa, fb = Filter(a), Filter(b)
    common = [k for k in _string_pool(name, a, b)
              if filter_covers(single(k), fa) and filter_covers(single(k), fb)]
    if not common:
        return None
    if not predicate_covers_filter(Predicate((fa, fb)), Filter(common)):
        return None
    smallest = minimum_equivalent(common)
    return smallest if len(smallest) <= limit else None


def minimum_equivalent(cs: Sequence[Constraint], exhaustive_up_to: int = 6) -> tuple[Constraint, ...]:
    """A smallest subset of one attribute's constraints equivalent to all of
    them (exhaustive up to ``exhaustive_up_to`` constraints; above that, drop
    greedily every constraint implied by the rest)."""
    cs = tuple(sorted(set(cs)))
    if len(cs) <= 1:
        return cs
    whole = Filter(cs)
    if len(cs) <= exhaustive_up_to:
        for k in range(1, len(cs)):
            for subset in combinations(cs, k):
                if filter_covers(whole, Filter(subset)):
                    return subset
        return cs
    kept = list(cs)
    for c in sorted(cs, key=_removal_order):
        rest = [d for d in kept if d is not c]
        if rest and implies(rest, c):
            kept = rest
    return tuple(kept)


_REMOVAL_RANK = {ANY: 0, NE: 1, LT: 2, GT: 2, LE: 3, GE: 3, SUBSTRING: 4, SUFFIX: 5, PREFIX: 6, EQ: 7}


def _removal_order(c: Constraint) -> tuple:
    """Try to drop presence and weak constraints before strong ones."""
    return (c.type != ANYTYPE, _REMOVAL_RANK.get(c.op, 8), c.sort_key)


def attribute_union(a: Sequence[Constraint], b: Sequence[Constraint], limit: int) -> tuple[Constraint, ...] | None:
    """One conjunction of at most ``limit`` constraints on a single attribute
    equivalent to ``a ∨ b`` (each side a satisfiable conjunction on that
    attribute, in normal form), or None when there is none we can build."""
    name = a[0].name
    ta, tb = concrete_type(a), concrete_type(b)
    if ta is None or tb is None:
        return None
    if ANYTYPE in (ta, tb):
        # One side is "present with any type", the other requires presence.
        return (Constraint(ANYTYPE, name, ANY),) if limit >= 1 else None
    if ta != tb:
        return None
    t = ta
    if t in NUMBER_TYPES:
        # Fewest constraints of the union: <= 2 bounds + holes.
        u = number_union(t, number_set(t, a), number_set(t, b), max_holes=limit)
        if u is None:
            return None
        out = set_constraints(t, name, u, (*a, *b))
        return out if out is not None and len(out) <= limit else None
    if t == BOOL:
        vals = set(bool_values([(c.op, c.value, True) for c in a if c.op != ANY]))
        vals |= set(bool_values([(c.op, c.value, True) for c in b if c.op != ANY]))
        out = bool_constraints(name, sorted(vals), (*a, *b))
        return out if out is not None and len(out) <= limit else None
    return string_union(name, a, b, limit)


# --------------------------------------------------- int bounds, decided directly
_INT_INTERVAL_OPS = (EQ, LT, LE, GT, GE)


def _int_interval(c: Constraint) -> tuple[int, int]:
    v = c.value
    assert isinstance(v, int), c  # an int constraint with an interval operator
    if c.op == EQ:
        return v, v
    if c.op == LT:
        return INT_MIN, v - 1
    if c.op == LE:
        return INT_MIN, v
    if c.op == GT:
        return v + 1, INT_MAX
    return v, INT_MAX  # GE


_STRING_KINDS = (EQ, PREFIX, SUFFIX, SUBSTRING)
#: constraint_implies answers of the pairs the fast paths leave to the
#: covering layer (the DNF workloads intern their constraints, so pairs recur).
_IMPLIES: dict[tuple[Constraint, Constraint], bool] = {}


def _string_implies(c: Constraint, d: Constraint) -> bool | None:
    """Whether string c implies string d for c, d among ``=``, prefix,
    suffix, substring and d also ``!=``; None: not decided here.

    These constraints are satisfiable and, except ``=``, admit strings of any
    continuation at their open end(s), so: ``= v`` implies only ``= v``;
    prefix v implies suffix w (or vice versa) only for w = ""; a constraint
    with value v implies substring w iff w occurs in v; and c implies
    ``!= w`` iff w itself does not satisfy c.
    """
    cop, v, dop, w = c.op, c.value, d.op, d.value
    assert isinstance(v, str) and isinstance(w, str), (c, d)  # string constraints other than any
    if dop == NE:
        if cop == EQ:
            return v != w
        if cop == PREFIX:
            return not w.startswith(v)
        if cop == SUFFIX:
            return not w.endswith(v)
        return v not in w  # SUBSTRING
    if dop == EQ:
        return cop == EQ and v == w
    if dop == SUBSTRING:
        return w in v
    if dop == PREFIX:
        return v.startswith(w) if cop in (EQ, PREFIX) else w == ""
    if dop == SUFFIX:
        return v.endswith(w) if cop in (EQ, SUFFIX) else w == ""
    return None


def _int_implies(c: Constraint, d: Constraint) -> bool | None:
    """Whether int c implies int d on one name, c an interval operator
    (``=``, ``<``, ``<=``, ``>``, ``>=``) and d one too or ``!=``, decided on
    intervals of [INT_MIN, INT_MAX]; None: not decided here."""
    clo, chi = _int_interval(c)
    if clo > chi:
        return True  # c is unsatisfiable: it implies everything
    if d.op == NE:
        assert isinstance(d.value, int), d
        return not clo <= d.value <= chi
    if d.op in _INT_INTERVAL_OPS:
        dlo, dhi = _int_interval(d)
        return dlo <= clo and chi <= dhi
    return None


def constraint_implies(c: Constraint, d: Constraint) -> bool:
    """Whether c implies d (``constraint_covers(d, c)``).

    The reducers ask this for every (constraint, bound) pair they try, and
    most constraints of a large input are seen few times, so the common
    same-name int and string pairs are decided directly:

    - d is ``!= w``: c implies it iff w itself does not satisfy c (an
      unsatisfiable c implies everything, and no value satisfies it);
    - c is ``!= v``: it admits all values but one, so it implies ``= w``
      never and prefix, suffix or substring w only for w = "";
    - ints with ``=``, ``<``, ``<=``, ``>``, ``>=`` as intervals, without
      building normal forms; strings with ``=``, prefix, suffix and
      substring by ``str`` operations (see :func:`_string_implies`).

    The rest go to the covering layer, remembered per pair.
    ``tests/test_reducers_index.py`` checks all of it against covering.
    """
    if c.name == d.name and c.type == d.type and c.type in (INT, STRING) and d.op != ANY:
        if d.op == NE:
            return not value_satisfies(c.op, c.value, d.value)
        if c.op == NE:
            if d.op == EQ:
                return False
            if d.op in (PREFIX, SUFFIX, SUBSTRING):
                return d.value == ""
        elif c.type == INT:
            if c.op in _INT_INTERVAL_OPS:
                r = _int_implies(c, d)
                if r is not None:
                    return r
        elif c.op in _STRING_KINDS:
            r = _string_implies(c, d)
            if r is not None:
                return r
    key = (c, d)
    r = _IMPLIES.get(key)
    if r is None:
        if len(_IMPLIES) > 1 << 18:
            _IMPLIES.clear()
        r = _IMPLIES[key] = constraint_covers(d, c)
    return r
