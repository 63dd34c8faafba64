"""cbalgebra: the predicate algebra of content-based networking.

Parse Siena-style filters, predicates, advertisements and messages; decide
matching and covering exactly; reduce disjunctions; forward messages with a
compiled table; study the disjunction advantage at scale.
"""

from cbalgebra import workloads
from cbalgebra.parse import (
    DocumentItem,
    ParseError,
    parse_advertisement,
    parse_constraint,
    parse_document,
    parse_filter,
    parse_message,
    parse_predicate,
)
from cbalgebra.semantics import matches
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
    "DocumentItem",
    "Filter",
    "InvalidValueError",
    "Message",
    "ParseError",
    "Predicate",
    "matches",
    "parse_advertisement",
    "parse_constraint",
    "parse_document",
    "parse_filter",
    "parse_message",
    "parse_predicate",
    "workloads",
]
