"""Siena's filters poset (Carzaniga, Rosenblum & Wolf, Content-Based
Addressing and Routing, 2000, §3.4–3.5) and pictures of its Hasse diagram.

A small core and functions over it, in the style of networkx:

- :mod:`cbalgebra.poset.element`: :class:`Element`, one node, with
  snapshots and live read-only views (no copy) of its predecessors,
  successors and subscribers;
- :mod:`cbalgebra.poset.core`: :class:`Poset`, filters (S^S) or
  advertisements (A^A) under covering: elements, immediate edges, roots,
  insert and remove as in §3.5 and §2.4.3;
- :mod:`cbalgebra.poset.traversal`: :func:`walk`, the one traversal of the
  diagram (up or down, pruned by a visitor) that every other one uses;
- :mod:`cbalgebra.poset.search`: where insert puts a new value, with the
  witness indexes of :mod:`cbalgebra.poset.points`;
- :mod:`cbalgebra.poset.queries`: descendants, ancestors, what a value
  covers, who a message reaches;
- :mod:`cbalgebra.poset.stats`: the work counters and the shape;
- :mod:`cbalgebra.poset.build`: predicates and documents into a poset;
- :mod:`cbalgebra.poset.render` (DOT, SVG, PNG) and
  :mod:`cbalgebra.poset.html` (one self-contained interactive page); the
  core never imports them;
- :mod:`cbalgebra.poset.cli`: the ``cbalgebra poset`` command.

Subscription forwarding over a network of servers, built on this package,
is :mod:`cbalgebra.network.siena` (this package never imports the network).
"""

from cbalgebra.poset.build import from_document, insert_predicate, remove_predicate
from cbalgebra.poset.core import COVERED, INSERTED, MERGED, InsertResult, Poset, RemoveResult
from cbalgebra.poset.element import ADVERTISEMENTS, SUBSCRIPTIONS, Element, by_age
from cbalgebra.poset.queries import ancestors, covered, covering, descendants, descendants_within, match
from cbalgebra.poset.stats import PosetStats, Shape, levels, shape
from cbalgebra.poset.traversal import DOWN, UP, walk

__all__ = [
    "ADVERTISEMENTS",
    "COVERED",
    "DOWN",
    "INSERTED",
    "MERGED",
    "SUBSCRIPTIONS",
    "UP",
    "Element",
    "InsertResult",
    "Poset",
    "PosetStats",
    "RemoveResult",
    "Shape",
    "ancestors",
    "by_age",
    "covered",
    "covering",
    "descendants",
    "descendants_within",
    "from_document",
    "insert_predicate",
    "levels",
    "match",
    "remove_predicate",
    "shape",
    "walk",
]
