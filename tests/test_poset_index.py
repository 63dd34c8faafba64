"""The witness indexes of the filters poset (cbalgebra.poset.points).

Differential: the same insert/remove sequences go into a poset that always
takes its candidates from the witness indexes, one that never does (the
searches over the diagram alone), and the default; every result and the
final Hasse diagram must agree with each other and with an independent
reference, the transitive reduction (networkx) of covering decided by
``cb.covers`` for every ordered pair. The families are the shapes the
indexes are for (an antichain below one root, near-antichains), chains,
duplicates, equivalent spellings and unsatisfiable filters.
"""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.network.siena import Network
from cbalgebra.poset import Poset
from cbalgebra.poset.points import WitnessIndex
from cbalgebra.values import Constraint, Filter

F = cb.parse_filter
ALWAYS, NEVER = 1e9, 0.0


def reference_diagram(values: list) -> tuple[set[tuple[str, str]], set[str]]:
    """Edges and roots of the Hasse diagram of strict covering over ``values``:
    cb.covers for every ordered pair, then networkx's transitive reduction."""
    g = nx.DiGraph()
    g.add_nodes_from(range(len(values)))
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            if i != j and cb.covers(a, b):
                assert not cb.covers(b, a), f"equivalent values stored twice: {a}, {b}"
                g.add_edge(i, j)
    reduced = nx.transitive_reduction(g)
    edges = {(str(values[i]), str(values[j])) for i, j in reduced.edges}
    roots = {str(values[i]) for i in g.nodes if g.in_degree(i) == 0}
    return edges, roots


def diagram(p: Poset) -> tuple[set[tuple[str, str]], set[str]]:
    return {(str(a), str(b)) for a, b in p.edges()}, {str(r) for r in p.roots()}


def poset_with(share: float) -> Poset:
    p = Poset()
    p._witness_share = share
    return p


# ------------------------------------------------------------ the families
SUFFIXES = ("", "a", "b", "ab", "ba")


@st.composite
def family_filter(draw) -> Filter:
    family = draw(st.sampled_from(("root", "antichain", "near", "near-eq", "chain", "strings", "other")))
    i = draw(st.integers(0, 12))
    j = draw(st.integers(0, 12))
    if family == "root":
        return F(draw(st.sampled_from(("[int x any]", "[]", "[any x any]", "[string s any]", "[int x > 3]",
                                       "[int y any]", "[int x >= 0]"))))
    if family == "antichain":  # x = i below [x any]
        return Filter([Constraint("int", "x", "=", i)])
    if family == "near":  # [x > r, s >* "XY<r>"]: covering only where one r is a prefix of the other
        r = draw(st.integers(0, 150))
        return Filter([Constraint("int", "x", ">", r), Constraint("string", "s", ">*", f"XY{r}")])
    if family == "near-eq":  # [x = i, y > j]: chains of y bounds, one per constant of x
        return Filter([Constraint("int", "x", "=", i), Constraint("int", "y", draw(st.sampled_from((">", "<"))), j)])
    if family == "chain":
        return Filter([Constraint("int", "x", ">", i), Constraint("string", "s", ">*", "XY")])
    if family == "strings":
        op = draw(st.sampled_from(("=", ">*", "*<", "*", "!=", "<", ">=")))
        return Filter([Constraint("string", "s", op, "XY" + draw(st.sampled_from(SUFFIXES)))])
    return F(draw(st.sampled_from((
        "[int x > 2]", "[int x >= 3]", "[int x > 2, int x any]",  # one message set, three spellings
        "[int x = 3, int x >= 3]", "[float x = 3.0]", "[bool x = true]", "[int x = 3, int y = 4]",
        "[int x > 5, int x < 3]", '[string s = "a", string s = "b"]',  # unsatisfiable: the least element
        "[int x != 3]", '[string s >* "XY", string s *< "b"]', '[string s = "XYab", int x = 3]',
    ))))


operations = st.lists(
    st.tuples(st.sampled_from(("insert", "insert", "insert", "remove")), family_filter(),
              st.sampled_from(("u1", "u2", "u3", "u4", "u5", "u6"))),
    min_size=1, max_size=70,
)


def outcome(result) -> tuple:
    """What an insert or remove did, as values (comparable across posets)."""
    element = getattr(result, "element", None)
    return (getattr(result, "case", None), None if element is None else str(element.value),
            tuple(map(str, result.cancelled)), tuple(map(str, result.dropped)),
            tuple(str(e.value) for e in result.released))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_witness_indexes_change_nothing(ops):
    posets = [poset_with(ALWAYS), poset_with(NEVER), Poset()]
    for op, f, u in ops:
        results = [outcome(getattr(p, op)(f, u)) for p in posets]
        assert results[0] == results[1] == results[2], (op, str(f), u)
    for p in posets:
        p.check_invariants()
    values = list(posets[0])
    assert [str(v) for v in values] == [str(v) for v in posets[1]] == [str(v) for v in posets[2]]
    want = reference_diagram(values)
    assert diagram(posets[0]) == diagram(posets[1]) == diagram(posets[2]) == want


@pytest.mark.parametrize("family", ["antichain", "near", "near-eq", "mixed"])
def test_larger_families_match_the_reference(family):
    """A few hundred elements, so the default thresholds take the indexes too."""
    rng = random.Random(family)
    fs: list[Filter] = []
    if family in ("antichain", "mixed"):
        fs.append(F("[int x any]"))
        fs += [Filter([Constraint("int", "x", "=", i)]) for i in rng.sample(range(400), 150)]
    if family in ("near", "mixed"):
        fs += [Filter([Constraint("int", "x", ">", r), Constraint("string", "s", ">*", f"XY{r}")])
               for r in (rng.randrange(2000) for _ in range(150))]
    if family in ("near-eq", "mixed"):
        fs += [Filter([Constraint("int", "x", "=", rng.randrange(40)), Constraint("int", "y", ">", rng.randrange(40))])
               for _ in range(150)]
    rng.shuffle(fs)
    posets = [poset_with(ALWAYS), poset_with(NEVER), Poset()]
    for k, f in enumerate(fs):
        u = f"u{rng.randrange(60)}"
        results = [outcome(p.insert(f, u)) for p in posets]
        assert results[0] == results[1] == results[2]
        if k % 9 == 8:
            g, v = rng.choice(fs), f"u{rng.randrange(60)}"
            assert len({outcome(p.remove(g, v)) for p in posets}) == 1
    values = list(posets[0])
    assert len(values) > 100
    want = reference_diagram(values)
    for p in posets:
        p.check_invariants()
        assert diagram(p) == want


# ------------------------------------------------------------ the cliff, in checks
def test_antichain_below_one_root_takes_few_checks():
    """[int x any], then x = i for many i: each new filter is compared with the
    root and its own equality bucket, not with every sibling (about n per
    insert before the witness index). Counted checks, not time."""
    p = Poset()
    p.insert("[int x any]", "root")
    n = 400
    for i in range(n):
        p.insert(Filter([Constraint("int", "x", "=", i)]), f"u{i}")
    assert len(p) == n + 1 and p.successors("[int x any]")[:2] == [F("[int x = 0]"), F("[int x = 1]")]
    assert p.stats.checks_per_insert < 8
    p.check_invariants()


def test_near_antichain_takes_few_checks():
    """[x > r, s >* "XY<r>"] for random r: almost no pair is comparable, and
    every filter has the same names (the signature index cannot separate
    them: about n/2 checks per insert before)."""
    rng = random.Random(7)
    p = Poset()
    values = [rng.randrange(10**6) for _ in range(400)]
    for k, r in enumerate(values):
        p.insert(Filter([Constraint("int", "x", ">", r), Constraint("string", "s", ">*", f"XY{r}")]), f"u{k}")
    assert p.stats.checks_per_insert < 8
    assert diagram(p) == reference_diagram(list(p))


# ------------------------------------------------------------ the index itself
@settings(max_examples=200, deadline=None)
@given(st.lists(family_filter(), min_size=1, max_size=40), family_filter())
def test_candidates_are_supersets(stored, x):
    """may_cover(x) holds every stored filter covering x; may_be_covered(x)
    every stored filter x covers (both unlimited)."""
    if not cb.satisfiable(x):
        return
    p = poset_with(NEVER)
    for k, f in enumerate(stored):
        p.insert(f, k)
    index: WitnessIndex = p._witnesses
    satisfiable = [e for e in p.elements() if e.satisfiable]
    assert len(index) == len(satisfiable)
    up = index.may_cover(x, 1 << 30)
    down = index.may_be_covered(x, 1 << 30)
    assert up is not None
    assert {e for e in satisfiable if cb.covers(e.value, x)} <= set(up)
    if down is not None:
        assert {e for e in satisfiable if cb.covers(x, e.value)} <= set(down)
    else:
        assert all(c.type == "any" for c in x.constraints)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(("add", "add", "discard", "ask")), family_filter(), st.integers(0, 1000)),
                min_size=1, max_size=60),
       st.sampled_from((0, 1, 3)))
def test_index_upkeep_in_every_state(ops, loosen_after):
    """Adds, discards and questions in any order, with sorted lists loosened
    after 0, 1 or 3 unasked inserts (64 by default), so that every value
    list changes state often: the answers stay supersets of the truth and
    hold only stored elements."""
    from unittest import mock

    from cbalgebra.poset import points
    from cbalgebra.poset.element import Element

    stored: list[Element] = []
    index = WitnessIndex()
    with mock.patch.object(points, "_LOOSEN_AFTER", loosen_after):
        for seq, (op, f, pick) in enumerate(ops):
            if not cb.satisfiable(f):
                continue
            if op == "add":
                e = Element(f, frozenset(c.name for c in f.constraints), False, seq)
                index.add(e)
                stored.append(e)
            elif op == "discard" and stored:
                index.discard(stored.pop(pick % len(stored)))
            else:
                up = index.may_cover(f, 1 << 30)
                down = index.may_be_covered(f, 1 << 30)
                assert up is not None and set(up) <= set(stored) and len(up) == len(set(up))
                assert {e for e in stored if cb.covers(e.value, f)} <= set(up)
                if down is not None:
                    assert set(down) <= set(stored) and len(down) == len(set(down))
                    assert {e for e in stored if cb.covers(f, e.value)} <= set(down)
            assert len(index) == len(stored)


# ------------------------------------------------------------ subscription forwarding
@pytest.mark.parametrize("seed", [1, 2])
def test_forwarding_messages_do_not_change(seed, monkeypatch):
    """Subscription forwarding (formula (1)) on a 12-server tree sends the
    same messages, in the same order, with the witness indexes always used
    and never used."""
    rng = random.Random(seed)
    graph = nx.random_labeled_tree(12, seed=seed)
    fs = ([F("[int x any]")] + [Filter([Constraint("int", "x", "=", i)]) for i in range(60)]
          + [Filter([Constraint("int", "x", ">", r), Constraint("string", "s", ">*", f"XY{r}")])
             for r in (rng.randrange(300) for _ in range(60))]
          + [f for p in cb.workloads.dnf_predicates(80, 20, "zipf", seed) for f in p.filters])
    plan = [(rng.choice(("subscribe", "subscribe", "unsubscribe")), f"c{rng.randrange(24)}", rng.choice(fs))
            for _ in range(400)]
    logs = []
    for share in (ALWAYS, NEVER):
        monkeypatch.setattr(Poset, "_witness_share", share)
        net = Network(graph, record=True)
        for c in range(24):
            net.add_client(f"c{c}", c % 12)
        for op, c, f in plan:
            getattr(net, op)(c, f)
        net.check()
        logs.append(([str(m) for m in net.sent], net.traffic.subscribe, net.traffic.unsubscribe))
    assert logs[0] == logs[1]
    assert logs[0][1] > 100
