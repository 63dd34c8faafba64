"""Subscription forwarding over a network of servers (Carzaniga, Rosenblum & Wolf 2000, §3.5).

Servers sit on an acyclic graph (Siena's hierarchical and acyclic
peer-to-peer topologies); each keeps a filters poset whose subscribers are
its local clients and its neighbour servers. Clients subscribe and
unsubscribe at their server, and servers forward subscriptions to their
neighbours by formula (1):

    forwards(f) = neighbors − NST(f) − ∪ forwards(f′) over f′ ∈ P covering f

In an acyclic topology NST(f), the neighbours not on any spanning tree rooted
at an original subscriber of f, is the set of neighbours Y with
subscribers(f) ⊆ {Y}: f reached this server only from Y. Call f *eligible*
for Y when it has some subscriber other than Y. Unrolling the recursion of
(1) from the roots down, Y ∈ forwards(f) exactly when f is eligible for Y
and no element strictly covering f is: the server forwards to Y the maximal
elements among those eligible for Y. This module keeps that set for every
link, and after each change sends the difference:

- an element that enters the set is sent as ``subscribe(X, f)``;
- an element that leaves is sent as ``unsubscribe(X, f)``, unless an
  element entering at the same time covers it (the neighbour's own insert
  then cancels it, as in Figure 5); unsubscriptions go first.

Without covering (``covering=False``) every server's table is a flat set
where only identical filters merge, and a filter is forwarded to every
neighbour it is eligible for: the baseline for counting what covering
saves. ``flooding`` counts what sending every subscription over every link
of the tree would cost.

The simulation also routes notifications back along the reverse paths
(:meth:`Network.publish`), which makes the result checkable end to end:
every client receives exactly the messages its subscriptions match.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

import cbalgebra
from cbalgebra.parse import parse_advertisement, parse_filter
from cbalgebra.poset import (
    DOWN,
    SUBSCRIPTIONS,
    UP,
    Element,
    InsertResult,
    Poset,
    RemoveResult,
    by_age,
    descendants_within,
    match,
    walk,
)
from cbalgebra.poset.html import to_html
from cbalgebra.poset.render import to_dot
from cbalgebra.semantics import matches

__all__ = ["Network", "Sent", "Server"]


def _equal(a: Any, b: Any) -> bool:
    return a == b


@dataclass(frozen=True)
class Sent:
    """One server-to-server message."""

    op: str  # "subscribe" or "unsubscribe"
    sender: Hashable
    receiver: Hashable
    value: Any

    def __str__(self) -> str:
        return f"{self.sender} -> {self.receiver}: {self.op} {self.value}"


class Server:
    """One server: its poset and, for each neighbour, the elements forwarded there."""

    def __init__(self, name: Hashable, neighbors: Iterable[Hashable], poset: Poset) -> None:
        self.name = name
        self.neighbors = tuple(sorted(neighbors, key=str))
        self.poset = poset
        self.forwarded: dict[Hashable, dict[Element, None]] = {y: {} for y in self.neighbors}

    def forwards(self, x: Any) -> set:
        """forwards(f): the neighbours x's element has been forwarded to."""
        e = self.poset.element(x)
        return {y for y in self.neighbors if e in self.forwarded[y]}

    def nst(self, x: Any) -> set:
        """NST(f): neighbours from which alone f came (not to be sent back)."""
        e = self.poset.element(x)
        return {y for y in self.neighbors if _ineligible(e, y)}

    def sent_to(self, neighbor: Hashable) -> list:
        """The values this server has forwarded to ``neighbor`` (an antichain)."""
        return [e.value for e in sorted(self.forwarded[neighbor], key=by_age)]

    def _forwards_line(self, e: Element) -> list[str]:
        to = sorted(str(y) for y in self.neighbors if e in self.forwarded[y])
        return ["forwards: " + (", ".join(to) if to else "-")]

    def to_dot(self, **options: Any) -> str:
        """This server's poset, each element labelled with subscribers and
        forwards (as in the paper's Figures 3-5)."""
        options.setdefault("title", f"Server {self.name}: subscriptions poset")
        return to_dot(self.poset, annotate=self._forwards_line, **options)

    def to_html(self, **options: Any) -> str:
        options.setdefault("title", f"Server {self.name}: subscriptions poset")
        return to_html(self.poset, annotate=self._forwards_line, **options)

    def __repr__(self) -> str:
        return f"<Server {self.name}: {len(self.poset)} elements, neighbours {list(self.neighbors)}>"


def _ineligible(e: Element, y: Hashable) -> bool:
    return all(s == y for s in e.subscriber_view)


@dataclass
class Traffic:
    subscribe: int = 0
    unsubscribe: int = 0
    client_requests: int = 0
    #: What flooding would cost: every request crossing every link of its tree.
    flooding: int = 0
    notifications: int = 0
    per_link: Counter = field(default_factory=Counter)

    @property
    def messages(self) -> int:
        """Server-to-server subscription traffic: subscribe + unsubscribe."""
        return self.subscribe + self.unsubscribe


class Network:
    """Servers on an acyclic networkx graph, each with its own poset.

    ``covering`` switches the covering optimization (formula (1)'s last term,
    and covering inside each table) on or off. ``record`` keeps a log of
    every server-to-server message in ``sent``.
    """

    def __init__(self, graph: Any, *, covering: bool = True, record: bool = False, kind: str = SUBSCRIPTIONS) -> None:
        # deferred: networkx loads only for networks built from a graph
        import networkx as nx

        if graph.is_directed():
            graph = graph.to_undirected()
        if graph.number_of_nodes() == 0:
            raise ValueError("the network has no servers")
        if not nx.is_forest(graph):
            raise ValueError("subscription forwarding by formula (1) needs an acyclic topology (a tree or forest)")
        self.graph = graph
        self.covering = covering
        self.kind = kind
        self.servers: dict[Hashable, Server] = {}
        for n in graph.nodes:
            poset = Poset(kind) if covering else Poset(kind, covers=_equal)
            self.servers[n] = Server(n, graph.neighbors(n), poset)
        self.clients: dict[Hashable, Hashable] = {}
        self.traffic = Traffic()
        self.record = record
        self.sent: list[Sent] = []
        self._active: dict[Hashable, list] = {}  # client → active subscriptions (reference model)
        self._client_covers: Callable[[Any, Any], bool] | None = None
        self._component_edges: dict[Hashable, int] = {}
        for comp in nx.connected_components(graph):
            edges = graph.subgraph(comp).number_of_edges()
            for n in comp:
                self._component_edges[n] = edges

    # ------------------------------------------------------------ clients
    def add_client(self, client: Hashable, server: Hashable) -> None:
        if server not in self.servers:
            raise KeyError(f"no server {server!r}")
        if client in self.servers:
            raise ValueError(f"client {client!r} has the name of a server")
        if client in self.clients and self.clients[client] != server:
            raise ValueError(f"client {client!r} is already attached to server {self.clients[client]!r}")
        self.clients[client] = server
        self._active.setdefault(client, [])

    def subscribe(self, client: Hashable, x: Any) -> int:
        """``client`` subscribes to x; returns the server-to-server messages it caused."""
        return self._client_request("subscribe", client, x)

    def unsubscribe(self, client: Hashable, x: Any) -> int:
        """``client`` cancels its subscriptions that x covers."""
        return self._client_request("unsubscribe", client, x)

    def _client_request(self, op: str, client: Hashable, x: Any) -> int:
        if client not in self.clients:
            raise KeyError(f"unknown client {client!r} (add_client first)")
        server = self.servers[self.clients[client]]
        value = server.poset.coerce(x) if not isinstance(x, str) else _parse(x, self.kind)
        self._model(op, client, value)
        self.traffic.client_requests += 1
        self.traffic.flooding += self._component_edges[server.name]
        before = self.traffic.messages
        self._run(deque([(op, client, server.name, value)]))
        return self.traffic.messages - before

    # ------------------------------------------------------------ protocol
    def _run(self, queue: deque) -> None:
        while queue:
            op, sender, receiver, value = queue.popleft()
            server = self.servers[receiver]
            if op == "subscribe":
                result: InsertResult | RemoveResult = server.poset.insert(value, sender)
            else:
                result = server.poset.remove(value, sender)
            if result.changed:
                self._refresh(server, result, queue)

    def _refresh(self, server: Server, result: InsertResult | RemoveResult, queue: deque) -> None:
        poset = server.poset
        target = result.element if isinstance(result, InsertResult) else None
        changed: list[Element] = []
        if target is not None:
            changed.append(target)
        for v in result.cancelled:
            e = poset.holding(v)
            if e is not None and e.alive:
                changed.append(e)
        changed.extend(result.released)
        changed_set = set(changed)
        budget = sum(len(f) for f in server.forwarded.values())
        below_target = descendants_within(target, budget) if target is not None else None
        for y in server.neighbors:
            old = server.forwarded[y]
            entering = [
                c for c in self._frontier(changed, y) if c not in old and self._is_member(c, y)
            ]
            target_enters = target is not None and target in entering
            leaving = []
            for m in old:
                if not m.alive or m in changed_set:
                    if not (m.alive and self._is_member(m, y)):
                        leaving.append(m)
                elif target_enters and target is not None and m is not target and (
                    m in below_target if below_target is not None else poset.element_covers(target, m)
                ):
                    leaving.append(m)
            if not entering and not leaving:
                continue
            for m in leaving:
                del old[m]
            for n in entering:
                old[n] = None
            for m in sorted(leaving, key=by_age):
                if not any(poset.element_covers(n, m) for n in entering):
                    self._send(queue, Sent("unsubscribe", server.name, y, m.value))
            for n in sorted(entering, key=by_age):
                self._send(queue, Sent("subscribe", server.name, y, n.value))

    @staticmethod
    def _frontier(start: list[Element], y: Hashable) -> list[Element]:
        """Highest eligible elements at or below ``start``."""
        out: list[Element] = []

        def ineligible(e: Element) -> bool:
            if _ineligible(e, y):
                return True  # look below it
            out.append(e)
            return False

        walk([e for e in start if e.alive], DOWN, visit=ineligible)
        return out

    @staticmethod
    def _is_member(e: Element, y: Hashable) -> bool:
        """Eligible for y, with no eligible element strictly covering it."""
        return not _ineligible(e, y) and all(_ineligible(a, y) for a in walk(e.predecessor_view, UP, lazy=True))

    def _send(self, queue: deque, msg: Sent) -> None:
        t = self.traffic
        if msg.op == "subscribe":
            t.subscribe += 1
        else:
            t.unsubscribe += 1
        t.per_link[(msg.sender, msg.receiver)] += 1
        if self.record:
            self.sent.append(msg)
        queue.append((msg.op, msg.sender, msg.receiver, msg.value))

    # ------------------------------------------------------------ notifications
    def publish(self, message: Any, at: Hashable) -> set:
        """Route a notification published at a server (or by a client) along
        the reverse paths of subscriptions; returns the clients reached
        (a publishing client too, if it subscribed to the message)."""
        if at in self.clients:
            start, came_from = self.clients[at], None
        elif at in self.servers:
            start, came_from = at, None
        else:
            raise KeyError(f"no server or client {at!r}")
        reached: set = set()
        queue: deque[tuple[Hashable, Hashable | None]] = deque([(start, came_from)])
        while queue:
            name, sender = queue.popleft()
            for s in match(self.servers[name].poset, message):
                if s == sender:
                    continue
                if s in self.servers:
                    self.traffic.notifications += 1
                    queue.append((s, name))
                else:
                    reached.add(s)
        return reached

    def interested(self, message: Any) -> set:
        """The clients whose active subscriptions match ``message`` (reference)."""
        return {c for c, held in self._active.items() if any(matches(f, message) for f in held)}

    def _model(self, op: str, client: Hashable, value: Any) -> None:
        """Each client's subscriptions, kept with the same semantics as its
        server's table (covering, or plain equality without covering)."""
        covers = self._client_covers
        if covers is None:
            covers = cbalgebra.covers if self.covering else _equal
            self._client_covers = covers
        held = self._active[client]
        if op == "subscribe":
            if any(covers(f, value) for f in held):
                return
            self._active[client] = [f for f in held if not covers(value, f)] + [value]
        else:
            self._active[client] = [f for f in held if not covers(value, f)]

    # ------------------------------------------------------------ checks and reports
    def check(self) -> None:
        """Assert that each link is in sync and follows formula (1): what X
        has forwarded to Y is what Y holds for subscriber X, and it is the
        set of maximal elements of X eligible for Y."""
        for x, server in self.servers.items():
            server.poset.check_invariants()
            for y in server.neighbors:
                fwd = server.forwarded[y]
                expect = {e for e in server.poset.elements() if self._is_member(e, y)}
                assert set(fwd) == expect, f"{x}->{y}: forwarded {len(fwd)} elements, formula (1) gives {len(expect)}"
                other = self.servers[y].poset
                held = other.subscriptions(x)
                assert len(held) == len(fwd), f"{x}->{y}: sent {len(fwd)}, {y} holds {len(held)} for {x}"
                for e in fwd:
                    assert x in other.element(e.value).subscribers, f"{y} lost {e.value} from {x}"

    def table_sizes(self) -> dict[Hashable, int]:
        return {n: len(s.poset) for n, s in self.servers.items()}


def _parse(text: str, kind: str) -> Any:
    return parse_advertisement(text) if kind != SUBSCRIPTIONS else parse_filter(text)
