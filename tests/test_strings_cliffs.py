"""The two string cliffs: many substrings on one attribute, and many ``!=``.

``solve_string`` decides more than EXACT_SUBSTRING_LIMIT positive substring
atoms by an insertion construction, and merges ``!=`` atoms into one sorted
pass (intervals) or one trie (automaton). Both are checked against the
product automaton of one automaton per atom (``solve_string_automaton``),
which is itself checked against brute force and z3 in
test_strings_automaton.py, and against brute force directly on small
cases. Filters built from such atoms are checked at the public API
(``cb.satisfiable``, ``cb.covers``, ``cb.counterexample``) against the same
reference, and every witness or counterexample is checked with
``cb.matches``.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_strings_automaton import assert_witness, brute_shortest, enumeration_size

import cbalgebra as cb
from cbalgebra.covering import UndecidedError, oracle_covers
from cbalgebra.covering import strings as S
from cbalgebra.covering.strings import (
    EXACT_SUBSTRING_LIMIT,
    solve_string,
    solve_string_automaton,
    string_atom_holds,
)
from cbalgebra.values import Constraint, Filter

SUBSTRING_HEAVY_OPERATORS = ("*", "*", "*", ">*", "*<", "!=", "<", "<=", ">", ">=", "=")


@st.composite
def substring_heavy_atoms(draw, pool: str, min_positive: int, max_positive: int, max_others: int = 4):
    """Many positive substrings plus a few atoms of any kind, either polarity."""
    text = st.text(alphabet=pool, min_size=1, max_size=3)
    atoms = [("*", draw(text), True) for _ in range(draw(st.integers(min_positive, max_positive)))]
    for _ in range(draw(st.integers(0, max_others))):
        op = draw(st.sampled_from(SUBSTRING_HEAVY_OPERATORS))
        atoms.append((op, draw(st.text(alphabet=pool, max_size=3)), draw(st.booleans())))
    return draw(st.permutations(atoms))


def canonical(atoms):
    return S._canonicalize(atoms)


# ---------------------------------------------------------------- atoms level
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["ab", "ab", "abc", "ab\x00"]).flatmap(
    lambda pool: substring_heavy_atoms(pool, EXACT_SUBSTRING_LIMIT + 1, EXACT_SUBSTRING_LIMIT + 3)))
def test_many_substrings_agree_with_the_product(atoms):
    witness = solve_string(atoms)
    assert_witness(atoms, witness)
    reference = solve_string_automaton(atoms)
    assert (witness is None) == (reference is None), (atoms, witness, reference)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["ab", "ab\x00", "abc"]).flatmap(lambda pool: substring_heavy_atoms(pool, 1, 4, 5)))
def test_insertion_agrees_with_the_product_for_any_number_of_substrings(atoms):
    """The construction is exact for every count, not only past the limit."""
    atoms = canonical(atoms)
    if atoms is None or S._directly_contradictory(atoms):
        return
    if any(op == "=" and positive for op, _, positive in atoms):
        return  # decided before either procedure, by checking the one candidate
    reduced = S._drop_implied_occurrences(atoms)
    reference = S._solve_automaton(atoms)[1]
    if reduced is None:
        assert reference is None, atoms
        return
    witness = S._solve_by_insertion(reduced)
    assert_witness(atoms, witness)
    assert (witness is None) == (reference is None), (atoms, witness, reference)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["ab", "ab\x00"]).flatmap(lambda pool: substring_heavy_atoms(pool, 1, 3, 3)))
def test_insertion_agrees_with_brute_force(atoms):
    atoms = canonical(atoms)
    if atoms is None or S._directly_contradictory(atoms) or enumeration_size(atoms) > 150_000:
        return
    if any(op == "=" and positive for op, _, positive in atoms):
        return
    reduced = S._drop_implied_occurrences(atoms)
    witness = None if reduced is None else S._solve_by_insertion(reduced)
    assert_witness(atoms, witness)
    assert (witness is None) == (brute_shortest(atoms) is None), (atoms, witness)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["ab", "ab\x00", "abc"]).flatmap(lambda pool: substring_heavy_atoms(pool, 1, 8, 5)))
def test_dropping_implied_occurrences_keeps_the_strings(atoms):
    atoms = canonical(atoms)
    if atoms is None:
        return
    reduced = S._drop_implied_occurrences(atoms)
    if reduced is None:
        assert solve_string_automaton(atoms) is None
        return
    assert len(reduced) <= len(atoms)
    alphabet = sorted({c for _, v, _ in atoms for c in v} | {"z"})
    for n in range(5):
        for chars in itertools.product(alphabet, repeat=n):
            s = "".join(chars)
            assert all(string_atom_holds(*a[:2], s) == a[2] for a in atoms) == \
                all(string_atom_holds(*a[:2], s) == a[2] for a in reduced), (atoms, reduced, s)


@st.composite
def exclusion_heavy_atoms(draw, pool: str):
    atoms = [("!=", draw(st.text(alphabet=pool, max_size=3)), True) for _ in range(draw(st.integers(1, 30)))]
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(("<", "<=", ">", ">=", ">*", "*<", "*", "=", "!=")))
        atoms.append((op, draw(st.text(alphabet=pool, max_size=3)), draw(st.booleans())))
    return draw(st.permutations(atoms))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["ab", "a\x00", "ab\x00"]).flatmap(exclusion_heavy_atoms))
def test_many_exclusions_agree_with_the_product(atoms):
    witness = solve_string(atoms)
    assert_witness(atoms, witness)
    reference = solve_string_automaton(atoms)
    assert (witness is None) == (reference is None), (atoms, witness, reference)
    if witness is not None:
        assert len(witness) == len(reference), (atoms, witness, reference)  # still shortest


def test_exhausted_finite_interval_is_empty():
    # Every string in [a, a\0\0\0] excluded, in scrambled order.
    members = ["a", "a\x00", "a\x00\x00", "a\x00\x00\x00"]
    atoms = [(">=", "a", True), ("<=", members[-1], True)] + [("!=", m, True) for m in reversed(members)]
    assert solve_string(atoms) is None
    assert solve_string(atoms[:-1]) == members[0]


# ----------------------------------------------------------- literal shapes
def letters(n: int) -> list[str]:
    """n distinct single characters (ASCII letters, then Greek)."""
    return [chr(ord("a") + i) if i < 26 else chr(0x3B1 + i - 26) for i in range(n)]


def substring_filter(patterns, *extra: Constraint) -> Filter:
    return Filter([Constraint("string", "s", "*", p) for p in patterns] + list(extra))


def c(op: str, value: str) -> Constraint:
    return Constraint("string", "s", op, value)


@pytest.mark.parametrize("n", [5, 20, 64])
def test_distinct_letters_are_satisfiable_and_cover_themselves(n):
    f = substring_filter(letters(n))
    assert cb.satisfiable(f)
    m = cb.witness(f, f)
    assert cb.matches(f, m)
    assert cb.covers(f, f)
    weaker = substring_filter(letters(n)[::2])
    assert cb.covers(weaker, f)
    m = cb.counterexample(f, weaker)
    assert m is not None and cb.matches(weaker, m) and not cb.matches(f, m)


@pytest.mark.parametrize(
    "extra, satisfiable",
    [
        ((c("<", "b"),), True),                       # a lead below "b", then the letters
        ((c(">*", "zz"), c("*<", "q")), True),
        ((c("=", "abc"),), False),                    # one candidate, missing most letters
        ((c(">*", "ab"), c("<=", "ab")), False),      # only "ab" itself
        ((c(">*", "ab"), c("<", "ab\x00\x00")), False),  # only "ab" and "ab\0"
        ((c("*", "c"), c("!=", "abcdefgh")), True),
    ],
)
def test_many_letters_with_bounding_constraints(extra, satisfiable):
    f = substring_filter(letters(8), *extra)
    assert cb.satisfiable(f) is satisfiable
    atoms = [(x.op, x.value, True) for x in f.constraints]
    assert (solve_string_automaton(atoms) is not None) is satisfiable
    if satisfiable:
        assert cb.matches(f, cb.witness(f, f))


def test_negated_substring_inside_a_required_one_is_unsatisfiable():
    f = substring_filter(["ab", "cd", "ef", "gh", "ij", "klm"])
    assert cb.satisfiable(f)
    g = Filter((*f.constraints, Constraint("string", "s", "*", "l")))
    assert cb.satisfiable(g)
    atoms = [(x.op, x.value, True) for x in f.constraints] + [("*", "l", False)]
    assert solve_string(atoms) is None and solve_string_automaton(atoms) is None


def test_overlapping_patterns():
    patterns = ["ab", "ba", "aba", "bab", "aab", "bba", "abb", "baa"]
    f = substring_filter(patterns)
    atoms = [("*", p, True) for p in patterns]
    w = solve_string(atoms)
    assert w is not None and all(p in w for p in patterns)
    assert cb.satisfiable(f) and cb.matches(f, cb.witness(f, f))
    assert solve_string([*atoms, ("*", "aa", False)]) is None  # "aab" needs "aa"
    # Every length-3 word over {a, b} but "aaa", and no "aaa": a de Bruijn-like witness.
    words = ["".join(t) for t in itertools.product("ab", repeat=3) if t != ("a", "a", "a")]
    w = solve_string([("*", x, True) for x in words] + [("*", "aaa", False)])
    assert w is not None and all(x in w for x in words) and "aaa" not in w


# ------------------------------------------------------------- != at scale
def exclusion_filter(values, *extra: Constraint) -> Filter:
    return Filter([Constraint("string", "s", "!=", v) for v in values] + list(extra))


def test_thousands_of_exclusions():
    values = [f"v{i:05d}" for i in range(3000)]
    f = exclusion_filter(values)
    assert cb.satisfiable(f) and cb.covers(f, f)
    subset = exclusion_filter(values[::3])
    assert cb.covers(subset, f) and not cb.covers(f, subset)
    m = cb.counterexample(f, subset)
    assert cb.matches(subset, m) and not cb.matches(f, m)
    assert m["s"].value in set(values) - set(values[::3])


def test_exclusions_that_fill_a_bounded_region():
    # >* "v" and < "w" leave infinitely many strings; = "v" plus exclusions leaves none.
    values = ["v"] + [f"v{i}" for i in range(500)]
    assert cb.satisfiable(exclusion_filter(values, c(">*", "v"), c("<", "w")))
    assert not cb.satisfiable(exclusion_filter(values, c("=", "v")))
    # [v, v\0\0] holds exactly three strings; exclude them all.
    three = ["v", "v\x00", "v\x00\x00"]
    assert not cb.satisfiable(exclusion_filter(three + values, c(">=", "v"), c("<=", "v\x00\x00")))


def test_exclusions_with_substrings_use_one_trie():
    values = [f"x{i}" for i in range(2000)]
    f = exclusion_filter(values, c("*", "x"), c("*", "1"), c(">*", "x1"))
    m = cb.witness(f, f)
    assert m is not None and cb.matches(f, m)
    g = exclusion_filter(values[:100], c("*", "x"))
    assert cb.covers(g, f)
    assert not cb.covers(f, g)
    m = cb.counterexample(f, g)
    assert cb.matches(g, m) and not cb.matches(f, m)


# ------------------------------------------------------ public API, generated
def as_filter(atoms) -> Filter:
    """A filter on one string attribute from positive atoms (negations folded in)."""
    flip = {"=": "!=", "!=": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
    cs = []
    for op, value, positive in atoms:
        if not positive:
            if op not in flip:
                continue  # a negated occurrence has no constraint of its own
            op = flip[op]
        cs.append(Constraint("string", "s", op, value))
    return Filter(cs)


def reference_covers(x: Filter, y: Filter) -> bool:
    """x covers y on one string attribute, decided by the per-atom product."""
    y_atoms = [(d.op, d.value, True) for d in y.constraints]
    if solve_string_automaton(y_atoms) is None:
        return True
    return all(solve_string_automaton([*y_atoms, (d.op, d.value, False)]) is None for d in x.constraints)


filter_pairs = st.sampled_from(["ab", "abc"]).flatmap(
    lambda pool: st.tuples(substring_heavy_atoms(pool, 0, 6, 3), substring_heavy_atoms(pool, 3, 7, 4)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(filter_pairs)
def test_covering_of_substring_heavy_filters_agrees_with_the_product(pair):
    x, y = as_filter(pair[0]), as_filter(pair[1])
    expected = reference_covers(x, y)
    assert cb.covers(x, y) is expected, (x, y)
    m = cb.counterexample(x, y)
    assert (m is None) is expected, (x, y, m)
    if m is not None:
        assert cb.matches(y, m) and not cb.matches(x, m)
    assert cb.satisfiable(y) is (solve_string_automaton([(d.op, d.value, True) for d in y.constraints]) is not None)


def test_covering_of_substring_heavy_filters_agrees_with_z3():
    """Against the pure-z3 oracle on a fixed sample (z3's string theory may give up)."""
    decided = 0

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(["ab", "abc"]).flatmap(
        lambda pool: st.tuples(substring_heavy_atoms(pool, 0, 3, 2), substring_heavy_atoms(pool, 5, 6, 2))))
    def check(pair):
        nonlocal decided
        x, y = as_filter(pair[0]), as_filter(pair[1])
        try:
            expected = oracle_covers(x, y, timeout_ms=2000)
        except UndecidedError:
            return
        decided += 1
        assert cb.covers(x, y) is expected, (x, y)

    check()
    assert decided >= 40, decided
