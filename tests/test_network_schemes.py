"""The routing schemes of §3 of Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes", 2006) and the paper's claims
about them (issue 11 §4), over random small networks and literal ones.

Oracles: cbalgebra.matches for every forwarding decision and for who is
interested; the exact smallest latency-minimal tree (delivery.py) for
ideality; sets computed directly from T_v for iPS's classes and for the
memory formula."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from network_oracles import small_networks

import cbalgebra as cb
from cbalgebra.network import topology
from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.schemes import (
    BITS_PER_CONSTRAINT,
    SCHEMES,
    RoutingError,
    build,
    source_classes,
)
from cbalgebra.network.workload import messages as workload_messages
from cbalgebra.network.workload import processor_predicates
from cbalgebra.values import (
    INT,
    STRING,
    Attribute,
    Constraint,
    Filter,
    Message,
    Predicate,
)

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# A tiny attribute space, so that predicates match messages often.
_CONSTRAINTS = [Constraint(INT, "x", op, v) for op in ("=", "<", ">", "!=") for v in (0, 1, 2)] + [
    Constraint(STRING, "y", "=", "a"), Constraint(STRING, "y", ">*", "a"), Constraint(STRING, "y", "!=", "b"),
    Constraint(STRING, "y", "*", "b"),
]
small_filters = st.lists(st.sampled_from(_CONSTRAINTS), min_size=1, max_size=2).map(Filter)
small_predicates = st.lists(small_filters, min_size=1, max_size=2).map(Predicate)


@st.composite
def small_messages(draw):
    attrs = {}
    if draw(st.booleans()):
        attrs["x"] = Attribute(INT, draw(st.integers(-1, 3)))
    if draw(st.booleans()) or not attrs:
        attrs["y"] = Attribute(STRING, draw(st.sampled_from(["a", "ab", "b", "ba", "c"])))
    return Message(attrs)


@st.composite
def problems(draw, networks=None, all_receivers: bool = False):
    g = draw(networks if networks is not None else small_networks(min_n=1, max_n=8))
    n = g.number_of_nodes()
    nodes = list(range(n)) if all_receivers else draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    preds = {x: draw(small_predicates) for x in nodes}
    msgs = draw(st.lists(small_messages(), min_size=1, max_size=3))
    return g, preds, msgs


def unit_trees(max_n=9):
    @st.composite
    def tree(draw):
        n = draw(st.integers(1, max_n))
        g = nx.Graph()
        g.add_nodes_from(range(n))
        for v in range(1, n):
            g.add_edge(v, draw(st.integers(0, v - 1)), weight=draw(st.sampled_from((1, 2, 3))))
        return g
    return tree()


def real_weighted_networks(max_n=8):
    """Random real weights: shortest paths are unique (almost surely; the
    tests that need it check)."""
    @st.composite
    def net(draw):
        g = draw(small_networks(min_n=1, max_n=max_n, weights=(1,)))
        for u, v in g.edges:
            g.edges[u, v]["weight"] = draw(st.floats(0.5, 10.0, allow_nan=False).map(lambda w: round(w, 6)))
        return g
    return net()


def unique_shortest_paths(g) -> bool:
    sp = ShortestPaths(g)
    for v in range(sp.n):
        heads = [x for _, x in sp.dag_edges(v)]
        if len(heads) != len(set(heads)):
            return False
    return True


def edges_of(delivery) -> list[tuple[int, int]]:
    return sorted((p.parent, p.processor) for p in delivery.packets if p.parent is not None)


# ---------------------------------------------------------------------------
# §4: every scheme is correct

@SETTINGS
@given(problems())
def test_all_five_schemes_are_correct_on_every_case(problem):
    g, preds, msgs = problem
    for scheme in SCHEMES:
        routing = build(scheme, g, preds)
        for m in msgs:
            for v in range(g.number_of_nodes()):
                d = routing.deliver(m, v)
                assert d.interested == {x for x, p in preds.items() if cb.matches(p, m)}
                assert d.correct, (scheme, v, m, d.report)
                assert d.interested <= d.receivers
                if scheme != "siena":  # siena follows one tree, not T_v
                    assert d.latency_minimal, (scheme, v, m, d.report)


@SETTINGS
@given(problems(networks=unit_trees()))
def test_siena_on_a_tree_is_latency_minimal_and_reaches_no_more_than_the_interested_subtrees(problem):
    g, preds, msgs = problem
    routing = build("siena", g, preds)
    assert routing.tree_root is None
    sp = ShortestPaths(g)
    for m in msgs:
        for v in range(g.number_of_nodes()):
            d = routing.deliver(m, v)
            assert d.latency_minimal
            # On a tree the smallest latency-minimal tree is the union of paths.
            want = {v} | {y for x in d.interested for y in sp.path(v, x)}
            assert d.receivers == want and not d.duplicates


def test_siena_scheme_agrees_with_the_poset_simulation_on_a_real_workload():
    g = topology("tree", 25, seed=4)
    preds = processor_predicates(25, 3, names=20, seed=1)
    routing = build("siena", g, preds)
    net = routing.network
    for i, m in enumerate(workload_messages(30, names=20, seed=1)):
        d = routing.deliver(m, i % 25)
        clients = net.publish(m, i % 25)
        assert {int(c.removeprefix("client")) for c in clients} == set(d.interested)


def test_siena_on_a_graph_with_cycles_runs_over_the_centres_shortest_path_tree():
    g = topology("grid", 9)             # 3 x 3: the centre is 4
    routing = build("siena", g, {x: Predicate([Filter()]) for x in range(9)})
    assert routing.tree_root == 4
    assert nx.is_tree(routing.tree)
    assert sorted(routing.tree.edges) == sorted(tuple(sorted(e)) for e in ShortestPaths(g).tree_edges(4))
    d = routing.deliver(Message(), 0)
    assert d.correct and d.receivers == set(range(9)) and d.size == 9


# ---------------------------------------------------------------------------
# Forwarding decisions agree with cb.matches

@SETTINGS
@given(problems())
def test_psf_delivers_exactly_the_union_of_tree_paths_to_the_interested(problem):
    g, preds, msgs = problem
    sp = ShortestPaths(g)
    psf = build("psf", g, preds)
    for m in msgs:
        for v in range(g.number_of_nodes()):
            d = psf.deliver(m, v)
            want = {v} | {y for x in d.interested for y in sp.path(v, x)}
            assert d.receivers == want
            assert d.size == len(want)          # one packet each
            assert all(p.parent is None or sp.parent[v, p.processor] == p.parent for p in d.packets)


@SETTINGS
@given(problems())
def test_pif_forwards_on_child_edges_whose_combined_predicate_matches(problem):
    g, preds, msgs = problem
    sp = ShortestPaths(g)
    n = g.number_of_nodes()
    pif = build("pif", g, preds)
    for m in msgs:
        for v in range(n):
            d = pif.deliver(m, v)
            reached = d.receivers
            for u in reached:
                for w in sp.children(v, u):
                    below = set().union(*(sp.subtree(s, w) for s in range(n) if sp.parent[s, w] == u))
                    want = any(cb.matches(preds[x], m) for x in below if x in preds)
                    assert (w in reached) == want, (v, u, w)


# ---------------------------------------------------------------------------
# §4: PSF ⊆ PIF, iPS ≡ PSF

@SETTINGS
@given(problems())
def test_psf_tree_is_a_subtree_of_pif_tree(problem):
    g, preds, msgs = problem
    psf, pif = build("psf", g, preds), build("pif", g, preds)
    for m in msgs:
        for v in range(g.number_of_nodes()):
            a, b = psf.deliver(m, v), pif.deliver(m, v)
            assert set(edges_of(a)) <= set(edges_of(b))
            assert a.receivers <= b.receivers


@SETTINGS
@given(problems(), st.data())
def test_ips_delivers_exactly_what_psf_delivers(problem, data):
    g, preds, msgs = problem
    n = g.number_of_nodes()
    senders = data.draw(st.lists(st.integers(0, n - 1), unique=True, min_size=1, max_size=n))
    psf, ips = build("psf", g, preds, senders=senders), build("ips", g, preds, senders=senders)
    for m in msgs:
        for v in senders:
            a, b = psf.deliver(m, v), ips.deliver(m, v)
            assert a.receivers == b.receivers
            assert len(a.packets) == len(b.packets)
            assert edges_of(a) == edges_of(b)
    assert ips.memory()["predicate_constraints"] <= psf.memory()["predicate_constraints"]


@SETTINGS
@given(small_networks(min_n=1, max_n=8))
def test_ips_classes_follow_the_papers_two_conditions(g):
    sp = ShortestPaths(g)
    n = sp.n
    cls = source_classes(sp)
    def signature(u, v):
        kids = sp.children(v, u)
        return (kids, tuple(sp.subtree(v, w) for w in kids))

    for u in range(n):
        for a in range(n):
            for b in range(n):
                assert (cls[u, a] == cls[u, b]) == (signature(u, a) == signature(u, b))


@SETTINGS
@given(problems(networks=unit_trees()))
def test_ips_on_a_tree_classes_are_the_neighbours_and_headers_are_always_rewritten(problem):
    g, preds, msgs = problem
    sp = ShortestPaths(g)
    ips = build("ips", g, preds)
    for u in range(g.number_of_nodes()):
        by_neighbour = {}
        for v in range(g.number_of_nodes()):
            if v != u:
                by_neighbour.setdefault(sp.next_hop(u, v), set()).add(v)
        others = [c for c in ips.classes(u) if u not in c]
        assert sorted(map(sorted, others)) == sorted(map(sorted, by_neighbour.values()))
        assert frozenset({u}) in ips.classes(u)
        assert ips.rewrite[u].all()                                   # R_u = 1
        # Headers reaching u are exactly u's neighbours (and u, when it sends).
        assert ips.arriving[u] == frozenset(g[u]) | {u}
        mem = ips.memory()["per_processor"][u]
        assert mem["I"] == 0 and mem["R"] == 0
    for m in msgs:
        for v in range(g.number_of_nodes()):
            d = ips.deliver(m, v)
            assert all(p.header == (v if p.parent is None else p.parent) for p in d.packets)


# ---------------------------------------------------------------------------
# §4: ideality

@SETTINGS
@given(st.one_of(problems(networks=unit_trees()), problems(networks=real_weighted_networks())))
def test_psf_ips_and_drp_are_ideal_where_shortest_paths_are_unique(problem):
    g, preds, msgs = problem
    assume(unique_shortest_paths(g))
    for scheme in ("psf", "ips", "drp"):
        routing = build(scheme, g, preds)
        for m in msgs:
            for v in range(g.number_of_nodes()):
                d = routing.deliver(m, v)
                assert d.ideal is True, (scheme, v, d.report, d.optimum)
                assert not d.duplicates
    drp = build("drp", g, preds, unicast="ecmp", unicast_seed=5)   # no choice to make
    for m in msgs:
        assert all(drp.deliver(m, v).ideal for v in range(g.number_of_nodes()))


def figure_3():
    """Seed 002, Figure 3, with processors 1-4 numbered 0-3: 1 = 0, 2 = 1,
    3 = 2, 4 = 3. T_1 reaches 2 directly and 3 through 4, but in T_4 the
    processor 2 lies below the edge (4, 3)."""
    g = nx.Graph()
    g.add_edge(0, 1, weight=2.5)   # 1-2
    g.add_edge(0, 3, weight=1)     # 1-4
    g.add_edge(3, 2, weight=1)     # 4-3
    g.add_edge(2, 1, weight=1)     # 3-2
    p = {x: cb.parse_predicate(f"int p{x + 1} = 1") for x in range(4)}
    return topology_from(g, "figure 3"), p


def topology_from(g, name):
    g.graph["name"] = name
    return g


def test_pif_is_not_ideal_figure_3():
    g, preds = figure_3()
    m = cb.parse_message("int p2 = 1, int p4 = 1")      # processors 2 and 4 are interested
    pif, psf = build("pif", g, preds), build("psf", g, preds)
    d = pif.deliver(m, 0)
    assert d.interested == {1, 3}
    assert d.correct and d.latency_minimal
    assert 2 in d.receivers                              # 3 gets m needlessly, via (4, 3)
    assert (3, 2) in edges_of(d)
    assert d.ideal is False and d.size == 4 and d.optimum.size == 3
    # F*_4(3) = p2 ∨ p3 because 2 is below (4, 3) in T_4 ...
    assert cb.matches(preds[1], m) and 1 in ShortestPaths(g).subtree(3, 2)
    # ... while PSF's F_4(1, 3) = p3 does not match: PSF is ideal here.
    e = psf.deliver(m, 0)
    assert 2 not in e.receivers and e.ideal is True


def equal_cost_square():
    """The paper's Figure 4 counterexample, reduced: 0 (the paper's 5) reaches
    3 (the paper's 7) over two equal-cost paths, through 1 and through 2, and
    4 and 5 (the paper's 8 and 11) lie beyond 3."""
    g = nx.Graph([(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (3, 5)])
    nx.set_edge_attributes(g, 1, "weight")
    return topology_from(g, "equal-cost square")


def test_drp_with_equal_cost_paths_makes_a_processor_see_two_packets():
    g = equal_cost_square()
    everything = Predicate([Filter()])
    preds = {3: everything, 4: everything, 5: everything}
    # 0 reaches 4 through 1 and 5 through 2 (both shortest); both then go through 3.
    drp = build("drp", g, preds, unicast={0: {4: 1, 5: 2}})
    d = drp.deliver(Message(), 0)
    assert d.correct and d.latency_minimal
    assert d.duplicates == {3: 2}
    assert d.ideal is False and d.optimum.size == 5 and d.size == 7   # 0, 1, 2, 3 twice, 4, 5
    assert not unique_shortest_paths(g)
    # With the consistent tables (first hops of T_u) the same network is fine,
    # since they route along T_v exactly as PSF does.
    tree_tables = build("drp", g, preds).deliver(Message(), 0)
    assert tree_tables.ideal is True and not tree_tables.duplicates


@SETTINGS
@given(problems(), st.integers(0, 3))
def test_drp_with_any_unicast_tables_is_correct_and_latency_minimal(problem, seed):
    g, preds, msgs = problem
    drp = build("drp", g, preds, unicast="ecmp", unicast_seed=seed)
    psf = build("psf", g, preds)
    for m in msgs:
        for v in range(g.number_of_nodes()):
            d = drp.deliver(m, v)
            assert d.correct and d.latency_minimal
            # DRP only ever visits processors on a way to an interested one.
            assert all(any(x in p.header for x in d.interested) or p.parent is None for p in d.packets)
    # The default (tree) tables deliver exactly PSF's tree.
    tree = build("drp", g, preds)
    for m in msgs:
        for v in range(g.number_of_nodes()):
            assert edges_of(tree.deliver(m, v)) == edges_of(psf.deliver(m, v))


def test_drp_exists_a_duplicate_wherever_ecmp_tables_split_and_merge():
    # A 4 x 4 grid has many equal-cost paths: some seeds must duplicate.
    g = topology("grid", 16)
    everything = Predicate([Filter()])
    preds = {x: everything for x in range(16)}
    seen = 0
    for seed in range(5):
        drp = build("drp", g, preds, unicast="ecmp", unicast_seed=seed)
        for v in range(16):
            d = drp.deliver(Message(), v)
            assert d.correct and d.latency_minimal
            seen += bool(d.duplicates)
    assert seen > 0


# ---------------------------------------------------------------------------
# §4: memory

@SETTINGS
@given(problems(networks=small_networks(min_n=1, max_n=8, weights=(1,))), st.data())
def test_psf_memory_is_the_papers_formula_at_alpha_1(problem, data):
    g, preds, _ = problem
    n = g.number_of_nodes()
    senders = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    mem = build("psf", g, preds, senders=senders).memory()
    hops = dict(nx.all_pairs_shortest_path_length(g))
    constraints = sum(hops[v][x] * p.size for v in senders for x, p in preds.items())
    ids = len(senders) * math.ceil(math.log2(n)) if n > 1 else len(senders)
    assert mem["predicate_constraints"] == constraints
    assert mem["id_bits"] == ids
    assert mem["total_bits"] == ids + BITS_PER_CONSTRAINT * constraints


def test_psf_memory_formula_on_a_generated_network_with_seed_002_predicates():
    g = topology("power_law", 40, seed=2)
    preds = processor_predicates(40, 4, seed=3)
    mem = build("psf", g, preds).memory()
    hops = dict(nx.all_pairs_shortest_path_length(g))
    assert mem["predicate_constraints"] == sum(hops[v][x] * preds[x].size for v in range(40) for x in range(40))
    assert mem["id_bits"] == 40 * 6
    assert sum(p["predicate_constraints"] for p in mem["per_processor"].values()) == mem["predicate_constraints"]


def test_memory_components_add_up_for_every_scheme():
    g = topology("waxman", 20, seed=1)
    preds = processor_predicates(20, 3, seed=1)
    for scheme in SCHEMES:
        mem = build(scheme, g, preds).memory()
        assert mem["total_bits"] == mem["id_bits"] + mem["predicate_bits"]
        assert sum(mem["components"].values()) == mem["total_bits"]
        assert set(mem["per_processor"]) == set(range(20))
    drp = build("drp", g, preds).memory()
    assert drp["components"]["unicast"] == 20 * 20 * 5
    assert drp["predicate_constraints"] == 20 * sum(p.size for p in preds.values())


# ---------------------------------------------------------------------------
# Reducers and headers

@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_reducers_change_table_sizes_never_deliveries(problem):
    g, preds, msgs = problem
    base = {s: build(s, g, preds) for s in ("psf", "pif")}
    for reducer in ("siena", "cover"):
        for scheme, plain in base.items():
            reduced = build(scheme, g, preds, reducer=reducer)
            assert reduced.memory()["predicate_constraints"] <= plain.memory()["predicate_constraints"]
            for m in msgs:
                for v in range(g.number_of_nodes()):
                    assert edges_of(reduced.deliver(m, v)) == edges_of(plain.deliver(m, v))


def test_header_bits():
    g = topology("power_law", 30, seed=5)
    preds = processor_predicates(30, 3, seed=5)
    m = next(m for m in workload_messages(50, seed=5) if build("psf", g, preds).deliver(m, 0).size > 3)
    for scheme in SCHEMES:
        d = build(scheme, g, preds).deliver(m, 0)
        if scheme == "drp":
            assert d.header_bits == 5 * sum(len(p.header) for p in d.packets[1:])
        elif scheme == "siena":
            assert d.header_bits == 0
        else:
            assert d.header_bits == 5 * (d.size - 1)


def test_every_scheme_on_a_real_network_with_seed_002_predicates():
    g = topology("topohub:topozoo/Abilene")
    n = g.number_of_nodes()
    preds = processor_predicates(n, 5, seed=7)
    msgs = workload_messages(20, seed=7)
    for scheme in SCHEMES:
        routing = build(scheme, g, preds)
        for i, m in enumerate(msgs):
            d = routing.deliver(m, i % n)
            assert d.correct
            assert d.latency_minimal or scheme == "siena"


# ---------------------------------------------------------------------------
# Bad input: one-line errors

@pytest.mark.parametrize("call, message", [
    (lambda g, p: build("ospf", g, p), "unknown scheme 'ospf'; choose one of psf, ips, pif, drp, siena"),
    (lambda g, p: build("psf", g, p, reducer="magic"), "unknown reducer 'magic'"),
    (lambda g, p: build("psf", g, {**p, 9: p[0]}), "a predicate for 9, which is not a processor"),
    (lambda g, p: build("psf", g, p, senders=[0, 7]), "sender 7 is not a processor"),
    (lambda g, p: build("psf", g, {0: "int x = 1"}), "pred(0) must be a Predicate"),
    (lambda g, p: build("psf", g, p, unicast="ecmp"), "unicast applies to the drp scheme only"),
    (lambda g, p: build("drp", g, p, unicast={0: {3: 2}}), "unicast_0(3) = 2 is not a neighbour"),
    (lambda g, p: build("psf", g, p, senders=[1]).deliver(Message(), 0), "processor 0 is not a sender"),
    (lambda g, p: build("psf", g, p).deliver(Message(), 5), "source 5 is not a processor"),
])
def test_bad_input_gets_a_one_line_error(call, message):
    g = nx.path_graph(4)
    nx.set_edge_attributes(g, 1, "weight")
    preds = {x: cb.parse_predicate("int x = 1") for x in range(4)}
    with pytest.raises(RoutingError) as err:
        call(g, preds)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("edit, message", [
    (lambda g: g.add_node(4), "disconnected"),
    (lambda g: g.edges[0, 1].update(weight=0), "not a positive finite number"),
    (lambda g: g.edges[0, 1].update(weight=-2), "not a positive finite number"),
    (lambda g: g.edges[0, 1].pop("weight"), "has no weight"),
    # issue 23 §4: labels of mixed types, and weights that only convert to numbers
    (lambda g: g.add_edge(3, "x", weight=1), "nodes must be the integers 0..4"),
    (lambda g: g.edges[0, 1].update(weight=True), "weight True is not a number"),
    (lambda g: g.edges[0, 1].update(weight="2"), "weight '2' is not a number"),
    (lambda g: g.edges[0, 1].update(weight=np.bool_(True)), "True_ is not a number"),
])
def test_bad_networks_get_a_one_line_error(edit, message):
    g = nx.path_graph(4)
    nx.set_edge_attributes(g, 1, "weight")
    edit(g)
    with pytest.raises(RoutingError) as err:
        build("psf", g, {})
    assert message in str(err.value) and "\n" not in str(err.value)


@SETTINGS
@given(problems(), st.data())
def test_deliver_many_is_deliver_for_every_message(problem, data):
    g, preds, msgs = problem
    n = g.number_of_nodes()
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=len(msgs), max_size=len(msgs)))
    batch = msgs * 3
    sources = sources * 3
    for scheme in SCHEMES:
        routing = build(scheme, g, preds)
        many = routing.deliver_many(batch, sources)
        for m, v, d in zip(batch, sources, many, strict=True):
            one = routing.deliver(m, v)
            assert sorted(d.packets, key=repr) == sorted(one.packets, key=repr)
            assert d.source == v and d.message == m


def test_deliver_many_checks_its_input():
    g = topology("ring", 5)
    routing = build("psf", g, {0: cb.parse_predicate("int x = 1")})
    with pytest.raises(RoutingError, match="2 messages but 1 sources"):
        routing.deliver_many([Message(), Message()], [0])
    with pytest.raises(RoutingError, match="source 9 is not a processor"):
        routing.deliver_many([Message()], [9])


@SETTINGS
@given(problems())
def test_shared_rows_change_the_compiled_tables_never_deliveries_or_memory(problem):
    g, preds, msgs = problem
    for scheme in ("psf", "ips"):
        shared, separate = build(scheme, g, preds), build(scheme, g, preds, shared_rows=False)
        a, b = shared.memory(), separate.memory()
        assert a["total_bits"] == b["total_bits"]
        # The compiler keeps one copy of equal filters on one interface, so even
        # separate rows may compile fewer constraints than the predicates hold.
        assert all(a["per_processor"][u]["compiled_constraints"] <= b["per_processor"][u]["compiled_constraints"]
                   <= b["per_processor"][u]["predicate_constraints"] for u in a["per_processor"])
        for m in msgs:
            for v in range(g.number_of_nodes()):
                assert edges_of(shared.deliver(m, v)) == edges_of(separate.deliver(m, v))
