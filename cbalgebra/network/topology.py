"""Topologies for content-based routing: one entry point, :func:`topology`.

Seed 002 (Carzaniga, Rembert & Wolf, "Understanding Content-Based Routing
Schemes", 2006, §2) models a content-based network as a finite, connected,
undirected graph whose processors are numbered and whose edges have lengths.
Every topology built here is therefore a :class:`networkx.Graph` with

- nodes ``0..n-1`` (ints, so that distance tables are plain arrays). A network
  whose nodes have names (a real network, a file) is relabelled to ints in a
  documented order, and the original label is kept in the node attribute
  ``name``;
- a positive, finite ``weight`` on every edge (1 unless the model says more);
- ``graph.graph["name"]``: the name it was built from, with its parameters.

Names understood by :func:`topology`:

``tree``, ``ring``, ``grid``, ``gnp``, ``power_law``, ``waxman``, ``transit_stub``
    seeded generators: the same ``(name, n, seed, params)`` gives the same
    graph on every run and platform (they draw only from
    ``random.Random(f"{name}:{seed}")``, which seeds through SHA-512).
``topohub:<key>``
    a network shipped as package data by ``topohub``: the measured Internet
    Topology Zoo, CAIDA router-level AS graphs and SNDlib
    (:func:`real_networks`), and the synthetic backbone and Gabriel-graph
    collections (:func:`topohub_networks` lists all of them).
``file:<path>`` or a path ending in ``.graphml``, ``.xml``, ``.edgelist``,
``.edges`` or ``.txt``
    a GraphML file or an edge list.

Anything else, or any input that does not make a valid network, raises
:class:`TopologyError` with a one-line reason.
"""

from __future__ import annotations

import difflib
import functools
import importlib.resources
import json
import math
import numbers
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import networkx as nx

from cbalgebra.errors import CbalgebraError
from .paths import exact_weight

__all__ = ["MAX_GENERATED_NODES", "TopologyError", "generator_names", "real_networks", "topohub_networks",
           "topology"]


class TopologyError(CbalgebraError, ValueError):
    """A topology name, parameter, file or graph that does not make a valid
    network (unknown name, disconnected graph, bad weight, ...)."""


# ---------------------------------------------------------------------------
# Validation shared by every source of topologies

def _check_weight(value: Any, where: str) -> Any:
    """A weight given as a value: a positive finite int or float (numpy's
    included), checked by the rule of :func:`cbalgebra.network.paths.exact_weight`
    that shortest paths are computed by. A bool or a string is not a
    number, even one that Python could convert."""
    try:
        exact_weight(value)
    except ValueError as e:
        raise TopologyError(f"{where}: {e}") from None
    return value


def _parse_weight(text: str, where: str) -> int | float:
    """A weight written in a file: an integer (kept exact, however large)
    or a decimal number, then checked as :func:`_check_weight` does."""
    try:
        value: int | float = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise TopologyError(f"{where}: weight {text!r} is not a number") from None
    return _check_weight(value, where)


def _is_range(nodes: Any, n: int) -> bool:
    """Whether the nodes are exactly the ints 0..n-1 (any labels, even of
    mixed types that do not sort together)."""
    return all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in nodes) \
        and set(nodes) == set(range(n))


def _finish(g: nx.Graph, name: str) -> nx.Graph:
    """Check the invariants every topology satisfies and stamp its name."""
    n = g.number_of_nodes()
    if n == 0:
        raise TopologyError(f"{name}: the network has no processors")
    if not _is_range(g.nodes, n):
        raise TopologyError(f"{name}: nodes must be the integers 0..{n - 1}")
    if g.is_directed() or g.is_multigraph():
        raise TopologyError(f"{name}: the network must be a simple undirected graph")
    for u, _ in nx.selfloop_edges(g):
        raise TopologyError(f"{name}: self-loop at processor {u}")
    for u, v, data in g.edges(data=True):
        if "weight" not in data:
            raise TopologyError(f"{name}: link ({u}, {v}) has no weight")
        data["weight"] = _check_weight(data["weight"], f"{name}: link ({u}, {v})")
    if not nx.is_connected(g):
        parts = nx.number_connected_components(g)
        raise TopologyError(f"{name}: the network is disconnected ({parts} components)")
    g.graph["name"] = name
    return g


def _connect(g: nx.Graph, rng: random.Random) -> None:
    """Join the components of ``g`` into one, deterministically.

    Components are taken in order of their smallest node; each one after the
    first gets one edge from its smallest node to a node of the part already
    joined, drawn uniformly by ``rng``. This adds exactly (components - 1)
    edges and keeps n exact (instead of resampling, which can take
    arbitrarily long for sparse parameters, or keeping only the giant
    component, which changes n)."""
    components = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: c[0])
    joined = list(components[0])
    for component in components[1:]:
        g.add_edge(component[0], rng.choice(joined), weight=1)
        joined.extend(component)


#: The most processors a generated network may have. A networkx graph costs
#: about 1 kB per node and link, so ten million processors already take
#: gigabytes; a larger size is refused with one line rather than left to
#: exhaust memory, overflow or run for hours.
MAX_GENERATED_NODES = 10_000_000


def _check_size(n: int, name: str, what: str = "n") -> int:
    if n > MAX_GENERATED_NODES:
        shown = f"{n:,}" if n.bit_length() <= 64 else f"a {n.bit_length()}-bit integer"  # str() of a huge int fails
        raise TopologyError(f"{name}: {what} is {shown}, more than the {MAX_GENERATED_NODES:,} processors "
                            f"a generated network may have")
    return n


def _need_n(n: Any, name: str, minimum: int = 1) -> int:
    if n is None:
        raise TopologyError(f"{name}: give the number of processors n")
    if isinstance(n, bool) or not isinstance(n, int) or n < minimum:
        raise TopologyError(f"{name}: n must be an integer >= {minimum}, not {n!r}")
    return _check_size(n, name)


def _probability(p: Any, what: str) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise TopologyError(f"{what} must be a probability in [0, 1], not {p!r}")
    return float(p)


def _unit_weights(g: nx.Graph) -> None:
    for _, _, data in g.edges(data=True):
        data.setdefault("weight", 1)


def _random_weights(g: nx.Graph, weight_range: Any, rng: random.Random, name: str) -> None:
    """Integer weights drawn uniformly from ``weight_range = (lo, hi)``, edge
    by edge in sorted edge order (so the draw does not depend on the order
    networkx happens to store edges in)."""
    try:
        lo, hi = weight_range
    except (TypeError, ValueError):
        raise TopologyError(f"{name}: weight_range must be a pair (lo, hi)") from None
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (lo, hi)) or not 1 <= lo <= hi:
        raise TopologyError(f"{name}: weight_range must be integers 1 <= lo <= hi, not {weight_range!r}")
    for u, v in sorted(tuple(sorted(e)) for e in g.edges):
        g.edges[u, v]["weight"] = rng.randint(lo, hi)


# ---------------------------------------------------------------------------
# Seeded generators

def _tree(n: Any, rng: random.Random, kind: str = "random", k: int = 2) -> nx.Graph:
    """``kind="random"``: random recursive tree (node i attaches to a uniform
    earlier node). ``kind="kary"``: the complete k-ary tree on n nodes in heap
    order (the parent of i is (i-1)//k), balanced by construction."""
    n = _need_n(n, "tree")
    g = nx.Graph()
    g.add_nodes_from(range(n))
    if kind == "random":
        for i in range(1, n):
            g.add_edge(i, rng.randrange(i), weight=1)
    elif kind == "kary":
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise TopologyError(f"tree: k must be an integer >= 1, not {k!r}")
        for i in range(1, n):
            g.add_edge(i, (i - 1) // k, weight=1)
    else:
        raise TopologyError(f"tree: kind must be 'random' or 'kary', not {kind!r}")
    return g


def _ring(n: Any, rng: random.Random) -> nx.Graph:
    n = _need_n(n, "ring", 3)
    g = nx.cycle_graph(n)
    _unit_weights(g)
    return g


def _grid(n: Any, rng: random.Random, rows: int | None = None, cols: int | None = None) -> nx.Graph:
    """A rows x cols lattice, node r*cols + c at row r, column c. Given only n,
    rows is the largest divisor of n not above sqrt(n) (so a prime n gives a
    1 x n path): the grid always has exactly n nodes."""
    if rows is None and cols is None:
        n = _need_n(n, "grid")
        rows = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
        cols = n // rows
    else:
        if rows is None or cols is None:
            raise TopologyError("grid: give both rows and cols, or n")
        for value, what in ((rows, "rows"), (cols, "cols")):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TopologyError(f"grid: {what} must be an integer >= 1, not {value!r}")
        _check_size(rows * cols, "grid", "rows*cols")
        if n is not None and n != rows * cols:
            raise TopologyError(f"grid: n={n} but rows*cols = {rows * cols}")
    g = nx.Graph()
    g.add_nodes_from(range(rows * cols))
    for r in range(rows):
        for c in range(cols):
            here = r * cols + c
            g.nodes[here]["pos"] = (c, r)
            if c + 1 < cols:
                g.add_edge(here, here + 1, weight=1)
            if r + 1 < rows:
                g.add_edge(here, here + cols, weight=1)
    return g


def _gnp(n: Any, rng: random.Random, p: float | None = None, avg_degree: float = 4.0,
         sampler: str = "pairs") -> nx.Graph:
    """Erdős–Rényi G(n, p) (p defaults to avg_degree/(n-1)), made connected
    by :func:`_connect` (one extra edge per extra component). ``sampler``: ``"pairs"`` (default, one
    draw per pair, O(n²)) or ``"skip"`` (:func:`_skip_pairs`, O(n + links)): the same law, other draws."""
    n = _need_n(n, "gnp")
    if p is None:
        if isinstance(avg_degree, bool) or not isinstance(avg_degree, (int, float)) or not avg_degree >= 0:
            raise TopologyError(f"gnp: avg_degree must be a number >= 0, not {avg_degree!r}")
        p = min(1.0, avg_degree / (n - 1)) if n > 1 else 0.0
    p = _probability(p, "gnp: p")
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(_pair_sampler(sampler, "gnp")(n, lambda u, v: p, rng), weight=1)
    _connect(g, rng)
    return g


def _power_law(n: Any, rng: random.Random, model: str = "ba", m: int = 2, gamma: float = 2.5,
               avg_degree: float = 4.0, sampler: str = "pairs") -> nx.Graph:
    """Power-law graphs, the two models that Carzaniga, Rembert & Wolf 2006 (§3.1) lean on.

    ``model="ba"``: Barabási–Albert preferential attachment, each new node
    bringing ``m`` edges (connected by construction).
    ``model="chung_lu"``: Chung–Lu expected-degree graph with degree exponent
    ``gamma`` (> 2) and mean expected degree ``avg_degree``: node i has weight
    w_i ∝ (i+1)^(-1/(gamma-1)) and edge {u, v} appears with probability
    min(1, w_u w_v / Σw). The result is joined with :func:`_connect`, so it
    keeps all n nodes (a giant component alone would shrink n).
    ``sampler="pairs"`` (default) draws once per pair, O(n²); ``"skip"``
    (:func:`_skip_pairs`) in O(n + links): the same law, other draws."""
    n = _need_n(n, "power_law")
    g = nx.Graph()
    g.add_nodes_from(range(n))
    if model == "ba":
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise TopologyError(f"power_law: m must be an integer >= 1, not {m!r}")
        if n <= m:
            raise TopologyError(f"power_law: the Barabási–Albert model needs n > m (n={n}, m={m})")
        # Start from a star on m+1 nodes, then attach each node to m distinct
        # targets drawn proportionally to degree (a list with one entry per
        # edge end); the order of draws is fixed, so the seed fixes the graph.
        ends: list[int] = []
        for v in range(1, m + 1):
            g.add_edge(0, v, weight=1)
            ends += [0, v]
        for v in range(m + 1, n):
            targets: set[int] = set()
            while len(targets) < m:
                targets.add(rng.choice(ends))
            for t in sorted(targets):
                g.add_edge(v, t, weight=1)
                ends += [v, t]
    elif model == "chung_lu":
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not gamma > 2:
            raise TopologyError(f"power_law: gamma must be a number > 2, not {gamma!r}")
        if not avg_degree > 0:
            raise TopologyError(f"power_law: avg_degree must be > 0, not {avg_degree!r}")
        raw = [(i + 1) ** (-1.0 / (gamma - 1)) for i in range(n)]
        scale = avg_degree * n / sum(raw)
        w = [x * scale for x in raw]
        total = sum(w)
        g.add_edges_from(_pair_sampler(sampler, "power_law")(n, lambda u, v: min(1.0, w[u] * w[v] / total), rng),
                         weight=1)
        _connect(g, rng)
    else:
        raise TopologyError(f"power_law: model must be 'ba' or 'chung_lu', not {model!r}")
    if sampler != "pairs" and model != "chung_lu":
        raise TopologyError("power_law: sampler applies to model='chung_lu' only")
    return g


def _each_pair(n: int, prob: Callable[[int, int], float], rng: random.Random) -> Iterator[tuple[int, int]]:
    """Each pair {u, v}, u < v < n, in order, kept with probability prob(u, v): one draw per pair, O(n²)."""
    for u in range(n):
        for v in range(u + 1, n):
            if rng.random() < prob(u, v):
                yield u, v


def _skip_pairs(n: int, prob: Callable[[int, int], float], rng: random.Random) -> Iterator[tuple[int, int]]:
    """The law of :func:`_each_pair` for a prob(u, v) that does not increase
    with v, in O(n + links) draws: from each candidate, a geometric skip with
    the current bound p jumps over the pairs a run of Bernoulli(p) trials
    would reject (Batagelj & Brandes, "Efficient generation of large random
    networks", Phys. Rev. E 71, 2005, §3, there for a constant p), and the
    candidate it lands on is kept with probability prob/p (thinning: exactly
    prob; Miller & Hagberg, WAW 2011, Algorithm 2, for Chung–Lu). A constant
    prob keeps every candidate: G(n, p) exactly."""
    for u in range(n - 1):
        v = u + 1
        p = prob(u, v)
        while v < n and p > 0:
            if p < 1:
                # 1 - random() is in (0, 1]: the logarithm is finite
                v += int(math.log(1.0 - rng.random()) / math.log1p(-p))
            if v < n:
                q = prob(u, v)
                if rng.random() < q / p:
                    yield u, v
                p = q
                v += 1


def _pair_sampler(sampler: str, name: str) -> Callable[..., Iterator[tuple[int, int]]]:
    if sampler not in ("pairs", "skip"):
        raise TopologyError(f"{name}: sampler must be 'pairs' or 'skip', not {sampler!r}")
    return _each_pair if sampler == "pairs" else _skip_pairs


def _waxman(n: Any, rng: random.Random, alpha: float = 0.4, beta: float = 0.2,
            weight: str = "distance") -> nx.Graph:
    """Waxman graph: nodes uniform in the unit square, edge {u, v} with
    probability ``alpha * exp(-d(u, v) / (beta * L))``, L = sqrt(2) the
    largest distance, then joined with :func:`_connect`. (Waxman's paper
    and GT-ITM call the two parameters the other way round; here alpha
    scales the density and beta the reach.) ``weight="distance"``: the
    Euclidean length in thousandths of the side, rounded, at least 1, so
    weights are integers and ties exact; ``weight="hop"``: 1."""
    n = _need_n(n, "waxman")
    alpha = _probability(alpha, "waxman: alpha")
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
        raise TopologyError(f"waxman: beta must be a number > 0, not {beta!r}")
    if weight not in ("distance", "hop"):
        raise TopologyError(f"waxman: weight must be 'distance' or 'hop', not {weight!r}")
    pos = [(rng.random(), rng.random()) for _ in range(n)]
    g = nx.Graph()
    for v, xy in enumerate(pos):
        g.add_node(v, pos=xy)
    longest = math.sqrt(2)
    g.add_edges_from(_each_pair(n, lambda u, v: alpha * math.exp(-math.dist(pos[u], pos[v]) / (beta * longest)), rng))
    _connect(g, rng)
    for u, v, data in g.edges(data=True):
        data["weight"] = max(1, round(1000 * math.dist(pos[u], pos[v]))) if weight == "distance" else 1
    return g


# GT-ITM transit-stub defaults (Zegura, Calvert & Bhattacharjee, "How to Model
# an Internetwork", INFOCOM 1996). The sizes are Matchmaker's setting (Ge, Ji,
# Kurose & Towsley, "Matchmaker: Signaling for Dynamic Publish/Subscribe
# Applications", §4.4): 100 nodes, one transit domain of 4 nodes, 12 stub
# domains, i.e. 3 stub domains of 8 nodes per transit node. The edge
# probabilities and weights are our defaults: the backbone is the expensive
# part (transit-transit 10 > transit-stub 5 > stub-stub 1), and since each stub
# domain hangs by a single link, routes inside a stub domain stay inside it.
TRANSIT_STUB_DEFAULTS = {
    "transit_domains": 1, "transit_nodes": 4, "stubs_per_transit": 3, "stub_nodes": 8,
    "p_transit": 0.6, "p_stub": 0.4, "p_between_transit": 0.5,
    "transit_weight": 10, "transit_stub_weight": 5, "stub_weight": 1,
}


def _transit_stub(n: Any, rng: random.Random, **params: Any) -> nx.Graph:
    """GT-ITM transit-stub graph.

    ``transit_domains`` domains of ``transit_nodes`` nodes are each a G(n, p)
    graph with ``p_transit`` (made connected), and the transit domains are
    joined by a G(T, p_between_transit) graph (made connected) whose edges
    join a random node of each domain. Each transit node gets
    ``stubs_per_transit`` stub domains of ``stub_nodes`` nodes, each a
    G(n, p_stub) graph (made connected), hung from the transit node by one
    edge from a random stub node. Weights by level: transit-transit
    ``transit_weight`` > transit-stub ``transit_stub_weight`` > stub-stub
    ``stub_weight``. Nodes are numbered transit first (domain by domain), then
    stub domains in order; node attributes: ``level`` ("transit"/"stub"),
    ``transit_domain`` (int), ``stub_domain`` (int, -1 on transit nodes) and,
    on stub nodes, ``transit`` (the transit node their domain hangs from)."""
    unknown = set(params) - set(TRANSIT_STUB_DEFAULTS)
    if unknown:
        raise TopologyError(f"transit_stub: unknown parameter(s) {', '.join(sorted(unknown))}; "
                            f"valid: {', '.join(TRANSIT_STUB_DEFAULTS)}")
    p = {**TRANSIT_STUB_DEFAULTS, **params}
    for key in ("transit_domains", "transit_nodes", "stub_nodes"):
        if isinstance(p[key], bool) or not isinstance(p[key], int) or p[key] < 1:
            raise TopologyError(f"transit_stub: {key} must be an integer >= 1, not {p[key]!r}")
    if isinstance(p["stubs_per_transit"], bool) or not isinstance(p["stubs_per_transit"], int) \
            or p["stubs_per_transit"] < 0:
        raise TopologyError(f"transit_stub: stubs_per_transit must be an integer >= 0, "
                            f"not {p['stubs_per_transit']!r}")
    for key in ("p_transit", "p_stub", "p_between_transit"):
        _probability(p[key], f"transit_stub: {key}")
    for key in ("transit_weight", "transit_stub_weight", "stub_weight"):
        _check_weight(p[key], f"transit_stub: {key}")
    if not p["transit_weight"] >= p["transit_stub_weight"] >= p["stub_weight"]:
        raise TopologyError("transit_stub: weights must satisfy transit_weight >= "
                            "transit_stub_weight >= stub_weight")
    T, NT, K, NS = p["transit_domains"], p["transit_nodes"], p["stubs_per_transit"], p["stub_nodes"]
    for key in ("transit_domains", "transit_nodes", "stub_nodes", "stubs_per_transit"):
        _check_size(p[key], "transit_stub", key)
    total = _check_size(T * NT * (1 + K * NS), "transit_stub", "the node count")
    if n is not None and n != total:
        raise TopologyError(f"transit_stub: n={n} but the parameters give {total} nodes "
                            f"(transit_domains*transit_nodes*(1 + stubs_per_transit*stub_nodes))")
    g = nx.Graph()

    def domain(nodes: list[int], prob: float, w: float) -> None:
        sub = nx.Graph()
        sub.add_nodes_from(nodes)
        sub.add_edges_from((nodes[i], nodes[j]) for i, j in _each_pair(len(nodes), lambda i, j: prob, rng))
        _connect(sub, rng)
        g.add_edges_from(sub.edges, weight=w)

    transit_of_domain = []
    for t in range(T):
        nodes = list(range(t * NT, (t + 1) * NT))
        for v in nodes:
            g.add_node(v, level="transit", transit_domain=t, stub_domain=-1)
        domain(nodes, p["p_transit"], p["transit_weight"])
        transit_of_domain.append(nodes)
    backbone = nx.Graph()
    backbone.add_nodes_from(range(T))
    backbone.add_edges_from(_each_pair(T, lambda a, b: p["p_between_transit"], rng))
    _connect(backbone, rng)
    for a, b in sorted(tuple(sorted(e)) for e in backbone.edges):
        g.add_edge(rng.choice(transit_of_domain[a]), rng.choice(transit_of_domain[b]),
                   weight=p["transit_weight"])
    next_node, stub_id = T * NT, 0
    for t in range(T):
        for transit in transit_of_domain[t]:
            for _ in range(K):
                nodes = list(range(next_node, next_node + NS))
                for v in nodes:
                    g.add_node(v, level="stub", transit_domain=t, stub_domain=stub_id, transit=transit)
                domain(nodes, p["p_stub"], p["stub_weight"])
                g.add_edge(transit, rng.choice(nodes), weight=p["transit_stub_weight"])
                next_node += NS
                stub_id += 1
    return g


_GENERATORS: dict[str, Callable[..., nx.Graph]] = {
    "tree": _tree, "ring": _ring, "grid": _grid, "gnp": _gnp,
    "power_law": _power_law, "waxman": _waxman, "transit_stub": _transit_stub,
}
# Generators whose weights are part of the model (overriding them with
# weight_range would erase what the model means).
_OWN_WEIGHTS = {"waxman", "transit_stub"}


def generator_names() -> tuple[str, ...]:
    return tuple(_GENERATORS)


def _generate(name: str, n: Any, seed: Any, params: dict) -> nx.Graph:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TopologyError(f"{name}: seed must be an int, not {seed!r}")
    weight_range = params.pop("weight_range", None)
    if weight_range is not None and name in _OWN_WEIGHTS:
        raise TopologyError(f"{name}: weight_range does not apply, the model sets its weights")
    # One stream per (name, seed): the string seeds random.Random through
    # SHA-512, which is stable across runs and platforms (hash() is not).
    rng = random.Random(f"{name}:{seed}")
    generator = _GENERATORS[name]
    if name != "transit_stub":  # it checks its own parameter dictionary
        import inspect
        accepted = [p for p in inspect.signature(generator).parameters if p not in ("n", "rng")]
        _only(params, set(accepted) | (set() if name in _OWN_WEIGHTS else {"weight_range"}), name)
    g = generator(n, rng, **params)
    if weight_range is not None:
        _random_weights(g, weight_range, rng, name)
    described = ", ".join([f"n={g.number_of_nodes()}", f"seed={seed}"]
                          + [f"{k}={v!r}" for k, v in sorted(params.items())]
                          + ([f"weight_range={tuple(weight_range)}"] if weight_range is not None else []))
    return _finish(g, f"{name}({described})")


# ---------------------------------------------------------------------------
# Real networks from topohub

# topohub's collections: three measured (Topology Zoo, SNDlib, CAIDA AS graphs), two
# synthetic: "backbone" (continental and world backbones from submarine cables and
# city links; "_nosc" without the cables) and "gabriel" (Gabriel graphs, 10-500 nodes).
REAL_COLLECTIONS = ("topozoo", "sndlib", "caida")
TOPOHUB_COLLECTIONS = (*REAL_COLLECTIONS, "backbone", "gabriel")
# topohub gives link lengths in kilometres rounded to 0.01 km; 537 links of
# 75 Topology Zoo networks join co-located nodes and have length 0. They get
# the resolution, 0.01 km, so every weight stays positive.
ZERO_LENGTH_KM = 0.01


@functools.lru_cache(maxsize=1)
def _topohub_index() -> dict[str, dict]:
    """key ("topozoo/Abilene", "caida/2024-08/1103", "gabriel/75/3", ...) ->
    stats of the file, for every collection of :data:`TOPOHUB_COLLECTIONS`.

    topohub 1.5 loads a network by key (``topohub.get``) but has no listing
    function; its keys are the paths of its JSON package data under
    ``topohub/data`` (which ``topohub.get`` itself reads), so the listing
    walks those files and reads each one's ``graph.stats`` (about 1 s for
    all 707, once per process)."""
    try:
        # deferred: topohub (its data files) loads only for real networks
        import topohub
    except ImportError:  # pragma: no cover - topohub is a dependency
        raise TopologyError("real networks need the 'topohub' package (pip install topohub)") from None
    root = importlib.resources.files(topohub) / "data"
    index = {}
    for collection in TOPOHUB_COLLECTIONS:
        folder = Path(str(root / collection))
        for path in sorted(folder.rglob("*.json")):
            key = path.relative_to(folder.parent).with_suffix("").as_posix()
            with path.open() as f:
                stats = json.load(f)["graph"]["stats"]
            index[key] = {"path": path, "nodes": stats["nodes"], "links": stats["links"]}
    return index


def _listing(collection: str | None, allowed: tuple[str, ...]) -> list[tuple[str, int, int]]:
    if collection is not None and collection not in allowed:
        raise TopologyError(f"unknown collection {collection!r}; choose one of {', '.join(allowed)}")
    return [(key, info["nodes"], info["links"]) for key, info in _topohub_index().items()
            if key.split("/")[0] in allowed and (collection is None or key.split("/")[0] == collection)]


def real_networks(collection: str | None = None) -> list[tuple[str, int, int]]:
    """The measured networks ``topology("topohub:<key>")`` loads, as (key,
    nodes, links), sorted by key; ``collection`` keeps one of topozoo,
    sndlib, caida. :func:`topohub_networks` lists the synthetic collections too."""
    return _listing(collection, REAL_COLLECTIONS)


def topohub_networks(collection: str | None = None) -> list[tuple[str, int, int]]:
    """Every network topohub ships, as (key, nodes, links): the measured ones
    of :func:`real_networks`, then the "backbone" and "gabriel" collections
    (``collection`` keeps one of :data:`TOPOHUB_COLLECTIONS`). Each key loads
    with ``topology("topohub:<key>")``."""
    return _listing(collection, TOPOHUB_COLLECTIONS)


def _resolve_real(name: str) -> str:
    """A key of :func:`_topohub_index` for ``name``: the key itself, or a unique
    match (case-sensitive first, then case-insensitive) of the key, of its last part ("Abilene", "1103"),
    or of the key without CAIDA's snapshot date ("caida/1103")."""
    index = _topohub_index()
    if name in index:
        return name
    folded = name.casefold()

    def aliases(key: str) -> Iterator[str]:
        parts = key.split("/")
        yield key
        yield parts[-1]
        if len(parts) == 3:
            yield f"{parts[0]}/{parts[2]}"

    found = sorted(key for key in index if name in aliases(key))
    if len(found) != 1:
        found = sorted(key for key in index if any(a.casefold() == folded for a in aliases(key)))
    if len(found) == 1:
        return found[0]
    if found:
        raise TopologyError(f"topohub:{name} is ambiguous: {', '.join('topohub:' + k for k in found)}")
    everything = {a: key for key in index for a in aliases(key)}
    close = difflib.get_close_matches(name, list(everything), n=5, cutoff=0.6)
    hint = (f"; did you mean {', '.join('topohub:' + everything[c] for c in dict.fromkeys(close))}?"
            if close else "; topohub_networks() lists them")
    raise TopologyError(f"no network topohub:{name} in topohub's "
                        f"{', '.join(TOPOHUB_COLLECTIONS)} collections{hint}")


def _load_real(name: str, weight: str = "km") -> nx.Graph:
    """A topohub network: nodes renumbered 0..n-1 in the file's order, with
    attributes ``name`` (topohub's node name, or its id for the unnamed nodes
    of some CAIDA graphs; names repeat in some CAIDA and Zoo graphs, which is
    why nodes are ints), ``topohub_id`` and ``pos``
    (longitude, latitude). ``weight="km"``: the link length in kilometres
    (``length_km`` keeps topohub's value; 0 becomes :data:`ZERO_LENGTH_KM`);
    ``weight="hop"``: 1."""
    if weight not in ("km", "hop"):
        raise TopologyError(f"topohub:{name}: weight must be 'km' or 'hop', not {weight!r}")
    key = _resolve_real(name)
    # deferred: topohub (its data files) loads only for real networks
    import topohub
    data = topohub.get(key)  # topohub's loader: a networkx node-link dict
    g = nx.Graph()
    ids = {}
    for i, node in enumerate(data["nodes"]):
        ids[node["id"]] = i
        g.add_node(i, name=str(node.get("name", node["id"])), topohub_id=str(node["id"]),
                   pos=tuple(node.get("pos", ())))
    for edge in data["edges"]:
        u, v = ids[edge["source"]], ids[edge["target"]]
        length = edge.get("dist")
        w: float = 1 if weight == "hop" or length is None else (float(length) if length > 0 else ZERO_LENGTH_KM)
        if g.has_edge(u, v):  # never seen in topohub 1.5.1; keep the shorter link
            w = min(w, g.edges[u, v]["weight"])
        g.add_edge(u, v, weight=w, length_km=length)
    g.graph["unit"] = "km" if weight == "km" else "hop"
    return _finish(g, f"topohub:{key}")


# ---------------------------------------------------------------------------
# Files

_GRAPHML_SUFFIXES = (".graphml", ".xml")
_EDGELIST_SUFFIXES = (".edgelist", ".edges", ".txt")


def _relabel(g: nx.Graph, order: list) -> nx.Graph:
    """Nodes to 0..n-1: kept if they already are exactly those ints, else in
    ``order`` (first appearance), the original label kept in ``name``."""
    if all(isinstance(x, int) for x in order) and set(order) == set(range(len(order))):
        return g
    mapping = {label: i for i, label in enumerate(order)}
    h = nx.relabel_nodes(g, mapping)
    for label, i in mapping.items():
        h.nodes[i].setdefault("name", str(label))
    return h


def _int_label(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text


def _read_edgelist(path: Path, shown: str) -> nx.Graph:
    """``u v [weight]`` per line; ``#`` starts a comment; a line ``u`` alone
    declares an isolated node (which then fails the connectivity check).
    Labels that read as ints are ints. Weights: all given or none given
    (none: every link weighs 1); a mix is an error, as is a repeated link."""
    g = nx.Graph()
    order: list = []
    weighted = None
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise TopologyError(f"{shown}: cannot read: {err}") from None
    for number, line in enumerate(lines, 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        where = f"{shown}:{number}"
        if len(fields) > 3:
            raise TopologyError(f"{where}: expected 'u v [weight]', got {len(fields)} fields")
        labels = [_int_label(x) for x in fields[:2]]
        for label in labels:
            if label not in g:
                g.add_node(label)
                order.append(label)
        if len(fields) == 1:
            continue
        u, v = labels
        if u == v:
            raise TopologyError(f"{where}: self-loop at {u}")
        if g.has_edge(u, v):
            raise TopologyError(f"{where}: link ({u}, {v}) appears twice")
        has_weight = len(fields) == 3
        if weighted is None:
            weighted = has_weight
        elif weighted != has_weight:
            raise TopologyError(f"{where}: some links have a weight and some do not")
        w = _parse_weight(fields[2], where) if has_weight else 1
        g.add_edge(u, v, weight=w)
    return _relabel(g, order)


def _read_graphml(path: Path, shown: str, weight_attr: str) -> nx.Graph:
    """GraphML, undirected. The edge attribute ``weight_attr`` (default
    ``weight``) is the weight: present on every edge or on none (none: 1)."""
    try:
        raw = nx.read_graphml(path)
    except (nx.NetworkXError, ElementTree.ParseError, KeyError, ValueError, TypeError) as err:
        # networkx lets XML, key and value errors of a broken file through.
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise TopologyError(f"{shown}: not a readable GraphML file: {reason}") from None
    if raw.is_directed():
        raise TopologyError(f"{shown}: the graph is directed; a content-based network is undirected")
    if raw.is_multigraph():
        raise TopologyError(f"{shown}: parallel links are not allowed")
    g = nx.Graph()
    order = list(raw.nodes)
    for label, data in raw.nodes(data=True):
        g.add_node(_int_label(label) if isinstance(label, str) else label, **data)
    order = [(_int_label(x) if isinstance(x, str) else x) for x in order]
    if len(set(order)) != len(order):
        raise TopologyError(f"{shown}: two node ids read as the same integer (e.g. '1' and '01')")
    with_weight = [weight_attr in d for _, _, d in raw.edges(data=True)]
    if any(with_weight) and not all(with_weight):
        raise TopologyError(f"{shown}: some links have a '{weight_attr}' and some do not")
    for u, v, data in raw.edges(data=True):
        u2 = _int_label(u) if isinstance(u, str) else u
        v2 = _int_label(v) if isinstance(v, str) else v
        if u2 == v2:
            raise TopologyError(f"{shown}: self-loop at {u}")
        attrs = dict(data)
        w = attrs.pop(weight_attr, 1)
        # GraphML declares each attribute's type: a string-typed weight is text to read.
        where = f"{shown}: link ({u}, {v})"
        attrs["weight"] = _parse_weight(w.strip(), where) if isinstance(w, str) else _check_weight(w, where)
        g.add_edge(u2, v2, **attrs)
    return _relabel(g, order)


def _load_file(spec: str, weight_attr: str = "weight", format: str | None = None) -> nx.Graph:
    path = Path(spec)
    if not path.is_file():
        raise TopologyError(f"no such topology file: {spec}")
    if format is None:
        format = "graphml" if path.suffix.lower() in _GRAPHML_SUFFIXES else "edgelist"
    if format == "graphml":
        g = _read_graphml(path, spec, weight_attr)
    elif format == "edgelist":
        if weight_attr != "weight":
            raise TopologyError(f"{spec}: weight_attr applies to GraphML only")
        g = _read_edgelist(path, spec)
    else:
        raise TopologyError(f"{spec}: format must be 'graphml' or 'edgelist', not {format!r}")
    return _finish(g, f"file:{spec}")


def _looks_like_path(name: str) -> bool:
    return name.lower().endswith(_GRAPHML_SUFFIXES + _EDGELIST_SUFFIXES)


# ---------------------------------------------------------------------------
# The entry point

def topology(name: Any, n: int | None = None, seed: int = 0, **params: Any) -> nx.Graph:
    """Build the network called ``name`` (see the module docstring).

    ``n`` is the number of processors for generators (``transit_stub`` derives
    it from its parameters and only checks a given n); for a real network or
    a file a given n must match. ``seed`` makes generators deterministic.
    Extra keyword parameters go to the generator (e.g. ``kind="kary", k=3``
    for ``tree``, ``model="chung_lu", gamma=2.3`` for ``power_law``,
    ``weight_range=(1, 10)`` for random integer weights on the graphs whose
    model does not fix them), to the real-network loader (``weight="km"`` or
    ``"hop"``), or to the file reader (``weight_attr``, ``format``)."""
    if isinstance(name, Path):
        name = f"file:{name}"
    if not isinstance(name, str):
        raise TopologyError(f"a topology name is a string, not {type(name).__name__}")
    if name in _GENERATORS:
        return _generate(name, n, seed, dict(params))
    if name.startswith("topohub:"):
        g = _load_real(name[len("topohub:"):], **_only(params, {"weight"}, name))
    elif name.startswith("file:") or _looks_like_path(name):
        spec = name.removeprefix("file:")
        g = _load_file(spec, **_only(params, {"weight_attr", "format"}, name))
    else:
        close = difflib.get_close_matches(name, list(_GENERATORS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise TopologyError(f"unknown topology {name!r}{hint}; valid names: {', '.join(_GENERATORS)}, "
                            f"'topohub:<network>' (see topohub_networks()), 'file:<path>'")
    if n is not None and n != g.number_of_nodes():
        raise TopologyError(f"{g.graph['name']} has {g.number_of_nodes()} processors, not n={n}")
    return g


def _only(params: dict, allowed: set, name: str) -> dict:
    extra = set(params) - allowed
    if extra:
        raise TopologyError(f"{name}: unknown parameter(s) {', '.join(sorted(extra))}; "
                            f"valid: {', '.join(sorted(allowed))}")
    return params
