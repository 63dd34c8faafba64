"""The exact ``minimal`` reducer (issue 26): the issue's examples, equivalence
(the rules layer and the pure z3 oracle), a brute force over the vocabulary,
never larger than ``cover`` nor than the old sympy path, the certificate and
the budget."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cbalgebra as cb
import strategies as S
from cbalgebra.covering import UndecidedError, oracle_covers
from cbalgebra.reducers import DEFAULT_BUDGET, GroupResult, Minimized, minimize, reduce
from cbalgebra.reducers.minimal import atoms_of, components
from cbalgebra.semantics import matches
from cbalgebra.values import ANY, ANYTYPE, BOOL, EQ, FLOAT, GE, GT, INT, LE, LT, NE, STRING
from cbalgebra.values import Constraint, Filter, Predicate
from oracles import attribute_domain, messages_for
from sympy_skeleton import MAX_ATOMS, minimize_component

P = cb.parse_predicate

# The issue's three examples: (input, cover's size, the optimum, one optimal form).
ISSUE_EXAMPLES = [
    ("[int s > 1, int y < 1] || [int s > 4, int s >= 2] || [int s >= 2, int y >= 1]", 5, 3,
     "[int s > 1, int y any] || [int s > 4]"),
    ('[string x = "a", int z = 3] || [string x = "a", int z < 2] || [string x != "a", int z < 2]', 5, 4,
     '[string x = "a", int z = 3] || [string x any, int z < 2]'),
    ('[string s != "ba", string s < "ba", string s >* "ab"] || [string s != "ba", string s <= "ba"]', 2, 1,
     '[string s < "ba"]'),
]


def assert_z3_equivalent(p: Predicate, q: Predicate) -> None:
    """Equivalence by the rules layer, and by the independent pure-z3 encoding
    where z3's string theory decides it."""
    assert cb.equivalent(p, q), (str(p), str(q))
    with contextlib.suppress(UndecidedError):  # z3 gave up on strings: the rules-layer check above stands
        assert oracle_covers(p, q, timeout_ms=20_000) and oracle_covers(q, p, timeout_ms=20_000), (str(p), str(q))


@pytest.mark.parametrize(("text", "cover_size", "optimum", "form"), ISSUE_EXAMPLES)
def test_issue_examples_reach_the_optimum(text, cover_size, optimum, form):
    p = P(text)
    assert reduce(p, "cover").size == cover_size
    m = minimize(p, budget=None)
    assert (m.size, m.lower_bound, m.proven, m.gap) == (optimum, optimum, True, 0.0)
    assert m.predicate.size == optimum == P(form).size
    assert reduce(p, "minimal") == m.predicate
    assert_z3_equivalent(p, m.predicate)
    assert_z3_equivalent(p, P(form))  # the issue's optimal form is one of the same size


def test_certificate_and_explain():
    text = ISSUE_EXAMPLES[0][0] + ' || [string t = "a", string u = "b"]'
    explained = reduce(P(text), "minimal", explain=True)
    result, steps = explained  # unpacks as before
    m = explained.minimality
    assert isinstance(m, Minimized) and m.predicate == result and m.proven and m.size == 5
    assert [g.names for g in m.groups] == [("s", "y"), ("t", "u")]
    assert all(isinstance(g, GroupResult) and g.proven and g.lower_bound == g.size for g in m.groups)
    assert [s.rule for s in steps if s.rule == "minimize"] == ["minimize"]
    assert reduce(P(text), "cover", explain=True).minimality is None
    assert DEFAULT_BUDGET > 0


# ------------------------------------------------------------ brute force
def vocabulary(p: Predicate) -> list[Constraint]:
    """Issue 26's vocabulary, written out independently of reducers/cells.py."""
    complement = {EQ: NE, NE: EQ, LT: GE, GE: LT, GT: LE, LE: GT}
    out = set(atoms_of(p.filters))
    for c in list(out):
        if c.type != ANYTYPE and c.op in complement:
            out.add(Constraint(c.type, c.name, complement[c.op], c.value))
    for name in {c.name for c in out}:
        types = {c.type for c in out if c.name == name}
        out.update(Constraint(t, name, ANY) for t in types if t != ANYTYPE)
        if ANYTYPE in types or len(types) >= 2:
            out.add(Constraint(ANYTYPE, name, ANY))
    return sorted(out)


def brute_optimum(p: Predicate, limit: int) -> tuple[int, Predicate | None]:
    """The smallest total size of conjunctions of vocabulary atoms that match
    the same messages as ``p`` among ``oracles.messages_for``'s
    representatives (complete for ints, floats and bools), searched up to
    ``limit``; and one such predicate (None when none is smaller than limit)."""
    atoms = vocabulary(p)
    messages = list(messages_for(p, *atoms))
    on = [i for i, m in enumerate(messages) if matches(p, m)]
    truth = [sum(1 << i for i, m in enumerate(messages) if matches(Filter([a]), m)) for a in atoms]
    everything = (1 << len(messages)) - 1
    on_mask = sum(1 << i for i in on)
    implicants: list[tuple[int, tuple[int, ...]]] = []
    for k in range(limit):
        for combo in itertools.combinations(range(len(atoms)), k):
            m = everything
            for i in combo:
                m &= truth[i]
            if m and not m & ~on_mask and not any(set(c) <= set(combo) for _, c in implicants):
                implicants.append((m, combo))
    best: list = [limit, None]

    def search(covered: int, cost: int, chosen: list) -> None:
        if cost >= best[0]:
            return
        if covered == on_mask:
            best[0], best[1] = cost, list(chosen)
            return
        first = (on_mask & ~covered) & -(on_mask & ~covered)
        for m, combo in implicants:
            if m & first:
                search(covered | m, cost + len(combo), [*chosen, combo])

    if not on_mask:
        return 0, Predicate()
    search(0, 0, [])
    if best[1] is None:
        return limit, None
    return best[0], Predicate(Filter(atoms[i] for i in combo) for combo in best[1])


def few_messages(p: Predicate, most: int = 20_000) -> bool:
    """Whether the brute force's representative messages stay few."""
    cs = vocabulary(p)
    return math.prod(len(attribute_domain([c for c in cs if c.name == n])) for n in {c.name for c in cs}) <= most


def small_predicates(types, names=S.dense_names) -> st.SearchStrategy:
    return (S.dense_predicates(types=types, max_filters=3, max_size=3, name_strategy=names)
            .filter(lambda p: 0 < len(atoms_of(p.filters)) <= 6 and few_messages(p)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(small_predicates((INT, FLOAT, BOOL)))
def test_numbers_and_bools_match_a_brute_force(p):
    m = minimize(p, budget=None)
    assert m.proven
    size, found = brute_optimum(p, m.size + 1)
    assert found is not None and cb.equivalent(p, found)  # the representatives are complete here
    assert m.size == size, (str(p), str(m.predicate), str(found))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(small_predicates((STRING, INT), st.sampled_from(["x", "y"])))
def test_strings_match_a_brute_force(p):
    m = minimize(p, budget=None)
    assert m.proven
    size, found = brute_optimum(p, m.size + 1)
    # The string representatives may miss a message: what the brute force
    # finds is no larger than the optimum, and where it is really
    # equivalent, it is an upper bound too.
    assert size <= m.size
    if found is not None and cb.equivalent(p, found):
        assert m.size == size, (str(p), str(m.predicate), str(found))


# ------------------------------------------------------- against the old path
def old_sympy_minimal(p: Predicate) -> Predicate:
    """The minimal reducer before issue 26: cover, then sympy SOPform per group, to a fixed point."""
    filters = reduce(p, "cover").filters
    while True:
        out: list[Filter] = []
        changed = False
        for comp in components(filters):
            new = minimize_component(comp) if len(comp) > 1 else None
            out.extend(new if new is not None else comp)
            changed |= new is not None
        if not changed:
            return Predicate(filters)
        filters = reduce(Predicate(out), "cover").filters


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(S.dense_predicates(max_filters=4, max_size=3))
def test_all_types_and_operators_equivalent_proven_never_larger(p):
    cover = reduce(p, "cover")
    m = minimize(p, budget=None)
    assert m.proven and m.gap == 0.0 and m.lower_bound == m.size == m.predicate.size
    assert m.size <= cover.size
    assert reduce(p, "minimal") == m.predicate
    assert reduce(m.predicate, "minimal") == m.predicate  # idempotent
    assert_z3_equivalent(p, m.predicate)
    if all(len(atoms_of(g)) <= MAX_ATOMS for g in components(cover.filters)):
        assert m.size <= old_sympy_minimal(p).size


POOL = [
    Constraint(INT, "x", LT, 5), Constraint(INT, "x", GE, 5), Constraint(INT, "x", NE, 7), Constraint(INT, "x", EQ, 3),
    Constraint(INT, "x", GT, 0), Constraint(INT, "x", ANY), Constraint(INT, "y", EQ, 1), Constraint(INT, "y", LT, 2),
    Constraint(STRING, "s", "<", "m"), Constraint(STRING, "s", ">*", "ab"), Constraint(STRING, "s", NE, "q"),
    Constraint(STRING, "s", GE, "m"), Constraint(BOOL, "b", EQ, True),
]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.sampled_from(POOL), min_size=1, max_size=4).map(Filter), min_size=2, max_size=5)
       .map(Predicate))
def test_pooled_predicates_never_larger_than_cover_or_sympy(p):
    cover = reduce(p, "cover")
    m = minimize(p, budget=None)
    assert m.proven and m.size <= cover.size
    assert_z3_equivalent(p, m.predicate)
    if all(len(atoms_of(g)) <= MAX_ATOMS for g in components(cover.filters)):
        assert m.size <= old_sympy_minimal(p).size


# ------------------------------------------------------------ the budget
def test_budget_exhausted_returns_cover_with_a_true_lower_bound():
    p = P(ISSUE_EXAMPLES[0][0])
    m = minimize(p, budget=1e-9)  # out of time before the first row
    assert not m.proven and m.size == reduce(p, "cover").size == 5
    assert 1 <= m.lower_bound <= ISSUE_EXAMPLES[0][2] and m.gap == (m.size - m.lower_bound) / m.size
    assert cb.equivalent(p, m.predicate)
    assert reduce(p, "minimal", budget=1e-9) == m.predicate
    explained = reduce(p, "minimal", budget=1e-9, explain=True)
    assert explained.minimality is not None and not explained.minimality.groups[0].proven


def test_budget_on_a_large_group_keeps_an_equivalent_result_no_larger_than_cover():
    preds = cb.workloads.dnf_predicates(60, 50, "uniform", 3)
    union = Predicate([f for q in preds for f in q.filters])
    cover = reduce(union, "cover")
    exact = minimize(union, budget=None)
    for budget in (1e-9, 0.05):
        m = minimize(union, budget=budget)
        assert m.size <= cover.size and m.lower_bound <= exact.size
        assert m.proven == (m.lower_bound == m.size)
        assert cb.equivalent(union, m.predicate)
    assert exact.proven and exact.size <= cover.size


def test_empty_and_true_predicates():
    assert minimize(Predicate(), budget=None) == Minimized(Predicate(), 0, 0, True, 0.0, ())
    m = minimize(P("[] || [x > 1]"), budget=None)
    assert m.predicate == P("[]") and m.proven and m.size == 0


def test_cli_budget_and_certificate(capsys, monkeypatch):
    from cbalgebra.reducers.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO(ISSUE_EXAMPLES[0][0] + "\n"))
    rc = main(["reduce", "-", "-r", "minimal", "--budget", "30"])
    out = capsys.readouterr().out
    assert rc == 0 and "size: 6 -> 3" in out and "minimal: proven smallest (lower bound 3)" in out
    monkeypatch.setattr("sys.stdin", io.StringIO(ISSUE_EXAMPLES[0][0] + "\n"))
    rc = main(["reduce", "-", "-r", "minimal", "--budget", "0", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["size_after"] == 5
    assert data["minimality"]["proven"] is False and 1 <= data["minimality"]["lower_bound"] <= 3
    monkeypatch.setattr("sys.stdin", io.StringIO("x > 1\n"))
    assert main(["reduce", "-", "--budget", "-1"]) == 2
    assert "budget" in capsys.readouterr().err
