"""The static signalling overlay the protocols run on: the multicast trees and each link's delay.

The trees are the one model of :mod:`cbalgebra.matchmaker.trees` (the
notation of Ge, Ji, Kurose & Towsley, "Matchmaker", §3.1 and §5.2-5.3: P_t,
S_t, Figure 9's upstream links, the per-node tables hop-by-hop signalling
reads); an overlay adds what only the simulation needs, the time a message
takes to cross each link.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cbalgebra.matchmaker.instance import check_tree
from cbalgebra.matchmaker.trees import MulticastTrees, node_key

__all__ = ["Overlay"]


class Overlay(MulticastTrees):
    """The trees (publisher → directed edges pointing away from it, in any order) and ``delay[i]``, the
    seconds a message takes over link i (``delays`` by edge, either direction; 0 where absent)."""

    def __init__(self, trees: Mapping[Any, Iterable[tuple[Any, Any]]], subscribers: Iterable[Any],
                 delays: Mapping[tuple[Any, Any], float] | None = None) -> None:
        super().__init__({x: check_tree(x, trees[x]) for x in sorted(trees, key=node_key)}, subscribers)
        delays = delays or {}
        self.delay = [float(delays.get((u, v), delays.get((v, u), 0.0))) for u, v in self.links]

    @classmethod
    def from_instance(cls, instance: Any, delay_per_weight: float = 0.0) -> Overlay:
        """The overlay of a ``cbalgebra.matchmaker.Instance`` (its ``trees``, ``subscribers`` and ``graph``).

        Each link's delay is ``delay_per_weight`` times the weight of its edge in the graph.
        """
        graph = getattr(instance, "graph", None)
        delays: dict[tuple[Any, Any], float] = {}
        if graph is not None and delay_per_weight > 0:
            for u, v, data in graph.edges(data=True):
                delays[(u, v)] = delay_per_weight * float(data.get("weight", 1))
        return cls(instance.trees, instance.subscribers, delays)
