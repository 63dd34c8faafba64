"""The rewrite rules of the reducers, one small named function each.

Two kinds, both pure:

- *conjunction rules* ``rule(f) -> (g, steps) | None`` rewrite one
  conjunction ``f`` into ``g`` (``None``: f is dropped), or return None when
  they do not apply;
- *disjunction rules* ``rule(filters) -> (filters', steps)`` rewrite the whole
  disjunction (a canonical tuple of conjunctions).

Each docstring's first line is the rule's algebra. ``steps`` are
:class:`Step` records for ``explain``. The driver (``driver.py``) runs a
reducer's rules to a fixed point.

Semantics reminder (docs/design.md, §3): a constraint requires its attribute to be
present with its type, so ¬(x < 3) is not x >= 3 in general; the rules only
use complements inside one conjunction, where presence is already required.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from cbalgebra.covering import UndecidedError, predicate_covers_filter
from cbalgebra.covering import filter_satisfiable, filters_overlap, form_of
from cbalgebra.values import BOOL, Constraint, Filter, Predicate

from .attributes import (
    NUMBER_TYPES,
    attribute_union,
    concrete_type,
    constraint_implies,
    minimum_equivalent,
    normal_form,
    single_normal_form,
)
from .index import CoverIndex, OverlapIndex, corner_message
from .progress import report


@dataclass(frozen=True)
class Step:
    """One fired rule: ``before`` became ``after`` (empty: dropped), because
    of the conjunctions ``by`` (the coverer(s)), with a short ``detail``."""

    rule: str
    before: tuple[Filter, ...]
    after: tuple[Filter, ...] = ()
    by: tuple[Filter, ...] = ()
    detail: str = ""

    def __str__(self) -> str:
        def fs(xs: Sequence[Filter], limit: int = 6) -> str:
            shown = " ∨ ".join(str(x) for x in xs[:limit])
            return shown + (f" ∨ … ({len(xs) - limit} more)" if len(xs) > limit else "")

        text = f"{self.rule}: {fs(self.before)}"
        if self.after:
            text += f" → {fs(self.after)}"
        else:
            text += " dropped"
        if self.by:
            text += f"; covered by {fs(self.by)}"
        if self.detail:
            text += f" ({self.detail})"
        return text

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "before": [str(x) for x in self.before],
            "after": [str(x) for x in self.after],
            "by": [str(x) for x in self.by],
            "detail": self.detail,
        }


#: What a conjunction rule returns: None when it does not apply, else the
#: rewritten conjunction (None: dropped) and the steps that record why.
ConjunctionRewrite = tuple[Filter | None, tuple[Step, ...]] | None
#: What a disjunction rule returns: the new disjunction and the steps that fired.
DisjunctionRewrite = tuple[tuple[Filter, ...], list[Step]]
#: ``coverers_of(f)``: g -> whether g covers f (f's own work done once).
Coverers = Callable[[Filter], bool]

_Rule = TypeVar("_Rule", bound=Callable[..., Any])


def driver_hints(*, idempotent: bool = False, keeps_order: bool = False) -> Callable[[_Rule], _Rule]:
    """Decorator: what the driver (``driver.py``) may assume of a disjunction rule.

    ``idempotent``: one application reaches the rule's own fixed point, so the
    driver does not run it again on a disjunction it produced or left alone;
    ``keeps_order``: it only drops conjunctions, so what it returns (a
    subsequence of a canonical tuple) is canonical and is not sorted again.
    """
    def record(rule: _Rule) -> _Rule:
        vars(rule).update(idempotent=idempotent, keeps_order=keeps_order)
        return rule

    return record


def _replace_group(f: Filter, name: str, new: Sequence[Constraint]) -> Filter:
    return Filter([c for c in f.constraints if c.name != name] + list(new))


def _cs(xs: Sequence[Constraint]) -> str:
    return " ∧ ".join(str(c) for c in xs)


# ----------------------------------------------------- conjunction rules
def drop_pairwise_implied(f: Filter) -> ConjunctionRewrite:
    """c₁ ∧ c₂ → c₁  when c₁ ⇒ c₂ (a constraint implied by one other constraint of its conjunction)"""
    groups = f.by_name
    if len(groups) == len(f.constraints):
        return None
    dropped: list[tuple[Constraint, Constraint]] = []
    for cs in groups.values():
        if len(cs) < 2:
            continue
        for c in cs:
            for d in cs:
                if d is c or not constraint_implies(d, c):
                    continue
                # d implies c. Of two equivalent constraints keep the first.
                if not constraint_implies(c, d) or d.sort_key < c.sort_key:
                    dropped.append((c, d))
                    break
    if not dropped:
        return None
    gone = {c for c, _ in dropped}
    g = Filter([c for c in f.constraints if c not in gone])
    detail = "; ".join(f"{d} implies {c}" for c, d in dropped)
    return g, (Step("drop_pairwise_implied", (f,), (g,), detail=detail),)


def drop_unsatisfiable(f: Filter) -> ConjunctionRewrite:
    """C ∧ ⊥ → ⊥, then P ∨ ⊥ → P  (a conjunction no message matches is dropped)"""
    if filter_satisfiable(f):
        return None
    return None, (Step("drop_unsatisfiable", (f,), detail="no message matches it"),)


def normalize_numbers(f: Filter) -> ConjunctionRewrite:
    """x > a ∧ x < b ∧ x ≠ c … → the tightest interval-with-holes form of each int, float or bool attribute"""
    groups = f.by_name
    g, notes = f, []
    for name, cs in groups.items():
        if len(cs) == 1:
            # Cached per constraint: only pinned or trivial bounds change.
            nf = single_normal_form(cs[0])
        elif concrete_type(cs) in (*NUMBER_TYPES, BOOL):
            nf = normal_form(cs)
        else:
            continue
        if nf is None or set(nf) == set(cs) or len(nf) > len(cs):
            continue
        g = _replace_group(g, name, nf)
        notes.append(f"{_cs(cs)} ≡ {_cs(nf)}")
    if g is f:
        return None
    return g, (Step("normalize_numbers", (f,), (g,), detail="; ".join(notes)),)


def drop_implied_by_rest(f: Filter) -> ConjunctionRewrite:
    """C ∧ c → C  when C ⇒ c (a constraint implied by the rest of its conjunction; fewest kept)"""
    groups = f.by_name
    if len(groups) == len(f.constraints):
        return None
    g, notes = f, []
    for name, cs in groups.items():
        if len(cs) < 2 or concrete_type(cs) in (*NUMBER_TYPES, BOOL):
            continue  # numbers and bools: normalize_numbers keeps them minimal
        kept = minimum_equivalent(cs)
        if len(kept) < len(cs):
            g = _replace_group(g, name, kept)
            notes.append(f"{_cs(kept)} implies {_cs([c for c in cs if c not in kept])}")
    if g is f:
        return None
    return g, (Step("drop_implied_by_rest", (f,), (g,), detail="; ".join(notes)),)


# ----------------------------------------------------- disjunction rules
def _siena_covers(g: Filter, f: Filter) -> bool:
    """Pairwise (Siena) covering: each constraint of g is implied by one constraint of f."""
    return _siena_coverers_of(f)(g)


def _siena_coverers_of(f: Filter) -> Coverers:
    """g -> whether g covers f pairwise, with f's constraints grouped once."""
    fg = f.by_name

    def covers(g: Filter) -> bool:
        for d in g.constraints:
            cs = fg.get(d.name)
            if cs is None:
                return False
            for c in cs:
                if constraint_implies(c, d):
                    break
            else:
                return False
        return True

    return covers


def _exact_coverers_of(f: Filter) -> Coverers:
    """g -> ``filter_covers(g, f)``, with f's normal form looked up once."""
    ff = form_of(f)
    if not ff.satisfiable:
        return lambda g: True
    forms = ff.forms

    def covers(g: Filter) -> bool:
        for c in g.constraints:
            form = forms.get(c.name)
            if form is None or not form.implies(c):
                return False
        return True

    return covers


def _drop_covered(filters: tuple[Filter, ...], coverers_of: Callable[[Filter], Coverers], exact: bool,
                  rule: str) -> DisjunctionRewrite:
    index = CoverIndex(filters, exact=exact)
    names = index.names
    survivors, steps = [], []
    for i, f in enumerate(filters):
        if not i & 1023:
            report(rule, i, len(filters))
        covers_f = coverers_of(f)

        def covers_i(j: int, covers_f: Coverers = covers_f) -> bool:
            return covers_f(filters[j])

        def valid(j: int, i: int = i, f: Filter = f) -> bool:
            g = filters[j]
            # Of two equivalent conjunctions keep the smaller, then the first.
            return (names[j] != names[i] or not coverers_of(g)(f)
                    or (g.size, g.sort_key) < (f.size, f.sort_key))

        j = index.find(i, covers_i, valid)
        if j is None:
            survivors.append(f)
        else:
            steps.append(Step(rule, (f,), by=(filters[j],)))
    return tuple(survivors), steps


@driver_hints(idempotent=True, keeps_order=True)
def drop_covered_pairwise(filters: tuple[Filter, ...]) -> DisjunctionRewrite:
    """A ∨ B → A  when each constraint of A is implied by one constraint of B (Siena's pairwise covering)"""
    return _drop_covered(filters, _siena_coverers_of, exact=False, rule="drop_covered_pairwise")


@driver_hints(idempotent=True, keeps_order=True)
def drop_covered(filters: tuple[Filter, ...]) -> DisjunctionRewrite:
    """A ∨ B → A  when B ⇒ A (a conjunction covered by another single conjunction, decided exactly)"""
    return _drop_covered(filters, _exact_coverers_of, exact=True, rule="drop_covered")


def merge_conjunctions(filters: tuple[Filter, ...]) -> DisjunctionRewrite:
    """(R ∧ a) ∨ (R ∧ b) → R ∧ c  when the conjunction c on one attribute is exactly a ∨ b and smaller"""
    buckets: dict[tuple, list[int]] = {}
    for i, f in enumerate(filters):
        groups = f.by_name
        for name in sorted(groups):
            rest = tuple(c for c in f.constraints if c.name != name)
            buckets.setdefault((name, rest), []).append(i)
    consumed: set[int] = set()
    made: list[Filter] = []
    steps = []
    for (name, rest), members in buckets.items():
        if len(members) < 2:
            continue
        for x in range(len(members)):
            i = members[x]
            if i in consumed:
                continue
            a = filters[i].by_name[name]
            for y in range(x + 1, len(members)):
                j = members[y]
                if j in consumed:
                    continue
                b = filters[j].by_name[name]
                limit = len(a) + len(b) + len(rest) - 1
                try:
                    union = attribute_union(a, b, limit)
                except UndecidedError:
                    union = None
                if union is None:
                    continue
                h = Filter(rest + tuple(union))
                consumed.update((i, j))
                made.append(h)
                steps.append(Step("merge_conjunctions", (filters[i], filters[j]), (h,),
                                  detail=f"on {name}: ({_cs(a)}) ∨ ({_cs(b)}) ≡ {_cs(union)}"))
                break
    if not consumed:
        return filters, []
    out = [f for i, f in enumerate(filters) if i not in consumed] + made
    return tuple(Predicate(out).filters), steps


@driver_hints(idempotent=True, keeps_order=True)
def drop_covered_by_disjunction(filters: tuple[Filter, ...]) -> DisjunctionRewrite:
    """B ∨ A₁ ∨ … ∨ Aₖ → A₁ ∨ … ∨ Aₖ  when B ⇒ A₁ ∨ … ∨ Aₖ (decided exactly, z3 where needed)"""
    index = OverlapIndex(filters)
    alive = [True] * len(filters)
    # Try the largest conjunctions first: dropping them saves the most.
    order = sorted(range(len(filters)), key=lambda i: (-filters[i].size, filters[i].sort_key))
    steps = []
    for done, i in enumerate(order):
        if not done & 255:
            report("drop_covered_by_disjunction", done, len(order))
        f = filters[i]
        # Only conjunctions that overlap f can cover part of it (a superset
        # found per name); the result is the same as with all of them.
        # A message of f that no other conjunction matches (alive or not,
        # asked of the index: a dominance look-up for two-bound buckets):
        # f is not covered, and neither the overlap tests nor the solver
        # are needed.
        corner = corner_message(f)
        if corner is not None and not index.may_match(i, corner):
            continue
        near = [filters[j] for j in sorted(set(index.candidates(i))) if alive[j]]
        cands = [g for g in near if filters_overlap(g, f)]
        if not cands:
            continue
        try:
            covered = predicate_covers_filter(Predicate(cands), f)
        except UndecidedError:
            steps.append(Step("undecided", (f,), detail="z3 could not decide; kept"))
            continue
        if covered:
            alive[i] = False
            steps.append(Step("drop_covered_by_disjunction", (f,), by=tuple(cands)))
    return tuple(f for i, f in enumerate(filters) if alive[i]), steps


#: Conjunction rules of each strength, in the order the driver applies them.
SIENA_CONJUNCTION_RULES = (drop_pairwise_implied,)
EXACT_CONJUNCTION_RULES = (drop_unsatisfiable, drop_pairwise_implied, normalize_numbers, drop_implied_by_rest)

__all__ = [
    "Step",
    "drop_covered",
    "drop_covered_by_disjunction",
    "drop_covered_pairwise",
    "drop_implied_by_rest",
    "drop_pairwise_implied",
    "drop_unsatisfiable",
    "merge_conjunctions",
    "normalize_numbers",
]
