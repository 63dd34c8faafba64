"""What a filter, predicate or advertisement matches (DESIGN.md, "Semantics").

This module is the reference: the forwarding engine, the covering layers and
the reducers are all tested against it.
"""

from __future__ import annotations

from typing import Any

from cbalgebra.values import (
    ANY,
    ANYTYPE,
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    PREFIX,
    SUBSTRING,
    SUFFIX,
    Advertisement,
    Attribute,
    Constraint,
    Filter,
    Message,
    Predicate,
)

__all__ = ["matches", "constraint_holds", "value_satisfies"]


def value_satisfies(op: str, operand: Any, value: Any) -> bool:
    """Whether a value of the constraint's type satisfies ``op operand``."""
    if op == EQ:
        return value == operand
    if op == NE:
        return value != operand
    if op == LT:
        return value < operand
    if op == GT:
        return value > operand
    if op == LE:
        return value <= operand
    if op == GE:
        return value >= operand
    if op == PREFIX:
        return value.startswith(operand)
    if op == SUFFIX:
        return value.endswith(operand)
    if op == SUBSTRING:
        return operand in value
    if op == ANY:
        return True
    raise ValueError(f"unknown operator {op!r}")


def attribute_satisfies(c: Constraint, attr: Attribute | None) -> bool:
    """Whether one attribute (or its absence) satisfies constraint ``c``.

    Absence and a type mismatch make every constraint false, ``!=`` and
    ``any`` included; a constraint of type ``any`` accepts every type.
    """
    if attr is None:
        return False
    if c.type == ANYTYPE:
        return True
    if attr.type != c.type:
        return False
    return value_satisfies(c.op, c.value, attr.value)


def constraint_holds(c: Constraint, message: Message) -> bool:
    return attribute_satisfies(c, message.get(c.name))


def _filter_matches(f: Filter, message: Message) -> bool:
    return all(attribute_satisfies(c, message.get(c.name)) for c in f.constraints)


def _advertisement_covers(a: Advertisement, message: Message) -> bool:
    by_name = a._cache.get("by_name")
    if by_name is None:
        by_name = {}
        for c in a.constraints:
            by_name.setdefault(c.name, []).append(c)
        a._cache["by_name"] = by_name
    for name, attr in message.items():
        if not any(attribute_satisfies(c, attr) for c in by_name.get(name, ())):
            return False
    return True


def matches(x: Filter | Predicate | Advertisement | Constraint, message: Message) -> bool:
    """Whether ``x`` matches ``message``.

    A filter needs every constraint to hold; a predicate needs one of its
    filters to match; an advertisement covers a message when every attribute
    of the message satisfies one of its constraints on that name and type.
    """
    if not isinstance(message, Message):
        raise TypeError(f"matches expects a Message, not {type(message).__name__}")
    if isinstance(x, Filter):
        return _filter_matches(x, message)
    if isinstance(x, Predicate):
        return any(_filter_matches(f, message) for f in x.filters)
    if isinstance(x, Advertisement):
        return _advertisement_covers(x, message)
    if isinstance(x, Constraint):
        return constraint_holds(x, message)
    raise TypeError(f"matches expects a Filter, Predicate, Advertisement or Constraint, not {type(x).__name__}")
