"""The random DNF predicates of Carzaniga, Rembert & Wolf, Understanding
Content-Based Routing Schemes, 2006, §4.2 (the disjunction-advantage study).

Each predicate is one conjunction of 1–6 constraints (probabilities 10, 40,
30, 10, 5, 5 %). Each constraint picks an attribute name from ``names`` names
by a Zipf law of exponent 1 (rank 1 most popular) or uniformly. Every name is
string-typed or int-typed with probability ½, drawn once per name. Then:

- strings: ``=`` 40 %; prefix, suffix, substring, ``!=``, ``<``, ``>`` 10 %
  each; the value is one of the 200 terms of ``data/english_terms.txt``
  (uniformly: the paper says "selected from a distribution of" the terms and
  gives no weights);
- ints: ``=`` 40 %, ``<`` 25 %, ``>`` 25 %, ``!=`` 10 %; the value is uniform
  on the integers −100 … 100.

Decisions the paper leaves open, made here and documented:

- **A name may repeat inside a conjunction.** The paper draws each
  constraint's name independently from D; it never says "distinct". Repeats
  are what make its within-conjunction rule (drop c₂ when c₁ ⇒ c₂) matter on
  its own workload, and they also produce some unsatisfiable conjunctions
  (``x = 3 ∧ x = 5``). Pass ``distinct_names=True`` for the other reading
  (names drawn without replacement from D within one conjunction).
- **An exact duplicate constraint collapses**: a conjunction is a set, so
  ``x = 3 ∧ x = 3`` is the one-constraint ``x = 3`` and counts 1 in α's
  denominator ("measured as given"). This happens to fewer than one
  predicate in ten thousand.
- **Names** are ``a0, a1, …`` in order of popularity (``a0`` is Zipf rank 1)
  unless a sequence of names is given.

Reproducibility: every random number comes from numpy's PCG64 bit generator
seeded by ``SeedSequence([seed, stream])``, used only through
``Generator.random`` (53-bit uniform doubles). Categorical choices with
percentage weights are made in integer arithmetic (``floor(u·100)``), and the
Zipf law by a binary search in a sequentially summed table of ``1/rank``, so
the same seed gives the same predicates on any IEEE-754 machine. Predicate
``i`` uses only row ``i`` of a fixed-width block of uniforms, so the first
``m`` predicates of ``dnf_predicates(n, ...)`` are ``dnf_predicates(m, ...)``
for every ``n ≥ m``, and a name's type does not depend on ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

import numpy as np

from cbalgebra.values import EQ, GT, INT, LT, NE, PREFIX, STRING, SUBSTRING, SUFFIX, Constraint, Filter, Predicate

__all__ = [
    "DNF_SCENARIOS", "INT_HIGH", "INT_LOW", "INT_OPS", "SIZE_WEIGHTS", "STRING_OPS", "dnf_predicates", "english_terms",
    "name_cumulative_weights", "string_names",
]

#: Conjunction sizes 1..6 and their weights in percent (§4.2).
SIZE_WEIGHTS: tuple[int, ...] = (10, 40, 30, 10, 5, 5)
#: String operators and their weights in percent (§4.2).
STRING_OPS: tuple[tuple[str, int], ...] = (
    (EQ, 40), (PREFIX, 10), (SUFFIX, 10), (SUBSTRING, 10), (NE, 10), (LT, 10), (GT, 10),
)
#: Int operators and their weights in percent (§4.2).
INT_OPS: tuple[tuple[str, int], ...] = ((EQ, 40), (LT, 25), (GT, 25), (NE, 10))
#: The range of int values, both ends included (one name a line: the API reference reads sources).
INT_LOW = -100
INT_HIGH = 100

#: The four scenarios of Carzaniga, Rembert & Wolf 2006, §4.2 (Figures 6 and 7): name -> (names, distribution).
DNF_SCENARIOS: dict[str, tuple[int, str]] = {
    "zipf-500": (500, "zipf"),
    "zipf-5000": (5000, "zipf"),
    "uniform-50": (50, "uniform"),
    "uniform-500": (500, "uniform"),
}

_MAX_SIZE = len(SIZE_WEIGHTS)
#: Columns of uniforms per predicate: the size, then (name, op, value) per slot.
_WIDTH = 1 + 3 * _MAX_SIZE
_STREAM_TYPES, _STREAM_PREDICATES = 0, 1


@lru_cache(maxsize=1)
def english_terms() -> tuple[str, ...]:
    """The 200 string values (see ``data/english_terms.PROVENANCE.md``)."""
    text = resources.files("cbalgebra.workloads").joinpath("data/english_terms.txt").read_text("utf-8")
    terms = tuple(line.strip() for line in text.splitlines() if line.strip())
    if len(terms) != 200 or len(set(terms)) != 200:  # pragma: no cover - data file damaged
        raise RuntimeError("data/english_terms.txt must hold 200 distinct terms")
    return terms


def _percent_choice(u: np.ndarray, weights: Sequence[int]) -> np.ndarray:
    """Index into ``weights`` (percent, summing to 100) for uniforms ``u``."""
    cum = np.cumsum(np.asarray(weights, dtype=np.int64))
    assert cum[-1] == 100
    k = np.floor(u * 100.0).astype(np.int64)  # exact: 0..99
    return np.searchsorted(cum, k, side="right")


def _generator(seed: int, stream: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), stream])))


def string_names(count: int, seed: int) -> np.ndarray:
    """Which of the names a0..a{count-1} carry strings (the rest ints): the
    draw :func:`dnf_predicates` makes, which depends on the seed only, so
    that messages for its predicates can give each name its type."""
    return _generator(seed, _STREAM_TYPES).random(count) < 0.5


def name_cumulative_weights(count: int, distribution: str, exponent: float = 1.0) -> np.ndarray:
    """The running sums of the names' weights (``"uniform"``, or ``"zipf"``
    with ``exponent``) from which :func:`dnf_predicates` draws names."""
    if distribution == "uniform":
        weights = np.ones(count, dtype=np.float64)
    elif distribution == "zipf":
        ranks = np.arange(1, count + 1, dtype=np.float64)
        weights = 1.0 / ranks if exponent == 1.0 else ranks ** (-float(exponent))
    else:
        raise ValueError(f"distribution must be 'zipf' or 'uniform', not {distribution!r}")
    return np.add.accumulate(weights)  # sequential sums: the same on every machine


def _pick_names(u: np.ndarray, cum: np.ndarray) -> np.ndarray:
    idx = np.searchsorted(cum, u * cum[-1], side="right")
    return np.minimum(idx, len(cum) - 1)


def _pick_distinct(u: float, cum: np.ndarray, used: list[int]) -> int:
    """Sample from the names not in ``used``, with their weights renormalized."""
    total = float(cum[-1])
    width = [float(cum[i] - (cum[i - 1] if i else 0.0)) for i in sorted(used)]
    t = u * (total - sum(width))
    for i, w in zip(sorted(used), width, strict=True):
        start = float(cum[i - 1]) if i else 0.0
        if start <= t:
            t += w  # skip over the used name's interval
        else:
            break
    idx = int(np.searchsorted(cum, t, side="right"))
    idx = min(idx, len(cum) - 1)
    while idx in used:  # rounding at an interval's edge: step to a free name
        idx = (idx + 1) % len(cum)
    return idx


def dnf_predicates(
    n: int,
    names: int | Sequence[str] = 500,
    distribution: str = "zipf",
    seed: int = 0,
    *,
    exponent: float = 1.0,
    distinct_names: bool = False,
) -> list[Predicate]:
    """``n`` random one-conjunction predicates, as in Carzaniga, Rembert & Wolf 2006, §4.2.

    ``names`` is the number of attribute names |A| (named ``a0``, ``a1``, …
    by popularity) or the names themselves, most popular first.
    ``distribution`` is ``"zipf"`` (exponent ``exponent``, 1 in the paper) or
    ``"uniform"``. The same arguments give the same predicates everywhere.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative int, not {n!r}")
    if isinstance(names, (int, np.integer)) and not isinstance(names, bool):
        if names < 1:
            raise ValueError("names must be at least 1")
        labels = [f"a{i}" for i in range(int(names))]
    elif isinstance(names, bool):
        raise TypeError("names must be a count or a sequence of names, not a bool")
    else:
        labels = [str(x) for x in names]
        if not labels or len(set(labels)) != len(labels):
            raise ValueError("names must be a non-empty sequence of distinct names")
    count = len(labels)
    if distinct_names and count < _MAX_SIZE:
        raise ValueError(f"distinct_names needs at least {_MAX_SIZE} names")
    n = int(n)
    cum = name_cumulative_weights(count, distribution, exponent)
    is_string = string_names(count, seed)
    u = _generator(seed, _STREAM_PREDICATES).random((n, _WIDTH))

    sizes = _percent_choice(u[:, 0], SIZE_WEIGHTS) + 1
    name_u = u[:, 1::3]
    op_u = u[:, 2::3]
    val_u = u[:, 3::3]
    name_idx = _pick_names(name_u, cum)
    str_op = _percent_choice(op_u, [w for _, w in STRING_OPS])
    int_op = _percent_choice(op_u, [w for _, w in INT_OPS])
    str_val = np.floor(val_u * 200.0).astype(np.int64)
    int_val = np.floor(val_u * float(INT_HIGH - INT_LOW + 1)).astype(np.int64) + INT_LOW

    terms = english_terms()
    # Python lists: indexing numpy arrays element by element is slow.
    sizes_l, name_l, name_ul = sizes.tolist(), name_idx.tolist(), name_u.tolist()
    str_op_l, int_op_l = str_op.tolist(), int_op.tolist()
    str_val_l, int_val_l, is_string_l = str_val.tolist(), int_val.tolist(), is_string.tolist()
    made: dict[tuple, Constraint] = {}
    out: list[Predicate] = []
    for i in range(n):
        k = sizes_l[i]
        cs = []
        used: list[int] = []
        for j in range(k):
            a = name_l[i][j]
            if distinct_names:
                if used:
                    a = _pick_distinct(name_ul[i][j], cum, used)
                used.append(a)
            if is_string_l[a]:
                key = (a, STRING, str_op_l[i][j], str_val_l[i][j])
            else:
                key = (a, INT, int_op_l[i][j], int_val_l[i][j])
            c = made.get(key)
            if c is None:
                if key[1] == STRING:
                    c = Constraint(STRING, labels[a], STRING_OPS[key[2]][0], terms[key[3]])
                else:
                    c = Constraint(INT, labels[a], INT_OPS[key[2]][0], key[3])
                made[key] = c
            cs.append(c)
        out.append(Predicate((Filter(cs),)))
    return out
