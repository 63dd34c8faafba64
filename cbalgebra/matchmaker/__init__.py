"""The Min-Cost Matchmaker problem (Ge, Ji, Kurose & Towsley, "Matchmaker:
Signaling for Dynamic Publish/Subscribe Applications", §3-4).

Every directed link of the multicast trees is marked a p-link (publication
CDs cross it) or an s-link (subscription CDs cross it); below an s-link
everything is an s-link (constraint 1). The problem is to find the valid
marking that propagates the fewest CDs (equation 2).

- :class:`Instance`: publishers, subscribers, CD counts, trees
  (:meth:`Instance.generate` for the paper's transit-stub setting,
  :meth:`Instance.from_trees` for given trees); sigma, τ, R.
- :func:`cost`, :func:`valid`, :func:`link_costs`: equation (2), constraint
  (1), each link's CDs.
- :func:`all_p`, :func:`all_s`, :func:`mcm`, :func:`tdm`: the markings of
  §4.4 (broadcast publication, broadcast subscription, the optimum, top-down).
- :func:`bounded_pareto`: the CD-count distribution of §4.4.1.

Every public name loads its submodule on first use, so `cbalgebra --help`
(whose ``matchmaker`` plug-in imports :mod:`cbalgebra.matchmaker.cli`) does
not pay for networkx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cbalgebra.lazy import lazy_exports

if TYPE_CHECKING:
    from .algorithms import all_p, all_s, closure, greedy, matchmaking_nodes, mcm, tdm
    from .costs import cost, link_costs, lower_bound, valid
    from .instance import Instance, InstanceError, Marking
    from .pareto import bounded_pareto

__all__ = [
    "Instance",
    "InstanceError",
    "Marking",
    "all_p",
    "all_s",
    "bounded_pareto",
    "closure",
    "cost",
    "greedy",
    "link_costs",
    "lower_bound",
    "matchmaking_nodes",
    "mcm",
    "tdm",
    "valid",
]

# Lazy re-exports: the instance module imports networkx (~250 ms).
__getattr__, __dir__ = lazy_exports(__name__, {
    "algorithms": ("all_p", "all_s", "closure", "greedy", "matchmaking_nodes", "mcm", "tdm"),
    "costs": ("cost", "link_costs", "lower_bound", "valid"),
    "instance": ("Instance", "InstanceError", "Marking"),
    "pareto": ("bounded_pareto",),
}, globals())
