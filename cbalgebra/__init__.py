"""cbalgebra: the predicate algebra of content-based networking."""

from cbalgebra.values import (
    Advertisement,
    Attribute,
    Constraint,
    Filter,
    InvalidValueError,
    Message,
    Predicate,
)

__all__ = [
    "Advertisement",
    "Attribute",
    "Constraint",
    "Filter",
    "InvalidValueError",
    "Message",
    "Predicate",
]
