"""The argument readers every command shares (``cbalgebra.clibase``): lists
of ids, bounded numbers, and a parse error located in a named file."""

from __future__ import annotations

import argparse
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cbalgebra.clibase import UsageError, in_file, int_list, number_argument
from cbalgebra.parse import ParseError, parse_predicate


@given(st.lists(st.integers(), max_size=20), st.sampled_from(["", " ", "  "]), st.booleans())
def test_int_list_reads_back_what_was_joined(values, pad, trailing_comma):
    text = ",".join(f"{pad}{v}{pad}" for v in values) + ("," if trailing_comma else "")
    assert int_list(text, "--senders") == values


@given(st.text(alphabet="0123456789x.-", min_size=1, max_size=6).filter(lambda s: not s.lstrip("-").isdigit()))
def test_int_list_names_the_option_and_the_bad_item(part):
    with pytest.raises(UsageError) as caught:
        int_list(f"1,{part},3", "--broadcast", "an interface id")
    assert str(caught.value) == f"--broadcast: {part.strip()!r} is not an interface id"


def test_int_list_may_refuse_an_empty_list():
    assert int_list(" , ", "--sizes") == []
    with pytest.raises(UsageError, match="--sizes: empty list"):
        int_list(" , ", "--sizes", allow_empty=False)


@given(st.integers(-10**6, 10**6))
def test_an_int_at_least_a_bound(value):
    parse = number_argument(int, least=0, must="non-negative")
    if value >= 0:
        assert parse(str(value)) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError, match=f"'{value}' must be non-negative"):
            parse(str(value))


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_float_above_a_bound_and_finite(value):
    parse = number_argument(float, above=0, must="a positive number")
    if value > 0 and math.isfinite(value):
        assert parse(repr(value)) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError, match="must be a positive number"):
            parse(repr(value))


def test_a_number_that_is_not_one():
    with pytest.raises(argparse.ArgumentTypeError, match=r"'1\.5' is not an integer"):
        number_argument(int, least=0, must=">= 0")("1.5")
    with pytest.raises(argparse.ArgumentTypeError, match="'x' is not a number"):
        number_argument(float, least=1, must="at least 1 second")("x")


def test_in_file_names_the_file_and_keeps_the_caret():
    with pytest.raises(ParseError) as caught:
        parse_predicate("[int x = ]")
    e = caught.value
    located = in_file(e, "preds.txt")
    assert str(located) == f"preds.txt: {e}"  # ParseError's own text: "line L, column C: reason\n" + caret
    assert str(in_file(e, "preds.txt", caret=False)) == f"preds.txt: line {e.line}, column {e.column}: {e.reason}"
