"""Hypothesis strategies for the values of cbalgebra.

Two families:

- *arbitrary* values, for round trips and fuzzing: any name, any string,
  the whole int64 range, any finite double;
- *dense* values, for covering: a few names, constants close to each other
  and to the edges of each domain, so that interesting relations (covering,
  adjacency, holes, empty intervals) come up often.
"""

from __future__ import annotations

import math
import sys

from hypothesis import strategies as st

from cbalgebra.values import ANY, ANYTYPE, BOOL, FLOAT, INT, INT_MAX, INT_MIN, OPERATORS_OF_TYPE, STRING, TYPES
from cbalgebra.values import Advertisement, Attribute, Constraint, Filter, Message, Predicate

# ------------------------------------------------------------ arbitrary
names = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12)
plain_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-.]{0,8}", fullmatch=True)
strings = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
ints = st.integers(INT_MIN, INT_MAX)
floats = st.floats(allow_nan=False, allow_infinity=False)


def value_of(type_: str, dense: bool = False) -> st.SearchStrategy:
    if dense:
        return {STRING: dense_strings, INT: dense_ints, FLOAT: dense_floats, BOOL: st.booleans()}[type_]
    return {STRING: strings, INT: ints, FLOAT: floats, BOOL: st.booleans()}[type_]


@st.composite
def constraints(draw, name_strategy=names, dense: bool = False, allow_anytype: bool = True) -> Constraint:
    type_ = draw(st.sampled_from(TYPES + ((ANYTYPE,) if allow_anytype else ())))
    if type_ == ANYTYPE:
        return Constraint(ANYTYPE, draw(name_strategy), ANY)
    op = draw(st.sampled_from(sorted(OPERATORS_OF_TYPE[type_])))
    value = None if op == ANY else draw(value_of(type_, dense))
    return Constraint(type_, draw(name_strategy), op, value)


def filters(name_strategy=names, dense: bool = False, max_size: int = 5, **kw) -> st.SearchStrategy:
    return st.lists(constraints(name_strategy, dense, **kw), max_size=max_size).map(Filter)


def predicates(name_strategy=names, dense: bool = False, max_filters: int = 4, max_size: int = 4,
               **kw) -> st.SearchStrategy:
    return st.lists(filters(name_strategy, dense, max_size, **kw), max_size=max_filters).map(Predicate)


def advertisements(name_strategy=names, dense: bool = False, max_size: int = 5, **kw) -> st.SearchStrategy:
    return st.lists(constraints(name_strategy, dense, **kw), max_size=max_size).map(Advertisement)


@st.composite
def attributes(draw, dense: bool = False) -> Attribute:
    type_ = draw(st.sampled_from(TYPES))
    return Attribute(type_, draw(value_of(type_, dense)))


def messages(name_strategy=names, dense: bool = False, max_size: int = 6) -> st.SearchStrategy:
    return st.dictionaries(name_strategy, attributes(dense), max_size=max_size).map(Message)


# ----------------------------------------------------------------- dense
dense_names = st.sampled_from(["x", "y", "z"])
DENSE_INTS = [INT_MIN, INT_MIN + 1, -3, -2, -1, 0, 1, 2, 3, INT_MAX - 1, INT_MAX]
dense_ints = st.sampled_from(DENSE_INTS)
DENSE_FLOATS = [
    -sys.float_info.max, -1.5, -1.0, -5e-324, 0.0, 5e-324, 0.5, 1.0,
    math.nextafter(1.0, math.inf), 1.5, 2.0, sys.float_info.max,
]
dense_floats = st.sampled_from(DENSE_FLOATS)
DENSE_STRINGS = ["", "a", "b", "ab", "ba", "aa", "bb", "bz", "b\x00", "a\x00", "abc", "c"]
dense_strings = st.sampled_from(DENSE_STRINGS)


@st.composite
def dense_constraints(draw, types=TYPES, name_strategy=dense_names) -> Constraint:
    """Constraints whose name mostly keeps one type, so they interact."""
    name = draw(name_strategy)
    # Each name has a home type; a different type shows up now and then.
    home = {"x": INT, "y": STRING, "z": FLOAT}.get(name, INT)
    if home not in types:
        home = types[0]
    roll = draw(st.integers(0, 19))
    if roll == 0:
        return Constraint(ANYTYPE, name, ANY)
    type_ = draw(st.sampled_from(types)) if roll == 1 else home
    op = draw(st.sampled_from(sorted(OPERATORS_OF_TYPE[type_])))
    value = None if op == ANY else draw(value_of(type_, dense=True))
    return Constraint(type_, name, op, value)


def dense_filters(types=TYPES, max_size: int = 4, name_strategy=dense_names) -> st.SearchStrategy:
    return st.lists(dense_constraints(types, name_strategy), max_size=max_size).map(Filter)


def dense_predicates(types=TYPES, max_filters: int = 3, max_size: int = 3,
                     name_strategy=dense_names) -> st.SearchStrategy:
    return st.lists(dense_filters(types, max_size, name_strategy), max_size=max_filters).map(Predicate)


def dense_advertisements(types=TYPES, max_size: int = 4) -> st.SearchStrategy:
    return st.lists(dense_constraints(types), max_size=max_size).map(Advertisement)


# ------------------------------------------------------------ damaged text
@st.composite
def edited(draw, text: str, pieces, actions, *, edits: int = 4, span: int = 4, copy: int = 8) -> str:
    """``text`` after 1..``edits`` random edits, each at a random place: one of
    ``actions``, from ``truncate``, ``insert`` or ``replace`` (a character) by
    one of ``pieces``, ``delete`` (1..``span`` characters), ``duplicate`` (the
    next ``copy`` characters) and ``duplicate_token`` (a space-separated word).
    For the differential tests between the readers: they must fail alike."""
    for _ in range(draw(st.integers(1, edits))):
        i = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(actions))
        piece = draw(st.sampled_from(pieces))
        if action == "truncate":
            text = text[:i]
        elif action == "insert":
            text = text[:i] + piece + text[i:]
        elif action == "delete":
            text = text[:i] + text[i + draw(st.integers(1, span)):]
        elif action == "replace":
            text = text[:i] + piece + text[i + 1:]
        elif action == "duplicate":
            text = text[:i] + text[i:i + copy] + text[i:]
        else:
            words = text.split(" ")
            j = draw(st.integers(0, len(words) - 1))
            text = " ".join([*words[:j], words[j], *words[j:]])
    return text
