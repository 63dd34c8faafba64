"""Literals: huge, tiny, non-ASCII and hexadecimal numbers.

Every bad literal is a located ParseError on both parse paths, never an
OverflowError or ValueError from Python's int() or float().
"""

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra import parse as parse_module
from cbalgebra.values import INT_MAX, INT_MIN

C = cb.Constraint


def _both(text):
    """Filter results of the fast path and of the grammar alone."""
    return [cb.parse_filter, lambda t: cb.Filter(
        parse_module._single_term(parse_module._run(t, "predicate_text"), "a filter"))]


def _errors_at(parse, text, reason, line, column):
    with pytest.raises(cb.ParseError) as info:
        parse(text)
    e = info.value
    assert reason in e.reason, e.reason
    assert (e.line, e.column) == (line, column)


FILTER_ERRORS = [
    ("f = 1" + "0" * 400 + ".0", "float literal out of range", 1, 5),
    ("f = 0." + "0" * 400 + "1", "float literal out of range", 1, 5),
    ("f = 1e400", "float literal out of range", 1, 5),
    ("f = -1e400", "float literal out of range", 1, 5),
    ("f = 1e-400", "would round to 0", 1, 5),
    ("f = -2e-324", "would round to 0", 1, 5),
    ("f = 1e999999999999999999999", "float literal out of range", 1, 5),
    ("x = " + "9" * 5000, "int literal out of range", 1, 5),
    ("x = -" + "9" * 5000, "int literal out of range", 1, 5),
    ("x = 9223372036854775808", "int literal out of 64-bit range", 1, 5),
    ("x = -9223372036854775809", "int literal out of 64-bit range", 1, 5),
    ("float f = " + "9" * 5000, "int literal out of range", 1, 11),
    ("float f = 1" + "0" * 320, "out of range for a float", 1, 11),
    ("x = 0x8000000000000000", "int literal out of 64-bit range", 1, 5),
    ("x = 0x" + "f" * 5000, "int literal out of range", 1, 5),
    ("x = \uff13", "unexpected character", 1, 5),  # a FULLWIDTH DIGIT THREE
    ("x = ٣٤", "unexpected character", 1, 5),
    ("x = 1٣", "unexpected character", 1, 6),
]


@pytest.mark.parametrize("text, reason, line, column", FILTER_ERRORS)
def test_bad_literals_are_located_parse_errors(text, reason, line, column):
    for parse in _both(text):
        _errors_at(parse, text, reason, line, column)
    _errors_at(cb.parse_message, text.replace("float f", "float f").join("[]"), reason, line, column + 1)


def test_huge_literals_in_documents():
    _errors_at(cb.parse_document, "ifconfig " + "9" * 5000 + " x = 1;", "interface number out of range", 1, 10)
    _errors_at(cb.parse_document, "ifconfig 4294967296 x = 1;", "from 0 to 4294967295", 1, 10)
    _errors_at(cb.parse_document, "subscribe y = 2\nifconfig -1 x = 1;", "interface number out of range", 2, 10)
    _errors_at(cb.parse_document, "set preprocessing_limit = " + "9" * 5000 + ";", "int literal out of range", 1, 27)
    _errors_at(cb.parse_document, "set preprocessing_limit = 1e-400;", "would round to 0", 1, 27)
    _errors_at(cb.parse_document, "select x = 1e400;", "float literal out of range", 1, 12)
    assert cb.parse_document("ifconfig 4294967295 x = 1;")[0].interface == 2**32 - 1
    assert cb.parse_document("ifconfig 0xffffffff x = 1;")[0].interface == 2**32 - 1


@pytest.mark.parametrize("text, value", [
    ("f = 5e-324", 5e-324),
    ("f = 3e-324", 5e-324),           # rounds to the smallest subnormal: fine
    ("f = 1e-310", 1e-310),
    ("f = 0e-400", 0.0),               # zero is exact
    ("f = 0.000e999", 0.0),
    ("f = -0.0", 0.0),
    ("f = 1.7976931348623157e308", sys.float_info.max),
    ("f = 1" + "0" * 300 + ".0", 1e300),
])
def test_float_edges(text, value):
    for parse in _both(text):
        assert parse(text) == cb.Filter([C("float", "f", "=", value)])


@pytest.mark.parametrize("text, value", [
    ("x = 0xffffffff", 0xFFFFFFFF),
    ("x = 0XFF", 255),
    ("x = -0x10", -16),
    ("x = +0x10", 16),
    ("x = 0x7fffffffffffffff", INT_MAX),
    ("x = -0x8000000000000000", INT_MIN),
    ("x = 000123", 123),
    ("x = 0x0", 0),
])
def test_hexadecimal_and_padded_ints(text, value):
    for parse in _both(text):
        f = parse(text)
        assert f == cb.Filter([C("int", "x", "=", value)])
        assert str(f) == f"[int x = {value}]"  # canonical form is decimal
    if int(float(value)) == value:
        assert cb.parse_filter(f"float {text}") == cb.Filter([C("float", "x", "=", float(value))])
    else:
        with pytest.raises(cb.ParseError, match="not exactly representable"):
            cb.parse_filter(f"float {text}")
    assert cb.parse_message(f"[{text}]")["x"].value == value
    doc = cb.parse_document(f"select {text};\nifconfig 1 {text};")
    assert doc[0].value["x"].value == value and doc[1].value.filters[0].constraints[0].value == value


@given(st.integers(INT_MIN, INT_MAX))
def test_hex_reads_every_int(n):
    text = f"x = {'-' if n < 0 else ''}0x{abs(n):x}"
    assert cb.parse_filter(text) == cb.Filter([C("int", "x", "=", n)])


@given(st.text(st.characters(categories=("Nd",)), min_size=1, max_size=4).filter(lambda s: not s.isascii()))
def test_non_ascii_digits_are_rejected(digits):
    for parse in (cb.parse_filter, cb.parse_predicate, cb.parse_message):
        with pytest.raises(cb.ParseError):
            parse(f"x = {digits}")
    with pytest.raises(cb.ParseError):
        cb.parse_document(f"ifconfig {digits} x = 1;")
