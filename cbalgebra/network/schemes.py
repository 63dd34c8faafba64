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
:class:`_PerSource`; ``shared_rows=False`` turns this off).
:meth:`Routing.deliver_many` forwards hop by hop for many messages at once,
one batch call per processor and hop. DRP's pred table has one interface per
receiver. Each combined predicate (F_u(v, w), F*_u(w), Siena's per-neighbour
subscriptions) is reduced with the chosen reducer: ``none`` (default) keeps
the disjunction as the sequence of the receivers' predicates, without even
merging duplicates (α = 1 in the paper's §2.4 sense); ``siena``, ``exact``,
``merge``, ``cover``, ``minimal`` are :func:`cbalgebra.reduce`'s.

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

import math
from collections import deque
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import Any, cast

import networkx as nx
import numpy as np

import cbalgebra
from cbalgebra.errors import CbalgebraError
from cbalgebra.reducers import REDUCERS
from cbalgebra.semantics import matches
from cbalgebra.values import OP_CODE, TYPE_CODE, Filter, Message, Predicate

from .names import PIF_UNIONS, SCHEMES
from .delivery import DeliveryReport, Packet, check_delivery, smallest_latency_minimal_tree
from .paths import ShortestPaths
from .siena import Network
from .topology import TopologyError, _finish

__all__ = [
    "BITS_PER_CONSTRAINT",
    "PIF_UNIONS",
    "SCHEMES",
    "Delivery",
    "Routing",
    "RoutingError",
    "build",
]

#: bits of one constraint in the memory accounting (see the module docstring)
BITS_PER_CONSTRAINT = 88


def _reducer_choices() -> tuple[str, ...]:
    return ("none", *REDUCERS)


class RoutingError(CbalgebraError, ValueError):
    """Input that does not make a routing problem: an unknown scheme or
    reducer, a predicate or sender that is not a processor, a network that
    is not a valid topology. The message is one line."""


def id_bits(n: int) -> int:
    """⌈log2 n⌉, the bits of a processor id (at least 1)."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


# ---------------------------------------------------------------------------
# Predicates flattened once into the columns of ForwardingTable.from_arrays

class _PredicatePool:
    """Every predicate any table uses, each flattened once to constraint
    rows; a table is then a numpy gather of the rows of its (interface,
    predicate) pairs, with no Python loop per constraint."""

    def __init__(self) -> None:
        self._type_code, self._op_code = TYPE_CODE, OP_CODE
        self._ids: dict[Predicate, int] = {}
        self.predicates: list[Predicate] = []
        self.names: dict[str, int] = {}
        self.strings: dict[str, int] = {}
        self._rows: list[tuple[int, int, int, int, int]] = []  # (local filter, name, type, op, value)
        self._float_rows: list[tuple[int, float]] = []
        self._start: list[int] = []
        self._filters: list[int] = []
        self._frozen = False

    def add(self, pred: Predicate) -> int:
        found = self._ids.get(pred)
        if found is not None:
            return found
        assert not self._frozen, "pool already compiled"
        pid = len(self.predicates)
        self._ids[pred] = pid
        self.predicates.append(pred)
        self._start.append(len(self._rows))
        self._filters.append(len(pred.filters))
        for fi, f in enumerate(pred.filters):
            for c in f.constraints:
                t = self._type_code[c.type]
                v = c.value
                if v is None:
                    value = 0
                elif c.type == "string":
                    value = self.strings.setdefault(str(v), len(self.strings))
                elif c.type == "float":
                    self._float_rows.append((len(self._rows), float(v)))
                    value = 0
                else:
                    value = int(v)
                self._rows.append((fi, self.names.setdefault(c.name, len(self.names)), t,
                                   self._op_code[c.op], value))
        return pid

    def size(self, pid: int) -> int:
        return self.predicates[pid].size

    def freeze(self) -> None:
        rows = np.array(self._rows, dtype=np.int64).reshape(-1, 5)
        for r, x in self._float_rows:
            rows[r, 4] = np.float64(x).view(np.int64)
        self._cols = rows
        self._start_a = np.array([*self._start, len(self._rows)], dtype=np.int64)
        self._nf = np.array(self._filters, dtype=np.int64)
        self._names_list = list(self.names)
        self._strings_list = list(self.strings)
        self._frozen = True

    def table(self, interfaces: Iterable[int], iface: np.ndarray, pid: np.ndarray) -> Any:
        """A ForwardingTable with the given interfaces, where interface
        ``iface[k]`` holds the filters of predicate ``pid[k]`` (an interface
        may appear with several predicates: their disjunction)."""
        # deferred: the forwarding table loads numba
        from cbalgebra.matcher import ForwardingTable
        iface = np.asarray(iface, dtype=np.int64)
        pid = np.asarray(pid, dtype=np.int64)
        nf = self._nf[pid]
        filter_base = np.zeros(len(pid) + 1, dtype=np.int64)
        np.cumsum(nf, out=filter_base[1:])
        filter_interface = np.repeat(iface, nf)
        starts = self._start_a[pid]
        counts = self._start_a[pid + 1] - starts
        total = int(counts.sum())
        # row index of every constraint of every pair, in pair order
        pair_of_row = np.repeat(np.arange(len(pid)), counts)
        offsets = np.zeros(len(pid) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        rows = starts[pair_of_row] + (np.arange(total) - offsets[pair_of_row])
        cols = self._cols[rows] if total else np.zeros((0, 5), dtype=np.int64)
        return ForwardingTable.from_arrays(
            interfaces=np.array(sorted({int(i) for i in interfaces}), dtype=np.int64),
            filter_interface=filter_interface,
            c_filter=filter_base[pair_of_row] + cols[:, 0],
            c_name=cols[:, 1], c_type=cols[:, 2], c_op=cols[:, 3], c_value=cols[:, 4],
            names=self._names_list, strings=self._strings_list)


class _Combiner:
    """Turns a set of receivers into the predicate ids of their disjunction:
    their own predicates (reducer ``none``) or one reduced predicate (cached
    by the set, which many (source, edge) pairs share)."""

    def __init__(self, pool: _PredicatePool, predicates: Mapping[int, Predicate], reducer: str) -> None:
        self.pool = pool
        self.reducer = reducer
        self.own = {x: pool.add(p) for x, p in predicates.items()}
        self._cache: dict[frozenset, tuple[int, ...]] = {}

    def ids(self, receivers: Iterable[int]) -> tuple[int, ...]:
        receivers = frozenset(x for x in receivers if x in self.own)
        if self.reducer == "none":
            return tuple(self.own[x] for x in sorted(receivers))
        found = self._cache.get(receivers)
        if found is None:
            found = self._cache[receivers] = self._reduce(
                [f for x in sorted(receivers) for f in self.pool.predicates[self.own[x]].filters])
        return found

    def ids_of_filters(self, filters: list[Filter]) -> tuple[int, ...]:
        if self.reducer == "none":
            return (self.pool.add(Predicate(filters)),) if filters else ()
        return self._reduce(filters)

    def _reduce(self, filters: list[Filter]) -> tuple[int, ...]:
        if not filters:
            return ()
        return (self.pool.add(cbalgebra.reduce(Predicate(filters), reducer=self.reducer)),)


# ---------------------------------------------------------------------------
# Deliveries

class Delivery:
    """The delivery tree D of one message from one source (§2.2) and its
    checks (§2.3). ``packets`` lists (processor, parent, header, path
    length), the root packet at the source first; ``receivers`` is the set
    of processors holding a packet (the source included)."""

    def __init__(self, routing: Routing, message: Message, source: int, packets: list[Packet]) -> None:
        self.routing = routing
        self.message = message
        self.source = source
        self.packets: tuple[Packet, ...] = tuple(packets)

    @cached_property
    def receivers(self) -> frozenset[int]:
        return frozenset(p.processor for p in self.packets)

    @cached_property
    def interested(self) -> frozenset[int]:
        """The processors whose predicate matches the message, by
        :func:`cbalgebra.matches` (the reference semantics, independent of the
        forwarding engine the schemes use)."""
        return frozenset(x for x, p in self.routing.predicates.items() if matches(p, self.message))

    @cached_property
    def report(self) -> DeliveryReport:
        return check_delivery(self.routing.graph, self.source, self.interested, self.packets,
                              paths=self.routing.paths)

    @property
    def correct(self) -> bool:
        return self.report.correct

    @property
    def latency_minimal(self) -> bool:
        return self.report.latency_minimal

    @property
    def duplicates(self) -> dict[int, int]:
        """Processors that received the message more than once: processor →
        packets received."""
        return dict(self.report.duplicates)

    @property
    def size(self) -> int:
        """|D|: packets processed, the root included (transmissions: |D| - 1)."""
        return len(self.packets)

    @property
    def transmissions(self) -> int:
        return len(self.packets) - 1

    @cached_property
    def header_bits(self) -> int:
        """Bits of header carried over links: the sum over the transmitted
        packets (the root is not transmitted)."""
        return sum(self.routing._header_bits(p.header) for p in self.packets if p.parent is not None)

    @cached_property
    def optimum(self):
        """The smallest latency-minimal delivery tree (exact for small DAGs,
        else a labelled bound): :func:`smallest_latency_minimal_tree`."""
        return smallest_latency_minimal_tree(self.routing.graph, self.source, self.interested,
                                             paths=self.routing.paths)

    @property
    def ideal(self) -> bool | None:
        """Latency-minimal and as small as the smallest latency-minimal tree;
        None when that smallest size is only bounded."""
        if not self.latency_minimal:
            return False
        if not self.optimum.exact:
            return None
        return self.size == self.optimum.size

    def __repr__(self) -> str:
        return (f"<Delivery {self.routing.scheme} from {self.source}: {self.size} packets, "
                f"{len(self.receivers)} processors>")


# ---------------------------------------------------------------------------
# The schemes

class Routing:
    """A routing scheme's state on one network (built by :func:`build`)."""

    scheme = "?"

    def __init__(self, graph: nx.Graph, paths: ShortestPaths, predicates: dict[int, Predicate],
                 senders: frozenset[int], reducer: str) -> None:
        self.graph = graph
        self.paths = paths
        self.n = paths.n
        self.predicates = predicates
        self.receivers = frozenset(predicates)
        self.senders = senders
        self.reducer = reducer
        self.id_bits = id_bits(self.n)
        self.tables: dict[int, Any] = {}
        #: numba threads of deliver_many's batch calls (None: all)
        self.threads: int | None = 1
        self._weight = {u: {w: float(d["weight"]) for w, d in graph[u].items()} for u in graph.nodes}
        self._pool = _PredicatePool()
        self._combine = _Combiner(self._pool, predicates, reducer)
        #: per processor: the scheme's table rows [(row, predicate ids)], as the
        #: paper's memory model counts them
        self._rows: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
        #: per processor, when it differs: the rows compiled, [(interface, predicate ids)]
        self._table_rows: dict[int, list[tuple[int, tuple[int, ...]]]] = {}

    #: PSF and iPS compile rows of equal (neighbour, predicate) once (see _PerSource)
    shared_rows = True

    # -- building ------------------------------------------------------------
    def _setup(self) -> None:
        """Compute every processor's state (each scheme's own)."""
        raise NotImplementedError

    def _compile(self, interfaces: dict[int, Iterable[int]]) -> None:
        """One table per processor from self._rows[u] = [(iface, pred ids)]."""
        self._pool.freeze()
        for u in range(self.n):
            rows = self._table_rows.get(u, self._rows.get(u, []))
            iface = [i for i, ids in rows for _ in ids]
            pid = [p for _, ids in rows for p in ids]
            self.tables[u] = self._pool.table(interfaces[u], np.array(iface, dtype=np.int64),
                                              np.array(pid, dtype=np.int64))

    def _compiled_constraints(self, u: int) -> int:
        table = self.tables.get(u)
        return 0 if table is None else int(table.stats()["constraints"])

    def _row_constraints(self, u: int) -> int:
        return sum(self._pool.size(p) for _, ids in self._rows.get(u, []) for p in ids)

    # -- delivering ----------------------------------------------------------
    def deliver(self, message: Message, source: int) -> Delivery:
        """Inject ``message`` at ``source`` and record the delivery tree."""
        if not isinstance(message, Message):
            raise RoutingError(f"deliver expects a Message, not {type(message).__name__}")
        self._check_source(source)
        packets = [Packet(source, None, self._init(source, message), 0.0)]
        queue: deque[tuple[int, int | None, Any, float]] = deque([(source, None, packets[0].header, 0.0)])
        limit = 4 * self.n * self.n + 16  # far above any tree; guards against a loop bug
        while queue:
            u, parent, header, length = queue.popleft()
            for w, out_header in self._forward(u, parent, header, message):
                p = Packet(w, u, out_header, length + self._weight[u][w])
                packets.append(p)
                queue.append((w, u, out_header, p.path_length))
            if len(packets) > limit:  # pragma: no cover - the schemes forward on trees
                raise RuntimeError(f"{self.scheme}: delivery from {source} does not terminate")
        return Delivery(self, message, source, packets)

    def deliver_many(self, messages: Iterable[Message], sources: Iterable[int]) -> list[Delivery]:
        """Deliver ``messages[i]`` from ``sources[i]`` for every i: the same
        deliveries as :meth:`deliver`, packet for packet (in another order
        among packets of one hop), computed hop by hop for all messages at
        once, so that each processor forwards all the packets it holds in one
        batch call of its table (numba, on all cores)."""
        messages, sources = list(messages), list(sources)
        if len(messages) != len(sources):
            raise RoutingError(f"{len(messages)} messages but {len(sources)} sources")
        for m in messages:
            if not isinstance(m, Message):
                raise RoutingError(f"deliver expects a Message, not {type(m).__name__}")
        for v in sources:
            self._check_source(v)
        headers = self._init_many(messages, sources)
        packets: list[list[Packet]] = [[Packet(v, None, h, 0.0)] for v, h in zip(sources, headers, strict=True)]
        frontier: list[tuple[int, int, int | None, Any, float]] = [
            (i, v, None, h, 0.0) for i, (v, h) in enumerate(zip(sources, headers, strict=True))]
        hops = 0
        while frontier:
            hops += 1
            if hops > self.n + 1:  # pragma: no cover - paths have at most n - 1 hops
                raise RuntimeError(f"{self.scheme}: a delivery does not terminate")
            by_processor: dict[int, list] = {}
            for item in frontier:
                by_processor.setdefault(item[1], []).append(item)
            frontier = []
            for u, items in sorted(by_processor.items()):
                for (i, _, _parent, _header, length), out in zip(items, self._forward_many(u, items, messages),
                                                                 strict=True):
                    for w, out_header in out:
                        p = Packet(w, u, out_header, length + self._weight[u][w])
                        packets[i].append(p)
                        frontier.append((i, w, u, out_header, p.path_length))
        return [Delivery(self, m, v, ps) for m, v, ps in zip(messages, sources, packets, strict=True)]

    def _init_many(self, messages: list[Message], sources: list[int]) -> list:
        return [self._init(v, m) for m, v in zip(messages, sources, strict=True)]

    def _forward_many(self, u: int, items: list, messages: list[Message]) -> list[list]:
        """For each (message index, u, parent, header, length) held at u, the
        (neighbour, header) pairs u sends; one batch call of u's table."""
        offers = [self._offer(u, parent, header) for _, _, parent, header, _ in items]
        asked = [k for k, ids in enumerate(offers) if ids is not None and len(ids)]
        out: list[list] = [[] for _ in items]
        if not asked:
            return out
        table = self.tables[u]
        if len(asked) == 1:
            k = asked[0]
            results = [table.forward(messages[items[k][0]], offers[k])]
        else:
            offsets, ids = table.forward_batch_csr([messages[items[k][0]] for k in asked],
                                                   [offers[k] for k in asked], threads=self.threads)
            results = [ids[offsets[j]:offsets[j + 1]] for j in range(len(asked))]
        for k, got in zip(asked, results, strict=True):
            _, _, parent, header, _ = items[k]
            out[k] = self._decode(u, parent, header, got.tolist())
        return out

    def _forward(self, u: int, parent: int | None, header: Any, message: Message | None) -> list:
        ids = self._offer(u, parent, header)
        if ids is None or len(ids) == 0:
            return []
        return self._decode(u, parent, header, self.tables[u].forward(message, ids).tolist())

    def _offer(self, u: int, parent: int | None, header: Any) -> Any:
        """The interfaces of u's table that may get the packet (its broadcast set)."""
        raise NotImplementedError

    def _decode(self, u: int, parent: int | None, header: Any, interfaces: list[int]) -> list:
        """(neighbour, header sent) for each matching interface."""
        raise NotImplementedError

    def _check_source(self, source: Any) -> None:
        if isinstance(source, bool) or not isinstance(source, (int, np.integer)) or not 0 <= source < self.n:
            raise RoutingError(f"source {source!r} is not a processor of this network (0..{self.n - 1})")
        if source not in self.senders:
            raise RoutingError(f"processor {source} is not a sender of this routing (build(..., senders=...))")

    def _init(self, source: int, message: Message) -> Any:
        return source

    def _header_bits(self, header: Any) -> int:
        return self.id_bits

    # -- memory --------------------------------------------------------------
    def memory(self) -> dict[str, Any]:
        """M(S) of §2.4 for the whole network, with the per-processor and
        per-component breakdown (see the module docstring for the model)."""
        per = {}
        components: dict[str, int] = {}
        for u in range(self.n):
            parts = self._memory_of(u)
            constraints = parts.pop("predicate_constraints")
            ids = sum(parts.values())
            per[u] = {"id_bits": ids, "predicate_constraints": constraints,
                      "predicate_bits": constraints * BITS_PER_CONSTRAINT,
                      "total_bits": ids + constraints * BITS_PER_CONSTRAINT,
                      "table_rows": len(self._rows.get(u, [])),
                      "compiled_constraints": self._compiled_constraints(u), **parts}
            for k, v in parts.items():
                components[k] = components.get(k, 0) + v
            components[self._predicate_component] = (components.get(self._predicate_component, 0)
                                                     + constraints * BITS_PER_CONSTRAINT)
        idb = sum(p["id_bits"] for p in per.values())
        cons = sum(p["predicate_constraints"] for p in per.values())
        return {"scheme": self.scheme, "reducer": self.reducer, **self._variant(), "n": self.n,
                "senders": len(self.senders), "receivers": len(self.receivers),
                "bits_per_id": self.id_bits, "bits_per_constraint": BITS_PER_CONSTRAINT,
                "id_bits": idb, "predicate_constraints": cons,
                "predicate_bits": cons * BITS_PER_CONSTRAINT,
                "total_bits": idb + cons * BITS_PER_CONSTRAINT,
                "components": components, "per_processor": per}

    _predicate_component = "F"

    def _memory_of(self, u: int) -> dict[str, int]:
        raise NotImplementedError

    def _variant(self) -> dict[str, str]:
        """The scheme's options that change what it stores, for memory()."""
        return {}

    def __repr__(self) -> str:
        return (f"<Routing {self.scheme} on {self.graph.graph.get('name', 'a network')}: n={self.n}, "
                f"{len(self.senders)} senders, {len(self.receivers)} receivers, reducer {self.reducer}>")


class _PerSource(Routing):
    """PSF and iPS tables: a row F_u(key, w) for each key (a source, or a
    class of sources) and each child w of u in T_key.

    Rows of different keys with the same neighbour and the same predicate
    (the same descendants T_v/w, which is common: the paper's
    indistinguishability, edge by edge) are compiled into ONE interface of
    u's table, listed in the broadcast set of each of those keys: the
    forwarding decisions are the same, the counting engine does the work
    once. ``shared_rows=False`` compiles one interface per row instead.
    Memory (§2.4) is counted per row either way, as the paper's model says;
    ``memory()["per_processor"][u]["compiled_constraints"]`` is what the
    table holds."""

    shared_rows = True

    def _tables_by_key(self, keys: dict[int, list[tuple[int, int]]]) -> None:
        """keys[u]: (key, representative source) pairs to build rows for."""
        paths = self.paths
        self._meta: dict[int, list[int]] = {}          # u -> neighbour of each interface id
        self._offers: dict[int, dict[int, np.ndarray]] = {}
        for u in range(self.n):
            rows: list[tuple[int, tuple[int, ...]]] = []
            table_rows: list[tuple[int, tuple[int, ...]]] = []
            meta: list[int] = []
            offers: dict[int, np.ndarray] = {}
            interface_of: dict[object, int] = {}
            for key, v in keys[u]:
                ids: list[int] = []
                for w in paths.children(v, u):
                    preds = self._combine.ids(paths.subtree(v, w))
                    if not preds:
                        continue
                    rows.append((len(rows), preds))
                    row_key: object = (w, preds) if self.shared_rows else len(rows)
                    iface = interface_of.get(row_key)
                    if iface is None:
                        iface = interface_of[row_key] = len(meta)
                        meta.append(w)
                        table_rows.append((iface, preds))
                    ids.append(iface)
                offers[key] = np.array(sorted(ids), dtype=np.int64)
            self._rows[u], self._table_rows[u] = rows, table_rows
            self._meta[u], self._offers[u] = meta, offers
        self._compile({u: range(len(self._meta[u])) for u in range(self.n)})


class PSF(_PerSource):
    """Per-Source Forwarding (§3.1)."""

    scheme = "psf"

    def _setup(self) -> None:
        senders = sorted(self.senders)
        self._tables_by_key({u: [(v, v) for v in senders] for u in range(self.n)})

    def _offer(self, u, parent, header):
        return self._offers[u].get(header)

    def _decode(self, u, parent, header, interfaces):
        meta = self._meta[u]
        return [(meta[i], header) for i in interfaces]

    def _memory_of(self, u):
        return {"init": self.id_bits if u in self.senders else 0,
                "predicate_constraints": self._row_constraints(u)}


class IPS(_PerSource):
    """Improved Per-Source Forwarding (§3.2): sources grouped into classes of
    indistinguishable sources, headers rewritten where safe."""

    scheme = "ips"

    def _setup(self) -> None:
        n = self.n
        cls, rewrite, self.arriving = ips_structure(self.paths, self.senders)
        self.class_of = cls
        self.rewrite = rewrite
        # Python lists: per-packet lookups in numpy arrays cost microseconds each.
        self._class_rows = cls.tolist()
        self._rewrite_rows = rewrite.tolist()
        keys = {}
        for u in range(n):
            reps: dict[int, int] = {}
            for h in sorted(self.arriving[u]):
                reps.setdefault(int(cls[u, h]), h)       # a representative header of each class
            keys[u] = sorted(reps.items())
        self._tables_by_key(keys)

    def classes(self, u: int) -> list[frozenset[int]]:
        """The classes of indistinguishable sources at u, over all processors,
        by smallest member."""
        groups: dict[int, list[int]] = {}
        for v, c in enumerate(self.class_of[u].tolist()):
            groups.setdefault(c, []).append(v)
        return sorted((frozenset(g) for g in groups.values()), key=min)

    def _offer(self, u, parent, header):
        return self._offers[u].get(self._class_rows[u][header])

    def _decode(self, u, parent, header, interfaces):
        out_header = u if self._rewrite_rows[u][header] else header
        meta = self._meta[u]
        return [(meta[i], out_header) for i in interfaces]

    def _memory_of(self, u):
        i_bits, r_bits = ips_lookup_bits(self.class_of[u], self.rewrite[u], self.arriving[u])
        return {"init": self.id_bits if u in self.senders else 0, "I": i_bits, "R": r_bits,
                "predicate_constraints": self._row_constraints(u)}


def ips_lookup_bits(class_row: np.ndarray, rewrite_row: np.ndarray, headers: Iterable[int]) -> tuple[int, int]:
    """Bits of I_u and R_u at a processor u (§3.2) from its row of classes and
    of rewrite flags and the header values that can reach it: I_u costs
    |H_u|·⌈log2 |classes|⌉ bits, 0 when each class is reached by one header
    only (the identity, as on a tree); R_u one bit per class, 0 when constant."""
    headers = list(headers)
    classes = {int(class_row[h]) for h in headers}
    identity = len(classes) == len(headers)
    i_bits = 0 if identity else len(headers) * id_bits(max(2, len(classes)))
    r_values = {bool(rewrite_row[h]) for h in headers}
    r_bits = 0 if len(r_values) <= 1 else len(classes)
    return i_bits, r_bits


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
# iPS: indistinguishable sources

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a non-linear 64-bit mixer."""
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return x


def source_classes(paths: ShortestPaths) -> np.ndarray:
    """cls[u, v]: the class of source v among all sources at processor u,
    by the two conditions of §3.2 (same children in T_v, same T_v/w below each).

    Sets are compared through 128-bit hashes (two independent lanes): a
    subtree's hash is the sum of random per-node values, and a source's key at
    u the sum of mix(child, subtree hash) over its children, mix being
    non-linear so that different partitions of the same descendants get
    different keys. Two different keys collide with probability about 2^-128
    per pair; the tests check the classes against the sets themselves."""
    n = paths.n
    rng = np.random.Generator(np.random.PCG64(20060501))
    salt = rng.integers(0, 2**63, size=(2, n), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    leaf = rng.integers(0, 2**63, size=(2, n), dtype=np.uint64)
    keys = np.zeros((2, n, n), dtype=np.uint64)      # keys[lane, u, v]
    for v in range(n):
        parent = paths.parent[v]
        depth = _depths(paths, v)
        sub = leaf.copy()                             # sub[lane, x] = hash of T_v/x
        with np.errstate(over="ignore"):
            for d in range(int(depth.max()), 0, -1):
                level = np.flatnonzero(depth == d)
                for lane in range(2):
                    np.add.at(sub[lane], parent[level], sub[lane][level])
            others = np.flatnonzero(parent >= 0)
            for lane in range(2):
                contrib = _mix(sub[lane][others] ^ salt[lane][others]) * salt[lane][others]
                np.add.at(keys[lane, :, v], parent[others], contrib)
    cls = np.empty((n, n), dtype=np.int64)
    for u in range(n):
        pairs = np.stack([keys[0, u], keys[1, u]], axis=1)
        _, first, inverse = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
        # number classes by their smallest member, so ids are deterministic
        rank = np.argsort(np.argsort(first))
        cls[u] = rank[inverse.ravel()]
    return cls


def ips_structure(paths: ShortestPaths, senders: Iterable[int]
                  ) -> tuple[np.ndarray, np.ndarray, list[frozenset[int]]]:
    """iPS's state apart from its predicates (§3.2): ``cls[u, v]`` the class
    of source v at u (:func:`source_classes`), ``rewrite[u, v]`` = R_u(I_u(v))
    (u rewrites a header v to u: every source of v's class passes the
    condition of :func:`_rewrite_safe`), and ``arriving[u]`` the header values
    that can reach u from the ``senders`` (followed down each T_v)."""
    n = paths.n
    cls = source_classes(paths)
    ok = _rewrite_safe(paths, cls)          # ok[v, u]: condition of R for source v at u
    rewrite = np.ones_like(cls, dtype=bool)
    for u in range(n):
        classes = cls[u]
        bad = np.zeros(int(classes.max()) + 1, dtype=bool)
        np.logical_or.at(bad, classes, ~ok[:, u])
        rewrite[u] = ~bad[classes]
    arriving: list[set[int]] = [set() for _ in range(n)]
    for v in sorted(senders):
        header = np.full(n, -1, dtype=np.int64)
        header[v] = v
        order = paths.by_distance(v)
        parent = paths.parent[v]
        arriving[v].add(v)
        for y in order[1:].tolist():
            p = int(parent[y])
            h = int(header[p])
            header[y] = p if rewrite[p, h] else h
            arriving[y].add(int(header[y]))
    return cls, rewrite, [frozenset(a) for a in arriving]


def _depths(paths: ShortestPaths, v: int) -> np.ndarray:
    parent = paths.parent[v]
    depth = np.full(paths.n, -1, dtype=np.int64)
    depth[v] = 0
    for y in paths.by_distance(v).tolist():
        if y != v:
            depth[y] = depth[parent[y]] + 1
    return depth


def _rewrite_safe(paths: ShortestPaths, cls: np.ndarray) -> np.ndarray:
    """ok[v, u]: every processor y strictly below u in T_v sees u and v as
    indistinguishable (cls[y, u] == cls[y, v])."""
    n = paths.n
    ok = np.ones((n, n), dtype=bool)
    ys = np.arange(n)
    for v in range(n):
        parent = paths.parent[v]
        ancestor = parent.copy()
        bad = np.zeros(n, dtype=bool)
        while True:
            live = ancestor >= 0
            if not live.any():
                break
            y, a = ys[live], ancestor[live]
            mismatch = cls[y, a] != cls[y, v]
            bad[a[mismatch]] = True
            ancestor[live] = parent[a]
        ok[v] = ~bad
    return ok


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
    if paths is None:
        paths = ShortestPaths(graph)
    routing = _CLASSES[scheme](graph, paths, dict(sorted(preds.items())), sender_set, reducer)
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
