"""Siena's filters poset (seed 004 §3.4–3.5), subscription forwarding over a
network of servers, and pictures of the Hasse diagram.

- :class:`Poset`: filters (S^S) or advertisements (A^A) under covering, with
  insert/remove as in §3.5 and §2.4.3;
- :mod:`cbalgebra.network.siena` (``Network`` and ``Server`` are re-exported
  here and by ``cbalgebra.poset.network``): servers on an acyclic graph
  forwarding subscriptions by formula (1);
- :mod:`cbalgebra.poset.render` (DOT, SVG, PNG) and
  :mod:`cbalgebra.poset.html` (one self-contained interactive page);
- :mod:`cbalgebra.poset.cli`: the ``cbalgebra poset`` command.
"""

from cbalgebra.poset.cli import from_document
from cbalgebra.poset.core import (
    ADVERTISEMENTS,
    COVERED,
    INSERTED,
    MERGED,
    SUBSCRIPTIONS,
    Element,
    InsertResult,
    Poset,
    PosetStats,
    RemoveResult,
    Shape,
)

__all__ = [
    "ADVERTISEMENTS",
    "COVERED",
    "INSERTED",
    "MERGED",
    "SUBSCRIPTIONS",
    "Element",
    "InsertResult",
    "Network",
    "Poset",
    "PosetStats",
    "RemoveResult",
    "Server",
    "Shape",
    "from_document",
]


def __getattr__(name: str):
    # Network and Server live in cbalgebra.network.siena, which imports this
    # package's core; resolving them lazily avoids an import cycle.
    if name in ("Network", "Server"):
        from cbalgebra.network import siena

        return getattr(siena, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
