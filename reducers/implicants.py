"""Boxes of cells, and every implicant that can serve a smallest cover.

A group of conjunctions lives in the product of its names' cells
(``cells.py``). A *box* gives each name a set of cells (a bit mask; a name
it leaves out has all of them); a conjunction of vocabulary atoms is the box
of the intersections of its atoms' masks, and the predicate ``P`` is the
union of its conjunctions' boxes. A *point* picks one cell per name.

- :meth:`Space.uncovered` finds a point of a box outside a union of boxes,
  or proves there is none (split the box on a name into the classes the
  union's boxes cannot tell apart, recurse). It prefers the cells of a
  reference point, so the point it returns differs from it little.
- :meth:`Space.implicants_containing` lists every conjunction of atoms
  that contains a given point of ``P``, is contained in ``P`` (an
  *implicant*), and is not *dominated* (another implicant with a box at
  least as large and no more atoms). The atoms of such an implicant hold at
  the point; each point outside ``P`` that the current conjunction still
  contains must be excluded by one more atom, so the implicants are the
  hitting sets of those exclusions, found lazily (Reiter's hitting-set
  tree, each set reached once). A smallest cover of ``P`` only needs
  non-dominated implicants (drop an atom, or swap for a dominating one: the
  cover stays a cover and costs no more), so the list is complete for that
  purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cbalgebra.values import Constraint

from .cells import AttributeCells, check_time

Box = dict[int, int]  # name index -> mask of cells (absent: all cells)
Point = tuple[int, ...]  # name index -> cell


@dataclass(frozen=True)
class Implicant:
    """A conjunction of vocabulary atoms (indices into :attr:`Space.atoms`)."""

    atoms: tuple[int, ...]
    box: tuple[tuple[int, int], ...]  # sorted items of its Box

    @property
    def cost(self) -> int:
        return len(self.atoms)


def box_key(box: Box) -> tuple[tuple[int, int], ...]:
    return tuple(sorted(box.items()))


class Space:
    """The cells of a group's names and its atoms, as numbers."""

    def __init__(self, attributes: Sequence[AttributeCells], deadline: float | None = None) -> None:
        self.attributes = tuple(attributes)
        self.full = tuple(a.full for a in self.attributes)
        #: Every atom: (name index, mask, constraint).
        self.atoms: list[tuple[int, int, Constraint]] = [
            (n, m, c) for n, a in enumerate(self.attributes) for c, m in zip(a.atoms, a.masks, strict=True)
        ]
        self.index = {c: i for i, (_, _, c) in enumerate(self.atoms)}
        self.deadline = deadline
        self._orders: dict[tuple[int, int], tuple[int, ...]] = {}

    # ---------------------------------------------------------------- boxes
    def box_of(self, constraints: Sequence[Constraint]) -> Box:
        box: Box = {}
        for c in constraints:
            n, m, _ = self.atoms[self.index[c]]
            box[n] = box.get(n, self.full[n]) & m
        return box

    def contains(self, box: Box, point: Point) -> bool:
        return all(m >> point[n] & 1 for n, m in box.items())

    @staticmethod
    def meets(a: Box, b: Box) -> bool:
        """Whether the boxes share a point (neither is empty)."""
        for n, m in a.items():
            other = b.get(n)
            if other is not None and not m & other:
                return False
        return True

    def within(self, a: Box, b: Box) -> bool:
        """Whether box a lies in box b (a name a leaves out has every cell)."""
        for n, m in b.items():
            mine = a.get(n, self.full[n])
            if mine & ~m:
                return False
        return True

    # ------------------------------------------------------------- points
    def order(self, n: int, cell: int) -> tuple[int, ...]:
        """The cells of name n, those most like ``cell`` (the most atoms of
        the name agreeing) first: a point that must leave ``cell`` moves to
        one that keeps the most of its atoms."""
        key = (n, cell)
        found = self._orders.get(key)
        if found is None:
            a = self.attributes[n]
            at = [m >> cell & 1 for m in a.masks]

            def agreement(c: int) -> int:
                return -sum((m >> c & 1) == t for m, t in zip(a.masks, at, strict=True))

            found = self._orders[key] = tuple(sorted(range(a.count), key=lambda c: (c != cell, agreement(c), c)))
        return found

    def pick(self, box: Box, near: Point) -> Point:
        """A point of a non-empty box: absent where the box leaves a name
        free, else the cell nearest ``near`` (see :meth:`order`)."""
        out = [0] * len(near)
        for n, m in box.items():
            out[n] = near[n] if m >> near[n] & 1 else next(c for c in self.order(n, near[n]) if m >> c & 1)
        return tuple(out)

    def _check_time(self) -> None:
        check_time(self.deadline)

    def in_union(self, point: Point, union: Sequence[Box]) -> bool:
        return any(self.contains(u, point) for u in union)

    def uncovered(self, box: Box, union: Sequence[Box], near: Point) -> Point | None:
        """A point of ``box`` in no box of ``union`` (near ``near``), or None.

        Absence is a best choice for a name the box leaves free: no box that
        constrains the name holds there (no atom holds on absence). So only
        the boxes constraining nothing but the box's own names can cover it,
        and the search splits on those names only."""
        self._check_time()
        keys = box.keys()
        rel = [u for u in union if u.keys() <= keys and self.meets(u, box)]
        z = self._escape(box, rel, near)
        return None if z is None else self._nearer(z, box, union, near)

    def _escape(self, box: Box, rel: list[Box], near: Point) -> Point | None:
        if not rel:
            return self.pick(box, near)
        for u in rel:
            if self.within(box, u):
                return None
        # Split on the name the most boxes cut, into the classes they cannot tell apart.
        counts: dict[int, int] = {}
        for u in rel:
            for n, m in u.items():
                if box[n] & ~m:
                    counts[n] = counts.get(n, 0) + 1
        n = max(counts, key=lambda k: (counts[k], -k))
        classes = [box[n]]
        for u in rel:
            cut = u.get(n)
            if cut is not None:
                classes = [part for c in classes for part in (c & cut, c & ~cut) if part]
        rank = {c: i for i, c in enumerate(self.order(n, near[n]))}
        classes.sort(key=lambda cls: min(rank[c] for c in _bits(cls)))
        for cls in classes:
            part = {**box, n: cls}
            found = self._escape(part, [u for u in rel if self.meets(u, part)], near)
            if found is not None:
                return found
        return None

    def _nearer(self, z: Point, box: Box, union: Sequence[Box], near: Point) -> Point:
        """``z`` moved towards ``near``, one name at a time, while it stays in
        the box and out of the union: the fewer atoms separate it from
        ``near``, the fewer ways to exclude it (:meth:`implicants_containing`)."""
        out = list(z)
        for n, c0 in enumerate(z):
            if c0 == near[n]:
                continue
            allowed = box.get(n, self.full[n])
            for c in self.order(n, near[n]):
                if c == c0:
                    break
                if allowed >> c & 1:
                    out[n] = c
                    if not self.in_union(tuple(out), union):
                        break
                    out[n] = c0
        return tuple(out)

    # --------------------------------------------------------- implicants
    def implicants_containing(self, point: Point, union: Sequence[Box], max_cost: int) -> list[Implicant]:
        """Every non-dominated implicant of ``union`` through ``point`` with at
        most ``max_cost`` atoms (see the module's docstring)."""
        holding = [i for i, (n, m, _) in enumerate(self.atoms) if m >> point[n] & 1]
        found: list[tuple[Box, int, tuple[int, ...]]] = []

        def dominated(box: Box, cost: int) -> bool:
            return any(c <= cost and self.within(box, b) for b, c, _ in found)

        def walk(chosen: tuple[int, ...], box: Box, excluded: frozenset[int]) -> None:
            if dominated(box, len(chosen)):
                return
            z = self.uncovered(box, union, point)
            if z is None:
                found.append((box, len(chosen), chosen))
                return
            if len(chosen) >= max_cost:
                return
            branch = [i for i in holding if i not in excluded and not self.atoms[i][1] >> z[self.atoms[i][0]] & 1]
            for j, i in enumerate(branch):
                n, m, _ = self.atoms[i]
                walk((*chosen, i), {**box, n: box.get(n, self.full[n]) & m}, excluded | frozenset(branch[:j]))

        walk((), {}, frozenset())
        out = []
        for k, (box, cost, chosen) in enumerate(found):
            if not any(c <= cost and self.within(box, b) and (c < cost or j < k or not self.within(b, box))
                       for j, (b, c, _) in enumerate(found) if j != k):
                out.append(Implicant(tuple(sorted(chosen)), box_key(box)))
        return out


def _bits(mask: int) -> list[int]:
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out
