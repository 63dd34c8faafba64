"""Numbers about a poset: the work counters of its core (:class:`PosetStats`)
and its shape (§3.4 of Carzaniga, Rosenblum & Wolf, Content-Based Addressing
and Routing, 2000: tall posets summarize well, flat ones do not).

``shape(poset)``, ``levels(poset)`` and ``level_of(poset, element)`` are
functions over the core, in the style of networkx's algorithms.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cbalgebra.poset.core import Poset
    from cbalgebra.poset.element import Element, Value

__all__ = ["PosetStats", "Shape", "level_of", "levels", "shape"]


@dataclass
class PosetStats:
    """Work counters. ``naive_checks`` is what inserting by comparing the new
    value with every element, in both directions, would have cost."""

    inserts: int = 0
    removes: int = 0
    insert_checks: int = 0
    remove_checks: int = 0
    lookup_checks: int = 0
    satisfiability_checks: int = 0
    naive_checks: int = 0

    @property
    def checks(self) -> int:
        return self.insert_checks + self.remove_checks + self.lookup_checks

    @property
    def checks_per_insert(self) -> float:
        return self.insert_checks / self.inserts if self.inserts else 0.0

    @property
    def avoided(self) -> float:
        """Fraction of the naive insert comparisons that were not made."""
        return 1.0 - self.insert_checks / self.naive_checks if self.naive_checks else 0.0

    def as_dict(self) -> dict[str, float]:
        """The counters, then the two ratios."""
        return {**asdict(self), "checks_per_insert": self.checks_per_insert, "avoided": self.avoided}


@dataclass(frozen=True)
class Shape:
    """The shape of a poset.

    ``depth`` is the number of levels, a level being the length of the
    longest chain from a root; ``level_sizes[i]`` counts the elements at
    level i and ``widest_level`` is the first level of maximal size.
    ``leaves`` are the satisfiable elements covering no satisfiable element;
    ``unsatisfiable`` is 1 when the least element ⊥ of unsatisfiable filters
    is present (it is covered by every element, and sits alone at the
    deepest level).
    """

    elements: int
    roots: int
    leaves: int
    edges: int
    depth: int
    widest_level: int
    width: int
    subscribers: int
    level_sizes: tuple[int, ...]
    unsatisfiable: int = 0

    def __str__(self) -> str:
        if not self.elements:
            return "empty poset"
        return (
            f"{self.elements} element{'s' * (self.elements != 1)}, "
            f"{self.roots} root{'s' * (self.roots != 1)}, "
            f"{self.edges} edge{'s' * (self.edges != 1)}, depth {self.depth}, "
            f"widest level {self.widest_level} ({self.width} element{'s' * (self.width != 1)}), "
            f"{self.leaves} lea{'ves' if self.leaves != 1 else 'f'}, "
            f"{self.subscribers} subscriber{'s' * (self.subscribers != 1)}"
            + (", plus ⊥ (unsatisfiable filters)" if self.unsatisfiable else "")
        )

    def as_dict(self) -> dict[str, Any]:
        """The fields, ``level_sizes`` as a list (for JSON)."""
        return {**asdict(self), "level_sizes": list(self.level_sizes)}


def shape(poset: Poset) -> Shape:
    """Counts of elements, roots, leaves and edges, and the levels' sizes."""
    _, layers, _ = poset._levels()
    elements = [e for layer in layers for e in layer]
    sizes = tuple(len(layer) for layer in layers)
    width = max(sizes, default=0)
    return Shape(
        elements=len(elements),
        roots=len(layers[0]) if layers else 0,
        leaves=sum(1 for e in elements if not e._bottom and all(s._bottom for s in e._succs)),
        edges=sum(len(e._succs) for e in elements),
        depth=len(layers),
        widest_level=sizes.index(width) if sizes else 0,
        width=width,
        subscribers=len(poset.all_subscribers()),
        level_sizes=sizes,
        unsatisfiable=sum(1 for e in elements if e._bottom),
    )


def levels(poset: Poset) -> list[list[Value]]:
    """Values by level: level 0 holds the roots, level i the elements whose
    longest chain from a root has i edges."""
    return [[e.value for e in layer] for layer in poset._levels()[1]]


def level_of(poset: Poset, e: Element) -> int:
    """The level of one element (see :func:`levels`)."""
    return poset._levels()[2][e]
