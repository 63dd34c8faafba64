"""The one model of the multicast trees (``cbalgebra.matchmaker.trees.MulticastTrees``) that the
Matchmaker instance and the AMSP overlay share, against a naive reference built per tree with
networkx (descendants, shortest paths, in/out edges), on small hypothesis-generated instances:
shared trees (pruned and whole) and per-source trees, whose ∪R_x may be cyclic."""

from __future__ import annotations

import dataclasses
import itertools

import networkx as nx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from matchmaker_oracles import per_source_instances, shared_instances, sigma_tau

from cbalgebra.matchmaker import Instance, InstanceError, matchmaking_nodes
from cbalgebra.matchmaker.amsp import Overlay
from cbalgebra.matchmaker.trees import MulticastTrees

instances = st.one_of(shared_instances(), per_source_instances())
#: Three per-source trees around a triangle: each link is upstream of the next, so ∪R_x has a cycle.
TRIANGLE = Instance.from_trees({"a": [("a", "b"), ("b", "c")], "b": [("b", "c"), ("c", "a")],
                                "c": [("c", "a"), ("a", "b")]}, {"a": 1, "b": 2, "c": 3}, {"a": 4, "b": 5, "c": 6})


def _reference(inst: Instance) -> dict:
    """Every table of the model, recomputed tree by tree from the edges with networkx."""
    trees = {}
    for x, edges in inst.trees.items():
        tree = nx.DiGraph(list(edges))
        tree.add_node(x)
        trees[x] = tree
    links = sorted({e for edges in inst.trees.values() for e in edges})  # int or str nodes, never both
    holders = {t: [x for x in sorted(trees) if trees[x].has_edge(*t)] for t in links}
    below = {t: {y for x in holders[t] for y in inst.subscribers
                 if y == t[1] or y in nx.descendants(trees[x], t[1])} for t in links}
    up = {t: {q for x in holders[t] for q in trees[x].in_edges(t[0])} for t in links}
    down = {t: {q for x in holders[t] for q in trees[x].out_edges(t[1])} for t in links}
    receivers = {x: {y for y in inst.subscribers if y in trees[x]} for x in trees}
    paths = {(x, y): list(itertools.pairwise(nx.shortest_path(trees[x], x, y))) for x in trees for y in receivers[x]}
    relation = nx.DiGraph([(q, t) for t in links for q in up[t]])
    return {"links": links, "holders": holders, "below": below, "up": up, "down": down, "receivers": receivers,
            "paths": paths, "acyclic": nx.is_directed_acyclic_graph(relation), "relation": relation}


def _assert_model(model: MulticastTrees, inst: Instance, want: dict) -> None:
    links = model.links
    assert list(links) == want["links"]
    by_index = {i: t for i, t in enumerate(links)}
    for i, t in by_index.items():
        assert model.index[t] == i and (model.head[i], model.tail[i]) == t
        assert list(model.publishers_of[i]) == want["holders"][t]
        assert model.subscribers_of[i] == want["below"][t]
        assert {links[j] for j in model.upstream[i]} == want["up"][t]
        assert {links[j] for j in model.downstream[i]} == want["down"][t]
    for x, edges in inst.trees.items():
        assert {links[i] for i in model.tree_links[x]} == set(edges)
        assert model.receivers[x] == want["receivers"][x]
        for i in model.tree_links[x]:  # top-down: a link's parent link comes before it
            above = model.above[x][i]
            assert above == -1 or model.tree_links[x].index(above) < model.tree_links[x].index(i)
            assert above == (-1 if links[i][0] == x else model.parent[x][links[i][0]])
    for (x, y), hops in want["paths"].items():
        assert [links[i] for i in model.path(x, y)] == hops
        assert model.path_nodes(x, y) == [x] + [v for _, v in hops]
        for u, v in hops:
            assert links[model.toward[x][u][y]] == (u, v)
    for y in model.subscribers:
        carriers = [i for i, t in enumerate(links) if y in want["below"][t]]
        assert list(model.links_of_subscriber[y]) == carriers
        assert {n: list(ls) for n, ls in model.up_from[y].items()} == {
            n: [i for i in carriers if links[i][1] == n] for n in {links[i][1] for i in carriers}}
        assert {n: list(ls) for n, ls in model.down_to[y].items()} == {
            n: [i for i in carriers if links[i][0] == n] for n in {links[i][0] for i in carriers}}
    for n in model.nodes:
        assert model.out_links[n] == [i for i, t in enumerate(links) if t[0] == n]
        assert model.in_links[n] == [i for i, t in enumerate(links) if t[1] == n]
    cycle = model.upstream_cycle()
    assert (cycle is None) == want["acyclic"]
    if cycle is not None:  # each link upstream of the next, around
        around = zip(cycle, cycle[1:] + cycle[:1], strict=True)
        assert all(want["relation"].has_edge(links[a], links[b]) for a, b in around)


@settings(max_examples=150, deadline=None)
@given(instances)
@example(TRIANGLE)
def test_the_instance_model_equals_the_naive_reference(inst):
    want = _reference(inst)
    _assert_model(inst.multicast, inst, want)
    sigma, tau = sigma_tau(inst)
    assert inst.sigmas == tuple(sigma[t] for t in inst.links)
    assert inst.taus == tuple(tau[t] for t in inst.links)
    assert inst.multicast.publisher_sums(inst.f) == inst.sigmas
    assert inst.multicast.subscriber_sums(inst.g) == inst.taus


@settings(max_examples=80, deadline=None)
@given(instances, st.randoms(use_true_random=False))
def test_the_overlay_is_the_same_model_from_trees_in_any_order(inst, rng):
    """AMSP's overlay takes each tree's edges in any order and builds the one model from them."""
    shuffled = {x: rng.sample(list(edges), len(edges)) for x, edges in inst.trees.items()}
    overlay = Overlay(shuffled, inst.subscribers)
    assert isinstance(overlay, MulticastTrees)
    _assert_model(overlay, inst, _reference(inst))
    assert overlay.delay == [0.0] * len(overlay.links)


def test_the_model_refuses_trees_not_listed_top_down():
    with pytest.raises(ValueError, match="not a tree listed top-down"):
        MulticastTrees({0: [(1, 2), (0, 1)]}, [2])
    with pytest.raises(ValueError, match="not a tree listed top-down"):
        MulticastTrees({0: [(0, 1), (0, 1)]}, [1])
    good = Instance.from_trees({0: [(0, 1), (1, 2)]}, {0: 1}, {2: 1})
    with pytest.raises(InstanceError, match="not a tree listed top-down"):
        Instance(publishers=(0,), subscribers=(2,), f={0: 1}, g={2: 1}, trees={0: ((1, 2), (0, 1))},
                 links=good.links)


def test_the_derived_tables_are_read_only_fields():
    inst = Instance.from_trees({"A": [("A", "B"), ("B", "C"), ("B", "D")]}, {"A": 2}, {"C": 1, "D": 3})
    assert inst.sigmas == (2, 2, 2) and inst.taus == (4, 1, 3)
    for name in ("multicast", "sigmas", "taus"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(inst, name, None)


@settings(max_examples=100, deadline=None)
@given(instances, st.data())
def test_matchmaking_nodes_are_where_a_p_link_comes_in_and_an_s_link_goes_out(inst, data):
    """§2.1's interior matchmakers, read off the model, against the edges of each tree (any marking)."""
    marking = {t: data.draw(st.sampled_from("ps")) for t in inst.links}
    want = {u for edges in inst.trees.values() for (a, u) in edges for (b, v) in edges
            if b == u and marking[(a, u)] == "p" and marking[(u, v)] == "s"}
    assert set(matchmaking_nodes(inst, marking)) == want
