"""The DNF model of Carzaniga, Rembert & Wolf, "Understanding Content-Based
Routing Schemes" (TR 2006/05), §4.2 (Figures 6 and 7): pure functions.

A cell is (scenario, n, replicate, reducer): generate ``n`` random one-
conjunction predicates with ``cbalgebra.workloads.dnf_predicates``, reduce
their disjunction with ``cbalgebra.reducers`` and record
``alpha = size(reduce(p_1 ∨ ... ∨ p_n)) / Σ size(p_i)``.

The predicate set's seed comes from the base seed and (scenario, n,
replicate) only, so every reducer of a study sees the very same sets.
Nothing here imports Spark.

Beyond the paper: the paper's α comes from its simple reducer, so Figures 6
and 7 bound from above what any reducer saves. A ``minimal`` cell calls
``cbalgebra.reducers.minimize`` with the study's budget and records, beside
α (its size over the total), α_lower (its proven lower bound over the total)
and whether the size is proven minimal: the optimum α lies in
[α_lower, α], and equals α where ``proven``.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cbalgebra.reducers import DEFAULT_BUDGET as REDUCTION_BUDGET
from cbalgebra.reducers import alpha, minimize
from cbalgebra.studies import fingerprint
from cbalgebra.studies.seeding import cell_seed
from cbalgebra.values import Predicate
from cbalgebra.workloads import dnf_predicates


@dataclass(frozen=True)
class Scenario:
    name: str
    distribution: str  # of attribute names: "zipf" or "uniform"
    names: int  # |A|
    figure: int  # 6 or 7 in the paper


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario("zipf-500", "zipf", 500, 6),
        Scenario("zipf-5000", "zipf", 5000, 6),
        Scenario("uniform-50", "uniform", 50, 7),
        Scenario("uniform-500", "uniform", 500, 7),
    )
}
DEFAULT_REDUCER = "siena"
#: The reducers whose cells also record a proven lower bound (``alpha_lower``) and ``proven``.
CERTIFYING_REDUCERS: tuple[str, ...] = ("minimal",)
#: Seconds ``minimize`` may spend on each independent group of a cell's disjunction before it returns
#: its best cover and a proven lower bound (the study's ``--budget``): ``minimize``'s own default.
DEFAULT_BUDGET = REDUCTION_BUDGET

#: Bump when a change alters the numbers a cell produces.
MODEL_VERSION = 1

KEY_COLUMNS: tuple[str, ...] = ("scenario", "n", "replicate", "reducer")


def scenario(name: str) -> Scenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ValueError(
            f"unknown scenario {name!r} (expected one of {', '.join(SCENARIOS)})"
        ) from None


def dnf_grid(max_n: int = 10_000, points: int = 17, min_n: int = 1) -> list[int]:
    """Numbers of predicates on a log grid over ``[min_n, max_n]``, rounded, distinct."""
    if min_n < 1 or max_n < min_n:
        raise ValueError("need 1 <= min n <= max n")
    if points < 1:
        raise ValueError("points must be at least 1")
    if points == 1 or max_n == min_n:
        return [max_n]
    values = np.rint(np.geomspace(min_n, max_n, points)).astype(int)
    return sorted({int(v) for v in values})


def predicate_seed(seed: int, scenario_name: str, n: int, replicate: int) -> int:
    """The seed of one predicate set; reducers do not enter it."""
    return cell_seed(seed, ("dnf", MODEL_VERSION, scenario_name, n, replicate))


def generate_predicates(scenario_name: str, n: int, replicate: int, seed: int) -> list:
    """The ``n`` predicates of one cell, from ``cbalgebra.workloads.dnf_predicates``.

    That is the generator of Carzaniga, Rembert & Wolf 2006, §4.2.
    """
    sc = scenario(scenario_name)
    return dnf_predicates(n, sc.names, sc.distribution, predicate_seed(seed, scenario_name, n, replicate))


def predicates_size(predicates: Sequence[Predicate]) -> int:
    """Σ size(p): the number of constraints of all the predicates."""
    return sum(p.size for p in predicates)


def alpha_dnf_cell(
    scenario_name: str, n: int, replicate: int, reducer: str = DEFAULT_REDUCER, seed: int = 0
) -> float:
    """α of one cell: the same predicate set whatever the reducer."""
    return float(alpha(generate_predicates(scenario_name, n, replicate, seed), reducer=reducer))


def dnf_cells(
    scenarios: Sequence[str], ns: Sequence[int], replicates: int, reducers: Sequence[str], seed: int,
    budget: float = DEFAULT_BUDGET, reducer_max_n: Mapping[str, int] | None = None,
) -> list[dict]:
    """Every (scenario, n, replicate, reducer) cell; a reducer named in ``reducer_max_n`` runs only on
    the n up to its bound there. A certifying reducer's cell carries the ``budget`` of its search."""
    limits = dict(reducer_max_n or {})
    cells = []
    for name in scenarios:
        scenario(name)
        for n in ns:
            for r in range(replicates):
                for reducer in reducers:
                    if n > limits.get(reducer, n):
                        continue
                    cell = {"scenario": name, "n": int(n), "replicate": r, "reducer": reducer, "seed": seed}
                    if reducer in CERTIFYING_REDUCERS:
                        cell["budget"] = float(budget)
                    cells.append(cell)
    return cells


#: Relative cost of the reducers per predicate (siena = 1); for scheduling only.
_REDUCER_COST = {"siena": 1.0, "merge": 1.5, "cover": 1.5, "minimal": 3.0, "exact": 20.0}


#: Units of :func:`dnf_cell_cost` per second of a task: Σ cost / Σ task time of the committed siena run.
COST_PER_SECOND = 4500.0


def search_seconds(n: int, budget: float) -> float:
    """A guess of the seconds ``minimize``'s exact search takes on a cell of ``n`` predicates: about
    4 (n / 100)³ (measured on this workload: 0.1 s at n = 56, 0.3–3 s at n = 100 when proven), at most
    three groups' budgets (most cells hold at most a few groups that need long)."""
    return min(4.0 * (n / 100) ** 3, 3.0 * budget)


def dnf_cell_cost(cell: dict) -> float:
    """Relative cost, for longest-first scheduling and the ETA."""
    n = cell["n"]
    cost = (5.0 + n * (1.0 + 0.05 * np.log2(n + 1))) * _REDUCER_COST.get(cell["reducer"], 2.0)
    if cell["reducer"] in CERTIFYING_REDUCERS:
        cost += COST_PER_SECOND * search_seconds(n, cell.get("budget", DEFAULT_BUDGET))
    return float(cost)


def disjunction(predicates: Sequence[Predicate]) -> Predicate:
    """p₁ ∨ … ∨ pₙ: one predicate holding every conjunction of every ``predicates``."""
    return Predicate([f for p in predicates for f in p.filters])


def reduce_cell(predicates: Sequence[Predicate], reducer: str, budget: float) -> dict:
    """``alpha`` of one cell, and for a certifying reducer ``alpha_lower`` and ``proven`` (None otherwise)."""
    if reducer not in CERTIFYING_REDUCERS:
        return {"alpha": float(alpha(predicates, reducer=reducer)), "alpha_lower": None, "proven": None}
    total = predicates_size(predicates)
    if total == 0:
        raise ValueError("alpha is undefined: the predicates hold no constraint")
    found = minimize(disjunction(predicates), budget=budget)
    return {"alpha": found.size / total, "alpha_lower": found.lower_bound / total, "proven": bool(found.proven)}


def run_dnf_cell(cell: dict) -> dict:
    """The body of one Spark task: one DNF cell, one result row."""
    start = time.perf_counter()
    predicates = generate_predicates(cell["scenario"], cell["n"], cell["replicate"], cell["seed"])
    generated = time.perf_counter()
    reduced_cell = reduce_cell(predicates, cell["reducer"], cell.get("budget", DEFAULT_BUDGET))
    value = reduced_cell["alpha"]
    reduced = time.perf_counter()
    size = predicates_size(predicates)
    sc = scenario(cell["scenario"])
    return {
        "scenario": cell["scenario"],
        "distribution": sc.distribution,
        "names": sc.names,
        "n": int(cell["n"]),
        "replicate": int(cell["replicate"]),
        "reducer": cell["reducer"],
        "seed": int(cell["seed"]),
        "cell_seed": predicate_seed(cell["seed"], cell["scenario"], cell["n"], cell["replicate"]),
        "size": int(size),
        "reduced_size": round(value * size),
        "alpha": value,
        "alpha_lower": reduced_cell["alpha_lower"],
        "proven": reduced_cell["proven"],
        "gen_seconds": generated - start,
        "reduce_seconds": reduced - generated,
        "task_seconds": time.perf_counter() - start,
        "host": socket.gethostname(),
        "pid": os.getpid(),
    }


def code_fingerprint() -> str:
    """A short hash of what the code a DNF cell's result depends on does: the
    generator (with its word list), the reducers, covering and the value types
    (``cbalgebra.studies.fingerprint``)."""
    return fingerprint.code_fingerprint(
        f"dnf-model-{MODEL_VERSION}",
        ("cbalgebra.workloads._dnf", "cbalgebra.reducers", "cbalgebra.covering", "cbalgebra.values"),
        data_folders=("cbalgebra.workloads._dnf:data",),
    )
