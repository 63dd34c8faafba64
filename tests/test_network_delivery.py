"""Delivery trees (Carzaniga, Rembert & Wolf 2006, §2.2-2.3): the checks, and the smallest
latency-minimal tree against brute force and against unions of shortest
paths."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from network_oracles import (
    DECIMAL_WEIGHTS,
    all_dag_paths,
    brute_force_smallest_tree,
    exact_dist,
    exact_tight_arcs,
    small_networks,
)

from cbalgebra.network import topology
from cbalgebra.network.delivery import (
    DeliveryError,
    Packet,
    check_delivery,
    smallest_latency_minimal_tree,
    union_of_tree_paths,
)
from cbalgebra.network.paths import ShortestPaths


@st.composite
def problems(draw, max_n: int = 8, weights=(1, 2, 3)):
    g = draw(small_networks(min_n=2, max_n=max_n, weights=weights))
    n = g.number_of_nodes()
    source = draw(st.integers(0, n - 1))
    interested = draw(st.sets(st.integers(0, n - 1), max_size=n))
    return g, source, interested


def packets_of_tree(g: nx.Graph, source: int, parents) -> list[Packet]:
    """The packets of a delivery along a tree given as (child, parent)
    pairs, path lengths summed from the root."""
    parent = dict(parents)
    length = {source: 0}

    def reach(x):
        if x not in length:
            length[x] = reach(parent[x]) + g.edges[parent[x], x]["weight"]
        return length[x]

    out = [Packet(source, None, source, 0)]
    for x in sorted(parent):
        out.append(Packet(x, parent[x], source, reach(x)))
    return out


def assert_is_latency_minimal_tree(g, sp, result, source, interested):
    nodes = result.nodes
    assert interested - {source} <= nodes and source in nodes
    assert result.size == len(nodes) == len(result.parents) + 1
    dag = set(sp.dag_edges(source))
    assert all((p, c) in dag for c, p in result.parents)
    assert len({c for c, _ in result.parents}) == len(result.parents)


@settings(max_examples=150)
@given(st.one_of(problems(max_n=7), problems(max_n=7, weights=DECIMAL_WEIGHTS)))
def test_exact_tree_equals_brute_force_over_dag_edge_subsets(problem):
    g, source, interested = problem
    exact = exact_dist(g)
    arcs = sorted(exact_tight_arcs(g, exact, source))
    assume(len(arcs) <= 13)
    _, _, _, sp, result = solved(problem)
    assert result.exact
    assert_is_latency_minimal_tree(g, sp, result, source, interested)
    assert result.size == brute_force_smallest_tree(sorted(g), arcs, source, set(interested) - {source})


def solved(problem):
    """(network, source, interested, its ShortestPaths, the smallest latency-minimal tree)."""
    g, source, interested = problem
    sp = ShortestPaths(g)
    return g, source, interested, sp, smallest_latency_minimal_tree(g, source, interested, paths=sp)


@settings(max_examples=100)
@given(problems(max_n=9))
def test_exact_tree_is_no_larger_than_any_union_of_shortest_paths(problem):
    g, source, interested, sp, result = solved(problem)
    assert_is_latency_minimal_tree(g, sp, result, source, interested)
    arcs = exact_tight_arcs(g, exact_dist(g), source)
    targets = sorted(set(interested) - {source})
    choices = [all_dag_paths(arcs, source, x) for x in targets]
    combos = itertools.islice(itertools.product(*choices), 2000)
    for combo in combos:
        union = {source}.union(*map(set, combo)) if combo else {source}
        assert result.size <= len(union)
    assert result.size <= union_of_tree_paths(sp, source, interested).size


def test_grid_corner_to_far_side():
    # 3 x 3 unit grid, message from corner 0 to 2, 5 and 8 (the right column)
    # and to 6 (bottom-left): smallest tree 0-1-2-5-8 plus 0-3-6 = 7 nodes.
    g = topology("grid", n=9)
    result = smallest_latency_minimal_tree(g, 0, {2, 5, 8, 6})
    assert result.exact and result.size == 7
    # To {4, 8} the optimum is 0-1-4-5-8 (5 nodes), but T_0 (smallest parent
    # id) reaches 8 over 0-1-2-5-8 and 4 over 0-1-4: 6 nodes.
    assert smallest_latency_minimal_tree(g, 0, {4, 8}).size == 5
    assert union_of_tree_paths(ShortestPaths(g), 0, {4, 8}).size == 6


def test_above_the_limit_the_result_is_a_labelled_bound():
    g = topology("grid", n=36)
    sp = ShortestPaths(g)
    bound = smallest_latency_minimal_tree(g, 0, {35, 30, 5}, paths=sp)
    assert not bound.exact and bound.method == "union of T_v paths"
    assert bound.size == union_of_tree_paths(sp, 0, {35, 30, 5}).size
    exact = smallest_latency_minimal_tree(g, 0, {35, 30, 5}, paths=sp, exact_limit=36)
    assert exact.exact and exact.size <= bound.size
    # A small relevant DAG is solved exactly even in a big network.
    big = topology("transit_stub", seed=1)
    spb = ShortestPaths(big)
    stub = next(v for v in big if big.nodes[v]["level"] == "stub")
    neighbour = next(iter(big[stub]))
    assert smallest_latency_minimal_tree(big, stub, {neighbour}, paths=spb).exact


def test_trivial_and_forced_cases():
    g = topology("tree", n=10, seed=2)
    assert smallest_latency_minimal_tree(g, 3, set()).size == 1
    assert smallest_latency_minimal_tree(g, 3, {3}).size == 1
    # In a tree, shortest paths are unique: the tree is forced.
    result = smallest_latency_minimal_tree(g, 0, {5, 9})
    assert result.method == "unique shortest paths"
    assert result.nodes == set(nx.shortest_path(g, 0, 5)) | set(nx.shortest_path(g, 0, 9))


# ---------------------------------------------------------------- check_delivery

@settings(max_examples=60)
@given(problems(max_n=8))
def test_optimal_and_psf_like_deliveries_pass_the_checks(problem):
    g, source, interested, sp, best = solved(problem)
    report = check_delivery(g, source, interested, packets_of_tree(g, source, best.parents),
                            paths=sp, optimum=True)
    assert report.correct and report.latency_minimal and not report.duplicates
    assert report.size == best.size and report.ideal is True
    psf = union_of_tree_paths(sp, source, interested)
    report = check_delivery(g, source, interested, packets_of_tree(g, source, psf.parents),
                            paths=sp, optimum=True)
    assert report.correct and report.latency_minimal
    assert report.ideal == (psf.size == best.size)


def test_missed_late_and_duplicated_deliveries():
    # Square 0-1-2-3-0 with unit weights plus a long chord 0-2 of weight 5.
    g = nx.Graph()
    for u, v in [(0, 1), (1, 2), (2, 3), (3, 0)]:
        g.add_edge(u, v, weight=1)
    g.add_edge(0, 2, weight=5)
    P = Packet
    # 2 reached twice (via 1 and via 3), both on shortest paths: duplicates.
    twice = [P(0, None, "h", 0), P(1, 0, "h", 1), P(3, 0, "h", 1), P(2, 1, "h", 2), P(2, 3, "h", 2)]
    report = check_delivery(g, 0, {2}, twice, optimum=True)
    assert report.correct and report.latency_minimal
    assert report.duplicates == ((2, 2),) and report.size == 5
    assert report.optimum.size == 3 and report.ideal is False
    # 2 reached over the chord: correct but late.
    late = [P(0, None, "h", 0), P(2, 0, "h", 5)]
    report = check_delivery(g, 0, {2}, late)
    assert report.correct and not report.latency_minimal and report.late == ((2, 5, 2.0),)
    assert report.ideal is False
    # Interested 3 never reached.
    report = check_delivery(g, 0, {2, 3}, [P(0, None, "h", 0), P(1, 0, "h", 1), P(2, 1, "h", 2)])
    assert not report.correct and report.missed == {3} and not report.latency_minimal
    # The first arrival counts: a late copy after a shortest one is fine.
    both = [P(0, None, "h", 0), P(2, 0, "h", 5), P(1, 0, "h", 1), P(2, 1, "h", 2)]
    report = check_delivery(g, 0, {2}, both)
    assert report.latency_minimal and report.duplicates == ((2, 2),)
    # Without the optimum, ideal is unknown.
    assert check_delivery(g, 0, {1}, [P(0, None, "h", 0), P(1, 0, "h", 1)]).ideal is None


@pytest.mark.parametrize("packets,reason", [
    ([], "exactly one root"),
    ([Packet(0, None, "h", 0), Packet(1, None, "h", 0)], "exactly one root"),
    ([Packet(1, None, "h", 0)], "root packet must be at the source"),
    ([Packet(0, None, "h", 3)], "root packet must be at the source"),
    ([Packet(0, None, "h", 0), Packet(2, 0, "h", 1)], "no link between 0 and 2"),
    ([Packet(0, None, "h", 0), Packet(1, 0, "h", 2)], "no packet at its parent 0 with path length 1"),
    ([Packet(0, None, "h", 0), Packet(2, 1, "h", 2)], "no packet at its parent 1"),
    ([Packet(0, None, "h", 0), Packet(9, 0, "h", 1)], "not a processor"),
])
def test_malformed_deliveries_are_rejected(packets, reason):
    g = nx.path_graph(3)
    nx.set_edge_attributes(g, 1, "weight")
    with pytest.raises(DeliveryError, match=reason):
        check_delivery(g, 0, {2}, packets)


def test_bad_processors_are_rejected():
    g = nx.path_graph(3)
    nx.set_edge_attributes(g, 1, "weight")
    with pytest.raises(DeliveryError, match="not a processor"):
        smallest_latency_minimal_tree(g, 0, {7})
    with pytest.raises(DeliveryError, match="not a processor"):
        check_delivery(g, 5, {1}, [Packet(5, None, "h", 0)])
