"""The multicast trees of a Matchmaker instance, as one indexed model (Ge, Ji,
Kurose & Towsley, "Matchmaker: Signaling for Dynamic Publish/Subscribe
Applications", §3.1 and §5.2-5.3).

One tree T_x per publisher x: directed links pointing away from x. T is
their union; the links of T are numbered 0..L-1 in sorted order
(:func:`link_key`), and every table of :class:`MulticastTrees` is indexed by
those numbers. The same model serves the static problem
(:class:`cbalgebra.matchmaker.Instance`: sigma, τ, ∪R_x) and the AMSP
simulation (:class:`cbalgebra.matchmaker.amsp.Overlay`: who forwards what to
whom, hop by hop):

- ``publishers_of[t]`` (P_t): the publishers whose tree holds t; C_t^(p) sums
  their f_x (:meth:`MulticastTrees.publisher_sums`), sigma^t(M^P) in §3;
- ``subscribers_of[t]`` (S_t): the subscribers that receive data sent over t
  in some tree; C_t^(s) sums their g_y (:meth:`MulticastTrees.subscriber_sums`),
  τ^t(M^S) in §3;
- ``upstream[t]``/``downstream[t]``: the links directly above/below t in some
  tree, the one-step ∪R_x (Figure 9's "upstream link");
- a subscriber receives from publisher x when it lies in T_x (the root
  included: a subscriber at the publisher's own node receives over no link).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from functools import cached_property
from typing import Any, TypeAlias

__all__ = ["Link", "MulticastTrees", "link_key", "node_key"]

Link: TypeAlias = tuple[Hashable, Hashable]


def node_key(node: Hashable) -> tuple:
    """A total order on node ids: numbers first (by value), then the rest by type and text."""
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return (0, node, "")
    return (1, type(node).__name__, str(node))


def link_key(link: Link) -> tuple:
    """The order of links: by upstream node, then downstream node (:func:`node_key`)."""
    return (node_key(link[0]), node_key(link[1]))


class MulticastTrees:
    """The trees T_x, their links numbered in :func:`link_key` order, and their relations.

    ``trees[x]`` lists T_x top-down: a tree rooted at x pointing away from it,
    each link after the link above it (as
    :func:`cbalgebra.matchmaker.instance.check_tree` returns it; a ValueError
    otherwise). Every attribute is read-only: tuples per link, dicts keyed by
    publisher, node or subscriber. What the static problem reads is built at
    once; the tables only hop-by-hop signalling reads (S_t as sets, the
    children and receivers of each tree, the per-node tables) on first use,
    so that the thousands of instances of a study do not pay for them.
    """

    def __init__(self, trees: Mapping[Any, Iterable[Link]], subscribers: Iterable[Hashable]) -> None:
        self.publishers: tuple = tuple(sorted(trees, key=node_key))
        self.subscribers: tuple = tuple(sorted(set(subscribers), key=node_key))
        edges_of = {x: tuple(trees[x]) for x in self.publishers}
        self.links: tuple[Link, ...] = tuple(sorted({e for edges in edges_of.values() for e in edges},
                                                    key=link_key))
        self.index: dict[Link, int] = {e: i for i, e in enumerate(self.links)}
        self.head: tuple = tuple(u for u, _ in self.links)  # the upstream node of each link
        self.tail: tuple = tuple(v for _, v in self.links)  # the downstream node
        #: Each subscriber's bit in the masks of subscribers (bit j: ``subscribers[j]``).
        self.bit: dict[Hashable, int] = {y: 1 << j for j, y in enumerate(self.subscribers)}
        #: Per tree: its links top-down; the link entering each node; the link above each link
        #: (-1 below the root).
        self.tree_links: dict[Any, tuple[int, ...]] = {}
        self.parent: dict[Any, dict[Any, int]] = {}
        self.above: dict[Any, dict[int, int]] = {}
        publishers_of: list[list] = [[] for _ in self.links]
        masks = [0] * len(self.links)
        upstream: list[set[int]] = [set() for _ in self.links]
        for x in self.publishers:
            self._add_tree(x, edges_of[x], publishers_of, masks, upstream)
        self.publishers_of: tuple[tuple, ...] = tuple(tuple(xs) for xs in publishers_of)
        #: Per link: the mask of ``subscribers_of`` (one bit per subscriber, ``bit``).
        self.subscriber_masks: tuple[int, ...] = tuple(masks)
        self.upstream: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(s)) for s in upstream)
        downstream: list[list[int]] = [[] for _ in self.links]
        for i, ups in enumerate(self.upstream):
            for j in ups:
                downstream[j].append(i)
        self.downstream: tuple[tuple[int, ...], ...] = tuple(tuple(d) for d in downstream)

    def _add_tree(self, x: Any, edges: tuple[Link, ...], publishers_of: list[list], masks: list[int],
                  upstream: list[set[int]]) -> None:
        """Index T_x: fill its per-tree tables, and add it to the per-link relations."""
        index, bit = self.index, self.bit
        parent: dict[Any, int] = {}
        above: dict[int, int] = {}
        for u, v in edges:
            if v == x or v in parent or (u != x and u not in parent):
                raise ValueError(f"the tree of publisher {x!r} is not a tree listed top-down from {x!r} "
                                 f"at link ({u!r}, {v!r})")
            i = index[(u, v)]
            parent[v] = i
            above[i] = parent.get(u, -1)
            publishers_of[i].append(x)
            if above[i] >= 0:
                upstream[i].add(above[i])
        ids = tuple(index[e] for e in edges)
        below: dict[int, int] = {}
        for i in reversed(ids):  # children before parents: the subscribers at or below each link
            below[i] = below.get(i, 0) | bit.get(self.tail[i], 0)
            if above[i] >= 0:
                below[above[i]] = below.get(above[i], 0) | below[i]
            masks[i] |= below[i]
        self.tree_links[x] = ids
        self.parent[x] = parent
        self.above[x] = above

    # ------------------------------------------------------------------ derived on first use
    @cached_property
    def subscribers_of(self) -> tuple[frozenset, ...]:
        """Per link t, S_t: the subscribers that receive data sent over t in some tree."""
        return tuple(frozenset(y for y in self.subscribers if m & self.bit[y]) for m in self.subscriber_masks)

    @cached_property
    def receivers(self) -> dict[Any, frozenset]:
        """Per publisher x, the subscribers in T_x (x itself included when it subscribes)."""
        return {x: frozenset(y for y in self.subscribers if y == x or y in self.parent[x]) for x in self.publishers}

    @cached_property
    def children(self) -> dict[Any, dict[Any, list[int]]]:
        """``children[x][u]``: the links leaving node u in T_x, in link order."""
        table: dict[Any, dict[Any, list[int]]] = {}
        for x, ids in self.tree_links.items():
            leaving: dict[Any, list[int]] = {}
            for i in sorted(ids):
                leaving.setdefault(self.head[i], []).append(i)
            table[x] = leaving
        return table

    # ------------------------------------------------------------------ weights on links
    def publisher_sums(self, f: Mapping[Any, Any]) -> tuple:
        """Per link t, Σ f(x) over P_t: sigma^t(M^P) (§3.1) for CD counts f, C_t^(p) (§5.2) for rates."""
        return tuple(sum(f[x] for x in xs) for xs in self.publishers_of)

    def subscriber_sums(self, g: Mapping[Any, Any]) -> tuple:
        """Per link t, Σ g(y) over S_t in subscriber order: τ^t(M^S) for CD counts g, C_t^(s) for rates."""
        return tuple(sum(g[y] for y in self.subscribers if m & self.bit[y]) for m in self.subscriber_masks)

    # ------------------------------------------------------------------ paths
    def path(self, x: Any, y: Any) -> list[int]:
        """The links from publisher x to node y in T_x, in data order (KeyError if y is not in T_x)."""
        links: list[int] = []
        n = y
        while n != x:
            i = self.parent[x][n]
            links.append(i)
            n = self.head[i]
        links.reverse()
        return links

    def path_nodes(self, x: Any, y: Any) -> list[Any]:
        """The nodes from publisher x to node y in T_x, both ends included."""
        return [x] + [self.tail[i] for i in self.path(x, y)]

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

    # ------------------------------------------------------------------ per node, for hop-by-hop signalling
    @cached_property
    def nodes(self) -> tuple:
        """Every publisher, subscriber and link end, in node order."""
        found = set(self.publishers) | set(self.subscribers) | set(self.head) | set(self.tail)
        return tuple(sorted(found, key=node_key))

    @cached_property
    def out_links(self) -> dict[Any, list[int]]:
        """Per node, the links leaving it, in link order."""
        return self._by_node(self.head)

    @cached_property
    def in_links(self) -> dict[Any, list[int]]:
        """Per node, the links entering it, in link order."""
        return self._by_node(self.tail)

    def _by_node(self, ends: tuple) -> dict[Any, list[int]]:
        table: dict[Any, list[int]] = {n: [] for n in self.nodes}
        for i, n in enumerate(ends):
            table[n].append(i)
        return table

    @cached_property
    def toward(self) -> dict[Any, dict[Any, dict[Any, int]]]:
        """``toward[x][n][y]``: the link leaving node n on the way from x to receiver y in T_x."""
        table: dict[Any, dict[Any, dict[Any, int]]] = {}
        for x in self.publishers:
            hops: dict[Any, dict[Any, int]] = {}
            for y in self.receivers[x]:
                for i in self.path(x, y):
                    hops.setdefault(self.head[i], {})[y] = i
            table[x] = hops
        return table

    @cached_property
    def links_of_subscriber(self) -> dict[Any, tuple[int, ...]]:
        """Per subscriber y, the links that carry data to y in some tree (those its SCDs may climb)."""
        return {y: tuple(i for i, m in enumerate(self.subscriber_masks) if m & self.bit[y])
                for y in self.subscribers}

    @cached_property
    def up_from(self) -> dict[Any, dict[Any, tuple[int, ...]]]:
        """``up_from[y][v]``: the links entering node v that carry data to subscriber y."""
        return self._carriers(self.tail)

    @cached_property
    def down_to(self) -> dict[Any, dict[Any, tuple[int, ...]]]:
        """``down_to[y][u]``: the links leaving node u that carry data to subscriber y."""
        return self._carriers(self.head)

    def _carriers(self, ends: tuple) -> dict[Any, dict[Any, tuple[int, ...]]]:
        table: dict[Any, dict[Any, tuple[int, ...]]] = {}
        for y, carriers in self.links_of_subscriber.items():
            at: dict[Any, list[int]] = {}
            for i in carriers:
                at.setdefault(ends[i], []).append(i)
            table[y] = {n: tuple(ls) for n, ls in at.items()}
        return table
