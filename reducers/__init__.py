"""Reducers of DNF predicates, and the disjunction advantage α (Carzaniga,
Rembert & Wolf, Understanding Content-Based Routing Schemes, 2006).

``reduce(p, reducer)`` returns a predicate equivalent to ``p`` (it matches the
same messages) and never larger (size = number of constraints). Five
reducers, each the one before plus more rules, run to a fixed point by one
driver (``driver.py``); each rule is a small named function in ``rules.py``
(or ``minimal.py``) whose docstring states its algebra:

``siena``
    The "simple reduction algorithm" of Carzaniga, Rembert & Wolf §4.2, pairwise only: drop a
    constraint implied by another single constraint of its conjunction
    (``drop_pairwise_implied``); drop a conjunction covered by another single
    conjunction, where g covers f when every constraint of g is implied by
    one constraint of f (``drop_covered_pairwise``, Siena's covering).
``exact``
    Inside each conjunction, per attribute: drop it if unsatisfiable, tighten
    int/float/bool constraints to their interval-with-holes normal form, keep
    a fewest set of string constraints implying the rest. Then drop every
    conjunction covered by another one, decided exactly (``drop_covered``).
``merge``
    ``exact``, then merge two conjunctions that agree on every attribute but
    one when the union on that attribute is one smaller conjunction
    (``[x < 5, y = 1] ∨ [x >= 5, y = 1]`` → ``[int x any, y = 1]``), to a
    fixed point.
``cover``
    ``merge``, then drop every conjunction covered by the disjunction of the
    others (z3 where no single one covers it), to a fixed point.
``minimal``
    ``cover``, then sympy's two-level minimization of the Boolean skeleton,
    with impossible atom combinations as don't-cares (``minimal.py``). Raises
    :class:`ReductionBudgetError` above :data:`MAX_ATOMS` atoms per group of
    conjunctions sharing attributes.

Sizes are ordered: siena ≥ exact ≥ merge ≥ cover ≥ minimal on one input.

``alpha(predicates, reducer)`` = size(reduce(∨ predicates)) / Σ size(pᵢ),
the disjunction advantage of Carzaniga, Rembert & Wolf §2.4 as computed in §4.2. Everything
here is a pure function of its arguments (no global state beyond caches of
pure results), so it runs unchanged inside Spark tasks.
"""

from __future__ import annotations

if __name__ != "cbalgebra.reducers":  # the folder is on sys.path from the repository's root: one name per module
    raise ImportError(f"{__name__} is cbalgebra.reducers: import it under that name")

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Literal, NamedTuple, overload

from cbalgebra.parse import parse_predicate
from cbalgebra.values import Filter, Predicate

from . import rules as _rules
from .driver import each_conjunction, fixpoint
from .progress import Reporter, reporting
from .minimal import MAX_ATOMS, ReductionBudgetError, check_budget, minimize_skeleton
from .rules import Step

__all__ = [
    "MAX_ATOMS",
    "REDUCERS",
    "Explained",
    "ReductionBudgetError",
    "Step",
    "alpha",
    "reduce",
]

Reducible = Predicate | Filter | str

_SIENA_CONJ = each_conjunction(_rules.SIENA_CONJUNCTION_RULES, "siena")
_EXACT_CONJ = each_conjunction(_rules.EXACT_CONJUNCTION_RULES, "exact")
_EXACT = (_EXACT_CONJ, _rules.drop_covered)
_MERGE = (*_EXACT, _rules.merge_conjunctions)
_COVER = (*_MERGE, _rules.drop_covered_by_disjunction)
_MINIMAL = (*_COVER, minimize_skeleton)

#: reducer name -> (the reducer it starts from, the rules it runs to a fixed point)
_STAGES: dict[str, tuple[str | None, tuple]] = {
    "siena": (None, (_SIENA_CONJ, _rules.drop_covered_pairwise)),
    "exact": (None, _EXACT),
    "merge": ("exact", _MERGE),
    "cover": ("merge", _COVER),
    "minimal": ("cover", _MINIMAL),
}

#: The reducer names, weakest first.
REDUCERS: tuple[str, ...] = tuple(_STAGES)


class Explained(NamedTuple):
    """``reduce(..., explain=True)``: the result and the rules that fired."""

    result: Predicate
    steps: list[Step]


def _as_predicate(p: Reducible) -> Predicate:
    if isinstance(p, Predicate):
        return p
    if isinstance(p, Filter):
        return Predicate((p,))
    if isinstance(p, str):
        return parse_predicate(p)
    raise TypeError(f"reduce expects a Predicate, Filter or predicate text, not {type(p).__name__}")


def _run(filters: tuple[Filter, ...], reducer: str, steps: list[Step] | None) -> tuple[Filter, ...]:
    start, rules = _STAGES[reducer]
    if start is not None:
        filters = _run(filters, start, steps)
        if reducer == "minimal":
            check_budget(filters)  # before merge/cover's z3 work is wasted
    return fixpoint(filters, rules, steps)


@overload
def reduce(p: Reducible, reducer: str = ..., *, explain: Literal[False] = ...,
           progress: Reporter | None = ...) -> Predicate: ...
@overload
def reduce(p: Reducible, reducer: str = ..., *, explain: Literal[True],
           progress: Reporter | None = ...) -> Explained: ...
@overload
def reduce(p: Reducible, reducer: str = ..., *, explain: bool,
           progress: Reporter | None = ...) -> Predicate | Explained: ...
def reduce(p: Reducible, reducer: str = "siena", *, explain: bool = False,
           progress: Reporter | None = None) -> Predicate | Explained:
    """An equivalent predicate no larger than ``p``, by the named reducer.

    With ``explain=True``, returns ``Explained(result, steps)``: every rule
    that fired, in order, with the conjunctions it dropped, rewrote or merged
    and the conjunction(s) that covered them. ``progress(stage, done, total)``
    is called now and then during long rules (see ``progress.py``).
    """
    with reporting(progress), _collector_paused():
        return _reduce(p, reducer, explain)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for one reduction.

    A reduction allocates a few small objects per conjunction and per query
    (constraint groups, normal forms, candidate sets), none of which form
    reference cycles that must be reclaimed before it ends; but every
    generation-2 collection the allocations trigger walks everything alive,
    the whole input included. On the DNF workload (Carzaniga, Rembert & Wolf §4.2) at 100,000
    conjunctions that was more than half of the CPU time of ``siena``.
    Reference counting still frees everything as usual; the collector is
    re-enabled (if it was on) when the reduction returns or raises.
    """
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _reduce(p: Reducible, reducer: str, explain: bool) -> Predicate | Explained:
    if reducer not in _STAGES:
        raise ValueError(f"unknown reducer {reducer!r}; choose one of {', '.join(REDUCERS)}")
    pred = _as_predicate(p)
    steps: list[Step] | None = [] if explain else None
    if reducer == "minimal":
        # Estimate first (like sqlglot's normalization_distance): the exact
        # stage is cheap, and its atoms bound what sympy will see.
        check_budget(_run(pred.filters, "exact", None))
    result = Predicate(_run(pred.filters, reducer, steps))
    if steps is not None:
        return Explained(result, steps)
    return result


def _size(p: Reducible) -> int:
    return _as_predicate(p).size


def alpha(predicates: Iterable[Reducible], reducer: str = "siena") -> float:
    """The disjunction advantage: size(reduce(p₁ ∨ … ∨ pₙ)) / Σ size(pᵢ).

    The originals are measured as given (a predicate's size is its number of
    constraints). Raises ValueError when they hold no constraint at all.
    """
    preds = [_as_predicate(p) for p in predicates]
    total = sum(p.size for p in preds)
    if total == 0:
        raise ValueError("alpha is undefined: the predicates hold no constraint")
    union = Predicate([f for p in preds for f in p.filters])
    return reduce(union, reducer).size / total
