"""Sets of strings as intervals of the code-point order: the fast path of
:mod:`cbalgebra.covering.strings`.

Atoms over ``=, !=, <, <=, >, >=`` and prefix are each a union of at most two
half-open intervals of the code-point order (exactly Python's ``<`` on
``str``), so their conjunction is an interval intersection and its shortest
member a short computation, with no automaton (docs/design.md, §5 "Deciding
covering", layer 2). This module also holds the code-point steps (strings
contain no surrogates) and the readable choice of a character in a run, which
the automata of :mod:`cbalgebra.covering.strings` share.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "MAX_CHAR",
    "MAX_CP",
    "SURROGATE_FIRST",
    "SURROGATE_LAST",
    "Interval",
    "interval_region",
    "pick",
    "solve_intervals",
]

MAX_CP = 0x10FFFF
MAX_CHAR = chr(MAX_CP)
SURROGATE_FIRST, SURROGATE_LAST = 0xD800, 0xDFFF


# --------------------------------------------------------------------------
# Code points and readable representatives


def _next_cp(cp: int) -> int:
    """The next code point a string may contain (skips the surrogates)."""
    return SURROGATE_LAST + 1 if cp + 1 == SURROGATE_FIRST else cp + 1


def _prev_cp(cp: int) -> int:
    return SURROGATE_FIRST - 1 if cp - 1 == SURROGATE_LAST else cp - 1


# Ranges tried in order when choosing a character inside a run: lowercase,
# uppercase, digits, printable ASCII, then space (legal but easy to misread).
_READABLE_RANGES = ((0x61, 0x7A), (0x41, 0x5A), (0x30, 0x39), (0x21, 0x7E), (0x20, 0x20))
_PRINTABLE_SCAN_LIMIT = 512


@lru_cache(maxsize=65536)
def pick(first: int, last: int) -> str:
    """A readable character of a run known to hold one (see ``_pick_in``)."""
    char = _pick_in(first, last)
    if char is None:
        raise ValueError(f"no character has a code point in [{first:#x}, {last:#x}]")
    return char


def _pick_in(first: int, last: int) -> str | None:
    """A readable character with code point in ``[first, last]``, or ``None``.

    Every character of a run behaves alike for all atoms, so any one will do;
    witnesses are shown to users, hence letters first, control characters last.
    """
    for low, high in _READABLE_RANGES:
        if first <= high and low <= last:
            return chr(max(first, low))
    cp = first
    for cp in range(first, min(last, first + _PRINTABLE_SCAN_LIMIT) + 1):
        if not SURROGATE_FIRST <= cp <= SURROGATE_LAST and chr(cp).isprintable():
            return chr(cp)
    if SURROGATE_FIRST <= first <= SURROGATE_LAST:
        first = SURROGATE_LAST + 1
    return chr(first) if first <= last else None


# --------------------------------------------------------------------------
# The fast path: intervals of the code-point order
#
# A set of strings is a sorted list of disjoint half-open intervals
# [lo, hi), with hi None for "unbounded above". The immediate successor of s
# is s + "\x00", so [v, v + "\x00") is exactly {v}. Holes (!=) are the
# complement of such singletons, which is why a finite interval like
# [a, a\0\0\0) minus {a, a\0, a\0\0} comes out empty with no special case.

Interval = tuple[str, "str | None"]


def _prefix_upper_bound(prefix: str) -> str | None:
    """The least string above every extension of ``prefix`` (None: there is none).

    Drop trailing U+10FFFF characters, then increment the last character.
    """
    stem = prefix.rstrip(MAX_CHAR)
    if not stem:
        return None
    return stem[:-1] + chr(_next_cp(ord(stem[-1])))


@lru_cache(maxsize=65536)
def _atom_intervals(op: str, value: str, positive: bool) -> tuple[Interval, ...]:
    """The strings satisfying one canonical interval atom."""
    if op == "=":
        lo, hi = value, value + "\x00"
    elif op == ">":
        lo, hi = value + "\x00", None
    elif op == ">=":
        lo, hi = value, None
    elif op == ">*":
        lo, hi = value, _prefix_upper_bound(value)
    else:
        raise ValueError(f"{op!r} is not an interval operator")
    if positive:
        return ((lo, hi),)
    complement: list[Interval] = []
    if lo != "":
        complement.append(("", lo))
    if hi is not None:
        complement.append((hi, None))
    return tuple(complement)


def _ends_before(a: str | None, b: str | None) -> bool:
    """Whether upper bound ``a`` is below upper bound ``b`` (None is infinity)."""
    return a is not None and (b is None or a < b)


def _intersect(first: Sequence[Interval], second: Sequence[Interval]) -> list[Interval]:
    """Intersection of two sorted lists of disjoint half-open intervals."""
    out: list[Interval] = []
    i = j = 0
    while i < len(first) and j < len(second):
        (lo1, hi1), (lo2, hi2) = first[i], second[j]
        lo = max(lo1, lo2)
        hi = hi1 if _ends_before(hi1, hi2) else hi2
        if hi is None or lo < hi:
            out.append((lo, hi))
        if _ends_before(hi1, hi2):
            i += 1
        else:
            j += 1
    return out


def _shortest_at_least(floor: str) -> str:
    """A shortest string ``>= floor``, readable where there is a choice."""
    if floor == "":
        return ""
    # A shorter string is >= floor only by exceeding it at some position j;
    # the earliest position whose character can still grow gives the shortest.
    for j in range(len(floor) - 1):
        if floor[j] != MAX_CHAR:
            return floor[:j] + pick(_next_cp(ord(floor[j])), MAX_CP)
    return floor[:-1] + pick(ord(floor[-1]), MAX_CP)


def _shortest_in(lo: str, hi: str | None) -> str:
    """A shortest string in the non-empty interval [lo, hi)."""
    if lo == "":
        return ""
    if hi is None:
        return _shortest_at_least(lo)
    d = 0
    limit = min(len(lo), len(hi))
    while d < limit and lo[d] == hi[d]:
        d += 1
    if d == len(lo):
        # lo is a proper prefix of hi: nothing shorter than lo lies between.
        return lo
    # lo and hi first differ at d. A string of length d + 1 in the interval is
    # lo[:d] + c, with c from lo[d] (only if that is all of lo) up to hi[d]
    # (only if hi goes on after it, else c + ... would be >= hi).
    first = ord(lo[d]) if len(lo) == d + 1 else _next_cp(ord(lo[d]))
    last = ord(hi[d]) if len(hi) > d + 1 else _prev_cp(ord(hi[d]))
    if first <= last:
        char = _pick_in(first, last)
        if char is not None:
            return lo[:d] + char
    # Otherwise every string of the interval extends lo[:d + 1] (and all of
    # those are below hi), so it is the shortest such extension that is >= lo.
    return lo[: d + 1] + _shortest_at_least(lo[d + 1 :])


def solve_intervals(atoms: tuple[tuple[str, str, bool], ...]) -> tuple[bool, str | None]:
    """(satisfiable, shortest witness) for canonical interval atoms."""
    region = interval_region(atoms)
    if not region:
        return False, None
    witness = _shortest_in(*region[0])
    for lo, hi in region[1:]:
        if len(witness) <= 1:
            break  # only the first interval can hold "", so nothing is shorter
        candidate = _shortest_in(lo, hi)
        if len(candidate) < len(witness):
            witness = candidate
    return True, witness


def interval_region(atoms: Sequence[tuple[str, str, bool]]) -> list[Interval]:
    """The strings satisfying every canonical interval atom, as sorted intervals.

    Exclusions (``!=``, canonically ``("=", v, False)``) are not intersected
    one by one, which would cost a pass over the growing region per exclusion
    (quadratic: 4,000 exclusions took seconds). They are sorted once into the
    complement of their union and intersected in a single merge.
    """
    region: list[Interval] = [("", None)]
    holes = []
    for atom in atoms:
        if atom[0] == "=" and not atom[2]:
            holes.append(atom[1])
            continue
        region = _intersect(region, _atom_intervals(*atom))
        if not region:
            return region
    if holes:
        region = _intersect(region, _complement_of_points(holes))
    return region


def _complement_of_points(points: Sequence[str]) -> list[Interval]:
    """All strings except ``points``: the gaps between the sorted singletons.

    The singleton {p} is [p, p + "\\x00"); the gap after p is empty exactly
    when the next point is p's immediate successor p + "\\x00".
    """
    gaps: list[Interval] = []
    lo = ""
    for p in sorted(set(points)):
        if lo < p:
            gaps.append((lo, p))
        lo = p + "\x00"
    gaps.append((lo, None))
    return gaps
