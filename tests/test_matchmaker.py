"""The Min-Cost Matchmaker (Ge, Ji, Kurose & Towsley, "Matchmaker: Signaling
for Dynamic Publish/Subscribe Applications", §3-4): instances, costs, the
four markings, and the paper's properties checked against independent
oracles (brute force, z3)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matchmaker_oracles import (
    brute_force,
    is_valid,
    per_source_instances,
    propagated_cost,
    pruned_edges,
    shared_instance_pairs,
    shared_instances,
    sigma_tau,
    z3_optimum,
)

from cbalgebra.matchmaker import (
    Instance,
    InstanceError,
    all_p,
    all_s,
    closure,
    cost,
    greedy,
    link_costs,
    lower_bound,
    matchmaking_nodes,
    mcm,
    tdm,
    valid,
)

ALGORITHMS = (all_p, all_s, mcm, tdm)


# ------------------------------------------------------------ Figure 4
def figure_4() -> Instance:
    """§3, Figures 3-4: A publishes 2 CDs to C (1 SCD) and D (3 SCDs) through B."""
    return Instance.from_trees({"A": [("A", "B"), ("B", "C"), ("B", "D")]}, {"A": 2}, {"C": 1, "D": 3})


def test_figure_4_costs():
    inst = figure_4()
    assert cost(inst, all_s(inst)) == 8  # Figure 4(a)
    assert cost(inst, all_p(inst)) == 6  # Figure 4(b)
    best = {("A", "B"): "p", ("B", "C"): "s", ("B", "D"): "p"}  # Figure 4(c)
    assert valid(inst, best) and cost(inst, best) == 5
    assert mcm(inst) == best and tdm(inst) == best
    assert brute_force(inst) == 5
    assert link_costs(inst, best) == {("A", "B"): (2, 0), ("B", "C"): (0, 1), ("B", "D"): (2, 0)}
    assert matchmaking_nodes(inst, best) == ("B",)  # B matches A's PCDs with C's SCD


def test_figure_4d_invalid_marking():
    inst = figure_4()
    invalid = {("A", "B"): "s", ("B", "C"): "p", ("B", "D"): "p"}
    assert not valid(inst, invalid)
    # The cost is still defined by the propagation rules: nothing crosses B->C or B->D.
    assert cost(inst, invalid) == propagated_cost(inst, invalid) == 0


def test_instance_relations():
    inst = figure_4()
    assert inst.links == (("A", "B"), ("B", "C"), ("B", "D"))
    assert inst.sigma(("B", "C")) == 2 and inst.tau(("A", "B")) == 4 and inst.tau(("B", "D")) == 3
    assert inst.upstream(("B", "D")) == {("A", "B")}
    assert inst.downstream(("A", "B")) == {("B", "C"), ("B", "D")}
    assert inst.receivers("A") == ("C", "D")
    with pytest.raises(InstanceError):
        inst.sigma(("C", "B"))


# ------------------------------------------------------------ malformed input
@pytest.mark.parametrize(("trees", "f", "g", "reason"), [
    ({"A": [("A", "B"), ("C", "B")]}, {"A": 1}, {}, "two parents"),
    ({"A": [("A", "B"), ("A", "B")]}, {"A": 1}, {}, "repeated edge"),
    ({"A": [("B", "A")]}, {"A": 1}, {}, "into the root"),
    ({"A": [("A", "B"), ("C", "D")]}, {"A": 1}, {}, "no path from 'A' to 'C'"),
    ({"A": [("A", "B"), ("C", "D"), ("D", "C")]}, {"A": 1}, {}, "cycle"),
    ({"A": [("A", "A")]}, {"A": 1}, {}, "self-loop"),
    ({"A": [("A",)]}, {"A": 1}, {}, "pair"),
    ({"A": []}, {"A": -1}, {}, ">= 0"),
    ({"A": []}, {"A": 1}, {"B": True}, "number"),
    ({"A": []}, {"A": 1}, {"B": math.nan}, "finite"),
    ({"A": []}, {"B": 1}, {}, "differ"),
])
def test_malformed_instances(trees, f, g, reason):
    with pytest.raises(InstanceError, match=reason) as info:
        Instance.from_trees(trees, f, g)
    assert "\n" not in str(info.value)


def test_shared_kind_needs_one_tree():
    trees = {"A": [("A", "B"), ("B", "C")], "C": [("C", "B")]}
    with pytest.raises(InstanceError, match="one shared tree"):
        Instance.from_trees(trees, {"A": 1, "C": 1}, {"B": 1}, kind="shared")
    inst = Instance.from_trees(trees, {"A": 1, "C": 1}, {"B": 1})  # as custom trees it is fine
    assert inst.kind == "custom" and valid(inst, mcm(inst))


def test_shared_kind_accepts_pruned_trees_and_rejects_the_rest():
    """The path a - c - s - b: T_a and T_b pruned to the subscriber s are one
    shared tree; so are the whole trees; a mixture, a second tree, or a
    pruned tree that misses a subscriber is not."""
    f, g = {"a": 1, "b": 2}, {"s": 3}
    pruned = {"a": [("a", "c"), ("c", "s")], "b": [("b", "s")]}
    whole = {"a": [("a", "c"), ("c", "s"), ("s", "b")], "b": [("b", "s"), ("s", "c"), ("c", "a")]}
    for trees in (pruned, whole):
        inst = Instance.from_trees(trees, f, g, kind="shared")
        assert inst.kind == "shared" and valid(inst, mcm(inst))
    for trees in ({"a": whole["a"], "b": pruned["b"]},  # one whole, one pruned
                  {"a": [("a", "c"), ("c", "s")], "b": [("b", "a"), ("a", "s")]},  # a-c-s-a: a cycle
                  {"a": [("a", "c")], "b": [("b", "s"), ("s", "c")]}):  # T_a stops short of s
        with pytest.raises(InstanceError, match="one shared tree"):
            Instance.from_trees(trees, f, g, kind="shared")


def test_shared_tree_pruned_to_the_subscribers_by_default():
    """§3.1: T_x is the links of the multicast tree "that reaches all subscriber
    nodes". A star around the core c with publishers a and b and one
    subscriber s: T_a does not hold the branch c -> b, which leads only to
    the other publisher (it does with shared_tree="whole")."""
    from cbalgebra.matchmaker.jsonio import instance_from_json

    doc = {"network": {"edges": [["a", "c"], ["b", "c"], ["c", "s"]]}, "publishers": [["a", 5], ["b", 7]],
           "subscribers": [["s", 2]], "trees": "shared", "core": "c"}
    inst = instance_from_json(doc)
    assert inst.kind == "shared"
    assert set(inst.trees["a"]) == {("a", "c"), ("c", "s")}
    assert set(inst.trees["b"]) == {("b", "c"), ("c", "s")}
    assert cost(inst, all_p(inst)) == 5 + 7 + (5 + 7)  # a->c, b->c, then c->s twice
    whole = instance_from_json({**doc, "shared_tree": "whole"})
    assert set(whole.trees["a"]) == {("a", "c"), ("c", "s"), ("c", "b")}
    assert set(whole.trees["b"]) == {("b", "c"), ("c", "s"), ("c", "a")}
    assert cost(whole, all_p(whole)) == cost(inst, all_p(inst)) + 5 + 7  # c->b carries a's PCDs, c->a b's
    assert cost(whole, all_s(whole)) == cost(inst, all_s(inst))  # nothing subscribes below c->a or c->b


def test_shared_tree_option_errors():
    with pytest.raises(InstanceError, match="'pruned' or 'whole'"):
        Instance.generate(0, shared_tree="steiner")
    with pytest.raises(InstanceError, match="applies to shared trees"):
        Instance.generate(0, trees="per-source", shared_tree="whole")


def test_central_core():
    inst = Instance.generate(5, trees="shared", core="central")
    members = set(inst.publishers) | set(inst.subscribers)
    import networkx as nx

    total = {c: sum(nx.shortest_path_length(inst.graph, c, m, weight="weight") for m in members)
             for c in (v for v, level in inst.graph.nodes(data="level") if level == "transit")}
    assert total[inst.core] == min(total.values())
    assert Instance.generate(5, trees="shared", core=2).core == 2


def test_cycle_is_not_a_tree():
    with pytest.raises(InstanceError, match=r"cycle|two parents|no path"):
        Instance.from_trees({"A": [("A", "B"), ("C", "D"), ("D", "E"), ("E", "C")]}, {"A": 1}, {})


def test_malformed_markings():
    inst = figure_4()
    with pytest.raises(InstanceError, match="unmarked"):
        cost(inst, {("A", "B"): "p"})
    with pytest.raises(InstanceError, match="'x'"):
        valid(inst, {("A", "B"): "x", ("B", "C"): "p", ("B", "D"): "p"})
    with pytest.raises(InstanceError, match="not a link"):
        cost(inst, {("A", "B"): "p", ("B", "C"): "p", ("B", "D"): "p", ("C", "B"): "p"})


def test_generate_errors():
    with pytest.raises(InstanceError, match="publishers"):
        Instance.generate(0, publishers=97)
    with pytest.raises(InstanceError, match="trees"):
        Instance.generate(0, trees="steiner")
    with pytest.raises(InstanceError, match="unknown parameter"):
        Instance.generate(0, colour="red")


# ------------------------------------------------------------ generated instances
@pytest.mark.parametrize("kind", ["shared", "per-source"])
def test_generate_is_deterministic_and_paired(kind):
    a, b = Instance.generate(7, trees=kind), Instance.generate(7, trees=kind)
    assert a.trees == b.trees and a.f == b.f and a.g == b.g and a.core == b.core
    other = Instance.generate(7, trees="per-source" if kind == "shared" else "shared")
    assert (a.publishers, a.subscribers, dict(a.f), dict(a.g)) == \
        (other.publishers, other.subscribers, dict(other.f), dict(other.g))
    stubs = {v for v, level in a.graph.nodes(data="level") if level == "stub"}
    assert set(a.publishers) <= stubs and set(a.subscribers) <= stubs
    assert len(a.publishers) == len(a.subscribers) == 20
    assert all(1 <= c <= 100 and isinstance(c, int) for c in [*a.f.values(), *a.g.values()])


def test_shared_tree_is_one_cbt_tree_rooted_at_a_transit_core():
    whole = Instance.generate(3, trees="shared", shared_tree="whole")
    assert whole.graph.nodes[whole.core]["level"] == "transit"
    undirected = {frozenset(e) for e in whole.trees[whole.publishers[0]]}
    for x in whole.publishers:
        assert {frozenset(e) for e in whole.trees[x]} == undirected  # the same tree, oriented from x
    members = set(whole.publishers) | set(whole.subscribers)
    nodes = {v for e in undirected for v in e}
    assert members <= nodes and whole.core in nodes
    for u, v in (tuple(e) for e in undirected):
        assert whole.graph.has_edge(u, v)
    # the default, the paper's T_x: that tree's links on the paths from x to the subscribers
    inst = Instance.generate(3, trees="shared")
    assert (inst.publishers, dict(inst.f), dict(inst.g), inst.core) == \
        (whole.publishers, dict(whole.f), dict(whole.g), whole.core)
    for x in inst.publishers:
        assert set(inst.trees[x]) == pruned_edges([tuple(e) for e in undirected], x, inst.subscribers)
        assert set(inst.receivers(x)) == set(inst.subscribers)
        leaves = {v for _, v in inst.trees[x]} - {u for u, _ in inst.trees[x]}
        assert leaves <= set(inst.subscribers)
    assert set(inst.links) < set(whole.links)


def test_per_source_trees_are_shortest_path_trees():
    import networkx as nx

    inst = Instance.generate(4, trees="per-source")
    for x in inst.publishers:
        edges = inst.trees[x]
        depth = {x: 0.0}
        for u, v in edges:  # top-down: a parent's depth is known first
            depth[v] = depth[u] + inst.graph.edges[u, v]["weight"]
        lengths = nx.single_source_dijkstra_path_length(inst.graph, x)
        assert all(math.isclose(depth[v], lengths[v]) for v in depth)
        assert set(inst.receivers(x)) == set(inst.subscribers)
        leaves = {v for _, v in edges} - {u for u, _ in edges}
        assert leaves <= set(inst.subscribers)  # pruned to the subscribers


# ------------------------------------------------------------ the paper's properties
def random_valid_marking(instance: Instance, rng: random.Random):
    """A random valid marking: random s-links, closed downstream."""
    chosen = {t for t in instance.links if rng.random() < 0.3}
    stack = list(chosen)
    while stack:
        for q in instance.downstream(stack.pop()):
            if q not in chosen:
                chosen.add(q)
    return {t: "s" if t in chosen else "p" for t in instance.links}


def check_instance(inst: Instance, rng: random.Random) -> dict:
    markings = {a.__name__: a(inst) for a in ALGORITHMS}
    costs = {}
    for name, m in markings.items():
        assert set(m) == set(inst.links)
        assert valid(inst, m) and is_valid(inst, m), name
        costs[name] = cost(inst, m)
        assert costs[name] == propagated_cost(inst, m), name
    # Property 1
    assert costs["mcm"] <= min(costs["all_p"], costs["all_s"])
    assert lower_bound(inst) <= costs["mcm"] <= costs["tdm"]
    assert costs["all_p"] == sum(inst.sigma(t) for t in inst.links)
    assert costs["all_s"] == sum(inst.tau(t) for t in inst.links)
    # Lemma 1 (Property 2) on a random valid marking
    m = random_valid_marking(inst, rng)
    for t, (pcds, scds) in link_costs(inst, m).items():
        assert pcds + scds == (inst.sigma(t) if m[t] == "p" else inst.tau(t))
    # the two max-flow solvers agree with each other and with the optimum
    assert cost(inst, closure(inst, "networkx")) == cost(inst, closure(inst)) == costs["mcm"]
    if inst.kind == "shared":
        # Property 3 (monotonicity) and MCM = TDM = Figure 5 = the closure
        for t in inst.links:
            for q in inst.downstream(t):
                assert inst.sigma(t) <= inst.sigma(q) and inst.tau(t) >= inst.tau(q)
        assert markings["mcm"] == markings["tdm"] == greedy(inst) == closure(inst)
    return costs


@settings(max_examples=150)
@given(shared_instances(), st.randoms(use_true_random=False))
def test_properties_shared_generated(inst, rng):
    costs = check_instance(inst, rng)
    if len(inst.links) <= 12:
        assert costs["mcm"] == brute_force(inst)


def assert_property_3_and_figure_5(inst: Instance) -> None:
    """Property 3 (monotonicity), with sigma and τ recomputed from the trees,
    and Claim 1: Figure 5's greedy is the minimum cut's marking, valid and optimal."""
    sigma, tau = sigma_tau(inst)
    assert sigma == {t: inst.sigma(t) for t in inst.links} and tau == {t: inst.tau(t) for t in inst.links}
    for edges in inst.trees.values():
        children: dict = {}
        for u, v in edges:
            children.setdefault(u, []).append(v)
        for t in edges:  # every q below t in this tree: t R_x q
            stack = [(t[1], w) for w in children.get(t[1], ())]
            while stack:
                q = stack.pop()
                assert sigma[t] <= sigma[q] and tau[t] >= tau[q], (t, q)
                stack.extend((q[1], w) for w in children.get(q[1], ()))
    figure_5 = greedy(inst)
    assert valid(inst, figure_5) and is_valid(inst, figure_5)
    assert figure_5 == closure(inst) == mcm(inst)
    assert cost(inst, figure_5) == cost(inst, closure(inst, "networkx")) == lower_bound(inst)


@settings(max_examples=150)
@given(shared_instances(shared_tree="pruned"))
def test_property_3_and_figure_5_on_pruned_shared_trees(inst):
    """§3.1's T_x (the links on the paths from x to the subscribers) on random
    shared trees: Property 3 holds, and Figure 5 equals the minimum cut."""
    assert_property_3_and_figure_5(inst)
    if len(inst.links) <= 12:
        assert cost(inst, greedy(inst)) == brute_force(inst)


@settings(max_examples=150)
@given(shared_instance_pairs())
def test_whole_shared_trees_add_only_links_without_subscribers(pair):
    """shared_tree="whole" against the paper's T_x on the same tree: the links it
    adds have τ = 0 and the links both hold have the same sigma and τ, so All-S
    and MCM cost the same and All-P grows by the added links' sigma."""
    pruned, whole = pair
    added = set(whole.links) - set(pruned.links)
    assert set(pruned.links) <= set(whole.links)
    assert all(whole.tau(t) == 0 for t in added)
    assert all((whole.sigma(t), whole.tau(t)) == (pruned.sigma(t), pruned.tau(t)) for t in pruned.links)
    assert cost(whole, all_s(whole)) == cost(pruned, all_s(pruned))
    assert cost(whole, mcm(whole)) == cost(pruned, mcm(pruned))
    assert cost(whole, all_p(whole)) == cost(pruned, all_p(pruned)) + sum(whole.sigma(t) for t in added)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 30), st.integers(1, 30))
def test_property_3_and_figure_5_on_generated_pruned_instances(seed, publishers, subscribers):
    """The same on the paper's generated instances (100-node transit-stub, CBT)."""
    inst = Instance.generate(seed, publishers, subscribers, trees="shared")
    assert_property_3_and_figure_5(inst)


@settings(max_examples=150)
@given(per_source_instances(max_links=12), st.randoms(use_true_random=False))
def test_properties_per_source_generated(inst, rng):
    costs = check_instance(inst, rng)
    assert costs["mcm"] == brute_force(inst)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["shared", "per-source"])
def test_properties_transit_stub(kind, seed):
    check_instance(Instance.generate(seed, trees=kind), random.Random(seed))


@pytest.mark.parametrize("seed", range(4))
def test_brute_force_on_small_transit_stub(seed):
    """Tiny transit-stub networks (one transit node, two stub domains of 3)
    and few members: at most 16 links, so all markings can be tried."""
    params = {"transit_nodes": 1, "stubs_per_transit": 2, "stub_nodes": 3}
    for kind in ("shared", "per-source"):
        inst = Instance.generate(seed, publishers=2, subscribers=2, trees=kind, **params)
        assert len(inst.links) <= 16
        assert cost(inst, mcm(inst)) == brute_force(inst)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["shared", "per-source"])
def test_mcm_matches_z3_on_medium_instances(kind, seed):
    """The paper's 100-node instances (about 100 links): z3's Optimize over the
    0/1 integer program agrees with MCM."""
    inst = Instance.generate(seed, trees=kind)
    assert cost(inst, mcm(inst)) == z3_optimum(inst)


def test_mcm_matches_z3_where_tdm_is_not_optimal():
    """On 1,000-node per-source instances (10 transit domains) TDM is often
    not optimal (the study's size sweep): on the first such instance z3
    confirms MCM's optimum, and TDM stays valid."""
    for seed in range(12):
        inst = Instance.generate(seed, trees="per-source", transit_domains=10)
        best, top_down = cost(inst, mcm(inst)), cost(inst, tdm(inst))
        if best < top_down:
            assert best == z3_optimum(inst)
            assert valid(inst, tdm(inst))
            return
    raise AssertionError("TDM was optimal on 12 instances of 1,000 nodes; the study says it rarely is")


def test_fractional_rates_use_networkx():
    """AMSP feeds CD update rates, not counts: the closure still works."""
    inst = Instance.from_trees({"A": [("A", "B"), ("B", "C"), ("B", "D")]}, {"A": 1.5}, {"C": 0.5, "D": 2.25})
    best = mcm(inst)
    assert cost(inst, best) == pytest.approx(1.5 + 0.5 + 1.5)
    with pytest.raises(InstanceError, match="integer"):
        closure(inst, "scipy")


#: CD counts around and beyond scipy's 32-bit capacities, up to the largest
#: a count can be (the instance checks counts as floats: at most 1.8e308).
HUGE_COUNTS = st.one_of(st.integers(0, 12), st.integers(2**29, 2**31 + 7), st.integers(0, 10**300))


@settings(max_examples=80)
@given(per_source_instances(max_links=10, count_values=HUGE_COUNTS))
def test_huge_counts_fall_back_to_an_exact_solver(inst):
    """Issue 23 §4: counts beyond scipy's int32 capacities (a large gain, or a
    large subscriber count alone) are solved by networkx on Python integers,
    exactly: the optimum of the brute force."""
    best = mcm(inst)
    assert valid(inst, best)
    assert cost(inst, best) == cost(inst, closure(inst, "networkx")) == brute_force(inst)


@pytest.mark.parametrize(("f", "g"), [({"A": 2**30}, {"C": 1, "D": 3}),   # gain too large
                                      ({"A": 3}, {"C": 2**31 + 5, "D": 1})])  # one capacity too large
def test_scipy_refuses_counts_beyond_its_capacities_with_an_instance_error(f, g):
    inst = Instance.from_trees({"A": [("A", "B"), ("B", "C"), ("B", "D")]}, f, g)
    with pytest.raises(InstanceError, match="too large for scipy"):
        closure(inst, "scipy")
    assert cost(inst, closure(inst)) == brute_force(inst)


def test_tdm_on_cyclic_union_stays_valid():
    """Two publishers whose trees cross the same two links in opposite orders
    (∪R_x has a cycle: (a, b) is above (c, d) in a's tree and below it in
    c's): TDM still returns a valid marking."""
    trees = {"a": [("a", "b"), ("b", "c"), ("c", "d")], "c": [("c", "d"), ("d", "a"), ("a", "b")]}
    for f, g in [({"a": 5, "c": 1}, {"d": 1, "b": 9}), ({"a": 1, "c": 1}, {"d": 9, "b": 1}),
                 ({"a": 3, "c": 3}, {"b": 3, "c": 1, "d": 2})]:
        inst = Instance.from_trees(trees, f, g)
        assert ("c", "d") in inst.upstream(("a", "b")) and ("a", "b") in inst.upstream(("c", "d"))
        m = tdm(inst)
        assert valid(inst, m)
        assert cost(inst, mcm(inst)) == brute_force(inst) <= cost(inst, m)


@settings(max_examples=60)
@given(st.integers(4, 9), st.integers(0, 10_000), st.sampled_from(["shared", "per-source"]), st.data())
def test_properties_on_routed_random_networks(n, seed, kind, data):
    """Trees routed by build_trees over small random networks with tied path
    lengths (weights 1..2): the same properties, and the optimum by brute force."""
    from cbalgebra.matchmaker.instance import build_trees
    from cbalgebra.network import topology

    graph = topology("gnp", n=n, seed=seed, avg_degree=2.5, weight_range=(1, 2))
    nodes = sorted(graph.nodes)
    pubs = data.draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=3, unique=True))
    subs = data.draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=4, unique=True))
    f = {x: data.draw(st.integers(0, 9)) for x in pubs}
    g = {y: data.draw(st.integers(0, 9)) for y in subs}
    trees, core = build_trees(graph, kind, pubs, subs, core="central")
    inst = Instance.from_trees(trees, f, g, graph=graph, kind=kind, core=core)
    costs = check_instance(inst, random.Random(seed))
    if len(inst.links) <= 12:
        assert costs["mcm"] == brute_force(inst)
