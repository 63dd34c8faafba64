"""The one driver: run a reducer's rules to a fixed point.

A reducer is a tuple of disjunction rules (conjunction rules are lifted by
:func:`each_conjunction`). A round applies every rule in order; the driver
stops after a round that changed nothing. A rule marked ``idempotent`` (one
application reaches its own fixed point; ``rules.driver_hints``) is skipped
while the disjunction is one it has already left unchanged or produced, so
the expensive rules run once more only when something before them changed.

A rule marked ``keeps_order`` only drops conjunctions, so what it returns
(a subsequence of a canonical tuple) is canonical and is not sorted again.

State is a canonical tuple of conjunctions (sorted, without duplicates), so
the result depends on the predicate only, never on its history: this is what
makes every reducer idempotent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cbalgebra.values import Filter, Predicate, derived

from .progress import report
from .rules import ConjunctionRewrite, DisjunctionRewrite, Step, driver_hints

DisjunctionRule = Callable[[tuple[Filter, ...]], DisjunctionRewrite]
ConjunctionRule = Callable[[Filter], ConjunctionRewrite]


def canonical(filters: Sequence[Filter]) -> tuple[Filter, ...]:
    return Predicate(filters).filters


def _unchanged(f: Filter) -> tuple[Filter, tuple[Step, ...]]:
    return f, ()


def each_conjunction(rules: Sequence[ConjunctionRule], tag: str) -> DisjunctionRule:
    """Lift conjunction rules to the disjunction: every conjunction is
    rewritten to its own fixed point (cached on the conjunction, per tag)."""
    key = f"reducers.normal.{tag}"

    def normalize(f: Filter) -> tuple[Filter | None, tuple[Step, ...]]:
        steps: list[Step] = []
        g: Filter | None = f
        changed = True
        while changed and g is not None:
            changed = False
            for rule in rules:
                r = rule(g)
                if r is None:
                    continue
                g, fired = r
                steps.extend(fired)
                changed = True
                break
        return g, tuple(steps)

    @driver_hints(idempotent=True)
    def apply(filters: tuple[Filter, ...]) -> DisjunctionRewrite:
        out: list[Filter] = []
        steps: list[Step] = []
        changed = False
        for k, f in enumerate(filters):
            if not k & 4095:
                report(f"normalize conjunctions ({tag})", k, len(filters))
            g, fired = derived(f, key, normalize)
            if g is not None and g is not f:
                # g is a fixed point of the same rules: its own answer is known.
                derived(g, key, _unchanged)
            if g is not f:
                changed = True
                steps.extend(fired)
            if g is not None:
                out.append(g)
        if not changed:
            return filters, []
        return canonical(out), steps

    apply.__name__ = apply.__qualname__ = f"each_conjunction[{tag}]"
    apply.__doc__ = "C → C' for every conjunction: " + ", ".join(r.__name__ for r in rules)
    return apply


def fixpoint(filters: Sequence[Filter], rules: Sequence[DisjunctionRule],
             steps: list[Step] | None = None) -> tuple[Filter, ...]:
    """Apply ``rules`` in rounds until a round changes nothing."""
    state = canonical(filters)
    stable: list[tuple[Filter, ...] | None] = [None] * len(rules)
    while True:
        start = state
        for k, rule in enumerate(rules):
            if stable[k] is not None and stable[k] == state:
                continue
            new, fired = rule(state)
            if steps is not None:
                steps.extend(fired)
            if new != state and not getattr(rule, "keeps_order", False):
                new = canonical(new)
            if new == state or getattr(rule, "idempotent", False):
                stable[k] = new
            state = new
        if state == start:
            return state
