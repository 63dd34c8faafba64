"""The covering index finds exactly what all pairs find."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import strategies as S
from cbalgebra.covering import UndecidedError, constraint_covers, predicate_covers_filter, satisfiable
from cbalgebra.covering.rules import filter_covers, filters_overlap
from cbalgebra.parse import parse_predicate
from cbalgebra.reducers import index
from cbalgebra.reducers import rules as R
from cbalgebra.reducers.attributes import constraint_implies, special
from cbalgebra.reducers.driver import canonical
from cbalgebra.reducers.index import _special
from cbalgebra.values import ANY, ANYTYPE, BOOL, FLOAT, INT, OPERATORS_OF_TYPE, STRING, Constraint, Filter, Predicate

# Names with a home type, values that relate (prefixes, bounds, edges).
_names = st.sampled_from(["x", "y", "z", "w"])
_HOME = {"x": INT, "y": STRING, "z": FLOAT, "w": BOOL}
_STRINGS = [*S.DENSE_STRINGS, "\U0010ffff", "\U0010ffffa", "abd", "b"]


@st.composite
def constraints(draw) -> Constraint:
    name = draw(_names)
    roll = draw(st.integers(0, 29))
    if roll == 0:
        return Constraint(ANYTYPE, name, ANY)
    type_ = draw(st.sampled_from([INT, STRING, FLOAT, BOOL])) if roll == 1 else _HOME[name]
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
    filters = canonical([f for f in p.filters if satisfiable(f)])
    got, _ = R.drop_covered(filters)
    assert got == _naive(filters, filter_covers)


# ------------------------------------------------- same-name-heavy buckets
# Every conjunction constrains the same names (one bucket), with one or two
# constraints per name, so the per-name index (sorted bounds, probed string
# values, membership across names) decides which pairs are ever tested.
# SCAN_BELOW = 0 puts even small buckets through the index.
@st.composite
def same_name_filters(draw) -> Filter:
    names = draw(st.sampled_from([("x",), ("x", "y"), ("x", "y", "z")]))
    cs = []
    for name in names:
        for _ in range(draw(st.integers(1, 2))):
            c = draw(constraints())
            cs.append(Constraint(c.type, name, c.op, c.value))
    return Filter(cs)


@st.composite
def same_name_predicates(draw) -> Predicate:
    base = draw(st.lists(same_name_filters(), min_size=1, max_size=24))
    # Widen the one shape that dominates: same names everywhere.
    shape = draw(st.sampled_from(sorted({f.names for f in base}, key=sorted)))
    return Predicate([f for f in base if f.names == shape] or base)


class _indexed_everywhere:
    def __enter__(self):
        self.saved = index.SCAN_BELOW, index._PAIR_ABOVE
        index.SCAN_BELOW = index._PAIR_ABOVE = 0

    def __exit__(self, *exc):
        index.SCAN_BELOW, index._PAIR_ABOVE = self.saved


@settings(max_examples=400)
@given(st.one_of(same_name_predicates(), many))
def test_pairwise_per_name_index_matches_all_pairs(p):
    filters = canonical(p.filters)
    with _indexed_everywhere():
        got, _ = R.drop_covered_pairwise(filters)
    assert got == _naive(filters, R._siena_covers)


@settings(max_examples=400)
@given(st.one_of(same_name_predicates(), many))
def test_exact_per_name_index_matches_all_pairs(p):
    filters = canonical([f for f in p.filters if satisfiable(f)])
    with _indexed_everywhere():
        got, _ = R.drop_covered(filters)
    assert got == _naive(filters, filter_covers)


@settings(max_examples=200)
@given(same_name_predicates())
def test_exact_index_with_unsatisfiable_members(p):
    # Unsatisfiable conjunctions are covered by everything: the per-name
    # narrowing must not hide their coverers.
    filters = canonical(p.filters)
    with _indexed_everywhere():
        got, _ = R.drop_covered(filters)
    assert got == _naive(filters, filter_covers)


def test_same_name_bounds_literal():
    # [x < r, s >* "XY"]: the weakest bound covers every other one; the
    # prefix-only coverer needs the string index too.
    text = (" || ".join(f'[int x < {r}, string s >* "XY"]' for r in (5, 50, 7, 500, 3))
            + ' || [string s >* "XYZ", int x < 1000]')
    filters = canonical(parse_predicate(text).filters)
    with _indexed_everywhere():
        got, _ = R.drop_covered_pairwise(filters)
    want = parse_predicate('[int x < 500, string s >* "XY"] || [int x < 1000, string s >* "XYZ"]')
    assert set(got) == set(want.filters) and len(got) == 2


_EDGE_INTS = st.sampled_from([-(2**63), -(2**63) + 1, -(2**63) + 2, -2, -1, 0, 1, 2, 3,
                              2**63 - 3, 2**63 - 2, 2**63 - 1])


@settings(max_examples=600)
@given(st.sampled_from(["=", "<", "<=", ">", ">=", "!="]), _EDGE_INTS,
       st.sampled_from(["=", "<", "<=", ">", ">=", "!="]), _EDGE_INTS,
       st.sampled_from([(INT, "x"), (INT, "y"), (FLOAT, "x")]))
def test_int_interval_implication_matches_covering(op1, v1, op2, v2, other):
    c = Constraint(INT, "x", op1, v1)
    type_, name = other
    d = Constraint(type_, name, op2, float(v2) if type_ == FLOAT else v2)
    assert constraint_implies(c, d) == constraint_covers(d, c)
    assert constraint_implies(d, c) == constraint_covers(c, d)


_PROBE_STRINGS = st.sampled_from([*S.DENSE_STRINGS, "", "abcab", "cab", "\U0010ffff", "a\U0010ffff", "bab"])


@settings(max_examples=1500)
@given(st.sampled_from(["=", "!=", "<", "<=", ">", ">=", ">*", "*<", "*", "any"]), _PROBE_STRINGS,
       st.sampled_from(["=", "!=", "<", "<=", ">", ">=", ">*", "*<", "*", "any"]), _PROBE_STRINGS,
       st.sampled_from([(STRING, "s"), (STRING, "t"), (ANYTYPE, "s"), (INT, "s")]))
def test_string_implication_matches_covering(op1, v1, op2, v2, other):
    """The str-operation fast path of constraint_implies against covering."""
    c = Constraint(STRING, "s", op1) if op1 == "any" else Constraint(STRING, "s", op1, v1)
    type_, name = other
    if type_ == STRING:
        d = Constraint(type_, name, op2) if op2 == "any" else Constraint(type_, name, op2, v2)
    elif type_ == ANYTYPE:
        d = Constraint(ANYTYPE, name, ANY)
    else:
        d = Constraint(INT, name, "=", len(v2))
    assert constraint_implies(c, d) == constraint_covers(d, c)
    assert constraint_implies(d, c) == constraint_covers(c, d)


_SPECIAL_INTS = st.sampled_from([-(2**63), -(2**63) + 1, -(2**63) + 2, -1, 0, 1, 2**63 - 2, 2**63 - 1])
_SPECIAL_STRINGS = st.sampled_from(["", "\x00", "\x00\x00", "\x01", "a", "\U0010ffff", "\U0010ffffa",
                                    "\U0010fffe", "\U0010ffff\U0010ffff"])


@settings(max_examples=500)
@given(st.sampled_from(["=", "!=", "<", "<=", ">", ">=", ">*", "*<", "*", "any"]), _SPECIAL_INTS, _SPECIAL_STRINGS,
       st.booleans())
def test_index_special_matches_attributes_special(op, i, s, as_int):
    """The index's direct decision of ``special`` against the witness-based one."""
    if as_int:
        if op in (">*", "*<", "*"):
            return
        c = Constraint(INT, "x", ANY) if op == "any" else Constraint(INT, "x", op, i)
    else:
        c = Constraint(STRING, "s", ANY) if op == "any" else Constraint(STRING, "s", op, s)
    assert _special(c) == special(c)


def _naive_drop_covered_by_disjunction(filters):
    """The rule with every other alive conjunction that overlaps, no pruning."""
    alive = [True] * len(filters)
    order = sorted(range(len(filters)), key=lambda i: (-filters[i].size, filters[i].sort_key))
    for i in order:
        f = filters[i]
        cands = [g for j, g in enumerate(filters)
                 if j != i and alive[j] and g.names <= f.names and filters_overlap(g, f)]
        if not cands:
            continue
        try:
            if predicate_covers_filter(Predicate(cands), f):
                alive[i] = False
        except UndecidedError:
            pass
    return tuple(f for i, f in enumerate(filters) if alive[i])


_ANTICHAIN_PREFIXES = st.sampled_from(["", "X", "XY", "XY1", "XY12", "XY2", "XY21", "Z"])


@st.composite
def antichain_like_predicates(draw) -> Predicate:
    """Same names, int bounds both ways and related string prefixes: many
    overlapping pairs, few covered ones (and some covered by two others)."""
    out = []
    for _ in range(draw(st.integers(1, 16))):
        cs = [Constraint(INT, "x", draw(st.sampled_from([">", ">=", "<", "=", "!="])), draw(st.integers(-3, 3)))]
        roll = draw(st.integers(0, 3))
        if roll:
            cs.append(Constraint(STRING, "s", ">*" if roll < 3 else "=", draw(_ANTICHAIN_PREFIXES)))
        if draw(st.booleans()):
            cs.append(Constraint(INT, "y", draw(st.sampled_from(["<", "<=", ">"])), draw(st.integers(-3, 3))))
        out.append(Filter(cs))
    return Predicate(out)


@settings(max_examples=300, deadline=None)
@given(st.one_of(antichain_like_predicates(), same_name_predicates(), many))
def test_disjunction_rule_pruning_matches_the_unpruned_rule(p):
    """Overlap candidates from the per-name index and the corner-message
    test skip only solver calls that would say "not covered"."""
    filters = canonical(p.filters)
    with _indexed_everywhere():
        got, _ = R.drop_covered_by_disjunction(filters)
    assert got == _naive_drop_covered_by_disjunction(filters)
    got_default, _ = R.drop_covered_by_disjunction(filters)
    assert got_default == got


def test_disjunction_rule_on_antichains_and_a_real_cover():
    # x > i with a distinct prefix each: an antichain, nothing dropped.
    anti = canonical([Filter([Constraint(INT, "x", ">", i), Constraint(STRING, "s", ">*", f"XY{i}.")])
                      for i in range(40)])
    with _indexed_everywhere():
        got, _ = R.drop_covered_by_disjunction(anti)
    assert got == anti
    # [x > i, y < i]: every pair overlaps, none covers, no two cover a third.
    cross = canonical([Filter([Constraint(INT, "x", ">", i), Constraint(INT, "y", "<", i)]) for i in range(40)])
    with _indexed_everywhere():
        got, _ = R.drop_covered_by_disjunction(cross)
    assert got == cross
    # Covered by the two others together, by neither alone.
    three = canonical([Filter([Constraint(INT, "x", ">", 0), Constraint(STRING, "s", ">*", "XY")]),
                       Filter([Constraint(INT, "x", ">", 0), Constraint(INT, "x", "<", 10),
                               Constraint(STRING, "s", ">*", "X")]),
                       Filter([Constraint(INT, "x", ">", 5), Constraint(STRING, "s", ">*", "X")])])
    with _indexed_everywhere():
        got, _ = R.drop_covered_by_disjunction(three)
    assert set(got) == set(three) - {Filter([Constraint(INT, "x", ">", 0), Constraint(STRING, "s", ">*", "XY")])}
    assert _naive_drop_covered_by_disjunction(three) == got


@settings(max_examples=300, deadline=None)
@given(antichain_like_predicates())
def test_two_bound_buckets_match_all_pairs(p):
    """The corner-message look-up of two-bound buckets ([x > aᵢ, y < bᵢ])
    never hides a coverer, exact or pairwise."""
    filters = canonical([f for f in p.filters if satisfiable(f)])
    with _indexed_everywhere():
        got, _ = R.drop_covered(filters)
        got_pairwise, _ = R.drop_covered_pairwise(filters)
    assert got == _naive(filters, filter_covers)
    assert got_pairwise == _naive(filters, R._siena_covers)
