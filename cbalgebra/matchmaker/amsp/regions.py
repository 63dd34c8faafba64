"""Content descriptors of the grid world as cbalgebra filters, and their matching.

Ge, Ji, Kurose & Towsley, "Matchmaker: Signaling for Dynamic Publish/Subscribe
Applications", §6: an entity's content descriptor (CD) is the 3 × 3 square of
grid cells centred on it. Here a square is the filter
``[int x >= a, int x <= b, int y >= c, int y <= d]``, and whether a publication
CD (PCD) and a subscription CD (SCD) match, and what their matched CD (MCD)
is, are decided by the project's covering algebra (``cbalgebra.covering``),
not by rectangle arithmetic.

A PCD plays the role of an advertisement: the set of notifications the
publisher will send. It is written as a filter rather than a
:class:`~cbalgebra.values.Advertisement` because Siena's advertisements
(Carzaniga, Rosenblum & Wolf 2000, §3.2) are per-attribute disjunctions:
``{x >= a, x <= b}`` as an advertisement allows every integer, so a bounded
range cannot be advertised.
"""

from __future__ import annotations

from cbalgebra.covering import constraint_covers, overlaps
from cbalgebra.values import INT, Constraint, Filter

__all__ = ["MatchCache", "Square", "SquareBook", "intersection", "square_filter"]


def square_filter(a: int, b: int, c: int, d: int) -> Filter:
    """The filter of the cells ``a <= x <= b``, ``c <= y <= d``."""
    return Filter((
        Constraint(INT, "x", ">=", a), Constraint(INT, "x", "<=", b),
        Constraint(INT, "y", ">=", c), Constraint(INT, "y", "<=", d),
    ))


def intersection(f: Filter, g: Filter) -> Filter | None:
    """The conjunction of f and g with implied constraints dropped, or None when they do not overlap.

    The result matches exactly the messages matched by both. A constraint is
    dropped when another constraint of the conjunction implies it
    (``constraint_covers``); of two equivalent constraints the first in
    canonical order stays. For two squares this is the square
    ``[x >= max(a), x <= min(b), y >= max(c), y <= min(d)]``.
    """
    if not overlaps(f, g):
        return None
    both = Filter(f.constraints + g.constraints).constraints
    kept = []
    for c in both:
        implied = False
        for d in both:
            if d is c or d.name != c.name:
                continue
            if constraint_covers(c, d) and not (constraint_covers(d, c) and c < d):
                implied = True
                break
        if not implied:
            kept.append(c)
    return Filter(kept)


class Square:
    """One interned 3 × 3 (clipped) square: its centre cell, bounds, and filter on demand.

    Squares are interned by centre (:class:`SquareBook`), so identity is
    equality and they hash by identity: a cheap key for the match cache.
    """

    __slots__ = ("_filter", "bounds", "cx", "cy")

    def __init__(self, cx: int, cy: int, bounds: tuple[int, int, int, int]) -> None:
        self.cx = cx
        self.cy = cy
        self.bounds = bounds
        self._filter: Filter | None = None

    @property
    def filter(self) -> Filter:
        f = self._filter
        if f is None:
            f = self._filter = square_filter(*self.bounds)
        return f

    def __repr__(self) -> str:
        return f"Square({self.cx}, {self.cy})"


class SquareBook:
    """The squares of one grid, interned by centre cell."""

    def __init__(self, grid: int, half: int = 1) -> None:
        self.grid = grid
        self.half = half
        self._squares: dict[tuple[int, int], Square] = {}

    def at(self, cx: int, cy: int) -> Square:
        key = (cx, cy)
        sq = self._squares.get(key)
        if sq is None:
            h, top = self.half, self.grid - 1
            bounds = (max(0, cx - h), min(top, cx + h), max(0, cy - h), min(top, cy + h))
            sq = self._squares[key] = Square(cx, cy, bounds)
        return sq


class MatchCache:
    """``intersection`` of two squares' filters, remembered per (PCD square, SCD square).

    Entities move one cell at a time, so the same pairs of squares are asked
    about again and again; the algebra decides each pair once.
    """

    def __init__(self, limit: int = 1 << 20) -> None:
        self._memo: dict[tuple[Square, Square], Filter | None] = {}
        self.limit = limit
        self.decided = 0  # pairs decided by the algebra (cache misses)

    def mcd(self, p: Square, s: Square) -> Filter | None:
        key = (p, s)
        memo = self._memo
        if key in memo:
            return memo[key]
        if len(memo) >= self.limit:
            memo.clear()
        self.decided += 1
        result = memo[key] = intersection(p.filter, s.filter)
        return result
