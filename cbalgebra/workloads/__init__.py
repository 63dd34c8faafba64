"""Generators of the papers' workloads.

- ``forwarding(...)``: the forwarding-table workload of Carzaniga & Wolf,
  Forwarding in a Content-Based Network, SIGCOMM 2003, §5.1 (Table 1), in
  ``_forwarding.py``;
- ``dnf_predicates(n, names, distribution, seed)``: the random DNF predicates of
  Carzaniga, Rembert & Wolf, Understanding Content-Based Routing Schemes,
  2006, §4.2, in ``_dnf.py``.

Names resolve lazily so that ``import cbalgebra`` does not import numpy.
"""

from __future__ import annotations

import importlib
from typing import Any

_SUBMODULES = ("_forwarding", "_dnf")


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    for sub in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{sub}")  # imports numpy, hence only on first use
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
