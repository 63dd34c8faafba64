"""The poset's public inside-API: copy-free read-only views of an element's
neighbours and subscribers, the one walk over the Hasse diagram, the lookups
Siena's servers use, and the wall between the poset and the network.

The walk is checked against an independent oracle: the transitive closure of
covering decided by ``cb.covers`` for every ordered pair of stored values.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Set

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.poset import DOWN, UP, Poset, walk
from cbalgebra.values import Filter, derived
from tests.strategies import dense_filters, dense_names, messages

F = cb.parse_filter
INT_FILTERS = dense_filters(types=("int",), max_size=3)


def chain_poset() -> Poset:
    p = Poset()
    p.insert("[int x > 1]", "a")
    p.insert("[int x > 5]", "b")
    return p


# ------------------------------------------------------------ views
@pytest.mark.parametrize("view", ["predecessor_view", "successor_view", "subscriber_view"])
def test_views_are_read_only_sets(view):
    p = chain_poset()
    for e in p.elements():
        v = getattr(e, view)
        assert isinstance(v, Set)
        for mutate in ("add", "discard", "remove", "clear", "pop", "update"):
            assert not hasattr(v, mutate), mutate
        with pytest.raises(TypeError):
            v.mapping[object()] = None  # the view's table is a read-only proxy


def test_views_follow_the_element_without_copying():
    p = chain_poset()
    top = p.element("[int x > 1]")
    below, subscribers = top.successor_view, top.subscriber_view
    assert {e.value for e in below} == {F("[int x > 5]")}
    # Taken before the changes, the same view objects see them: no copy.
    p.insert("[int x > 3]", "c")
    p.insert("[int x > 1]", "d")
    assert {e.value for e in below} == {F("[int x > 3]")}
    assert set(subscribers) == {"a", "d"}
    mid = p.element("[int x > 3]")
    assert set(mid.predecessor_view) == {top}
    assert set(mid.successor_view) == {p.element("[int x > 5]")}
    # The snapshots stay as they were taken.
    snapshot = top.subscribers
    p.insert("[int x > 1]", "e")
    assert snapshot == {"a", "d"} and set(subscribers) == {"a", "d", "e"}


def test_age_orders_elements_by_creation():
    p = chain_poset()
    p.insert("[int x > 3]", "c")
    assert [e.age for e in (p.element(f"[int x > {k}]") for k in (1, 5, 3))] == [0, 1, 2]


# ------------------------------------------------------------ the walk
def closure(p: Poset) -> tuple[dict, dict]:
    """Strictly below and strictly above each element, by cb.covers on every pair."""
    els = p.elements()
    below = {e: {f for f in els if f is not e and cb.covers(e.value, f.value)} for e in els}
    above = {e: {f for f in els if f is not e and cb.covers(f.value, e.value)} for e in els}
    return below, above


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(INT_FILTERS, min_size=1, max_size=14))
def test_walk_agrees_with_the_transitive_closure(filters):
    p = Poset()
    for i, f in enumerate(filters):
        p.insert(f, i)  # one subscriber each: no insert cancels another
    below, above = closure(p)
    for e in p.elements():
        assert set(walk(e.successor_view, DOWN)) == below[e]
        assert set(walk(e.predecessor_view, UP)) == above[e]
        assert set(walk(e, DOWN, breadth_first=True)) == below[e] | {e}
        assert set(walk(e, UP, breadth_first=True)) == above[e] | {e}
        # Each element once, whatever the number of paths to it; lazily, the same order.
        assert len(list(walk(e, DOWN))) == len(below[e]) + 1
        assert list(walk(e, UP, lazy=True)) == list(walk(e, UP))
        assert list(walk(e, DOWN, lazy=True, breadth_first=True)) == list(walk(e, DOWN, breadth_first=True))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(INT_FILTERS, min_size=1, max_size=12), messages(dense_names, dense=True))
def test_a_pruned_walk_finds_the_up_set(filters, message):
    # The elements matching a message form an up-set: the walk from the roots
    # that goes on only past matching elements meets all of them.
    p = Poset()
    for i, f in enumerate(filters):
        p.insert(f, i)
    matching = {e for e in p.elements() if cb.matches(e.value, message)}
    def reached(e) -> bool:
        return cb.matches(e.value, message)

    for met in (walk(p.root_elements(), DOWN, visit=reached), walk(p.root_elements(), DOWN, visit=reached, lazy=True)):
        assert {e for e in met if cb.matches(e.value, message)} == matching


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(INT_FILTERS, min_size=2, max_size=12), st.data())
def test_walk_within_and_shared_seen(filters, data):
    p = Poset()
    for i, f in enumerate(filters):
        p.insert(f, i)
    els = p.elements()
    allowed = set(data.draw(st.lists(st.sampled_from(els), unique=True)))
    below, _ = closure(p)
    for root in p.root_elements():
        # Within a set: what is reachable by steps onto allowed elements only.
        expect, todo = {root}, [root]
        while todo:
            for s in todo.pop().successor_view:
                if s in allowed and s not in expect:
                    expect.add(s)
                    todo.append(s)
        assert set(walk(root, DOWN, within=allowed)) == expect
    # A shared seen set: a second walk meets only what the first did not.
    seen: dict = {}
    first = set(walk(els[0], DOWN, seen=seen))
    second = set(walk(els[-1], DOWN, seen=seen, lazy=True))
    assert first == below[els[0]] | {els[0]}
    assert second == (below[els[-1]] | {els[-1]}) - first
    assert set(seen) == first | second


def test_walk_refuses_an_unknown_direction():
    with pytest.raises(ValueError, match="direction"):
        list(walk(chain_poset().elements(), "sideways"))


# ------------------------------------------------------------ lookups for Siena
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(INT_FILTERS, min_size=2, max_size=10))
def test_element_covers_and_holding(filters):
    p = Poset()
    for i, f in enumerate(filters):
        p.insert(f, i)
    els = p.elements()
    for a in els:
        assert p.holding(a.value) is a
        for b in els:
            assert p.element_covers(a, b) == cb.covers(a.value, b.value)
    absent = F("[int w = 12345]")
    assert p.holding(absent) is None


def test_coerce_reads_text_by_the_poset_kind_without_fixing_it():
    p = Poset()
    assert p.coerce("[int x > 1]") == F("[int x > 1]")
    assert p.coerce(cb.parse_predicate("[int x > 1]")) == F("[int x > 1]")
    assert p.kind is None
    with pytest.raises(TypeError):
        p.coerce(3)


# ------------------------------------------------------------ walls
def test_the_poset_never_imports_the_network():
    code = (
        "import sys, cbalgebra.poset, cbalgebra.poset.html, cbalgebra.poset.render, cbalgebra.poset.cli\n"
        "assert not hasattr(cbalgebra.poset, 'Network') and not hasattr(cbalgebra.poset, 'Server')\n"
        "print([m for m in sys.modules if m.startswith('cbalgebra.network')])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    with pytest.raises(ModuleNotFoundError):
        __import__("cbalgebra.poset.network")


def test_siena_servers_are_public_in_the_network_package():
    from cbalgebra.network import Network, Server
    from cbalgebra.network.siena import Network as SienaNetwork

    assert Network is SienaNetwork and Server.__module__ == "cbalgebra.network.siena"


# ------------------------------------------------------------ derived data on values
def test_derived_is_computed_once_per_value_and_key():
    calls: list[Filter] = []

    def names(f: Filter) -> frozenset:
        calls.append(f)
        return f.names

    f = F('[int x > 1, string s = "a"]')
    assert derived(f, "test.names", names) == {"x", "s"}
    assert derived(f, "test.names", names) is derived(f, "test.names", names)
    assert calls == [f]  # computed once, then kept on the value
    assert derived(f, "test.other", lambda _: 7) == 7
