"""Siena's filters poset (Carzaniga, Rosenblum & Wolf, Content-Based
Addressing and Routing, 2000, §3.4–3.5), subscription forwarding over a
network of servers, and pictures of the Hasse diagram.

A small core and functions over it, in the style of networkx:

- :mod:`cbalgebra.poset.core`: :class:`Poset`, filters (S^S) or
  advertisements (A^A) under covering: elements, immediate edges, roots,
  successors and predecessors, insert and remove as in §3.5 and §2.4.3;
- :mod:`cbalgebra.poset.search`: where insert puts a new value, with the
  witness indexes of :mod:`cbalgebra.poset.points`;
- :mod:`cbalgebra.poset.queries`: descendants, ancestors, what a value
  covers, who a message reaches;
- :mod:`cbalgebra.poset.stats`: the work counters and the shape;
- :mod:`cbalgebra.poset.build`: predicates and documents into a poset;
- :mod:`cbalgebra.poset.render` (DOT, SVG, PNG) and
  :mod:`cbalgebra.poset.html` (one self-contained interactive page); the
  core never imports them;
- :mod:`cbalgebra.network.siena` (``Network`` and ``Server`` are re-exported
  here and by ``cbalgebra.poset.network``): servers on an acyclic graph
  forwarding subscriptions by formula (1);
- :mod:`cbalgebra.poset.cli`: the ``cbalgebra poset`` command.
"""

from cbalgebra.poset.build import from_document, insert_predicate, remove_predicate
from cbalgebra.poset.core import (
    ADVERTISEMENTS,
    COVERED,
    INSERTED,
    MERGED,
    SUBSCRIPTIONS,
    Element,
    InsertResult,
    Poset,
    RemoveResult,
)
from cbalgebra.poset.queries import ancestors, covered, covering, descendants, match
from cbalgebra.poset.stats import PosetStats, Shape, levels, shape

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
    "ancestors",
    "covered",
    "covering",
    "descendants",
    "from_document",
    "insert_predicate",
    "levels",
    "match",
    "remove_predicate",
    "shape",
]


def __getattr__(name: str) -> object:
    # Network and Server live in cbalgebra.network.siena, which imports this
    # package's core and its drawings (a server draws its table). Resolving
    # them on first use avoids the import cycle and keeps the drawing modules
    # out of `import cbalgebra.poset.core`, which runs this file first.
    if name in ("Network", "Server"):
        # deferred: siena imports this package's core (an import cycle)
        from cbalgebra.network import siena

        return getattr(siena, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
