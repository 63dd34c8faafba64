"""Siena's subscription forwarding computed in bulk: the state a network of
servers converges to, and the messages it took, without sending them one by
one (Carzaniga, Rosenblum & Wolf, "Content-Based Addressing and Routing",
2000, §3.5).

:class:`cbalgebra.network.siena.Network` simulates formula (1) message by
message: every subscription is inserted into the poset of every server it
reaches. That costs one poset insert per server-to-server message, about
n·r·k of them (137,490 at n = 200, r = 100, k = 10). For a sequence of
*subscriptions* on a tree (no unsubscription: what the routing schemes
do), both the messages and the final tables follow from the covering
relation among the subscriptions alone, computed once in one poset:

- *Messages.* For an edge X→Y let side(X→Y) be the servers on X's side.
  Subscription i (filter f_i at server s_i) crosses X→Y, pointing away
  from s_i, exactly when no earlier subscription made on side(X→Y) covers
  f_i (formula (1) unrolled: what X forwards to Y are the maximal filters of
  side(X→Y)). The earlier subscriptions covering f_i are made at the servers
  C_i; f_i crosses every edge away from s_i when C_i is empty, and else the
  edges of the path from s_i to the point where the paths from s_i to the
  servers of C_i part (their *meeting point*: an edge X→Y is crossed iff
  all of C_i lies beyond Y). Unsubscriptions: none, as an element leaving a
  link's set is covered by the one entering (Figure 5).
- *Tables.* Server u holds, for neighbour y, the maximal classes (under
  covering, equivalent filters one class) among the subscriptions made on
  side(y→u): class K is held when some subscription of K was made on that
  side and none strictly covering K was. Each client holds its own maximal
  classes.
- *Spellings.* An element stands for its class by the first value that
  created it at that server; when a class has several spellings
  (equivalent filters written differently, every unsatisfiable filter),
  which one a server shows depends on the order subscriptions reached it:
  that order is replayed for those classes only (:meth:`ConvergedState.held`).

The result equals the simulation's: the same :class:`~cbalgebra.network.siena.Traffic`
numbers, and at every server the same subscriptions held for every
neighbour and client (tests/test_network_siena_state.py checks both against
the simulation on generated trees and workloads). The order in which a
server lists one neighbour's subscriptions (the simulation's element age)
is not reproduced: :meth:`ConvergedState.held` lists them by first
subscription.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import networkx as nx
import numpy as np

from cbalgebra.poset import SUBSCRIPTIONS, Element, Poset, ancestors
from cbalgebra.values import Filter

from .siena import Traffic

__all__ = ["ConvergedState", "Subscription", "converge"]


@dataclass(frozen=True)
class Subscription:
    """``client`` at ``server`` subscribes to ``value``."""

    client: Hashable
    server: Hashable
    value: Filter


class _RootedTree:
    """A tree rooted at its first node: parents, depths, Euler intervals
    (x lies below y iff tin[y] <= tin[x] < tout[y]) and binary lifting for
    the lowest common ancestor."""

    def __init__(self, tree: nx.Graph) -> None:
        self.nodes: list[Hashable] = list(tree.nodes)
        self.index = {v: i for i, v in enumerate(self.nodes)}
        n = self.n = len(self.nodes)
        adjacency = [[self.index[w] for w in tree[v]] for v in self.nodes]
        self.adjacency = adjacency
        parent, depth, tin, tout = [0] * n, [0] * n, [0] * n, [0] * n
        seen = [False] * n
        seen[0] = True
        clock = 1
        stack = [(0, iter(adjacency[0]))]
        while stack:
            u, rest = stack[-1]
            for w in rest:
                if not seen[w]:
                    seen[w] = True
                    parent[w], depth[w], tin[w] = u, depth[u] + 1, clock
                    clock += 1
                    stack.append((w, iter(adjacency[w])))
                    break
            else:
                tout[u] = clock
                stack.pop()
        self.parent, self.depth, self.tin, self.tout = parent, depth, tin, tout
        self.up = [parent]
        while (1 << len(self.up)) < n:
            last = self.up[-1]
            self.up.append([last[last[v]] for v in range(n)])

    def below(self, x: int, y: int) -> bool:
        """x lies in the subtree of y."""
        return self.tin[y] <= self.tin[x] < self.tout[y]

    def lift(self, a: int, levels: int) -> int:
        k = 0
        while levels:
            if levels & 1:
                a = self.up[k][a]
            levels >>= 1
            k += 1
        return a

    def lca(self, a: int, b: int) -> int:
        depth = self.depth
        if depth[a] < depth[b]:
            a, b = b, a
        a = self.lift(a, depth[a] - depth[b])
        if a == b:
            return a
        for level in reversed(self.up):
            if level[a] != level[b]:
                a, b = level[a], level[b]
        return self.parent[a]

    def distance(self, a: int, b: int) -> int:
        return self.depth[a] + self.depth[b] - 2 * self.depth[self.lca(a, b)]

    def median(self, a: int, b: int, c: int) -> int:
        """The node where the paths between a, b and c meet."""
        return max((self.lca(a, b), self.lca(a, c), self.lca(b, c)), key=self.depth.__getitem__)

    def next_hop(self, u: int, s: int) -> int:
        """u's neighbour towards s (s != u)."""
        if self.below(s, u):
            return self.lift(s, self.depth[s] - self.depth[u] - 1)
        return self.parent[u]

    def path_links(self, s: int, m: int) -> list[tuple[int, int]]:
        """The links of the path from s to m, each directed away from s."""
        top = self.lca(s, m)
        links = []
        x = s
        while x != top:
            links.append((x, self.parent[x]))
            x = self.parent[x]
        down = []
        x = m
        while x != top:
            down.append((self.parent[x], x))
            x = self.parent[x]
        return links + down[::-1]


class ConvergedState:
    """What every server holds once ``subscriptions`` (in order) have
    propagated over ``tree`` by formula (1) with covering, and the traffic
    it took (see the module docstring). Build with :func:`converge`."""

    def __init__(self, tree: nx.Graph, subscriptions: Sequence[Subscription]) -> None:
        if tree.number_of_nodes() == 0 or not nx.is_tree(tree):
            raise ValueError("converge needs a tree: connected and acyclic")
        self.tree = tree
        self._t = _RootedTree(tree)
        self.subscriptions = list(subscriptions)
        self._classes(self.subscriptions)
        self._propagate()
        self._index_sides()
        self.traffic = self._traffic()

    # ------------------------------------------------------------ classes
    def _classes(self, subs: list[Subscription]) -> None:
        """One poset of every distinct filter (each its own subscriber, so
        nothing is cancelled): its elements are the covering classes."""
        poset = Poset(SUBSCRIPTIONS)
        cls_of: dict[Element, int] = {}
        self.class_of: list[int] = []
        self._spellings: list[dict[Filter, None]] = []
        for i, s in enumerate(subs):
            if s.server not in self._t.index:
                raise KeyError(f"no server {s.server!r}")
            e = poset.holding(s.value)
            if e is None:
                e = poset.insert(s.value, i).element
            k = cls_of.get(e)
            if k is None:
                k = cls_of[e] = len(cls_of)
                self._spellings.append({})
            self._spellings[k][s.value] = None
            self.class_of.append(k)
        by_class = sorted(cls_of, key=cls_of.__getitem__)
        self.strictly_above: list[list[int]] = [[cls_of[a] for a in ancestors(e)] for e in by_class]
        self.first_value = [next(iter(sp)) for sp in self._spellings]
        self._multi = {k for k, sp in enumerate(self._spellings)
                       if len({len(v.constraints) for v in sp}) > 1}

    # ------------------------------------------------------------ messages
    def _propagate(self) -> None:
        """For each subscription: None when it crossed every link away from
        its server, else the meeting point its path ends at (itself: none)."""
        t = self._t
        origins: list[set[int]] = [set() for _ in self._spellings]
        self.server_of: list[int] = []
        self.meet: list[int | None] = []
        for i, s in enumerate(self.subscriptions):
            k, u = self.class_of[i], t.index[s.server]
            m: int | None = None
            for c in (x for a in (k, *self.strictly_above[k]) for x in origins[a]):
                m = c if m is None else t.median(u, m, c)
                if m == u:
                    break
            self.server_of.append(u)
            self.meet.append(m)
            origins[k].add(u)
        self._origins = origins

    def _traffic(self) -> Traffic:
        t, nodes = self._t, self._t.nodes
        traffic = Traffic()
        everywhere = np.zeros(t.n, dtype=np.int64)
        per_link: Counter = Counter()
        for u, m in zip(self.server_of, self.meet, strict=True):
            traffic.client_requests += 1
            traffic.flooding += t.n - 1
            if m is None:
                everywhere[u] += 1
                traffic.subscribe += t.n - 1
                continue
            for a, b in t.path_links(u, m):
                per_link[(nodes[a], nodes[b])] += 1
                traffic.subscribe += 1
        if everywhere.any():
            # a flood from s crosses child→parent when s is below the child
            below = np.zeros(t.n, dtype=np.int64)
            order = sorted(range(t.n), key=t.depth.__getitem__, reverse=True)
            for x in order:
                below[x] += everywhere[x]
                if x != 0:
                    below[t.parent[x]] += below[x]
            total = int(everywhere.sum())
            for x in range(1, t.n):
                p = t.parent[x]
                if below[x]:
                    per_link[(nodes[x], nodes[p])] += int(below[x])
                if total - below[x]:
                    per_link[(nodes[p], nodes[x])] += int(total - below[x])
        traffic.per_link = per_link
        return traffic

    # ------------------------------------------------------------ tables
    def _index_sides(self) -> None:
        """Per class, the Euler times of the servers subscribing it (O) and
        of those subscribing a class strictly above it (U), as sorted keys
        class·n + time, so one searchsorted per link side answers every class."""
        t, n = self._t, self._t.n
        k_count = len(self._spellings)
        above_origins = [set().union(*(self._origins[a] for a in above)) if above else set()
                         for above in self.strictly_above]

        def keys(sets: list[set[int]]) -> tuple[np.ndarray, np.ndarray]:
            flat = sorted(k * n + t.tin[u] for k, servers in enumerate(sets) for u in servers)
            counts = np.array([len(s) for s in sets], dtype=np.int64)
            return np.array(flat, dtype=np.int64), counts

        self._keys_o, self._count_o = keys(self._origins)
        self._keys_u, self._count_u = keys(above_origins)
        self._base = np.arange(k_count, dtype=np.int64) * n
        self.sizes = np.array([len(v.constraints) for v in self.first_value], dtype=np.int64)

    def _count_in(self, keys: np.ndarray, lo: int, hi: int) -> np.ndarray:
        return np.searchsorted(keys, self._base + hi) - np.searchsorted(keys, self._base + lo)

    def held_classes(self, server: Hashable, neighbor: Hashable) -> np.ndarray:
        """The classes ``server`` holds for its neighbour ``neighbor``: the
        maximal classes subscribed on the neighbour's side (class numbers,
        in order of first subscription)."""
        t = self._t
        u, y = t.index[server], t.index[neighbor]
        if t.parent[y] == u and y != 0:
            lo, hi = t.tin[y], t.tout[y]
            has_o = self._count_in(self._keys_o, lo, hi) > 0
            has_u = self._count_in(self._keys_u, lo, hi) > 0
        elif t.parent[u] == y and u != 0:
            lo, hi = t.tin[u], t.tout[u]
            has_o = self._count_o - self._count_in(self._keys_o, lo, hi) > 0
            has_u = self._count_u - self._count_in(self._keys_u, lo, hi) > 0
        else:
            raise KeyError(f"{neighbor!r} is not a neighbour of {server!r}")
        return np.flatnonzero(has_o & ~has_u)

    def client_classes(self, client: Hashable) -> list[int]:
        """The maximal classes among the client's own subscriptions."""
        mine = self._by_client.get(client, {})
        return sorted(k for k in mine if not any(a in mine for a in self.strictly_above[k]))

    def clients_at(self, server: Hashable) -> list[Hashable]:
        """The clients subscribing at ``server``, in order of first subscription."""
        return list(self._clients_at.get(server, ()))

    @cached_property
    def _by_client(self) -> dict[Hashable, dict[int, None]]:
        out: dict[Hashable, dict[int, None]] = {}
        for i, s in enumerate(self.subscriptions):
            out.setdefault(s.client, {})[self.class_of[i]] = None
        return out

    @cached_property
    def _clients_at(self) -> dict[Hashable, dict[Hashable, None]]:
        out: dict[Hashable, dict[Hashable, None]] = {}
        for s in self.subscriptions:
            out.setdefault(s.server, {})[s.client] = None
        return out

    @cached_property
    def _occurrences(self) -> list[list[int]]:
        """Per class, the subscriptions of it, in order."""
        out: list[list[int]] = [[] for _ in self._spellings]
        for i, c in enumerate(self.class_of):
            out[c].append(i)
        return out

    def held(self, server: Hashable, subscriber: Hashable) -> list[Filter]:
        """The values ``server`` holds for ``subscriber`` (a neighbour or a
        client), each as that server spells its class."""
        if subscriber in self._t.index:
            classes: Iterable[int] = self.held_classes(server, subscriber).tolist()
        else:
            classes = self.client_classes(subscriber)
        return [self.spelling(k, server) for k in classes]

    def spelling(self, k: int, server: Hashable) -> Filter:
        """How ``server`` spells class k: the value that created the element
        alive at the end. Classes of one spelling need no replay; for the
        others the subscriptions of k and of the classes above it are
        replayed as they reached the server (see the module docstring)."""
        if len(self._spellings[k]) == 1:
            return self.first_value[k]
        u = self._t.index[server]
        relevant = sorted(i for a in (k, *self.strictly_above[k]) for i in self._occurrences[a])
        state: dict[Hashable, bool] = {}  # subscriber -> holds k (True) or a class above it (False)
        open_count, value = 0, None
        for i in relevant:
            sub = self._arrival(i, u)
            if sub is None:
                continue
            held = state.get(sub)
            if self.class_of[i] == k:
                if held is None:
                    state[sub] = True
                    open_count += 1
                    if open_count == 1:
                        value = self.subscriptions[i].value
            else:
                if held:
                    open_count -= 1
                state[sub] = False
        if value is None or open_count == 0:
            raise KeyError(f"server {server!r} holds no element of class {k}")
        return value

    def _arrival(self, i: int, u: int) -> Hashable | None:
        """Who subscription i reached server u from: its client at u, the
        neighbour it came through, or None if it never reached u."""
        t = self._t
        s, m = self.server_of[i], self.meet[i]
        if s == u:
            return ("client", self.subscriptions[i].client)
        if m is not None and t.distance(s, u) + t.distance(u, m) != t.distance(s, m):
            return None
        return t.nodes[t.next_hop(u, s)]

    def constraints_held(self, server: Hashable, neighbor: Hashable) -> int:
        """Constraints of what ``server`` holds for ``neighbor`` (each class as
        the server spells it), without listing the values."""
        classes = self.held_classes(server, neighbor)
        total = int(self.sizes[classes].sum())
        for k in self._multi.intersection(classes.tolist()):
            total += len(self.spelling(k, server).constraints) - int(self.sizes[k])
        return total

    def entries(self, server: Hashable) -> int:
        """(element, subscriber) pairs of the server's poset: one per value
        held for each neighbour and each local client."""
        u = self._t.index[server]
        nodes = self._t.nodes
        return (sum(len(self.held_classes(server, nodes[y])) for y in self._t.adjacency[u])
                + sum(len(self.client_classes(c)) for c in self.clients_at(server)))


def converge(tree: nx.Graph,
             subscriptions: Iterable[Subscription | tuple[Hashable, Hashable, Filter]]) -> ConvergedState:
    """The converged state of Siena's subscription forwarding with covering
    on ``tree`` after ``subscriptions`` ((client, server, filter), in order);
    see :class:`ConvergedState`."""
    subs = [s if isinstance(s, Subscription) else Subscription(*s) for s in subscriptions]
    return ConvergedState(tree, subs)
