"""Generators of the papers' workloads.

- ``forwarding(...)``: the forwarding-table workload of Carzaniga & Wolf,
  Forwarding in a Content-Based Network, SIGCOMM 2003, §5.1 (Table 1), in
  ``_forwarding.py``;
- ``dnf_predicates(n, names, distribution, seed)``: the random DNF predicates of
  Carzaniga, Rembert & Wolf, Understanding Content-Based Routing Schemes,
  2006, §4.2, in ``_dnf.py``;
- ``intervals(subscriptions, attributes, per_subscription, value_range, ...)``:
  the interval subscriptions and events of the REIN/TAMA/OpIndex/H-Tree
  benchmark framework, in ``_intervals.py``.

Names resolve lazily so that ``import cbalgebra`` does not import numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cbalgebra.lazy import lazy_exports

if TYPE_CHECKING:
    from ._dnf import (
        DNF_SCENARIOS,
        INT_HIGH,
        INT_LOW,
        INT_OPS,
        SIZE_WEIGHTS,
        STRING_OPS,
        dnf_predicates,
        english_terms,
        name_cumulative_weights,
        string_names,
    )
    from ._forwarding import (
        ForwardingWorkload,
        forwarding,
        pseudo_words,
        sff_constraint,
        sff_float,
        sff_message,
        sff_string,
        write_sff_document,
        zipf_weights,
    )
    from ._intervals import ENGINE_INPUT_MAGIC, IntervalWorkload, intervals

__all__ = [
    "DNF_SCENARIOS",
    "ENGINE_INPUT_MAGIC",
    "INT_HIGH",
    "INT_LOW",
    "INT_OPS",
    "SIZE_WEIGHTS",
    "STRING_OPS",
    "ForwardingWorkload",
    "IntervalWorkload",
    "dnf_predicates",
    "english_terms",
    "forwarding",
    "intervals",
    "name_cumulative_weights",
    "pseudo_words",
    "sff_constraint",
    "sff_float",
    "sff_message",
    "sff_string",
    "string_names",
    "write_sff_document",
    "zipf_weights",
]

# numpy loads with any generator, on first use.
__getattr__, __dir__ = lazy_exports(__name__, {
    "_forwarding": ("ForwardingWorkload", "forwarding", "pseudo_words", "sff_constraint", "sff_float",
                    "sff_message", "sff_string", "write_sff_document", "zipf_weights"),
    "_dnf": ("DNF_SCENARIOS", "INT_HIGH", "INT_LOW", "INT_OPS", "SIZE_WEIGHTS", "STRING_OPS", "dnf_predicates",
             "english_terms", "name_cumulative_weights", "string_names"),
    "_intervals": ("ENGINE_INPUT_MAGIC", "IntervalWorkload", "intervals"),
}, globals())
