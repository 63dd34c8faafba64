"""M(S) of the routing schemes without compiling their tables, exactly or by
sampling processors.

:meth:`cbalgebra.network.schemes.Routing.memory` counts what Carzaniga,
Rembert & Wolf ("Understanding Content-Based Routing Schemes", 2006, §2.4
and §3) count, but it first builds every processor's forwarding table, which
costs minutes and gigabytes for PSF at n = 1,000. The functions here count
the *same* bits (the tests check equality with ``build(...).memory()``) from
the shortest-path trees alone:

:func:`exact_memory`
    with no reducer (α = 1: a combined predicate is the sequence of the
    receivers' own predicates), every scheme's predicate constraints are sums
    of receiver sizes over subtrees of the trees T_v, computed from one
    pre-order numbering of each T_v (a subtree is an interval of it):

    - PSF: Σ_{v∈S} Σ_x size(x)·hops_v(x), the paper's own identity (§3.1:
      pred(x) sits on every edge of the path from v to x);
    - iPS: Σ_u Σ_{classes C stored at u} (sub_C(u) − size(u)), where
      sub_h(u) is the receiver size of T_h/u, plus the I_u and R_u bits;
    - PIF: Σ_u Σ_{w∈N(u)} size(∪_{v∈V, w∈child_u(v)} T_v/w) (§3.3's F*,
      over every processor; ``pif_union="senders"``: over v ∈ S), plus
      child_u, from the arcs (u, w) each T_v's path to each x crosses
      (:func:`pif_below`);
    - DRP: n·r·⌈log2 n⌉ + s·Σ_x size(x) (§3.4).

:func:`processor_constraints`
    the predicate constraints of one processor's table under any reducer
    (the rows the scheme's ``_setup`` would reduce), for sampling.

:func:`estimate_total`
    the estimator of a network total from a simple random sample of
    processors drawn without replacement: T̂ = (N/m)·Σ_{u∈sample} Y_u,
    unbiased (E[T̂] = Σ_u Y_u over all N processors, since every processor is
    in the sample with probability m/N), with standard error
    N·sqrt((1 − m/N)·s²/m) (s² the sample variance; the finite-population
    correction makes it 0 when the sample is the whole network).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cbalgebra.values import Predicate

from .paths import ShortestPaths
from .names import PIF_UNIONS
from .per_source import ips_lookup_bits, ips_structure
from .pool import _Combiner, _PredicatePool
from .routing import BITS_PER_CONSTRAINT, id_bits

__all__ = ["Estimate", "PifBelow", "TreeOrders", "estimate_total", "exact_memory", "pif_below",
           "processor_constraints", "tree_orders"]


@dataclass(frozen=True)
class TreeOrders:
    """Pre-order numbers of every T_v: ``tin[v, x]`` the rank of x in a
    depth-first pre-order of T_v, ``tout[v, x]`` one past the rank of x's
    last descendant (T_v/x is the interval [tin, tout)), ``order[v]`` the
    processors in that pre-order and ``hops[v, x]`` the depth of x in T_v."""
    tin: np.ndarray
    tout: np.ndarray
    order: np.ndarray
    hops: np.ndarray

    def subtree_sums(self, weights: np.ndarray) -> np.ndarray:
        """sub[v, x] = Σ of ``weights`` over T_v/x."""
        n = len(weights)
        prefix = np.zeros((n, n + 1), dtype=np.int64)
        np.cumsum(np.asarray(weights, dtype=np.int64)[self.order], axis=1, out=prefix[:, 1:])
        rows = np.arange(n)[:, None]
        return prefix[rows, self.tout] - prefix[rows, self.tin]


def tree_orders(paths: ShortestPaths) -> TreeOrders:
    """:class:`TreeOrders` of the shortest-path trees of ``paths``."""
    n = paths.n
    tin = np.zeros((n, n), dtype=np.int64)
    tout = np.zeros((n, n), dtype=np.int64)
    order = np.zeros((n, n), dtype=np.int64)
    hops = np.zeros((n, n), dtype=np.int64)
    for v in range(n):
        parent = paths.parent[v]
        kids: list[list[int]] = [[] for _ in range(n)]
        for x in np.flatnonzero(parent >= 0).tolist():
            kids[int(parent[x])].append(x)
        t_in, t_out, seq, depth = tin[v], tout[v], order[v], hops[v]
        clock = 0
        stack: list[tuple[int, int]] = [(v, 0)]
        # iterative DFS: x is entered when popped, ~x marks leaving its subtree
        while stack:
            x, d = stack.pop()
            if x < 0:
                t_out[~x] = clock
                continue
            t_in[x] = clock
            seq[clock] = x
            depth[x] = d
            clock += 1
            stack.append((~x, 0))
            for c in reversed(kids[x]):
                stack.append((c, d + 1))
    return TreeOrders(tin, tout, order, hops)


def _sizes(n: int, predicates: Mapping[int, Predicate]) -> np.ndarray:
    sizes = np.zeros(n, dtype=np.int64)
    for x, p in predicates.items():
        sizes[x] = p.size
    return sizes


@dataclass(frozen=True)
class PifBelow:
    """Who sits in PIF's F*_u(w) (§3.3): ``below[a, x]`` is True when x ∈
    T_v/(u, w) for some united source v, for the arc a = (``tail[a]``,
    ``head[a]``) = (u, w); arcs are sorted by tail."""
    tail: np.ndarray
    head: np.ndarray
    below: np.ndarray

    def constraints(self, sizes: np.ndarray) -> int:
        """Σ over arcs of the receivers' size in F*_u(w) (α = 1)."""
        return int((self.below.sum(axis=0, dtype=np.int64) * np.asarray(sizes, dtype=np.int64)).sum())

    def rows_holding(self) -> np.ndarray:
        """count[u, x]: how many F*_u(w) of processor u hold x."""
        n = self.below.shape[1]
        count = np.zeros((n, n), dtype=np.int64)
        np.add.at(count, self.tail, self.below.astype(np.int64))
        return count


def pif_below(paths: ShortestPaths, sources: Iterable[int]) -> PifBelow:
    """The membership of every F*_u(w) united over ``sources``: x is in
    F*_u(w) exactly when some source's path to x in its tree crosses the arc
    (u, w), so each T_v marks the arcs of its paths, Σ_v Σ_x hops_v(x) marks
    in all, one numpy step per depth."""
    n = paths.n
    arcs = sorted({(int(a), int(b)) for u, w in paths.graph.edges for a, b in ((u, w), (w, u))})
    tail = np.array([a for a, _ in arcs], dtype=np.int64).reshape(-1)
    head = np.array([b for _, b in arcs], dtype=np.int64).reshape(-1)
    arc_of = np.full((n, n), -1, dtype=np.int64)
    arc_of[tail, head] = np.arange(len(arcs))
    below = np.zeros((len(arcs), n), dtype=bool)
    for v in sorted(set(int(v) for v in sources)):
        parent = paths.parent[v]
        node = np.flatnonzero(parent >= 0)      # walks up from every x ≠ v ...
        x = node.copy()                         # ... remembering which x it started from
        while len(node):
            up = parent[node]
            below[arc_of[up, node], x] = True
            more = parent[up] >= 0              # stop once the walk reaches v
            node, x = up[more], x[more]
    return PifBelow(tail, head, below)


def exact_memory(paths: ShortestPaths, predicates: Mapping[int, Predicate], senders: Iterable[int],
                 orders: TreeOrders | None = None, ips: tuple | None = None,
                 pif_union: str = "processors") -> dict[str, dict]:
    """M(S) of psf, ips, pif and drp with no reducer, as
    :meth:`Routing.memory` counts it: per scheme ``{"id_bits",
    "predicate_constraints", "predicate_bits", "total_bits"}``, for ips
    also ``"classes"``, the number of classes stored at each processor
    (|V̄_u| of §3.2: the classes a header can reach u in), for pif
    ``"pif_union"`` (what F* unites over, one of :data:`PIF_UNIONS`, as
    ``build(..., pif_union=...)``). ``ips`` may pass :func:`ips_structure`'s
    result to share it."""
    if pif_union not in PIF_UNIONS:
        raise ValueError(f"unknown pif_union {pif_union!r}; choose one of {', '.join(PIF_UNIONS)}")
    n = paths.n
    graph = paths.graph
    senders = np.array(sorted(set(int(v) for v in senders)), dtype=np.int64)
    s = len(senders)
    sizes = _sizes(n, predicates)
    orders = orders if orders is not None else tree_orders(paths)
    idb = id_bits(n)
    out: dict[str, dict] = {}

    def record(scheme: str, ids: int, constraints: int, **extra: Any) -> None:
        out[scheme] = {"id_bits": int(ids), "predicate_constraints": int(constraints),
                       "predicate_bits": int(constraints) * BITS_PER_CONSTRAINT,
                       "total_bits": int(ids) + int(constraints) * BITS_PER_CONSTRAINT, **extra}

    # PSF: pred(x) on every edge of T_v's path to x (§3.1)
    psf = int((orders.hops[senders] * sizes[None, :]).sum()) if s else 0
    record("psf", s * idb, psf)

    # iPS: one row set per class stored at u
    sub = orders.subtree_sums(sizes)                   # sub[h, u]: receivers' size in T_h/u
    cls, rewrite, arriving = ips if ips is not None else ips_structure(paths, senders.tolist())
    ips_constraints, ips_ids = 0, s * idb
    classes = np.zeros(n, dtype=np.int64)
    for u in range(n):
        reps: dict[int, int] = {}
        for h in sorted(arriving[u]):
            reps.setdefault(int(cls[u, h]), h)
        classes[u] = len(reps)
        if reps:
            hs = np.fromiter(reps.values(), dtype=np.int64)
            ips_constraints += int((sub[hs, u] - sizes[u]).sum())
        i_bits, r_bits = ips_lookup_bits(cls[u], rewrite[u], arriving[u])
        ips_ids += i_bits + r_bits
    record("ips", ips_ids, ips_constraints, classes=classes)

    # PIF: F*_u(w) = the union over V (or S) of T_v/(u, w) (§3.3)
    united = range(n) if pif_union == "processors" else senders.tolist()
    pif_constraints = pif_below(paths, united).constraints(sizes)
    degrees = np.array([graph.degree[u] for u in range(n)], dtype=np.int64)
    record("pif", s * idb + s * int((idb + degrees).sum()), pif_constraints, pif_union=pif_union)

    # DRP: unicast everywhere, the pred table at every sender (§3.4)
    r = len(predicates)
    record("drp", n * r * idb, s * int(sizes.sum()))
    return out


def processor_constraints(scheme: str, u: int, paths: ShortestPaths, predicates: Mapping[int, Predicate],
                          senders: Sequence[int], reducer: str, *, combiner: _Combiner | None = None,
                          ips: tuple | None = None, pif_union: str = "processors") -> int:
    """Predicate constraints of processor u's table in ``scheme`` (psf, ips or
    pif, its F* united over ``pif_union``) with ``reducer``: the rows the
    scheme's set-up reduces, each combined predicate reduced once (pass one
    ``combiner`` to share its cache across processors)."""
    combine = combiner if combiner is not None else make_combiner(predicates, reducer)
    pool = combine.pool
    senders = sorted(set(int(v) for v in senders))
    total = 0
    if scheme == "psf":
        for v in senders:
            for w in paths.children(v, u):
                total += sum(pool.size(p) for p in combine.ids(paths.subtree(v, w)))
    elif scheme == "ips":
        cls, _, arriving = ips if ips is not None else ips_structure(paths, senders)
        reps: dict[int, int] = {}
        for h in sorted(arriving[u]):
            reps.setdefault(int(cls[u, h]), h)
        for h in reps.values():
            for w in paths.children(h, u):
                total += sum(pool.size(p) for p in combine.ids(paths.subtree(h, w)))
    elif scheme == "pif":
        if pif_union not in PIF_UNIONS:
            raise ValueError(f"unknown pif_union {pif_union!r}; choose one of {', '.join(PIF_UNIONS)}")
        below: dict[int, set[int]] = {}
        for v in (range(paths.n) if pif_union == "processors" else senders):
            for w in paths.children(v, u):
                below.setdefault(w, set()).update(paths.subtree(v, w))
        for w in sorted(below):
            total += sum(pool.size(p) for p in combine.ids(below[w]))
    else:
        raise ValueError(f"processor_constraints counts psf, ips or pif, not {scheme!r}")
    return total


def make_combiner(predicates: Mapping[int, Predicate], reducer: str) -> _Combiner:
    """The combiner the schemes use, over the receivers' predicates."""
    return _Combiner(_PredicatePool(), dict(sorted(predicates.items())), reducer)


@dataclass(frozen=True)
class Estimate:
    """A network total estimated from a sample of m of its N processors."""
    total: float
    standard_error: float
    sampled: int
    population: int

    @property
    def exact(self) -> bool:
        return self.sampled == self.population


def estimate_total(values: Sequence[float], population: int) -> Estimate:
    """T̂ = (N/m)·Σ values, with SE N·sqrt((1 − m/N)·s²/m) (see the module
    docstring): ``values`` are Y_u over a simple random sample of m
    processors drawn without replacement from the N = ``population``."""
    y = np.asarray(values, dtype=float)
    m = len(y)
    if m == 0 or m > population:
        raise ValueError(f"a sample of {m} processors out of {population}")
    total = population * float(y.mean())
    if m == population:
        return Estimate(float(y.sum()), 0.0, m, population)
    variance = float(y.var(ddof=1)) if m > 1 else math.inf
    se = population * math.sqrt((1 - m / population) * variance / m)
    return Estimate(total, se, m, population)
