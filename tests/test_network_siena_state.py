"""Siena's converged state computed in bulk (cbalgebra.network.siena_state)
against the message-by-message simulation of formula (1)
(cbalgebra.network.siena.Network), the oracle: the same traffic, link by
link, and every server holding the same subscriptions, spelled the same,
for every neighbour and client; and the Siena routing scheme built in bulk
against the one built by simulation (memory, traffic, deliveries)."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cbalgebra.network import topology
from cbalgebra.network.routing import LazyTables
from cbalgebra.network.schemes import Siena, build
from cbalgebra.network.siena import Network
from cbalgebra.network.siena_state import converge
from cbalgebra.network.workload import messages, processor_predicates
from cbalgebra.values import INT, Constraint, Filter

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# One int attribute and small bounds: covering is frequent, and so are
# equivalent spellings (x > 1 and x >= 2; x > 1 and x > 0 ∧ x > 1) and
# unsatisfiable filters (x < 0 ∧ x > 2), every one of them equivalent.
_CONSTRAINTS = [Constraint(INT, name, op, v) for name in ("x", "y") for op in ("<", ">", ">=", "=") for v in (0, 1, 2)]
filters = st.lists(st.sampled_from(_CONSTRAINTS), min_size=1, max_size=3).map(Filter)


@st.composite
def trees_and_subscriptions(draw):
    n = draw(st.integers(1, 12))
    tree = nx.random_labeled_tree(n, seed=draw(st.integers(0, 10**6))) if n > 1 else nx.empty_graph(1)
    clients = draw(st.integers(1, 2 * n))
    home = {f"c{i}": draw(st.integers(0, n - 1)) for i in range(clients)}
    subs = draw(st.lists(st.tuples(st.sampled_from(sorted(home)), filters), max_size=25))
    return tree, [(c, home[c], f) for c, f in subs]


def _simulate(tree: nx.Graph, subs: list) -> Network:
    net = Network(tree)
    for client, server, f in subs:
        net.add_client(client, server)
        net.subscribe(client, f)
    return net


@SETTINGS
@given(trees_and_subscriptions())
def test_the_converged_state_is_the_state_the_simulation_reaches(case):
    tree, subs = case
    net = _simulate(tree, subs)
    state = converge(tree, subs)
    a, b = net.traffic, state.traffic
    assert (a.subscribe, a.unsubscribe, a.client_requests, a.flooding) == (
        b.subscribe, b.unsubscribe, b.client_requests, b.flooding)
    assert +a.per_link == +b.per_link
    for u in tree.nodes:
        poset = net.servers[u].poset
        assert state.entries(u) == sum(len(e.subscribers) for e in poset.elements())
        for sub in [*tree[u], *state.clients_at(u)]:
            assert sorted(map(str, state.held(u, sub))) == sorted(map(str, poset.subscriptions(sub)))
        for y in tree[u]:
            assert state.constraints_held(u, y) == sum(len(v.constraints) for v in poset.subscriptions(y))


def test_converge_refuses_a_graph_that_is_not_a_tree():
    with pytest.raises(ValueError, match="needs a tree"):
        converge(nx.cycle_graph(4), [])


@pytest.mark.parametrize("family, n, seed", [("tree", 24, 1), ("power_law", 30, 2), ("gnp", 20, 3), ("grid", 16, 4)])
def test_siena_built_in_bulk_equals_siena_built_by_simulation(family, n, seed, monkeypatch):
    g = topology(family, n, seed=seed)
    n = g.number_of_nodes()
    preds = processor_predicates(range(0, n, 2), 3, names=20, seed=seed)
    bulk = build("siena", g, preds)
    monkeypatch.setattr(Siena, "bulk", False)
    simulated = build("siena", g, preds)
    assert isinstance(bulk.tables, LazyTables) and not isinstance(simulated.tables, LazyTables)
    msgs = messages(24, names=20, seed=seed, aim_at=preds)
    sources = [(7 * i) % n for i in range(len(msgs))]
    for a, b in zip(bulk.deliver_many(msgs, sources), simulated.deliver_many(msgs, sources), strict=True):
        assert sorted(a.packets) == sorted(b.packets) and a.correct
    m_bulk, m_sim = bulk.memory(), simulated.memory()
    for m in (m_bulk, m_sim):
        for per in m["per_processor"].values():
            per.pop("compiled_constraints")
    assert m_bulk == m_sim
    assert vars(bulk.traffic) == vars(simulated.traffic)
    # the tables compiled lazily are the tables compiled eagerly
    for u in bulk.tables:
        assert bulk.tables[u].stats()["constraints"] == simulated.tables[u].stats()["constraints"]


def test_a_lazy_table_is_compiled_only_where_a_message_goes():
    g = topology("tree", 30, seed=5)
    preds = processor_predicates([3], 2, names=10, seed=5)
    routing = build("siena", g, preds)
    assert len(routing.tables) == 0
    d = routing.deliver(messages(1, names=10, seed=5, aim_at=preds)[0], 0)
    assert set(routing.tables) == {p.processor for p in d.packets if routing.tree.degree[p.processor] > 1
                                   or p.parent is None}
    assert routing.memory()["per_processor"][next(iter(set(range(30)) - set(routing.tables)))][
        "compiled_constraints"] is None
