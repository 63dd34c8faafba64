"""One attribute's values, cut into the cells its constraints cannot tell apart.

The exact ``minimal`` reducer (``minimal.py``) reasons about a group of
conjunctions over the *vocabulary* of issue 26: the constraints it was given,
each one's single-constraint complement of the same type (``=``↔``!=``,
``<``↔``>=``, ``>``↔``<=``), and ``T name any``. Attributes are independent,
so a message is a tuple of one value (or absence) per name, and every
vocabulary atom on a name holds on a union of that name's *cells*: the
classes of values on which every atom of the name has the same truth value.
Cell 0 is always the attribute's absence (no atom holds there).

Cells are found exactly, with no sampling: per type, every ``=``/``!=``
operand is a cell of its own (one value), and the rest of the type's values
are split by a depth-first walk over the remaining atoms in which the
covering layer's ``solve_atoms`` decides each partial truth assignment (and
gives a witness value, so a branch the witness already satisfies needs no
second call). Each cell keeps a witness value; an atom's cells are those
whose witness satisfies it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cbalgebra.covering import NO_SOLUTION, solve_atoms
from cbalgebra.errors import EXIT_INCOMPLETE, CbalgebraError
from cbalgebra.semantics import value_satisfies
from cbalgebra.values import ANY, ANYTYPE, BOOL, EQ, GE, GT, LE, LT, NE, TYPES, Constraint

#: The complement of an operator on a present value of the same type.
COMPLEMENT = {EQ: NE, NE: EQ, LT: GE, GE: LT, GT: LE, LE: GT}

#: The witness of the cell "present with a type no constraint of the name has".
OTHER_TYPE = object()


class OutOfTime(CbalgebraError):
    """A group's budget ran out in the middle of its work (the minimal
    reducer catches it: it never reaches a caller)."""

    exit_code = EXIT_INCOMPLETE


def check_time(deadline: float | None) -> None:
    """Raise :class:`OutOfTime` past ``deadline`` (``time.monotonic``; None: never)."""
    if deadline is not None and time.monotonic() > deadline:
        raise OutOfTime


@dataclass(frozen=True)
class AttributeCells:
    """The cells of one attribute name and its vocabulary atoms.

    ``masks[i]`` has bit c set when ``atoms[i]`` holds on cell c; cell 0 is
    the attribute's absence; ``full`` has every cell's bit.
    """

    name: str
    atoms: tuple[Constraint, ...]
    masks: tuple[int, ...]
    count: int

    @property
    def full(self) -> int:
        return (1 << self.count) - 1


def complement(c: Constraint) -> Constraint | None:
    """The one constraint of c's type that holds exactly where c fails on a
    present value of that type, or None (prefix, suffix, substring, any)."""
    op = COMPLEMENT.get(c.op)
    if op is None or c.type == ANYTYPE:
        return None
    return Constraint(c.type, c.name, op, c.value)


def vocabulary(constraints: Iterable[Constraint]) -> tuple[Constraint, ...]:
    """The atoms on one name: the constraints, their complements, ``T name any``
    for each of their types, and ``any name any`` where two types (or an
    ``any`` constraint) meet (with one type, ``any name any`` can always be
    replaced by nothing: the predicate cannot tell another type from absence)."""
    base = set(constraints)
    out = set(base)
    for c in base:
        d = complement(c)
        if d is not None:
            out.add(d)
    types = {c.type for c in base}
    name = next(iter(base)).name if base else ""
    out.update(Constraint(t, name, ANY) for t in types if t != ANYTYPE)
    if ANYTYPE in types or len(types) >= 2:
        out.add(Constraint(ANYTYPE, name, ANY))
    return tuple(sorted(out))


def _type_witnesses(type_: str, atoms: Sequence[Constraint], deadline: float | None) -> list[Any]:
    """One value of each cell of ``type_``: the ``=``/``!=`` operands, then the
    classes of the other values under the remaining atoms."""
    points = sorted({c.value for c in atoms if c.op in (EQ, NE)}, key=repr)
    if type_ == BOOL:
        return [False, True]
    others = sorted({(c.op, c.value) for c in atoms if c.op not in (EQ, NE, ANY)}, key=repr)
    fixed = [(EQ, v, False) for v in points]
    out: list[Any] = list(points)

    def walk(i: int, chosen: list[tuple[str, Any, bool]], witness: Any) -> None:
        if i == len(others):
            out.append(witness)
            return
        op, v = others[i]
        held = value_satisfies(op, v, witness)
        walk(i + 1, [*chosen, (op, v, held)], witness)  # the witness stays one: no call
        flipped = [*chosen, (op, v, not held)]
        check_time(deadline)
        w = solve_atoms(type_, fixed + flipped)
        if w is not NO_SOLUTION:
            walk(i + 1, flipped, w)

    first = solve_atoms(type_, fixed)
    if first is not NO_SOLUTION:
        walk(0, [], first)
    return out


def attribute_cells(name: str, constraints: Iterable[Constraint], deadline: float | None = None) -> AttributeCells:
    """The cells of ``name`` under the vocabulary of ``constraints`` (all on
    ``name``); :class:`OutOfTime` past ``deadline``. A name whose prefix,
    suffix and substring atoms are independent has up to 2^k cells."""
    atoms = vocabulary(constraints)
    types = sorted({c.type for c in atoms if c.type != ANYTYPE})
    witnesses: list[tuple[str | None, Any]] = [(None, None)]  # cell 0: absent
    if any(c.type == ANYTYPE for c in atoms) and len(types) < len(TYPES):
        witnesses.append((None, OTHER_TYPE))
    for t in types:
        typed = [c for c in atoms if c.type == t]
        seen: set[tuple[bool, ...]] = set()
        for w in _type_witnesses(t, typed, deadline):
            key = tuple(c.op == ANY or value_satisfies(c.op, c.value, w) for c in typed)
            if key not in seen:  # -0.0 and 0.0, say: one cell
                seen.add(key)
                witnesses.append((t, w))
    masks = tuple(_mask(c, witnesses) for c in atoms)
    return AttributeCells(name, atoms, masks, len(witnesses))


def _mask(c: Constraint, witnesses: Sequence[tuple[str | None, Any]]) -> int:
    mask = 0
    for i, (t, w) in enumerate(witnesses):
        if w is None and t is None:
            continue  # absent: nothing holds
        if c.type == ANYTYPE:
            holds = True
        elif t != c.type:
            holds = False
        else:
            holds = c.op == ANY or value_satisfies(c.op, c.value, w)
        if holds:
            mask |= 1 << i
    return mask
