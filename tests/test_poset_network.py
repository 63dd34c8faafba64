"""Subscription forwarding by formula (1) over acyclic networks of servers."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.network.siena import Network
from cbalgebra.values import Constraint, Filter, Message

F = cb.parse_filter
ANY_AIRLINE = "[string airline any]"
UA_ARN = '[airline = "UA", dest = "ARN"]'


def figure_network(**kw) -> Network:
    """Figure 3: server 1 connected to servers 2, 3 and 4; client a at server 1."""
    net = Network(nx.Graph([(1, 2), (1, 3), (1, 4)]), record=True, **kw)
    net.add_client("a", 1)
    net.add_client("c2", 2)
    net.add_client("c3", 3)
    return net


def sent(net: Network, start: int = 0) -> list[str]:
    return [str(m) for m in net.sent[start:]]


def test_figures_3_to_5_literally():
    net = figure_network()
    s1 = net.servers[1]

    # Step 1 (Figure 3): server 3 sends [airline any]; it becomes a root of
    # server 1's poset and goes to 2 and 4 but not back to 3 (NST).
    net.subscribe("c3", ANY_AIRLINE)
    assert s1.poset.roots() == [F(ANY_AIRLINE)]
    assert s1.poset.element(ANY_AIRLINE).subscribers == {3}
    assert s1.nst(ANY_AIRLINE) == {3}
    assert s1.forwards(ANY_AIRLINE) == {2, 4}
    assert sent(net) == [
        "3 -> 1: subscribe [string airline any]",
        "1 -> 2: subscribe [string airline any]",
        "1 -> 4: subscribe [string airline any]",
    ]

    # Step 2 (Figure 4): server 2 sends [airline = UA, dest = ARN]: an
    # immediate successor of the root, forwarded only to 3, the one neighbour
    # not in forwards([airline any]).
    n = len(net.sent)
    net.subscribe("c2", UA_ARN)
    assert s1.poset.successors(ANY_AIRLINE) == [F(UA_ARN)]
    assert s1.poset.element(UA_ARN).subscribers == {2}
    assert s1.forwards(UA_ARN) == {3}
    assert sent(net, n) == [
        '2 -> 1: subscribe [string airline = "UA", string dest = "ARN"]',
        '1 -> 3: subscribe [string airline = "UA", string dest = "ARN"]',
    ]

    # Step 3 (Figure 5): client a subscribes [airline any]: found in the
    # poset, a joins its subscribers, NST becomes empty, so it now goes to 3,
    # and 3 leaves forwards([airline = UA, dest = ARN]).
    n = len(net.sent)
    net.subscribe("a", ANY_AIRLINE)
    assert s1.poset.element(ANY_AIRLINE).subscribers == {3, "a"}
    assert s1.nst(ANY_AIRLINE) == set()
    assert s1.forwards(ANY_AIRLINE) == {2, 3, 4}
    assert s1.forwards(UA_ARN) == set()
    assert sent(net, n) == ["1 -> 3: subscribe [string airline any]"]
    # Server 3 removed 1 from the subscription it covers, and dropped it.
    assert net.servers[3].poset.element(ANY_AIRLINE).subscribers == {"c3", 1}
    assert F(UA_ARN) not in net.servers[3].poset
    net.check()
    assert net.traffic.subscribe == 6 and net.traffic.unsubscribe == 0
    assert net.traffic.flooding == 9
    # Server 1's table drawn as in Figure 5: subscribers and forwards.
    dot = s1.to_dot()
    assert "Server 1: subscriptions poset" in dot
    assert r"[string airline any]\nsubscribers: 3, a\nforwards: 2, 3, 4" in dot
    assert r'[string airline = \"UA\", string dest = \"ARN\"]\nsubscribers: 2\nforwards: -' in dot
    assert "forwards: 2, 3, 4" in s1.to_html()


def test_figures_without_covering_cost_more():
    net = figure_network(covering=False)
    net.subscribe("c3", ANY_AIRLINE)
    net.subscribe("c2", UA_ARN)
    net.subscribe("a", ANY_AIRLINE)
    # [airline = UA, dest = ARN] also goes to 4, although 4 already receives
    # everything it matches through [airline any].
    assert net.servers[1].forwards(UA_ARN) == {3, 4}
    assert net.traffic.subscribe == 7
    net.check()


def test_unsubscription_uncovers_what_was_suppressed():
    net = figure_network()
    net.subscribe("c3", ANY_AIRLINE)
    net.subscribe("c2", UA_ARN)
    net.subscribe("a", ANY_AIRLINE)
    n = len(net.sent)
    net.unsubscribe("a", ANY_AIRLINE)
    # Server 1 withdraws [airline any] from 3 and sends the subscription it
    # had been covering there.
    assert sent(net, n) == [
        "1 -> 3: unsubscribe [string airline any]",
        '1 -> 3: subscribe [string airline = "UA", string dest = "ARN"]',
    ]
    assert net.servers[1].forwards(UA_ARN) == {3}
    net.check()
    m = cb.parse_message('[string airline = "UA", string dest = "ARN"]')
    assert net.publish(m, at=3) == {"c2", "c3"}
    assert net.publish(m, at="c2") == {"c3", "c2"}
    net.unsubscribe("c3", ANY_AIRLINE)
    net.check()
    assert net.unsubscribe("c2", "[string dest any, int price > 0]") == 0  # covers nothing of c2's
    assert net.publish(m, at=4) == {"c2"}
    net.unsubscribe("c2", UA_ARN)
    net.check()
    assert all(len(s.poset) == 0 for s in net.servers.values())


def test_dropping_a_root_uncovers_elements_below_a_neighbours_own():
    """Server 0 holds [x > 0] from u, [x > 5] from server 1, [x > 10] from v.
    It forwards only [x > 0] to 1. When u leaves, [x > 5] cannot go back to
    1 (NST), so the next eligible element below it, [x > 10], must."""
    net = Network(nx.path_graph(2), record=True)
    net.add_client("u", 0)
    net.add_client("v", 0)
    net.add_client("w", 1)
    net.subscribe("u", "[int x > 0]")
    net.subscribe("w", "[int x > 5]")
    net.subscribe("v", "[int x > 10]")
    assert net.servers[0].sent_to(1) == [F("[int x > 0]")]
    n = len(net.sent)
    net.unsubscribe("u", "[int x > 0]")
    assert sent(net, n) == ["0 -> 1: unsubscribe [int x > 0]", "0 -> 1: subscribe [int x > 10]"]
    net.check()
    assert net.publish(Message({"x": 20}), at="w") == {"v", "w"}


def test_cyclic_topologies_are_refused():
    with pytest.raises(ValueError, match="acyclic"):
        Network(nx.cycle_graph(4))


def test_notifications_follow_reverse_paths():
    g = nx.path_graph(5)  # 0 - 1 - 2 - 3 - 4
    net = Network(g)
    net.add_client("left", 0)
    net.add_client("right", 4)
    net.subscribe("left", "[int x > 10]")
    assert net.traffic.subscribe == 4
    # [x > 0] covers [x > 10]: servers 1..3, which forwarded [x > 10] to the
    # right, now forward [x > 0] there instead; 0 still receives it too.
    net.subscribe("right", "[int x > 0]")
    assert net.traffic.subscribe == 8
    assert net.servers[2].sent_to(3) == [F("[int x > 10]")]
    assert net.servers[2].sent_to(1) == [F("[int x > 0]")]
    assert net.publish(Message({"x": 5}), at=2) == {"right"}
    assert net.publish(Message({"x": 50}), at="left") == {"left", "right"}
    net.check()


# ---------------------------------------------------------------- property
NAMES = ("a", "b")
INT_OPS = ("=", "!=", "<", ">", "any")


@st.composite
def small_filters(draw):
    cs = []
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(INT_OPS))
        name = draw(st.sampled_from(NAMES))
        cs.append(Constraint("int", name, op, None if op == "any" else draw(st.integers(-2, 2))))
    return Filter(cs)


messages = st.dictionaries(st.sampled_from(NAMES), st.integers(-3, 3), min_size=1).map(Message)


@st.composite
def scenarios(draw):
    n = draw(st.integers(2, 6))
    parents = [draw(st.integers(0, i - 1)) for i in range(1, n)]
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((i + 1, p) for i, p in enumerate(parents))
    clients = {f"c{k}": draw(st.integers(0, n - 1)) for k in range(draw(st.integers(1, 4)))}
    ops = draw(st.lists(
        st.tuples(st.sampled_from(("subscribe", "subscribe", "unsubscribe")), st.sampled_from(sorted(clients)),
                  small_filters()),
        min_size=1, max_size=14))
    return g, clients, ops


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), probes=st.lists(messages, min_size=3, max_size=6), covering=st.booleans())
def test_forwarding_keeps_links_in_sync_and_delivers_exactly(scenario, probes, covering):
    g, clients, ops = scenario
    net = Network(g, covering=covering)
    for c, s in clients.items():
        net.add_client(c, s)
    subscribed = []
    for op, c, f in ops:
        if op == "unsubscribe" and subscribed and f.constraints[0].op == "any":
            f = subscribed[len(subscribed) // 2][1]  # often cancel something real
            c = subscribed[len(subscribed) // 2][0]
        getattr(net, op)(c, f)
        if op == "subscribe":
            subscribed.append((c, f))
        net.check()
        for m in probes:
            where = sorted(g.nodes)[hash(str(m)) % g.number_of_nodes()]
            assert net.publish(m, at=where) == net.interested(m)
