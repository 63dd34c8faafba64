"""PIF's F* as Carzaniga, Rembert & Wolf define it ("Understanding
Content-Based Routing Schemes", 2006, §3.3): F*_u(w) = ∨_{v∈V} F_u(v, w),
a union over every processor, not over the senders only (issue 24 §2).

Oracle: the paper's formula computed by brute force from exact rational
distances (tests/network_oracles.py) and the smallest-id tie-break, with no
use of cbalgebra.network.paths or of the scheme's own set-up."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from network_oracles import exact_dist, small_networks
from test_network_schemes import edges_of, small_messages, small_predicates

import cbalgebra as cb
from cbalgebra.network.memory import exact_memory, make_combiner, pif_below, processor_constraints
from cbalgebra.network.names import PIF_UNIONS
from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.schemes import RoutingError, build
from cbalgebra.parse import parse_predicate

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def oracle_parents(g: nx.Graph) -> dict[int, dict[int, int]]:
    """parent[v][x] of T_v: the smallest-id neighbour y of x with
    dist(v, y) + w(y, x) = dist(v, x), in exact rational arithmetic."""
    from fractions import Fraction

    d = exact_dist(g)
    n = g.number_of_nodes()
    parent: dict[int, dict[int, int]] = {}
    for v in range(n):
        parent[v] = {}
        for x in range(n):
            if x != v:
                parent[v][x] = min(y for y in g[x] if d[v, y] + Fraction(str(g.edges[y, x]["weight"])) == d[v, x])
    return parent


def oracle_fstar(g: nx.Graph, united) -> dict[tuple[int, int], set[int]]:
    """F*_u(w) as a set of processors, by the paper's formula: x is in it
    when, for some v in ``united``, T_v's path from v to x crosses (u, w)."""
    parent = oracle_parents(g)
    fstar: dict[tuple[int, int], set[int]] = {(u, w): set() for u in g for w in g[u]}
    for v in united:
        for x in g:
            node = x
            while node != v:
                up = parent[v][node]
                fstar[up, node].add(x)
                node = up
    return fstar


@st.composite
def pif_problems(draw):
    g = draw(small_networks(min_n=1, max_n=7))
    n = g.number_of_nodes()
    receivers = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    preds = {x: draw(small_predicates) for x in receivers}
    senders = draw(st.lists(st.integers(0, n - 1), unique=True, min_size=1, max_size=n))
    return g, preds, sorted(senders)


def test_a_path_with_one_sender_holds_every_receiver_below_every_processor():
    """0 - 1 - 2, one constraint at each processor, sender 0. Over V:
    F*_0(1) = {1, 2}, F*_1(0) = {0}, F*_1(2) = {2}, F*_2(1) = {0, 1}: 6
    constraints, (n − 1)·r. Over the senders only: F*_0(1) = {1, 2} and
    F*_1(2) = {2}: 3."""
    g = nx.path_graph(3)
    nx.set_edge_attributes(g, 1, "weight")
    preds = {x: parse_predicate(f"a = {x}") for x in range(3)}
    paper = build("pif", g, preds, senders=[0]).memory()
    assert paper["predicate_constraints"] == 6
    assert paper["pif_union"] == "processors"
    assert [paper["per_processor"][u]["predicate_constraints"] for u in range(3)] == [2, 2, 2]
    option = build("pif", g, preds, senders=[0], pif_union="senders").memory()
    assert option["predicate_constraints"] == 3 and option["pif_union"] == "senders"
    assert paper["id_bits"] == option["id_bits"]          # child_u is over the senders either way


@SETTINGS
@given(pif_problems(), st.sampled_from(PIF_UNIONS))
def test_pif_tables_hold_the_papers_fstar_by_brute_force(problem, union):
    g, preds, senders = problem
    united = range(g.number_of_nodes()) if union == "processors" else senders
    fstar = oracle_fstar(g, united)
    m = build("pif", g, preds, senders=senders, pif_union=union).memory()
    for u in g:
        want = sum(preds[x].size for w in g[u] for x in fstar[u, w] if x in preds)
        assert m["per_processor"][u]["predicate_constraints"] == want, (u, union)
    below = pif_below(ShortestPaths(g), united)
    got = {(int(a), int(b)): {x for x in g if below.below[i, x]}
           for i, (a, b) in enumerate(zip(below.tail, below.head, strict=True))}
    assert got == fstar


@SETTINGS
@given(pif_problems())
def test_each_receiver_sits_in_exactly_one_fstar_of_each_other_processor(problem):
    """Consistent trees: the paper's F*_u(w) over V is T_u/w, so x ≠ u is
    below exactly one neighbour of u; over the senders, at most one."""
    g, _preds, senders = problem
    paper, option = oracle_fstar(g, range(g.number_of_nodes())), oracle_fstar(g, senders)
    for u in g:
        for x in g:
            if x != u:
                assert sum(x in paper[u, w] for w in g[u]) == 1
                assert sum(x in option[u, w] for w in g[u]) <= 1
    sp = ShortestPaths(g)
    count = pif_below(sp, range(g.number_of_nodes())).rows_holding()
    assert all(count[u, x] == (u != x) for u in g for x in g)


@SETTINGS
@given(pif_problems(), st.sampled_from(PIF_UNIONS))
def test_exact_memory_is_the_built_tables_for_both_unions(problem, union):
    g, preds, senders = problem
    paths = ShortestPaths(g)
    exact = exact_memory(paths, preds, senders, pif_union=union)["pif"]
    m = build("pif", g, preds, senders=senders, paths=paths, pif_union=union).memory()
    assert (exact["id_bits"], exact["predicate_constraints"], exact["total_bits"], exact["pif_union"]) == \
        (m["id_bits"], m["predicate_constraints"], m["total_bits"], m["pif_union"])


@pytest.mark.parametrize("union", PIF_UNIONS)
@pytest.mark.parametrize("reducer", ["none", "merge"])
def test_processor_rows_sum_to_the_built_tables_for_both_unions(union, reducer):
    from cbalgebra.network import topology
    from cbalgebra.network.workload import processor_predicates

    g = topology("gnp", 14, seed=4)
    preds = processor_predicates(range(0, 14, 2), 3, seed=4)
    senders = [1, 5, 9]
    paths = ShortestPaths(g)
    combiner = make_combiner(preds, reducer)
    total = sum(processor_constraints("pif", u, paths, preds, senders, reducer, combiner=combiner, pif_union=union)
                for u in range(14))
    assert total == build("pif", g, preds, senders=senders, paths=paths, reducer=reducer,
                          pif_union=union).memory()["predicate_constraints"]


@SETTINGS
@given(pif_problems(), st.lists(small_messages(), min_size=1, max_size=3))
def test_both_unions_deliver_correctly_and_the_senders_tree_is_inside_the_papers(problem, msgs):
    g, preds, senders = problem
    psf = build("psf", g, preds, senders=senders)
    paper = build("pif", g, preds, senders=senders)
    option = build("pif", g, preds, senders=senders, pif_union="senders")
    for m in msgs:
        want = {x for x, p in preds.items() if cb.matches(p, m)}
        for v in senders:
            a, b, c = psf.deliver(m, v), option.deliver(m, v), paper.deliver(m, v)
            for d in (b, c):
                assert d.interested == want and d.correct and d.latency_minimal
            assert set(edges_of(a)) <= set(edges_of(b)) <= set(edges_of(c))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"scheme": "pif", "pif_union": "receivers"}, "unknown pif_union 'receivers'; choose one of processors, senders"),
    ({"scheme": "psf", "pif_union": "senders"}, "pif_union applies to the pif scheme only"),
])
def test_a_bad_pif_union_is_a_one_line_error(kwargs, message):
    g = nx.path_graph(3)
    nx.set_edge_attributes(g, 1, "weight")
    with pytest.raises(RoutingError) as e:
        build(kwargs.pop("scheme"), g, {0: parse_predicate("a = 1")}, **kwargs)
    assert str(e.value) == message
    with pytest.raises(ValueError, match="unknown pif_union 'x'"):
        exact_memory(ShortestPaths(g), {}, [0], pif_union="x")
