"""``cbalgebra study routing --design internet``: the memory M(S) of PSF, iPS,
PIF and DRP (Carzaniga, Rembert & Wolf, "Understanding Content-Based Routing
Schemes", TR 2006/05, §3) on every network topohub ships and on generated
networks up to 100,000 processors, counted by
:func:`cbalgebra.network.table_memory` (no table is built, no all-pairs
distance is held).

A cell is one network (a topohub network, or a generated family at a target
size n) and one replicate, with the routing study's base workload: receivers
and senders are r/n = s/n = 0.5 of the processors (the routing study's
:func:`~cbalgebra.studies.routing.roles`), k = 10 conjunctions per receiver
from the zipf-500 scenario of §4.2, no reducer (α = 1). It records, per
scheme, the predicate constraints, the id bits, the total bits and the
standard error of the total (0 when exact):

- exact where n ≤ ``exact_max`` (every topohub network: the largest,
  backbone/world, has 3,815 processors); PIF over every processor and DRP
  are exact at every size (with no reducer their per-unit values need no
  tree: :mod:`cbalgebra.network.sizing`);
- above, PSF (units: senders) and iPS (units: processors) are estimated from
  a simple random sample of units: a pilot of ``pilot`` units gives the
  relative standard error (RSE) it reaches, then a sample of
  ⌈pilot·(RSE/``rse_target``)²⌉ units (at most ``max_sample``), drawn afresh,
  gives the number recorded with its standard error. The final sample's size
  depends on the pilot, not on its own values, so its estimate stays
  unbiased; the RSE reached is recorded (``*_rse``) and the report says
  where it missed the target;
- iPS needs the branch sizes of every processor's tree, n trees whatever the
  sample; above ``ips_max`` it is left empty (NaN) and the report says so.
  Below, ``ips_exact`` (default) counts it exactly at every size, as the
  paper defines it: its trees cost the same whatever the sample, and the
  exact count measured cheaper than the pilot and a 1,000-unit sample at
  n = 10,000 (``benchmarks/results/routing_internet_cells.csv``);
  ``ips_exact=False`` samples it above ``exact_max`` as PSF.

Beside them: n, links, r, s, Δ, the mean hop count d of the shortest-path
trees (over ordered pairs, from ``d_sources`` sampled sources where n is
larger, with its standard error) and M_p, and the paper's formulas on
them (:func:`~cbalgebra.studies.routing.psf_simplified_formula`,
:func:`~cbalgebra.studies.routing.ips_tree_formula`,
:func:`~cbalgebra.studies.routing.pif_formula` and its summed terms,
:func:`~cbalgebra.studies.routing.drp_formula`). Outputs:
:mod:`cbalgebra.studies.routing_internet_report`. Nothing here imports Spark.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from cbalgebra.errors import UsageError
from cbalgebra.studies import fingerprint
from cbalgebra.studies.flags import int_list, name_list, positive_float_type, positive_int_type
from cbalgebra.studies.plugin import StudyPlugin
from cbalgebra.studies.routing import (
    cell_workload,
    drp_formula,
    ips_tree_formula,
    log_grid,
    pif_formula,
    pif_summed_formula,
    psf_simplified_formula,
    transit_stub_params,
)
from cbalgebra.studies.seeding import cell_rng, cell_seed

if TYPE_CHECKING:
    import argparse

    import networkx as nx
    import pyarrow as pa

DESIGN = "internet"
#: Bump when a change alters the numbers a cell produces.
MODEL_VERSION = 2
SCHEMES: tuple[str, ...] = ("psf", "ips", "pif", "drp")
FAMILIES: tuple[str, ...] = ("power_law", "transit_stub", "gnp")
#: The AS graph's size (CAIDA's AS-relationship graph has about 75,000 ASes): "Internet size".
INTERNET_N = 75_000
KEY_COLUMNS: tuple[str, ...] = ("topology", "n", "replicate", "seed")
#: The flags of ``cbalgebra study routing`` that this design does not use (refused, not ignored).
OTHER_DESIGNS_FLAGS: tuple[str, ...] = ("r_fracs", "s_fracs", "ks", "scenarios", "reducers", "base_n", "sources",
                                        "messages", "siena_max")


#: The counting policy's flags: name -> (type, help). Each is a field of :class:`InternetGrid`.
COUNTING_FLAGS: Mapping[str, tuple[Any, str]] = MappingProxyType({
    "rse_target": (positive_float_type, "relative standard error a sampled count aims at"),
    "ips_max": (positive_int_type, "largest network iPS is counted on (n + s trees: the dominant cost)"),
    "exact_max": (positive_int_type, "largest network PSF and iPS are counted exactly on"),
    "pilot": (positive_int_type, "units of the pilot sample that sizes the final one"),
    "max_sample": (positive_int_type, "most units a sampled count draws"),
    "d_sources": (positive_int_type, "sources sampled for the mean hop count d"),
})


@dataclass(frozen=True)
class InternetGrid:
    """The networks and the counting policy. ``real``: topohub keys (empty
    tuple: none; the command's default is :func:`every_topohub_network`).
    ``ns``: target sizes of every family; ``family_max``: (family, largest size)
    pairs capping a family (none by default: every family is drawn in O(n + links))."""
    families: tuple[str, ...] = FAMILIES
    ns: tuple[int, ...] = (*log_grid(100, 100_000, 10), INTERNET_N)
    real: tuple[str, ...] = ()
    family_max: tuple[tuple[str, int], ...] = ()
    replicates: int = 1
    r_frac: float = 0.5
    s_frac: float = 0.5
    k: int = 10
    scenario: str = "zipf-500"
    exact_max: int = 4_000
    ips_max: int = 25_000
    ips_exact: bool = True
    rse_target: float = 0.01
    pilot: int = 100
    max_sample: int = 1_000
    d_sources: int = 256
    # the report's sizes: Internet size, the smallest n of the fits, the smallest real network compared
    target_n: int = INTERNET_N
    fit_min_n: int = 1_000
    compare_min_n: int = 100

    def as_config(self) -> dict:
        out: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            out[k] = [list(x) if isinstance(x, tuple) else x for x in v] if isinstance(v, tuple) else v
        return out


QUICK_GRID = InternetGrid(
    families=FAMILIES, ns=(30, 60, 150), real=("topohub:sndlib/abilene", "topohub:gabriel/50/0"),
    exact_max=100, ips_max=150, pilot=8, max_sample=40, d_sources=8, rse_target=0.05, target_n=150, fit_min_n=30,
    compare_min_n=10,
)


def every_topohub_network() -> tuple[str, ...]:
    """``topohub:<key>`` of every network topohub ships (all five collections)."""
    # deferred: topology loads networkx (this module loads at every `cbalgebra` start)
    from cbalgebra.network.topology import topohub_networks

    return tuple(f"topohub:{key}" for key, _, _ in topohub_networks())


def internet_cells(grid: InternetGrid, seed: int) -> list[dict]:
    """Every cell: each family at each of its sizes, each real network (n = 0), each replicate."""
    caps = dict(grid.family_max)
    tops = [(f, n) for f in grid.families for n in grid.ns if n <= caps.get(f, n)]
    tops += [(t, 0) for t in grid.real]
    work = {k: getattr(grid, k) for k in ("r_frac", "s_frac", "k", "scenario", "exact_max", "ips_max",
                                          "ips_exact", "rse_target", "pilot", "max_sample", "d_sources")}
    return [{"topology": t, "n": int(n), "replicate": rep, "seed": int(seed), **work}
            for t, n in tops for rep in range(grid.replicates)]


@functools.cache
def topohub_sizes() -> dict[str, int]:
    """Processors of each topohub network, from topohub's index (no graph is loaded)."""
    # deferred: topology loads networkx
    from cbalgebra.network.topology import topohub_networks

    return {f"topohub:{key}": nodes for key, nodes, _ in topohub_networks()}


def cell_cost(cell: dict) -> float:
    """Estimated CPU seconds (longest first, ETA), fitted to one run of
    ``benchmarks/routing_internet_cells.py`` (topohub networks to 3,815 and
    every family to 100,000, 2-core machine): the workload and the problem
    about 0.3 ms per processor, a tree about 0.4 µs per processor (d's
    sources, PSF's sampled senders), exact PSF n²/10⁷ s, and iPS counted exactly (n + s
    compiled trees, n·s class records), 9.1·n^2.17/10⁸ s (5.4 s on
    backbone/world's 3,815, 43.5 s at 10,000). A topohub network by its own size."""
    n = cell["n"] or topohub_sizes().get(cell["topology"], 300)
    exact = n <= cell["exact_max"]
    seconds = 0.05 + 3e-4 * n + 4e-7 * n * min(n, cell["d_sources"])
    seconds += 1e-7 * n * n if exact else 4e-7 * n * cell["max_sample"] / 4
    return float(seconds + (9.1e-8 * n ** 2.17 if n <= cell["ips_max"] else 0.0))


# ---------------------------------------------------------------------------
# One cell

def internet_network(topology_name: str, n: int, seed: int, replicate: int) -> nx.Graph:
    """The cell's graph: a topohub network (n = 0) or a family at target size n. Chung–Lu
    (exponent 2.5, as the routing study) and gnp are drawn by the O(n + links) sampler
    (``sampler="skip"``: the law of the pairwise one, other draws)."""
    # deferred: topology loads networkx
    from cbalgebra.network import topology

    if topology_name.startswith("topohub:"):
        return topology(topology_name)
    topo_seed = cell_seed(seed, ("internet-topology", MODEL_VERSION, topology_name, n, replicate))
    if topology_name == "transit_stub":
        return topology("transit_stub", None, seed=topo_seed, **transit_stub_params(n))
    if topology_name == "power_law":
        return topology("power_law", n, seed=topo_seed, model="chung_lu", gamma=2.5, sampler="skip")
    return topology(topology_name, n, seed=topo_seed, sampler="skip")


def mean_hops(parents: np.ndarray) -> np.ndarray:
    """Per tree (a row of parent pointers, -1 at the root): the mean hop count
    from its root to the other processors."""
    hops = np.zeros(parents.shape, dtype=np.int64)
    rows = np.arange(parents.shape[0])[:, None]
    ancestor = parents.copy()
    live = ancestor >= 0
    while live.any():
        hops += live
        ancestor = np.where(live, parents[rows, np.maximum(ancestor, 0)], -1)
        live = ancestor >= 0
    return hops.sum(axis=1) / max(1, parents.shape[1] - 1)


def hop_distance(problem: Any, cell: dict) -> tuple[float, float, int]:
    """d (mean hops over ordered pairs) with its standard error and the sources used: every
    source where n ≤ ``d_sources``, else a seeded simple random sample of ``d_sources``."""
    n = problem.n
    if n <= cell["d_sources"]:
        sources = np.arange(n)
    else:
        rng = cell_rng(cell["seed"], ("internet-d", MODEL_VERSION, cell["topology"], cell["n"], cell["replicate"]))
        sources = np.sort(rng.choice(n, size=min(n, cell["d_sources"]), replace=False))
    trees = problem.trees
    per = np.concatenate([mean_hops(trees.parents(sources[i:i + trees.batch()].tolist()))
                          for i in range(0, len(sources), trees.batch())])
    m = len(per)
    se = 0.0 if m == n else math.sqrt((1 - m / n) * float(per.var(ddof=1)) / m)
    return float(per.mean()), se, m


def count_scheme(problem: Any, scheme: str, cell: dict) -> dict:
    """The scheme's memory as the module docstring says: exact, or a pilot then the sample it asks for."""
    # deferred: sizing loads networkx and scipy
    from cbalgebra.network import table_memory

    n = problem.n
    if scheme == "ips" and n > cell["ips_max"]:
        return {"constraints": math.nan, "id_bits": math.nan, "total_bits": math.nan, "total_se": math.nan,
                "rse": math.nan, "exact": False, "sampled": 0, "population": n}
    sample, seed = None, 0
    if (scheme == "psf" or (scheme == "ips" and not cell.get("ips_exact", False))) and n > cell["exact_max"]:
        key = ("internet-sample", MODEL_VERSION, cell["topology"], cell["n"], cell["replicate"], scheme)
        pilot = table_memory(scheme, problem, sample=cell["pilot"], seed=cell_seed(cell["seed"], (*key, "pilot")))
        rse = pilot.total_bits_standard_error / pilot.total_bits if pilot.total_bits else 0.0
        sample = min(cell["max_sample"], max(cell["pilot"], math.ceil(cell["pilot"] * (rse / cell["rse_target"]) ** 2)))
        seed = cell_seed(cell["seed"], (*key, "final"))
    m = table_memory(scheme, problem, sample=sample, seed=seed)
    return {"constraints": float(m.predicate_constraints), "id_bits": float(m.id_bits),
            "total_bits": float(m.total_bits), "total_se": float(m.total_bits_standard_error),
            "rse": float(m.total_bits_standard_error / m.total_bits) if m.total_bits else 0.0,
            "exact": bool(m.exact), "sampled": int(m.sampled), "population": int(m.population)}


def run_internet_cell(cell: dict) -> dict:
    """The body of one Spark task: one network, one row."""
    # deferred: the network modules load networkx
    from cbalgebra.network.routing import BITS_PER_CONSTRAINT, id_bits
    from cbalgebra.network.sizing import memory_problem

    start, cpu = time.perf_counter(), time.process_time()
    graph = internet_network(cell["topology"], int(cell["n"]), int(cell["seed"]), int(cell["replicate"]))
    nodes = graph.number_of_nodes()
    receivers, senders, predicates, _, _ = cell_workload(cell, nodes, "internet-predicates", MODEL_VERSION)
    problem = memory_problem(graph, predicates, senders=senders)
    setup = time.perf_counter() - start
    degrees = np.asarray(problem.trees.degree)
    mp = float(np.mean([p.size for p in predicates.values()]))
    d, d_se, d_sources = hop_distance(problem, cell)
    row: dict[str, Any] = {c: cell[c] for c in KEY_COLUMNS}
    r, s, delta, idb = len(receivers), len(senders), int(degrees.max()), id_bits(nodes)
    row.update({"n_actual": nodes, "links": graph.number_of_edges(), "r": r, "s": s, "delta": delta,
                "mean_degree": float(degrees.mean()), "d": d, "d_se": d_se, "d_sources": d_sources,
                "id_bits_per_id": idb, "mp_constraints": mp, "setup_seconds": setup})
    for scheme in SCHEMES:
        t0 = time.perf_counter()
        counted = count_scheme(problem, scheme, cell)
        row.update({f"{scheme}_{k}": v for k, v in counted.items()})
        row[f"{scheme}_seconds"] = time.perf_counter() - t0
    mp_bits = mp * BITS_PER_CONSTRAINT
    row["psf_simple_formula"] = psf_simplified_formula(idb, s, r, mp_bits, d)
    row["ips_tree_formula"] = ips_tree_formula(nodes, r, mp_bits, 1.0)
    row["pif_formula"] = pif_formula(nodes, s, delta, idb, r, mp_bits, 1.0)
    row["pif_summed_formula"] = pif_summed_formula(nodes, s, delta, idb, r, mp_bits, 1.0)
    row["drp_formula"] = drp_formula(nodes, r, idb, s, mp_bits)
    row.update({"task_seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu,
                "host": socket.gethostname(), "pid": os.getpid()})
    return row


# ---------------------------------------------------------------------------
# The schema, the fingerprint, the plugin

def _schema_fields() -> list[tuple[str, str]]:
    fields = [("topology", "s"), ("n", "i"), ("replicate", "i"), ("seed", "i"), ("n_actual", "i"), ("links", "i"),
              ("r", "i"), ("s", "i"), ("delta", "i"), ("mean_degree", "f"), ("d", "f"), ("d_se", "f"),
              ("d_sources", "i"), ("id_bits_per_id", "i"), ("mp_constraints", "f"), ("setup_seconds", "f")]
    for scheme in SCHEMES:
        fields += [(f"{scheme}_{c}", "f") for c in ("constraints", "id_bits", "total_bits", "total_se", "rse")]
        fields += [(f"{scheme}_exact", "b"), (f"{scheme}_sampled", "i"), (f"{scheme}_population", "i"),
                   (f"{scheme}_seconds", "f")]
    fields += [(f, "f") for f in ("psf_simple_formula", "ips_tree_formula", "pif_formula", "pif_summed_formula",
                                  "drp_formula")]
    fields += [("task_seconds", "f"), ("cpu_seconds", "f"), ("host", "s"), ("pid", "i")]
    return fields


def internet_schema() -> pa.Schema:
    # deferred: pyarrow (this module loads at every `cbalgebra` start)
    import pyarrow as pa

    types = {"s": pa.string(), "i": pa.int64(), "f": pa.float64(), "b": pa.bool_()}
    return pa.schema([(name, types[t]) for name, t in _schema_fields()])


#: Columns that depend on where and when a cell ran, not on what it computed.
VOLATILE_COLUMNS = ("setup_seconds", *(f"{s}_seconds" for s in SCHEMES), "task_seconds", "cpu_seconds", "host",
                    "pid")


def code_fingerprint() -> str:
    """What the cells' numbers depend on: the network package (table_memory), the DNF generator with
    its word list, the reducers and the value types (``cbalgebra.studies.fingerprint``)."""
    return fingerprint.code_fingerprint(
        f"routing-internet-model-{MODEL_VERSION}",
        ("cbalgebra.network", "cbalgebra.workloads._dnf", "cbalgebra.reducers", "cbalgebra.values"),
        data_folders=("cbalgebra.workloads._dnf:data",),
    )


def internet_config(grid: InternetGrid, seed: int = 2003, quick: bool = False) -> dict:
    """The design: the grid, the seed, whether --quick, and ``design="internet"``."""
    return {**grid.as_config(), "design": DESIGN, "seed": seed, "quick": quick}


def grid_of(config: Mapping) -> InternetGrid:
    """The grid a design records (:func:`internet_config`)."""
    names = {f.name for f in dataclasses.fields(InternetGrid)}
    axes: dict[str, Any] = {}
    for k, v in config.items():
        if k in names:
            axes[k] = tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v
    return InternetGrid(**axes)


def grid_from_args(args: argparse.Namespace) -> InternetGrid:
    """The grid the command line asks for; ``UsageError`` for a flag of the other designs."""
    for flag in OTHER_DESIGNS_FLAGS:
        if getattr(args, flag, None) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} does not apply to --design internet")
    g = QUICK_GRID if args.quick else dataclasses.replace(InternetGrid(), real=every_topohub_network())
    changes: dict[str, Any] = {}
    if args.families is not None:
        changes["families"] = name_list(args.families, "--families", FAMILIES) if args.families else ()
    if args.ns is not None or args.points is not None or args.max_n is not None or args.min_n is not None:
        if args.ns is not None:
            changes["ns"] = int_list(args.ns, "--ns", 4)
        else:
            low, high = args.min_n or min(g.ns), args.max_n or max(g.ns)
            if low > high:
                raise UsageError("--min-n must not exceed --max-n")
            changes["ns"] = tuple(log_grid(low, high, args.points or len(g.ns)))
    if args.real is not None:
        known = set(every_topohub_network())
        real = tuple(t if t.startswith("topohub:") else f"topohub:{t}" for t in name_list(args.real, "--real")) \
            if args.real else ()
        for name in real:
            if name not in known:
                raise UsageError(f"--real: {name!r} is not a topohub network (see cbalgebra route --list-real)")
        changes["real"] = real
    if args.replicates is not None:
        changes["replicates"] = args.replicates
    for name in COUNTING_FLAGS:
        if getattr(args, name, None) is not None:
            changes[name] = getattr(args, name)
    grid = dataclasses.replace(g, **changes)
    if not grid.families and not grid.real:
        raise UsageError("no network to study: give --families or --real")
    return grid


class InternetPlugin(StudyPlugin):
    """The internet design of the routing study. Its kind is ``routing`` (the command and the manifests
    are the routing study's): :class:`cbalgebra.studies.routing.RoutingPlugin` hands it the designs whose
    ``design`` is ``"internet"``; it is not in the registry on its own."""

    name = "routing"
    summary = "the memory of PSF, iPS, PIF and DRP at Internet scale"
    help = "routing memory on every topohub network and generated graphs to 100,000 nodes"
    description = "The internet design of the routing study (see cbalgebra study routing --help)."
    shared_flags = MappingProxyType({"replicates": "replicates of each generated size",
                                     "points": "points of the log grid of n"})
    key_columns = KEY_COLUMNS
    model_version = MODEL_VERSION
    outputs = "cbalgebra.studies.routing_internet_report"
    run_cell = staticmethod(run_internet_cell)
    cell_cost = staticmethod(cell_cost)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The counting policy's flags (:data:`COUNTING_FLAGS`); the routing study's command adds them
        beside its own (this design is one of its ``--design`` choices)."""
        for name, (kind, text) in COUNTING_FLAGS.items():
            default, metavar = getattr(InternetGrid(), name), "X" if kind is positive_float_type else "N"
            parser.add_argument(f"--{name.replace('_', '-')}", type=kind, metavar=metavar,
                                help=f"--design internet: {text} (default {default})")

    def refuse_flags(self, args: argparse.Namespace) -> None:
        """``UsageError`` for a flag of this design given to another design."""
        for name in COUNTING_FLAGS:
            if getattr(args, name, None) is not None:
                raise UsageError(f"--{name.replace('_', '-')} applies to --design internet only")

    def config_from_args(self, args: argparse.Namespace) -> dict:
        return internet_config(grid_from_args(args), seed=args.seed, quick=args.quick)

    def cells(self, config: Mapping) -> list[dict]:
        return internet_cells(grid_of(config), config["seed"])

    def schema(self) -> pa.Schema:
        return internet_schema()

    def code_fingerprint(self, config: Mapping) -> str | None:
        return code_fingerprint()


PLUGIN = InternetPlugin()
