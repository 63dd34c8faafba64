"""Exact reasoning about the constraints on one attribute.

Attributes are independent, so every covering question reduces to this one:
given a type and a list of atoms ``(op, operand, positive)`` on a single
attribute, is there a value that satisfies all positive atoms and violates
all negative ones, and which one?

- int: an interval with holes (``!=``) inside ``[INT_MIN, INT_MAX]``. The
  complement of every int atom is again one interval or one hole, so no
  search is needed.
- float: the same after mapping each finite double to its *ordinal*
  (``values.float_order_key``), an integer that preserves order (``-0.0`` and ``0.0`` share ordinal 0, as
  they are one value for every operator). Float reasoning is then int
  reasoning on ``[ord(-max), ord(max)]``.
- bool: two values, enumerated.
- string: ``cbalgebra.covering.strings.solve_string`` (intervals of the
  code-point order where that suffices, an automaton product otherwise).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from cbalgebra.covering.strings import solve_string
from cbalgebra.semantics import value_satisfies
from cbalgebra.values import (
    ANY,
    BOOL,
    EQ,
    FLOAT,
    GE,
    GT,
    INT,
    INT_MAX,
    INT_MIN,
    LE,
    LT,
    NE,
    OPERATOR_OF,
    STRING,
    float_of_order_key,
    float_order_key,
)

Atom = tuple[str, Any, bool]


class _NoSolution:
    """Marker: no value satisfies the atoms (None is a valid value nowhere,
    but a distinct marker keeps intent obvious at call sites)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_SOLUTION"

    def __bool__(self) -> bool:
        return False


NO_SOLUTION = _NoSolution()

#: The order keys (values.float_order_key) of the most negative and the
#: largest finite double: float reasoning is int reasoning on this range.
FLOAT_ORD_MIN = float_order_key(-sys.float_info.max)
FLOAT_ORD_MAX = float_order_key(sys.float_info.max)


# ----------------------------------------------------------------- integers
class IntSet:
    """``[lo, hi]`` minus ``holes``, with the ends tightened past holes.

    Empty when ``lo > hi``. ``holes`` only keeps values strictly inside.
    """

    __slots__ = ("hi", "holes", "lo")

    def __init__(self, lo: int, hi: int, holes: frozenset[int] = frozenset()) -> None:
        if holes:
            while lo <= hi and lo in holes:
                lo += 1
            while hi >= lo and hi in holes:
                hi -= 1
            holes = frozenset(h for h in holes if lo < h < hi)
        self.lo, self.hi, self.holes = lo, hi, holes

    @property
    def empty(self) -> bool:
        return self.lo > self.hi

    def __repr__(self) -> str:
        return f"IntSet({self.lo}, {self.hi}, {sorted(self.holes)})"


def int_set(atoms: Sequence[Atom], lo: int = INT_MIN, hi: int = INT_MAX) -> IntSet:
    """The set of integers in ``[lo, hi]`` satisfying every atom."""
    holes: set[int] = set()
    for op, v, positive in atoms:
        if not positive:
            complement = _complement(op)
            if complement is None:
                return IntSet(1, 0)
            op = complement
        if op == EQ:
            lo, hi = max(lo, v), min(hi, v)
        elif op == NE:
            holes.add(v)
        elif op == LT:
            hi = min(hi, v - 1)
        elif op == LE:
            hi = min(hi, v)
        elif op == GT:
            lo = max(lo, v + 1)
        elif op == GE:
            lo = max(lo, v)
        elif op != ANY:
            raise ValueError(f"operator {op!r} does not apply to numbers")
    return IntSet(lo, hi, frozenset(holes))


def _complement(op: str) -> str | None:
    """The operator of an order atom's complement, for a present value
    (None for ``any``: no present value fails it)."""
    complement = OPERATOR_OF[op].complement
    return None if complement is None else complement.symbol


def int_set_implies(s: IntSet, op: str, v: Any) -> bool:
    """Whether every member of the non-empty set ``s`` satisfies ``op v``."""
    if op == ANY:
        return True
    if op == EQ:
        return s.lo == s.hi == v
    if op == NE:
        return v < s.lo or v > s.hi or v in s.holes
    if op == LT:
        return s.hi < v
    if op == LE:
        return s.hi <= v
    if op == GT:
        return s.lo > v
    if op == GE:
        return s.lo >= v
    raise ValueError(f"operator {op!r} does not apply to numbers")


# ---------------------------------------------------------------------- types
def _float_atoms(atoms: Sequence[Atom]) -> list[Atom]:
    return [(op, None if op == ANY else float_order_key(v), pos) for op, v, pos in atoms]


def number_bounds(type_: str) -> tuple[int, int]:
    """The least and greatest member of an int or float attribute as the
    number sets count them (floats: ordinals)."""
    return (FLOAT_ORD_MIN, FLOAT_ORD_MAX) if type_ == FLOAT else (INT_MIN, INT_MAX)


def number_of(type_: str, member: int) -> int | float:
    """The value of one member of a number set (floats: from its ordinal)."""
    return float_of_order_key(member) if type_ == FLOAT else member


def number_set(type_: str, atoms: Sequence[Atom]) -> IntSet:
    """The int set (floats: ordinals) of values satisfying ``atoms``."""
    if type_ == INT:
        return int_set(atoms)
    return int_set(_float_atoms(atoms), *number_bounds(FLOAT))


def number_set_implies(type_: str, s: IntSet, op: str, v: Any) -> bool:
    if type_ == FLOAT and op != ANY:
        v = float_order_key(v)
    return int_set_implies(s, op, v)


def bool_values(atoms: Sequence[Atom]) -> list[bool]:
    return [
        b for b in (False, True)
        if all(value_satisfies(op, v, b) == pos for op, v, pos in atoms)
    ]


def int_witness(s: IntSet) -> int:
    """A readable member of a non-empty int set: 0 if allowed, else near 0."""
    if s.lo <= 0 <= s.hi and 0 not in s.holes:
        return 0
    if s.lo > 0:
        return s.lo
    if s.hi < 0:
        return s.hi
    # 0 is a hole strictly inside: walk outwards; the ends are members.
    v = 1
    while True:
        if v <= s.hi and v not in s.holes:
            return v
        if -v >= s.lo and -v not in s.holes:
            return -v
        v += 1


def solve(type_: str, atoms: Sequence[Atom]) -> Any:
    """A value of ``type_`` satisfying every atom, or ``NO_SOLUTION``."""
    if type_ in (INT, FLOAT):
        s = number_set(type_, atoms)
        if s.empty:
            return NO_SOLUTION
        return int_witness(s) if type_ == INT else float_witness(s)
    if type_ == BOOL:
        values = bool_values(atoms)
        return values[0] if values else NO_SOLUTION
    if type_ == STRING:
        w = solve_string(list(atoms))
        return NO_SOLUTION if w is None else w
    raise ValueError(f"unknown type {type_!r}")


def float_witness(s: IntSet) -> float:
    """A readable member of a non-empty float set: prefer 0.0, then integers
    and simple values near the bounds, over the raw smallest double."""
    def member(x: float) -> bool:
        o = float_order_key(x)
        return s.lo <= o <= s.hi and o not in s.holes

    lo_val, hi_val = float_of_order_key(s.lo), float_of_order_key(s.hi)
    candidates = [0.0]
    for base in (lo_val, hi_val):
        if abs(base) < 2**53:
            r = float(round(base))
            candidates += [r, r + 1.0, r - 1.0, r + 0.5, r - 0.5]
    for x in candidates:
        if member(x):
            return x
    o = s.lo
    while o in s.holes:  # pragma: no cover - lo is never a hole after tightening
        o += 1
    return float_of_order_key(o)
