"""cbalgebra: the predicate algebra of content-based networking.

Parse Siena-style filters, predicates, advertisements and messages; decide
matching and covering exactly; reduce disjunctions; forward messages with a
compiled table; study the disjunction advantage at scale.

``import cbalgebra`` stays light: numba, z3, Spark and matplotlib load only
when the parts that need them are used.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

# numba writes an error message for every failed type lookup while it
# compiles (some 11,000 in a cold first forward(): each global such as
# ``range`` is first tried as a constant), and by default highlights each one,
# re-wrapping the terminal's streams with colorama every time: 5 % of the
# compile (benchmarks/forward_compile.py). Highlighting is off here unless the
# process chose (numba's documented setting, read when numba is first
# imported; set it to an empty string to keep the highlighting).
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

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
