"""The forwarding engine (cbalgebra.matcher) against the reference semantics.

Every result is compared with ``cb.matches`` applied to each interface's
predicate. Message counts (the issue asks for >= 100,000 random messages in
total): the random mixed tables check 8 x 10,000 = 80,000 messages (each
through 0 and 10 rounds, batch and single), the paper's workloads
3 x 6,000 = 18,000, the hypothesis tests about 5,000, and the other cases a
few thousand more.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable, MessageBatch, compile_times, messages_from_document, read_document
from cbalgebra.values import INT_MAX, INT_MIN, Attribute, Constraint, Filter, Message, Predicate

import strategies as S

P = cb.parse_predicate
M = cb.parse_message


def reference(table: dict, message: Message, broadcast=None) -> list[int]:
    return sorted(i for i, p in table.items()
                  if (broadcast is None or i in broadcast) and cb.matches(Predicate.of(p), message))


def check(spec: dict, messages: list[Message], rounds=(10, 0), batch=True, single_every=1, broadcasts=None):
    """Forward ``messages`` through ``spec`` compiled with each number of
    rounds, single and batch, and compare with the reference."""
    expected = [reference(spec, m) for m in messages]
    for r in rounds:
        table = ForwardingTable.compile(spec, preprocessing_rounds=r)
        if batch:
            got = table.forward_batch(messages)
            assert len(got) == len(messages)
            for m, g, e in zip(messages, got, expected, strict=True):
                assert g.tolist() == e, f"batch, rounds={r}: {m}"
        for k in range(0, len(messages), single_every):
            g = table.forward(messages[k])
            assert g.dtype == np.int64
            assert g.tolist() == expected[k], f"single, rounds={r}: {messages[k]}"
        if broadcasts is not None:
            for b in broadcasts:
                got = table.forward_batch(messages, b)
                for g, e in zip(got, expected, strict=True):
                    assert g.tolist() == [i for i in e if i in set(b)]
    return expected


# ---------------------------------------------------------------- Figure 2
FIGURE_2 = {
    1: P('[string dest = "Atlanta", int price < 500] || [string stock = "DYS", int quantity > 1000, int price < 500]'),
    2: P('[string airline = "UA", string orig = "Chicago", string dest = "Atlanta"]'
         ' || [string dest = "New York", int price < 200] || [string orig = "Chicago"]'
         ' || [string airline = "UA", bool upgradeable = true]'),
    3: P('[string stock = "MSFT", int price < 200]'),
}


@pytest.mark.parametrize("rounds", [0, 1, 10])
def test_figure_2_table(rounds):
    t = ForwardingTable.compile(FIGURE_2, preprocessing_rounds=rounds)
    cases = [
        ('[string orig = "Chicago", int price = 100]', [2]),
        ('[string stock = "MSFT", int price = 150]', [3]),
        ('[string stock = "MSFT", int price = 200]', []),
        ('[string dest = "Atlanta", int price = 499]', [1]),
        ('[string dest = "New York", int price = 199, string stock = "MSFT"]', [2, 3]),
        ('[string stock = "DYS", int quantity = 1001, int price = -5]', [1]),
        ('[string airline = "UA", bool upgradeable = true, string dest = "Atlanta", int price = 1]', [1, 2]),
        ('[string airline = "UA", bool upgradeable = false]', []),
        ('[string airline = "UA", string upgradeable = "true"]', []),  # type mismatch
        ('[int price = 100]', []),
        ('[]', []),
    ]
    for text, expected in cases:
        m = M(text)
        assert t.forward(m).tolist() == expected == reference(FIGURE_2, m), text
        assert t.forward(m, broadcast=[3]).tolist() == [i for i in expected if i == 3]
    assert [r.tolist() for r in t.forward_batch([M(c) for c, _ in cases])] == [e for _, e in cases]


def test_figure_2_selectivity_table():
    # §4.3: "price" is a determinant for I1 and I3, "stock" for I3 (typed here)
    t = ForwardingTable.compile(FIGURE_2)
    assert t.selectivity_table() == [("price", "int", [1, 3]), ("stock", "string", [3])]
    assert t.preprocessing_rounds == 2  # capped by the table's length
    assert ForwardingTable.compile(FIGURE_2, preprocessing_rounds=0).preprocessing_rounds == 0
    assert t.with_preprocessing_rounds(1).preprocessing_rounds == 1


def test_sigcomm_example():
    t = ForwardingTable.compile({
        7: P('[alert-type="intrusion" ∧ severity>2 ∨ class="alert" ∧ device-type="web-server"]'),
    })
    m = M('[class="alert", severity=6, device-type="web-server", alert-type="hardware failure"]')
    assert t.forward(m).tolist() == [7]


# ------------------------------------------------------- operator by operator
OPERATOR_CASES = [
    ("int x = 5", "x = 5", True), ("int x = 5", "x = 6", False),
    ("int x != 5", "x = 6", True), ("int x != 5", "x = 5", False), ("int x != 5", "y = 6", False),
    ("int x != 5", 'x = "a"', False),
    ("int x < 5", "x = 4", True), ("int x < 5", "x = 5", False),
    ("int x <= 5", "x = 5", True), ("int x <= 5", "x = 6", False),
    ("int x > 5", "x = 6", True), ("int x > 5", "x = 5", False),
    ("int x >= 5", "x = 5", True), ("int x >= 5", "x = 4", False),
    (f"int x > {INT_MIN}", f"x = {INT_MIN + 1}", True), (f"int x < {INT_MAX}", f"x = {INT_MAX}", False),
    (f"int x >= {INT_MIN}", f"x = {INT_MIN}", True), (f"int x <= {INT_MAX}", f"x = {INT_MAX}", True),
    ("int x any", "x = 1", True), ("int x any", "x = 1.0", False), ("int x any", "y = 1", False),
    ("any x any", "x = 1", True), ("any x any", 'x = "s"', True), ("any x any", "x = false", True),
    ("any x any", "x = -0.0", True), ("any x any", "y = 1", False),
    ("float x = 0.0", "x = -0.0", True), ("float x < 0.0", "x = -0.0", False),
    ("float x > -5e-324", "x = 0.0", True), ("float x < 5e-324", "x = 0.0", True),
    ("float x < -1.5", "x = -1.7976931348623157e308", True), ("float x > 1.5", "x = 1.7976931348623157e308", True),
    ("float x = 1.0", "x = 1", False), ("int x = 1", "x = 1.0", False),
    ("bool b = true", "b = true", True), ("bool b = true", "b = false", False),
    ("bool b != true", "b = false", True), ("bool b != true", "b = true", False), ("bool b any", "b = false", True),
    ('string s = "ab"', 's = "ab"', True), ('string s = "ab"', 's = "abc"', False),
    ('string s != "ab"', 's = "abc"', True), ('string s != "ab"', 's = "ab"', False),
    ('string s < "b"', 's = "a"', True), ('string s < "b"', 's = "b"', False), ('string s < "b"', 's = "az"', True),
    ('string s < "b"', 's = "b\\u0000"', False), ('string s <= "b"', 's = "b"', True),
    ('string s > "b"', 's = "b\\u0000"', True), ('string s >= "b"', 's = "b"', True),
    ('string s > "b"', 's = ""', False),
    ('string s < "b"', 's = ""', True), ('string s > ""', 's = ""', False), ('string s >= ""', 's = ""', True),
    ('string s >* "ab"', 's = "abc"', True), ('string s >* "ab"', 's = "ab"', True),
    ('string s >* "ab"', 's = "a"', False),
    ('string s >* ""', 's = ""', True), ('string s *< ""', 's = "x"', True), ('string s * ""', 's = ""', True),
    ('string s *< "bc"', 's = "abc"', True), ('string s *< "bc"', 's = "bcd"', False),
    ('string s * "b"', 's = "abc"', True), ('string s * "bb"', 's = "bab"', False),
    ('string s * "abc"', 's = "abc"', True),
    ('string s * "aa"', 's = "aaaa"', True),
    ('string s >* "\\U0010ffff"', 's = "\\U0010ffff\\u0000"', True), ('string s *< "\\u0000"', 's = "a\\u0000"', True),
    ('string s * "\\u0000"', 's = "a"', False), ('string s > "\\uffff"', 's = "\\U00010000"', True),
    ('string s * "日本"', 's = "こんにちは日本語"', True), ('string s *< "é"', 's = "café"', True),
    ('string s = "x"', "s = 1", False), ('string s any', 's = ""', True),
]


@pytest.mark.parametrize("constraint,message,expected", OPERATOR_CASES)
def test_operator(constraint, message, expected):
    f = cb.parse_filter(constraint)
    m = M(f"[{message}]")
    assert cb.matches(f, m) is expected  # the case itself is right
    for rounds in (0, 10):
        t = ForwardingTable.compile({3: f}, preprocessing_rounds=rounds)
        assert t.forward(m).tolist() == ([3] if expected else [])


def test_all_operator_cases_in_one_table():
    # the same cases, all in one table: shared keys and blocks must not interfere
    spec = {k: cb.parse_filter(c) for k, (c, _, _) in enumerate(OPERATOR_CASES)}
    msgs = [M(f"[{m}]") for _, m, _ in OPERATOR_CASES]
    msgs.append(Message({"x": 5, "s": "abc", "b": True, "y": 6}))
    check(spec, msgs)


# ---------------------------------------------------------- table shapes
def test_empty_filter_empty_predicate_and_empty_table():
    spec = {0: Predicate(), 1: Filter(), 2: P("x = 1"), 5: Predicate([Filter(), cb.parse_filter("y > 2")])}
    t = ForwardingTable.compile(spec)
    assert t.interfaces.tolist() == [0, 1, 2, 5]
    assert t.forward(Message()).tolist() == [1, 5]
    assert t.forward(M("[x = 1]")).tolist() == [1, 2, 5]
    assert t.forward(M("[x = 1]"), broadcast=[0, 2]).tolist() == [2]
    assert t.forward(M("[x = 1]"), broadcast=[]).tolist() == []
    empty = ForwardingTable.compile({})
    assert empty.forward(M("[x = 1]")).tolist() == []
    assert [r.tolist() for r in empty.forward_batch([M("[x = 1]"), Message()])] == [[], []]
    assert ForwardingTable.compile({4: Predicate()}).forward(Message()).tolist() == []


def test_shared_constraints_and_duplicate_filters():
    f = cb.parse_filter('[x > 1, s >* "a"]')
    spec = {i: Predicate([f, cb.parse_filter(f"z = {i}")]) for i in range(50)}
    t = ForwardingTable.compile(spec)
    st_ = t.stats()
    assert st_["constraints"] == 150
    assert st_["distinct_constraints"] == 52  # x > 1, s >* "a", and z = 0..49
    assert t.forward(M('[x = 2, s = "ab"]')).tolist() == list(range(50))
    assert t.forward(M('[x = 2, s = "b", z = 7]')).tolist() == [7]


def test_large_interface_ids_and_broadcast_forms():
    spec = {2**62: P("x = 1"), 0: P("x = 1"), 12345: P("x > 0")}
    t = ForwardingTable.compile(spec)
    m = M("[x = 1]")
    assert t.forward(m).tolist() == [0, 12345, 2**62]
    assert t.forward(m, broadcast={12345, 99}).tolist() == [12345]
    assert t.forward(m, broadcast=np.array([2**62, 0])).tolist() == [0, 2**62]
    assert t.forward(m, broadcast=(x for x in [0, 0, 0])).tolist() == [0]
    got = t.forward_batch([m, m, M("[x = 5]")], broadcast=[[0], None, [0, 12345]])
    assert [g.tolist() for g in got] == [[0], [0, 12345, 2**62], [12345]]
    got = t.forward_batch([m, m], broadcast=[0, 2**62])
    assert [g.tolist() for g in got] == [[0, 2**62], [0, 2**62]]


def test_wide_layout_big_filter():
    # a filter of 300 constraints needs the wide layout (counters beyond uint8)
    f = Filter(Constraint("int", f"a{k}", ">=", k) for k in range(300))
    spec = {1: f, 2: Filter(list(f)[:299]), 3: P("a0 = 0")}
    t = ForwardingTable.compile(spec)
    assert t.stats()["layout"] == "wide"
    full = Message({f"a{k}": k for k in range(300)})
    short = Message({f"a{k}": k for k in range(299)})
    low = Message({f"a{k}": k - (k == 150) for k in range(300)})
    check(spec, [full, short, low, Message({"a0": 0})])
    assert t.forward(full).tolist() == [1, 2, 3]


def test_many_interfaces_bitmaps_and_early_stop():
    # 1,000 interfaces: several bitmap words; every interface matched stops early
    spec = {i: Predicate([cb.parse_filter(f"x = {i % 7}"), cb.parse_filter(f"y < {i}")]) for i in range(1000)}
    msgs = [Message({"x": i % 9, "y": i * 37 % 1100}) for i in range(60)] + [Message({"x": 1}), Message({"y": -1})]
    check(spec, msgs, broadcasts=[list(range(0, 1000, 3)), [999, 5, 64, 63]])


@settings(max_examples=25, deadline=None)
@given(n_ifaces=st.integers(33, 700), seed=st.integers(0, 2**32 - 1), n_msgs=st.integers(1, 6))
def test_many_matched_interfaces_come_out_sorted(n_ifaces, seed, n_msgs):
    """More than 32 matched interfaces are sorted through a bitmap (one per 16
    bitmap words or more): the output is the reference's, in order, for
    interface ids in any order and with gaps, with and without a broadcast set."""
    rng = np.random.default_rng(seed)
    ids = rng.choice(10 * n_ifaces, size=n_ifaces, replace=False).tolist()
    ops = ("<", ">", "!=", "<=")
    spec = {i: P(f"x {ops[k % 4]} {int(rng.integers(0, 50))}") for k, i in enumerate(ids)}
    msgs = [Message({"x": int(rng.integers(-5, 55))}) for _ in range(n_msgs)]
    check(spec, msgs, broadcasts=[sorted(rng.choice(ids, size=n_ifaces // 2, replace=False).tolist())])


def test_matched_interfaces_sorted_on_both_sides_of_the_bitmap_threshold():
    # 40,000 interfaces = 625 bitmap words: 36 or 37 matches stay below one per
    # 16 words (quicksort), 40 or more reach it (bitmap)
    n = 40_000
    for modulus in (1100, 1000, 400):
        spec = {i: Predicate([cb.parse_filter(f"x = {i % modulus}")]) for i in range(n)}
        check(spec, [Message({"x": v}) for v in (0, 7, modulus - 1, modulus)], rounds=(0,), single_every=2)


def test_long_link_runs_skip_matched_interfaces():
    # constraints shared by hundreds of filters, once all but a few interfaces
    # are matched: the links of each remaining candidate are found by search
    rng = np.random.default_rng(17)
    for n_if, per in ((8, 200), (130, 40)):
        last = n_if - 1
        spec = {}
        for i in range(n_if):
            fs = [Filter([Constraint("int", "x", ">", 0), Constraint("int", "y", "=", i * 1000 + k)])
                  for k in range(per)]
            if i != last:
                fs.append(Filter([Constraint("string", "s", "=", "go")]))
            spec[i] = Predicate(fs)
        msgs = [M(f'[s = "go", x = 5, y = {last * 1000 + 5}]')]
        for _ in range(300):
            attrs = {"x": int(rng.integers(-1, 3)), "y": int(rng.integers(0, n_if * 1000))}
            if rng.random() < 0.6:
                attrs["s"] = ["go", "no"][rng.integers(2)]
            msgs.append(Message(attrs))
        expected = check(spec, msgs, broadcasts=[[last], [0, last], list(range(0, n_if, 2))])
        assert expected[0] == list(range(n_if))


# ------------------------------------------------------- random mixed tables
NAMES = ["x", "y", "z", "s", "t", "ñ", "a.b", "日"]
INTS = [INT_MIN, INT_MIN + 1, -7, -1, 0, 1, 2, 3, 100, INT_MAX - 1, INT_MAX]
FLOATS = [-sys.float_info.max, -2.5, -1.0, -5e-324, 0.0, 5e-324, 0.5, 1.0, math.nextafter(1.0, 2.0), 1e300,
          sys.float_info.max]
PIECES = ["", "a", "b", "ab", "ba", "\x00", "\U0010ffff", "é", "日本", "zz", "abc", "\uffff", "\U00010000"]
STRING_OPS = ["=", "!=", "<", ">", "<=", ">=", ">*", "*<", "*", "any"]
NUM_OPS = ["=", "!=", "<", ">", "<=", ">=", "any"]


def _random_string(rng) -> str:
    return "".join(PIECES[k] for k in rng.integers(0, len(PIECES), size=rng.integers(0, 4)))


def _random_value(rng, type_):
    if type_ == "int":
        return int(INTS[rng.integers(len(INTS))]) if rng.random() < 0.6 else int(rng.integers(-5, 6))
    if type_ == "float":
        return float(FLOATS[rng.integers(len(FLOATS))]) if rng.random() < 0.6 else float(rng.integers(-3, 4)) / 2
    if type_ == "bool":
        return bool(rng.integers(2))
    return _random_string(rng)


def _random_constraint(rng, names) -> Constraint:
    name = names[rng.integers(len(names))]
    r = rng.random()
    if r < 0.05:
        return Constraint("any", name, "any")
    type_ = ["string", "string", "int", "float", "bool"][rng.integers(5)]
    ops = STRING_OPS if type_ == "string" else (NUM_OPS if type_ != "bool" else ["=", "!=", "any"])
    op = ops[rng.integers(len(ops))]
    if op == "any":
        return Constraint(type_, name, "any")
    value = _random_value(rng, type_)
    if type_ == "string" and op in (">*", "*<", "*") and rng.random() < 0.5:
        value = value[: rng.integers(0, 3)]  # short patterns match more often
    return Constraint(type_, name, op, value)


def _random_table(rng, n_ifaces, max_filters, max_size, names) -> dict:
    spec = {}
    for _ in range(n_ifaces):
        filters = [Filter(_random_constraint(rng, names) for _ in range(rng.integers(0 if rng.random() < 0.02 else 1,
                                                                                  max_size + 1)))
                   for _ in range(rng.integers(0, max_filters + 1))]
        spec[int(rng.integers(0, 4 * n_ifaces))] = Predicate(filters)
    return spec


def _random_message(rng, names) -> Message:
    attrs = {}
    for name in names:
        if rng.random() < 0.55:
            type_ = ["string", "string", "int", "float", "bool"][rng.integers(5)]
            attrs[name] = Attribute(type_, _random_value(rng, type_))
    return Message(attrs)


@pytest.mark.parametrize("seed,n_ifaces,max_filters,max_size,n_names", [
    (1, 2, 2, 2, 2), (2, 3, 4, 3, 4), (3, 10, 3, 4, 5), (4, 40, 4, 3, 8),
    (5, 5, 30, 2, 3), (6, 200, 1, 5, 8), (7, 60, 8, 4, 6), (8, 25, 6, 6, 2),
])
def test_random_mixed_tables(seed, n_ifaces, max_filters, max_size, n_names):
    rng = np.random.default_rng(seed)
    names = NAMES[:n_names]
    spec = _random_table(rng, n_ifaces, max_filters, max_size, names)
    msgs = [_random_message(rng, names) for _ in range(10_000)]
    expected = check(spec, msgs, single_every=7)
    assert sum(map(len, expected)) > 0  # the workload does match things
    # broadcast restricts the output to B
    keys = sorted(spec)
    b = keys[::2]
    t = ForwardingTable.compile(spec)
    for m, e in zip(msgs[:300], expected[:300], strict=True):
        assert t.forward(m, broadcast=b).tolist() == [i for i in e if i in set(b)]


# ------------------------------------------------------------ hypothesis
@settings(max_examples=120)
@given(
    spec=st.dictionaries(st.integers(0, 40), S.dense_predicates(max_filters=3, max_size=3), max_size=6),
    msgs=st.lists(S.messages(S.dense_names, dense=True, max_size=3), min_size=1, max_size=60),
    broadcast=st.none() | st.lists(st.integers(0, 45), max_size=5),
)
def test_hypothesis_dense(spec, msgs, broadcast):
    t0 = ForwardingTable.compile(spec, preprocessing_rounds=0)
    t10 = ForwardingTable.compile(spec, preprocessing_rounds=10)
    batch = t10.forward_batch(msgs, broadcast)
    for m, b in zip(msgs, batch, strict=True):
        e = reference(spec, m, None if broadcast is None else set(broadcast))
        assert t0.forward(m, broadcast).tolist() == e
        assert b.tolist() == e


@settings(max_examples=60)
@given(
    spec=st.dictionaries(st.integers(0, 10), S.predicates(S.dense_names, max_filters=3, max_size=3), max_size=4),
    msgs=st.lists(S.messages(S.dense_names, max_size=3), min_size=1, max_size=30),
)
def test_hypothesis_arbitrary_values(spec, msgs):
    # arbitrary unicode strings, the whole int64 range, any finite double
    t = ForwardingTable.compile(spec)
    for m, b in zip(msgs, t.forward_batch(msgs), strict=True):
        assert b.tolist() == reference(spec, m)


@settings(max_examples=60)
@given(data=st.data())
def test_hypothesis_patterns_from_message_strings(data):
    # prefix/suffix/substring patterns cut from the message's own strings
    text = data.draw(st.text(st.characters(exclude_categories=("Cs",)), max_size=10))
    cuts = data.draw(st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=1, max_size=8))
    spec = {}
    for k, (i, j) in enumerate(cuts):
        piece = text[min(i, j):max(i, j)]
        op = [">*", "*<", "*", "=", "<", ">=", "!="][k % 7]
        spec[k] = Filter([Constraint("string", "s", op, piece)])
    msgs = [Message({"s": text}), Message({"s": text[1:]}), Message({"s": text[:-1]}), Message({"s": text + text})]
    check(spec, msgs)


# ------------------------------------------------------ the paper's workload
@pytest.mark.parametrize("kw", [
    dict(interfaces=10, filters_per_interface=(1, 40), seed=11),
    dict(interfaces=300, filters_per_interface=1, seed=12),  # centralized: one filter per interface
    dict(interfaces=20, filters_per_interface=(1, 30), attribute_names=60, string_values=40, int_values=10,
         type_weights={"string": 0.4, "int": 0.3, "float": 0.2, "bool": 0.1},
         string_op_weights={"=": 1, "!=": 1, "<": 1, ">": 1, "<=": 1, ">=": 1, "prefix": 1, "suffix": 1,
                            "substring": 1, "any": 1},
         int_op_weights={"=": 1, "!=": 1, "<": 1, ">": 1, "<=": 1, ">=": 1, "any": 1},
         bool_op_weights={"=": 1, "!=": 1, "any": 1}, seed=13),
])
def test_generated_workloads(kw):
    w = cb.workloads.forwarding(messages=6000, **kw)
    spec = w.predicates()
    msgs = w.messages
    expected = [reference(spec, m) for m in msgs]
    assert sum(map(len, expected)) > 0
    for rounds in (0, 10):
        t = w.table(preprocessing_rounds=rounds)
        offsets, ids = t.forward_batch_csr(msgs)
        for k, e in enumerate(expected):
            assert ids[offsets[k]:offsets[k + 1]].tolist() == e
        for k in range(0, len(msgs), 20):
            assert t.forward(msgs[k]).tolist() == expected[k]
    # the dict path builds the same table
    t2 = ForwardingTable.compile(spec)
    assert t2.stats()["constraints"] == w.n_constraints
    assert [r.tolist() for r in t2.forward_batch(msgs[:500])] == expected[:500]


def test_batch_equals_single_on_threads_and_restarts():
    w = cb.workloads.forwarding(interfaces=500, filters_per_interface=1, messages=400, seed=5)
    t = w.table()
    single = [t.forward(m).tolist() for m in w.messages]
    batch = t.encode(w.messages)
    assert isinstance(batch, MessageBatch) and len(batch) == 400
    for threads in (1, 2):
        assert [r.tolist() for r in t.forward_batch(batch, threads=threads)] == single
    # a table whose output cannot fit the first guess resumes chunks (est = 8 per message)
    spec = {i: Filter() for i in range(300)}
    t_all = ForwardingTable.compile(spec)
    got = t_all.forward_batch([Message()] * 50)
    assert all(g.tolist() == list(range(300)) for g in got)


def test_with_preprocessing_rounds_shares_and_agrees():
    w = cb.workloads.forwarding(interfaces=400, filters_per_interface=1, messages=500, seed=21)
    t = w.table(preprocessing_rounds=100)
    base = [r.tolist() for r in t.forward_batch(w.messages)]
    for r in (0, 1, 5, 50):
        t_r = t.with_preprocessing_rounds(r)
        assert t_r.preprocessing_rounds == min(r, len(t.selectivity_table()))
        assert [x.tolist() for x in t_r.forward_batch(w.messages)] == base
    sel = t.selectivity_table(5)
    sizes = [len(ifs) for _, _, ifs in sel]
    assert sizes == sorted(sizes, reverse=True)


# ------------------------------------------------------------- documents
SFF = """
// SFF driver input
set preprocessing_limit = 3;
ifconfig 1 price < 500, dest = "ATL";
ifconfig 2 stock =* "MS" | stock *= "FT", qty > 10 ;
ifconfig 1 airline ** "U";   /* adds a filter to interface 1 */
ifconfig 4 x any int, y any any;
select price = 100 dest = "ATL";
select stock = "MSFT" qty = 11;
select airline = "XUX";
select x = 1 y = "y";
select x = "1" y = 2;
timer start; consolidate; statistics; output off;
"""


def test_from_document_sff():
    t = ForwardingTable.from_document(SFF)
    assert t.interfaces.tolist() == [1, 2, 4]
    assert t.preprocessing_rounds <= 3
    msgs = messages_from_document(SFF)
    assert [t.forward(m).tolist() for m in msgs] == [[1], [2], [1], [4], []]
    doc = read_document(SFF)
    assert doc.preprocessing_limit == 3 and doc.message_lines == [8, 9, 10, 11, 12]
    assert len(doc.predicates[1]) == 2  # two ifconfig statements add up
    assert ForwardingTable.from_document(SFF, preprocessing_rounds=0).preprocessing_rounds == 0


def test_from_document_clear_and_our_format():
    t = ForwardingTable.from_document("ifconfig 1 x = 1;\nclear;\nifconfig 2 x = 1;\n")
    assert t.interfaces.tolist() == [2]
    ours = 'subscribe x > 1\nsubscribe [s >* "ab"] || [x = 0]\npublish [x = 0]\npublish [x = 2, s = "abc"]\n'
    t = ForwardingTable.from_document(ours)
    assert t.interfaces.tolist() == [0, 1]
    assert [t.forward(m).tolist() for m in messages_from_document(ours)] == [[1], [0, 1]]


def test_from_document_errors():
    with pytest.raises(cb.ParseError, match="either ifconfig or subscribe"):
        read_document("ifconfig 1 x = 1;\nsubscribe x = 2\n")
    with pytest.raises(cb.ParseError):
        ForwardingTable.from_document("ifconfig 1 x <;")
    with pytest.raises(cb.ParseError, match="preprocessing_limit"):
        read_document("set preprocessing_limit = -1;")


# ----------------------------------------------------------------- errors
def test_input_validation():
    with pytest.raises(TypeError):
        ForwardingTable.compile([P("x = 1")])
    with pytest.raises(ValueError):
        ForwardingTable.compile({-1: P("x = 1")})
    with pytest.raises(TypeError):
        ForwardingTable.compile({True: P("x = 1")})
    with pytest.raises(TypeError):
        ForwardingTable.compile({"1": P("x = 1")})
    with pytest.raises(TypeError):
        ForwardingTable.compile({1: "x = 1"})
    with pytest.raises(ValueError):
        ForwardingTable.compile({1: P("x = 1")}, preprocessing_rounds=-1)
    t = ForwardingTable.compile({1: P("x = 1")})
    with pytest.raises(TypeError):
        t.forward({"x": 1})
    with pytest.raises(TypeError):
        t.forward(M("[x = 1]"), broadcast=["a"])
    with pytest.raises(TypeError):
        t.forward_batch(M("[x = 1]"))
    other = ForwardingTable.compile({1: P("x = 1")})
    with pytest.raises(ValueError, match="another table"):
        t.forward_batch(other.encode([M("[x = 1]")]))
    with pytest.raises(ValueError):
        t.forward_batch([M("[x = 1]")] * 3, broadcast=[[1], [1]])
    with pytest.raises(ValueError, match="does not apply"):
        ForwardingTable.from_arrays(interfaces=[0], filter_interface=[0], c_filter=[0], c_name=[0], c_type=[3],
                                    c_op=[2], c_value=[1], names=["b"])


def test_from_arrays_matches_compile():
    # the fast constructor: dedupes names and strings, keeps float bits, drops repeated constraints
    t = ForwardingTable.from_arrays(
        interfaces=[3, 9], filter_interface=[3, 9, 9],
        c_filter=[0, 0, 1, 2, 2], c_name=[0, 1, 2, 0, 0], c_type=[1, 0, 2, 1, 1], c_op=[2, 6, 4, 0, 0],
        c_value=[10, 1, np.float64(-0.0).view(np.int64), 7, 7], names=["x", "s", "f"], strings=["q", "ab", "ab"],
    )
    spec = {3: P('[int x < 10, string s >* "ab"]'), 9: P("[float f <= 0.0] || [int x = 7]")}
    msgs = [M('[x = 9, s = "abc"]'), M("[f = -0.0]"), M("[x = 7]"), M('[x = 10, s = "ab"]')]
    assert [t.forward(m).tolist() for m in msgs] == [reference(spec, m) for m in msgs] == [[3], [9], [9], []]
    assert t.stats()["constraints"] == 4


def test_memory_and_stats():
    w = cb.workloads.forwarding(interfaces=20, filters_per_interface=200, seed=3)
    t = w.table()
    st_ = t.stats()
    assert st_["constraints"] == w.n_constraints
    assert 0 < st_["nbytes"] - sum(st_["array_bytes"].values()) < 200  # plus the parameter vector
    assert st_["bytes_per_constraint"] < 64
    assert "serial/uint8" in compile_times() or t.forward(w.messages[0]) is not None


def _brute_force(spec_rows: dict, filter_interface: np.ndarray, message: dict) -> list[int]:
    """Interfaces of the filters all of whose int constraints hold (numpy,
    independent of the kernels): ``spec_rows`` holds the columns c_filter,
    c_name, c_op, c_value of a table of int constraints only."""
    names = spec_rows["c_name"]
    present = np.array([n in message for n in range(3)])
    value = np.array([message.get(n, 0) for n in range(3)], dtype=np.int64)[names]
    k = spec_rows["c_value"]
    holds = [value == k, value != k, value < k, value > k, value <= k, value >= k]
    ok = np.choose(spec_rows["c_op"], holds) & present[names]
    failed = np.zeros(filter_interface.shape[0], dtype=bool)
    failed[spec_rows["c_filter"][~ok]] = True
    return sorted(set(filter_interface[~failed].tolist()))


def test_one_search_per_key_with_wide_rank_counts():
    # _collect_ordered places a value among all the =, !=, <, >, <=, >=
    # constants of its key with one search and reads per-block counts of 1, 2
    # or 4 bytes, the width the key's largest block needs: key a's blocks are
    # small, b's "=" block has 600 constants, c's "<" block 70,000
    rng = np.random.default_rng(7)
    sizes = {0: [20, 20, 20, 20, 20, 20], 1: [600, 40, 40, 40, 40, 40], 2: [5, 5, 70_000, 5, 5, 5]}
    c_name, c_op, c_value = [], [], []
    for name, per_op in sizes.items():
        for op, count in enumerate(per_op):
            constants = rng.choice(200_000, size=count, replace=False) - 100_000
            c_name += [name] * count
            c_op += [op] * count
            c_value += constants.tolist()
    n = len(c_name)
    # one filter per constraint, and a second constraint on a random half
    c_filter = list(range(n))
    paired = rng.choice(n, size=n // 2, replace=False)
    c_filter += paired.tolist()
    c_name += rng.integers(1, 3, size=paired.shape[0]).tolist()  # a keeps its small blocks
    c_op += rng.integers(0, 6, size=paired.shape[0]).tolist()
    c_value += (rng.integers(-100_000, 100_000, size=paired.shape[0])).tolist()
    rows = {key: np.array(col, dtype=np.int64) for key, col in
            (("c_filter", c_filter), ("c_name", c_name), ("c_op", c_op), ("c_value", c_value))}
    filter_interface = rng.integers(0, 150, size=n)
    # the rank table belongs to counting: keep every filter there (under "auto" the interval index
    # takes the filters made only of intervals, and the blocks left are too small for 4-byte counts)
    arrays = dict(interfaces=np.arange(150), filter_interface=filter_interface, c_type=np.ones(len(c_filter), np.int64),
                  names=["a", "b", "c"], preprocessing_rounds=10, **rows)
    table = ForwardingTable.from_arrays(**arrays, intervals="counting")
    values = rows["c_value"]
    messages = []
    for _ in range(400):
        chosen = rng.choice(3, size=rng.integers(1, 4), replace=False)
        # a constant, its neighbours, or a value beyond every constant
        picks = rng.choice(values, size=3) + rng.integers(-1, 2, size=3)
        picks[rng.random(3) < 0.1] = rng.choice([-200_000, 200_000])
        messages.append({int(name): int(picks[name]) for name in chosen})
    expected = [_brute_force(rows, filter_interface, m) for m in messages]
    assert len({tuple(e) for e in expected}) > 50  # the results tell the messages apart
    widths = (table._compiled.arrays.order_layout >> 6) & 3
    assert sorted(set(widths.tolist())) == [0, 1, 2]  # counts of 1, 2 and 4 bytes
    as_messages = [Message({"abc"[name]: v for name, v in m.items()}) for m in messages]
    for t in (table, table.with_preprocessing_rounds(0), ForwardingTable.from_arrays(**arrays)):
        assert [r.tolist() for r in t.forward_batch(as_messages)] == expected
        assert [t.forward(m).tolist() for m in as_messages[:100]] == expected[:100]
