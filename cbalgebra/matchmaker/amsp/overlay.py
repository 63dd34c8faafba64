"""The static signalling overlay the protocols run on: directed links of the multicast trees.

Built from the trees of a Matchmaker instance (publisher → directed edges
pointing away from it). The notation is Ge, Ji, Kurose & Towsley,
"Matchmaker", §3.1 and §5.2-5.3:

- ``P_t``: the publishers whose tree contains link t (C_t^(p) sums their f_x);
- ``S_t``: the subscribers that receive data sent over t in some tree
  (C_t^(s) sums their g_y);
- ``upstream[t]``: the links i at t's upstream node such that data received
  over i is sent on over t in some tree (Figure 9's "upstream link");
- a subscriber receives from publisher x when it lies in x's tree (the root
  included: a subscriber at the publisher's own node receives over no link).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cbalgebra.matchmaker.instance import node_key

__all__ = ["Overlay"]


class Overlay:
    """Links are numbered 0..L-1 in sorted order of (u, v); every table is indexed by those numbers."""

    def __init__(self, trees: Mapping[Any, Iterable[tuple[Any, Any]]], subscribers: Iterable[Any],
                 delays: Mapping[tuple[Any, Any], float] | None = None) -> None:
        self.publishers: tuple = tuple(sorted(trees, key=node_key))
        self.subscribers: tuple = tuple(sorted(set(subscribers), key=node_key))
        subscriber_set = set(self.subscribers)
        tree_edges = {x: tuple(trees[x]) for x in self.publishers}
        links = sorted({e for edges in tree_edges.values() for e in edges},
                       key=lambda e: (node_key(e[0]), node_key(e[1])))
        self.links: tuple[tuple[Any, Any], ...] = tuple(links)
        self.index: dict[tuple[Any, Any], int] = {e: i for i, e in enumerate(links)}
        self.head = [u for u, _ in links]  # upstream node of each link
        self.tail = [v for _, v in links]  # downstream node
        nodes = {x for x in self.publishers} | subscriber_set | {n for e in links for n in e}
        self.nodes: tuple = tuple(sorted(nodes, key=node_key))
        self.out_links: dict[Any, list[int]] = {n: [] for n in self.nodes}
        self.in_links: dict[Any, list[int]] = {n: [] for n in self.nodes}
        for i, (u, v) in enumerate(links):
            self.out_links[u].append(i)
            self.in_links[v].append(i)
        delays = delays or {}
        self.delay = [float(delays.get((u, v), delays.get((v, u), 0.0))) for u, v in links]

        # Per tree: parent link of each node, child links, receivers below each link.
        self.parent: dict[Any, dict[Any, int]] = {}
        self.children: dict[Any, dict[Any, list[int]]] = {}
        self.receivers: dict[Any, frozenset] = {}
        self.below: dict[Any, dict[int, frozenset]] = {}  # D_x(t)
        self.toward: dict[Any, dict[Any, dict[Any, int]]] = {}  # x -> node -> receiver -> child link
        self.tree_links: dict[Any, tuple[int, ...]] = {}
        publishers_of: list[list] = [[] for _ in links]
        subscribers_of: list[set] = [set() for _ in links]
        upstream: list[set[int]] = [set() for _ in links]
        for x in self.publishers:
            parent: dict[Any, int] = {}
            children: dict[Any, list[int]] = {}
            for e in tree_edges[x]:
                i = self.index[e]
                if e[1] in parent or e[1] == x:
                    raise ValueError(f"the tree of publisher {x!r} reaches node {e[1]!r} twice")
                parent[e[1]] = i
                children.setdefault(e[0], []).append(i)
                publishers_of[i].append(x)
            members = {x} | set(parent)
            for n in members:
                n_up = n
                seen = 0
                while n_up != x:  # every node must hang from the root
                    if n_up not in parent or seen > len(members):
                        raise ValueError(f"the tree of publisher {x!r} does not connect {n!r} to it")
                    n_up = self.head[parent[n_up]]
                    seen += 1
            receivers = frozenset(members & subscriber_set)
            below: dict[int, set] = {self.index[e]: set() for e in tree_edges[x]}
            toward: dict[Any, dict[Any, int]] = {}
            for y in receivers:
                n = y
                while n != x:
                    i = parent[n]
                    below[i].add(y)
                    toward.setdefault(self.head[i], {})[y] = i
                    n = self.head[i]
            for i, ys in below.items():
                subscribers_of[i] |= ys
            for u, outs in children.items():
                if u == x:
                    continue
                into = parent[u]
                for i in outs:
                    upstream[i].add(into)
            self.parent[x] = parent
            self.children[x] = {u: sorted(cs) for u, cs in children.items()}
            self.receivers[x] = receivers
            self.below[x] = {i: frozenset(ys) for i, ys in below.items()}
            self.toward[x] = toward
            self.tree_links[x] = tuple(sorted(self.index[e] for e in tree_edges[x]))
        self.publishers_of: list[tuple] = [tuple(xs) for xs in publishers_of]
        self.subscribers_of: list[frozenset] = [frozenset(ys) for ys in subscribers_of]
        self.upstream: list[tuple[int, ...]] = [tuple(sorted(s)) for s in upstream]
        downstream: list[list[int]] = [[] for _ in links]
        for i, ups in enumerate(self.upstream):
            for j in ups:
                downstream[j].append(i)
        self.downstream: list[tuple[int, ...]] = [tuple(d) for d in downstream]
        # Which links carry subscriber y's SCDs and COST_ANNOUNCEs upwards.
        self.links_of_subscriber: dict[Any, tuple[int, ...]] = {
            y: tuple(i for i in range(len(links)) if y in self.subscribers_of[i]) for y in self.subscribers
        }
        # up_from[y][v]: the links entering v that carry y's SCDs; down_to[y][u]: those leaving u.
        self.up_from: dict[Any, dict[Any, tuple[int, ...]]] = {}
        self.down_to: dict[Any, dict[Any, tuple[int, ...]]] = {}
        for y, carriers in self.links_of_subscriber.items():
            entering: dict[Any, list[int]] = {}
            leaving: dict[Any, list[int]] = {}
            for i in carriers:
                entering.setdefault(self.tail[i], []).append(i)
                leaving.setdefault(self.head[i], []).append(i)
            self.up_from[y] = {v: tuple(ls) for v, ls in entering.items()}
            self.down_to[y] = {u: tuple(ls) for u, ls in leaving.items()}

    def upstream_cycle(self) -> tuple[int, ...] | None:
        """A cycle of the upstream relation (links i_0 → i_1 → … → i_0, each upstream of the next), or None.

        Figure 9 turns a link into an s-link whenever one of its upstream links
        is one, so on a cycle a single s-link keeps the whole cycle s-links
        forever, whatever the costs: AMSP then settles above the optimum.
        Shared trees never have such a cycle (a closed walk in one tree must
        turn back), and none of 400 generated instances (seeds 0-199, 20
        publishers, 20 subscribers, per-source and shared) has one; custom
        per-source trees can (tests/test_amsp.py builds one).
        """
        state = [0] * len(self.links)  # 0 unvisited, 1 on the current path, 2 done
        for start in range(len(self.links)):
            if state[start]:
                continue
            path: list[int] = [start]
            iters = [iter(self.downstream[start])]
            state[start] = 1
            while iters:
                nxt = next(iters[-1], None)
                if nxt is None:
                    state[path.pop()] = 2
                    iters.pop()
                elif state[nxt] == 1:
                    return tuple(path[path.index(nxt):])
                elif state[nxt] == 0:
                    state[nxt] = 1
                    path.append(nxt)
                    iters.append(iter(self.downstream[nxt]))
        return None

    @classmethod
    def from_instance(cls, instance: Any, delay_per_weight: float = 0.0) -> Overlay:
        """The overlay of a ``cbalgebra.matchmaker.Instance`` (its ``trees``, ``subscribers`` and ``graph``).

        Each link's delay is ``delay_per_weight`` times the weight of its edge in the graph.
        """
        graph = getattr(instance, "graph", None)
        delays: dict[tuple[Any, Any], float] = {}
        if graph is not None and delay_per_weight > 0:
            for u, v, data in graph.edges(data=True):
                delays[(u, v)] = delay_per_weight * float(data.get("weight", 1))
        return cls(instance.trees, instance.subscribers, delays)

    def path(self, x: Any, y: Any) -> list[int]:
        """The links from publisher x to receiver y in x's tree, in data order."""
        links: list[int] = []
        n = y
        while n != x:
            i = self.parent[x][n]
            links.append(i)
            n = self.head[i]
        links.reverse()
        return links

    def path_nodes(self, x: Any, y: Any) -> list[Any]:
        return [x] + [self.tail[i] for i in self.path(x, y)]
