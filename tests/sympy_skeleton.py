"""The minimal reducer before issue 26, kept as a reference for tests and
benchmarks: sympy's ``SOPform`` over the Boolean skeleton of one group of
conjunctions (each distinct constraint an atom, impossible atom
combinations as don't-cares decided by the covering layer), mapped back to
constraints. Its truth table has 2^k rows for k atoms: use it for k <= 9.

``minimize_component(filters)`` returns a smaller equivalent set of
conjunctions, or None (no smaller one found, or a negated atom without a
single-constraint complement).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from cbalgebra.covering import NO_SOLUTION, solve_atoms
from cbalgebra.values import ANY, ANYTYPE, EQ, GE, GT, LE, LT, NE, TYPES, Constraint, Filter

#: The most atoms one call is meant for (it was the reducer's refusal threshold).
MAX_ATOMS = 9

_COMPLEMENT = {EQ: NE, NE: EQ, LT: GE, GE: LT, GT: LE, LE: GT}


def atoms_of(filters: Sequence[Filter]) -> list[Constraint]:
    return sorted({c for f in filters for c in f.constraints})


def _attribute_feasible(true: Sequence[Constraint], false: Sequence[Constraint]) -> bool:
    """Whether one attribute can make every ``true`` constraint hold and every
    ``false`` one fail (absence makes all of them fail). Exact, no solver:
    the covering layer's per-type procedures decide it."""
    if not true:
        return True  # the attribute is absent
    types = {c.type for c in true if c.type != ANYTYPE}
    if len(types) > 1:
        return False
    if any(c.type == ANYTYPE for c in false):
        return False  # present: "any name any" holds
    candidates = list(types) if types else list(TYPES)
    for t in candidates:
        atoms = [(c.op, c.value, True) for c in true if c.type == t and c.op != ANY]
        atoms += [(c.op, c.value, False) for c in false if c.type == t]
        if solve_atoms(t, atoms) is not NO_SOLUTION:
            return True
    return False


def _feasible_assignments(atoms: Sequence[Constraint]) -> list[int]:
    """Bitmasks (bit i = atoms[i] true) of the assignments that some value of
    the attribute, or its absence, realizes. All atoms share one name.
    Depth-first with pruning: an impossible partial assignment stays so."""
    k = len(atoms)
    out: list[int] = []

    def walk(i: int, mask: int, true: list[Constraint], false: list[Constraint]) -> None:
        if not _attribute_feasible(true, false):
            return
        if i == k:
            out.append(mask)
            return
        c = atoms[i]
        walk(i + 1, mask, true, [*false, c])
        walk(i + 1, mask | 1 << i, [*true, c], false)

    walk(0, 0, [], [])
    return out


def _care_set(atoms: Sequence[Constraint]) -> list[int]:
    """Bitmasks over all atoms of the assignments some message realizes."""
    by_name: dict[str, list[int]] = {}
    for i, c in enumerate(atoms):
        by_name.setdefault(c.name, []).append(i)
    per_name = []
    for idx in by_name.values():
        local = _feasible_assignments([atoms[i] for i in idx])
        per_name.append([sum(1 << idx[b] for b in range(len(idx)) if m >> b & 1) for m in local])
    return [sum(parts) for parts in product(*per_name)]


def _map_term(literals: list[tuple[Constraint, bool]]) -> list[Constraint] | None:
    """A term's literals as constraints, or None when a negation has no
    single-constraint complement."""
    positives = [c for c, pos in literals if pos]
    out = list(positives)
    for c, pos in literals:
        if pos:
            continue
        present = any(d.name == c.name and d.type == c.type and d.type != ANYTYPE for d in positives)
        if not present or c.op not in _COMPLEMENT:
            return None
        out.append(Constraint(c.type, c.name, _COMPLEMENT[c.op], c.value))
    return out


def minimize_component(filters: Sequence[Filter]) -> list[Filter] | None:
    """A smaller equivalent set of conjunctions for one component, or None."""
    # sympy takes about a second to import: only the minimal reducer needs it.
    from sympy import Symbol
    from sympy.logic import SOPform
    from sympy.logic.boolalg import And, BooleanFalse, BooleanTrue, Not, Or

    atoms = atoms_of(filters)
    k = len(atoms)
    index = {c: i for i, c in enumerate(atoms)}
    masks = [sum(1 << index[c] for c in f.constraints) for f in filters]
    care = _care_set(atoms)
    care_set = set(care)
    on = sorted(m for m in care if any(m & t == t for t in masks))
    if not on:
        return None
    dc = [m for m in range(1 << k) if m not in care_set]
    symbols = [Symbol(f"a{i}") for i in range(k)]

    def bits(m: int) -> list[int]:
        return [m >> i & 1 for i in range(k)]

    expr = SOPform(symbols, [bits(m) for m in on], [bits(m) for m in dc])
    if isinstance(expr, (BooleanTrue, BooleanFalse)):
        return None
    terms = expr.args if isinstance(expr, Or) else (expr,)
    out = []
    for term in terms:
        lits = term.args if isinstance(term, And) else (term,)
        literals = []
        for lit in lits:
            if isinstance(lit, Not):
                literals.append((atoms[symbols.index(lit.args[0])], False))
            else:
                literals.append((atoms[symbols.index(lit)], True))
        mapped = _map_term(literals)
        if mapped is None:
            return None
        out.append(Filter(mapped))
    if sum(f.size for f in out) >= sum(f.size for f in filters):
        return None
    return out
