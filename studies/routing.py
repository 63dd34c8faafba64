"""``cbalgebra study routing``: memory and traffic of PSF, iPS, PIF, DRP and
Siena, measured against the formulas of Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes", TR 2006/05, §3.

A cell is one network (a generated family at a target size n, or a real
network), one replicate, the receiver and sender fractions r/n and s/n, the
conjunctions per processor k, one of the four §4.2 name scenarios and one
reducer. It records, for every scheme:

- M(S), split into identifier bits and predicate bits, as
  :meth:`cbalgebra.network.schemes.Routing.memory` counts it. With no reducer
  (α = 1) it is computed exactly from the shortest-path trees by
  :func:`cbalgebra.network.memory.exact_memory` (equal to the built tables'
  count, which the cell re-checks by building every table where n ≤
  ``check_max``); with a reducer, PSF, iPS and PIF reduce every row of every
  processor where n ≤ ``exact_processors_max``, and above it a simple random
  sample of processors (:func:`cbalgebra.network.memory.estimate_total`,
  unbiased, with its standard error); Siena's converged tables are
  computed (in bulk, :mod:`cbalgebra.network.siena_state`) where n ≤
  ``siena_max`` and r·k ≤ ``siena_subscriptions_max`` (every cell up to
  n = 1,000 by default) and left empty (NaN) above;
- α of its combined tables: reduced predicate constraints over unreduced;
- the paper's formulas evaluated on the cell's own n, r, s, Δ, d, M_p and α,
  and for PIF also the total its own per-processor terms sum to
  (:func:`pif_summed_formula`);
- PIF's predicate constraints at α = 1 under both unions F* may take
  (``pif_union`` of :func:`cbalgebra.network.schemes.build`: the paper's,
  over every processor, and over the senders only), whichever the design
  chose for the ``pif_*`` columns, and the share of (processor u, receiver
  x ≠ u) pairs where x sits in exactly one F*_u(w);
- traffic from a sample of sources (uniform among the senders, without
  replacement) and messages aimed at the receivers' predicates: packets per
  delivery, excess over the smallest latency-minimal tree (only for the
  deliveries where that tree is computed exactly, see
  :func:`cbalgebra.network.delivery.smallest_latency_minimal_tree`),
  duplicates and header bits. Every delivery is checked against
  :func:`cbalgebra.matches`; one that misses an interested processor stops
  the study (:class:`RoutingStudyError`).

The per-source traffic sample is exact per scheme: PSF, iPS and DRP forward
a packet of source v by v's rows only, so their tables are built for the
sampled sources alone (the same rows as with every sender); PIF's F* unites
over every processor (the paper's §3.3) or, with the design's
``pif_union="senders"``, over every sender, and is built with all senders;
Siena is source-independent.

Seeds: the graph depends on (seed, topology, n, replicate); receivers and
senders are prefixes of two seeded permutations of the processors, so the
receivers at r/n = 0.1 are among those at 0.5; predicates depend on
(topology, n, replicate, k, scenario) and processor x's predicate on x only;
messages and sampled sources do not depend on the reducer. Nothing here
imports Spark.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from cbalgebra.errors import UsageError
from cbalgebra.errors import EXIT_INTERNAL, CbalgebraError
from cbalgebra.network.names import PIF_UNIONS
from cbalgebra.semantics import matches
from cbalgebra.studies import fingerprint
from cbalgebra.studies.flags import fraction_list, int_list, name_list, positive_int_type
from cbalgebra.studies.plugin import StudyPlugin
from cbalgebra.studies.dnf import scenario
from cbalgebra.studies.seeding import cell_rng, cell_seed

if TYPE_CHECKING:
    import networkx as nx
    import pyarrow as pa

    from cbalgebra.network.paths import ShortestPaths
    from cbalgebra.values import Predicate

    from cbalgebra.studies.routing_internet import InternetPlugin
    from cbalgebra.studies.runner import Study

KIND = "routing"
#: Bump when a change alters the numbers a cell produces.
MODEL_VERSION = 1
SCHEMES: tuple[str, ...] = ("psf", "ips", "pif", "drp", "siena")
FAMILIES: tuple[str, ...] = ("tree", "power_law", "transit_stub", "gnp")
#: Real networks of 20 to 1,000 nodes from the three collections topohub ships.
REAL_NETWORKS: tuple[str, ...] = (
    "topohub:topozoo/Agis", "topohub:topozoo/Uninett2011", "topohub:topozoo/TataNld",
    "topohub:sndlib/germany50", "topohub:sndlib/ta2", "topohub:sndlib/brain",
    "topohub:caida/2024-08/1221", "topohub:caida/2024-08/3356", "topohub:caida/2024-08/7018",
)
SCENARIOS: tuple[str, ...] = ("zipf-500", "zipf-5000", "uniform-50", "uniform-500")
REDUCERS: tuple[str, ...] = ("none", "siena", "merge", "cover")
FRACTIONS: tuple[float, ...] = (0.1, 0.5, 1.0)
KS: tuple[int, ...] = (1, 10, 100)
KEY_COLUMNS: tuple[str, ...] = ("topology", "n", "r_frac", "s_frac", "k", "scenario", "reducer", "replicate")


class RoutingStudyError(CbalgebraError, RuntimeError):
    """A scheme delivered a message incorrectly: the study stops. A bug in a
    scheme, not bad input: the command reports it as an internal error."""

    exit_code = EXIT_INTERNAL


# ---------------------------------------------------------------------------
# The grid

@dataclass(frozen=True)
class Grid:
    """The axes and the design. ``design="oat"`` (default) runs a growth
    sweep (every family over ``ns`` and every real network, at the base
    values) plus one-axis-at-a-time sweeps at ``base_n``: r/n × s/n (on every
    family and ``rs_real``), k, scenario (on every family), reducer (on every
    family over ``reducer_ns``). ``design="factorial"`` runs the full product
    of every axis over every topology. ``pif_union`` is what PIF's F*
    unites over in every cell: ``"processors"``, the paper's (§3.3), or
    ``"senders"``."""
    families: tuple[str, ...] = FAMILIES
    ns: tuple[int, ...] = (20, 38, 74, 141, 271, 521, 1000)
    real: tuple[str, ...] = REAL_NETWORKS
    rs_real: tuple[str, ...] = ("topohub:sndlib/germany50", "topohub:caida/2024-08/1221",
                                "topohub:topozoo/TataNld")
    r_fracs: tuple[float, ...] = FRACTIONS
    s_fracs: tuple[float, ...] = FRACTIONS
    ks: tuple[int, ...] = KS
    scenarios: tuple[str, ...] = SCENARIOS
    reducers: tuple[str, ...] = REDUCERS
    replicates: int = 2
    base_n: int = 100
    base_r: float = 0.5
    base_s: float = 0.5
    base_k: int = 10
    base_scenario: str = "zipf-500"
    base_reducer: str = "none"
    reducer_ns: tuple[int, ...] = (16, 32, 64)
    design: str = "oat"
    pif_union: str = "processors"
    # per-cell work
    sources: int = 8
    messages: int = 4
    siena_max: int = 1000
    siena_subscriptions_max: int = 10000
    check_max: int = 40
    exact_processors_max: int = 120
    sample_processors: int = 24
    traffic_reducer_max: int = 120

    def as_config(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


QUICK_GRID = Grid(
    ns=(20, 30), real=("topohub:topozoo/Agis",), rs_real=(), r_fracs=(0.5, 1.0), s_fracs=(0.5, 1.0),
    ks=(1, 10), scenarios=("zipf-500", "uniform-50"), reducers=("none", "siena"), replicates=1, base_n=20,
    reducer_ns=(20,), sources=2, messages=2, siena_max=30, check_max=20,
)


def log_grid(low: int, high: int, points: int) -> list[int]:
    """``points`` sizes on a log grid over [low, high], rounded, distinct."""
    if points == 1 or low == high:
        return [high]
    return sorted({int(v) for v in np.rint(np.geomspace(low, high, points))})


def routing_cells(grid: Grid, seed: int) -> list[dict]:
    """The cells of the grid, each once (a cell several sweeps share lists
    them all in ``designs``)."""
    cells: dict[tuple, dict] = {}

    def add(design: str, topo: str, n: int, r: float, s: float, k: int, scenario: str, reducer: str) -> None:
        for rep in range(grid.replicates):
            cell = {"topology": topo, "n": int(n), "r_frac": float(r), "s_frac": float(s), "k": int(k),
                    "scenario": scenario, "reducer": reducer, "replicate": rep, "seed": int(seed)}
            key = tuple(cell[c] for c in KEY_COLUMNS)
            if key in cells:
                if design not in cells[key]["designs"].split("+"):
                    cells[key]["designs"] += f"+{design}"
            else:
                cells[key] = {**cell, "designs": design, **_work(grid)}

    g = grid
    if g.design == "factorial":
        tops = [(f, n) for f in g.families for n in g.ns] + [(t, 0) for t in g.real]
        for topo, n in tops:
            for r in g.r_fracs:
                for s in g.s_fracs:
                    for k in g.ks:
                        for sc in g.scenarios:
                            for red in g.reducers:
                                add("factorial", topo, n, r, s, k, sc, red)
        return list(cells.values())
    base = (g.base_r, g.base_s, g.base_k, g.base_scenario, g.base_reducer)
    for f in g.families:
        for n in g.ns:
            add("growth", f, n, *base)
    for t in g.real:
        add("growth", t, 0, *base)
    rs_tops = [(f, g.base_n) for f in g.families] + [(t, 0) for t in g.rs_real]
    for topo, n in rs_tops:
        for r in g.r_fracs:
            for s in g.s_fracs:
                add("senders-receivers", topo, n, r, s, g.base_k, g.base_scenario, g.base_reducer)
    for f in g.families:
        for k in g.ks:
            add("k", f, g.base_n, g.base_r, g.base_s, k, g.base_scenario, g.base_reducer)
        for sc in g.scenarios:
            add("scenario", f, g.base_n, g.base_r, g.base_s, g.base_k, sc, g.base_reducer)
        for n in g.reducer_ns:
            for red in g.reducers:
                add("reducer", f, n, g.base_r, g.base_s, g.base_k, g.base_scenario, red)
    return list(cells.values())


def _work(grid: Grid) -> dict:
    return {"pif_union": grid.pif_union, "sources": grid.sources, "messages": grid.messages,
            "siena_max": grid.siena_max,
            "siena_subscriptions_max": grid.siena_subscriptions_max,
            "check_max": grid.check_max, "exact_processors_max": grid.exact_processors_max,
            "sample_processors": grid.sample_processors, "traffic_reducer_max": grid.traffic_reducer_max}


_REDUCER_COST = {"none": 1.0, "siena": 4.0, "merge": 5.0, "cover": 10.0}


def cell_cost(cell: dict) -> float:
    """Relative cost (longest first, ETA)."""
    n = cell["n"] or _REAL_SIZES.get(cell["topology"], 100)
    cost = 1.0 + (n / 100) ** 2.3 * (0.3 + cell["s_frac"]) * (cell["k"] / 10) ** 0.7
    if cell["reducer"] != "none":
        cost *= _REDUCER_COST.get(cell["reducer"], 5.0) * (1 + (n / 40) ** 1.5)
    if siena_runs(cell, n, math.ceil(cell["r_frac"] * n)):
        # built in bulk: about the subscriptions times the servers they reach
        cost += n * cell["r_frac"] * n * cell["k"] / 2e5 * _REDUCER_COST.get(cell["reducer"], 5.0)
    return float(cost)


_REAL_SIZES = {"topohub:caida/2024-08/7018": 594, "topohub:caida/2024-08/3356": 404,
               "topohub:sndlib/brain": 161, "topohub:topozoo/TataNld": 143}


# ---------------------------------------------------------------------------
# Building a cell's network and workload

def transit_stub_params(n: int) -> dict:
    """GT-ITM parameters giving about ``n`` nodes: ⌈n/400⌉ transit domains of
    4 nodes, 3 stub domains per transit node, stub domains sized to fit."""
    domains = max(1, math.ceil(n / 400))
    stub = max(1, round((n / (4 * domains) - 1) / 3))
    return {"transit_domains": domains, "transit_nodes": 4, "stubs_per_transit": 3, "stub_nodes": stub}


def make_network(topology_name: str, n: int, seed: int, replicate: int) -> nx.Graph:
    """The cell's graph: a family at target size n (seeded by the base seed,
    the family, n and the replicate) or a real network (n = 0)."""
    # deferred: topology loads networkx (this module loads at every `cbalgebra` start)
    from cbalgebra.network import topology

    if topology_name.startswith("topohub:"):
        return topology(topology_name)
    topo_seed = cell_seed(seed, ("topology", MODEL_VERSION, topology_name, n, replicate))
    if topology_name == "transit_stub":
        return topology("transit_stub", None, seed=topo_seed, **transit_stub_params(n))
    if topology_name == "power_law":
        # Chung–Lu expected-degree graphs with exponent 2.5: the regime where
        # Chung & Lu (PNAS 2002) prove d = O(log log n), the result §3.1 cites.
        return topology("power_law", n, seed=topo_seed, model="chung_lu", gamma=2.5)
    return topology(topology_name, n, seed=topo_seed)


def roles(n_nodes: int, r_frac: float, s_frac: float, seed: int, topology_name: str, n: int,
          replicate: int) -> tuple[list[int], list[int]]:
    """Receivers and senders: the first ⌈r/n·N⌉ and ⌈s/n·N⌉ processors of two
    seeded permutations (nested across fractions)."""
    rng = cell_rng(seed, ("roles", MODEL_VERSION, topology_name, n, replicate))
    receivers = rng.permutation(n_nodes)[:max(1, math.ceil(r_frac * n_nodes - 1e-9))]
    senders = rng.permutation(n_nodes)[:max(1, math.ceil(s_frac * n_nodes - 1e-9))]
    return sorted(int(x) for x in receivers), sorted(int(v) for v in senders)


def scenario_parameters(name: str) -> tuple[int, str]:
    sc = scenario(name)
    return sc.names, sc.distribution


# ---------------------------------------------------------------------------
# The paper's formulas (Carzaniga, Rembert & Wolf 2006, §3), in bits

def psf_exact_formula(senders: int, id_bits: int, constraint_hops: float, bits_per_constraint: int) -> float:
    """§3.1: M(PSF) = s log n + Σ_{v∈S} Σ_{x∈R} M(pred x)·dist(v, x), with
    ``constraint_hops`` = Σ_v Σ_x size(pred x)·hops_v(x) (α = 1)."""
    return senders * id_bits + bits_per_constraint * constraint_hops


def psf_simplified_formula(n_bits: float, s: int, r: int, mp_bits: float, d: float) -> float:
    """§3.1: M(PSF) = s log n + s r M_p d."""
    return s * n_bits + s * r * mp_bits * d


def ips_tree_formula(n: int, r: int, mp_bits: float, alpha: float) -> float:
    """§3.2, tree networks: M(iPS) = n r M_p α(r/Δ)."""
    return n * r * mp_bits * alpha


def pif_formula(n: int, s: int, delta: int, n_bits: float, r: int, mp_bits: float, alpha: float) -> float:
    """§3.3: M(PIF) = n(s Δ log n + n r M_p α(r/Δ)), as printed."""
    return n * (s * delta * n_bits + n * r * mp_bits * alpha)


def pif_summed_formula(n: int, s: int, delta: int, n_bits: float, r: int, mp_bits: float, alpha: float) -> float:
    """§3.3's per-processor terms summed over the n processors: M(child_u) =
    s deg(u) log n ≤ s Δ log n and M(F*_u) = r M_p α(r/deg u), so M(PIF) =
    n(s Δ log n + r M_p α): the printed total without its second factor n."""
    return n * (s * delta * n_bits + r * mp_bits * alpha)


def drp_formula(n: int, r: int, n_bits: float, s: int, mp_bits: float) -> float:
    """§3.4: M(DRP) = n r log n + s r M_p."""
    return n * r * n_bits + s * r * mp_bits


# ---------------------------------------------------------------------------
# One cell

def _nan() -> float:
    return float("nan")


class CellWorkload(NamedTuple):
    """One cell's roles and predicates on its network (:func:`cell_workload`)."""
    receivers: list
    senders: list
    predicates: dict
    names: int
    distribution: str


def cell_workload(cell: Mapping, nodes: int, seed_label: str, model_version: int) -> CellWorkload:
    """One cell's :func:`roles` and k conjunctions per receiver, seeded under ``seed_label`` (per design)."""
    from cbalgebra.network.workload import processor_predicates  # deferred: loads networkx
    seed, topo, n, rep = int(cell["seed"]), cell["topology"], int(cell["n"]), int(cell["replicate"])
    receivers, senders = roles(nodes, cell["r_frac"], cell["s_frac"], seed, topo, n, rep)
    names, distribution = scenario_parameters(cell["scenario"])
    pred_seed = cell_seed(seed, (seed_label, model_version, topo, n, rep, cell["k"], cell["scenario"]))
    predicates = processor_predicates(receivers, int(cell["k"]), names=names, distribution=distribution,
                                      seed=pred_seed % (2**32))
    return CellWorkload(receivers, senders, predicates, names, distribution)


def run_routing_cell(cell: dict) -> dict:
    """The body of one Spark task: one cell, one row."""
    # deferred: the network modules load networkx (this module loads at every `cbalgebra` start)
    from cbalgebra.network.memory import exact_memory, tree_orders
    from cbalgebra.network.paths import ShortestPaths
    from cbalgebra.network.schemes import BITS_PER_CONSTRAINT, id_bits, ips_structure

    start = time.perf_counter()
    graph = make_network(cell["topology"], int(cell["n"]), int(cell["seed"]), int(cell["replicate"]))
    nodes = graph.number_of_nodes()
    receivers, senders, predicates, names, distribution = cell_workload(cell, nodes, "predicates", MODEL_VERSION)
    paths = ShortestPaths(graph)
    orders = tree_orders(paths)
    ips = ips_structure(paths, senders)
    row: dict[str, Any] = {c: cell[c] for c in (*KEY_COLUMNS, "seed", "designs")}
    idb = id_bits(nodes)
    degrees = np.array([graph.degree[u] for u in range(nodes)])
    hops_all = orders.hops.sum() / max(1, nodes * (nodes - 1))
    sizes = {x: p.size for x, p in predicates.items()}
    constraint_hops = float(sum(int(orders.hops[senders, x].sum()) * sz for x, sz in sizes.items()))
    mp = float(np.mean(list(sizes.values())))
    row.update({
        "n_actual": nodes, "links": graph.number_of_edges(), "r": len(receivers), "s": len(senders),
        "d": float(hops_all), "delta": int(degrees.max()), "mean_degree": float(degrees.mean()),
        "diameter_hops": int(orders.hops.max()), "id_bits_per_id": idb, "mp_constraints": mp,
        "receiver_constraints": int(sum(sizes.values())), "constraint_hops": constraint_hops,
        "weighted": bool(any(d["weight"] != 1 for _, _, d in graph.edges(data=True))),
    })
    t_mem = time.perf_counter()
    union = cell.get("pif_union", PIF_UNIONS[0])
    exact = exact_memory(paths, predicates, senders, orders=orders, ips=ips, pif_union=union)
    classes = exact["ips"].pop("classes")
    row.update(_pif_unions(paths, receivers, senders, np.array([sizes.get(x, 0) for x in range(nodes)])))
    all_classes = ips[0].max(axis=1) + 1
    hist = dict(sorted(((int(c), int(k)) for c, k in zip(*np.unique(classes, return_counts=True), strict=True))))
    row.update({
        "ips_classes_mean": float(classes.mean()), "ips_classes_median": float(np.median(classes)),
        "ips_classes_p90": float(np.percentile(classes, 90)), "ips_classes_max": int(classes.max()),
        "ips_classes_all_mean": float(all_classes.mean()), "ips_classes_hist": json.dumps(hist),
    })
    sienas: dict[str, Any] = {}  # Siena built once per reducer, for memory and traffic
    memory = _memory_with_reducer(cell, graph, paths, predicates, senders, exact, ips, sienas)
    row["memory_seconds"] = time.perf_counter() - t_mem
    row["memory_checked"] = _check_memory(cell, graph, paths, predicates, senders, exact, nodes)
    for scheme in SCHEMES:
        m = memory[scheme]
        row[f"{scheme}_id_bits"] = m["id_bits"]
        row[f"{scheme}_pred_bits"] = m["predicate_bits"]
        row[f"{scheme}_total_bits"] = m["total_bits"]
        row[f"{scheme}_total_se"] = m["se"]
        row[f"{scheme}_alpha"] = m["alpha"]
    row["memory_method"] = memory["method"]
    # the paper's formulas on the cell's own parameters
    mp_bits = mp * BITS_PER_CONSTRAINT
    r, s, delta = len(receivers), len(senders), int(degrees.max())
    row["psf_exact_formula"] = psf_exact_formula(s, idb, constraint_hops, BITS_PER_CONSTRAINT)
    row["psf_simple_formula"] = psf_simplified_formula(idb, s, r, mp_bits, float(hops_all))
    row["ips_tree_formula"] = ips_tree_formula(nodes, r, mp_bits, _finite(row["ips_alpha"]))
    row["pif_formula"] = pif_formula(nodes, s, delta, idb, r, mp_bits, _finite(row["pif_alpha"]))
    row["pif_summed_formula"] = pif_summed_formula(nodes, s, delta, idb, r, mp_bits, _finite(row["pif_alpha"]))
    row["drp_formula"] = drp_formula(nodes, r, idb, s, mp_bits)
    t_traffic = time.perf_counter()
    row.update(_traffic(cell, graph, paths, predicates, receivers, senders, names, distribution, sienas))
    row["traffic_seconds"] = time.perf_counter() - t_traffic
    row.update({"task_seconds": time.perf_counter() - start, "host": socket.gethostname(), "pid": os.getpid()})
    return row


def _pif_unions(paths: ShortestPaths, receivers: list[int], senders: list[int], sizes: np.ndarray) -> dict:
    """PIF's constraints at α = 1 under both unions, and the share of
    (u, receiver x ≠ u) pairs where x is in exactly one F*_u(w) under the
    paper's union."""
    # deferred: the network modules load networkx
    from cbalgebra.network.memory import pif_below

    everyone = pif_below(paths, range(paths.n))
    held = everyone.rows_holding()[:, receivers]
    elsewhere = np.arange(paths.n)[:, None] != np.asarray(receivers)[None, :]
    return {"pif_processors_constraints": everyone.constraints(sizes),
            "pif_senders_constraints": pif_below(paths, senders).constraints(sizes),
            "pif_one_row_share": float((held[elsewhere] == 1).mean()) if elsewhere.any() else _nan()}


def seed_key(cell: dict, exclude: Sequence[str] = ()) -> list:
    """The cell's key as seed material (fractions as their decimal text)."""
    return [f"{cell[c]:g}" if isinstance(cell[c], float) else cell[c] for c in KEY_COLUMNS if c not in exclude]


def siena_runs(cell: dict, n: int, receivers: int) -> bool:
    """Whether Siena runs: for n ≤ ``siena_max`` and r·k ≤
    ``siena_subscriptions_max`` (its tables hold about n·r·k subscriptions:
    the default 1,000 and 10,000 take every cell of the grid, the largest
    in about a minute, see benchmarks/routing_siena.py)."""
    return n <= cell["siena_max"] and receivers * cell["k"] <= cell.get("siena_subscriptions_max", 10000)


def _finite(x: float) -> float:
    return 1.0 if x is None or not math.isfinite(x) else float(x)


def _siena(sienas: dict[str, Any], graph: nx.Graph, paths: ShortestPaths, predicates: dict[int, Predicate],
           senders: list[int], reducer: str) -> Any:
    """Siena with ``reducer``, built once per cell (it is source-independent)."""
    # deferred: the network modules load networkx
    from cbalgebra.network.schemes import build

    if reducer not in sienas:
        sienas[reducer] = build("siena", graph, predicates, reducer=reducer, senders=senders, paths=paths)
    return sienas[reducer]


def _memory_with_reducer(cell: dict, graph: nx.Graph, paths: ShortestPaths, predicates: dict[int, Predicate],
                         senders: list[int], exact: dict, ips: tuple, sienas: dict[str, Any]) -> dict:
    """Per scheme {id_bits, predicate_bits, total_bits, se, alpha}."""
    # deferred: the network modules load networkx
    from cbalgebra.network.memory import estimate_total, make_combiner, processor_constraints
    from cbalgebra.network.schemes import BITS_PER_CONSTRAINT

    reducer, nodes = cell["reducer"], graph.number_of_nodes()
    out: dict[str, Any] = {}
    method = "exact (alpha = 1)" if reducer == "none" else "exact (every processor reduced)"
    for scheme in ("psf", "ips", "pif", "drp"):
        e = exact[scheme]
        out[scheme] = {"id_bits": e["id_bits"], "predicate_bits": e["predicate_bits"],
                       "total_bits": e["total_bits"], "se": 0.0, "alpha": 1.0}
    if reducer != "none":
        combiner = make_combiner(predicates, reducer)
        if nodes <= cell["exact_processors_max"]:
            sample = list(range(nodes))
        else:
            rng = cell_rng(cell["seed"], ("processor-sample", MODEL_VERSION, *seed_key(cell)))
            size = min(nodes, cell["sample_processors"])
            sample = sorted(int(u) for u in rng.choice(nodes, size=size, replace=False))
            method = f"sampled {len(sample)} of {nodes} processors"
        union = cell.get("pif_union", PIF_UNIONS[0])
        for scheme in ("psf", "ips", "pif"):
            ys = [processor_constraints(scheme, u, paths, predicates, senders, reducer, combiner=combiner, ips=ips,
                                        pif_union=union)
                  for u in sample]
            est = estimate_total(ys, nodes)
            e = exact[scheme]
            pred_bits = est.total * BITS_PER_CONSTRAINT
            out[scheme] = {"id_bits": e["id_bits"], "predicate_bits": pred_bits,
                           "total_bits": e["id_bits"] + pred_bits, "se": est.standard_error * BITS_PER_CONSTRAINT,
                           "alpha": pred_bits / e["predicate_bits"] if e["predicate_bits"] else _nan()}
    if siena_runs(cell, nodes, len(predicates)):
        m = _siena(sienas, graph, paths, predicates, senders, reducer).memory()
        unreduced = (m["predicate_bits"] if reducer == "none" else
                     _siena(sienas, graph, paths, predicates, senders, "none").memory()["predicate_bits"])
        out["siena"] = {"id_bits": m["id_bits"], "predicate_bits": m["predicate_bits"],
                        "total_bits": m["total_bits"], "se": 0.0,
                        "alpha": m["predicate_bits"] / unreduced if unreduced else _nan()}
    else:
        out["siena"] = {k: _nan() for k in ("id_bits", "predicate_bits", "total_bits", "se", "alpha")}
    out["method"] = method
    return out


def _check_memory(cell: dict, graph: nx.Graph, paths: ShortestPaths, predicates: dict[int, Predicate],
                  senders: list[int], exact: dict, nodes: int) -> bool:
    """Where n ≤ check_max: build every table and demand the exact count."""
    # deferred: the network modules load networkx
    from cbalgebra.network.schemes import build

    if nodes > cell["check_max"]:
        return False
    for scheme in ("psf", "ips", "pif", "drp"):
        extra = {"pif_union": cell.get("pif_union", PIF_UNIONS[0])} if scheme == "pif" else {}
        m = build(scheme, graph, predicates, senders=senders, paths=paths, **extra).memory()
        if (m["id_bits"], m["predicate_constraints"]) != (exact[scheme]["id_bits"],
                                                         exact[scheme]["predicate_constraints"]):
            raise RoutingStudyError(
                f"{cell['topology']} n={nodes}: {scheme} tables count {m['id_bits']} id bits and "
                f"{m['predicate_constraints']} constraints, the tree computation "
                f"{exact[scheme]['id_bits']} and {exact[scheme]['predicate_constraints']}")
    return True


def _traffic(cell: dict, graph: nx.Graph, paths: ShortestPaths, predicates: dict[int, Predicate],
             receivers: list[int], senders: list[int], names: int, distribution: str,
             sienas: dict[str, Any]) -> dict:
    """Sampled deliveries of every scheme (see the module docstring)."""
    # deferred: the network modules load networkx
    from cbalgebra.network.delivery import smallest_latency_minimal_tree
    from cbalgebra.network.schemes import build
    from cbalgebra.network.workload import messages

    nodes = graph.number_of_nodes()
    key = seed_key(cell, exclude=("reducer",))
    rng = cell_rng(cell["seed"], ("traffic", MODEL_VERSION, *key))
    sources = sorted(int(v) for v in rng.choice(senders, size=min(len(senders), cell["sources"]), replace=False))
    per = cell["messages"]
    msg_seed = cell_seed(cell["seed"], ("messages", MODEL_VERSION, *key)) % (2**32)
    msgs = messages(len(sources) * per, names=names, distribution=distribution, seed=msg_seed,
                    aim_at=predicates)
    srcs = [v for v in sources for _ in range(per)]
    reducer = cell["reducer"] if nodes <= cell["traffic_reducer_max"] else "none"

    interested = [frozenset(x for x, p in predicates.items() if matches(p, m)) for m in msgs]
    optima = [smallest_latency_minimal_tree(graph, v, w, paths=paths) for v, w in zip(srcs, interested, strict=True)]
    out: dict[str, Any] = {
        "traffic_sources": len(sources), "deliveries": len(msgs), "traffic_reducer": reducer,
        "interested_mean": float(np.mean([len(w) for w in interested])),
        "optimum_exact": int(sum(o.exact for o in optima)),
        "optimum_size_mean": float(np.mean([o.size - 1 for o in optima])),
    }
    for scheme in SCHEMES:
        if scheme == "siena" and not siena_runs(cell, nodes, len(receivers)):
            for col in ("packets", "packets_se", "excess", "duplicates", "header_bits", "latency_minimal",
                        "correct"):
                out[f"{scheme}_{col}"] = _nan()
            continue
        built_for = senders if scheme in ("pif", "siena") else sources
        extra = {"pif_union": cell.get("pif_union", PIF_UNIONS[0])} if scheme == "pif" else {}
        routing = (_siena(sienas, graph, paths, predicates, senders, reducer) if scheme == "siena" else
                   build(scheme, graph, predicates, reducer=reducer, senders=built_for, paths=paths, **extra))
        deliveries = routing.deliver_many(msgs, srcs)
        packets, excess, dups, header, minimal = [], [], 0, [], 0
        for d, want, opt in zip(deliveries, interested, optima, strict=True):
            report = d.report
            if report.interested != want or not report.correct:
                raise RoutingStudyError(
                    f"{scheme} on {cell['topology']} (n={nodes}, replicate {cell['replicate']}): the message "
                    f"from {d.source} missed {sorted(report.missed)}; the study stops")
            packets.append(d.transmissions)
            header.append(d.header_bits)
            dups += sum(c - 1 for _, c in report.duplicates)
            minimal += report.latency_minimal
            if opt.exact:
                excess.append(d.size - opt.size)
        k = len(deliveries)
        out[f"{scheme}_packets"] = float(np.mean(packets))
        out[f"{scheme}_packets_se"] = float(np.std(packets, ddof=1) / math.sqrt(k)) if k > 1 else _nan()
        out[f"{scheme}_excess"] = float(np.mean(excess)) if excess else _nan()
        out[f"{scheme}_duplicates"] = float(dups)
        out[f"{scheme}_header_bits"] = float(np.mean(header))
        out[f"{scheme}_latency_minimal"] = minimal / k
        out[f"{scheme}_correct"] = 1.0
    return out


# ---------------------------------------------------------------------------
# The schema

def _schema_fields() -> list[tuple[str, str]]:
    fields = [("topology", "s"), ("n", "i"), ("r_frac", "f"), ("s_frac", "f"), ("k", "i"), ("scenario", "s"),
              ("reducer", "s"), ("replicate", "i"), ("seed", "i"), ("designs", "s"),
              ("n_actual", "i"), ("links", "i"), ("r", "i"), ("s", "i"), ("d", "f"), ("delta", "i"),
              ("mean_degree", "f"), ("diameter_hops", "i"), ("id_bits_per_id", "i"), ("mp_constraints", "f"),
              ("receiver_constraints", "i"), ("constraint_hops", "f"), ("weighted", "b"),
              ("ips_classes_mean", "f"), ("ips_classes_median", "f"), ("ips_classes_p90", "f"),
              ("ips_classes_max", "i"), ("ips_classes_all_mean", "f"), ("ips_classes_hist", "s"),
              ("memory_method", "s"), ("memory_checked", "b")]
    for scheme in SCHEMES:
        fields += [(f"{scheme}_{c}", "f") for c in ("id_bits", "pred_bits", "total_bits", "total_se", "alpha")]
    fields += [(f, "f") for f in ("psf_exact_formula", "psf_simple_formula", "ips_tree_formula", "pif_formula",
                                  "pif_summed_formula", "drp_formula")]
    fields += [("pif_processors_constraints", "i"), ("pif_senders_constraints", "i"), ("pif_one_row_share", "f")]
    fields += [("traffic_sources", "i"), ("deliveries", "i"), ("traffic_reducer", "s"), ("interested_mean", "f"),
               ("optimum_exact", "i"), ("optimum_size_mean", "f")]
    for scheme in SCHEMES:
        fields += [(f"{scheme}_{c}", "f") for c in ("packets", "packets_se", "excess", "duplicates", "header_bits",
                                                   "latency_minimal", "correct")]
    fields += [("memory_seconds", "f"), ("traffic_seconds", "f"), ("task_seconds", "f"), ("host", "s"),
               ("pid", "i")]
    return fields


def routing_schema() -> pa.Schema:
    # deferred: pyarrow (this module loads at every `cbalgebra` start)
    import pyarrow as pa

    types = {"s": pa.string(), "i": pa.int64(), "f": pa.float64(), "b": pa.bool_()}
    return pa.schema([(name, types[t]) for name, t in _schema_fields()])


#: Columns that depend on where and when a cell ran, not on what it computed.
VOLATILE_COLUMNS = ("memory_seconds", "traffic_seconds", "task_seconds", "host", "pid")


def code_fingerprint() -> str:
    """A short hash of what the code a cell's numbers depend on does: the
    network package, the DNF generator with its word list, the reducers and
    the value types (``cbalgebra.studies.fingerprint``)."""
    return fingerprint.code_fingerprint(
        f"routing-model-{MODEL_VERSION}",
        ("cbalgebra.network", "cbalgebra.workloads._dnf", "cbalgebra.reducers", "cbalgebra.values"),
        data_folders=("cbalgebra.workloads._dnf:data",),
    )


def routing_config(grid: Grid, seed: int = 2003, quick: bool = False) -> dict:
    """The design of a routing study: the grid's axes and per-cell work, the seed, whether --quick."""
    return {**grid.as_config(), "seed": seed, "quick": quick}


def grid_of(config: Mapping) -> Grid:
    """The grid a design records (:func:`routing_config`)."""
    names = {f.name for f in dataclasses.fields(Grid)}
    axes: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in config.items() if k in names}
    return Grid(**axes)


def routing_study(grid: Grid, seed: int = 2003, quick: bool = False) -> Study:
    """The routing study of ``grid`` as the runner executes it."""
    return PLUGIN.study(routing_config(grid, seed, quick))


# ---------------------------------------------------------------------------
# The command

def grid_from_args(args: argparse.Namespace) -> Grid:
    g = QUICK_GRID if args.quick else Grid()
    changes: dict[str, Any] = {}
    if args.families is not None:
        changes["families"] = name_list(args.families, "--families", FAMILIES) if args.families else ()
    if args.ns is not None:
        changes["ns"] = int_list(args.ns, "--ns", 4)
    elif args.points is not None or args.max_n is not None or args.min_n is not None:
        low = args.min_n or min(g.ns)
        high = args.max_n or max(g.ns)
        if low > high:
            raise UsageError("--min-n must not exceed --max-n")
        changes["ns"] = tuple(log_grid(low, high, args.points or len(g.ns)))
    if args.real is not None:
        real = name_list(args.real, "--real")
        changes["real"] = tuple(t if t.startswith("topohub:") else f"topohub:{t}" for t in real)
        _check_real(changes["real"])
    for flag, attr in (("r_fracs", "r_fracs"), ("s_fracs", "s_fracs")):
        if getattr(args, flag) is not None:
            changes[attr] = fraction_list(getattr(args, flag), f"--{flag.replace('_', '-')}")
    if args.ks is not None:
        changes["ks"] = int_list(args.ks, "--ks")
    if args.scenarios is not None:
        changes["scenarios"] = name_list(args.scenarios, "--scenarios", SCENARIOS)
    if args.reducers is not None:
        changes["reducers"] = name_list(args.reducers, "--reducers", REDUCERS)
    for flag in ("replicates", "sources", "messages", "siena_max", "base_n"):
        if getattr(args, flag, None) is not None:
            changes[flag] = getattr(args, flag)
    changes["design"] = args.design
    changes["pif_union"] = args.pif_union
    grid = Grid(**{**g.__dict__, **changes})
    if not grid.families and not grid.real:
        raise UsageError("no topology to study: give --families or --real")
    return grid


def _check_real(names: Sequence[str]) -> None:
    # deferred: topology loads networkx
    from cbalgebra.network.topology import real_networks

    known = {f"topohub:{k}" for k, _, _ in real_networks()}
    for name in names:
        if name not in known:
            raise UsageError(f"--real: {name!r} is not a topohub network (see cbalgebra route --list-real)")


class RoutingPlugin(StudyPlugin):
    """The routing study as every study is run (:class:`cbalgebra.studies.plugin.StudyPlugin`)."""

    name = KIND
    summary = "the memory of PSF, iPS, PIF and DRP (the same paper, §3)"
    help = "memory and traffic of PSF, iPS, PIF, DRP and Siena against the formulas of Carzaniga, Rembert & Wolf"
    description = ("Routing schemes of Carzaniga, Rembert & Wolf 2006, §3, on generated and real "
                   "networks: measured M(S) per scheme, alpha of the combined tables, iPS classes, sampled "
                   "traffic, and the paper's formulas beside them. Default: a growth sweep plus "
                   "one-axis-at-a-time sweeps (--design factorial runs the full product).")
    shared_flags = MappingProxyType({
        "replicates": "replicates (graph, roles, predicates, messages) per point",
        "points": "points of the log grid of n between --min-n and --max-n",
    })
    key_columns = (*KEY_COLUMNS, "seed")
    model_version = MODEL_VERSION
    outputs = "cbalgebra.studies.routing_report"
    run_cell = staticmethod(run_routing_cell)
    cell_cost = staticmethod(cell_cost)

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--design", choices=("oat", "factorial", "internet"), default="oat",
                       help="oat: growth sweep + one axis at a time (default); factorial: every combination; "
                            "internet: memory on every topohub network and generated graphs to 100,000 nodes")
        _internet().add_arguments(p)  # the internet design's counting policy (--rse-target, --ips-max, ...)
        p.add_argument("--families", metavar="LIST", help=f"of {', '.join(FAMILIES)} (default: all; '' for none)")
        p.add_argument("--ns", metavar="LIST",
                       help="target sizes of the growth sweep (default: 7 on a log grid 20..1000)")
        p.add_argument("--min-n", type=positive_int_type, metavar="N",
                       help="smallest size of the log grid (default 20)")
        p.add_argument("--max-n", type=positive_int_type, metavar="N",
                       help="largest size of the log grid (default 1000)")
        p.add_argument("--real", metavar="LIST",
                       help="topohub networks (default: 9 from Topology Zoo, SNDlib, CAIDA)")
        p.add_argument("--r-fracs", metavar="LIST", help="receiver fractions r/n (default 0.1,0.5,1.0)")
        p.add_argument("--s-fracs", metavar="LIST", help="sender fractions s/n (default 0.1,0.5,1.0)")
        p.add_argument("--ks", metavar="LIST", help="conjunctions per processor (default 1,10,100)")
        p.add_argument("--scenarios", metavar="LIST", help=f"name scenarios (default: {','.join(SCENARIOS)})")
        p.add_argument("--reducers", metavar="LIST", help=f"of {', '.join(REDUCERS)} (default: all)")
        p.add_argument("--base-n", type=positive_int_type, metavar="N",
                       help="size of the one-axis sweeps (default 100)")
        p.add_argument("--sources", type=positive_int_type, metavar="N",
                       help="sampled sources per cell (default 8)")
        p.add_argument("--messages", type=positive_int_type, metavar="N",
                       help="messages per sampled source (default 4)")
        p.add_argument("--siena-max", type=positive_int_type, metavar="N",
                       help="largest network Siena runs on (default 1000)")
        p.add_argument("--pif-union", choices=PIF_UNIONS, default=PIF_UNIONS[0],
                       help="what PIF's F* unites over: processors (the paper's §3.3, default) or senders")

    def config_from_args(self, args: argparse.Namespace) -> dict:
        if args.design == "internet":
            return _internet().config_from_args(args)
        _internet().refuse_flags(args)
        return routing_config(grid_from_args(args), seed=args.seed, quick=args.quick)

    def study(self, config: Mapping) -> Study:
        """The design ``config``; the internet design is its own plugin's
        (:mod:`cbalgebra.studies.routing_internet`: other cells, columns and outputs)."""
        if config.get("design") == "internet":
            return _internet().study(config)
        return super().study(config)

    def cells(self, config: Mapping) -> list[dict]:
        return routing_cells(grid_of(config), config["seed"])

    def schema(self) -> pa.Schema:
        return routing_schema()

    def code_fingerprint(self, config: Mapping) -> str | None:
        return code_fingerprint()


def _internet() -> InternetPlugin:
    # deferred: routing_internet imports this module
    from cbalgebra.studies.routing_internet import PLUGIN as INTERNET

    return INTERNET


PLUGIN = RoutingPlugin()
