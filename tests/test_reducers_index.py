"""The covering index finds exactly what all pairs find."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import strategies as S
from cbalgebra.covering.rules import filter_covers
from cbalgebra.reducers import rules as R
from cbalgebra.reducers.driver import canonical
from cbalgebra.values import ANY, ANYTYPE, BOOL, FLOAT, INT, STRING, Constraint, Filter, Predicate

# Names with a home type, values that relate (prefixes, bounds, edges).
_names = st.sampled_from(["x", "y", "z", "w"])
_HOME = {"x": INT, "y": STRING, "z": FLOAT, "w": BOOL}
_STRINGS = S.DENSE_STRINGS + ["\U0010ffff", "\U0010ffffa", "abd", "b"]


@st.composite
def constraints(draw) -> Constraint:
    name = draw(_names)
    roll = draw(st.integers(0, 29))
    if roll == 0:
        return Constraint(ANYTYPE, name, ANY)
    type_ = draw(st.sampled_from([INT, STRING, FLOAT, BOOL])) if roll == 1 else _HOME[name]
    from cbalgebra.values import OPERATORS_OF_TYPE

    op = draw(st.sampled_from(sorted(OPERATORS_OF_TYPE[type_])))
    if op == ANY:
        return Constraint(type_, name, ANY)
    values = {STRING: st.sampled_from(_STRINGS), INT: S.dense_ints, FLOAT: S.dense_floats,
              BOOL: st.booleans()}[type_]
    return Constraint(type_, name, op, draw(values))


filters = st.lists(constraints(), min_size=0, max_size=3).map(Filter)
# Many one-constraint conjunctions, so the single-constraint groups fill up.
many = st.lists(st.one_of(constraints().map(lambda c: Filter([c])), filters), max_size=14).map(Predicate)


def _naive(filters, covers):
    keys = [(f.size, f.sort_key) for f in filters]
    out = []
    for i, f in enumerate(filters):
        dropped = any(
            j != i and covers(g, f) and (not covers(f, g) or keys[j] < keys[i])
            for j, g in enumerate(filters)
        )
        if not dropped:
            out.append(f)
    return tuple(out)


@settings(max_examples=400)
@given(many)
def test_pairwise_index_matches_all_pairs(p):
    filters = canonical(p.filters)
    got, _ = R.drop_covered_pairwise(filters)
    assert got == _naive(filters, R._siena_covers)


@settings(max_examples=400)
@given(many)
def test_exact_index_matches_all_pairs(p):
    # drop_covered expects satisfiable conjunctions (the exact reducer drops
    # the others first); the naive side sees the same input.
    from cbalgebra.covering import satisfiable

    filters = canonical([f for f in p.filters if satisfiable(f)])
    got, _ = R.drop_covered(filters)
    assert got == _naive(filters, filter_covers)
