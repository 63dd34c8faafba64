"""Networks of processors for content-based routing (Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes", 2006, §2).

A network is an undirected, connected networkx graph whose nodes are the
integers 0..n-1 and whose edges carry a positive ``weight`` (a link length).

- :mod:`cbalgebra.network.topology` builds them: seeded generators, the
  GT-ITM transit-stub model, every network ``topohub`` ships, files.
- :mod:`cbalgebra.network.paths` computes distances, the shortest-path tree
  T_v of every source (deterministic tie-break) and the shortest-path DAG.
- :mod:`cbalgebra.network.delivery` checks delivery trees (§2.2-2.3) and
  finds the smallest latency-minimal one.
- :mod:`cbalgebra.network.schemes` builds the routing schemes of §3 (PSF,
  iPS, PIF, DRP) and Siena's subscription forwarding
  (:mod:`cbalgebra.network.siena`) and delivers messages with them:
  ``build(scheme, graph, predicates)``, ``Routing.deliver``, ``Routing.memory``;
  :func:`table_memory` (:mod:`cbalgebra.network.sizing`) counts the same
  memory without tables or all-pairs distances, exactly or by sampling;
  ``Network`` and ``Server`` are Siena's servers themselves.
- :mod:`cbalgebra.network.workload` draws processor predicates (Carzaniga, Rembert & Wolf 2006's
  DNF generator) and messages; :mod:`cbalgebra.network.draw` pictures one
  delivery.

Nothing heavy is imported here: every public name loads its submodule on
first use, so `cbalgebra --help` (whose ``route`` plug-in imports
:mod:`cbalgebra.network.cli`) does not pay for networkx, numpy or scipy.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

from cbalgebra.lazy import lazy_exports

if TYPE_CHECKING:
    from .delivery import (
        DeliveryError,
        DeliveryReport,
        Packet,
        SteinerResult,
        check_delivery,
        smallest_latency_minimal_tree,
    )
    from .paths import ShortestPaths, shortest_paths
    from .schemes import SCHEMES, Delivery, Routing, RoutingError, build
    from .siena import Network, Server
    from .sizing import TableMemory, table_memory
    from .topology import TopologyError, generator_names, real_networks, topohub_networks, topology

__all__ = [
    "SCHEMES",
    "Delivery",
    "DeliveryError",
    "DeliveryReport",
    "Network",
    "Packet",
    "Routing",
    "RoutingError",
    "Server",
    "ShortestPaths",
    "SteinerResult",
    "TableMemory",
    "TopologyError",
    "build",
    "check_delivery",
    "generator_names",
    "real_networks",
    "shortest_paths",
    "smallest_latency_minimal_tree",
    "table_memory",
    "topohub_networks",
    "topology",
]

# Lazy re-exports: each name loads only its own submodule (networkx with
# topology, scipy's optimiser with delivery), on first use.
__getattr__, __dir__ = lazy_exports(__name__, {
    "topology": ("TopologyError", "generator_names", "real_networks", "topohub_networks", "topology"),
    "paths": ("ShortestPaths", "shortest_paths"),
    "delivery": ("DeliveryError", "DeliveryReport", "Packet", "SteinerResult", "check_delivery",
                 "smallest_latency_minimal_tree"),
    "schemes": ("SCHEMES", "Delivery", "Routing", "RoutingError", "build"),
    "siena": ("Network", "Server"),
    "sizing": ("TableMemory", "table_memory"),
}, globals())


class _NetworkPackage(types.ModuleType):
    """This package, keeping ``topology`` bound to the function.

    The function `topology` shares its name with its module, and the import
    system binds every loaded submodule as an attribute of its package, so
    the first import of :mod:`cbalgebra.network.topology` (by any module)
    would make ``from cbalgebra.network import topology`` the module. The
    public API promises the function: bind that instead.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name == "topology" and isinstance(value, types.ModuleType):
            value = value.topology
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _NetworkPackage
