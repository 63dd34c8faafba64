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
    ``cover``, then a smallest equivalent predicate over the vocabulary of
    the input's constraints, their single-constraint complements and
    ``T name any``, per group of conjunctions sharing attributes: an exact
    integer program with lazily generated rows (``minimal.py``). Each group
    has a time ``budget`` (seconds, :data:`DEFAULT_BUDGET`); past it the group
    keeps its best cover and a proven lower bound. :func:`minimize` returns
    the certificate (:class:`Minimized`): which groups are proven smallest.

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
from dataclasses import dataclass
from typing import Literal, overload

from cbalgebra.parse import parse_predicate
from cbalgebra.values import Filter, Predicate

from . import rules as _rules
from .driver import each_conjunction, fixpoint
from .progress import Reporter, reporting
from .minimal import DEFAULT_BUDGET, GroupResult, Minimized, ReductionBudgetError, minimize_filters
from .rules import Step

__all__ = [
    "DEFAULT_BUDGET",
    "REDUCERS",
    "Explained",
    "GroupResult",
    "Minimized",
    "ReductionBudgetError",
    "Step",
    "alpha",
    "minimize",
    "reduce",
]

Reducible = Predicate | Filter | str

_SIENA_CONJ = each_conjunction(_rules.SIENA_CONJUNCTION_RULES, "siena")
_EXACT_CONJ = each_conjunction(_rules.EXACT_CONJUNCTION_RULES, "exact")
_EXACT = (_EXACT_CONJ, _rules.drop_covered)
_MERGE = (*_EXACT, _rules.merge_conjunctions)
_COVER = (*_MERGE, _rules.drop_covered_by_disjunction)

#: reducer name -> (the reducer it starts from, the rules it runs to a fixed point)
_STAGES: dict[str, tuple[str | None, tuple]] = {
    "siena": (None, (_SIENA_CONJ, _rules.drop_covered_pairwise)),
    "exact": (None, _EXACT),
    "merge": ("exact", _MERGE),
    "cover": ("merge", _COVER),
    "minimal": ("cover", ()),  # then minimal.minimize_filters: see _minimal
}

#: The reducer names, weakest first.
REDUCERS: tuple[str, ...] = tuple(_STAGES)


@dataclass(frozen=True)
class Explained:
    """``reduce(..., explain=True)``: the result and the rules that fired;
    for ``minimal`` also its certificate (which groups are proven smallest).

    Unpacks as ``result, steps``."""

    result: Predicate
    steps: list[Step]
    minimality: Minimized | None = None

    def __iter__(self) -> Iterator[Predicate | list[Step]]:
        return iter((self.result, self.steps))


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
    return fixpoint(filters, rules, steps)


def _minimal(pred: Predicate, budget: float | None, steps: list[Step] | None) -> Minimized:
    covered = _run(pred.filters, "cover", steps)
    return minimize_filters(covered, pred.filters, budget, lambda fs: fixpoint(fs, _COVER, steps), steps)[1]


@overload
def reduce(p: Reducible, reducer: str = ..., *, explain: Literal[False] = ...,
           progress: Reporter | None = ..., budget: float | None = ...) -> Predicate: ...
@overload
def reduce(p: Reducible, reducer: str = ..., *, explain: Literal[True],
           progress: Reporter | None = ..., budget: float | None = ...) -> Explained: ...
@overload
def reduce(p: Reducible, reducer: str = ..., *, explain: bool,
           progress: Reporter | None = ..., budget: float | None = ...) -> Predicate | Explained: ...
def reduce(p: Reducible, reducer: str = "siena", *, explain: bool = False,
           progress: Reporter | None = None, budget: float | None = DEFAULT_BUDGET) -> Predicate | Explained:
    """An equivalent predicate no larger than ``p``, by the named reducer.

    With ``explain=True``, returns ``Explained(result, steps, minimality)``:
    every rule that fired, in order, with the conjunctions it dropped,
    rewrote or merged and the conjunction(s) that covered them; for
    ``minimal``, ``minimality`` is its certificate (:class:`Minimized`).
    ``progress(stage, done, total)`` is called now and then during long rules
    (see ``progress.py``). ``budget`` (seconds per group of conjunctions
    sharing attributes, None: no limit) only applies to ``minimal``.
    """
    with reporting(progress), _collector_paused():
        return _reduce(p, reducer, explain, budget)


def minimize(p: Reducible, *, budget: float | None = DEFAULT_BUDGET,
             progress: Reporter | None = None) -> Minimized:
    """``reduce(p, "minimal")`` with its certificate: the predicate, its size, a
    proven lower bound on the smallest size, whether it is proven smallest,
    the gap, and the same per group of conjunctions sharing attributes.

    ``budget`` is seconds per group (None: no limit); past it a group keeps
    the best cover found (never larger than ``cover``'s) and its bound."""
    with reporting(progress), _collector_paused():
        return _minimal(_as_predicate(p), budget, None)


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


def _reduce(p: Reducible, reducer: str, explain: bool, budget: float | None) -> Predicate | Explained:
    if reducer not in _STAGES:
        raise ValueError(f"unknown reducer {reducer!r}; choose one of {', '.join(REDUCERS)}")
    pred = _as_predicate(p)
    steps: list[Step] | None = [] if explain else None
    minimality = None
    if reducer == "minimal":
        minimality = _minimal(pred, budget, steps)
        result = minimality.predicate
    else:
        result = Predicate(_run(pred.filters, reducer, steps))
    if steps is not None:
        return Explained(result, steps, minimality)
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
