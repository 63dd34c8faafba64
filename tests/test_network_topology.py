"""Topologies: seeded generators, GT-ITM transit-stub, topohub, files, errors."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from network_oracles import small_networks

from cbalgebra.network import TopologyError, real_networks, topohub_networks, topology
from cbalgebra.network.topology import (
    TRANSIT_STUB_DEFAULTS,
    ZERO_LENGTH_KM,
    _each_pair,
    _skip_pairs,
    generator_names,
)

GENERATED = [
    ("tree", {}), ("tree", {"kind": "kary", "k": 3}), ("ring", {}), ("grid", {}),
    ("gnp", {}), ("gnp", {"p": 0.05}), ("power_law", {}), ("power_law", {"model": "chung_lu", "gamma": 2.3}),
    ("waxman", {}), ("waxman", {"weight": "hop"}), ("gnp", {"weight_range": (1, 9)}), ("gnp", {"sampler": "skip"}),
    ("power_law", {"model": "chung_lu", "sampler": "skip"}),
    ("tree", {"weight_range": (2, 5)}),
]


def snapshot(g: nx.Graph):
    return (sorted(g.nodes(data=True), key=lambda x: x[0]),
            sorted((min(u, v), max(u, v), sorted(d.items())) for u, v, d in g.edges(data=True)))


def assert_valid(g: nx.Graph, n: int | None = None):
    assert sorted(g.nodes) == list(range(g.number_of_nodes()))
    if n is not None:
        assert g.number_of_nodes() == n
    assert nx.is_connected(g)
    assert not g.is_directed() and not g.is_multigraph()
    assert nx.number_of_selfloops(g) == 0
    for _, _, w in g.edges(data="weight"):
        assert isinstance(w, (int, float)) and math.isfinite(w) and w > 0


# ---------------------------------------------------------------- generators

@pytest.mark.parametrize("name,params", GENERATED, ids=lambda x: str(x))
@settings(max_examples=15)
@given(n=st.integers(3, 60), seed=st.integers(0, 2**31))
def test_generators_are_connected_positive_and_deterministic(name, params, n, seed):
    g = topology(name, n=n, seed=seed, **params)
    assert_valid(g, n)
    assert snapshot(topology(name, n=n, seed=seed, **params)) == snapshot(g)


def test_generators_are_deterministic_across_processes():
    script = ("from cbalgebra.network import topology;"
              "g = topology('waxman', n=40, seed=7);"
              "print(sorted((u, v, w) for u, v, w in g.edges(data='weight')))")
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env={"PYTHONHASHSEED": str(h), "PATH": ""}, check=True).stdout for h in (1, 2)}
    assert len(runs) == 1
    g = topology("waxman", n=40, seed=7)
    assert runs.pop().strip() == str(sorted((u, v, w) for u, v, w in g.edges(data="weight")))


@pytest.mark.parametrize("name,params", [(n, p) for n, p in GENERATED if n not in ("ring", "grid")
                                         and p.get("kind") != "kary"], ids=lambda x: str(x))
def test_seeds_change_random_graphs(name, params):
    graphs = {str(snapshot(topology(name, n=30, seed=s, **params))) for s in range(5)}
    assert len(graphs) > 1


def test_tree_shapes():
    for seed in range(5):
        g = topology("tree", n=25, seed=seed)
        assert nx.is_tree(g)
    k3 = topology("tree", n=13, kind="kary", k=3)
    assert nx.is_tree(k3) and sorted(k3[0]) == [1, 2, 3] and sorted(k3[1]) == [0, 4, 5, 6]
    assert all(w == 1 for *_, w in k3.edges(data="weight"))


def test_ring_grid_and_ba_sizes():
    assert sorted(d for _, d in topology("ring", n=9).degree) == [2] * 9
    g = topology("grid", n=12)   # 3 x 4
    assert g.number_of_edges() == 3 * 3 + 2 * 4
    assert topology("grid", rows=2, cols=5).number_of_nodes() == 10
    assert topology("grid", n=7).number_of_edges() == 6  # a prime: a 1 x 7 path
    ba = topology("power_law", n=50, m=3, seed=1)
    assert ba.number_of_edges() == 3 + (50 - 4) * 3


def test_gnp_and_chung_lu_keep_n_when_sparse():
    # p = 0 gives n components; the connection step joins them with n-1 edges.
    g = topology("gnp", n=20, p=0.0)
    assert nx.is_tree(g) and g.number_of_nodes() == 20
    cl = topology("power_law", n=200, model="chung_lu", gamma=2.1, avg_degree=1.0, seed=3)
    assert_valid(cl, 200)


CHUNG_LU_W = [6.0, 4.0, 3.0, 2.0, 2.0, 1.0, 1.0, 0.5, 0.25, 0.1]


@pytest.mark.parametrize("law", ["chung_lu", "gnp", "gnp_dense"])
def test_skip_sampler_keeps_each_pair_with_its_probability(law):
    """The skipping sampler (Batagelj & Brandes's geometric skip, Miller &
    Hagberg's thinning) draws every pair {u, v} with probability prob(u, v):
    Chung–Lu's min(1, w_u w_v / Σw) and G(n, p)'s constant p."""
    total = sum(CHUNG_LU_W)
    n, prob = {"chung_lu": (len(CHUNG_LU_W), lambda u, v: min(1.0, CHUNG_LU_W[u] * CHUNG_LU_W[v] / total)),
               "gnp": (12, lambda u, v: 0.15), "gnp_dense": (8, lambda u, v: 0.9)}[law]
    trials = 4000
    rng = random.Random(f"skip-law:{law}")
    counts: dict[tuple[int, int], int] = {}
    for _ in range(trials):
        for edge in _skip_pairs(n, prob, rng):
            counts[edge] = counts.get(edge, 0) + 1
    for u in range(n):
        for v in range(u + 1, n):
            p = prob(u, v)
            sd = math.sqrt(trials * p * (1 - p))
            assert abs(counts.get((u, v), 0) - trials * p) <= 5 * sd + 1e-9, (u, v)


def test_skip_sampler_edge_counts_are_binomial_like_the_pairwise_ones():
    """G(n, p) by both samplers: the edge count is Binomial(n(n-1)/2, p), mean
    and variance (each within 4 of its standard errors), and the two samplers'
    degree distributions agree (chi-square two-sample test, fixed seeds)."""
    from scipy import stats

    n, p, trials = 60, 0.05, 1500
    pairs = n * (n - 1) // 2
    degrees: dict[str, np.ndarray] = {}
    for name, sampler in (("pairs", _each_pair), ("skip", _skip_pairs)):
        rng = random.Random(f"gnp-law:{name}")
        counts, degree = [], np.zeros(n, dtype=np.int64)
        histogram = np.zeros(n, dtype=np.int64)
        for _ in range(trials):
            degree[:] = 0
            edges = list(sampler(n, lambda u, v: p, rng))
            for u, v in edges:
                degree[u] += 1
                degree[v] += 1
            counts.append(len(edges))
            histogram += np.bincount(degree, minlength=n)
        counts_a = np.asarray(counts, dtype=float)
        mean, var = pairs * p, pairs * p * (1 - p)
        assert abs(counts_a.mean() - mean) <= 4 * math.sqrt(var / trials), name
        # the sample variance's standard error for a near-normal count: var·sqrt(2/(trials-1))
        assert abs(counts_a.var(ddof=1) - var) <= 4 * var * math.sqrt(2 / (trials - 1)), name
        degrees[name] = histogram
    table = np.vstack([degrees["pairs"], degrees["skip"]])
    table = table[:, table.sum(axis=0) >= 20]                   # the chi-square needs populated cells
    assert stats.chi2_contingency(table).pvalue > 1e-3


def test_skip_graphs_are_seeded_connected_and_keep_n():
    a = topology("power_law", 3000, seed=4, model="chung_lu", sampler="skip")
    b = topology("power_law", 3000, seed=4, model="chung_lu", sampler="skip")
    assert sorted(a.edges) == sorted(b.edges) and a.number_of_nodes() == 3000
    degrees = sorted((d for _, d in a.degree), reverse=True)
    assert degrees[0] > 10 * np.mean(degrees)          # hubs: a heavy tail
    g = topology("gnp", 100_000, seed=4, sampler="skip")
    assert_valid(g, 100_000)
    assert abs(2 * g.number_of_edges() / 100_000 - 4.0) < 0.05    # avg_degree 4, plus the joining edges
    sparse = topology("gnp", 50, p=0.0, sampler="skip")            # n components joined by n - 1 edges
    assert nx.is_tree(sparse) and sparse.number_of_nodes() == 50
    for name, params in (("power_law", {"sampler": "skip"}), ("gnp", {"sampler": "fast"})):
        with pytest.raises(TopologyError, match="sampler"):
            topology(name, 30, seed=4, **params)


def test_waxman_weights_are_scaled_distances():
    g = topology("waxman", n=30, seed=4)
    for u, v, w in g.edges(data="weight"):
        assert w == max(1, round(1000 * math.dist(g.nodes[u]["pos"], g.nodes[v]["pos"])))


def test_weight_range_draws_integers_in_range():
    g = topology("gnp", n=40, seed=2, weight_range=(3, 7))
    weights = {w for *_, w in g.edges(data="weight")}
    assert weights <= set(range(3, 8)) and len(weights) > 1


# ---------------------------------------------------------------- transit-stub

def test_transit_stub_default_is_matchmakers_setting():
    g = topology("transit_stub", seed=0)
    assert_valid(g, 100)
    transit = [v for v in g if g.nodes[v]["level"] == "transit"]
    stub = [v for v in g if g.nodes[v]["level"] == "stub"]
    assert len(transit) == 4 and {g.nodes[v]["transit_domain"] for v in transit} == {0}
    domains = {}
    for v in stub:
        domains.setdefault(g.nodes[v]["stub_domain"], []).append(v)
    assert len(domains) == 12 and all(len(nodes) == 8 for nodes in domains.values())
    for nodes in domains.values():
        assert nx.is_connected(g.subgraph(nodes))
        transit_of = {g.nodes[v]["transit"] for v in nodes}
        assert len(transit_of) == 1 and transit_of <= set(transit)
        # Exactly one link leaves the domain, to its own transit node.
        leaving = [(u, x) for u in nodes for x in g[u] if x not in nodes]
        assert len(leaving) == 1 and leaving[0][1] in transit_of
    weights = {TRANSIT_STUB_DEFAULTS["transit_weight"]: ("transit", "transit"),
               TRANSIT_STUB_DEFAULTS["transit_stub_weight"]: ("transit", "stub"),
               TRANSIT_STUB_DEFAULTS["stub_weight"]: ("stub", "stub")}
    for u, v, w in g.edges(data="weight"):
        assert tuple(sorted((g.nodes[u]["level"], g.nodes[v]["level"]), reverse=True)) == weights[w]
    assert TRANSIT_STUB_DEFAULTS["transit_weight"] > TRANSIT_STUB_DEFAULTS["transit_stub_weight"] \
        > TRANSIT_STUB_DEFAULTS["stub_weight"]
    assert nx.is_connected(g.subgraph(transit))


@settings(max_examples=20)
@given(seed=st.integers(0, 10**6), domains=st.integers(1, 3), per=st.integers(1, 4),
       stubs=st.integers(0, 3), size=st.integers(1, 5))
def test_transit_stub_sizes_and_connectivity(seed, domains, per, stubs, size):
    g = topology("transit_stub", seed=seed, transit_domains=domains, transit_nodes=per,
                 stubs_per_transit=stubs, stub_nodes=size)
    assert_valid(g, domains * per * (1 + stubs * size))
    assert sum(g.nodes[v]["level"] == "transit" for v in g) == domains * per


# ---------------------------------------------------------------- topohub

@pytest.mark.parametrize("key", ["topozoo/Abilene", "topozoo/Geant2012", "sndlib/polska", "sndlib/germany50",
                                 "caida/2024-08/1103", "caida/2024-08/7018"])
def test_topohub_networks_load_with_km_weights(key):
    import json

    from cbalgebra.network.topology import _topohub_index
    info = {k: (nodes, links) for k, nodes, links in real_networks()}
    g = topology(f"topohub:{key}")
    assert_valid(g, info[key][0])
    assert g.number_of_edges() == info[key][1]
    assert g.graph["name"] == f"topohub:{key}" and g.graph["unit"] == "km"
    with _topohub_index()[key]["path"].open() as f:
        raw = json.load(f)
    ids = {node["id"]: i for i, node in enumerate(raw["nodes"])}
    for i, node in enumerate(raw["nodes"]):
        # 35 CAIDA graphs have unnamed nodes: their id stands in.
        assert g.nodes[i]["name"] == str(node.get("name", node["id"]))
    for edge in raw["edges"]:
        w = g.edges[ids[edge["source"]], ids[edge["target"]]]["weight"]
        assert w == (edge["dist"] if edge["dist"] > 0 else ZERO_LENGTH_KM)
    hops = topology(f"topohub:{key}", weight="hop")
    assert {w for *_, w in hops.edges(data="weight")} == {1}


def test_real_networks_lists_the_three_collections():
    listing = real_networks()
    collections = {key.split("/")[0] for key, _, _ in listing}
    assert collections == {"topozoo", "sndlib", "caida"}
    assert len(real_networks("sndlib")) == 26 and all(n > 0 for _, n, _ in listing)
    with pytest.raises(TopologyError, match="collection"):
        real_networks("gabriel")


def test_topohub_short_names_and_zero_lengths():
    assert topology("topohub:polska").graph["name"] == "topohub:sndlib/polska"
    assert topology("topohub:Abilene").graph["name"] == "topohub:topozoo/Abilene"  # exact case wins
    assert topology("topohub:caida/1103").graph["name"] == "topohub:caida/2024-08/1103"
    marnet = topology("topohub:Marnet")  # co-located nodes: length 0 in topohub
    assert min(w for *_, w in marnet.edges(data="weight")) == ZERO_LENGTH_KM
    assert any(d["length_km"] == 0 for *_, d in marnet.edges(data=True))


def test_topohub_unknown_names_suggest_close_ones():
    with pytest.raises(TopologyError, match=r"no network topohub:Abilen\b.*did you mean .*topozoo/Abilene"):
        topology("topohub:Abilen")
    with pytest.raises(TopologyError, match="topohub_networks"):
        topology("topohub:qqqqqqqq")
    with pytest.raises(TopologyError, match="ambiguous"):
        topology("topohub:ABILENE")
    with pytest.raises(TopologyError, match="not n=5"):
        topology("topohub:Abilene", n=5)
    with pytest.raises(TopologyError, match="weight"):
        topology("topohub:Abilene", weight="miles")


# ---------------------------------------------------------------- files

def test_edge_list_files(tmp_path):
    path = tmp_path / "net.edgelist"
    path.write_text("# a weighted square with a tail\na b 2\nb c 1.5\nc d 2 # comment\nd a 1\nd e 4\n")
    g = topology(str(path))
    assert_valid(g, 5)
    assert [g.nodes[i]["name"] for i in range(5)] == ["a", "b", "c", "d", "e"]
    assert g.edges[1, 2]["weight"] == 1.5
    assert topology(f"file:{path}").graph["name"] == f"file:{path}"
    plain = tmp_path / "ints.txt"
    plain.write_text("0 1\n1 2\n2 0\n")
    h = topology(f"file:{plain}", n=3)
    assert {w for *_, w in h.edges(data="weight")} == {1} and "name" not in h.nodes[0]


def test_graphml_files_round_trip(tmp_path):
    g = nx.Graph()
    g.add_edge("Rome", "Milan", weight=477.0)
    g.add_edge("Milan", "Turin", weight=126.0)
    path = tmp_path / "italy.graphml"
    nx.write_graphml(g, path)
    h = topology(str(path))
    assert_valid(h, 3)
    names = {h.nodes[i]["name"]: i for i in h}
    assert h.edges[names["Rome"], names["Milan"]]["weight"] == 477.0
    unweighted = nx.path_graph(4)
    nx.write_graphml(unweighted, tmp_path / "p.graphml")
    p = topology(f"file:{tmp_path / 'p.graphml'}")
    assert sorted(p.edges) == [(0, 1), (1, 2), (2, 3)] and {w for *_, w in p.edges(data="weight")} == {1}
    lengths = nx.Graph()
    lengths.add_edge(0, 1, km=3.5)
    nx.write_graphml(lengths, tmp_path / "km.graphml")
    assert topology(str(tmp_path / "km.graphml"), weight_attr="km").edges[0, 1]["weight"] == 3.5


@pytest.mark.parametrize("text,reason", [
    ("a b 1\nc d 1\n", "disconnected"),
    ("a b 0\n", "not a positive"),
    ("a b -2\n", "not a positive"),
    ("a b nan\n", "not a positive"),
    ("a b inf\n", "not a positive"),
    ("a b heavy\n", "not a number"),
    ("a b 1\nb c\n", "some links have a weight"),
    ("a a 1\n", "self-loop"),
    ("a b 1\nb a 2\n", "appears twice"),
    ("a b 1 2\n", "expected 'u v"),
    ("a b\nc\n", "disconnected"),
    ("# nothing\n", "no processors"),
])
def test_bad_edge_lists(tmp_path, text, reason):
    path = tmp_path / "bad.edges"
    path.write_text(text)
    with pytest.raises(TopologyError, match=reason) as err:
        topology(str(path))
    assert "\n" not in str(err.value)


def test_bad_graphml(tmp_path):
    d = nx.DiGraph([(0, 1)])
    nx.write_graphml(d, tmp_path / "d.graphml")
    with pytest.raises(TopologyError, match="directed"):
        topology(str(tmp_path / "d.graphml"))
    mixed = nx.Graph()
    mixed.add_edge(0, 1, weight=1.0)
    mixed.add_edge(1, 2)
    nx.write_graphml(mixed, tmp_path / "m.graphml")
    with pytest.raises(TopologyError, match="some links have a 'weight'"):
        topology(str(tmp_path / "m.graphml"))
    nan = nx.Graph()
    nan.add_edge(0, 1, weight=float("nan"))
    nx.write_graphml(nan, tmp_path / "n.graphml")
    with pytest.raises(TopologyError, match="not a positive"):
        topology(str(tmp_path / "n.graphml"))
    # issue 23 §4: a boolean-typed weight is not a number; a string-typed one is text to read
    flag = nx.Graph()
    flag.add_edge(0, 1, weight=True)
    nx.write_graphml(flag, tmp_path / "b.graphml")
    with pytest.raises(TopologyError, match="weight True is not a number"):
        topology(str(tmp_path / "b.graphml"))
    text = nx.Graph()
    text.add_edge(0, 1, weight="2.5")
    nx.write_graphml(text, tmp_path / "s.graphml")
    assert topology(str(tmp_path / "s.graphml")).edges[0, 1]["weight"] == 2.5
    (tmp_path / "junk.graphml").write_text("<graphml><oops")
    with pytest.raises(TopologyError, match="not a readable GraphML"):
        topology(str(tmp_path / "junk.graphml"))
    with pytest.raises(TopologyError, match="no such topology file"):
        topology(str(tmp_path / "missing.graphml"))


# ---------------------------------------------------------------- errors

def test_unknown_names_list_the_valid_ones():
    with pytest.raises(TopologyError) as err:
        topology("hypercube", n=8)
    message = str(err.value)
    assert isinstance(err.value, ValueError)
    for name in generator_names():
        assert name in message
    assert "topohub:" in message and "file:" in message
    with pytest.raises(TopologyError, match="did you mean gnp"):
        topology("gpn", n=5)
    with pytest.raises(TopologyError, match="a topology name is a string"):
        topology(42)


@pytest.mark.parametrize("call,reason", [
    (lambda: topology("gnp"), "give the number of processors"),
    (lambda: topology("gnp", n=0), "n must be an integer >= 1"),
    (lambda: topology("ring", n=2), "n must be an integer >= 3"),
    (lambda: topology("gnp", n=5, p=1.5), "probability"),
    (lambda: topology("gnp", n=5, avg_degree=-1), "gnp: avg_degree must be a number >= 0, not -1"),
    (lambda: topology("gnp", n=5, avg_degree=float("nan")), "gnp: avg_degree must be a number >= 0"),
    (lambda: topology("gnp", n=5, flavour=1), "unknown parameter.*flavour.*valid: avg_degree, p"),
    (lambda: topology("tree", n=5, kind="binary"), "kind must be"),
    (lambda: topology("power_law", n=5, model="kleinberg"), "model must be"),
    (lambda: topology("power_law", n=3, m=3), "n > m"),
    (lambda: topology("power_law", n=9, model="chung_lu", gamma=2), "gamma must be"),
    (lambda: topology("grid", rows=2), "both rows and cols"),
    (lambda: topology("grid", n=5, rows=2, cols=3), "rows\\*cols"),
    (lambda: topology("waxman", n=5, weight_range=(1, 2)), "weight_range does not apply"),
    (lambda: topology("gnp", n=5, weight_range=(0, 2)), "weight_range must be integers"),
    (lambda: topology("gnp", n=5, seed="x"), "seed must be an int"),
    (lambda: topology("transit_stub", n=99), "n=99 but the parameters give 100"),
    (lambda: topology("transit_stub", stub_nodes=0), "stub_nodes must be"),
    (lambda: topology("transit_stub", transit_weight=1, stub_weight=2), "weights must satisfy"),
    (lambda: topology("transit_stub", transit_weight=float("nan")), "not a positive"),
    (lambda: topology("transit_stub", hosts=3), "unknown parameter"),
    # issue 23: sizes that overflowed (exit 70), exhausted memory or hung
    (lambda: topology("ring", n=10**23), "ring: n is a 77-bit integer, more than the 10,000,000 processors"),
    (lambda: topology("ring", n=2**31), "ring: n is 2,147,483,648, more than the 10,000,000"),
    (lambda: topology("grid", rows=10**5, cols=10**5), "grid: rows\\*cols is 10,000,000,000, more than"),
    (lambda: topology("transit_stub", transit_domains=10**400), "transit_domains is a 1329-bit integer"),
    (lambda: topology("transit_stub", transit_domains=1000, stubs_per_transit=1000),
     "the node count is 32,004,000, more than"),
])
def test_bad_parameters(call, reason):
    with pytest.raises(TopologyError, match=reason) as err:
        call()
    assert "\n" not in str(err.value)


def test_import_cbalgebra_stays_light():
    script = ("import sys, cbalgebra;"
              "print(sorted(m for m in ('cbalgebra.network', 'topohub', 'scipy', 'networkx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    script = ("import sys; from cbalgebra.network import topology; topology('ring', n=4);"
              "print(sorted(m for m in ('topohub', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@settings(max_examples=30)
@given(g=small_networks(min_n=2, weights=(1, 2.5, 7)), shift=st.integers(0, 5))
def test_files_round_trip_random_networks(tmp_path_factory, g, shift):
    # Labels shifted away from 0..n-1 (and, in GraphML, made strings) must come
    # back as 0..n-1 in first-appearance order, with the label in `name`.
    folder = tmp_path_factory.mktemp("rt")
    labelled = nx.relabel_nodes(g, {v: f"p{v + shift}" for v in g})
    edges = sorted(labelled.edges(data="weight"))
    (folder / "g.edges").write_text("".join(f"{u} {v} {w}\n" for u, v, w in edges))
    nx.write_graphml(labelled, folder / "g.graphml")
    for h in (topology(str(folder / "g.edges")), topology(f"file:{folder / 'g.graphml'}")):
        assert_valid(h, g.number_of_nodes())
        back = {(h.nodes[u]["name"], h.nodes[v]["name"]): w for u, v, w in h.edges(data="weight")}
        assert {frozenset(k): w for k, w in back.items()} == {frozenset((u, v)): w for u, v, w in edges}


def test_every_topohub_network_loads_connected_with_valid_weights():
    """Every collection topohub ships loads (backbone and gabriel included),
    to a connected graph of exactly the listed size with positive finite weights."""
    listing = topohub_networks()
    collections = {key.split("/")[0] for key, _, _ in listing}
    assert collections == {"topozoo", "sndlib", "caida", "backbone", "gabriel"}
    assert {k for k, _, _ in real_networks()} < {k for k, _, _ in listing}
    assert len(topohub_networks("gabriel")) == 360 and len(topohub_networks("backbone")) == 20
    for key, nodes, links in listing:
        g = topology(f"topohub:{key}")
        assert_valid(g, nodes)
        assert g.number_of_edges() == links and g.graph["name"] == f"topohub:{key}"


def test_the_largest_topohub_network_loads():
    world = topology("topohub:backbone/world")
    assert_valid(world, 3815)
    assert topology("topohub:world").graph["name"] == "topohub:backbone/world"
    assert topology("topohub:gabriel/500/9", weight="hop").number_of_nodes() == 500
    with pytest.raises(TopologyError, match="collection"):
        topohub_networks("rocketfuel")
