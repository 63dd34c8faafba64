"""The ``minimal`` reducer: a smallest equivalent predicate, with a certificate.

Issue 26's definition: the smallest disjunction of conjunctions equivalent
to the input, size = number of constraints, over the *vocabulary* of the
input's constraints (and those ``cover`` leaves), each one's
single-constraint complement of the same type (``=``↔``!=``, ``<``↔``>=``,
``>``↔``<=``) and ``T name any``.

How (per group of conjunctions sharing attribute names, transitively: a
smallest cover of a disjunction over independent names never mixes them):

1. Each name's values are cut into cells its atoms cannot tell apart
   (``cells.py``); a conjunction is then a box of cells, the predicate P a
   union of boxes (``implicants.py``).
2. Exact integer program, rows generated lazily. Rows are points of P
   (one per conjunction to start with); columns are all the non-dominated
   implicants of P through those points (``Space.implicants_containing``).
   HiGHS (scipy's ``milp``, relative gap 0) picks the cheapest set of
   columns covering the rows. Its value is a lower bound on the optimum: a
   smallest cover of P covers the rows, with implicants that are (or are
   dominated by) columns. If the chosen implicants cover P, that bound is
   met: the result is proven minimal. Otherwise a point of P they miss
   becomes a new row, and the program is solved again.
3. Anytime: past the group's ``budget`` seconds the group keeps the best
   cover found (never worse than ``cover``'s, which is its starting point)
   and the last proven lower bound.

A group changes only when the program finds a strictly smaller cover, so a
result is a fixed point: ``minimal`` is idempotent.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cbalgebra.errors import EXIT_INCOMPLETE, CbalgebraError
from cbalgebra.values import Constraint, Filter, Predicate

from .cells import OutOfTime, attribute_cells
from .implicants import Box, Implicant, Point, Space
from .progress import report
from .rules import Step

#: Seconds per group of conjunctions sharing attributes, by default.
DEFAULT_BUDGET = 10.0


class ReductionBudgetError(CbalgebraError, RuntimeError):
    """The requested reduction would take too long; nothing was computed.

    The ``minimal`` reducer no longer raises it (past its budget it returns
    its best cover and a lower bound); kept for callers that catch it."""

    exit_code = EXIT_INCOMPLETE


@dataclass(frozen=True)
class GroupResult:
    """One group of conjunctions sharing attribute names: its names, the size
    of its result, a proven lower bound on its smallest size, whether the
    result is proven smallest, and the seconds it took."""

    names: tuple[str, ...]
    size: int
    lower_bound: int
    proven: bool
    seconds: float


@dataclass(frozen=True)
class Minimized:
    """What ``minimize`` returns: the predicate and its certificate.

    ``lower_bound`` is a proven lower bound on the size of any equivalent
    predicate over the vocabulary; ``proven`` says ``size`` equals it;
    ``gap = (size - lower_bound) / size`` (0.0 when proven or empty)."""

    predicate: Predicate
    size: int
    lower_bound: int
    proven: bool
    gap: float
    groups: tuple[GroupResult, ...]


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


# ------------------------------------------------------------ one group
@dataclass(frozen=True)
class _Outcome:
    filters: tuple[Filter, ...]
    lower_bound: int
    seconds: float

    @property
    def size(self) -> int:
        return sum(f.size for f in self.filters)


def _cover_program(costs: Sequence[int], rows: Sequence[Sequence[int]],
                   time_limit: float | None) -> tuple[list[int] | None, float, bool]:
    """(chosen columns or None, proven lower bound, optimal) of the set cover
    min Σ cost·x s.t. every row has a chosen column, by HiGHS with gap 0."""
    from scipy.optimize import Bounds, LinearConstraint, milp  # scipy is slow to import: only here
    from scipy.sparse import csr_array

    data = [1.0] * sum(len(r) for r in rows)
    indices = [j for r in rows for j in r]
    indptr = np.cumsum([0, *(len(r) for r in rows)])
    a = csr_array((data, indices, indptr), shape=(len(rows), len(costs)))
    options: dict = {"mip_rel_gap": 0.0}
    if time_limit is not None:
        options["time_limit"] = max(time_limit, 0.01)
    res = milp(np.asarray(costs, dtype=float), constraints=LinearConstraint(a, lb=1.0, ub=np.inf),
               integrality=np.ones(len(costs)), bounds=Bounds(0, 1), options=options)
    chosen = None if res.x is None else [j for j, v in enumerate(res.x) if v > 0.5]
    bound = getattr(res, "mip_dual_bound", None)
    if res.status == 0:
        return chosen, float(res.fun), True
    return chosen, float(bound) if bound is not None and math.isfinite(bound) else 0.0, False


class _Group:
    """The lazy row generation of one group (see the module's docstring)."""

    def __init__(self, conjunctions: Sequence[Filter], vocabulary: Mapping[str, Iterable[Constraint]],
                 deadline: float | None) -> None:
        names = sorted({n for f in conjunctions for n in f.names})
        attrs = [attribute_cells(n, {*vocabulary.get(n, ()), *(c for f in conjunctions for c in f.constraints
                                                                 if c.name == n)}, deadline) for n in names]
        self.space = Space(attrs, deadline)
        self.conjunctions = tuple(conjunctions)
        self.boxes: list[Box] = [self.space.box_of(f.constraints) for f in conjunctions]
        self.origin: Point = (0,) * len(names)  # every attribute absent
        self.columns: dict[tuple, Implicant] = {}
        self.rows: list[Point] = []
        self.best = tuple(conjunctions)
        self.lower_bound = 1

    @property
    def best_size(self) -> int:
        return sum(f.size for f in self.best)

    def add_row(self, point: Point) -> None:
        for imp in self.space.implicants_containing(point, self.boxes, self.best_size):
            old = self.columns.get(imp.box)
            if old is None or (imp.cost, imp.atoms) < (old.cost, old.atoms):
                self.columns[imp.box] = imp
        self.rows.append(point)

    def solve(self, deadline: float | None) -> list[Implicant] | None:
        """One round: the program over the rows so far; raises the lower bound;
        returns the chosen implicants when they cover P (then proven), else
        adds rows for what they miss and returns None."""
        cols = sorted(self.columns.values(), key=lambda c: (c.cost, c.atoms))
        rows = [[j for j, c in enumerate(cols) if self.space.contains(dict(c.box), p)] for p in self.rows]
        limit = None if deadline is None else deadline - time.monotonic()
        chosen, bound, optimal = _cover_program([c.cost for c in cols], rows, limit)
        self.lower_bound = max(self.lower_bound, math.ceil(bound - 1e-6))
        if chosen is None:
            raise OutOfTime
        picked = [cols[j] for j in chosen]
        boxes = [dict(c.box) for c in picked]
        missed = [p for b in self.boxes if (p := self.space.uncovered(b, boxes, self.origin)) is not None]
        if not missed:
            self._offer(picked)
            if not optimal:
                raise OutOfTime
            return picked
        if not optimal:
            raise OutOfTime
        for p in missed:
            self.add_row(p)
        return None

    def _offer(self, picked: Sequence[Implicant]) -> None:
        filters = tuple(Filter(self.space.atoms[i][2] for i in c.atoms) for c in picked)
        if sum(f.size for f in filters) < self.best_size:
            self.best = filters

    def run(self) -> None:
        for b in self.boxes:
            self.add_row(self.space.pick(b, self.origin))
        while True:
            report(f"minimal: group of {len(self.conjunctions)} conjunctions, "
                   f"bound {self.lower_bound}, best {self.best_size}", len(self.rows))
            if self.solve(self.space.deadline) is not None:
                return


def minimize_group(conjunctions: Sequence[Filter], vocabulary: Mapping[str, Iterable[Constraint]],
                   budget: float | None) -> _Outcome:
    """A smallest equivalent set of conjunctions for one group (or the best
    found within ``budget`` seconds) and a proven lower bound on its size."""
    start = time.monotonic()
    size = sum(f.size for f in conjunctions)
    if size <= 1:  # nothing smaller (a non-empty predicate needs a constraint)
        return _Outcome(tuple(conjunctions), size, time.monotonic() - start)
    best, lower = tuple(conjunctions), 1
    group: _Group | None = None
    with contextlib.suppress(OutOfTime):  # the budget ran out: the best cover so far and the bound stand
        group = _Group(conjunctions, vocabulary, None if budget is None else start + budget)
        group.run()
    if group is not None:
        best, lower = group.best, group.lower_bound
    return _Outcome(best, min(lower, sum(f.size for f in best)), time.monotonic() - start)


# ------------------------------------------------------------ the predicate
def _vocabulary_of(filters: Iterable[Filter]) -> dict[str, set[Constraint]]:
    out: dict[str, set[Constraint]] = {}
    for f in filters:
        for c in f.constraints:
            out.setdefault(c.name, set()).add(c)
    return out


def minimize_filters(filters: tuple[Filter, ...], original: Iterable[Filter], budget: float | None,
                     recover: Callable[[tuple[Filter, ...]], tuple[Filter, ...]],
                     steps: list[Step] | None = None) -> tuple[tuple[Filter, ...], Minimized]:
    """P (a fixed point of ``cover``) → a smallest equivalent predicate over the vocabulary, per group.

    ``original`` gives the input's own constraints (part of the vocabulary);
    ``recover`` runs ``cover``'s rules again after a group changed, until
    neither changes anything."""
    vocabulary = _vocabulary_of(original)
    cache: dict[tuple[Filter, ...], _Outcome] = {}
    while True:
        groups = components(filters)
        outcomes = []
        changed = False
        for k, comp in enumerate(groups):
            report("minimal: groups", k, len(groups))
            key = tuple(comp)
            outcome = cache.get(key)
            if outcome is None:
                outcome = cache[key] = minimize_group(comp, vocabulary, budget)
            if outcome.size < sum(f.size for f in comp):
                changed = True
                if steps is not None:
                    steps.append(Step("minimize", key, outcome.filters,
                                      detail=f"size {sum(f.size for f in comp)} → {outcome.size}"
                                             f"{'' if outcome.lower_bound == outcome.size else ' (not proven)'}"))
            outcomes.append((comp, outcome))
        report("minimal: groups", len(groups), len(groups))
        if not changed:
            return filters, _certificate(Predicate(filters), outcomes)
        filters = recover(tuple(f for _, o in outcomes for f in o.filters))


def _certificate(result: Predicate, outcomes: Sequence[tuple[Sequence[Filter], _Outcome]]) -> Minimized:
    groups = tuple(
        GroupResult(tuple(sorted({n for f in comp for n in f.names})), o.size, o.lower_bound,
                    o.lower_bound >= o.size, o.seconds)
        for comp, o in outcomes
    )
    lower = sum(g.lower_bound for g in groups)
    size = result.size
    proven = all(g.proven for g in groups)
    gap = 0.0 if proven or size == 0 else (size - lower) / size
    return Minimized(result, size, lower, proven, gap, groups)
