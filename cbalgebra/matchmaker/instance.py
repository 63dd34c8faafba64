"""Instances of the Min-Cost Matchmaker problem (Ge, Ji, Kurose & Towsley,
"Matchmaker: Signaling for Dynamic Publish/Subscribe Applications", §3.1).

An instance is the publishers P with their PCD counts f, the subscribers S
with their SCD counts g, and one multicast tree T_x per publisher x: a set
of directed links pointing away from x. A subscriber receives from x when
it lies in T_x. T is the union of the trees; R_x ("t is upstream of q in
T_x") is the ancestor relation of T_x's links.

Two constructors:

- :meth:`Instance.from_trees` takes the trees as given (any hashable node
  ids), for tools and checks that build instances themselves;
- :meth:`Instance.generate` draws the paper's setting (§4.4.1): a GT-ITM
  transit-stub network (:func:`cbalgebra.network.topology`), P and S among
  the stub nodes, CD counts from the bounded Pareto, and shared (CBT) or
  per-source (DVMRP) trees.

**What the paper leaves unstated, and what we chose** (all of it in
:meth:`Instance.generate` and :func:`build_trees`):

- *Drawing P and S.* |P| distinct publishers uniformly among the stub
  nodes, then, independently, |S| distinct subscribers the same way; a node
  may be both (§4.4.1 allows it). One stream ``random.Random("matchmaker:
  SEED")`` draws P, S, then f (publishers in ascending order), then g, then
  the core, so a seed gives the same network, P, S, f and g for both tree
  kinds (the two kinds are compared on paired samples).
- *CD counts.* Inverse-CDF draws of the bounded Pareto (k = 1, p = 100,
  α = 1), truncated to integers (:mod:`cbalgebra.matchmaker.pareto`).
- *The CBT core.* "one of the transit nodes" (§4.4.1): by default a transit
  node drawn uniformly (``core="random"``); ``core="central"`` takes the
  transit node with the least total distance to the members, and a node id
  fixes it.
- *The shared tree.* CBT: every member (publisher or subscriber) joins
  along its shortest path to the core, so the shared tree is the core's
  shortest-path tree pruned to the members. T_x is, as §3.1 defines it, the
  links of that tree "that reach all subscriber nodes": the links on the
  paths from x to the subscribers, oriented away from x
  (``shared_tree="pruned"``, the default). Property 3 (monotonicity) holds
  on these trees, and with it Figure 5's optimality: if t is upstream of q
  in T_x, every publisher whose T_y holds t reaches the subscribers beyond q
  through q (the paths in one tree are unique), so sigma^t ≤ sigma^q; and
  the subscribers below q are among those below t, so τ^t ≥ τ^q.
  ``shared_tree="whole"`` takes the whole shared tree oriented away from x
  instead, branches that lead only to other publishers included (CBT
  forwards a sender's data on every branch). The links it adds lead to no
  subscriber, so their τ is 0: All-S is unchanged, Figure 5 makes them
  s-links at no cost, so MCM is unchanged, and All-P grows by their PCDs.
  Measured on the study's 3,480 instances (seed 2003): All-S and MCM equal
  on every one, All-P higher on every one; at the paper's point (Figure 7,
  1,000 instances) All-P's median is 4,242 instead of 3,014 and its 90th
  percentile 7,801 instead of 5,588.
- *The per-source trees.* DVMRP: T_x is the union of the reverse shortest
  paths from every subscriber to x, i.e. x's shortest-path tree pruned to S.
- *Ties between equal shortest paths.* A node's parent toward root r is its
  smallest-id neighbour u with dist(r, u) + w(u, v) = dist(r, v), the rule of
  :mod:`cbalgebra.network.paths`; it is also DVMRP's reverse-path next hop
  with ties to the smallest id, so trees are deterministic.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias

import networkx as nx

from cbalgebra.errors import CbalgebraError
from cbalgebra.network.paths import exact_weight, shortest_path_parents
from cbalgebra.network.topology import TopologyError, topology

from .names import SHARED_TREES, TREE_KINDS
from .pareto import bounded_pareto, cd_count
from .trees import Link, MulticastTrees, link_key, node_key

if TYPE_CHECKING:
    from .picture import MarkingPicture

__all__ = ["SHARED_TREES", "TREE_KINDS", "Instance", "InstanceError", "Link", "Marking", "build_trees",
           "check_shared_tree", "check_tree", "link_key", "node_key"]

#: A link marking: each directed link of T to "p" (p-link) or "s" (s-link).
Marking: TypeAlias = dict[tuple[Hashable, Hashable], str]


class InstanceError(CbalgebraError, ValueError):
    """A malformed instance or marking; the message is one line."""


def _count(value: Any, who: Hashable, what: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InstanceError(f"{what}({who!r}) must be a number, not {value!r}")
    if not math.isfinite(value) or value < 0:
        raise InstanceError(f"{what}({who!r}) must be a finite number >= 0, not {value!r}")
    return value


def _hashable(node: Any, where: str) -> Hashable:
    try:
        hash(node)
    except TypeError:
        raise InstanceError(f"{where}: node {node!r} is not hashable") from None
    return node


def check_tree(x: Hashable, edges: Iterable) -> tuple[Link, ...]:
    """T_x as a tuple of links top-down (breadth first, children in node order);
    InstanceError unless the edges form a tree rooted at x pointing away from it."""
    try:
        items = list(edges)
    except TypeError:
        raise InstanceError(f"tree of publisher {x!r}: not a list of edges") from None
    parent_of: dict[Hashable, Hashable] = {}
    children: dict[Hashable, list[Hashable]] = {}
    for item in items:
        if isinstance(item, (str, bytes)) or not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InstanceError(f"tree of publisher {x!r}: an edge is a pair (u, v), not {item!r}")
        u = _hashable(item[0], f"tree of publisher {x!r}")
        v = _hashable(item[1], f"tree of publisher {x!r}")
        if u == v:
            raise InstanceError(f"tree of publisher {x!r}: self-loop ({u!r}, {v!r})")
        if v == x:
            raise InstanceError(f"tree of publisher {x!r}: not a tree: edge ({u!r}, {v!r}) points into the root")
        if v in parent_of:
            what = "a repeated edge" if parent_of[v] == u else f"{v!r} has two parents"
            raise InstanceError(f"tree of publisher {x!r}: not a tree: {what}")
        parent_of[v] = u
        children.setdefault(u, []).append(v)
    ordered: list[Link] = []
    frontier = [x]
    while frontier:
        nxt = []
        for u in frontier:
            for v in sorted(children.get(u, ()), key=node_key):
                ordered.append((u, v))
                nxt.append(v)
        frontier = nxt
    if len(ordered) != len(items):
        stray = sorted((u for u in children if u != x and u not in parent_of), key=node_key)
        where = f" (no path from {x!r} to {stray[0]!r})" if stray else " (it has a cycle)"
        raise InstanceError(f"tree of publisher {x!r}: not a tree rooted at {x!r}{where}")
    return tuple(ordered)


# ------------------------------------------------------------------- the instance
@dataclass(frozen=True, eq=False)
class Instance:
    """One Min-Cost Matchmaker instance (immutable). Build it with
    :meth:`from_trees` or :meth:`generate`.

    ``trees[x]`` lists T_x top-down (a link before the links below it);
    ``links`` is T, sorted. ``graph`` is the network the trees were routed on
    (None for :meth:`from_trees`), ``kind`` "shared", "per-source" or
    "custom", ``core`` the CBT core of a shared tree (else None).

    Derived at construction, read-only, indexed like ``links`` (link i is
    ``links[i]``), for the algorithms of §4:

    - ``multicast``: the trees as one :class:`~cbalgebra.matchmaker.trees.MulticastTrees`
      (∪R_x as ``upstream``/``downstream``, each link's publishers and
      subscribers, each tree's links top-down);
    - ``sigmas``: sigma^t(M^P) per link, Σ f(x) over the publishers whose tree
      holds t, in the units of ``f`` (CDs; CD updates per second when f
      counts rates);
    - ``taus``: τ^t(M^S) per link, Σ g(y) over the subscribers downstream of
      t in some tree, in the units of ``g``."""

    publishers: tuple[Hashable, ...]
    subscribers: tuple[Hashable, ...]
    f: Mapping[Hashable, int | float]
    g: Mapping[Hashable, int | float]
    trees: Mapping[Hashable, tuple[Link, ...]]
    links: tuple[Link, ...]
    graph: nx.Graph | None = None
    kind: str = "custom"
    core: Hashable | None = None
    multicast: MulticastTrees = field(init=False, repr=False, compare=False)
    sigmas: tuple[int | float, ...] = field(init=False, repr=False, compare=False)
    taus: tuple[int | float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in (*TREE_KINDS, "custom"):
            raise InstanceError(f"kind must be shared, per-source or custom, not {self.kind!r}")
        try:
            multicast = MulticastTrees({x: self.trees[x] for x in self.publishers}, self.subscribers)
        except ValueError as e:
            raise InstanceError(str(e)) from None
        if tuple(self.links) != multicast.links:
            raise InstanceError("links must be the sorted union of the trees")
        if self.kind == "shared" and not _one_shared_tree(self.publishers, self.subscribers, self.trees):
            raise InstanceError("kind 'shared' needs every publisher's tree to be the one shared tree, "
                                "oriented away from that publisher: whole, or pruned to the paths to the "
                                "subscribers")
        object.__setattr__(self, "multicast", multicast)
        object.__setattr__(self, "sigmas", multicast.publisher_sums(self.f))
        object.__setattr__(self, "taus", multicast.subscriber_sums(self.g))

    # -- constructors ------------------------------------------------------------
    @classmethod
    def from_trees(cls, trees: Mapping, f: Mapping, g: Mapping, *, graph: nx.Graph | None = None,
                   kind: str = "custom", core: Hashable | None = None) -> Instance:
        """An instance from explicit trees: ``trees[x]`` the directed edges (u, v)
        of publisher x's tree, pointing away from x; ``f``/``g`` the CD counts
        of publishers and subscribers (numbers >= 0). The publishers are the
        keys of ``trees``, which must be those of ``f``; the subscribers are
        the keys of ``g``."""
        for name, m in (("trees", trees), ("f", f), ("g", g)):
            if not isinstance(m, Mapping):
                raise InstanceError(f"{name} must be a mapping, not {type(m).__name__}")
        if set(trees) != set(f):
            extra = sorted(set(trees) ^ set(f), key=node_key)
            raise InstanceError(f"the publishers with a tree and those with an f count differ (e.g. {extra[0]!r})")
        publishers = tuple(sorted((_hashable(x, "publishers") for x in trees), key=node_key))
        subscribers = tuple(sorted((_hashable(y, "subscribers") for y in g), key=node_key))
        fs = {x: _count(f[x], x, "f") for x in publishers}
        gs = {y: _count(g[y], y, "g") for y in subscribers}
        checked = {x: check_tree(x, trees[x]) for x in publishers}
        links = tuple(sorted({link for edges in checked.values() for link in edges}, key=link_key))
        return cls(publishers=publishers, subscribers=subscribers, f=MappingProxyType(fs),
                   g=MappingProxyType(gs), trees=MappingProxyType(checked), links=links,
                   graph=graph, kind=kind, core=core)

    @classmethod
    def generate(cls, seed: int, publishers: int = 20, subscribers: int = 20, trees: str = "shared",
                 core: Hashable = "random", shared_tree: str = "pruned", **topology_params: Any) -> Instance:
        """The paper's random instance (§4.4.1) for ``seed``: a transit-stub
        network (``topology_params`` go to the generator; its default is the
        paper's 100 nodes), |P| = ``publishers`` and |S| = ``subscribers``
        stub nodes, bounded-Pareto CD counts, ``trees`` "shared" (CBT around
        ``core``; T_x ``shared_tree`` "pruned", the paper's, or "whole") or
        "per-source" (DVMRP). See the module docstring."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InstanceError(f"seed must be an int, not {seed!r}")
        if trees not in TREE_KINDS:
            raise InstanceError(f"trees must be 'shared' or 'per-source', not {trees!r}")
        check_shared_tree(shared_tree, trees)
        try:
            graph = topology("transit_stub", None, seed=seed, **topology_params)
        except TopologyError as e:
            raise InstanceError(str(e)) from None
        stubs = sorted(v for v, level in graph.nodes(data="level") if level == "stub")
        transits = sorted(v for v, level in graph.nodes(data="level") if level == "transit")
        for name, count in (("publishers", publishers), ("subscribers", subscribers)):
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= len(stubs):
                raise InstanceError(f"{name} must be an integer in 0..{len(stubs)} (the stub nodes), not {count!r}")
        rng = random.Random(f"matchmaker:{seed}")
        pubs = sorted(rng.sample(stubs, publishers))
        subs = sorted(rng.sample(stubs, subscribers))
        f = dict(zip(pubs, cd_count(bounded_pareto(rng, len(pubs))), strict=True))
        g = dict(zip(subs, cd_count(bounded_pareto(rng, len(subs))), strict=True))
        drawn_core = rng.choice(transits)
        if trees == "shared":
            chosen = drawn_core if core == "random" else core
            built, chosen = build_trees(graph, "shared", pubs, subs, core=chosen, core_candidates=transits,
                                        shared_tree=shared_tree)
        else:
            built, chosen = build_trees(graph, "per-source", pubs, subs)
        return cls.from_trees(built, f, g, graph=graph, kind=trees, core=chosen)

    # -- the relations of §3.1 ---------------------------------------------------
    def sigma(self, link: Link) -> int | float:
        """sigma^t(M^P): Σ f(x) over the publishers x whose tree contains ``link``."""
        return self.sigmas[self._at(link)]

    def tau(self, link: Link) -> int | float:
        """τ^t(M^S): Σ g(y) over the subscribers downstream of ``link`` in some tree."""
        return self.taus[self._at(link)]

    def upstream(self, link: Link) -> frozenset[Link]:
        """The links q with q R_x link for some publisher x."""
        return frozenset(self.links[i] for i in self._closure(self._at(link), self.multicast.upstream))

    def downstream(self, link: Link) -> frozenset[Link]:
        """The links q with link R_x q for some publisher x."""
        return frozenset(self.links[i] for i in self._closure(self._at(link), self.multicast.downstream))

    def receivers(self, publisher: Hashable) -> tuple[Hashable, ...]:
        """The subscribers in ``publisher``'s tree (a collocated subscriber included)."""
        if publisher not in self.trees:
            raise InstanceError(f"{publisher!r} is not a publisher")
        return tuple(y for y in self.subscribers if y in self.multicast.receivers[publisher])

    def _at(self, link: Link) -> int:
        try:
            return self.multicast.index[(link[0], link[1])]
        except (KeyError, TypeError, IndexError):
            raise InstanceError(f"{link!r} is not a link of any tree") from None

    @staticmethod
    def _closure(start: int, step: tuple[tuple[int, ...], ...]) -> set[int]:
        seen: set[int] = set()
        stack = list(step[start])
        while stack:
            i = stack.pop()
            if i not in seen:
                seen.add(i)
                stack.extend(step[i])
        return seen

    def __repr__(self) -> str:
        return (f"Instance(kind={self.kind!r}, |P|={len(self.publishers)}, |S|={len(self.subscribers)}, "
                f"|T|={len(self.links)}, core={self.core!r})")

    def picture(self, marking: Marking | None = None, *, title: str = "", graphviz: bool = False) -> MarkingPicture:
        """``marking`` over this instance (the trees alone when None) as a
        :class:`~cbalgebra.matchmaker.picture.MarkingPicture`, which a
        notebook shows as SVG; ``graphviz=True`` lays a marking out with
        Graphviz instead."""
        from .picture import MarkingPicture  # drawing loads on first use
        if graphviz and marking is None:
            raise InstanceError("graphviz=True draws a marking: pass one (e.g. mcm(instance))")
        return MarkingPicture(self, marking, title, graphviz)

    def _repr_html_(self) -> str:
        return self.picture()._repr_html_()


# ------------------------------------------------------------------- routing the trees
def _parents(graph: nx.Graph, roots: list[Hashable]) -> dict[Hashable, dict[Hashable, Hashable]]:
    """For each root, every reachable node's parent in the root's shortest-path
    tree: its smallest-id neighbour on a shortest path, decided exactly
    (:func:`cbalgebra.network.paths.shortest_path_parents`)."""
    nodes = sorted(graph.nodes, key=node_key)
    at = {v: i for i, v in enumerate(nodes)}
    edges = []
    for u, v, w in graph.edges(data="weight", default=1):
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or not w > 0:
            raise InstanceError(f"link ({u!r}, {v!r}) has weight {w!r}; weights must be positive finite numbers")
        edges.append((at[u], at[v], w))
    parent = shortest_path_parents(len(nodes), edges, [at[r] for r in roots])
    return {r: {nodes[x]: nodes[p] for x, p in enumerate(row) if p >= 0}
            for r, row in zip(roots, parent.tolist(), strict=True)}


def _exact_length(u: Hashable, v: Hashable, data: Mapping) -> Any:
    return exact_weight(data.get("weight", 1))


def _pruned(root: Hashable, parent: Mapping[Hashable, Hashable], keep: Iterable[Hashable]) -> list[Link]:
    """The edges of root's shortest-path tree on the paths from root to ``keep``."""
    edges: set[Link] = set()
    for v in keep:
        while v != root:
            if v not in parent:
                raise InstanceError(f"{v!r} cannot be reached from {root!r}: the network is not connected")
            if (parent[v], v) in edges:
                break
            edges.add((parent[v], v))
            v = parent[v]
    return sorted(edges, key=link_key)


def _toward(edges: Iterable[Link], root: Hashable) -> dict[Hashable, Hashable]:
    """Each node's parent when the undirected tree ``edges`` hangs from ``root``."""
    return {v: u for u, v in _orient(edges, root)}


def _one_shared_tree(publishers: Iterable[Hashable], subscribers: Iterable[Hashable],
                     trees: Mapping[Hashable, Iterable[Link]]) -> bool:
    """Whether the trees are one undirected tree (or forest), each T_x oriented
    away from x: every T_x the whole of it ("whole"), or every T_x its links on
    the paths from x to the subscribers x reaches in it ("pruned"). Both
    satisfy §4.1's condition (3) and Property 3."""
    spans = [frozenset(frozenset(e) for e in trees[x]) for x in publishers]
    union: frozenset = frozenset().union(*spans)
    if all(span == union for span in spans):
        return True
    edges = [tuple(e) for e in union]
    if not _acyclic(edges):
        return False
    subs = list(subscribers)
    for x in publishers:
        parent = _toward(edges, x)
        if set(trees[x]) != set(_pruned(x, parent, [y for y in subs if y == x or y in parent])):
            return False
    return True


def _acyclic(edges: Sequence[tuple]) -> bool:
    """Whether undirected ``edges`` form a forest."""
    return not edges or nx.is_forest(nx.Graph(edges))  # networkx calls an empty graph "pointless"


def check_shared_tree(shared_tree: str, kind: str) -> None:
    """InstanceError unless ``shared_tree`` is one of SHARED_TREES and applies to
    tree kind ``kind`` (per-source trees are always pruned to the subscribers)."""
    if shared_tree not in SHARED_TREES:
        raise InstanceError(f"shared_tree must be 'pruned' or 'whole', not {shared_tree!r}")
    if shared_tree == "whole" and kind != "shared":
        raise InstanceError(f"shared_tree 'whole' applies to shared trees, not to {kind} trees")


def _orient(edges: Iterable[Link], root: Hashable) -> list[Link]:
    """An undirected tree's edges directed away from ``root`` (edges not connected to root dropped)."""
    adjacent: dict[Hashable, list[Hashable]] = {}
    for u, v in edges:
        adjacent.setdefault(u, []).append(v)
        adjacent.setdefault(v, []).append(u)
    out, seen, stack = [], {root}, [root]
    while stack:
        u = stack.pop()
        for v in adjacent.get(u, ()):
            if v not in seen:
                seen.add(v)
                out.append((u, v))
                stack.append(v)
    return out


def build_trees(graph: nx.Graph, kind: str, publishers: Iterable[Hashable], subscribers: Iterable[Hashable],
                core: Hashable = "central", core_candidates: Iterable[Hashable] | None = None,
                shared_tree: str = "pruned") -> tuple[dict[Hashable, list[Link]], Hashable | None]:
    """Route the multicast trees over ``graph`` (see the module docstring):
    the trees by publisher, and the core (None for per-source trees).

    ``core`` (shared trees): a node, or "central": the candidate with the
    least total distance to the members, ties to the smallest id;
    candidates are ``core_candidates`` (default: every node).
    ``shared_tree`` (shared trees): T_x "pruned" to the links on the paths
    from x to the subscribers (the paper's, §3.1), or the "whole" tree."""
    check_shared_tree(shared_tree, kind)
    pubs, subs = list(publishers), list(subscribers)
    for v in [*pubs, *subs]:
        if v not in graph:
            raise InstanceError(f"node {v!r} is not in the network")
    if kind == "per-source":
        parents = _parents(graph, pubs)
        return {x: _pruned(x, parents[x], subs) for x in pubs}, None
    if kind != "shared":
        raise InstanceError(f"trees must be 'shared' or 'per-source', not {kind!r}")
    members = sorted(set(pubs) | set(subs), key=node_key)
    if isinstance(core, str) and core == "central" and core not in graph:
        candidates = sorted(core_candidates if core_candidates is not None else graph.nodes, key=node_key)
        if not candidates:
            raise InstanceError("no candidate for the core")
        # Exact sums (ints, Fractions): float sums of large weights overflow to inf and tie every candidate.
        lengths = {c: nx.single_source_dijkstra_path_length(graph, c, weight=_exact_length) for c in candidates}
        core = min(candidates, key=lambda c: (sum(lengths[c].get(m, math.inf) for m in members), node_key(c)))
    elif core not in graph:
        raise InstanceError(f"the core {core!r} is not in the network")
    shared = _pruned(core, _parents(graph, [core])[core], members)
    if shared_tree == "whole":
        return {x: _orient(shared, x) for x in pubs}, core
    return {x: _pruned(x, _toward(shared, x), subs) for x in pubs}, core
