"""SFF interop, both ways.

1. What we write in SFF's driver language is accepted by SFF 2.x's parser
   (``sff_oracle``, re-stated from its scanner and grammar) and means the
   same to SFF and to ``cbalgebra.parse_document``, and the same as what was
   written (exactly for the operators SFF has, equivalently for <= and >=).
2. ``numbers="sff"``: forwarding equals the naive ``cb.matches(...,
   numbers="sff")`` loop, and strict stays strict.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable, read_document
from cbalgebra.values import ANY, ANYTYPE, FLOAT, INT, INT_MAX, INT_MIN, OPERATORS_OF_TYPE, STRING, TYPES
from cbalgebra.values import Attribute, Constraint, Filter, InvalidValueError, Message, Predicate
from cbalgebra.workloads._forwarding import sff_float, sff_string, write_sff_document

import sff_oracle
import strategies as S

F = cb.parse_filter
P = cb.parse_predicate
M = cb.parse_message

SFF_TYPE = {"string": "string", "int": "integer", "float": "double", "bool": "boolean", "any": "any"}
SFF_OP = {">*": "=*", "*<": "*=", "*": "**"}


# ------------------------------------------------- both parsers, one meaning
def _ours_as_sff(c: Constraint) -> tuple:
    """Our constraint in the oracle's terms (only for operators SFF has)."""
    value = c.value.encode("utf-8") if c.type == STRING and c.value is not None else c.value
    if c.op == ANY:
        return (c.name.encode("utf-8"), "any", SFF_TYPE[c.type], None)
    return (c.name.encode("utf-8"), SFF_OP.get(c.op, c.op), SFF_TYPE[c.type], value)


def _attr_as_sff(name: str, a: Attribute) -> tuple:
    value = a.value.encode("utf-8") if a.type == STRING else a.value
    return (name.encode("utf-8"), SFF_TYPE[a.type], value)


def _key(t: tuple) -> tuple:
    # floats compare by bits (-0.0 and 0.0 are distinct spellings to strtod)
    return tuple((x.hex() if isinstance(x, float) else x) for x in t)


def assert_sff_reads_like_us(text: str) -> list:
    """SFF's grammar accepts ``text`` and reads every statement as our parser does."""
    theirs = sff_oracle.parse(text)
    ours = cb.parse_document(text)
    assert [s.kind for s in theirs] == [i.kind if i.kind != "command" else i.value[0] for i in ours]
    for s, item in zip(theirs, ours, strict=True):
        if s.kind == "ifconfig":
            assert s.interface == item.interface
            assert {frozenset(map(_key, f)) for f in s.filters} == \
                {frozenset(_key(_ours_as_sff(c)) for c in f) for f in item.value.filters}
        elif s.kind == "select":
            assert sorted(_key(a) for a in s.attributes) == \
                sorted(_key(_attr_as_sff(n, a)) for n, a in item.value.attributes)
        elif s.kind == "set":
            assert s.setting == (item.value[1], item.value[-1])
    # floats are written with a point, types with SFF's words
    for tok in sff_oracle.tokens(text):
        if tok.kind == "DOUBLE":
            assert "." in tok.text
    return theirs


def _native(c: Constraint) -> bool:
    return c.op not in ("<=", ">=")


sff_constraints = S.constraints(S.names).filter(_native)
sff_filters = st.lists(sff_constraints, min_size=1, max_size=4).map(Filter)
sff_predicates = st.lists(sff_filters, min_size=1, max_size=3).map(Predicate)
sff_messages = st.dictionaries(S.names, S.attributes(), min_size=1, max_size=5).map(Message)


def _writable(s: str) -> bool:
    return not any(ch == "\0" and s[i + 1:i + 2] and s[i + 1] in "01234567xX" for i, ch in enumerate(s))


def _all_writable(table, messages) -> bool:
    texts = [c.name for p in table.values() for f in p.filters for c in f.constraints]
    texts += [c.value for p in table.values() for f in p.filters for c in f.constraints if c.type == STRING
              and c.value is not None]
    for m in messages:
        texts += [n for n, _ in m.attributes] + [a.value for _, a in m.attributes if a.type == STRING]
    return all(_writable(t) for t in texts)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(table=st.dictionaries(st.integers(0, 2**31), sff_predicates, max_size=4),
       messages=st.lists(sff_messages, max_size=4), limit=st.none() | st.integers(0, 100))
def test_written_documents_round_trip_and_sff_accepts_them(table, messages, limit):
    if not _all_writable(table, messages):
        return  # covered by test_unwritable_strings_are_refused
    buf = io.StringIO()
    write_sff_document(buf, table, messages, preprocessing_limit=limit, comment="generated")
    text = buf.getvalue()
    stmts = assert_sff_reads_like_us(text)
    doc = read_document(text)
    assert doc.predicates == table
    assert doc.messages == messages
    assert doc.preprocessing_limit == limit
    assert sum(s.kind == "ifconfig" for s in stmts) == len(table)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(table=st.dictionaries(st.integers(0, 20), S.dense_predicates(max_filters=3, max_size=3).filter(
    lambda p: all(f.constraints for f in p.filters)), max_size=3))
def test_le_ge_are_written_as_equivalent_sff(table):
    # SFF has no <= or >=: x <= v becomes x < succ(v), x >= v becomes x > pred(v)
    # (strings: two filters); the result must be equivalent, not just similar
    buf = io.StringIO()
    write_sff_document(buf, table)
    text = buf.getvalue()
    assert_sff_reads_like_us(text)
    back = read_document(text).predicates
    assert set(back) == {i for i, p in table.items() if p.filters}
    for i, p in back.items():
        assert cb.covers(p, table[i]) and cb.covers(table[i], p), (table[i], p)


@pytest.mark.parametrize("c, written", [
    (Constraint(INT, "x", "<=", 5), "x < 6"),
    (Constraint(INT, "x", ">=", 5), "x > 4"),
    (Constraint(INT, "x", "<=", INT_MAX), "x any integer"),
    (Constraint(INT, "x", ">=", INT_MIN), "x any integer"),
    (Constraint(FLOAT, "x", "<=", 1.0), "x < 1.0000000000000002"),
    (Constraint(FLOAT, "x", ">=", 0.0), "x > -5.0e-324"),
    (Constraint(FLOAT, "x", "<=", 1.7976931348623157e308), "x any double"),
    (Constraint(STRING, "x", "<=", "ab"), 'x < "ab\\0"'),
    (Constraint(STRING, "x", ">=", "ab"), 'x = "ab" | x > "ab"'),
    (Constraint(FLOAT, "any", "=", 1e-05), '"any" = 1.0e-05'),
    (Constraint(INT, "n", ANY), "n any integer"),
    (Constraint(FLOAT, "n", ANY), "n any double"),
    (Constraint("bool", "n", ANY), "n any boolean"),
    (Constraint(STRING, "n", ANY), "n any string"),
    (Constraint(ANYTYPE, "n", ANY), "n any any"),
    (Constraint(STRING, "device-type", ">*", "a\"b\\c\nd"), 'device-type =* "a\\"b\\\\c\\nd"'),
])
def test_constraint_spellings(c, written):
    buf = io.StringIO()
    write_sff_document(buf, {1: Filter([c])})
    assert buf.getvalue() == f"ifconfig 1 {written.replace(' | ', chr(10) + '  | ')};\n"
    assert_sff_reads_like_us(buf.getvalue())


@pytest.mark.parametrize("x", [1e-05, 1e16, 5e-324, -1.5e300, 0.1, 123456789.0, 1.7976931348623157e308, -0.0])
def test_floats_have_a_point_and_round_trip(x):
    text = sff_float(x)
    assert "." in text and float(text) == x and math.copysign(1, float(text)) == math.copysign(1, x)
    assert sff_oracle.tokens(text)[0].kind == "DOUBLE"


@pytest.mark.parametrize("s", ["", "plain", "é ∀ 😀", 'q"uote', "back\\slash", "\0", "a\0b", "tab\tcr\r", "\x01\x7f"])
def test_strings_decode_alike(s):
    token = sff_oracle.tokens(sff_string(s))[0]
    assert token.kind == "STR" and token.value == s.encode("utf-8")
    assert cb.parse_message(f"[x = {sff_string(s)}]")["x"].value == s


@pytest.mark.parametrize("s", ["\x001", "\x00x4", "a\x007"])
def test_unwritable_strings_are_refused(s):
    # SFF reads "\0" + digit (or "\0x" + hex digit) as one longer escape; raw NUL it drops
    with pytest.raises(ValueError, match="U\\+0000"):
        sff_string(s)


def test_empty_things_are_refused_and_empty_predicates_left_out():
    with pytest.raises(ValueError, match="empty filter"):
        write_sff_document(io.StringIO(), {1: Predicate([Filter()])})
    with pytest.raises(ValueError, match="no attributes"):
        write_sff_document(io.StringIO(), {}, [Message()])
    buf = io.StringIO()
    write_sff_document(buf, {1: Predicate(), 2: F("x = 1")})
    assert buf.getvalue() == "ifconfig 2 x = 1;\n"


def test_preprocessing_limit_comes_after_the_table():
    w = cb.workloads.forwarding(interfaces=3, filters_per_interface=2, messages=2, seed=1)
    text = w.sff(preprocessing_limit=7)
    lines = text.splitlines()
    where = lines.index("set preprocessing_limit = 7;")
    assert all(not ln.startswith("select") for ln in lines[:where])
    assert any(ln.startswith("ifconfig") for ln in lines[:where])
    assert_sff_reads_like_us(text)
    # messages only: the limit goes first (SFF applies it to a table configured earlier in the stream)
    only = w.sff(table=False, preprocessing_limit=7).splitlines()
    assert only[1] == "set preprocessing_limit = 7;" and only[2].startswith("select")


@pytest.mark.parametrize("seed", range(4))
def test_workload_files_are_sff(seed):
    # every type and operator the generator can draw, <= and >= included
    w = cb.workloads.forwarding(
        interfaces=5, filters_per_interface=(1, 12), messages=60, seed=seed,
        type_weights={"string": 2, "int": 2, "float": 1, "bool": 1},
        string_op_weights={op: 1 for op in ("=", "!=", "<", ">", "<=", ">=", "prefix", "suffix", "substring", "any")},
        int_op_weights={op: 1 for op in ("=", "!=", "<", ">", "<=", ">=", "any")},
        float_op_weights={op: 1 for op in ("=", "!=", "<", ">", "<=", ">=", "any")},
        bool_op_weights={"=": 1, "!=": 1, "any": 1})
    text = w.sff(preprocessing_limit=3)
    assert_sff_reads_like_us(text)
    doc = read_document(text)
    assert doc.messages == w.messages
    preds = w.predicates()
    for m in w.messages:
        for i, p in preds.items():
            assert cb.matches(doc.predicates.get(i, Predicate()), m) == cb.matches(p, m)


# ------------------------------------------------------------ numbers="sff"
EDGE_INTS = [0, 1, 2, 3, -1, -3, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**53, 2**53 + 1, -(2**53) - 1,
             INT_MAX, INT_MIN]
EDGE_FLOATS = [0.0, -0.0, 0.5, 2.5, 3.0, -3.0, 2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0,
               9007199254740992.0, 9223372036854775808.0, -9223372036854775808.0, 1e300, -1e300, 5e-324,
               1.7976931348623157e308]
mixed_ints = st.sampled_from(EDGE_INTS) | st.integers(-5, 5)
mixed_floats = st.sampled_from(EDGE_FLOATS) | st.integers(-5, 5).map(lambda k: k / 2)
mixed_names = st.sampled_from(["x", "y", "z"])


@st.composite
def mixed_constraints(draw) -> Constraint:
    roll = draw(st.integers(0, 19))
    name = draw(mixed_names)
    if roll == 0:
        return Constraint(ANYTYPE, name, ANY)
    type_ = draw(st.sampled_from((INT, FLOAT))) if roll > 2 else draw(st.sampled_from(TYPES))
    op = draw(st.sampled_from(sorted(OPERATORS_OF_TYPE[type_])))
    if op == ANY:
        return Constraint(type_, name, op)
    value = {INT: mixed_ints, FLOAT: mixed_floats}.get(type_)
    value = draw(value) if value is not None else draw(S.value_of(type_, dense=True))
    return Constraint(type_, name, op, value)


@st.composite
def mixed_attributes(draw) -> Attribute:
    type_ = draw(st.sampled_from((INT, FLOAT, INT, FLOAT, STRING, "bool")))
    if type_ == INT:
        return Attribute(INT, draw(mixed_ints))
    if type_ == FLOAT:
        return Attribute(FLOAT, draw(mixed_floats))
    return Attribute(type_, draw(S.value_of(type_, dense=True)))


mixed_tables = st.dictionaries(
    st.integers(0, 30), st.lists(st.lists(mixed_constraints(), max_size=3).map(Filter), max_size=3).map(Predicate),
    max_size=6)
mixed_messages = st.lists(st.dictionaries(mixed_names, mixed_attributes(), max_size=3).map(Message), min_size=1,
                          max_size=40)


def naive(table, message, numbers):
    return [i for i in sorted(table) if cb.matches(table[i], message, numbers=numbers)]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(table=mixed_tables, messages=mixed_messages)
def test_sff_numbers_forwarding_equals_naive(table, messages):
    for numbers in ("sff", "strict"):
        expected = [naive(table, m, numbers) for m in messages]
        for rounds in (0, 10):
            t = ForwardingTable.compile(table, preprocessing_rounds=rounds, numbers=numbers)
            assert t.numbers == numbers
            assert [r.tolist() for r in t.forward_batch(messages)] == expected
            assert [t.forward(m).tolist() for m in messages] == expected
            assert [r.tolist() for r in t.forward_batch(messages, threads=1)] == expected


@pytest.mark.parametrize("constraint, value, expected", [
    ("int x > 2", 2.5, False),            # a non-integral double never meets int constraints
    ("int x > 2", 3.0, True),             # an integral one does, as an int
    ("int x != 3", 3.5, False),
    ("int x != 3", 4.0, True),
    ("int x = 0", -0.0, True),
    ("int x = 2147483647", 2147483647.0, True),
    ("int x = -2147483648", -2147483648.0, True),
    ("int x = 2147483648", 2147483648.0, False),   # beyond C++ int: SFF's x == int(x) fails
    ("int x any", 1.0, True),
    ("int x any", 1.5, False),
    ("int x any", 4294967296.0, False),
    ("float x > 2.5", 3, True),           # an int meets double constraints as a double
    ("float x = 2.0", 2, True),
    ("float x != 2.0", 2, False),
    ("float x = 9007199254740992.0", 2**53 + 1, True),   # the nearest double
    ("float x < 9223372036854775808.0", INT_MAX, False),  # INT_MAX rounds up to 2**63
    ("float x any", INT_MIN, True),
    ("bool x = true", 1, False),
    ("string x = \"1\"", 1, False),
])
def test_sff_rule(constraint, value, expected):
    c = F(constraint)
    m = Message({"x": Attribute(FLOAT if isinstance(value, float) else INT, value)})
    assert cb.matches(c, m, numbers="sff") == expected
    if c.constraints[0].type != m["x"].type:
        assert not cb.matches(c, m)  # strict: a type mismatch never matches
    for rounds in (0, 10):
        t = ForwardingTable.compile({7: c}, preprocessing_rounds=rounds, numbers="sff")
        assert t.forward(m).tolist() == ([7] if expected else [])
        assert t.with_numbers("strict").forward(m).tolist() == ([7] if cb.matches(c, m) else [])


def test_converted_number_does_not_count_type_any_twice():
    # the converted row of x must not count `any x any` a second time
    table = {1: F("any x any && y = 1"), 2: F("any x any && float x > 0.5"), 3: F("any x any && int x > 0")}
    for m, e in [(M("[x = 3]"), [2, 3]), (M("[x = 3.0]"), [2, 3]), (M("[x = 3.5]"), [2]), (M("[y = 1]"), [])]:
        for rounds in (0, 10):
            t = ForwardingTable.compile(table, preprocessing_rounds=rounds, numbers="sff")
            assert t.forward(m).tolist() == e == naive(table, m, "sff")


def test_typed_determinant_admits_converted_numbers():
    # every filter of interface 1 constrains (x, int): the selectivity table
    # must not exclude it for a message with x = 4.0 under numbers="sff"
    table = {1: P("int x > 3 || int x < -3"), 2: P("float y > 0.5")}
    t = ForwardingTable.compile(table, preprocessing_rounds=10, numbers="sff")
    assert t.selectivity_table()[0][1] in ("int", "float")
    assert t.forward(M("[x = 4.0, y = 1]")).tolist() == [1, 2]
    assert t.with_numbers("strict").forward(M("[x = 4.0, y = 1]")).tolist() == []


def test_numbers_argument_everywhere(tmp_path):
    text = "ifconfig 1 x > 2;\nselect x = 3.0;\n"
    assert ForwardingTable.from_document(text, numbers="sff").forward(M("[x = 3.0]")).tolist() == [1]
    assert ForwardingTable.from_document(text).forward(M("[x = 3.0]")).tolist() == []
    w = cb.workloads.forwarding(interfaces=4, filters_per_interface=5, messages=30, seed=2,
                                type_weights={"int": 1, "float": 1})
    t = w.table(numbers="sff")
    assert t.numbers == "sff" and t.with_preprocessing_rounds(0).numbers == "sff"
    preds = w.predicates()
    assert [r.tolist() for r in t.forward_batch(w.messages)] == [naive(preds, m, "sff") for m in w.messages]
    batch = t.encode(w.messages)
    with pytest.raises(ValueError, match="numbers='sff'"):
        t.with_numbers("strict").forward_batch(batch)
    for bad in ("SFF", "loose", None):
        with pytest.raises(ValueError, match="numbers must be"):
            ForwardingTable.compile({}, numbers=bad)
        with pytest.raises(ValueError, match="numbers must be"):
            cb.matches(F("x = 1"), M("[x = 1]"), numbers=bad)


def test_messages_cannot_carry_nan_or_inf():
    # so SFF's NaN and infinity cases cannot arise from our messages
    for x in (math.nan, math.inf, -math.inf):
        with pytest.raises(InvalidValueError):
            Attribute(FLOAT, x)


def test_covering_stays_strict():
    # under numbers="sff" every message `int x > 2` matches also matches
    # `float x > 1.5`; covering ignores that, by design
    msgs = [M("[x = 3]"), M("[x = 3.0]"), M("[x = 7]")]
    assert all(cb.matches(F("x > 1.5"), m, numbers="sff") for m in msgs if cb.matches(F("x > 2"), m, numbers="sff"))
    assert not cb.covers(F("x > 1.5"), F("x > 2"))


def test_strict_default_kernel_unchanged_on_mixed_messages():
    table = {1: P("x > 2"), 2: P("x > 2.5"), 3: P("any x any && int x any")}
    msgs = [M("[x = 3]"), M("[x = 3.0]"), M("[x = 2.5]")]
    t = ForwardingTable.compile(table)
    assert t.numbers == "strict"
    assert [r.tolist() for r in t.forward_batch(msgs)] == [[1, 3], [2], []]
    assert np.array_equal(t.forward(msgs[0]), np.array([1, 3]))
