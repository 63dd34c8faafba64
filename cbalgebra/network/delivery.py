"""Delivery trees and what makes them good (Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes", 2006, §2.2-2.3).

A routing scheme answers a message m injected at source v with a delivery
tree D: one vertex per packet processed, the root being v itself with the
initial header. Here a delivery is a list of :class:`Packet` (processor,
parent processor, header, path length), the root packet included, so

- |D| (:attr:`DeliveryReport.size`) is the number of packets listed, the
  root included (the number of link transmissions is |D| - 1);
- D is *correct* when every interested processor appears in it;
- D is *latency-minimal* when every interested processor x is first reached
  over a path of length dist(v, x);
- a routing scheme is *ideal* when its trees are the smallest latency-minimal
  ones; :func:`smallest_latency_minimal_tree` computes that smallest size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import networkx as nx
import numpy as np

from cbalgebra.errors import CbalgebraError
from .paths import ShortestPaths, same_length

__all__ = [
    "EXACT_LIMIT",
    "DeliveryError",
    "DeliveryReport",
    "Packet",
    "SteinerResult",
    "check_delivery",
    "smallest_latency_minimal_tree",
    "union_of_tree_paths",
]


class Packet(NamedTuple):
    """One vertex of a delivery tree: ``processor`` received the message from
    ``parent`` (None for the root, at the source) with ``header``, after
    travelling ``path_length`` from the source (0 at the root)."""
    processor: int
    parent: int | None
    header: Any
    path_length: float


class DeliveryError(CbalgebraError, ValueError):
    """A packet list that is not a delivery tree of the network (no root, a
    hop over a missing link, a path length that does not add up, ...)."""


def _validate(graph: nx.Graph, source: int, packets: list[Packet]) -> list[int]:
    """Every packet must extend a packet of its parent by one link, and the
    packets must form one tree rooted at the source (a parent processor may
    hold several packets; the one whose length matches, the nearest if
    several do, is the parent vertex). Returns each packet's parent packet
    (-1 for the root)."""
    roots = [i for i, p in enumerate(packets) if p.parent is None]
    if len(roots) != 1:
        raise DeliveryError(f"a delivery has exactly one root packet (parent None), found {len(roots)}")
    root = packets[roots[0]]
    if root.processor != source or root.path_length != 0:
        raise DeliveryError(f"the root packet must be at the source {source} with path length 0, "
                            f"got processor {root.processor}, length {root.path_length}")
    at: dict[int, list[int]] = {}
    for i, p in enumerate(packets):
        if p.processor not in graph:
            raise DeliveryError(f"packet at {p.processor!r}: not a processor of the network")
        at.setdefault(p.processor, []).append(i)
    up = [-1] * len(packets)
    for i, p in enumerate(packets):
        if p.parent is None:
            continue
        if not graph.has_edge(p.parent, p.processor):
            raise DeliveryError(f"packet {i}: no link between {p.parent} and {p.processor}")
        w = graph.edges[p.parent, p.processor]["weight"]
        # Compared where the sum is formed: a claim rounds relative to its own size.
        matching = [j for j in at.get(p.parent, ()) if same_length(packets[j].path_length + w, p.path_length)]
        if not matching:
            raise DeliveryError(f"packet {i} at {p.processor}: no packet at its parent {p.parent} "
                                f"with path length {p.path_length - w} (it claims {p.path_length})")
        up[i] = matching[0] if len(matching) == 1 else \
            min(matching, key=lambda j: (abs(packets[j].path_length + w - p.path_length), j))
    # Claimed lengths match only up to a tolerance, so they need not grow along
    # the parent links: check that those links lead back to the root.
    rooted = [up[i] < 0 for i in range(len(packets))]  # the root, then every packet found to lead to it
    for i in range(len(packets)):
        chain, on_chain, j = [], set(), i
        while not rooted[j]:
            if j in on_chain:
                raise DeliveryError(f"packet {i} at {packets[i].processor}: its parent packets form a cycle, "
                                    "not a tree rooted at the source")
            chain.append(j)
            on_chain.add(j)
            j = up[j]
        for k in chain:
            rooted[k] = True
    return up


def _on_shortest_paths(paths: ShortestPaths, source: int, packets: list[Packet], up: list[int]) -> list[bool]:
    """Per packet: whether it travelled a shortest path from the source, i.e.
    every link on its way lies on a shortest path (the lengths telescope), in
    exact arithmetic: a float sum such as 1e12 + 1e-12 cannot tell."""
    hops = [(p.parent if p.parent is not None else p.processor, p.processor) for p in packets]
    tight = paths.links_on_shortest_paths(source, hops)
    memo: dict[int, bool] = {}
    for i in range(len(packets)):
        chain, j = [], i
        while j not in memo and up[j] >= 0:
            chain.append(j)
            j = up[j]
        verdict = memo.setdefault(j, up[j] < 0 or memo.get(j, False))
        for k in reversed(chain):
            verdict = verdict and tight[k]
            memo[k] = verdict
    return [memo[i] for i in range(len(packets))]


@dataclass(frozen=True)
class DeliveryReport:
    """What :func:`check_delivery` found. Mappings are sorted tuples of pairs,
    so a report is immutable and compares by value."""
    source: int
    interested: frozenset[int]
    size: int                                        # |D|, root included
    missed: frozenset[int]                           # interested, never reached
    late: tuple[tuple[int, float, float], ...]       # (x, first arrival length, dist(v, x))
    duplicates: tuple[tuple[int, int], ...]          # (processor, packets received > 1)
    optimum: SteinerResult | None = None

    @property
    def correct(self) -> bool:
        return not self.missed

    @property
    def latency_minimal(self) -> bool:
        """Every interested processor reached first over a shortest path
        (a missed processor makes the delivery not latency-minimal)."""
        return not self.missed and not self.late

    @property
    def ideal(self) -> bool | None:
        """Correct, latency-minimal and no larger than the smallest such tree;
        None when that size is only bounded (or was not computed)."""
        if not self.latency_minimal:
            return False
        if self.optimum is None or not self.optimum.exact:
            return None
        return self.size == self.optimum.size


def check_delivery(graph: nx.Graph, source: int, interested: Iterable[int],
                   packets: Iterable[Packet], paths: ShortestPaths | None = None,
                   optimum: bool = False, exact_limit: int | None = None) -> DeliveryReport:
    """Check a delivery (§2.3): correctness, latency-minimality, duplicates
    and |D|; with ``optimum=True`` also the smallest latency-minimal tree
    (see :func:`smallest_latency_minimal_tree`), which decides ``ideal``."""
    packets = [Packet(*p) for p in packets]
    interested = frozenset(interested)
    paths = paths if paths is not None else ShortestPaths(graph)
    _check_nodes(paths, source, interested)
    up = _validate(graph, source, packets)
    shortest = _on_shortest_paths(paths, source, packets, up)
    first: dict[int, float] = {}
    on_time: set[int] = set()
    for p, ok in zip(packets, shortest, strict=True):
        if p.processor not in first or p.path_length < first[p.processor]:
            first[p.processor] = p.path_length
        if ok:
            on_time.add(p.processor)
    missed = frozenset(x for x in interested if x not in first)
    late = tuple(sorted((x, first[x], float(paths.dist[source, x])) for x in interested
                        if x in first and x not in on_time))
    counts = Counter(p.processor for p in packets)
    duplicates = tuple(sorted((x, c) for x, c in counts.items() if c > 1))
    best = None
    if optimum:
        kwargs = {} if exact_limit is None else {"exact_limit": exact_limit}
        best = smallest_latency_minimal_tree(graph, source, interested, paths=paths, **kwargs)
    return DeliveryReport(source, interested, len(packets), missed, late, duplicates, best)


# ---------------------------------------------------------------------------
# The smallest latency-minimal delivery tree

# Exact search runs when the relevant part of the shortest-path DAG (the
# nodes from which a terminal can be reached) has at most this many nodes.
# Measured by benchmarks/routing_steiner.py: a few ms on the 100-node
# transit-stub and 1,000-node power-law graphs, but grids, where every node
# has two shortest-path parents, are a cliff (about 1-2 s at 20 x 20, and
# once 203 s at 30 x 30 with 10 interested processors). 30 keeps every call
# instant; pass a larger exact_limit knowingly.
EXACT_LIMIT = 30


@dataclass(frozen=True)
class SteinerResult:
    """The smallest latency-minimal delivery tree found: ``size`` = |D| (its
    processors, root included), ``parents`` = its (child, parent) pairs.
    ``exact`` says whether it is proven smallest; if not, ``size`` is an upper
    bound, from the union of the T_v paths (``method`` says which). Several
    trees may share the smallest size; ``parents`` is one of them, and only
    ``size`` is meant for comparisons."""
    source: int
    terminals: frozenset[int]
    size: int
    parents: tuple[tuple[int, int], ...]
    exact: bool
    method: str

    @property
    def nodes(self) -> frozenset[int]:
        return frozenset([self.source, *(c for c, _ in self.parents)])


def _check_nodes(paths: ShortestPaths, source: Hashable, interested: frozenset) -> None:
    for x in (source, *sorted(interested, key=repr)):
        if isinstance(x, bool) or not (isinstance(x, (int, np.integer)) and 0 <= x < paths.n):
            raise DeliveryError(f"{x!r} is not a processor of this network (0..{paths.n - 1})")


def union_of_tree_paths(paths: ShortestPaths, source: int, interested: Iterable[int]) -> SteinerResult:
    """The union of the paths of T_v from the source to each interested
    processor: a latency-minimal delivery tree (the one PSF induces), so its
    size bounds the smallest one from above."""
    terminals = frozenset(interested) - {source}
    nodes = {source}
    for x in terminals:
        nodes.update(paths.path(source, x))
    parents = tuple(sorted((x, int(paths.parent[source, x])) for x in nodes if x != source))
    return SteinerResult(source, terminals, len(nodes), parents, False, "union of T_v paths")


def smallest_latency_minimal_tree(graph: nx.Graph, source: int, interested: Iterable[int],
                                  paths: ShortestPaths | None = None,
                                  exact_limit: int = EXACT_LIMIT) -> SteinerResult:
    """The smallest latency-minimal delivery tree for a message from
    ``source`` that ``interested`` processors want (Carzaniga, Rembert & Wolf 2006, §2.3).

    Latency-minimality forces every edge on the way to an interested x to lie
    on a shortest path, so such a tree lives in the shortest-path DAG rooted
    at the source; a smallest one never visits a processor twice (two
    arrivals at x both come at distance dist(v, x), so their subtrees can
    hang from one). It is thus a minimum Steiner arborescence of the DAG
    spanning the source and the interested processors, counting nodes.

    Exact when the DAG nodes that reach some interested processor number at
    most ``exact_limit``: the arborescence is found as a 0-1 program solved
    to proven optimality by branch and bound (HiGHS through
    scipy.optimize.milp). Variables x_u (u in the tree) and y_a (arc a of the
    DAG used); constraints: x_t = 1 for terminals and the source; for each
    u != source, Σ_{a into u} y_a = x_u (one parent exactly when chosen); y_a
    <= x_tail(a) (the parent is in the tree). Because the DAG is acyclic,
    following chosen parents from any chosen node strictly decreases dist
    and ends at the source, so every feasible point is an arborescence and
    no connectivity (subtour) constraints are needed; minimising Σ x_u is
    exactly minimising |D|. The solution is re-checked as a tree here.

    Above the limit, the union of the T_v paths is returned as an upper bound
    (``exact=False``)."""
    paths = paths if paths is not None else ShortestPaths(graph)
    terminals = frozenset(interested) - {source}
    _check_nodes(paths, source, terminals)
    if not terminals:
        return SteinerResult(source, terminals, 1, (), True, "trivial")
    arcs = paths.dag_edges(source)
    # Only nodes from which a terminal can be reached can be in a smallest tree.
    preds: dict[int, list[int]] = {}
    for u, x in arcs:
        preds.setdefault(x, []).append(u)
    useful, stack = set(terminals), list(terminals)
    while stack:
        for u in preds.get(stack.pop(), ()):
            if u not in useful:
                useful.add(u)
                stack.append(u)
    useful.add(source)
    if len(useful) > exact_limit:
        return union_of_tree_paths(paths, source, terminals)
    arcs = [(u, x) for u, x in arcs if u in useful and x in useful]
    if all(len(preds[x]) == 1 for x in useful if x != source):
        # One shortest path to each useful node: the tree is forced.
        parents = tuple(sorted((x, preds[x][0]) for x in useful if x != source))
        return SteinerResult(source, terminals, len(useful), parents, True, "unique shortest paths")
    return _solve_exact(source, terminals, sorted(useful), arcs)


def _solve_exact(source: int, terminals: frozenset[int], nodes: list[int],
                 arcs: list[tuple[int, int]]) -> SteinerResult:
    # deferred: scipy's MILP solver loads only for the Steiner search
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_array

    index = {u: i for i, u in enumerate(nodes)}
    nx_, na = len(nodes), len(arcs)
    # Variables: x_0..x_{nx-1}, then y_0..y_{na-1}.
    cost = np.r_[np.ones(nx_), np.zeros(na)]
    lower = np.zeros(nx_ + na)
    for t in (*terminals, source):
        lower[index[t]] = 1
    rows_eq = lil_array((nx_, nx_ + na))
    rows_le = lil_array((na, nx_ + na))
    for j, (u, x) in enumerate(arcs):
        rows_eq[index[x], nx_ + j] = 1           # Σ y into x ...
        rows_le[j, nx_ + j] = 1                  # y_(u,x) - x_u <= 0
        rows_le[j, index[u]] = -1
    for u in nodes:
        if u != source:
            rows_eq[index[u], index[u]] = -1     # ... - x_x = 0
    keep = [index[u] for u in nodes if u != source]
    constraints = [LinearConstraint(rows_eq.tocsr()[keep], 0, 0),
                   LinearConstraint(rows_le.tocsr(), -np.inf, 0)]
    result = milp(cost, constraints=constraints, integrality=np.ones(nx_ + na),
                  bounds=Bounds(lower, np.ones(nx_ + na)), options={"mip_rel_gap": 0})
    if result.status != 0:  # pragma: no cover - the union of T_v paths is always feasible
        raise RuntimeError(f"Steiner arborescence search failed: {result.message}")
    chosen = {u for u in nodes if result.x[index[u]] > 0.5}
    parents: dict[int, int] = {}
    for j, (u, x) in enumerate(arcs):
        if result.x[nx_ + j] > 0.5:
            if x in parents or u not in chosen or x not in chosen:
                raise RuntimeError("Steiner arborescence search returned a non-tree")  # pragma: no cover
            parents[x] = u
    if set(parents) != chosen - {source} or not terminals <= chosen:
        raise RuntimeError("Steiner arborescence search returned a non-tree")  # pragma: no cover
    return SteinerResult(source, terminals, len(chosen), tuple(sorted(parents.items())), True,
                         "0-1 program, branch and bound (HiGHS)")
