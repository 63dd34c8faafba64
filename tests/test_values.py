"""Values: immutable, hashable, canonical, printed in the grammar's syntax."""

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import advertisements, constraints, filters, messages, predicates

import cbalgebra as cb
from cbalgebra.values import Attribute, Constraint, Filter, InvalidValueError, Message, Predicate


def c(type_, name, op, value=None):
    return Constraint(type_, name, op, value)


def test_filter_is_a_set_in_canonical_order():
    a, b = c("int", "x", ">", 1), c("string", "s", "=", "a")
    f1, f2 = Filter([a, b]), Filter([b, a, b])
    assert f1 == f2 and hash(f1) == hash(f2)
    assert list(f1) == sorted([a, b])
    assert len(f2) == 2


def test_predicate_is_a_set_of_filters():
    f, g = Filter([c("int", "x", ">", 1)]), Filter([c("int", "y", "<", 2)])
    assert Predicate([f, g]) == Predicate([g, f, g])
    assert Predicate([f, g]).size == 2
    assert str(Predicate()) == "false" and str(Filter()) == "[]"


def test_message_is_a_read_only_mapping():
    m = Message({"price": 300, "carrier": "UA", "upgradeable": True, "ratio": 0.5})
    assert m["price"] == Attribute("int", 300)
    assert m["upgradeable"].type == "bool" and m["ratio"].type == "float"
    assert list(m) == sorted(m)
    with pytest.raises(TypeError):
        m["price"] = 1  # type: ignore[index]  # on purpose: a Message is immutable, assigning must raise
    assert Message({"a": 1, "b": "x"}) == Message([("b", "x"), ("a", 1)])


@pytest.mark.parametrize("value", [Filter(), Predicate(), Message({}), c("int", "x", "=", 1)])
def test_values_are_frozen(value):
    field = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, None)


@pytest.mark.parametrize(
    "args, reason",
    [
        (("int", "x", "=", 2**63), "out of 64-bit range"),
        (("int", "x", ">*", 1), "operator prefix does not apply to int"),
        (("bool", "b", "<", True), "operator less-than does not apply to bool"),
        (("float", "f", "=", float("nan")), "must be finite"),
        (("int", "x", "=", "1"), "is not an int"),
        (("int", "x", "=", True), "is not an int"),
        (("string", "", "=", "a"), "non-empty"),
        (("int", "x", "~", 1), "unknown operator"),
        (("time", "x", "=", 1), "unknown type"),
        (("int", "x", "any", 3), "takes no value"),
        (("string", "s", "=", "\ud800"), "surrogate"),
    ],
)
def test_invalid_constraints_are_rejected_by_name(args, reason):
    with pytest.raises(InvalidValueError, match=reason):
        Constraint(*args)


def test_negative_zero_is_zero():
    assert c("float", "f", "=", -0.0) == c("float", "f", "=", 0.0)
    assert str(c("float", "f", "=", -0.0)) == "float f = 0.0"


def test_duplicate_message_attribute_is_rejected():
    with pytest.raises(InvalidValueError, match="duplicate attribute 'a'"):
        Message([("a", 1), ("a", 2)])


@given(predicates())
def test_pickle_round_trip_rebuilds_hashes(p):
    q = pickle.loads(pickle.dumps(p))
    assert q == p and hash(q) == hash(p)


@pytest.mark.parametrize("values, parse", [
    (constraints(), cb.parse_constraint),
    (filters(), cb.parse_filter),
    (predicates(), cb.parse_predicate),
    (advertisements(), cb.parse_advertisement),
    (messages(), cb.parse_message),
], ids=["constraint", "filter", "predicate", "advertisement", "message"])
@given(data=st.data())
def test_round_trip(values, parse, data):
    """``str()`` prints the one canonical spelling, which the parser reads back as the same value."""
    x = data.draw(values)
    assert parse(str(x)) == x


@given(predicates())
def test_equal_predicates_hash_equal_whatever_the_order(p):
    shuffled = Predicate(reversed([Filter(reversed(list(f))) for f in p]))
    assert shuffled == p and hash(shuffled) == hash(p) and str(shuffled) == str(p)


def test_repr_shows_structure():
    assert repr(c("int", "x", ">", 1)) == "Constraint('int', 'x', '>', 1)"
    assert "Filter(" in repr(Filter([c("int", "x", ">", 1)]))
