"""Covering, overlap and their witnesses, decided exactly.

x covers y iff every message matched by y is matched by x (docs/design.md, §5). The
rules layer (``rules``) decides filter against filter with per-attribute
reasoning. A filter against a disjunction goes through cheap exact steps
first (one filter of the disjunction covers it; a witness of the filter
already escapes the disjunction) and then to the z3 layer (``solver``).

Advertisements (Carzaniga, Rosenblum & Wolf, Content-Based Addressing and
Routing, 2000, §3.2) are sets of per-attribute alternatives. An
advertisement a1 covers a2 iff for every attribute name, the values a2
allows are among those a1 allows: a message made of a single attribute
shows the condition is necessary, and attributes are independent. So
advertisement covering is one small "constraint covered by a disjunction of
constraints" question per constraint of a2.

Overlap with an advertisement asks for a *non-empty* message: the empty
message is covered by every advertisement, so counting it would make every
advertisement overlap every other one.
"""

from __future__ import annotations

from cbalgebra.covering import rules
from cbalgebra.covering.domains import (
    FLOAT_ORD_MAX,
    FLOAT_ORD_MIN,
    NO_SOLUTION,
    IntSet,
    bool_values,
    number_bounds,
    number_of,
    number_set,
)
from cbalgebra.covering.domains import solve as solve_atoms
from cbalgebra.covering.errors import UndecidedError
from cbalgebra.covering.rules import (
    FilterForm,
    constraint_covers,
    constraint_satisfiable,
    filter_covers,
    filter_satisfiable,
    filter_witness,
    filters_overlap,
    form_of,
)
from cbalgebra.covering.rules import single as constraint_filter
from cbalgebra.semantics import matches
from cbalgebra.values import ANYTYPE, Advertisement, Constraint, Filter, Message, Predicate

__all__ = [
    "FLOAT_ORD_MAX",
    "FLOAT_ORD_MIN",
    "NO_SOLUTION",
    "FilterForm",
    "IntSet",
    "UndecidedError",
    "bool_values",
    "constraint_covers",
    "constraint_covers_filter",
    "constraint_filter",
    "constraint_satisfiable",
    "counterexample",
    "covers",
    "equivalent",
    "filter_covers",
    "filter_satisfiable",
    "filter_witness",
    "filters_overlap",
    "form_of",
    "number_bounds",
    "number_of",
    "number_set",
    "oracle_covers",
    "overlaps",
    "predicate_covers_filter",
    "satisfiable",
    "solve_atoms",
    "witness",
]
# The per-attribute domain algebra (IntSet, number_set, number_bounds,
# number_of, bool_values, solve_atoms) and the per-filter forms (form_of, FilterForm) are public for
# the reducers, which reason about one attribute's constraints the same way.

Subscription = Filter | Predicate
#: What covering and overlap relate: subscriptions and advertisements.
Coverable = Filter | Predicate | Advertisement


def _filters(x: Subscription) -> tuple[Filter, ...]:
    return x.filters if isinstance(x, Predicate) else (x,)


def _check_coverable(x: object) -> None:
    if not isinstance(x, (Filter, Predicate, Advertisement)):
        raise TypeError(f"expected a Filter, Predicate or Advertisement, not {type(x).__name__}")


# ------------------------------------------------------------ filter vs or
def filter_counterexample_against(f: Filter, ps: tuple[Filter, ...]) -> Message | None:
    """A message matched by f and by no filter of ps, or None (ps covers f)."""
    ff = rules.form_of(f)
    if not ff.satisfiable:
        return None
    relevant = []
    for p in ps:
        if filter_covers(p, f):
            return None
        # A filter disjoint from f cannot help cover it.
        if rules.filters_overlap(p, f):
            relevant.append(p)
    candidate = ff.witness()
    assert candidate is not None, f  # f is satisfiable
    if not any(matches(p, candidate) for p in relevant):
        return candidate
    if len(relevant) == 1:
        return rules.filter_counterexample(relevant[0], f)
    from cbalgebra.covering import solver  # imports z3 (slow): only for the questions that reach it

    return solver.covering_counterexample(f, relevant)


def constraint_covers_filter(c: Constraint, f: Filter) -> bool:
    """Whether every message matched by the filter f satisfies the constraint c.

    The step filter covering is made of: g covers f iff each constraint of g
    covers f. A caller testing many filters g against one f (the poset's
    insert) can remember the answer per constraint, since such filters share
    most of their constraints."""
    form = rules.form_of(f)
    if not form.satisfiable:
        return True
    attribute = form.forms.get(c.name)
    return attribute is not None and attribute.implies(c)


def predicate_covers_filter(p: Predicate | Filter, f: Filter) -> bool:
    """Whether the disjunction p covers the filter f (exact)."""
    return filter_counterexample_against(f, _filters(p)) is None


# ---------------------------------------------------------- advertisements
def _alternatives(a: Advertisement, c: Constraint) -> tuple[Filter, ...]:
    """a's constraints that can accept an attribute named like c, as filters."""
    return tuple(
        rules.single(d) for d in a.constraints
        if d.name == c.name and (d.type == c.type or ANYTYPE in (d.type, c.type))
    )


def _advertisement_counterexample(a1: Advertisement, a2: Advertisement) -> Message | None:
    for c in a2.constraints:
        message = filter_counterexample_against(rules.single(c), _alternatives(a1, c))
        if message is not None:
            return message
    return None


def _advertisement_witness(a: Advertisement, x: Advertisement | Subscription) -> Message | None:
    if isinstance(x, Advertisement):
        for c in a.constraints:
            for d in _alternatives(x, c):
                m = rules.filter_witness(rules.conjoin(rules.single(c), d))
                if m is not None:
                    return m
        return None
    for f in _filters(x):
        m = _advertisement_filter_witness(a, f)
        if m is not None:
            return m
    return None


def _advertisement_filter_witness(a: Advertisement, f: Filter) -> Message | None:
    """A non-empty message matched by f and covered by a."""
    ff = rules.form_of(f)
    if not ff.satisfiable:
        return None
    if not f.constraints:
        for c in a.constraints:
            m = rules.filter_witness(rules.single(c))
            if m is not None:
                return m
        return None
    attrs = {}
    for name, cs in f.by_name.items():
        found = None
        for d in a.constraints:
            if d.name != name:
                continue
            m = rules.filter_witness(Filter((*cs, d)))
            if m is not None:
                found = m[name]
                break
        if found is None:
            return None
        attrs[name] = found
    return Message(attrs)


# ------------------------------------------------------------- public API
def counterexample(x: Coverable, y: Coverable) -> Message | None:
    """A message matched by y and not by x, or None when x covers y."""
    _check_coverable(x)
    _check_coverable(y)
    if isinstance(x, Advertisement) and isinstance(y, Advertisement):
        m = _advertisement_counterexample(x, y)
    elif isinstance(x, Advertisement) or isinstance(y, Advertisement):
        raise TypeError("covering relates two subscriptions or two advertisements; "
                        "use overlaps() between an advertisement and a subscription")
    else:
        px = _filters(x)
        m = None
        for q in _filters(y):
            m = filter_counterexample_against(q, px)
            if m is not None:
                break
    if m is not None and not (matches(y, m) and not matches(x, m)):  # pragma: no cover
        raise AssertionError(f"internal error: {m} is not a counterexample")
    return m


def covers(x: Coverable, y: Coverable) -> bool:
    """Whether x covers y: every message matched by y is matched by x."""
    if isinstance(x, Filter) and isinstance(y, Filter):
        return filter_covers(x, y)
    return counterexample(x, y) is None


def equivalent(x: Coverable, y: Coverable) -> bool:
    """Whether x and y match the same messages."""
    return covers(x, y) and covers(y, x)


def witness(x: Coverable, y: Coverable) -> Message | None:
    """A message matched by both x and y, or None when they do not overlap.

    With an advertisement involved, the message is non-empty (see above).
    """
    _check_coverable(x)
    _check_coverable(y)
    if isinstance(x, Advertisement):
        m = _advertisement_witness(x, y)
    elif isinstance(y, Advertisement):
        m = _advertisement_witness(y, x)
    else:
        m = None
        for f in _filters(x):
            for g in _filters(y):
                m = rules.filter_witness(rules.conjoin(f, g))
                if m is not None:
                    break
            if m is not None:
                break
    if m is not None and not (matches(x, m) and matches(y, m)):  # pragma: no cover
        raise AssertionError(f"internal error: {m} is not a common message")
    return m


def overlaps(x: Coverable, y: Coverable) -> bool:
    """Whether some message is matched by both x and y."""
    return witness(x, y) is not None


def satisfiable(x: Subscription) -> bool:
    """Whether some message matches x."""
    if isinstance(x, Filter):
        return filter_satisfiable(x)
    if isinstance(x, Predicate):
        return any(filter_satisfiable(f) for f in x.filters)
    raise TypeError(f"satisfiable expects a Filter or Predicate, not {type(x).__name__}")


def oracle_covers(x: Subscription, y: Subscription, timeout_ms: int = 5_000) -> bool:
    """Covering decided by the independent pure-z3 encoding (for tests).

    Raises UndecidedError when z3's string theory gives up."""
    from cbalgebra.covering.oracle import oracle_covers as _oracle  # imports z3 (slow): tests only

    return _oracle(x, y, timeout_ms=timeout_ms)
