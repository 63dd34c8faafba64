"""cbalgebra: the predicate algebra of content-based networking.

Parse Siena-style filters, predicates, advertisements and messages; decide
matching and covering exactly; reduce disjunctions; forward messages with a
compiled table; study the disjunction advantage at scale.

``import cbalgebra`` stays light: numba, z3, Spark and matplotlib load only
when the parts that need them are used.
"""

from __future__ import annotations

import importlib
from typing import Any

from cbalgebra import workloads
from cbalgebra.covering import (
    UndecidedError,
    counterexample,
    covers,
    equivalent,
    overlaps,
    satisfiable,
    witness,
)
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

#: Names that live in parts with heavier imports, resolved on first use.
_LAZY = {
    "reduce": "cbalgebra.reducers",
    "alpha": "cbalgebra.reducers",
    "ReductionBudgetError": "cbalgebra.reducers",
    "Poset": "cbalgebra.poset",
}

__all__ = [
    "Advertisement",
    "Attribute",
    "Constraint",
    "DocumentItem",
    "Filter",
    "InvalidValueError",
    "Message",
    "ParseError",
    "Poset",
    "Predicate",
    "ReductionBudgetError",
    "UndecidedError",
    "alpha",
    "counterexample",
    "covers",
    "equivalent",
    "matches",
    "overlaps",
    "parse_advertisement",
    "parse_constraint",
    "parse_document",
    "parse_filter",
    "parse_message",
    "parse_predicate",
    "reduce",
    "satisfiable",
    "witness",
    "workloads",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cbalgebra' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
