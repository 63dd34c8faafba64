"""Content-based routing schemes over a network: PSF, iPS, PIF, DRP and Siena.

Carzaniga, Rembert & Wolf, "Understanding Content-Based Routing Schemes",
University of Lugano TR 2006/05, §2-§3. Every scheme is a distributed
algorithm of three functions per processor: Init_v (the header a message
starts with at its source v), Hdr_u (the header u puts on the packets it
sends on) and Fwd_u (the neighbours u sends a packet to). :func:`build`
computes every processor's state; :meth:`Routing.deliver` injects one
message and records the delivery tree it induces (§2.2), one
:class:`~cbalgebra.network.delivery.Packet` per packet processed.

The schemes (x ranges over receivers, v over senders, T_v is the
shortest-path tree of v with the smallest-id tie-break of
:mod:`cbalgebra.network.paths`):

``psf`` (§3.1)
    F_u(v, w) = OR of pred(x) over x ∈ T_v/(u, w). Header: the source v, never
    rewritten. Fwd_u(v, m) = {w | m ∈ F_u(v, w)}.
``ips`` (§3.2)
    Sources v1, v2 are *indistinguishable* at u when child_u(v1) =
    child_u(v2) and T_v1/w = T_v2/w for every such child w (the paper's two
    conditions). I_u maps a header to its class, F_u is indexed by class.
    R_u(C) = 1 (u rewrites the header to u on the packets it sends) exactly
    when, for every v ∈ C and every processor y below u in T_v, u and v are
    indistinguishable at y: then every later processor forwards a packet
    headed u exactly as it would one headed v, so iPS delivers what PSF
    delivers, packet for packet. (The paper states the rewriting condition
    informally, "the most-recently visited processor beyond which sources
    remain indistinguishable"; this is the condition that makes it safe.)
    Classes are over all processors, since a rewritten header may name a
    processor that is not a sender; only the classes a header can reach u
    in are stored. On a tree the classes at u are {u} and, for each
    neighbour w, the sources reached through w; R_u = 1 throughout.
``pif`` (§3.3)
    F*_u(w) = OR of F_u(v, w) over every processor v ∈ V (the paper's
    definition), plus child_u(v) for every sender. Header: the source.
    Fwd_u(v, m) = {w ∈ child_u(v) | m ∈ F*_u(w)}. With the smallest-id
    tie-break the trees are consistent: where T_v's path to x passes u, it
    continues as T_u's path (x's parent p in T_v lies below u, so p is tight
    from u as well as from v; every parent tight from u is tight from v; so
    p, the smallest tight from v, is the smallest tight from u). Hence the
    paper's F*_u(w) is T_u/w: each receiver x ≠ u lies below exactly one
    neighbour of u (tests/test_network_pif_union.py checks it). The option
    ``pif_union="senders"`` unites over the senders only: a sub-predicate
    of the paper's, so smaller tables when s < n, delivery trees inside the
    paper's, and still correct (PSF's tree stays inside PIF's).
``drp`` (§3.4)
    The source matches m against every receiver's predicate (its pred table),
    W = the interested processors; every processor partitions the
    destinations it is handed by unicast next hop (u's neighbour on its own
    tree T_u) and, as the paper's note suggests, sends *one packet per next
    hop* whose header is that part of W. Those default tables agree on ties,
    so DRP then delivers exactly PSF's tree; ``unicast="ecmp"`` (independent
    tie-breaks) or explicit tables show the paper's duplicates.
``siena``
    Siena's subscription forwarding (Carzaniga, Rosenblum & Wolf, "Content-Based
    Addressing and Routing: A General Model and its Application", 2000, §3.5,
    simulated by :mod:`cbalgebra.network.siena`): every receiver's
    client subscribes each conjunction of its predicate; subscriptions
    propagate with covering; notifications follow the reverse paths. Siena
    needs an acyclic topology: on a graph that is not a tree it runs over
    T_c, the shortest-path tree of the *centre* c (the processor of smallest
    eccentricity, smallest id on ties), as an acyclic peer-to-peer Siena
    would be configured over the routers' tree. It is correct but in general
    not latency-minimal there.

Headers. A processor forwards by the header it received and puts Hdr_u of
it on the packets it sends (§2.1); a :class:`Packet` records the header as
its processor received it (the root: Init_v).

Tables. Each processor's predicates are compiled into ONE
:class:`cbalgebra.matcher.ForwardingTable` (the numba counting engine):
interfaces are its neighbours for PIF and Siena, and the pairs (source or
class, neighbour), numbered, for PSF and iPS; a decision forwards the message
on the interfaces of the header's source (class) only, through the
``broadcast`` set of the table. PSF and iPS rows of several sources that
hold the same predicate for the same neighbour share one interface (see
:class:`cbalgebra.network.per_source._PerSource`; ``shared_rows=False``
turns this off). The predicates are encoded once for all tables
(:mod:`cbalgebra.network.pool`). :meth:`Routing.deliver_many` forwards hop by hop for many messages at once,
one batch call per processor and hop. DRP's pred table has one interface per
receiver. Each combined predicate (F_u(v, w), F*_u(w), Siena's per-neighbour
subscriptions) is reduced with the chosen reducer: ``none`` (default) keeps
the disjunction as the sequence of the receivers' predicates, without even
merging duplicates (α = 1 in the paper's §2.4 sense); ``siena``, ``exact``,
``merge``, ``cover``, ``minimal`` are :func:`cbalgebra.reduce`'s.

Modules. This one defines PIF, DRP, Siena and :func:`build`; what every
scheme shares (:class:`Routing`, :class:`Delivery`) is in
:mod:`cbalgebra.network.routing`, PSF and iPS (and iPS's classes of
indistinguishable sources) in :mod:`cbalgebra.network.per_source`.

Memory (:meth:`Routing.memory`, §2.4). A processor id costs ⌈log2 n⌉ bits;
a constraint costs :data:`BITS_PER_CONSTRAINT` bits (16 for the attribute
name's index in a name dictionary, 4 for its type, 4 for its operator, 64
for its value: a 64-bit int or double, or a pointer to an interned string).
Each scheme counts what the paper's analysis counts:

- psf: s⌈log2 n⌉ (each sender's own id, for Init) + the F_u predicates;
- ips: as psf over classes, plus I_u (|H_u|·⌈log2 |classes_u|⌉ bits for the
  |H_u| header values that can reach u, 0 when each class is reached by one
  header only, the paper's identity on a tree) and R_u (one bit per class, 0
  when R_u is constant);
- pif: s⌈log2 n⌉ + the F*_u predicates + child_u: per sender, its id and a
  bit per neighbour, s(⌈log2 n⌉ + deg u) bits (``memory()["pif_union"]``
  names the union F* is taken over);
- drp: unicast_u, one next-hop id per receiver at every processor
  (n·r·⌈log2 n⌉), + the pred table at every sender (s·Σ size(pred x));
- siena: the subscriptions each server holds from each neighbour and its
  local client, and one subscriber id per (filter, subscriber) entry.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

import networkx as nx
import numpy as np

from cbalgebra.reducers import REDUCERS
from cbalgebra.values import Filter, Predicate

from .names import PIF_UNIONS, SCHEMES
from .paths import ShortestPaths
from .per_source import IPS, PSF, ips_lookup_bits, ips_structure, source_classes
from .routing import BITS_PER_CONSTRAINT, Delivery, Routing, RoutingError, id_bits
from .siena import Network
from .topology import TopologyError, _finish

# Delivery, Routing and the iPS structure live in .routing and .per_source;
# they are named here too, where the schemes are documented.
__all__ = [
    "BITS_PER_CONSTRAINT",
    "DRP",
    "IPS",
    "PIF",
    "PIF_UNIONS",
    "PSF",
    "SCHEMES",
    "Delivery",
    "Routing",
    "RoutingError",
    "Siena",
    "build",
    "id_bits",
    "ips_lookup_bits",
    "ips_structure",
    "routing_problem",
    "siena_tree",
    "source_classes",
]


def _reducer_choices() -> tuple[str, ...]:
    return ("none", *REDUCERS)


class PIF(Routing):
    """Per-Interface Forwarding (§3.3). ``pif_union`` (one of
    :data:`PIF_UNIONS`) is what F* unites over: ``"processors"``, the paper's
    F*_u(w) = ∨_{v∈V} F_u(v, w), or ``"senders"``, v ∈ S only."""

    scheme = "pif"
    _predicate_component = "F*"
    pif_union = "processors"

    def _setup(self) -> None:
        paths, n = self.paths, self.n
        united = range(n) if self.pif_union == "processors" else sorted(self.senders)
        self._children: dict[int, dict[int, np.ndarray]] = {}
        for u in range(n):
            below: dict[int, set[int]] = {w: set() for w in self.graph[u]}
            for v in united:
                for w in paths.children(v, u):
                    below[w] |= paths.subtree(v, w)
            self._children[u] = {v: np.array(paths.children(v, u), dtype=np.int64) for v in sorted(self.senders)}
            self._rows[u] = [(w, ids) for w in sorted(below) if (ids := self._combine.ids(below[w]))]
        self._compile({u: list(self.graph[u]) for u in range(n)})

    def _variant(self) -> dict[str, str]:
        return {"pif_union": self.pif_union}

    def _offer(self, u, parent, header):
        return self._children[u][header]

    def _decode(self, u, parent, header, interfaces):
        return [(w, header) for w in interfaces]

    def _memory_of(self, u):
        return {"init": self.id_bits if u in self.senders else 0,
                "child": len(self.senders) * (self.id_bits + self.graph.degree[u]),
                "predicate_constraints": self._row_constraints(u)}


class DRP(Routing):
    """Dynamic Receiver Partitioning (§3.4), one packet per next hop."""

    scheme = "drp"
    _predicate_component = "pred"

    def _setup(self) -> None:
        # Every sender holds the same pred table; it is compiled once and shared.
        receivers = sorted(self.receivers)
        self._rows[-1] = [(x, (self._combine.own[x],)) for x in receivers]
        self._pool.freeze()
        rows = self._rows.pop(-1)
        self.pred_table = self._pool.table(receivers, np.array([i for i, _ in rows], dtype=np.int64),
                                           np.array([p for _, ids in rows for p in ids], dtype=np.int64))
        self.tables = {v: self.pred_table for v in sorted(self.senders)}
        self._pred_constraints = sum(p.size for p in self.predicates.values())

    def _init(self, source, message):
        return frozenset(self.pred_table.forward(message).tolist()) if self.receivers else frozenset()

    def _init_many(self, messages, sources):
        if not self.receivers or not messages:
            return [frozenset() for _ in messages]
        offsets, ids = self.pred_table.forward_batch_csr(messages)
        ids = ids.tolist()
        return [frozenset(ids[offsets[i]:offsets[i + 1]]) for i in range(len(messages))]

    def _forward_many(self, u, items, messages):
        return [self._forward(u, parent, header, None) for _, _, parent, header, _ in items]

    def _set_unicast(self, unicast: Any, seed: int) -> None:
        """unicast_u(x): by default u's first hop on T_u. Those tables are
        *consistent*: with the smallest-id tie-break, the tree of a processor
        a on T_v's path to x continues that path (a parent tight from a is
        tight from v), so DRP's routes are T_v's paths and DRP delivers
        exactly PSF's tree, duplicates never arise. Independent routers need
        not agree on ties: ``"ecmp"`` lets every processor pick, for each
        destination, one of its equal-cost next hops at random (seeded by
        ``seed``), and a mapping {u: {x: next hop}} sets entries by hand
        (each checked to lie on a shortest path). These are the tables under
        which the paper's counterexample (§3.4) shows: equal-cost paths that
        split and meet again make a processor see two packets."""
        self._override: dict[int, dict[int, int]] = {}
        if unicast is None or unicast == "tree":
            self.unicast_kind = "tree"
            return
        paths = self.paths
        if unicast == "ecmp":
            self.unicast_kind = f"ecmp (seed {seed})"
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), 3, 4])))
            for u in range(self.n):
                table = {}
                for x in range(self.n):
                    if x == u:
                        continue
                    # w starts a shortest path from u to x: the link (w, u) is tight from x.
                    hops = [w for w in sorted(self.graph[u]) if paths.on_shortest_path(x, w, u)]
                    table[x] = hops[int(rng.integers(len(hops)))]
                self._override[u] = table
            return
        if not isinstance(unicast, Mapping):
            raise RoutingError(f"unicast must be None, 'tree', 'ecmp' or a mapping {{u: {{x: next hop}}}}, "
                               f"not {unicast!r}")
        self.unicast_kind = "given"
        for u, table in unicast.items():
            for x, w in table.items():
                ok = (u in self.graph and x in self.graph and w in self.graph[u] and x != u
                      and paths.on_shortest_path(x, w, u))
                if not ok:
                    raise RoutingError(f"unicast_{u}({x}) = {w!r} is not a neighbour of {u} on a shortest path to {x}")
                self._override.setdefault(int(u), {})[int(x)] = int(w)

    def next_hop(self, u: int, x: int) -> int:
        hop = self._override.get(u, {}).get(x)
        return self.paths.next_hop(u, x) if hop is None else hop

    def _forward(self, u, parent, header, message):
        parts: dict[int, set[int]] = {}
        for x in header:
            if x != u:
                parts.setdefault(self.next_hop(u, x), set()).add(x)
        return [(w, frozenset(xs)) for w, xs in sorted(parts.items())]

    def _header_bits(self, header: Any) -> int:
        return len(header) * self.id_bits

    def _memory_of(self, u):
        return {"unicast": len(self.receivers) * self.id_bits,
                "predicate_constraints": self._pred_constraints if u in self.senders else 0}


class Siena(Routing):
    """Siena's subscription forwarding over an acyclic topology (Carzaniga,
    Rosenblum & Wolf, "Content-Based Addressing and Routing", 2000, §3.5)."""

    scheme = "siena"
    _predicate_component = "subscriptions"

    def _setup(self) -> None:
        self.tree, self.tree_root = siena_tree(self.graph, self.paths)
        net = Network(self.tree, covering=True)
        for x in sorted(self.receivers):
            client = f"client{x}"
            net.add_client(client, x)
            for f in self.predicates[x].filters:
                net.subscribe(client, f)
        self.network = net
        self._entries: dict[int, int] = {}
        for u in range(self.n):
            poset = net.servers[u].poset
            rows = []
            for y in sorted(self.tree[u]):
                held = [v for v in poset.subscriptions(y)]
                filters = [f for v in held for f in (v.filters if isinstance(v, Predicate) else (v,))]
                ids = self._combine.ids_of_filters(cast(list[Filter], filters))
                if ids:
                    rows.append((y, ids))
            self._rows[u] = rows
            self._entries[u] = sum(len(e.subscribers) for e in poset.elements())
        self._local = {x: self.predicates[x].size for x in self.receivers}
        self._compile({u: list(self.tree[u]) for u in range(self.n)})

    def _offer(self, u, parent, header):
        return [w for w in self.tree[u] if w != parent]

    def _decode(self, u, parent, header, interfaces):
        return [(w, None) for w in interfaces]

    def _init(self, source, message):
        return None

    def _header_bits(self, header: Any) -> int:
        return 0

    def _memory_of(self, u):
        return {"subscriber_ids": self._entries[u] * self.id_bits,
                "predicate_constraints": self._row_constraints(u) + self._local.get(u, 0)}


_CLASSES = {"psf": PSF, "ips": IPS, "pif": PIF, "drp": DRP, "siena": Siena}


# ---------------------------------------------------------------------------
# Siena's tree

def siena_tree(graph: nx.Graph, paths: ShortestPaths) -> tuple[nx.Graph, int | None]:
    """The acyclic topology Siena runs over: the graph itself if it is a
    tree (root None), else T_c for the centre c (smallest eccentricity,
    smallest id on ties), with the graph's weights."""
    if graph.number_of_edges() == graph.number_of_nodes() - 1:
        return graph, None
    ecc = paths.exact_dist.max(axis=1)  # exact: rounded floats could tie different eccentricities
    root = int(np.flatnonzero(ecc == ecc.min())[0])
    tree = nx.Graph()
    tree.add_nodes_from(range(paths.n))
    for p, x in paths.tree_edges(root):
        tree.add_edge(p, x, weight=graph.edges[p, x]["weight"])
    return tree, root


# ---------------------------------------------------------------------------
# The entry point

def build(scheme: str, graph: nx.Graph, predicates: Mapping[int, Predicate],
          reducer: str | None = None, senders: Iterable[int] | None = None,
          paths: ShortestPaths | None = None, *, unicast: Any = None, unicast_seed: int = 0,
          shared_rows: bool = True, pif_union: str | None = None) -> Routing:
    """Build routing ``scheme`` (one of :data:`SCHEMES`) on ``graph`` (a
    topology: nodes 0..n-1, connected, positive weights) for the receivers
    ``predicates`` ({processor: Predicate}; a processor without one is not a
    receiver) and the ``senders`` (default: every processor). ``reducer``
    reduces every combined predicate (None or ``"none"``: no reduction).
    ``paths`` may pass the graph's ShortestPaths to share them; ``unicast``
    and ``unicast_seed`` choose DRP's unicast tables (see DRP._set_unicast);
    ``shared_rows=False`` compiles PSF and iPS rows one interface each
    (see _PerSource); ``pif_union`` chooses what PIF's F* unites over (see
    :class:`PIF`; None: the paper's, every processor)."""
    if scheme not in _CLASSES:
        raise RoutingError(f"unknown scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
    graph, preds, sender_set, reducer = routing_problem(graph, predicates, senders, reducer)
    if paths is None:
        paths = ShortestPaths(graph)
    routing = _CLASSES[scheme](graph, paths, preds, sender_set, reducer)
    if not shared_rows:
        routing.shared_rows = False
    if isinstance(routing, DRP):
        routing._set_unicast(unicast, unicast_seed)
    elif unicast is not None:
        raise RoutingError("unicast applies to the drp scheme only")
    if isinstance(routing, PIF) and pif_union is not None:
        if pif_union not in PIF_UNIONS:
            raise RoutingError(f"unknown pif_union {pif_union!r}; choose one of {', '.join(PIF_UNIONS)}")
        routing.pif_union = pif_union
    elif pif_union is not None:
        raise RoutingError("pif_union applies to the pif scheme only")
    routing._setup()
    return routing


def routing_problem(graph: Any, predicates: Mapping[int, Predicate], senders: Iterable[int] | None,
                    reducer: str | None) -> tuple[nx.Graph, dict[int, Predicate], frozenset[int], str]:
    """The checked inputs of a routing problem, as :func:`build` and
    :func:`cbalgebra.network.table_memory` take them: a copy of the graph
    checked as a topology, ``{receiver: Predicate}`` sorted (a Filter becomes
    a one-filter predicate), the senders (None: every processor) and the
    reducer name (None: ``"none"``). RoutingError, one line, otherwise."""
    reducer = "none" if reducer is None else reducer
    choices = _reducer_choices()
    if reducer not in choices:
        raise RoutingError(f"unknown reducer {reducer!r}; choose one of {', '.join(choices)}")
    graph = _checked_graph(graph)
    n = graph.number_of_nodes()
    if not isinstance(predicates, Mapping):
        raise RoutingError(f"predicates must map processors to predicates, not {type(predicates).__name__}")
    preds: dict[int, Predicate] = {}
    for x, p in predicates.items():
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= x < n:
            raise RoutingError(f"a predicate for {x!r}, which is not a processor of the network (0..{n - 1})")
        if isinstance(p, Filter):
            p = Predicate((p,))
        if not isinstance(p, Predicate):
            raise RoutingError(f"pred({x}) must be a Predicate, not {type(p).__name__}")
        preds[int(x)] = p
    if senders is None:
        sender_set = frozenset(range(n))
    else:
        chosen: set[int] = set()
        for v in senders:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < n:
                raise RoutingError(f"sender {v!r} is not a processor of the network (0..{n - 1})")
            chosen.add(int(v))
        sender_set = frozenset(chosen)
    return graph, dict(sorted(preds.items())), sender_set, reducer


def _checked_graph(graph: Any) -> nx.Graph:
    if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
        raise RoutingError("the network must be an undirected networkx Graph (see cbalgebra.network.topology)")
    name = graph.graph.get("name", "network")
    checked = graph.copy()
    try:
        _finish(checked, name)
    except TopologyError as e:
        raise RoutingError(str(e)) from None
    return checked
