"""Small random networks and exact reference answers for the network tests.

The references use exact rational arithmetic (weights are decimals, read
with Fraction(str(w))), so they decide ties without any tolerance: the
float code under test has to agree with them.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import networkx as nx
from hypothesis import strategies as st

# 0.1 + 0.2 != 0.3 in floats: these weights make the tolerance matter.
DECIMAL_WEIGHTS = (0.1, 0.2, 0.3)


@st.composite
def small_networks(draw, min_n: int = 1, max_n: int = 8, weights=(1, 2, 3)):
    """A connected graph on 0..n-1: a random spanning tree plus random extra
    edges, weights from ``weights`` (few values, so many ties)."""
    n = draw(st.integers(min_n, max_n))
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for v in range(1, n):
        g.add_edge(v, draw(st.integers(0, v - 1)), weight=draw(st.sampled_from(weights)))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n) if not g.has_edge(u, v)]
    for u, v in draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []:
        g.add_edge(u, v, weight=draw(st.sampled_from(weights)))
    return g


def exact_dist(g: nx.Graph) -> dict[tuple[int, int], Fraction]:
    """Floyd–Warshall in rationals."""
    n = g.number_of_nodes()
    inf = None
    d = {(u, v): (Fraction(0) if u == v else inf) for u in range(n) for v in range(n)}
    for u, v, w in g.edges(data="weight"):
        d[u, v] = d[v, u] = Fraction(str(w))
    for k in range(n):
        for i in range(n):
            if d[i, k] is None:
                continue
            for j in range(n):
                if d[k, j] is not None and (d[i, j] is None or d[i, k] + d[k, j] < d[i, j]):
                    d[i, j] = d[i, k] + d[k, j]
    return d


def exact_tight_arcs(g: nx.Graph, d, v: int) -> set[tuple[int, int]]:
    """Arcs (u, x) with dist(v, u) + w(u, x) = dist(v, x), exactly."""
    arcs = set()
    for a, b, w in g.edges(data="weight"):
        w = Fraction(str(w))
        for u, x in ((a, b), (b, a)):
            if d[v, u] + w == d[v, x]:
                arcs.add((u, x))
    return arcs


def brute_force_smallest_tree(nodes: list[int], arcs: list[tuple[int, int]], source: int,
                              terminals: set[int]) -> int:
    """Enumerate every subset of DAG arcs; keep those forming an
    arborescence rooted at the source (each node at most one parent, every
    node reached from the source) that contains all terminals; return the
    fewest nodes (arcs + 1)."""
    best = None
    for k in range(len(arcs) + 1):
        if best is not None and k + 1 >= best:
            break
        for subset in itertools.combinations(arcs, k):
            heads = [x for _, x in subset]
            if len(set(heads)) != len(heads) or source in heads:
                continue
            parent = {x: u for u, x in subset}
            covered = {source} | set(heads)
            if not terminals <= covered:
                continue
            ok = True
            for x in heads:  # climb to the root; arcs are in a DAG, so no cycles
                y = x
                while y != source and ok:
                    if y not in parent:
                        ok = False
                    y = parent.get(y, source)
                if not ok:
                    break
            if ok:
                best = k + 1
                break
    return best if best is not None else 1


def all_dag_paths(arcs: set[tuple[int, int]], source: int, target: int) -> list[tuple[int, ...]]:
    preds: dict[int, list[int]] = {}
    for u, x in arcs:
        preds.setdefault(x, []).append(u)

    def back(x):
        if x == source:
            return [(source,)]
        return [(*p, x) for u in preds.get(x, ()) for p in back(u)]

    return back(target)


def exact_value(w) -> Fraction:
    """A weight's exact value as paths.py defines it: an int as itself, a
    float as the shortest decimal that reads back as it (its repr)."""
    return Fraction(w) if isinstance(w, int) else Fraction(repr(float(w)))


def fraction_dijkstra(g: nx.Graph, source) -> dict:
    """dist(source, x) for every reachable x, in Fractions: Dijkstra with
    exact sums, on any hashable node labels (a linear scan, no heap)."""
    done: dict = {}
    best = {source: Fraction(0)}
    while best:
        u = min(best, key=lambda x: best[x])
        done[u] = best.pop(u)
        for x, data in g[u].items():
            if x not in done:
                d = done[u] + exact_value(data["weight"])
                if x not in best or d < best[x]:
                    best[x] = d
    return done


def exact_parents(g: nx.Graph, source, key=lambda x: x) -> dict:
    """The parent of every reachable x != source in the exact shortest-path
    tree: the smallest (by ``key``) u with dist(u) + w(u, x) = dist(x)."""
    d = fraction_dijkstra(g, source)
    return {x: min((u for u in g[x] if u in d and d[u] + exact_value(g.edges[u, x]["weight"]) == d[x]), key=key)
            for x in d if x != source}


# Weights over every scale the issue names: ties at 1e-12 and 1e12, unit
# weights, decimals, huge ints, 1e12 beside 1e-12, and arbitrary floats.
SCALED_WEIGHTS = st.one_of(
    st.sampled_from([1e-12, 2e-12, 3e-12, 1e-9, 1e-10, 0.1, 0.2, 0.3, 1, 2, 3, 1e9, 1e12, 2e12, 1e12 + 1]),
    st.integers(1, 2**64),
    st.floats(min_value=1e-12, max_value=1e12),
)


@st.composite
def scaled_networks(draw, min_n: int = 1, max_n: int = 8):
    """A connected graph on 0..n-1 whose weights are drawn from one scale
    (many exact ties) or from :data:`SCALED_WEIGHTS` (mixed scales)."""
    one_scale = draw(st.sampled_from([None, 1e-12, 1, 1e12]))
    weights = (SCALED_WEIGHTS if one_scale is None
               else st.integers(1, 3).map(lambda k: k * one_scale))
    n = draw(st.integers(min_n, max_n))
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for v in range(1, n):
        g.add_edge(v, draw(st.integers(0, v - 1)), weight=draw(weights))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n) if not g.has_edge(u, v)]
    for u, v in draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []:
        g.add_edge(u, v, weight=draw(weights))
    return g
