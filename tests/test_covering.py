"""Covering, overlap and their witnesses: literal cases, and every layer
cross-checked against independent oracles on generated cases."""

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import brute_covers, brute_overlaps, brute_satisfiable
from strategies import (
    dense_advertisements,
    dense_filters,
    dense_predicates,
)

import cbalgebra as cb
from cbalgebra.covering import (
    UndecidedError,
    constraint_covers,
    filter_covers,
    oracle_covers,
    predicate_covers_filter,
    rules,
    solver,
)
from cbalgebra.values import BOOL, FLOAT, INT, STRING, Filter

F, P, A, M = cb.parse_filter, cb.parse_predicate, cb.parse_advertisement, cb.parse_message
NUMERIC = (INT, FLOAT, BOOL)


def check_counterexample(x, y):
    """Whatever counterexample() returns is matched by y and not by x."""
    m = cb.counterexample(x, y)
    if m is not None:
        assert cb.matches(y, m) and not cb.matches(x, m), (x, y, m)
    return m


# ------------------------------------------------------------ literal cases
@pytest.mark.parametrize(
    "x, y, expected",
    [
        ("int x = 2", "int x > 1 && int x < 3", True),
        ("int x > 1 && int x < 3", "int x = 2", True),
        ("int x > 5", "int x > 3, int x < 1", True),             # unsatisfiable y: covered by all
        ("string s = \"q\"", "int x = 1, string x = \"a\"", True),  # one attribute per name
        ("[int x > 5] || [int x < 10]", "int x > 0", True),
        ('string s <= "bz"', 'string s >* "b"', False),             # "bzz" > "bz"
        ('string s != "x"', 'string s >* "y"', True),
        ("int x = 9223372036854775807", "int x > 9223372036854775806", True),
        ("int x > 9223372036854775806", "int x = 9223372036854775807", True),
        ("int x != 3", "int x > 2, int x < 4", False),
        ("int x != 3", "int x > 2, int x < 4, int x != 3", True),
        ("int x any", "int x > 2", True),
        ("int x any", "float x > 2.0", False),
        ("any x any", "float x > 2.0", True),
        ("int x > 2", "any x any", False),
        ("float f > 0.0", "float f >= 5e-324", True),              # the smallest double above zero
        ("float f != 0.0", "float f > -5e-324, float f < 5e-324", False),
        ("bool b != true", "bool b = false", True),
        ("[bool b = true] || [bool b = false]", "bool b any", True),
        ('[string s < "m"] || [string s >= "m"]', "string s any", True),
        ('[string s >* "a"] || [string s = "a"]', 'string s >* "a"', True),
        ('[string s >* "ab"] || [string s < "b"]', 'string s >* "a"', True),
        ('string s * "b"', 'string s >* "ab"', True),
        ('string s *< "b"', 'string s * "b"', False),
        ("[]", "int x = 1", True),
        ("int x = 1", "[]", False),
        ("false", "int x < -9223372036854775808", True),
        ("int x = 1", "false", True),
        ("false", "[]", False),
    ],
)
def test_literal_covering(x, y, expected):
    px, py = P(x), P(y)
    assert cb.covers(px, py) is expected
    m = check_counterexample(px, py)
    assert (m is None) is expected


def test_counterexample_is_printed_as_a_message():
    m = cb.counterexample(F('string s <= "bz"'), F('string s >* "b"'))
    assert isinstance(m, cb.Message) and m["s"].value.startswith("b") and m["s"].value > "bz"


def test_mixed_filter_and_predicate():
    assert cb.covers(F("int x > 0"), P("[int x > 5] || [int x = 1]"))
    assert not cb.covers(F("int x > 0"), P("[int x > 5] || [int x = 0]"))
    assert cb.covers(P("[int x > 5] || [int x < 10]"), F("int x > 0"))
    assert predicate_covers_filter(P("[int x > 5] || [int x < 10]"), F("int x > 0"))
    assert cb.equivalent(P("[int x > 1, int x < 3]"), F("int x = 2"))


def test_overlap_and_witness():
    assert cb.overlaps(F("int x > 1"), F("int x < 3"))
    assert cb.witness(F("int x > 1"), F("int x < 3")) == M("[int x = 2]")
    assert not cb.overlaps(F("int x > 1"), F("int x < 2"))
    assert not cb.overlaps(F("int x > 1"), F("string x = \"a\""))
    assert cb.overlaps(P("[int x > 5] || [string s = \"a\"]"), F('string s >* "a"'))


# ---------------------------------------------------------- advertisements
AD = A('string what = "alarm", string what = "login", string user any')


def test_advertisement_covering():
    smaller = A('string what = "alarm", string user >* "i"')
    assert cb.covers(AD, smaller)
    m = check_counterexample(smaller, AD)
    assert m is not None and len(m) == 1
    assert cb.covers(A("int x > 0, int x < 10"), A("int x > 5"))
    assert cb.covers(A("[int x > 5, int x < 10]"), A("int x > 0")) is True
    assert not cb.covers(A("int x > 5"), A("int x > 0"))
    assert cb.covers(A("any x any"), A("string x = \"a\", int x > 1"))


def test_advertisement_overlap_with_subscriptions():
    assert cb.overlaps(AD, F('string what = "alarm"'))
    assert not cb.overlaps(AD, F("int level > 3"))               # level is never published
    assert not cb.overlaps(AD, F('string what = "logout"'))
    w = cb.witness(AD, P('[string what >* "lo", string user = "ingmar"] || [int level > 3]'))
    assert w == M('[string what = "login", string user = "ingmar"]')
    assert cb.overlaps(AD, A('string what >* "al"'))
    assert not cb.overlaps(AD, A('string what >* "x"'))
    assert cb.overlaps(AD, F("[]"))                               # a non-empty message exists
    assert not cb.overlaps(A("[]"), F("[]"))


def test_covering_between_kinds_is_refused():
    with pytest.raises(TypeError):
        cb.covers(AD, F("int x > 1"))


# -------------------------------------------------- rules layer against z3
ORACLE_CALLS = {"asked": 0, "unknown": 0}


def _oracle(x, y):
    """The pure-z3 answer, or None when z3's string theory gives up."""
    ORACLE_CALLS["asked"] += 1
    try:
        return oracle_covers(x, y, timeout_ms=3000)
    except UndecidedError:
        ORACLE_CALLS["unknown"] += 1
        return None


@settings(max_examples=2500)
@given(dense_filters(), dense_filters())
def test_rules_layer_agrees_with_z3_layer(f, g):
    """Rules (intervals, operator table, automaton) against the z3 layer."""
    by_rules = filter_covers(f, g)
    m = solver.covering_counterexample(g, [f])
    assert by_rules == (m is None), (f, g, m)
    if m is not None:
        assert cb.matches(g, m) and not cb.matches(f, m)


@settings(max_examples=2000)
@given(dense_filters(), dense_filters())
def test_rules_layer_agrees_with_pure_z3_oracle(f, g):
    """Rules against z3's own string and floating-point theories."""
    expected = _oracle(f, g)
    if expected is not None:
        assert filter_covers(f, g) == expected, (f, g)


@settings(max_examples=500)
@given(dense_predicates(), dense_predicates())
def test_predicate_covering_agrees_with_pure_z3_oracle(p, q):
    expected = _oracle(p, q)
    if expected is not None:
        assert cb.covers(p, q) == expected, (p, q)
        assert (check_counterexample(p, q) is None) == expected


def test_oracle_rarely_gives_up():
    """Runs after the oracle tests (file order): the cross-check is real."""
    if ORACLE_CALLS["asked"] >= 100:
        assert ORACLE_CALLS["unknown"] <= 0.05 * ORACLE_CALLS["asked"], ORACLE_CALLS


# ---------------------------------------------- brute force over small domains
@settings(max_examples=800)
@given(dense_filters(NUMERIC), dense_filters(NUMERIC))
def test_filter_covering_against_brute_force_on_numbers(f, g):
    expected = brute_covers(f, g)
    assert filter_covers(f, g) == expected
    assert (solver.covering_counterexample(g, [f]) is None) == expected
    assert (check_counterexample(f, g) is None) == expected


@settings(max_examples=400)
@given(dense_predicates(NUMERIC), dense_predicates(NUMERIC))
def test_predicate_covering_against_brute_force_on_numbers(p, q):
    assert cb.covers(p, q) == brute_covers(p, q)
    check_counterexample(p, q)


@settings(max_examples=300)
@given(dense_predicates((STRING,), max_filters=3, max_size=2, name_strategy=st.just("y")),
       dense_filters((STRING,), max_size=2, name_strategy=st.just("y")))
def test_string_covering_against_brute_force(p, f):
    expected = brute_covers(p, f)
    assert cb.covers(p, f) == expected, (p, f)
    if len(p) == 1:
        assert filter_covers(p.filters[0], f) == expected
    if p.filters:
        assert (solver.covering_counterexample(f, list(p)) is None) == expected


def _strings_within_the_oracles_reach(*filters) -> bool:
    """tests/oracles.py enumerates short strings plus joins of two constants,
    which holds a shortest witness only while a name has at most two positive
    string pattern atoms (``[] vs [y >* "aa", y * "ba", y * "bz"]`` needs
    "aababz"). Wider cases are the string automaton's own brute-force test."""
    patterns: dict[str, int] = {}
    for f in filters:
        for c in f:
            if c.type == STRING and c.op in ("=", ">*", "*<", "*"):
                patterns[c.name] = patterns.get(c.name, 0) + 1
    return all(count <= 2 for count in patterns.values())


@settings(max_examples=500)
@given(dense_filters(), dense_filters((*NUMERIC, STRING)))
def test_overlap_against_brute_force(f, g):
    names = {c.name for c in f} | {c.name for c in g}
    if len(names) > 2 or not _strings_within_the_oracles_reach(f, g):
        return
    expected = brute_overlaps(f, g)
    assert cb.overlaps(f, g) == expected
    w = cb.witness(f, g)
    assert (w is not None) == expected
    if w is not None:
        assert cb.matches(f, w) and cb.matches(g, w)


@settings(max_examples=500)
@given(dense_filters())
def test_satisfiability_against_brute_force(f):
    if len({c.name for c in f}) > 2 or not _strings_within_the_oracles_reach(f):
        return
    assert cb.satisfiable(f) == brute_satisfiable(f)
    w = rules.filter_witness(f)
    assert (w is not None) == cb.satisfiable(f)
    if w is not None:
        assert cb.matches(f, w)


@settings(max_examples=400)
@given(dense_advertisements(NUMERIC), dense_advertisements(NUMERIC))
def test_advertisement_covering_against_brute_force(a1, a2):
    expected = brute_covers(a1, a2)
    assert cb.covers(a1, a2) == expected
    m = check_counterexample(a1, a2)
    assert (m is None) == expected


@settings(max_examples=400)
@given(dense_advertisements(NUMERIC), st.one_of(dense_filters(NUMERIC), dense_advertisements(NUMERIC)))
def test_advertisement_overlap_against_brute_force(a, x):
    if len({c.name for c in a} | {c.name for c in x}) > 2:
        return
    expected = brute_overlaps(a, x, nonempty=True)
    w = cb.witness(a, x)
    assert (w is not None) == expected == cb.overlaps(a, x)
    if w is not None:
        assert len(w) > 0 and cb.matches(a, w) and cb.matches(x, w)


@settings(max_examples=600)
@given(dense_filters(max_size=1), dense_filters(max_size=1))
def test_constraint_covers_matches_filter_covering(f, g):
    if len(f) == 1 and len(g) == 1:
        assert constraint_covers(f.constraints[0], g.constraints[0]) == filter_covers(f, g)


# --------------------------------------------------------- never guessing
def test_unknown_raises_undecided(monkeypatch):
    layer = solver.Z3Layer()
    monkeypatch.setattr(layer.solver, "check", lambda *a: z3.unknown)
    with pytest.raises(UndecidedError):
        layer.counterexample(F("int x > 0"), [F("int x > 5"), F("int x < 10")])


def test_timeout_raises_undecided():
    """A hard question with a 1 ms budget is undecided, not answered."""
    layer = solver.Z3Layer(timeout_ms=1)
    names = [f"v{i}" for i in range(40)]
    q = Filter(cb.parse_constraint(f"int {n} > {i}") for i, n in enumerate(names))
    ps = [Filter(cb.parse_constraint(f"int {n} < {i * 7 % 40}") for n in names[i:i + 5]) for i in range(40)]
    try:
        m = layer.counterexample(q, ps)
    except UndecidedError:
        return
    # A fast machine may finish within the budget; the answer must then be right.
    expected = solver.Z3Layer().counterexample(q, ps)
    assert (m is None) == (expected is None)
    if m is not None:
        assert cb.matches(q, m) and not any(cb.matches(p, m) for p in ps)


def test_solver_is_reused_with_push_and_pop():
    layer = solver.layer()
    before = len(layer.solver.assertions())
    cb.covers(P("[int x > 5] || [int x < 10]"), F("int x > 0"))
    assert len(layer.solver.assertions()) == before
    assert solver.layer() is layer


def test_string_refinement_learns_blocking_clauses():
    """z3 sees string atoms as free Bools; the automaton rules out their
    impossible combinations one blocking clause at a time."""
    layer = solver.Z3Layer()
    assert layer.counterexample(F('string s = "ab"'), [F('string s >* "a"')]) is None
    assert layer.refinements >= 1
    q = F('string s >* "a"')
    ps = [F('string s = "a"'), F('string s >* "ab"'), F('string s >* "aa"'), F('string s < "aa"')]
    m = layer.counterexample(q, ps)
    assert m is not None and cb.matches(q, m) and not any(cb.matches(p, m) for p in ps)


def test_overlap_beyond_the_brute_force_oracles_reach():
    """Three string patterns on one name need a witness of length 6, longer
    than the brute-force oracle enumerates; the witness is checked instead."""
    f, g = cb.parse_filter("[]"), cb.parse_filter('[y >* "aa", y * "ba", y * "bz"]')
    w = cb.witness(f, g)
    assert cb.overlaps(f, g) and w is not None
    assert cb.matches(f, w) and cb.matches(g, w)


def test_a_counterexample_with_a_character_between_two_patterns():
    """Regression for the brute-force oracle: "bzaa" ends with "aa", holds "b"
    and no "ba", so [y * "ba"] does not cover [y *< "aa", y * "b"]."""
    p, f = cb.parse_predicate('[y * "ba"]'), cb.parse_filter('[y *< "aa", y * "b"]')
    assert not cb.covers(p, f) and not brute_covers(p, f)
    check_counterexample(p, f)
