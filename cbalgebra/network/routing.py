"""What every routing scheme shares: the delivery of one message and the
scheme's state on a network (Carzaniga, Rembert & Wolf, "Understanding
Content-Based Routing Schemes", 2006, §2).

:class:`Routing` is the base of the schemes of :mod:`cbalgebra.network.schemes`
(and of :mod:`cbalgebra.network.per_source`): it delivers messages hop by
hop through each processor's forwarding table and sums the memory of §2.4;
:class:`Delivery` is the delivery tree one message induces, with the checks
of §2.3. The memory model (the constants below) is described in
:mod:`cbalgebra.network.schemes`.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np

from cbalgebra.errors import CbalgebraError
from cbalgebra.semantics import matches
from cbalgebra.values import Message, Predicate

from .delivery import DeliveryReport, Packet, check_delivery, smallest_latency_minimal_tree
from .paths import ShortestPaths
from .pool import _Combiner, _PredicatePool

__all__ = ["BITS_PER_CONSTRAINT", "Delivery", "LazyTables", "Routing", "RoutingError", "id_bits"]

#: bits of one constraint in the memory accounting (see the module docstring)
BITS_PER_CONSTRAINT = 88


class RoutingError(CbalgebraError, ValueError):
    """Input that does not make a routing problem: an unknown scheme or
    reducer, a predicate or sender that is not a processor, a network that
    is not a valid topology. The message is one line."""


def id_bits(n: int) -> int:
    """⌈log2 n⌉, the bits of a processor id (at least 1)."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


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

    def _repr_html_(self) -> str:
        """For notebooks: the delivery tree over the network as SVG (:func:`cbalgebra.network.draw.to_svg`)."""
        from cbalgebra.notebook import figure  # drawing loads on first use

        from .draw import caption, to_svg
        return figure(to_svg(self, 640, 480, id_prefix=f"delivery{id(self):x}-"), caption(self))


# ---------------------------------------------------------------------------
# The schemes

class LazyTables(dict):
    """Processor → forwarding table, each compiled on first access
    (``tables[u]``); ``u in tables`` and ``tables.get(u)`` do not compile.
    Delivering a message then compiles only the tables of the processors
    it visits."""

    def __init__(self, compile_one: Callable[[int], Any]) -> None:
        super().__init__()
        self._compile_one = compile_one

    def __missing__(self, u: int) -> Any:
        table = self[u] = self._compile_one(u)
        return table


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
    #: rows and tables built where a message first goes (build(..., lazy=True))
    lazy = False

    # -- building ------------------------------------------------------------
    def _setup(self) -> None:
        """Compute every processor's state (each scheme's own)."""
        raise NotImplementedError

    def _compile(self, interfaces: dict[int, Iterable[int]], *, lazy: bool = False) -> None:
        """One table per processor from self._rows[u] = [(iface, pred ids)]:
        all now, or (``lazy``) each on its first use (:class:`LazyTables`)."""
        self._pool.freeze()
        self._interfaces = interfaces
        if lazy:
            self.tables = LazyTables(self._compile_one)
            return
        for u in range(self.n):
            self.tables[u] = self._compile_one(u)

    def _compile_one(self, u: int) -> Any:
        rows = self._table_rows.get(u, self._rows.get(u, []))
        iface = [i for i, ids in rows for _ in ids]
        pid = [p for _, ids in rows for p in ids]
        return self._pool.table(self._interfaces[u], np.array(iface, dtype=np.int64),
                                np.array(pid, dtype=np.int64))

    # -- lazy builds (build(..., lazy=True), no reducer) ---------------------
    def _receivers_below(self, v: int) -> dict[int, list[int]]:
        """For T_v: processor x → the predicate ids of the receivers in T_v/x
        (only the x with a receiver below), computed once per source v.
        Without a reducer these are exactly the predicates of the rows
        F_u(v, x) (PSF) and, for v = u, F*_u(x) (PIF)."""
        cache: dict[int, dict[int, list[int]]] = self.__dict__.setdefault("_below_cache", {})
        found = cache.get(v)
        if found is None:
            own = self._combine.own
            parent = self.paths.parent[v].tolist()
            found = {}
            for x in reversed(self.paths.by_distance(v).tolist()):  # children before parents
                mine = found.get(x)
                if x in own:
                    mine = found[x] = [*(mine or ()), own[x]]
                p = parent[x]
                if mine and p >= 0:
                    found.setdefault(p, []).extend(mine)
            cache[v] = found
        return found

    def _matching_predicates(self, message: Message) -> frozenset[int]:
        """The ids of the receivers' predicates ``message`` matches, by one
        compiled table of the pool (each predicate matched once per message,
        whichever rows hold it), remembered for the last messages."""
        cache: dict[Message, frozenset[int]] = self.__dict__.setdefault("_matched_cache", {})
        found = cache.get(message)
        if found is None:
            table = self.__dict__.get("_own_table")
            if table is None:
                pids = np.array(sorted(set(self._combine.own.values())), dtype=np.int64)
                table = self._own_table = self._pool.table(pids.tolist(), pids, pids)
            if len(cache) > 4096:
                cache.clear()
            found = cache[message] = frozenset(table.forward(message).tolist()) if self.receivers else frozenset()
        return found

    @staticmethod
    def _rows_matching(rows: dict[int, list[int]], candidates: Iterable[int], matched: frozenset[int]) -> list[int]:
        """The candidates w whose row (the predicate ids rows[w]) ``matched`` meets."""
        return [w for w in candidates if not matched.isdisjoint(rows.get(w, ()))]

    def _compiled_constraints(self, u: int) -> int | None:
        """Constraints in u's compiled table; None for a lazy table not compiled yet."""
        if isinstance(self.tables, LazyTables) and u not in self.tables:
            return None
        table = self.tables.get(u)
        return 0 if table is None else int(table.stats()["constraints"])

    def _table_row_count(self, u: int) -> int:
        return len(self._rows.get(u, []))

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
        per-component breakdown (see the module docstring for the model).
        Refused for a lazy build, whose tables exist only where messages
        went: :func:`cbalgebra.network.table_memory` counts it."""
        if self.lazy:
            raise RoutingError(f"{self.scheme} was built with lazy=True: its tables exist only where messages "
                               "went; count its memory with cbalgebra.network.table_memory")
        per: dict[int, dict[str, Any]] = {}
        components: dict[str, int] = {}
        for u in range(self.n):
            parts = self._memory_of(u)
            constraints = parts.pop("predicate_constraints")
            ids = sum(parts.values())
            per[u] = {"id_bits": ids, "predicate_constraints": constraints,
                      "predicate_bits": constraints * BITS_PER_CONSTRAINT,
                      "total_bits": ids + constraints * BITS_PER_CONSTRAINT,
                      "table_rows": self._table_row_count(u),
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

    def _repr_html_(self) -> str:
        """For notebooks: the network as SVG, senders and receivers marked
        (:func:`cbalgebra.network.draw.routing_svg`)."""
        from cbalgebra.notebook import figure  # drawing loads on first use

        from .draw import routing_svg
        return figure(routing_svg(self), repr(self)[1:-1] + " (green ring: sender; orange: receiver)")
