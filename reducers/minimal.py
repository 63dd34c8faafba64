"""Two-level minimization of a predicate's Boolean skeleton with sympy.

Each distinct constraint of the predicate is a Boolean atom, and the
predicate is a sum of products of positive atoms. Not every assignment of
the atoms is possible: ``x < 5`` and ``x >= 5`` cannot both hold, ``x = 3``
implies ``x != 7``, and ``x != 7`` false with ``x < 5`` false means x is
present, so ``x >= 5``. Those impossible assignments are *don't-cares*; the
covering layer decides them, one attribute at a time (attributes are
independent, so the possible assignments are a product over names).

sympy's ``SOPform`` then minimizes the sum of products with those don't-cares,
and the result is mapped back to constraints. A negated atom ``¬c`` maps to
c's complement (``¬(x < 5)`` → ``x >= 5``) when the same term holds a
positive atom of the same name and type, which makes the attribute present
with that type; a negated prefix, suffix, substring or ``any`` atom has no
single-constraint complement, and then the component keeps its input form.

Conjunctions that share no attribute name with each other (transitively) are
minimized separately: a minimal sum of products of a disjunction over
independent atoms never mixes them (a mixed term could drop one side).

Cost: the truth table has 2^k rows for k atoms, and sympy's Quine–McCluskey
grows faster than that. :data:`MAX_ATOMS` is measured by
``benchmarks/reduce.py --sympy-budget``; above it :class:`ReductionBudgetError`
is raised before any work starts.
"""

from __future__ import annotations

from collections.abc import Sequence
import itertools
from itertools import product

from cbalgebra.covering import NO_SOLUTION, solve_atoms
from cbalgebra.errors import EXIT_INCOMPLETE, CbalgebraError
from cbalgebra.values import ANY, ANYTYPE, EQ, GE, GT, LE, LT, NE, TYPES, Constraint, Filter, Predicate

from .rules import DisjunctionRewrite, Step

#: Most atoms (distinct constraints) in one connected component that the
#: minimal reducer accepts. Measured on this project's 2-core machine: see
#: docs/guide/reducers.md and benchmarks/results/reduce_sympy_budget.csv.
MAX_ATOMS = 9


class ReductionBudgetError(CbalgebraError, RuntimeError):
    """The requested reduction would take too long; nothing was computed."""

    exit_code = EXIT_INCOMPLETE


_COMPLEMENT = {EQ: NE, NE: EQ, LT: GE, GE: LT, GT: LE, LE: GT}


def components(filters: Sequence[Filter]) -> list[list[Filter]]:
    """Group conjunctions that share attribute names (transitively)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for f in filters:
        names = sorted(f.names)
        for a in names:
            find(a)
        for a, b in itertools.pairwise(names):
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[Filter]] = {}
    for f in filters:
        root = find(min(f.names)) if f.names else ""
        groups.setdefault(root, []).append(f)
    return [groups[k] for k in sorted(groups)]


def atoms_of(filters: Sequence[Filter]) -> list[Constraint]:
    return sorted({c for f in filters for c in f.constraints})


def check_budget(filters: Sequence[Filter], max_atoms: int | None = None) -> int:
    """The largest component's atom count; raise when above the budget."""
    limit = MAX_ATOMS if max_atoms is None else max_atoms
    worst = 0
    for comp in components(filters):
        if len(comp) < 2:
            continue
        k = len(atoms_of(comp))
        worst = max(worst, k)
        if k > limit:
            raise ReductionBudgetError(
                f"minimal: a group of {len(comp)} conjunctions sharing attributes has {k} distinct "
                f"constraints; the sympy minimization is limited to {limit} (its truth table has "
                f"2^{k} rows). Use reducer 'cover', or split the predicate."
            )
    return worst


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


def minimize_skeleton(filters: tuple[Filter, ...]) -> DisjunctionRewrite:
    """P → a minimal sum of products of P's atoms, modulo impossible atom combinations (sympy SOPform)"""
    check_budget(filters)
    out: list[Filter] = []
    steps: list[Step] = []
    for comp in components(filters):
        if len(comp) < 2:
            out.extend(comp)
            continue
        new = minimize_component(comp)
        if new is None:
            out.extend(comp)
            continue
        out.extend(new)
        steps.append(Step("minimize_skeleton", tuple(comp), tuple(new),
                          detail=f"{len(atoms_of(comp))} atoms; size {sum(f.size for f in comp)} → "
                                 f"{sum(f.size for f in new)}"))
    if not steps:
        return filters, []
    return tuple(Predicate(out).filters), steps
