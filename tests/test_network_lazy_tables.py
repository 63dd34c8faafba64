"""Lazily built routing tables (build(..., lazy=True)): rows and tables
made only at the processors a message reaches give the same deliveries as
every table built up front (the oracle), packet for packet, for PSF, PIF
and DRP, on hypothesis' small networks with many shortest-path ties and on
generated ones; and only the visited processors get tables."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from network_oracles import small_networks

from cbalgebra.network import topology
from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.routing import RoutingError
from cbalgebra.network.schemes import LAZY_SCHEMES, build
from cbalgebra.network.workload import messages, processor_predicates

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _same_deliveries(graph, preds, senders, msgs, sources):
    paths = ShortestPaths(graph)
    for scheme in LAZY_SCHEMES:
        eager = build(scheme, graph, preds, senders=senders, paths=paths)
        lazy = build(scheme, graph, preds, senders=senders, paths=paths, lazy=True)
        one_by_one = [lazy.deliver(m, v) for m, v in zip(msgs, sources, strict=True)]
        batched = build(scheme, graph, preds, senders=senders, paths=paths, lazy=True).deliver_many(msgs, sources)
        for e, a, b in zip(eager.deliver_many(msgs, sources), one_by_one, batched, strict=True):
            assert sorted(e.packets) == sorted(a.packets) == sorted(b.packets), scheme
            assert a.correct and a.latency_minimal == e.latency_minimal


@SETTINGS
@given(small_networks(min_n=2, max_n=9), st.integers(0, 10**6))
def test_lazy_tables_deliver_what_eager_tables_deliver(graph, seed):
    n = graph.number_of_nodes()
    preds = processor_predicates(range(0, n, 2), 2, names=5, seed=seed)
    senders = list(range(1, n)) if n > 2 else [0, 1]
    msgs = messages(6, names=5, seed=seed, attributes=3, aim_at=preds)
    _same_deliveries(graph, preds, senders, msgs, [senders[i % len(senders)] for i in range(len(msgs))])


@pytest.mark.parametrize("family, n", [("power_law", 60), ("tree", 50), ("gnp", 40)])
def test_lazy_tables_on_generated_networks(family, n):
    graph = topology(family, n, seed=3)
    n = graph.number_of_nodes()
    preds = processor_predicates(range(0, n, 3), 3, names=20, seed=3)
    msgs = messages(20, names=20, seed=3, aim_at=preds)
    _same_deliveries(graph, preds, None, msgs, [(11 * i) % n for i in range(len(msgs))])


def test_a_lazy_build_has_tables_only_where_messages_went_and_refuses_memory():
    graph = topology("power_law", 80, seed=2)
    preds = processor_predicates([5, 40], 2, names=10, seed=2)
    for scheme in ("psf", "pif"):
        routing = build(scheme, graph, preds, lazy=True)
        assert len(routing.tables) == 0
        d = routing.deliver(messages(1, names=10, seed=2, aim_at=preds)[0], 0)
        assert set(routing.tables) <= {p.processor for p in d.packets}
        with pytest.raises(RoutingError, match="table_memory"):
            routing.memory()


@pytest.mark.parametrize("kwargs, message", [
    ({"scheme": "ips"}, "lazy applies to psf, pif, drp"),
    ({"scheme": "psf", "reducer": "siena"}, "lazy tables take no reducer"),
    ({"scheme": "pif", "pif_union": "senders"}, "unites over every processor"),
])
def test_lazy_refuses_what_it_does_not_build(kwargs, message):
    graph = topology("tree", 6, seed=1)
    with pytest.raises(RoutingError, match=message):
        build(graph=graph, predicates=processor_predicates(6, 1, names=5), lazy=True, **kwargs)
