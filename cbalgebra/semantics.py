"""What a filter, predicate or advertisement matches (docs/design.md, §3 "Fixed semantics").

This module is the reference: the forwarding engine, the covering layers and
the reducers are all tested against it.
"""

from __future__ import annotations

from typing import Any, cast

from cbalgebra.values import ANYTYPE, FLOAT, HOLDS, INT
from cbalgebra.values import Advertisement, Attribute, Constraint, Filter, Message, Predicate

__all__ = ["NUMBERS", "constraint_holds", "matches", "sff_int_of_double", "value_satisfies"]

#: How numbers of different types meet. ``"strict"`` (the default, the model
#: of Carzaniga, Rosenblum & Wolf, Content-Based Addressing and Routing, 2000,
#: §3): an int attribute only meets int constraints and a float attribute only
#: float constraints. ``"sff"``: the conversions of Siena Fast Forwarding 2.x
#: (its ``fwd_table::match``), see :func:`attribute_satisfies`.
NUMBERS = ("strict", "sff")

#: SFF converts a double to C++ ``int`` (32 bits) to try it against integer
#: constraints; only doubles in that range survive the round trip.
SFF_INT_MIN, SFF_INT_MAX = -(2**31), 2**31 - 1


def value_satisfies(op: str, operand: Any, value: Any) -> bool:
    """Whether a value of the constraint's type satisfies ``op operand``."""
    try:
        holds = HOLDS[op]
    except KeyError:
        raise ValueError(f"unknown operator {op!r}") from None
    return holds(value, operand)


def sff_int_of_double(x: float) -> int | None:
    """The int SFF tries a double attribute as, or None.

    SFF 2.x (``fwd_table::match``) tries a double attribute ``x`` against the
    integer constraints of its name when ``x == int(x)``, with C++'s 32-bit
    ``int``: so only integral doubles in [-2**31, 2**31 - 1] qualify (beyond
    that range the C++ conversion is undefined; on x86-64 it yields INT_MIN,
    and the equality fails).
    """
    if x.is_integer() and SFF_INT_MIN <= x <= SFF_INT_MAX:
        return int(x)
    return None


def attribute_satisfies(c: Constraint, attr: Attribute | None, numbers: str = "strict") -> bool:
    """Whether one attribute (or its absence) satisfies constraint ``c``.

    Absence and a type mismatch make every constraint false, ``!=`` and
    ``any`` included; a constraint of type ``any`` accepts every type.

    With ``numbers="sff"`` two mismatches are bridged as SFF 2.x bridges
    them: an int attribute meets a float constraint as the nearest double
    (``float(v)``, as C++ converts ``long long`` to ``double``), and an
    integral float attribute within the 32-bit int range meets an int
    constraint as that int (:func:`sff_int_of_double`). So the int constraint
    ``x > 2`` does not match ``x = 2.5``, but matches ``x = 3.0``; the float
    constraint ``x > 2.5`` matches ``x = 3``.
    """
    if attr is None:
        return False
    if c.type == ANYTYPE:
        return True
    if attr.type == c.type:
        return value_satisfies(c.op, c.value, attr.value)
    if numbers != "strict":
        if c.type == FLOAT and attr.type == INT:
            return value_satisfies(c.op, c.value, float(attr.value))
        if c.type == INT and attr.type == FLOAT:
            as_int = sff_int_of_double(cast(float, attr.value))  # attr.type == FLOAT: a float
            return as_int is not None and value_satisfies(c.op, c.value, as_int)
    return False


def constraint_holds(c: Constraint, message: Message, numbers: str = "strict") -> bool:
    return attribute_satisfies(c, message.get(c.name), numbers)


def _filter_matches(f: Filter, message: Message, numbers: str = "strict") -> bool:
    return all(attribute_satisfies(c, message.get(c.name), numbers) for c in f.constraints)


def check_numbers(numbers: object) -> str:
    """``numbers`` if it is one of :data:`NUMBERS`, else a ValueError."""
    if numbers not in NUMBERS:
        raise ValueError(f"numbers must be one of {', '.join(map(repr, NUMBERS))}, not {numbers!r}")
    return numbers


def _advertisement_covers(a: Advertisement, message: Message, numbers: str = "strict") -> bool:
    by_name = a.by_name
    for name, attr in message.items():
        if not any(attribute_satisfies(c, attr, numbers) for c in by_name.get(name, ())):
            return False
    return True


def matches(x: Filter | Predicate | Advertisement | Constraint, message: Message, *,
            numbers: str = "strict") -> bool:
    """Whether ``x`` matches ``message``.

    A filter needs every constraint to hold; a predicate needs one of its
    filters to match; an advertisement covers a message when every attribute
    of the message satisfies one of its constraints on that name and type.

    ``numbers="sff"`` matches numbers across int and float as Siena Fast
    Forwarding 2.x does (see :func:`attribute_satisfies`); the default
    ``"strict"`` keeps types apart. Covering (``cb.covers``) is always strict.
    """
    if not isinstance(message, Message):
        raise TypeError(f"matches expects a Message, not {type(message).__name__}")
    if numbers != "strict":
        check_numbers(numbers)
    if isinstance(x, Filter):
        return _filter_matches(x, message, numbers)
    if isinstance(x, Predicate):
        return any(_filter_matches(f, message, numbers) for f in x.filters)
    if isinstance(x, Advertisement):
        return _advertisement_covers(x, message, numbers)
    if isinstance(x, Constraint):
        return constraint_holds(x, message, numbers)
    raise TypeError(f"matches expects a Filter, Predicate, Advertisement or Constraint, not {type(x).__name__}")
