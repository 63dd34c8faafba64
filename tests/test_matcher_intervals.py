"""The interval index (issue 29 §1, §2, §5): filters made only of numeric
intervals, matched by bucket bitmaps instead of counting, give exactly the
interfaces of ``cb.matches`` and of the counting path, on every entry point,
at the edges of the bounds (equal low and high, open and closed ends, int64
extremes, floats with -0.0, ``!=`` and strings mixed in, missing attributes,
a value of the other type)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
INTS = st.sampled_from([I64_MIN, I64_MIN + 1, -7, -1, 0, 1, 2, 3, 7, 100, I64_MAX - 1, I64_MAX])
FLOATS = st.sampled_from([-sys.float_info.max, -2.5, -1.0, -0.0, 0.0, 5e-324, 1.0, 1.5, 2.5,
                          sys.float_info.max])
NAMES = st.sampled_from(["x", "y", "z"])
INTERVAL_OPS = st.sampled_from(["=", "<", ">", "<=", ">="])


@st.composite
def constraints(draw, mixed: bool) -> cb.Constraint:
    name = draw(NAMES)
    kind = draw(st.sampled_from(["int", "float", "other"] if mixed else ["int", "float"]))
    if kind == "int":
        return cb.Constraint("int", name, draw(INTERVAL_OPS), draw(INTS))
    if kind == "float":
        return cb.Constraint("float", name, draw(INTERVAL_OPS), draw(FLOATS))
    return draw(st.sampled_from([cb.Constraint("int", name, "!=", 1), cb.Constraint("string", name, "=", "a"),
                                 cb.Constraint("float", name, "!=", 1.5), cb.Constraint("int", name, "any", None)]))


@st.composite
def tables(draw) -> dict[int, cb.Predicate]:
    mixed = draw(st.booleans())
    n = draw(st.integers(1, 12))
    return {i: cb.Predicate([cb.Filter(draw(st.lists(constraints(mixed), min_size=1, max_size=5)))
                             for _ in range(draw(st.integers(1, 3)))]) for i in range(n)}


MESSAGE_VALUES = st.one_of(INTS, FLOATS, st.just("a"))
MESSAGES = st.lists(st.dictionaries(NAMES, MESSAGE_VALUES, max_size=3).map(cb.Message), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(tables(), MESSAGES, st.sampled_from(["strict", "sff"]))
def test_the_interval_index_forwards_as_matches_and_counting(table, messages, numbers):
    indexed = ForwardingTable.compile(table, numbers=numbers, intervals="index")
    counting = ForwardingTable.compile(table, numbers=numbers, intervals="counting")
    expected = [[i for i in sorted(table) if cb.matches(table[i], m, numbers=numbers)] for m in messages]
    assert [counting.forward(m).tolist() for m in messages] == expected
    assert [indexed.forward(m).tolist() for m in messages] == expected
    assert [indexed.forward_encoded(indexed.encode_message(m)).tolist() for m in messages] == expected
    for threads in (1, 2):
        assert [r.tolist() for r in indexed.forward_batch(messages, threads=threads)] == expected
    some = sorted(table)[::2]
    assert [indexed.forward(m, broadcast=some).tolist() for m in messages] == [
        [i for i in e if i in some] for e in expected]
    per_message = [some if k % 2 else None for k in range(len(messages))]
    assert [r.tolist() for r in indexed.forward_batch(messages, per_message, threads=1)] == [
        e if b is None else [i for i in e if i in b] for e, b in zip(expected, per_message, strict=True)]
    derived = indexed.with_preprocessing_rounds(0).with_numbers(numbers)
    assert [derived.forward(m).tolist() for m in messages] == expected


def test_a_table_of_intervals_goes_to_the_index_and_says_so():
    table = {i: cb.parse_filter(f"[x >= {i}, x <= {i + 10}, y > 0.5, s = \"a\"]" if i % 3 == 0
                                else f"[x >= {i}, x <= {i + 10}, y > 0.5]") for i in range(40)}
    indexed = ForwardingTable.compile(table, intervals="index")
    algorithms = indexed.algorithms()
    assert ("x", "int", "interval index") in algorithms and ("y", "float", "interval index") in algorithms
    assert ("s", "string", "counting") in algorithms and ("x", "int", "counting") in algorithms
    stats = indexed.stats()
    assert stats["interval_filters"] == 40 - 14 and stats["interval_constraints"] == 3 * 26
    assert all(a == "counting" for _, _, a in ForwardingTable.compile(table, intervals="counting").algorithms())
    m = cb.parse_message('[x = 12, y = 0.75, s = "a"]')
    assert indexed.forward(m).tolist() == [i for i in range(40) if cb.matches(table[i], m)] == list(range(2, 13))


def test_auto_leaves_small_tables_to_counting_and_indexes_dense_intervals():
    small = {i: cb.parse_filter(f"[x >= {i}, x <= {i + 10}]") for i in range(50)}
    assert all(a == "counting" for _, _, a in ForwardingTable.compile(small).algorithms())
    rng = np.random.default_rng(7)
    n, per = 4000, 5
    names = rng.permuted(np.tile(np.arange(10), (n, 1)), axis=1)[:, :per]
    lo = rng.integers(0, 1000, (n, per))
    hi = lo + rng.integers(0, 1000, (n, per))
    rows = n * per * 2
    dense = ForwardingTable.from_arrays(
        interfaces=np.arange(n), filter_interface=np.arange(n), c_filter=np.repeat(np.arange(n), 2 * per),
        c_name=np.repeat(names, 2, axis=1).ravel(), c_type=np.ones(rows, np.int8),
        c_op=np.tile(np.array([5, 4], np.int8), n * per), c_value=np.stack([lo, hi], axis=2).ravel(),
        names=[f"a{k}" for k in range(10)])
    assert {a for _, _, a in dense.algorithms()} == {"interval index"}
    assert dense.stats()["interval_filters"] == n
    for event in rng.integers(0, 1500, (20, 10)):
        m = cb.Message({f"a{k}": int(v) for k, v in enumerate(event)})
        v = event[names]
        assert dense.forward(m).tolist() == np.flatnonzero(np.all((lo <= v) & (v <= hi), axis=1)).tolist()


def test_intervals_option_is_checked():
    with pytest.raises(ValueError, match="intervals must be one of"):
        ForwardingTable.compile({0: cb.parse_filter("[x > 1]")}, intervals="rein")
