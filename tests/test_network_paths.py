"""Shortest paths: dist against networkx and exact rationals, the tie-break of
T_v, the shortest-path DAG, next hops and subtrees."""

from __future__ import annotations

import random
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from network_oracles import (
    DECIMAL_WEIGHTS,
    exact_dist,
    exact_tight_arcs,
    small_networks,
)

from cbalgebra.network import topology
from cbalgebra.network.paths import ShortestPaths, dist, same_length

networks = st.one_of(small_networks(), small_networks(weights=DECIMAL_WEIGHTS))


@given(networks)
def test_dist_is_symmetric_and_equals_networkx_and_exact(g):
    sp = ShortestPaths(g)
    assert np.array_equal(sp.dist, sp.dist.T)
    assert np.allclose(sp.dist, dist(g, "networkx"), rtol=1e-12, atol=0)
    exact = exact_dist(g)
    for (u, v), d in exact.items():
        assert same_length(float(d), float(sp.dist[u, v]))


@given(networks)
def test_parent_is_the_smallest_exact_tight_predecessor(g):
    sp = ShortestPaths(g)
    exact = exact_dist(g)
    for v in g:
        tight = exact_tight_arcs(g, exact, v)
        assert set(sp.dag_edges(v)) == tight
        for x in g:
            preds = [u for u, y in tight if y == x]
            assert sp.parent[v, x] == (min(preds) if x != v else -1)
        assert len(sp.tree_edges(v)) == g.number_of_nodes() - 1


@given(networks, st.randoms(use_true_random=False))
def test_tie_break_ignores_edge_insertion_order(g, rnd):
    edges = list(g.edges(data=True))
    rnd.shuffle(edges)
    h = nx.Graph()
    h.add_nodes_from(rnd.sample(list(g.nodes), g.number_of_nodes()))
    h.add_edges_from((v, u, d) if rnd.random() < 0.5 else (u, v, d) for u, v, d in edges)
    assert np.array_equal(ShortestPaths(g).parent, ShortestPaths(h).parent)


@given(networks)
def test_paths_next_hops_children_and_subtrees_agree(g):
    sp = ShortestPaths(g)
    n = g.number_of_nodes()
    for v in g:
        for x in g:
            path = sp.path(v, x)
            assert path[0] == v and path[-1] == x and sp.is_shortest(v, path)
            assert sp.next_hop(v, x) == (path[1] if x != v else v)
        for u in g:
            kids = sp.children(v, u)
            assert list(kids) == sorted(x for x in g if sp.parent[v, x] == u)
            for w in g:
                via = sp.descendants_via(v, u, w)
                assert via == (sp.subtree(v, w) if w in kids else frozenset())
            # T_v/u is u and everything whose tree path passes through u.
            assert sp.subtree(v, u) == frozenset(x for x in g if u in sp.path(v, x))
        assert sp.subtree(v, v) == frozenset(range(n))


def test_dag_holds_every_shortest_path():
    # A 3 x 3 grid with unit weights: 6 shortest paths from corner to corner.
    g = topology("grid", n=9)
    sp = ShortestPaths(g)
    dag = sp.dag(0)
    assert len(list(nx.all_simple_paths(dag, 0, 8))) == 6
    assert sp.path(0, 8) == (0, 1, 2, 5, 8)  # smallest parent id at every step, from 8 back
    assert not sp.is_shortest(0, (0, 3, 4, 1, 2, 5, 8))
    assert not sp.is_shortest(0, (0, 2))


def test_float_ties_need_the_tolerance():
    # 0.1 + 0.2 != 0.3 in floats, but the two routes to 2 are equally short.
    g = nx.Graph()
    g.add_edge(0, 1, weight=0.1)
    g.add_edge(1, 2, weight=0.2)
    g.add_edge(0, 2, weight=0.3)
    sp = ShortestPaths(g)
    assert set(sp.dag_edges(0)) == {(0, 1), (1, 2), (0, 2)}
    assert sp.parent[0, 2] == 0


def test_larger_graphs_agree_with_networkx():
    for name, params in [("power_law", {}), ("gnp", {"weight_range": (1, 20)}), ("transit_stub", {})]:
        g = topology(name, n=None if name == "transit_stub" else 300, seed=5, **params)
        sp = ShortestPaths(g)
        assert np.allclose(sp.dist, dist(g, "networkx"), rtol=1e-12, atol=0)
        rng = random.Random(0)
        for _ in range(200):
            v, x = rng.randrange(g.number_of_nodes()), rng.randrange(g.number_of_nodes())
            assert sp.is_shortest(v, sp.path(v, x))
    real = topology("topohub:sndlib/germany50")
    sp = ShortestPaths(real)
    lengths = nx.single_source_dijkstra_path_length(real, 3)
    assert all(same_length(sp.dist[3, x], d) for x, d in lengths.items())


def test_bad_inputs():
    g = nx.Graph([(0, 1)])
    g.add_node(2)
    with pytest.raises(ValueError, match="connected"):
        ShortestPaths(g)
    with pytest.raises(ValueError, match=r"0\.\.n-1"):
        ShortestPaths(nx.Graph([("a", "b")]))
    sp = ShortestPaths(nx.Graph([(0, 1)]))
    with pytest.raises(ValueError, match="not a processor"):
        sp.path(0, 5)
    with pytest.raises(ValueError, match="method"):
        dist(nx.Graph([(0, 1)]), "floyd")


def test_single_processor():
    g = nx.Graph()
    g.add_node(0)
    sp = ShortestPaths(g)
    assert sp.dist.tolist() == [[0.0]] and sp.parent.tolist() == [[-1]]
    assert sp.path(0, 0) == (0,) and sp.next_hop(0, 0) == 0


@settings(max_examples=10)
@given(seed=st.integers(0, 1000))
def test_exact_fraction_oracle_on_real_lengths(seed):
    # Real lengths (0.01 km resolution) with many near-equal sums.
    rng = random.Random(seed)
    g = topology("gnp", n=12, seed=seed)
    for u, v in g.edges:
        g.edges[u, v]["weight"] = rng.choice([0.01, 0.02, 0.03, 1.1, 2.2, 3.3])
    sp = ShortestPaths(g)
    exact = exact_dist(g)
    for v in g:
        assert set(sp.dag_edges(v)) == exact_tight_arcs(g, exact, v)
        for x in g:
            assert Fraction(str(round(sp.dist[v, x], 6))) == exact[v, x]
