"""M(S) of the routing schemes at Internet scale, exact or sampled, without
building a table or holding all-pairs distances: :func:`table_memory`.

:meth:`cbalgebra.network.schemes.Routing.memory` counts the memory of
Carzaniga, Rembert & Wolf ("Understanding Content-Based Routing Schemes",
2006, §2.4 and §3) by building every table; :func:`cbalgebra.network.memory.exact_memory`
counts it from :class:`~cbalgebra.network.paths.ShortestPaths`, whose n×n
distances take 80 GB at n = 100,000. Here every tree T_v is computed from
one batch of sources at a time (:class:`~cbalgebra.network.paths.SourceTrees`,
the same exact distances and smallest-id tie-break), so memory grows with
n plus the links, and each scheme is counted per *unit*:

- ``psf``, per sender v (§3.1): the rows F_u(v, w) over every edge (u, w) of
  T_v, Σ_{w≠v} size(F(T_v/w)); with no reducer Σ_x size(x)·hops_v(x).
- ``pif``, per processor u (§3.3, F* over every processor, the paper's):
  with the smallest-id tie-break F*_u(w) = T_u/w (see
  :mod:`cbalgebra.network.schemes`), so u holds Σ_{w child of u in T_u}
  size(F(T_u/w)); with no reducer that is Σ_{x≠u} size(x), no tree needed.
- ``ips``, per processor u (§3.2): one row set per class of
  indistinguishable senders stored at u. With the consistent trees of the
  smallest-id tie-break (T_v's path through u continues as T_u's), the
  class of v at u is fixed by the set D_v(u) = T_v/u (the children and their
  subtrees follow from it), so u stores one class per distinct D_v(u) over
  the senders, each costing size(F(D_v(u))) − size(u). Rewriting at u is
  safe for v exactly when D_v(u) is a union of whole branches of T_u
  (|T_v/w| = |T_u/w| for every child w of u in T_v); that fixes the header
  values reaching u, hence I_u and R_u. Two passes: branch sizes |T_u/w|
  over every processor (O(links) kept), then every sender's tree; the
  classes are told apart by two 64-bit lanes of a random sum over D_v(u)
  (a collision has probability about 2⁻¹²⁸ per pair).
- ``drp`` (§3.4): n·r·⌈log2 n⌉ id bits and the pred table at every sender,
  exact in O(n) (the table is not reduced, as in ``build``).

Sampling (``sample=m``): a simple random sample of m units without
replacement, seeded; the total is :func:`cbalgebra.network.memory.estimate_total`'s
unbiased (N/m)·Σ Y_u with its finite-population standard error. For iPS,
whose counts are heavy-tailed, the hubs are counted for certain and the
rest sampled (:func:`certain_units`, with its measured effect). The units
are independent, so :func:`unit_values` computes any subset of them
anywhere (the Spark estimator sends them as tasks) and
:func:`combine_units` makes the same :class:`TableMemory`.

iPS's constraints are estimated from the stored classes themselves, not
from the sampled processors: a processor's count is a sum over its distinct
classes, heavy-tailed across processors (at 100,000 nodes a sample of 400
processors missed a 1 % relative standard error several times over). Every sender's tree is
walked anyway (any processor's classes need all of them), so each class
(u, D_v(u)) met there is a candidate for a *priority sample* (Duffield,
Lund & Thorup, "Priority sampling for estimation of arbitrary subset sums",
JACM 2007): priority w/h with w = size(D_v(u)) − size(u) and h uniform in
(0, 1] from a hash of the class and the seed, the same for every sender
that brings the class; the ``class_sample`` = k classes of highest priority
are kept (:class:`ClassSample`, merged over sender chunks by
:func:`merge_class_samples`). With z the (k+1)-th priority, Σ_kept
y/min(1, w/z) is unbiased for the total of any y per class (the
constraints, reduced or not), with the unbiased variance estimate
Σ_kept y²(1 − p)/p², p = min(1, w/z) (given an ideal hash; the 1,000-trial
test checks it). The sampled processors still give iPS's id bits
(I_u + R_u, which need every class and header at u).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from cbalgebra.values import Predicate

from .memory import estimate_total, make_combiner
from .paths import SourceTrees
from .pool import _Combiner
from .routing import BITS_PER_CONSTRAINT, RoutingError, id_bits

__all__ = ["CERTAIN_SHARE", "CLASSES_PER_UNIT", "MEMORY_SCHEMES", "SAMPLING_UNITS", "ClassSample", "IpsClasses",
           "MemoryProblem", "TableMemory", "UnitValues", "certain_units", "class_priorities", "class_salt",
           "class_sample_estimate", "class_sample_size", "combine_units", "ips_branch_sizes", "ips_class_sample",
           "ips_classes", "ips_unit_values", "memory_problem", "merge_class_samples", "merge_ips_classes",
           "needs_trees", "sample_units", "select_class_sample", "table_memory", "unit_values", "warm_up"]

#: The schemes :func:`table_memory` counts.
MEMORY_SCHEMES: tuple[str, ...] = ("psf", "ips", "pif", "drp")
#: What each scheme's estimate samples.
SAMPLING_UNITS: Mapping[str, str] = {"psf": "sender", "ips": "processor", "pif": "processor",
                                     "drp": "processor"}

#: Seed of the random values that tell iPS's classes apart (any fixed value).
_CLASS_HASH_SEED = 20060502
#: Mixed with a sample's seed into the salts of iPS's class priorities.
_PRIORITY_SEED = 20070701
#: Classes in iPS's priority sample per sampled processor, unless ``class_sample`` says otherwise.
CLASSES_PER_UNIT = 100


@dataclass(frozen=True)
class TableMemory:
    """M(S) of one scheme (§2.4): ``predicate_constraints`` and ``id_bits``,
    ``total_bits`` = id_bits + 88 bits per constraint. Exact (ints, standard
    errors 0) or estimated from ``sampled`` of the ``population`` units
    (``unit``: "sender" or "processor"); ``standard_error`` is that of
    ``predicate_constraints``, in constraints. A sampled iPS estimates its
    constraints from a priority sample of ``sampled_classes`` stored classes
    (0 otherwise; see the module docstring)."""
    scheme: str
    reducer: str
    predicate_constraints: float
    id_bits: float
    total_bits: float
    standard_error: float
    id_bits_standard_error: float
    total_bits_standard_error: float
    exact: bool
    sampled: int
    population: int
    unit: str
    sampled_classes: int = 0

    @property
    def relative_standard_error(self) -> float:
        """standard_error / predicate_constraints (0 when exact or empty)."""
        return self.standard_error / self.predicate_constraints if self.predicate_constraints else 0.0


@dataclass(frozen=True)
class MemoryProblem:
    """A checked routing problem in the compact form the counts need (it
    pickles as its edge list, sizes and, with a reducer, the predicates)."""
    trees: SourceTrees
    sizes: np.ndarray            # size(pred x) per processor, 0 off the receivers
    receivers: np.ndarray        # sorted
    senders: np.ndarray          # sorted
    reducer: str
    predicates: Mapping[int, Predicate]   # empty when reducer == "none": sizes suffice

    @property
    def n(self) -> int:
        return self.trees.n

    def units(self, scheme: str) -> np.ndarray:
        """The units a scheme is counted and sampled by, ascending."""
        return self.senders if SAMPLING_UNITS[_scheme(scheme)] == "sender" else np.arange(self.n)


@dataclass(frozen=True)
class UnitValues:
    """Per unit (``units``): its predicate constraints and the id bits it
    adds to the scheme's fixed ones (iPS's I_u and R_u; 0 elsewhere)."""
    units: np.ndarray
    constraints: np.ndarray
    id_bits: np.ndarray


def _scheme(scheme: str) -> str:
    if scheme not in MEMORY_SCHEMES:
        raise RoutingError(f"table_memory counts {', '.join(MEMORY_SCHEMES)}, not {scheme!r}")
    return scheme


def memory_problem(graph: nx.Graph, predicates: Mapping[int, Predicate], *, senders: Iterable[int] | None = None,
                   reducer: str | None = None) -> MemoryProblem:
    """Check the inputs as :func:`cbalgebra.network.build` does (RoutingError,
    one line) and keep what the counts need."""
    # deferred: schemes loads the forwarding engine, needed only to check inputs
    from .schemes import routing_problem

    graph, preds, sender_set, reducer_name = routing_problem(graph, predicates, senders, reducer)
    n = graph.number_of_nodes()
    sizes = np.zeros(n, dtype=np.int64)
    for x, p in preds.items():
        sizes[x] = p.size
    return MemoryProblem(SourceTrees.from_graph(graph), sizes, np.array(sorted(preds), dtype=np.int64),
                         np.array(sorted(sender_set), dtype=np.int64), reducer_name,
                         {} if reducer_name == "none" else preds)


#: The share of an iPS sample taken for certain among the processors of highest degree.
CERTAIN_SHARE = {"ips": 0.25}


def certain_units(problem: MemoryProblem, scheme: str, sample: int) -> np.ndarray:
    """The units a sample of ``sample`` counts for certain: for iPS the
    ⌊sample/4⌋ processors of highest degree (ties by id), none otherwise.
    iPS's per-processor counts are heavy-tailed (a hub stores most classes):
    on a 200-node Chung–Lu graph a simple random sample of 40 put the exact
    total within 3 standard errors in 80 % of 1,000 trials; with the hubs
    counted for certain and the rest sampled, in ≥ 99 %
    (tests/test_network_sizing.py). Stratified so, the estimate stays
    unbiased."""
    units = problem.units(scheme)
    take = int(sample * CERTAIN_SHARE.get(scheme, 0.0))
    if take == 0:
        return units[:0]
    order = np.lexsort((units, -problem.trees.degree[units]))
    return np.sort(units[order[:take]])


def needs_trees(problem: MemoryProblem, scheme: str) -> bool:
    """Whether counting a unit takes a shortest-path tree: not for DRP, nor
    for PIF without a reducer (Σ_{x≠u} size(x)); those are always counted
    exactly, in O(n), whatever the sample asked."""
    return not (scheme == "drp" or (scheme == "pif" and problem.reducer == "none"))


def sample_units(problem: MemoryProblem, scheme: str, sample: int | None, seed: int = 0) -> np.ndarray:
    """The units counted: all of them (``sample=None`` or ≥ their number,
    or no tree needed: :func:`needs_trees`), else :func:`certain_units` and a simple random sample of the others
    without replacement drawn by PCG64(``seed``), ``sample`` in all, ascending."""
    units = problem.units(scheme)
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 2):
        raise RoutingError(f"sample must be an integer >= 2 (units to sample) or None, not {sample!r}")
    if sample is None or sample >= len(units) or not needs_trees(problem, scheme):
        return units
    certain = certain_units(problem, scheme, int(sample))
    others = np.setdiff1d(units, certain)
    rng = np.random.Generator(np.random.PCG64(seed))
    return np.sort(np.concatenate([certain, rng.choice(others, size=int(sample) - len(certain), replace=False)]))


def table_memory(scheme: str, graph: nx.Graph | MemoryProblem, predicates: Mapping[int, Predicate] | None = None,
                 *, senders: Iterable[int] | None = None, reducer: str | None = None, sample: int | None = None,
                 seed: int = 0, class_sample: int | None = None) -> TableMemory:
    """M(S) of ``scheme`` (psf, ips, pif, drp) for the receivers'
    ``predicates`` and the ``senders`` (None: every processor), each
    combined predicate reduced by ``reducer`` (None: none), equal to
    ``build(scheme, graph, predicates, reducer, senders).memory()``'s when
    exact (``sample=None``), else estimated from ``sample`` units drawn with
    ``seed`` (see the module docstring); a sampled iPS estimates its
    constraints from a priority sample of ``class_sample`` stored classes
    (None: :data:`CLASSES_PER_UNIT` per sampled processor). ``graph`` may be a
    :func:`memory_problem` already checked (then predicates, senders and
    reducer are its own)."""
    scheme = _scheme(scheme)
    if isinstance(graph, MemoryProblem):
        problem = graph
    else:
        if predicates is None:
            raise RoutingError("table_memory needs the receivers' predicates")
        problem = memory_problem(graph, predicates, senders=senders, reducer=reducer)
    units = sample_units(problem, scheme, sample, seed)
    k = ips_class_sample(problem, scheme, units, class_sample)
    if k is not None:
        classes = ips_classes(problem, units, ips_branch_sizes(problem), class_sample=k, seed=seed)
        return combine_units(problem, scheme, ips_unit_values(problem, units, classes), classes.sample)
    return combine_units(problem, scheme, unit_values(problem, scheme, units))


def ips_class_sample(problem: MemoryProblem, scheme: str, units: np.ndarray,
                     class_sample: int | None = None) -> int | None:
    """k, the classes of the priority sample a count of ``scheme`` over
    ``units`` (from :func:`sample_units`) keeps: for iPS counted from a
    sample of its processors, :func:`class_sample_size`; None otherwise (no
    class sample: the count is exact or is not iPS)."""
    if scheme != "ips" or len(units) >= len(problem.units(scheme)):
        return None
    return class_sample_size(len(units), class_sample)


def class_sample_size(sample: int, class_sample: int | None = None) -> int:
    """k, the stored classes in iPS's priority sample beside ``sample``
    processors: ``class_sample`` (an integer >= 1), or
    :data:`CLASSES_PER_UNIT` per processor."""
    if class_sample is None:
        return CLASSES_PER_UNIT * int(sample)
    if isinstance(class_sample, bool) or not isinstance(class_sample, (int, np.integer)) or class_sample < 1:
        raise RoutingError(f"class_sample must be an integer >= 1 (classes to sample) or None, not {class_sample!r}")
    return int(class_sample)


def combine_units(problem: MemoryProblem, scheme: str, values: UnitValues,
                  classes: ClassSample | None = None) -> TableMemory:
    """The :class:`TableMemory` of ``scheme`` from the values of a sample of
    its units (all of them: exact); a sampled iPS takes its constraints from
    the priority sample of its ``classes`` (:func:`ips_classes`), its id bits
    from the units."""
    scheme = _scheme(scheme)
    population = len(problem.units(scheme))
    n, s, r = problem.n, len(problem.senders), len(problem.receivers)
    idb = id_bits(n)
    fixed = {"psf": s * idb, "ips": s * idb, "drp": n * r * idb,
             "pif": s * idb + s * (n * idb + int(problem.trees.degree.sum()))}[scheme]
    order = np.argsort(values.units, kind="stable")   # one summation order, wherever the values came from
    values = UnitValues(values.units[order], values.constraints[order], values.id_bits[order])
    m = len(values.units)
    if len(np.unique(values.units)) != m or m > population:
        raise RoutingError(f"{scheme}: {m} unit values for a population of {population}, or repeated units")
    common: dict[str, Any] = {"scheme": scheme, "reducer": problem.reducer, "sampled": m, "population": population,
              "unit": SAMPLING_UNITS[scheme]}
    if m == population:
        constraints, ids = int(values.constraints.sum()), fixed + int(values.id_bits.sum())
        return TableMemory(predicate_constraints=constraints, id_bits=ids,
                           total_bits=ids + constraints * BITS_PER_CONSTRAINT, standard_error=0.0,
                           id_bits_standard_error=0.0, total_bits_standard_error=0.0, exact=True, **common)
    certain = np.isin(values.units, certain_units(problem, scheme, m))
    if certain.sum() != len(certain_units(problem, scheme, m)):
        raise RoutingError(f"{scheme}: a sample of {m} must hold the units counted for certain (certain_units)")
    rest = population - int(certain.sum())
    ys = values.constraints.astype(float)
    per_unit = (ys, values.id_bits.astype(float), ys * BITS_PER_CONSTRAINT + values.id_bits)
    c, i, t = (estimate_total(y[~certain].tolist(), rest) for y in per_unit)
    c0, i0, t0 = (float(y[certain].sum()) for y in per_unit)
    if scheme == "ips":
        if classes is None:
            raise RoutingError("a sampled iPS needs the priority sample of its classes (ips_classes(class_sample=k))")
        estimated, se = class_sample_estimate(problem, classes)
        id_total, ids_se = fixed + i0 + i.total, i.standard_error
        return TableMemory(predicate_constraints=estimated, id_bits=id_total,
                           total_bits=id_total + estimated * BITS_PER_CONSTRAINT, standard_error=se,
                           id_bits_standard_error=ids_se,
                           total_bits_standard_error=math.hypot(se * BITS_PER_CONSTRAINT, ids_se),
                           exact=False, sampled_classes=min(classes.size, len(classes.units)), **common)
    return TableMemory(predicate_constraints=c0 + c.total, id_bits=fixed + i0 + i.total,
                       total_bits=fixed + t0 + t.total, standard_error=c.standard_error,
                       id_bits_standard_error=i.standard_error, total_bits_standard_error=t.standard_error,
                       exact=False, **common)


def warm_up() -> None:
    """Compile, or load from numba's cache, the tree kernels for the usual
    graphs (equal lengths: BFS; other lengths: Dijkstra) and every count
    that uses them (``make install`` runs it, so the first count of a
    process, or of a Spark worker, finds them in the cache)."""
    # deferred: schemes (through routing_problem) loads the forwarding engine
    from .topology import topology
    from .workload import processor_predicates

    for weights in ({}, {"weight_range": (1, 3)}):
        graph = topology("gnp", 6, seed=1, **weights)
        problem = memory_problem(graph, processor_predicates(range(0, 6, 2), 2, seed=1), senders=range(3))
        for scheme in ("psf", "ips"):
            table_memory(scheme, problem)


# ---------------------------------------------------------------------------
# One tree at a time

def _depths(parent: np.ndarray) -> np.ndarray:
    """hops[x]: the depth of x in the tree of ``parent`` (-1 at the root), by
    pointer jumping (Wyllie's list ranking): ⌈log2 depth⌉ vector steps."""
    hops = (parent >= 0).astype(np.int64)
    up = parent.copy()
    live = up >= 0
    while live.any():
        ahead = np.where(live, up, 0)
        hops = hops + np.where(live, hops[ahead], 0)
        up = np.where(live, up[ahead], -1)
        live = up >= 0
    return hops


@dataclass(frozen=True)
class _TreeBatch:
    """Trees T_v of a batch of ``sources`` (row i: sources[i]): parents (-1
    at the root), the arc index of each tree arc (parent, x) (-1 at the
    root), and the processors of each tree parents first (``order[i,
    :reached[i]]``)."""
    sources: np.ndarray
    parent: np.ndarray
    parent_arc: np.ndarray
    order: np.ndarray
    reached: np.ndarray


def _tree_batches(problem: MemoryProblem, roots: Iterable[int]) -> Iterator[_TreeBatch]:
    """The trees of ``roots``, a bounded batch at a time: grown by the
    compiled kernels (:mod:`._tree_kernels`, the same parents as
    :meth:`SourceTrees.parents`) when the lengths are exact in float64, else
    by :meth:`SourceTrees.parents` with the order taken from the depths."""
    # deferred: numba loads with the first tree counted
    from . import _tree_kernels as kernels

    trees = problem.trees
    adjacency = trees.adjacency()
    equal = trees.equal_lengths()
    roots = _unit_array(roots) if not isinstance(roots, np.ndarray) else roots.astype(np.int64)
    step = kernels.trees_per_batch(problem.n, _TREE_CELLS) if adjacency is not None else trees.batch()
    for first in range(0, len(roots), step):
        chunk = np.ascontiguousarray(roots[first:first + step])
        if adjacency is None:
            yield _batch_from_parents(problem, chunk, trees.parents(chunk.tolist()))
            continue
        shape, ids = (len(chunk), problem.n), adjacency[0].dtype
        parent, parent_arc, order = np.empty(shape, ids), np.empty(shape, ids), np.empty(shape, ids)
        reached = np.zeros(len(chunk), dtype=np.int64)
        kernels.grow_trees(*adjacency, equal, chunk, parent, parent_arc, order, reached)
        yield _TreeBatch(chunk, parent, parent_arc, order, reached)


#: Bound on the batch × n arrays of :func:`_tree_batches`' compiled path.
_TREE_CELLS = 2_000_000


def _batch_from_parents(problem: MemoryProblem, sources: np.ndarray, parents: np.ndarray) -> _TreeBatch:
    """The :class:`_TreeBatch` of parent rows computed without the kernels."""
    parent_arc = np.full(parents.shape, -1, dtype=np.int64)
    order = np.full(parents.shape, -1, dtype=np.int64)
    reached = np.zeros(len(sources), dtype=np.int64)
    for i, (v, parent) in enumerate(zip(sources.tolist(), parents, strict=True)):
        below = np.flatnonzero(parent >= 0)
        parent_arc[i, below] = problem.trees.arc_index(parent[below], below)
        by_depth = below[np.argsort(_depths(parent)[below], kind="stable")]
        reached[i] = 1 + len(by_depth)
        order[i, :reached[i]] = np.r_[v, by_depth]
    return _TreeBatch(sources, parents, parent_arc, order, reached)


def _trees(problem: MemoryProblem, roots: Iterable[int]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(root, parent row of T_root, T_root's processors parents first) for
    each root, a bounded batch at a time."""
    for batch in _tree_batches(problem, roots):
        for i, root in enumerate(batch.sources.tolist()):
            yield root, batch.parent[i], batch.order[i, :batch.reached[i]]


def _receivers_below(problem: MemoryProblem, parent: np.ndarray, order: np.ndarray) -> list[frozenset[int]]:
    """below[x]: the receivers in T/x (for reducing combined predicates),
    from the tree's processors parents first (children are merged first)."""
    below: list[set[int]] = [set() for _ in range(problem.n)]
    receiver = np.isin(np.arange(problem.n), problem.receivers)
    for x in order[::-1].tolist():
        if receiver[x]:
            below[x].add(x)
        p = int(parent[x])
        if p >= 0:
            below[p] |= below[x]
    return [frozenset(b) for b in below]


def _row_constraints(combiner: _Combiner, receivers: frozenset[int]) -> int:
    """Constraints of one table row: the combined predicate of ``receivers``."""
    return sum(combiner.pool.size(p) for p in combiner.ids(receivers))


def _unit_array(units: Iterable[int]) -> np.ndarray:
    return np.asarray(sorted(int(u) for u in units), dtype=np.int64)


def unit_values(problem: MemoryProblem, scheme: str, units: Iterable[int]) -> UnitValues:
    """Each unit's predicate constraints and extra id bits (see the module
    docstring): senders for psf, processors otherwise."""
    scheme = _scheme(scheme)
    units = _unit_array(units)
    combiner = make_combiner(problem.predicates, problem.reducer) if problem.reducer != "none" else None
    zeros = np.zeros(len(units), dtype=np.int64)
    if scheme == "drp":
        # the pred table, unreduced as build keeps it, at every sender
        held = np.isin(units, problem.senders) * int(problem.sizes.sum())
        return UnitValues(units, held.astype(np.int64), zeros)
    if scheme == "pif" and combiner is None:
        return UnitValues(units, int(problem.sizes.sum()) - problem.sizes[units], zeros)
    if scheme == "ips":
        return ips_unit_values(problem, units, ips_classes(problem, units, ips_branch_sizes(problem)))
    if combiner is None:   # psf, α = 1: pred(x) on every edge of T_v's path to x
        # deferred: numba loads with the first tree counted
        from ._tree_kernels import hop_weighted_sums

        sums = [hop_weighted_sums(b.parent, b.order, b.reached, problem.sizes) for b in _tree_batches(problem, units)]
        return UnitValues(units, np.concatenate([zeros[:0], *sums]), zeros)
    out = np.zeros(len(units), dtype=np.int64)
    for i, (v, parent, order) in enumerate(_trees(problem, units)):
        below = _receivers_below(problem, parent, order)
        rows = np.flatnonzero(parent == v) if scheme == "pif" else np.flatnonzero(parent >= 0)
        out[i] = sum(_row_constraints(combiner, below[w]) for w in rows.tolist())
    return UnitValues(units, out, zeros)


# ---------------------------------------------------------------------------
# iPS

@dataclass(frozen=True)
class IpsClasses:
    """iPS's state at some processors from some senders: one row per
    distinct (processor ``units``, class hash ``key0``/``key1``) with the
    ``first`` sender seen in it, the receivers' ``size`` of D_v(u) and
    whether rewriting is ``safe`` for it; one row per distinct (processor
    ``header_units``, header value ``headers``) reaching it; and, when asked,
    the priority ``sample`` of the classes at every processor. Parts computed
    from disjoint sender sets merge with :func:`merge_ips_classes`."""
    units: np.ndarray
    key0: np.ndarray
    key1: np.ndarray
    first: np.ndarray
    size: np.ndarray
    safe: np.ndarray
    header_units: np.ndarray
    headers: np.ndarray
    sample: ClassSample | None = None


def ips_branch_sizes(problem: MemoryProblem, roots: Iterable[int] | None = None) -> np.ndarray:
    """|T_u/w| for every arc (u, w) with w a child of u in T_u, u among
    ``roots`` (None: every processor), 0 on the other arcs, in the arc order
    of :class:`SourceTrees`: parts over disjoint roots add up."""
    # deferred: numba loads with the first tree counted
    from ._tree_kernels import add_branch_sizes

    branch = np.zeros(len(problem.trees.arc_tail), dtype=np.int64)
    for b in _tree_batches(problem, range(problem.n) if roots is None else roots):
        add_branch_sizes(b.sources, b.parent, b.parent_arc, b.order, b.reached, branch)
    return branch


def ips_classes(problem: MemoryProblem, units: Iterable[int], branch: np.ndarray,
                senders: Iterable[int] | None = None, *, class_sample: int | None = None,
                seed: int = 0) -> IpsClasses:
    """The classes and header values the ``senders`` (None: all of the
    problem's) bring to the processors ``units``, given every branch size
    (:func:`ips_branch_sizes`); with ``class_sample`` = k, also the priority
    sample of k classes over every processor, its hash salted by ``seed``
    (:class:`ClassSample`)."""
    # deferred: numba loads with the first tree counted
    from ._tree_kernels import ips_rows

    units = _unit_array(units)
    lanes = np.random.Generator(np.random.PCG64(_CLASS_HASH_SEED)).integers(
        0, 2**64, size=(2, problem.n), dtype=np.uint64)
    classes = _Distinct(3)          # (u, lane 0, lane 1) -> first sender, receivers' size, rewrite safe
    headers = _Distinct(0)          # (u, header value)
    sampler = _ClassSampler(class_sample) if class_sample is not None else None
    salt = class_salt(problem.n, seed) if sampler is not None else np.zeros(0, np.uint64)   # read only when sampling
    for b in _tree_batches(problem, problem.senders if senders is None else _unit_array(senders)):
        shape = (len(b.sources), len(units))
        key0, key1 = np.empty(shape, np.uint64), np.empty(shape, np.uint64)
        size, header, safe = np.empty(shape, np.int64), np.empty(shape, np.int64), np.empty(shape, np.bool_)
        picks = _ClassPicks(len(b.sources) * problem.n if sampler is not None else 0)
        picked = ips_rows(b.sources, b.parent, b.parent_arc, b.order, b.reached, units, problem.sizes, lanes, branch,
                          key0, key1, size, safe, header, salt, np.inf if sampler is None else sampler.threshold,
                          *picks.arrays())
        at = np.tile(units, len(b.sources))      # sender-major: the smallest sender of a class comes first
        classes.add(at, [key0.ravel(), key1.ravel()], [np.repeat(b.sources, len(units)), size.ravel(), safe.ravel()])
        headers.add(at, [header.ravel().astype(np.uint64)], [])
        if sampler is not None:
            sampler.add(picks.candidates(sampler.size, picked))
    return _ips_classes_of(classes, headers, None if sampler is None else sampler.sample())


def _ips_classes_of(classes: _Distinct, headers: _Distinct, sample: ClassSample | None) -> IpsClasses:
    cu, (key0, key1), (first, size, safe) = classes.rows(keys=2)
    hu, (hv,), _ = headers.rows(keys=1)
    return IpsClasses(cu, key0, key1, first, size, safe.astype(bool), hu, hv.astype(np.int64), sample)


def merge_ips_classes(parts: Iterable[IpsClasses]) -> IpsClasses:
    """One :class:`IpsClasses` from parts over disjoint senders, given in
    ascending order of their senders (so ``first`` stays the smallest); their
    class samples merge too (:func:`merge_class_samples`)."""
    classes, headers = _Distinct(3), _Distinct(0)
    samples = []
    for part in parts:
        classes.add(part.units, [part.key0, part.key1], [part.first, part.size, part.safe])
        headers.add(part.header_units, [part.headers.astype(np.uint64)], [])
        samples += [part.sample] if part.sample is not None else []
    return _ips_classes_of(classes, headers, merge_class_samples(samples) if samples else None)


def ips_unit_values(problem: MemoryProblem, units: Iterable[int], classes: IpsClasses) -> UnitValues:
    """Each processor's iPS constraints and I_u + R_u bits (§3.2) from the
    classes and header values every sender brings it."""
    units = _unit_array(units)
    combiner = make_combiner(problem.predicates, problem.reducer) if problem.reducer != "none" else None
    cu = classes.units
    at, h_at = np.searchsorted(units, cu), np.searchsorted(units, classes.header_units)   # units are sorted
    n_classes = np.bincount(at, minlength=len(units))
    n_headers = np.bincount(h_at, minlength=len(units))
    n_safe = np.bincount(at, weights=classes.safe, minlength=len(units))
    per_class = (classes.size - problem.sizes[cu] if combiner is None
                 else _ips_reduced_rows(problem, combiner, cu, classes.first))
    constraints = np.zeros(len(units), dtype=np.int64)
    np.add.at(constraints, at, per_class)
    i_bits = np.array([0 if c == h else h * id_bits(max(2, c)) for c, h in zip(n_classes, n_headers, strict=True)],
                      dtype=np.int64)
    r_bits = np.where((n_safe > 0) & (n_safe < n_classes), n_classes, 0)   # R_u is not constant
    return UnitValues(units, constraints, (i_bits + r_bits).astype(np.int64))


def _ips_reduced_rows(problem: MemoryProblem, combiner: _Combiner, cu: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Constraints of each stored class (u, its first sender h) with a
    reducer: Σ over u's children w in T_h of the reduced F(T_h/w)."""
    out = np.zeros(len(cu), dtype=np.int64)
    by_sender: dict[int, list[int]] = {}
    for i, h in enumerate(first.tolist()):
        by_sender.setdefault(int(h), []).append(i)
    for h, parent, order in _trees(problem, sorted(by_sender)):
        below = _receivers_below(problem, parent, order)
        for i in by_sender[h]:
            u = int(cu[i])
            out[i] = sum(_row_constraints(combiner, below[w]) for w in np.flatnonzero(parent == u).tolist())
    return out


# ---------------------------------------------------------------------------
# iPS's priority sample of classes

@dataclass(frozen=True)
class ClassSample:
    """The k = ``size`` stored classes of highest priority met so far, and
    the (k+1)-th (whose priority is the threshold z), highest first: each
    distinct (processor ``units``, class ``key0``/``key1``) once, with the
    ``first`` (smallest) sender seen bringing it, its ``weight`` size(D) −
    size(u) and ``priority`` (see the module docstring)."""
    size: int
    units: np.ndarray
    key0: np.ndarray
    key1: np.ndarray
    first: np.ndarray
    weight: np.ndarray
    priority: np.ndarray


def class_salt(n: int, seed: int) -> np.ndarray:
    """The per-processor salts of the class priorities of a sample drawn with ``seed``."""
    return np.random.Generator(np.random.PCG64([_PRIORITY_SEED, int(seed)])).integers(
        0, 2**64, size=n, dtype=np.uint64)


def class_priorities(units: np.ndarray, key0: np.ndarray, weight: np.ndarray, salt: np.ndarray) -> np.ndarray:
    """The priorities the pass over senders gives the classes (``units``,
    ``key0``) of ``weight`` under ``salt`` (:func:`class_salt`), for classes
    already collected (e.g. every class, to check the sample against)."""
    # deferred: numba loads with the first tree counted
    from ._tree_kernels import class_priorities as kernel

    return kernel(np.asarray(units, np.int64), np.asarray(key0, np.uint64), np.asarray(weight, np.int64), salt)


def select_class_sample(size: int, units: np.ndarray, key0: np.ndarray, key1: np.ndarray, first: np.ndarray,
                        weight: np.ndarray, priority: np.ndarray) -> ClassSample:
    """The :class:`ClassSample` of ``size`` among candidate records, which
    may repeat a class (from several senders): each class once with its
    smallest sender, then the size + 1 of highest priority (ties by unit and
    key, so that any split of the senders selects the same)."""
    order = np.lexsort((first, key1, key0, units))
    units, key0, key1, first, weight, priority = (a[order] for a in (units, key0, key1, first, weight, priority))
    new = np.ones(len(units), dtype=bool)
    new[1:] = (units[1:] != units[:-1]) | (key0[1:] != key0[:-1]) | (key1[1:] != key1[:-1])
    units, key0, key1, first, weight, priority = (a[new] for a in (units, key0, key1, first, weight, priority))
    top = np.lexsort((key1, key0, units, -priority))[:size + 1]
    return ClassSample(size, units[top], key0[top], key1[top], first[top], weight[top], priority[top])


def merge_class_samples(parts: Iterable[ClassSample]) -> ClassSample:
    """The sample of the union of the parts' senders: a class among the
    k + 1 highest overall is among them in every part that meets it."""
    parts = list(parts)
    sizes = {p.size for p in parts}
    if len(sizes) != 1:
        raise RoutingError(f"class samples of different sizes {sorted(sizes)} do not merge")
    return select_class_sample(sizes.pop(), *(np.concatenate([getattr(p, f) for p in parts])
                                              for f in ("units", "key0", "key1", "first", "weight", "priority")))


def class_sample_estimate(problem: MemoryProblem, sample: ClassSample) -> tuple[float, float]:
    """iPS's predicate constraints from the priority sample, and their
    standard error (Duffield, Lund & Thorup 2007: Σ y/p and Σ y²(1 − p)/p²
    over the k kept classes, p = min(1, w/z)); exact when no (k+1)-th class
    exists (every class kept)."""
    k = sample.size
    units, first, weight = sample.units[:k], sample.first[:k], sample.weight[:k].astype(float)
    if problem.reducer == "none":
        y = weight
    else:
        y = _ips_reduced_rows(problem, make_combiner(problem.predicates, problem.reducer), units, first).astype(float)
    z = float(sample.priority[k]) if len(sample.units) > k else 0.0
    p = np.minimum(1.0, weight / z) if z > 0 else np.ones(len(weight))
    return float(np.sum(y / p)), math.sqrt(float(np.sum(y * y * (1 - p) / (p * p))))


class _ClassPicks:
    """Room for the candidates one batch of trees may offer, in the order of
    :func:`ips_rows`' arguments: unit, sender, key0, key1, weight, priority."""

    def __init__(self, capacity: int) -> None:
        self._arrays = (np.empty(capacity, np.int64), np.empty(capacity, np.int64), np.empty(capacity, np.uint64),
                        np.empty(capacity, np.uint64), np.empty(capacity, np.int64), np.empty(capacity, np.float64))

    def arrays(self) -> tuple[np.ndarray, ...]:
        return self._arrays

    def candidates(self, size: int, picked: int) -> ClassSample:
        """The first ``picked`` candidates as a :class:`ClassSample` of
        ``size``, not yet selected (:func:`merge_class_samples` selects)."""
        unit, sender, key0, key1, weight, priority = (a[:picked] for a in self._arrays)
        return ClassSample(size, unit, key0, key1, sender, weight, priority)


class _ClassSampler:
    """The running :class:`ClassSample` of one pass over senders; its
    threshold (the (k+1)-th priority so far) rises as trees are added, so
    the kernel offers fewer and fewer candidates."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._parts = [_ClassPicks(0).candidates(size, 0)]
        self._pending = 0
        self.threshold = 0.0

    def add(self, candidates: ClassSample) -> None:
        self._parts.append(candidates)
        self._pending += len(candidates.units)
        if self._pending > max(100_000, 4 * self.size):
            self.sample()

    def sample(self) -> ClassSample:
        """The sample so far (it becomes the only part kept)."""
        sample = merge_class_samples(self._parts)
        self._parts, self._pending = [sample], 0
        if len(sample.units) > self.size:
            self.threshold = float(sample.priority[self.size])
        return sample


class _Distinct:
    """Distinct (unit, key...) records, keeping the first record's values;
    compacted as it grows, so it holds what iPS stores, not n·s records."""

    def __init__(self, values: int) -> None:
        self._parts: list[tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]] = []
        self._pending = 0            # records added since the last compaction
        self._kept = 0               # distinct records after it
        self._values = values

    def add(self, units: np.ndarray, keys: list[np.ndarray], values: list[Any]) -> None:
        self._parts.append((units, [np.asarray(k, dtype=np.uint64) for k in keys],
                            [np.asarray(x, dtype=np.int64) for x in values]))
        self._pending += len(units)
        if self._pending > max(1_000_000, self._kept):   # amortised: each compaction at least doubles the input
            self._compact()

    def _compact(self) -> None:
        if not self._parts:
            return
        units = np.concatenate([p[0] for p in self._parts])
        keys = [np.concatenate([p[1][j] for p in self._parts]) for j in range(len(self._parts[0][1]))]
        values = [np.concatenate([p[2][j] for p in self._parts]) for j in range(len(self._parts[0][2]))]
        order = np.lexsort((np.arange(len(units)), *reversed(keys), units))   # stable: first record first
        units, keys, values = units[order], [k[order] for k in keys], [x[order] for x in values]
        new = np.ones(len(units), dtype=bool)
        same = units[1:] == units[:-1]
        for k in keys:
            same &= k[1:] == k[:-1]
        new[1:] = ~same
        self._parts = [(units[new], [k[new] for k in keys], [x[new] for x in values])]
        self._pending, self._kept = 0, int(new.sum())

    def rows(self, keys: int) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
        self._compact()
        if not self._parts:
            return (np.zeros(0, dtype=np.int64), [np.zeros(0, dtype=np.uint64)] * keys,
                    [np.zeros(0, dtype=np.int64)] * self._values)
        return self._parts[0]
