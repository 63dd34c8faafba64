"""Shortest paths of a network: dist, the trees T_v and the shortest-path DAG.

Seed 002 (Carzaniga, Rembert & Wolf, "Understanding Content-Based Routing
Schemes", 2006) needs, for every source v, the distance function dist (§2),
the shortest-paths spanning tree T_v "computed by Dijkstra's algorithm" that
PSF, iPS and PIF forward along (§3.1-3.3), the unicast next hop of DRP (§3.4)
and, to judge whether a delivery is ideal (§2.3), all shortest paths at once.

**Exact lengths.** Which arcs lie on shortest paths, and so every tree T_v,
every DAG and every latency verdict, is decided in exact arithmetic, with no
tolerance. A weight is a positive int or a finite positive float, and its
value is exact: an int is itself; a float is the shortest decimal that reads
back as that float (``repr``: the 0.1 a user wrote, not its binary
neighbour), so 0.1 + 0.2 = 0.3 as written, and topohub's 0.01 km lengths add
exactly. (Reading a float as its binary value would be exact too, but it
makes 0.1 + 0.2 longer than 0.3 by 2**-55 and splits the ties of every
network written in decimals.) Every weight is then an integer multiple of one unit 1/D, D the
least common multiple of the weights' denominators, and lengths are computed
on the integers w·D (:func:`scaled_weights`):

- when the sum Σ of all scaled weights is below 2**52 (every integer or unit
  weight below 2**52 / m, topohub's lengths, ...), scipy's float64 Dijkstra
  is exact. Proof: Dijkstra only ever forms d(u) + w(u, x), where d(u) is the
  length of a simple path (an integer <= Σ) and w(u, x) <= Σ; both are
  integers and their sum is below 2**53, so every addition is exact, and so
  is every comparison. The tightness test d(v, u) + w(u, x) == d(v, x) below
  forms the same sums.
- otherwise (weights of very different scales, such as 1e-12 beside 1e12, or
  sums beyond 2**52) the same Dijkstra runs on Python integers: slower, but
  exact at any size, and it cannot overflow. Floats then only shortlist
  the arcs that may be tight (see ``_Arcs._tight_python_ints``: a margin
  proven to keep them all) and integers decide.

Weights that have no exact value (NaN, infinities, <= 0, bools, strings) are
refused with a one-line ValueError before anything is computed, as are ints
beyond the float range (a delivery's packets add path lengths in floats); a
zero weight is refused because a parent must be strictly closer than its
child.

**Tie-break of T_v.** The parent of x != v in T_v is the *smallest node id*
u with dist(v, u) + w(u, x) = dist(v, x), exactly. Every such u is strictly
closer to v (w(u, x) > 0), so following parents strictly decreases the
distance and always ends at v; the lengths telescope, so the path to every x
has length dist(v, x): T_v is a shortest-path tree. It is the same on every
run and does not depend on the order in which edges were added to the graph.

**Float views.** ``ShortestPaths.dist`` holds every exact distance rounded to
the nearest float (inf beyond the float range); it is for display and
arithmetic, never for deciding ties. :func:`same_length` (a relative 1e-9
tolerance) only matches the float path lengths a delivery's packets claim
against each other (:mod:`cbalgebra.network.delivery`).

**All pairs.** scipy.sparse.csgraph's Dijkstra. Measured against networkx
by ``benchmarks/routing_paths.py`` on ~1,000-node graphs (2 shared cores
under load 8): :func:`dist` 0.1-0.3 s, networkx 1.1-3.3 s, 10-27x slower;
the whole :class:`ShortestPaths` (exact dist plus every T_v) 0.2-0.6 s, no
slower than the tolerance it replaced. On weights 1e-12 beside 1e12 (Python
integers) it takes 4.3 s.
"""

from __future__ import annotations

import heapq
import itertools
import math
import sys
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import networkx as nx
import numpy as np

__all__ = [
    "TIE_TOLERANCE",
    "ShortestPaths",
    "SourceTrees",
    "dist",
    "exact_weight",
    "same_length",
    "scaled_weights",
    "shortest_path_parents",
    "shortest_paths",
]

TIE_TOLERANCE = 1e-9

#: Below this sum of scaled weights, float64 Dijkstra is exact (module docstring).
FLOAT_EXACT_SUM = 2**52

#: Bound on the temporary (sources x arcs) arrays of the tightness test.
_CHUNK_CELLS = 4_000_000


def same_length(a: float, b: float) -> bool:
    """Whether two claimed float path lengths agree up to :data:`TIE_TOLERANCE`
    (for matching a delivery's packets; shortest paths are decided exactly)."""
    return a == b or abs(a - b) <= TIE_TOLERANCE * max(1.0, abs(a), abs(b))


# ---------------------------------------------------------------------------
# Exact weights

def exact_weight(w: Any) -> int | Fraction:
    """The exact value of a link weight (see the module docstring): an int as
    itself, a float as the shortest decimal that reads back as it. ValueError,
    one line, for anything that is not a finite positive int or float."""
    if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, float, np.integer, np.floating)):
        raise ValueError(f"weight {w!r} is not a number (an int or a float)")
    if not isinstance(w, (int, np.integer)):
        f = float(w)
        if not math.isfinite(f) or f <= 0:
            raise ValueError(f"weight {w!r} is not a positive finite number")
        return int(f) if f.is_integer() else Fraction(repr(f))
    if w <= 0:
        raise ValueError(f"weight {w!r} is not a positive finite number")
    if w > sys.float_info.max:  # deliveries add path lengths in floats
        raise ValueError(f"weight of {len(str(int(w)))} digits is beyond the float range "
                         f"(at most {sys.float_info.max:g})")
    return int(w)


def scaled_weights(weights: Iterable[Any]) -> tuple[list[int], int]:
    """The weights as integers in a common unit: (scaled, D) with
    weight_i = scaled_i / D exactly, D the least common multiple of the exact
    values' denominators (1 for integer weights)."""
    values = [exact_weight(w) for w in weights]
    denominator = 1
    for v in values:
        if isinstance(v, Fraction):
            denominator = math.lcm(denominator, v.denominator)
    if denominator == 1:
        return [int(v) for v in values], 1
    return [v.numerator * (denominator // v.denominator) for v in map(Fraction, values)], denominator


def _float_exact(scaled: Sequence[int]) -> bool:
    """Whether float64 Dijkstra over ``scaled`` (each edge once) is exact."""
    return sum(scaled) < FLOAT_EXACT_SUM


# ---------------------------------------------------------------------------
# Exact distances and parents over arc arrays

class _Arcs:
    """Both directions of every edge, sorted by head then tail (the order the
    parent computation relies on), with exact integer lengths in units of
    1/``denominator``. ``exact_floats``: every length computation fits
    float64 exactly, so lengths are float64 arrays; otherwise Python ints
    (object arrays)."""

    def __init__(self, n: int, edges: Iterable[tuple[int, int, Any]]):
        ends, raw = [], []
        for u, v, w in edges:
            ends.append((u, v))
            raw.append(w)
        scaled, self.denominator = scaled_weights(raw)
        self.n = n
        self.exact_floats = _float_exact(scaled)
        dtype = np.float64 if self.exact_floats else object
        tail = np.asarray([u for u, v in ends] + [v for u, v in ends], dtype=np.int64)
        head = np.asarray([v for u, v in ends] + [u for u, v in ends], dtype=np.int64)
        length = np.asarray(scaled + scaled, dtype=dtype)
        order = np.lexsort((tail, head))
        self.tail, self.head, self.length = tail[order], head[order], length[order]
        self.lookup = {(int(t), int(h)): s for t, h, s in zip(self.tail.tolist(), self.head.tolist(),
                                                              self.length.tolist(), strict=True)}
        self._matrix: Any = None

    def distances(self, sources: Sequence[int]) -> np.ndarray:
        """Exact scaled distances from each source (rows), inf where unreachable."""
        if self.exact_floats:
            # deferred: scipy loads only when distances are computed
            from scipy.sparse import csr_array
            from scipy.sparse.csgraph import dijkstra
            if self._matrix is None:  # built once: SourceTrees asks for one batch of sources at a time
                self._matrix = csr_array((self.length, (self.tail, self.head)), shape=(self.n, self.n))
            return np.atleast_2d(dijkstra(self._matrix, directed=True, indices=list(sources)))
        out = np.full((len(sources), self.n), math.inf, dtype=object)
        adjacent: list[list[tuple[int, int]]] = [[] for _ in range(self.n)]
        for t, h, s in zip(self.tail.tolist(), self.head.tolist(), self.length.tolist(), strict=True):
            adjacent[t].append((h, s))
        for row, source in enumerate(sources):
            best: list[int | float] = [math.inf] * self.n
            best[source] = 0
            heap: list[tuple[int, int]] = [(0, source)]
            while heap:
                d, u = heapq.heappop(heap)
                if d > best[u]:
                    continue
                for x, s in adjacent[u]:
                    if d + s < best[x]:
                        best[x] = d + s
                        heapq.heappush(heap, (d + s, x))
            out[row] = best
        return out

    def tight(self, lengths: np.ndarray) -> np.ndarray:
        """tight[i, a]: arc a = (u, x) lies on a shortest path from the source
        of row i: x is reachable and d(u) + w(u, x) == d(x), exactly."""
        if lengths.dtype == object:
            return self._tight_python_ints(lengths)
        through = lengths[:, self.tail] + self.length
        direct = lengths[:, self.head]
        return (through == direct) & (direct != math.inf)

    def _tight_python_ints(self, lengths: np.ndarray) -> np.ndarray:
        """:meth:`tight` on Python-int lengths: floats find the candidates, ints
        decide. Rounding d(u), w and d(x) to floats and adding errs by at most
        3.0001 * 2**-53 * d(x) < 4e-16 d(x) on a tight arc (each rounding is
        relative, every value is >= 1), so a relative 1e-12 keeps every tight
        arc among the candidates; the exact test then drops the near misses."""
        try:
            approx = lengths.astype(np.float64)
            weight = self.length.astype(np.float64)
            near_the_top = max(np.max(approx, where=np.isfinite(approx), initial=0.0), weight.max()) > 2.0**1000
        except OverflowError:
            near_the_top = True
        if near_the_top:  # float sums could overflow: test every arc exactly
            through = lengths[:, self.tail] + self.length
            direct = lengths[:, self.head]
            return np.asarray((through == direct) & (direct != math.inf), dtype=bool)
        through_f = approx[:, self.tail] + weight
        direct_f = approx[:, self.head]
        rows, arcs = np.nonzero((np.abs(through_f - direct_f) <= 1e-12 * direct_f) & np.isfinite(direct_f))
        tight = np.zeros(through_f.shape, dtype=bool)
        table, tail, head, length = lengths.tolist(), self.tail.tolist(), self.head.tolist(), self.length.tolist()
        for r, a in zip(rows.tolist(), arcs.tolist(), strict=True):
            row = table[r]
            tight[r, a] = row[tail[a]] + length[a] == row[head[a]]
        return tight

    def parents(self, lengths: np.ndarray) -> np.ndarray:
        """parent[i, x]: the smallest-id tail of a tight arc into x (-1 at the
        source and where x is unreachable)."""
        rows, n = lengths.shape[0], self.n
        parent = np.full((rows, n), -1, dtype=np.int64)
        if len(self.head) == 0:
            return parent
        # Arcs are grouped by head and, inside a group, sorted by tail, so the
        # minimum over a group's tight tails is the smallest-id parent.
        starts = np.flatnonzero(np.r_[True, self.head[1:] != self.head[:-1]])
        heads = self.head[starts]
        chunk = max(1, _CHUNK_CELLS // len(self.tail))
        for first in range(0, rows, chunk):
            block = slice(first, min(rows, first + chunk))
            candidates = np.where(self.tight(lengths[block]), self.tail, n)
            best = np.minimum.reduceat(candidates, starts, axis=1)
            best[best == n] = -1  # only the source (or an unreachable node) has no tight arc in
            parent[block, heads] = best
        return parent

    def to_float(self, lengths: np.ndarray) -> np.ndarray:
        """Exact scaled lengths as floats in the weights' unit, each correctly
        rounded (inf beyond the float range)."""
        if self.exact_floats and self.denominator < 2**53:
            # Both operands are exact floats: IEEE division rounds correctly.
            return lengths / float(self.denominator)
        return np.vectorize(self._rounded, otypes=[np.float64])(lengths)

    def _rounded(self, value: Any) -> float:
        if value == math.inf:
            return math.inf
        try:
            return int(value) / self.denominator  # int / int rounds correctly in Python
        except OverflowError:
            return math.inf


def shortest_path_parents(n: int, edges: Iterable[tuple[int, int, Any]], sources: Sequence[int]) -> np.ndarray:
    """The exact shortest-path trees of an undirected graph on nodes 0..n-1:
    ``parent[i, x]`` is the parent of x in the tree of ``sources[i]``, the
    smallest-id u with dist(s, u) + w(u, x) = dist(s, x) in exact arithmetic
    (see the module docstring), -1 at the source itself and at the nodes it
    cannot reach. ``edges``: (u, v, weight) triples, weights positive finite
    ints or floats (ValueError, one line, otherwise)."""
    arcs = _Arcs(n, edges)
    return arcs.parents(arcs.distances(list(sources)))


class SourceTrees:
    """The trees T_v of :class:`ShortestPaths` (the same exact distances and
    smallest-id tie-break), a batch of sources at a time: memory grows with
    the batch times n plus the links, never n², so networks of 10⁵ nodes fit
    where all pairs would not. ``edges``: (u, v, weight) triples of an
    undirected graph on 0..n-1 (:meth:`from_graph` takes a topology). Pickles
    small: the edges, not the arrays built from them."""

    def __init__(self, n: int, edges: Iterable[tuple[int, int, Any]]):
        self._build(n, [(int(u), int(v), w) for u, v, w in edges])

    def _build(self, n: int, edges: list[tuple[int, int, Any]]) -> None:
        self.n = n
        self.edges = edges
        self._arcs = _Arcs(n, edges)
        #: degree[u]: u's neighbours
        self.degree = np.bincount(self._arcs.tail, minlength=n)
        self._adjacency: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    @classmethod
    def from_graph(cls, graph: nx.Graph) -> SourceTrees:
        return cls(_nodes_checked(graph), graph.edges(data="weight", default=1))

    def parents(self, sources: Sequence[int]) -> np.ndarray:
        """parent[i, x]: the parent of x in T_{sources[i]} (-1 at the root),
        equal to ``ShortestPaths(graph).parent[sources[i]]``."""
        arcs = self._arcs
        return arcs.parents(arcs.distances(list(sources)))

    def batch(self, cells: int = 2_000_000) -> int:
        """Sources per call of :meth:`parents` that keep its arrays under
        about ``cells`` entries of n (at least 1)."""
        return max(1, cells // max(1, self.n, len(self._arcs.tail)))

    def arc_index(self, tail: np.ndarray, head: np.ndarray) -> np.ndarray:
        """The index of each arc (tail[i], head[i]) in the order of
        :attr:`arc_tail` / :attr:`arc_head` (arcs must exist)."""
        key = self._arcs.head * self.n + self._arcs.tail      # sorted: arcs are by head, then tail
        return np.searchsorted(key, np.asarray(head, dtype=np.int64) * self.n + np.asarray(tail, dtype=np.int64))

    def adjacency(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """The graph as compiled tree growth reads it (``cbalgebra.network._tree_kernels``):
        ``start`` (n + 1 offsets) and, for processor u's slots (int32 up to 2**31 arcs)
        ``start[u]:start[u + 1]``, its neighbours by id, the scaled lengths
        as float64 and the index of the arc (u, neighbour) in the order of
        :attr:`arc_tail`; the slots are those arcs grouped by head, so slot s of u is the arc
        (neighbour, u) itself. None when the lengths need Python integers (the
        float64 sums would not be exact: see the module docstring); computed
        once."""
        if self._adjacency is None and self._arcs.exact_floats:
            arcs = self._arcs
            # arcs are grouped by head: the group of u lists u's neighbours (as tails), ascending
            ids = np.int32 if len(arcs.tail) < 2**31 else np.int64   # half the memory traffic of int64
            start = np.searchsorted(arcs.head, np.arange(self.n + 1)).astype(ids)
            self._adjacency = (start, arcs.tail.astype(ids), arcs.length.astype(np.float64),
                               self.arc_index(arcs.head, arcs.tail).astype(ids))
        return self._adjacency

    def equal_lengths(self) -> bool:
        """Whether every link has the same length (trees are then BFS trees)."""
        length = self._arcs.length
        return bool(len(length) == 0 or (length == length[0]).all())

    @property
    def arc_tail(self) -> np.ndarray:
        return self._arcs.tail

    @property
    def arc_head(self) -> np.ndarray:
        return self._arcs.head

    def __getstate__(self) -> dict:
        return {"n": self.n, "edges": self.edges}

    def __setstate__(self, state: dict) -> None:
        self._build(state["n"], state["edges"])  # rebuild the arrays rather than ship them


def _nodes_checked(graph: nx.Graph) -> int:
    n = graph.number_of_nodes()
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in graph.nodes) \
            or set(graph.nodes) != set(range(n)):
        raise ValueError("nodes must be 0..n-1 (build graphs with cbalgebra.network.topology)")
    return n


def _graph_arcs(graph: nx.Graph) -> _Arcs:
    n = _nodes_checked(graph)
    edges = []
    for u, v, w in graph.edges(data="weight", default=1):
        try:
            exact_weight(w)
        except ValueError as e:
            raise ValueError(f"link ({u}, {v}): {e}") from None
        edges.append((u, v, w))
    return _Arcs(n, edges)


def dist(graph: nx.Graph, method: str = "scipy") -> np.ndarray:
    """All-pairs shortest-path lengths as an n x n float array indexed by node
    (``method="scipy"``: the exact lengths of :class:`ShortestPaths`, each
    rounded to the nearest float, so exactly symmetric; ``"networkx"``: the
    networkx reference in float arithmetic, kept for the benchmark and the
    tests)."""
    n = _nodes_checked(graph)
    if method == "networkx":
        table = np.full((n, n), np.inf)
        for source, lengths in nx.all_pairs_dijkstra_path_length(graph, weight="weight"):
            for target, length in lengths.items():
                table[source, target] = length
        return np.minimum(table, table.T)
    if method != "scipy":
        raise ValueError(f"method must be 'scipy' or 'networkx', not {method!r}")
    arcs = _graph_arcs(graph)
    return arcs.to_float(arcs.distances(range(n)))


class ShortestPaths:
    """dist, T_v and the shortest-path DAG of a connected weighted graph with
    nodes 0..n-1.

    ``dist[u, x]`` is dist(u, x) rounded to a float; ``exact_dist[u, x] /
    denominator`` is dist(u, x) exactly (``exact_dist`` holds integers:
    float64 when they fit, else Python ints), for comparing distances;
    ``parent[v, x]`` is the parent of x in T_v (-1 for x = v). Per-source
    views (children, subtrees, DAG predecessors, next hops) are computed on
    first use and kept."""

    def __init__(self, graph: nx.Graph):
        arcs = _graph_arcs(graph)
        n = arcs.n
        if n == 0 or not nx.is_connected(graph):
            raise ValueError("shortest paths need a connected, non-empty graph")
        self.graph = graph
        self.n = n
        self._arcs = arcs
        self.denominator = arcs.denominator
        self.exact_dist = arcs.distances(range(n))
        self.exact_dist.setflags(write=False)
        self.dist = arcs.to_float(self.exact_dist)
        self.dist.setflags(write=False)
        self.parent = arcs.parents(self.exact_dist)
        self.parent.setflags(write=False)
        self._children: dict[int, tuple[tuple[int, ...], ...]] = {}
        self._first_hop: dict[int, np.ndarray] = {}
        self._subtree: dict[tuple[int, int], frozenset[int]] = {}

    # -- the tree T_v -------------------------------------------------------

    def _check(self, *nodes: int) -> None:
        for x in nodes:
            if isinstance(x, bool) or not (isinstance(x, (int, np.integer)) and 0 <= x < self.n):
                raise ValueError(f"{x!r} is not a processor of this network (0..{self.n - 1})")

    def by_distance(self, v: int) -> np.ndarray:
        """The processors in order of exact distance from v, ties by id (so a
        parent in T_v always comes before its children)."""
        self._check(v)
        return np.argsort(self.exact_dist[v], kind="stable")

    def children(self, v: int, u: int) -> tuple[int, ...]:
        """child_u(v): the children of u in T_v, ascending."""
        self._check(v, u)
        if v not in self._children:
            lists: list[list[int]] = [[] for _ in range(self.n)]
            for x, p in enumerate(self.parent[v].tolist()):
                if p >= 0:
                    lists[p].append(x)
            self._children[v] = tuple(tuple(c) for c in lists)
        return self._children[v][u]

    def subtree(self, v: int, w: int) -> frozenset[int]:
        """T_v/w: w and all its descendants in T_v."""
        self._check(v, w)
        key = (v, w)
        if key not in self._subtree:
            seen, stack = [], [w]
            while stack:
                x = stack.pop()
                seen.append(x)
                stack.extend(self.children(v, x))
            self._subtree[key] = frozenset(seen)
        return self._subtree[key]

    def descendants_via(self, v: int, u: int, w: int) -> frozenset[int]:
        """T_v/(u, w): T_v/w if w is a child of u in T_v, else the empty set."""
        self._check(v, u, w)
        return self.subtree(v, w) if self.parent[v, w] == u else frozenset()

    def path(self, v: int, x: int) -> tuple[int, ...]:
        """The path from v to x in T_v, both ends included."""
        self._check(v, x)
        nodes = [x]
        while nodes[-1] != v:
            nodes.append(int(self.parent[v, nodes[-1]]))
        return tuple(reversed(nodes))

    def tree_edges(self, v: int) -> list[tuple[int, int]]:
        """The edges (parent, child) of T_v, by child."""
        self._check(v)
        return [(int(p), x) for x, p in enumerate(self.parent[v].tolist()) if p >= 0]

    def next_hop(self, u: int, x: int) -> int:
        """unicast_u(x) of DRP (§3.4): u's neighbour on its path to x in T_u
        (u itself when x = u)."""
        self._check(u, x)
        if u not in self._first_hop:
            hop = np.full(self.n, u, dtype=np.int64)
            # Closer nodes first, so a parent's first hop is known before its children's.
            for y in self.by_distance(u).tolist():
                p = int(self.parent[u, y])
                if p >= 0:
                    hop[y] = y if p == u else hop[p]
            self._first_hop[u] = hop
        return int(self._first_hop[u][x])

    # -- the DAG of all shortest paths ----------------------------------------

    def on_shortest_path(self, v: int, u: int, x: int) -> bool:
        """Whether (u, x) is a link lying on a shortest path from v:
        dist(v, u) + w(u, x) = dist(v, x), exactly."""
        self._check(v, u, x)
        length = self._arcs.lookup.get((int(u), int(x)))
        return length is not None and self.exact_dist[v, u] + length == self.exact_dist[v, x]

    def links_on_shortest_paths(self, v: int, links: Iterable[tuple[int, int]]) -> list[bool]:
        """:meth:`on_shortest_path` for many links from one source v at once."""
        self._check(v)
        row = self.exact_dist[v].tolist()
        lookup = self._arcs.lookup
        out = []
        for u, x in links:
            length = lookup.get((int(u), int(x)))
            out.append(length is not None and row[u] + length == row[x])
        return out

    def dag_edges(self, v: int) -> list[tuple[int, int]]:
        """Every arc (u, x) on some shortest path from v, sorted."""
        self._check(v)
        tight = self._arcs.tight(self.exact_dist[[v]])[0]
        return sorted(zip(self._arcs.tail[tight].tolist(), self._arcs.head[tight].tolist(), strict=True))

    def dag(self, v: int) -> nx.DiGraph:
        """The shortest-path DAG rooted at v: every node, every tight arc."""
        g = nx.DiGraph()
        g.add_nodes_from(range(self.n))
        g.add_edges_from(self.dag_edges(v))
        return g

    def is_shortest(self, v: int, walk: Iterable[int]) -> bool:
        """Whether the walk (a node sequence starting at v) is a path of the
        graph whose length is dist(v, last node), exactly."""
        nodes = list(walk)
        if not nodes or nodes[0] != v:
            return False
        return all(self.on_shortest_path(v, a, b) if a in self.graph and b in self.graph else False
                   for a, b in itertools.pairwise(nodes))


def shortest_paths(graph: nx.Graph) -> ShortestPaths:
    return ShortestPaths(graph)
