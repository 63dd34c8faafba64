"""cbalgebra: the predicate algebra of content-based networking.

Parse Siena-style filters, predicates, advertisements and messages; decide
matching and covering exactly; reduce disjunctions; forward messages with a
compiled table; study the disjunction advantage at scale.

``import cbalgebra`` stays light: numba, z3, Spark and matplotlib load only
when the parts that need them are used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cbalgebra.covering import (
    UndecidedError,
    counterexample,
    covers,
    equivalent,
    overlaps,
    satisfiable,
    witness,
)
from cbalgebra.errors import CbalgebraError
from cbalgebra.lazy import lazy_exports
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

if TYPE_CHECKING:
    from cbalgebra import workloads
    from cbalgebra.poset import Poset
    from cbalgebra.reducers import ReductionBudgetError, alpha, reduce

__all__ = [
    "Advertisement",
    "Attribute",
    "CbalgebraError",
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


# The reducers, the poset and the workload generators load when first named.
__getattr__, __dir__ = lazy_exports(__name__, {"reducers": ("ReductionBudgetError", "alpha", "reduce"),
                                               "poset": ("Poset",), "": ("workloads",)}, globals())
