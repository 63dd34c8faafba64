"""Predicates and messages for routing experiments.

Processor predicates come from the DNF generator of Carzaniga, Rembert & Wolf 2006 (§4.2)
(:func:`cbalgebra.workloads.dnf_predicates`, Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes", 2006, §4.2): processor ``x``
gets the disjunction of ``k`` of its one-conjunction predicates, namely
conjunctions ``x*k .. x*k + k - 1`` of one seeded stream, so the predicates
of the first processors do not depend on n.

Messages are not specified by the paper. They are drawn over the *same*
attribute names, with the same law (Zipf or uniform) and each name's type
as the generator fixed it (string or int): ``attributes`` distinct names per
message, a string value among the generator's 200 English terms, an int
uniform on -100..100. A message whose names the predicates never mention
would match nothing, so this is the model under which matching is
possible at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from cbalgebra.covering import witness
from cbalgebra.values import INT, STRING, Attribute, Message, Predicate
from cbalgebra.workloads import (
    INT_HIGH,
    INT_LOW,
    dnf_predicates,
    english_terms,
    name_cumulative_weights,
    string_names,
)

__all__ = ["messages", "processor_predicates"]


def processor_predicates(nodes: Iterable[int] | int, k: int = 10, *, names: int = 500, distribution: str = "zipf",
                         seed: int = 0) -> dict[int, Predicate]:
    """``{x: pred(x)}`` for the processors in ``nodes`` (an int n means 0..n-1),
    each the disjunction of ``k`` random conjunctions of the DNF generator."""
    nodes = list(range(nodes)) if isinstance(nodes, int) else sorted(nodes)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k (conjunctions per processor) must be an integer >= 1, not {k!r}")
    top = (max(nodes) + 1) if nodes else 0
    conjunctions = dnf_predicates(top * k, names, distribution, seed)
    out = {}
    for x in nodes:
        filters = [f for p in conjunctions[x * k:(x + 1) * k] for f in p.filters]
        out[x] = Predicate(filters)
    return out


def messages(count: int, *, names: int = 500, distribution: str = "zipf", seed: int = 0,
             attributes: int = 10, aim_at: Mapping[int, Predicate] | None = None) -> list[Message]:
    """``count`` random messages over the names and types of the DNF generator
    with the same ``names``, ``distribution`` and ``seed`` (see the module
    docstring).

    With ``aim_at`` ({processor: predicate}), each message is also made to
    match one conjunction of one processor, both drawn uniformly: the
    attributes of a witness of that conjunction (:func:`cbalgebra.witness`)
    replace the random ones of the same name. Seed 002's predicates are
    selective, so purely random messages often interest nobody; aimed ones
    interest at least one processor (when the conjunction is satisfiable)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"the number of messages must be an integer >= 0, not {count!r}")
    if isinstance(attributes, bool) or not isinstance(attributes, int) or not 1 <= attributes <= names:
        raise ValueError(f"attributes per message must be an integer in 1..{names}, not {attributes!r}")
    cum = name_cumulative_weights(names, distribution, 1.0)
    is_string = string_names(names, seed).tolist()  # the types dnf_predicates gives the names
    weights = np.diff(np.r_[0.0, cum])
    weights = weights / weights.sum()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 7, 2006])))
    terms = english_terms()
    targets = [f for _, p in sorted((aim_at or {}).items()) for f in p.filters]
    out = []
    for _ in range(count):
        chosen = rng.choice(names, size=attributes, replace=False, p=weights)
        attrs = []
        for a in sorted(chosen.tolist()):
            if is_string[a]:
                attrs.append((f"a{a}", Attribute(STRING, terms[int(rng.integers(len(terms)))])))
            else:
                attrs.append((f"a{a}", Attribute(INT, int(rng.integers(INT_LOW, INT_HIGH + 1)))))
        if targets:
            aimed = targets[int(rng.integers(len(targets)))]
            found = witness(aimed, aimed)
            if found is not None:
                merged = dict(attrs)
                merged.update(found.items())
                attrs = sorted(merged.items())
        out.append(Message(attrs))
    return out
