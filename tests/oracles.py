"""Naive references kept beside the tests: brute force over small domains.

The truth of a constraint on a number depends only on where the value sits
among the constants, so for each name we enumerate the constants, their
immediate neighbours and the ends of the domain: every region between
consecutive constants gets a representative. For ints and floats that makes
the enumeration *complete*: if some message separates two filters, one made
of these representatives does too.

Strings are enumerated over a small alphabet up to a length bound, plus
every join of two constants (side by side or overlapping) with a character
before or after. For the string tests below (one name, at most two atoms a
filter) a shortest separating string is among those. The string automaton
has its own, wider brute-force test.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterable, Iterator

from cbalgebra.semantics import matches
from cbalgebra.values import ANYTYPE, BOOL, FLOAT, INT, INT_MAX, INT_MIN, STRING, TYPES
from cbalgebra.values import Advertisement, Attribute, Constraint, Filter, Message, Predicate

STRING_ALPHABET = ("\x00", "a", "b", "z", "{")
STRING_MAX_LENGTH = 3


def _int_values(constants: Iterable[int]) -> set[int]:
    values = {INT_MIN, INT_MAX, 0}
    for c in constants:
        values.update(v for v in (c - 1, c, c + 1) if INT_MIN <= v <= INT_MAX)
    return values


def _float_values(constants: Iterable[float]) -> set[float]:
    top = sys.float_info.max
    values = {-top, top, 0.0}
    for c in constants:
        values.update((math.nextafter(c, -math.inf), c, math.nextafter(c, math.inf)))
    return {0.0 if v == 0 else v for v in values if math.isfinite(v)}


def _string_values(constants: Iterable[str]) -> set[str]:
    values = {"".join(p) for n in range(STRING_MAX_LENGTH + 1)
              for p in itertools.product(STRING_ALPHABET, repeat=n)}
    # Two positive atoms may need their constants side by side, overlapping or
    # not, with a character around them to dodge a negated atom.
    pieces = set(constants) | {""}
    for c1 in pieces:
        for c2 in pieces:
            # ... or one character apart, so that a negated atom spanning the
            # seam is dodged (not [y * "ba"] with [y * "b", y *< "aa"]: "bzaa").
            apart = {c1 + ch + c2 for ch in STRING_ALPHABET}
            for joined in {c1 + c2} | apart | {c1 + c2[k:] for k in range(1, len(c2) + 1) if c1.endswith(c2[:k])}:
                values.add(joined)
                values.update(joined + ch for ch in STRING_ALPHABET)
                values.update(ch + joined for ch in STRING_ALPHABET)
    return values


def attribute_domain(constraints: Iterable[Constraint]) -> list[Attribute | None]:
    """Representatives of every way one attribute can behave (None = absent)."""
    by_type: dict[str, set] = {}
    for c in constraints:
        if c.type != ANYTYPE:
            values = by_type.setdefault(c.type, set())
            if c.value is not None:
                values.add(c.value)
    full = {INT: _int_values, FLOAT: _float_values, STRING: _string_values,
            BOOL: lambda _: (False, True)}
    domain: list[Attribute | None] = [None]
    for t in TYPES:
        if t in by_type:
            domain += [Attribute(t, v) for v in sorted(full[t](by_type[t]))]
        else:
            # No constraint looks at this type's values: one stands for all.
            domain.append(Attribute(t, {INT: 0, FLOAT: 0.0, BOOL: False, STRING: ""}[t]))
    return domain


def _constraints_of(*xs) -> list[Constraint]:
    out: list[Constraint] = []
    for x in xs:
        if isinstance(x, Predicate):
            for f in x:
                out.extend(f)
        elif isinstance(x, (Filter, Advertisement)):
            out.extend(x)
        elif isinstance(x, Constraint):
            out.append(x)
    return out


def messages_for(*xs, max_messages: int = 400_000) -> Iterator[Message]:
    """Every representative message over the names that ``xs`` mention."""
    cs = _constraints_of(*xs)
    names = sorted({c.name for c in cs})
    domains = [attribute_domain([c for c in cs if c.name == n]) for n in names]
    total = math.prod(len(d) for d in domains)
    if total > max_messages:
        raise ValueError(f"brute force over {total} messages is too large")
    for combo in itertools.product(*domains):
        yield Message({n: a for n, a in zip(names, combo, strict=True) if a is not None})


def brute_covers(x, y) -> bool:
    return all(matches(x, m) for m in messages_for(x, y) if matches(y, m))


def brute_counterexample(x, y) -> Message | None:
    for m in messages_for(x, y):
        if matches(y, m) and not matches(x, m):
            return m
    return None


def brute_overlaps(x, y, nonempty: bool = False) -> bool:
    return any(matches(x, m) and matches(y, m) for m in messages_for(x, y) if not nonempty or len(m))


def brute_satisfiable(x) -> bool:
    return any(matches(x, m) for m in messages_for(x))
