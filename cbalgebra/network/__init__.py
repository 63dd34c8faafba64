"""Networks of processors for content-based routing (Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes", 2006, §2).

A network is an undirected, connected networkx graph whose nodes are the
integers 0..n-1 and whose edges carry a positive ``weight`` (a link length).

- :mod:`cbalgebra.network.topology` builds them: seeded generators, the
  GT-ITM transit-stub model, real networks shipped by ``topohub``, files.
- :mod:`cbalgebra.network.paths` computes distances, the shortest-path tree
  T_v of every source (deterministic tie-break) and the shortest-path DAG.
- :mod:`cbalgebra.network.delivery` checks delivery trees (§2.2-2.3) and
  finds the smallest latency-minimal one.
- :mod:`cbalgebra.network.schemes` builds the routing schemes of §3 (PSF,
  iPS, PIF, DRP) and Siena's subscription forwarding
  (:mod:`cbalgebra.network.siena`) and delivers messages with them:
  ``build(scheme, graph, predicates)``, ``Routing.deliver``, ``Routing.memory``.
- :mod:`cbalgebra.network.workload` draws processor predicates (Carzaniga, Rembert & Wolf 2006's
  DNF generator) and messages; :mod:`cbalgebra.network.draw` pictures one
  delivery.

Nothing heavy is imported here: numpy, scipy and topohub load with the
submodules that need them.
"""

from __future__ import annotations

__all__ = [
    "SCHEMES",
    "Delivery",
    "DeliveryError",
    "DeliveryReport",
    "Packet",
    "Routing",
    "RoutingError",
    "ShortestPaths",
    "SteinerResult",
    "TopologyError",
    "build",
    "check_delivery",
    "generator_names",
    "real_networks",
    "shortest_paths",
    "smallest_latency_minimal_tree",
    "topology",
]

# The function `topology` shares its name with its module; importing it here
# makes `from cbalgebra.network import topology` the function, as the public
# API promises (import the module as `cbalgebra.network.topology` via
# `from cbalgebra.network.topology import ...`).
from .topology import TopologyError, generator_names, real_networks, topology

_HOME = {
    "ShortestPaths": "paths", "shortest_paths": "paths",
    "Packet": "delivery", "DeliveryError": "delivery", "DeliveryReport": "delivery",
    "check_delivery": "delivery", "SteinerResult": "delivery",
    "smallest_latency_minimal_tree": "delivery",
    "build": "schemes", "Routing": "schemes", "RoutingError": "schemes", "Delivery": "schemes",
    "SCHEMES": "schemes",
}


def __getattr__(name: str) -> object:
    # Lazy re-exports: `from cbalgebra.network import topology` loads only
    # the topology module, not scipy's optimiser or topohub.
    if name in _HOME:
        import importlib
        module = importlib.import_module(f"{__name__}.{_HOME[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
