"""The bulk reader of documents (``cbalgebra.matcher._bulk``) against the
full parser: on generated SFF driver files and documents, both paths give
identical compiled tables (every packed array, the parameters, names and
strings) and forward generated messages alike, and on malformed text both
raise the same ParseError at the same line and column."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.matcher._bulk import table_columns
from cbalgebra.matcher.document import table_from_document, table_from_document_objects
from cbalgebra.parse import ParseError
from cbalgebra.values import (
    ANY,
    ANYTYPE,
    NAME_PATTERN,
    OPERATOR_SPECS,
    OPERATORS_OF_TYPE,
    TYPE_SPEC_OF,
    TYPES,
    Attribute,
    Constraint,
    Message,
    format_name,
    format_value,
)

# a few plain names, names spelled like keywords, and names that need quotes
PLAIN = ["a", "b", "price", "x.y", "s/t", "_9"]
ODD = ["int", "any", "select", "integer", "true", "from", "weird name", "é"]
NAMES = PLAIN + ODD
#: mostly plain names, which the bulk reader takes; the others send a statement to the full parser
SOME_NAME = st.one_of(st.sampled_from(PLAIN), st.sampled_from(PLAIN), st.sampled_from(PLAIN), st.sampled_from(PLAIN),
                      st.sampled_from(ODD))
STRINGS = st.sampled_from(["", "a", "ab", "abc", "b", 'q"uote', "back\\slash", "new\nline", "tab\t", "é", "\x00",
                           "; | ,", "ab\u2028"])
INTS = st.one_of(st.integers(-5, 5), st.sampled_from([2**63 - 1, -(2**63), 255]))
FLOATS = st.one_of(st.sampled_from([0.0, 0.5, -1.5, 1e-5, 2.5e300, 1 / 3]), st.floats(-10, 10, allow_nan=False))
VALUES = {"string": STRINGS, "int": INTS, "float": FLOATS, "bool": st.booleans()}
SYMBOL = {o.symbol: o for o in OPERATOR_SPECS}


@st.composite
def constraints(draw) -> Constraint:
    type_ = draw(st.sampled_from((*TYPES, ANYTYPE)))
    name = draw(SOME_NAME)
    if type_ == ANYTYPE:
        return Constraint(ANYTYPE, name, ANY)
    op = draw(st.sampled_from(sorted(OPERATORS_OF_TYPE[type_])))
    return Constraint(type_, name, op, None if op == ANY else draw(VALUES[type_]))


@st.composite
def spelled(draw, c: Constraint) -> str:
    """One of the spellings the grammar reads for ``c``."""
    name = c.name if NAME_PATTERN.fullmatch(c.name) and draw(st.booleans()) else format_name(c.name)
    spec = TYPE_SPEC_OF[c.type]
    if c.op == ANY:
        if c.type == ANYTYPE:
            return draw(st.sampled_from([f"any {name} any", f"{name} any any"]))
        return draw(st.sampled_from([f"{draw(st.sampled_from(spec.words))} {name} any", f"{name} any {spec.sff}"]))
    op = SYMBOL[c.op]
    op_text = draw(st.sampled_from([op.symbol, op.sff]))
    value = format_value(c.type, c.value)
    if c.type == "int" and c.value >= 0 and draw(st.booleans()):
        value = hex(c.value)
    typed = draw(st.booleans())
    if c.type == "float" and not typed and "." not in value and "e" not in value:
        typed = True  # an untyped 1e+300-style literal is read as written
    prefix = draw(st.sampled_from(spec.words)) + " " if typed else ""
    blank = draw(st.sampled_from(["", " ", "  "]))
    return f"{prefix}{name}{blank}{op_text}{blank}{value}"


@st.composite
def ifconfig(draw) -> str:
    interface = draw(st.integers(0, 4))
    filters = draw(st.lists(st.lists(constraints(), min_size=1, max_size=3), min_size=1, max_size=4))
    texts = []
    for f in filters:
        texts.append(draw(st.sampled_from([", ", ",", " && "])).join(draw(spelled(c)) for c in f))
    return f"ifconfig {interface} " + draw(st.sampled_from([" | ", "\n  | ", " || "])).join(texts) + ";"


@st.composite
def select(draw) -> str:
    names = draw(st.lists(st.sampled_from(["a", "b", "price", "x.y", "s/t"]), min_size=1, max_size=4, unique=True))
    attrs = []
    for n in names:
        t = draw(st.sampled_from(TYPES))
        attrs.append(f"{n} = {format_value(t, draw(VALUES[t]))}")
    return "select " + " ".join(attrs) + ";"


STATEMENTS = st.one_of(
    ifconfig(), ifconfig(), ifconfig(), select(),
    st.sampled_from(["clear;", "set preprocessing_limit = 3;", "set preprocessing_limit = 0;", "timer start;",
                     "// a comment", "ifconfig 7 false;", "set preprocessing_limit = -1;"]),
)


def _mutate(draw, text: str) -> str:
    """Break the text somewhere: a character inserted, one deleted, or the end cut."""
    if not text:
        return text
    at = draw(st.integers(0, len(text) - 1))
    how = draw(st.sampled_from(["insert", "delete", "cut"]))
    if how == "insert":
        return text[:at] + draw(st.sampled_from(list("@;,|\"=[x9 \n*"))) + text[at:]
    if how == "delete":
        return text[:at] + text[at + 1:]
    return text[:at]


@st.composite
def documents(draw) -> str:
    lines = draw(st.lists(STATEMENTS, min_size=1, max_size=6))
    if draw(st.integers(0, 19)) == 0:
        lines.append('subscribe [x > 1] || [string s >* "a"]')  # mixing is an error, located at its line
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 4)) == 0:
        text = _mutate(draw, text)
    return text


@st.composite
def messages(draw) -> Message:
    names = draw(st.lists(st.sampled_from(NAMES), max_size=5, unique=True))
    attrs = {}
    for n in names:
        t = draw(st.sampled_from(TYPES))
        attrs[n] = Attribute(t, draw(VALUES[t]))
    return Message(attrs)


def _outcome(build, text):
    try:
        return build(text), None
    except ParseError as e:
        return None, (e.line, e.column, e.reason)


def assert_same_table(bulk, reference) -> None:
    a, b = bulk._compiled, reference._compiled
    for name, x, y in zip(a.arrays._fields, a.arrays, b.arrays, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert a.params == b.params
    assert a.names == b.names and a.strings == b.strings
    assert np.array_equal(a.interfaces, b.interfaces)
    assert bulk.preprocessing_rounds == reference.preprocessing_rounds


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.lists(messages(), max_size=6))
def test_bulk_and_full_parser_give_the_same_table_or_error(text, msgs):
    bulk, bulk_error = _outcome(table_from_document, text)
    reference, reference_error = _outcome(table_from_document_objects, text)
    assert bulk_error == reference_error, text
    if reference is None:
        return
    assert_same_table(bulk, reference)
    expected = [reference.forward(m).tolist() for m in msgs]
    assert [bulk.forward(m).tolist() for m in msgs] == expected
    assert [r.tolist() for r in bulk.forward_batch(msgs)] == expected
    # no pre-processing, and the encoded fast path, forward alike
    no_rounds = bulk.with_preprocessing_rounds(0)
    assert [no_rounds.forward_encoded(bulk.encode_message(m)).tolist() for m in msgs] == expected
    assert [r.tolist() for r in no_rounds.forward_batch(msgs, threads=1)] == expected


def test_sff_workload_files_are_read_in_bulk():
    w = cb.workloads.forwarding(interfaces=5, filters_per_interface=40, messages=30, seed=4,
                                type_weights={"string": 2, "int": 1, "float": 1, "bool": 1},
                                string_op_weights={op: 1 for op in ["=", "!=", "<", ">", "<=", ">=", ">*", "*<", "*",
                                                                    "any"]},
                                int_op_weights={op: 1 for op in ["=", "!=", "<", ">", "<=", ">=", "any"]})
    text = w.sff()
    columns = table_columns(text)
    assert columns.statements["bulk"] == 5  # every ifconfig, escapes and `x any double` included
    bulk, reference = table_from_document(text), table_from_document_objects(text)
    assert_same_table(bulk, reference)
    assert [r.tolist() for r in bulk.forward_batch(w.messages)] == [reference.forward(m).tolist()
                                                                     for m in w.messages]


@pytest.mark.parametrize("text", [
    "ifconfig 1 a = 1, int = 2;",             # keyword-spelled name: the full parser
    "ifconfig 1 a = 1 /* c */, b = 2;",       # a comment inside: the full parser
    "ifconfig 1 float a = 1;",                # a type word converting a literal: the full parser
    "ifconfig 0x10 a = 1;",                   # hex interface: the full parser
    "ifconfig 1 a = 1;\nifconfig 1 a = 1 | a = 1, a = 1;",  # duplicate filters and constraints
    "ifconfig 1 a = 1;\nclear;\nifconfig 2 b = 2;",
])
def test_literal_documents(text):
    assert_same_table(table_from_document(text), table_from_document_objects(text))


@pytest.mark.parametrize("text", [
    "ifconfig 1 a = 1, b = ;",
    "ifconfig 1 a = 99999999999999999999;",
    'ifconfig 1 a = "\\q";',
    "ifconfig 1 a = 1;\nsubscribe [x = 1]",
    "ifconfig 1 a = 1;\nset preprocessing_limit = -1;\nselect a = ;",
    "ifconfig 1 x any;",
    "ifconfig 1 int x any integer;",
    "ifconfig 1 a = 1; @",
])
def test_malformed_documents_raise_the_full_parsers_error(text):
    with pytest.raises(ParseError) as bulk:
        table_from_document(text)
    with pytest.raises(ParseError) as reference:
        table_from_document_objects(text)
    assert (bulk.value.line, bulk.value.column, bulk.value.reason) == (
        reference.value.line, reference.value.column, reference.value.reason)


def test_keyword_names_are_not_mistaken():
    # `integer` after `any` is SFF's type word; before a name it is ours
    t = table_from_document("ifconfig 1 x any integer, integer y any, any z any;")
    assert t.forward(cb.parse_message("[x = 1, y = 2, z = true]")).tolist() == [1]
    assert t.forward(cb.parse_message("[x = 1, y = 2.0, z = true]")).tolist() == []


# ------------------------------------------- issue 23: big interfaces, comments
def test_an_interface_of_12001_filters_round_trips_on_every_path():
    """Our own SFF file of an interface beyond 10,000 filters (the paper's
    I = 20 table has 12,500 per interface) reads back on the grammar, the
    fast scanner and the bulk reader, to the same predicate and table."""
    import io

    from cbalgebra import parse as parse_module
    from cbalgebra.matcher import ForwardingTable
    from cbalgebra.workloads._forwarding import write_sff_document

    big = cb.Predicate(cb.Filter([Constraint("int", "x", "=", i), Constraint("string", "s", "=", f"v{i % 7}")])
                       for i in range(12_001))
    small = cb.Predicate([cb.Filter([Constraint("int", "x", ">", 5)])])
    buf = io.StringIO()
    write_sff_document(buf, {1: big, 2: small})
    text = buf.getvalue()
    assert text.count("ifconfig") == 2  # the natural form: one statement per interface
    fast = cb.parse_document(text)
    assert [(i.interface, i.value) for i in fast] == [(1, big), (2, small)]
    assert parse_module._run(text, "document") == fast
    assert table_columns(text).statements == {"bulk": 2, "full": 0}
    reference = ForwardingTable.compile({1: big, 2: small})
    assert_same_table(ForwardingTable.from_document(text), reference)
    assert_same_table(table_from_document_objects(text), reference)


@pytest.mark.parametrize("text", [
    "ifconfig 1 x = 1 | // y = 2;\nifconfig 2 x = 5;\nselect y = 1;\n",
    "ifconfig 1 x = 1, // y = 2;\nifconfig 2 x = 5;\nselect y = 1;\n",
    "ifconfig 1 x = 1 | # y = 2;\nifconfig 2 x = 5;\n",
    "ifconfig 1 x = 1 || /* y = 2; */\nifconfig 2 x = 5;\n",
])
def test_a_commented_out_last_alternative_is_an_error(text):
    """Not an empty filter that matches every message (issue 23 §2)."""
    with pytest.raises(ParseError):
        table_from_document(text)
    with pytest.raises(ParseError):
        table_from_document_objects(text)
