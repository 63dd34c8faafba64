"""Messages decoded in compiled code (issue 15 §3): the wire the matcher
encodes for a message when it first forwards it (issue 25: not when the
message is made), and the decoder of ``matcher/_wire.py``.

The decoder replaced the table's Python encoder; that encoder is kept here
as the reference (``reference_rows``), and the decoded rows must equal its
rows on generated tables and messages: names the table does not know,
every type, the ends of the int64 range and of the 32-bit ints marshal
writes short, floats that are and are not whole, non-ASCII and astral
characters, and both ``numbers`` modes.
"""

from __future__ import annotations

import marshal
import pickle
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable, _wire
from cbalgebra.matcher.table import message_wire
from cbalgebra.semantics import SFF_INT_MAX, SFF_INT_MIN
from cbalgebra.values import INT_MAX, INT_MIN, TYPE_CODE, Attribute, Message, float_order_key

from strategies import filters, messages

T_STRING, T_INT, T_FLOAT = TYPE_CODE["string"], TYPE_CODE["int"], TYPE_CODE["float"]
T_CONVERTED = 8

# a few names, so that tables and messages share them; non-ASCII and astral too
NAMES = st.sampled_from(["x", "y", "price", "é", "名前", "\U0001d4b3", "zz", "a b"])
EDGE_INTS = st.sampled_from([0, 1, -1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**45, -(2**45), INT_MAX, INT_MIN,
                             2**62, -(2**62) - 7])
WHOLE_FLOATS = st.sampled_from([0.0, 1.0, -1.0, float(SFF_INT_MAX), float(SFF_INT_MIN), 2.0**31, -(2.0**31) - 1,
                                2.0**62, 1e300, 5e-324, 0.5, -2.5])


def reference_rows(table: ForwardingTable, message: Message, sff: bool) -> tuple[list[tuple[int, int, int]],
                                                                                    list[str]]:
    """The attribute rows and strings of ``message`` for ``table``, encoded
    in Python as the table's encoder did before the compiled decoder (the
    order is the message's, by name)."""
    lookup = table._compiled.lookup  # name -> (name id, bitmask of the message types that matter)
    rows: list[tuple[int, int, int]] = []
    strings: list[str] = []
    for name, attr in message.attributes:
        if name not in lookup:
            continue
        name_id, used = lookup[name]
        code = TYPE_CODE[attr.type]
        value = attr.value
        if (used >> code) & 1:
            if code == T_STRING:
                rows.append((name_id, code, len(strings)))
                strings.append(value)
            elif code == T_FLOAT:
                rows.append((name_id, code, float_order_key(value)))
            else:
                rows.append((name_id, code, int(value)))
        if not sff:
            continue
        if code == T_INT and (used >> T_FLOAT) & 1:
            rows.append((name_id, T_FLOAT + T_CONVERTED, float_order_key(float(value))))
        elif code == T_FLOAT and (used >> T_INT) & 1 and value.is_integer() and SFF_INT_MIN <= value <= SFF_INT_MAX:
            rows.append((name_id, T_INT + T_CONVERTED, int(value)))
    return rows, strings


def decoded_rows(table: ForwardingTable, batch_messages: list[Message]) -> list[tuple[list, list[str]]]:
    batch = table.encode(batch_messages)
    chars = "".join(map(chr, batch.s_chars.tolist()))
    strings = [chars[batch.s_off[k]:batch.s_off[k + 1]] for k in range(len(batch.s_off) - 1)]
    out = []
    for m in range(len(batch)):
        rows = [tuple(r) for r in batch.attrs[batch.m_off[m]:batch.m_off[m + 1]].tolist()]
        # string values are numbered across the batch: renumber per message
        first = min((v for _, t, v in rows if t == T_STRING), default=0)
        mine = [(n, t, v - first if t == T_STRING else v) for n, t, v in rows]
        out.append((mine, [strings[v] for _, t, v in rows if t == T_STRING]))
    return out


@st.composite
def attribute_values(draw) -> Attribute:
    kind = draw(st.sampled_from(["string", "int", "edge int", "float", "whole float", "bool"]))
    if kind == "string":
        return Attribute("string", draw(st.text(st.characters(exclude_categories=("Cs",)), max_size=8)))
    if kind == "int":
        return Attribute("int", draw(st.integers(INT_MIN, INT_MAX)))
    if kind == "edge int":
        return Attribute("int", draw(EDGE_INTS))
    if kind == "float":
        return Attribute("float", draw(st.floats(allow_nan=False, allow_infinity=False)))
    if kind == "whole float":
        return Attribute("float", draw(WHOLE_FLOATS))
    return Attribute("bool", draw(st.booleans()))


wire_messages = st.dictionaries(st.one_of(NAMES, st.text(min_size=1, max_size=6).filter(
    lambda s: not any(0xD800 <= ord(c) <= 0xDFFF for c in s))), attribute_values(), max_size=8).map(Message)


@settings(max_examples=300, deadline=None)
@given(st.lists(filters(NAMES, max_size=4), min_size=1, max_size=6), st.lists(wire_messages, min_size=1, max_size=6),
       st.sampled_from(["strict", "sff"]))
def test_decoded_rows_equal_the_python_encoder(table_filters, batch_messages, numbers):
    table = ForwardingTable.compile(dict(enumerate(table_filters)), numbers=numbers)
    expected = [reference_rows(table, m, numbers == "sff") for m in batch_messages]
    assert decoded_rows(table, batch_messages) == expected
    for m, (rows, strings) in zip(batch_messages, expected, strict=True):
        # the single-message encoding comes from the same decoder
        encoded = table.encode_message(m)
        assert [tuple(r) for r in encoded.attrs.tolist()] == rows
        assert encoded.maxlen == max(map(len, strings), default=0)


@settings(max_examples=150, deadline=None)
@given(st.lists(filters(NAMES, max_size=4), min_size=1, max_size=8), st.lists(wire_messages, min_size=1, max_size=8),
       st.sampled_from(["strict", "sff"]))
def test_forward_from_the_wire_agrees_with_matches(table_filters, batch_messages, numbers):
    predicates = {i: cb.Predicate([f]) for i, f in enumerate(table_filters)}
    table = ForwardingTable.compile(predicates, numbers=numbers)
    for m in batch_messages:
        expected = [i for i in sorted(predicates) if cb.matches(predicates[i], m, numbers=numbers)]
        assert table.forward(m).tolist() == expected
        assert table.forward(m, broadcast=[0, 2, 4, 99]).tolist() == [i for i in expected if i in (0, 2, 4)]
    assert [r.tolist() for r in table.forward_batch(batch_messages, threads=1)] == [
        table.forward(m).tolist() for m in batch_messages]


@settings(max_examples=200, deadline=None)
@given(messages())
def test_the_wire_is_marshal_of_the_names_and_values_in_name_order(message):
    wire = message_wire(message)
    assert message.wire is wire  # kept for the next forward
    names, values = marshal.loads(wire)
    assert names == tuple(n for n, _ in message.attributes)
    assert values == [a.value for _, a in message.attributes]
    assert [type(v) for v in values] == [{"string": str, "int": int, "float": float, "bool": bool}[a.type]
                                         for _, a in message.attributes]
    # equal messages have equal wires, whatever order they were written in
    reordered = Message(dict(reversed(message.attributes)))
    assert reordered == message and message_wire(reordered) == wire and hash(reordered) == hash(message)
    assert message_wire(pickle.loads(pickle.dumps(message))) == wire
    assert _wire.encode_attributes(message.attributes) == wire


@pytest.mark.parametrize("last", ['"u"', '"ü"'])  # ASCII: the fast reader's own Message; else Message()
def test_parsed_messages_carry_the_same_wire_as_constructed_ones(last):
    text = f'select string s = "x", int i = 5000000000, float f = 2.5, bool b = true, string u = {last};\n'
    (parsed,) = [item.value for item in cb.parse_document(text) if item.kind == "select"]
    built = Message({"s": "x", "i": 5_000_000_000, "f": 2.5, "b": True, "u": last.strip('"')})
    assert parsed.wire is None and built.wire is None  # neither reader encodes for the matcher
    assert parsed == built and message_wire(parsed) == message_wire(built)
    assert hash(parsed) == hash(built)


def test_subclassed_strings_become_plain_strings():
    class Tagged(str):
        pass

    m = Message({Tagged("name"): Tagged("value")})
    (name, attr), = m.attributes
    assert type(name) is str and type(attr.value) is str
    table = ForwardingTable.compile({3: cb.parse_filter('[string name = "value"]')})
    assert table.forward(m).tolist() == [3]


@pytest.mark.parametrize("numbers", ["strict", "sff"])
def test_messages_longer_than_the_scratch(numbers):
    long_name = "n" * 700
    table = ForwardingTable.compile({
        0: cb.Filter([cb.Constraint("string", long_name, ">*", "ab")]),
        1: cb.Filter([cb.Constraint("string", "s", "*", "needle")]),
        2: cb.Filter([cb.Constraint("int", "k", "=", 2**40)]),
    }, numbers=numbers)
    small = Message({"k": 2**40})
    assert table.forward(small).tolist() == [2]
    for size in (600, 5_000, 40_000):  # the scratch grows twice
        m = Message({long_name: "ab" + "é" * size, "s": "x" * size + "needle", "k": 2**40})
        assert table.forward(m).tolist() == [0, 1, 2]
        assert table.forward(small).tolist() == [2]
    assert [r.tolist() for r in table.forward_batch([m, small], threads=2)] == [[0, 1, 2], [2]]


def test_a_message_whose_wire_is_not_one_is_refused():
    table = ForwardingTable.compile({0: cb.parse_filter("[x > 1]")})
    m = Message({"x": 2})
    object.__setattr__(m, "wire", b"not a wire at all")  # forged on purpose
    with pytest.raises(ValueError, match="wire"):
        table.forward(m)
    with pytest.raises(ValueError, match="wire"):
        table.forward_batch([Message({"x": 3}), m])
    with pytest.raises(ValueError, match="wire"):
        table.encode_message(m)
    assert table.forward(Message({"x": 2})).tolist() == [0]


def test_the_hash_is_computed_once_and_agrees_with_equality():
    a = Message({"x": 1, "y": "z"})
    b = Message([("y", "z"), ("x", 1)])
    assert {a: 1}[b] == 1
    assert hash(a) == hash(b) == hash(("M", a.attributes))
    assert Message({"x": 1}) != Message({"x": True}) and Message({"x": 1.0}) != Message({"x": 1})


def test_batch_arrays_have_the_documented_shapes():
    table = ForwardingTable.compile({0: cb.parse_filter('[s >* "a", n > 1]')})
    batch = table.encode([Message({"s": "abc", "n": 5, "other": 1}), Message(), Message({"s": "x"})])
    assert batch.m_off.tolist() == [0, 2, 2, 3]
    assert batch.attrs.dtype == np.int64 and batch.attrs.shape == (3, 3)
    assert batch.s_off.tolist() == [0, 3, 4] and batch.maxlen == 3
    assert table.encode([]).m_off.tolist() == [0]


class _CountingEncoder:
    """``_wire.encode_attributes``, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, attributes):
        with self.lock:
            self.calls += 1
        return _ENCODE(attributes)


_ENCODE = _wire.encode_attributes


def test_making_a_message_does_not_encode_it_and_the_first_forward_does_once(monkeypatch):
    """Issue 25: the value layer builds no matcher bytes; the matcher encodes
    a message the first time it forwards it and keeps the wire."""
    counting = _CountingEncoder()
    monkeypatch.setattr(_wire, "encode_attributes", counting)
    text = 'select int x = 2, string s = "ab";\nselect int x = 3, string s = "é";\n'
    made = [Message({"x": 2, "s": "ab"}), Message([("s", "é"), ("x", 3)]),
            *[item.value for item in cb.parse_document(text) if item.kind == "select"]]  # ASCII and not
    made.append(pickle.loads(pickle.dumps(made[0])))
    assert counting.calls == 0 and all(m.wire is None for m in made)
    predicates = {0: cb.parse_filter("[x > 1]"), 1: cb.parse_filter('[s *< "b"]')}
    table = ForwardingTable.compile(predicates)
    expected = [[i for i in sorted(predicates) if cb.matches(predicates[i], m)] for m in made]
    assert [table.forward(m).tolist() for m in made] == expected
    assert counting.calls == len(made) and all(isinstance(m.wire, bytes) for m in made)
    # forwarded again, on every path and in the other numbers mode: no new encoding
    assert [table.forward(m, broadcast=[1]).tolist() for m in made] == [[i for i in e if i == 1] for e in expected]
    assert [r.tolist() for r in table.forward_batch(made, threads=1)] == expected
    assert [table.forward_encoded(table.encode_message(m)).tolist() for m in made] == expected
    assert [table.with_numbers("sff").forward(m).tolist() for m in made] == expected
    assert counting.calls == len(made)


@settings(max_examples=60, deadline=None)
@given(st.lists(filters(NAMES, max_size=4), min_size=1, max_size=6), st.lists(wire_messages, min_size=1, max_size=6),
       st.sampled_from(["strict", "sff"]))
def test_a_batch_encodes_the_messages_forward_has_not(table_filters, batch_messages, numbers):
    """Messages first seen by ``forward_batch`` are encoded there and kept;
    whichever entry sees a message first, the answers are ``cb.matches``'s."""
    predicates = {i: cb.Predicate([f]) for i, f in enumerate(table_filters)}
    table = ForwardingTable.compile(predicates, numbers=numbers)
    fresh = [Message(m.attributes) for m in batch_messages]  # no wire yet
    expected = [[i for i in sorted(predicates) if cb.matches(predicates[i], m, numbers=numbers)] for m in fresh]
    assert [r.tolist() for r in table.forward_batch(fresh, threads=1)] == expected
    assert all(m.wire == _wire.encode_attributes(m.attributes) for m in fresh)
    assert [table.forward(m).tolist() for m in fresh] == expected
