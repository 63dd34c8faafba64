"""Link-marking algorithms (Ge, Ji, Kurose & Towsley, "Matchmaker: Signaling
for Dynamic Publish/Subscribe Applications", §4).

- :func:`all_p`, :func:`all_s`: broadcast publication M^P and broadcast
  subscription M^S (Property 1).
- :func:`greedy`: Figure 5. Link t is a p-link when sigma^t(M^P) < τ^t(M^S),
  else an s-link (a tie sigma = τ makes an s-link, as line 6 says). Its cost
  Σ min(sigma, τ) is a lower bound for every valid marking (Lemma 1), so when
  its marking is valid it is optimal; on a shared tree it always is
  (Property 3, Claim 1).
- :func:`closure`: §4.2 for any trees. Start from M^P; turning link t into
  an s-link gains η^t = sigma^t − τ^t, and the set C of s-links must be closed
  downstream in every tree. The best C is a maximum-weight closure, found by
  a minimum s-t cut (Picard 1976): source → t with capacity η^t for η^t > 0,
  t → sink with −η^t for η^t < 0, and an infinite arc from every link to
  each link directly below it in some tree. Among the optimal closures we
  return the largest (the complement of what reaches the sink in the
  residual graph), so that, like Figure 5, a link whose η is 0 is an
  s-link unless that forces a loss; on a shared tree it returns exactly
  Figure 5's marking. The cut is computed by scipy's Dinic max-flow
  (32-bit integer capacities: integer CD counts, the positive η^t
  summing below 2^30 and every η^t at least −2^30) or, for fractional CD
  rates, larger counts, or on request, by networkx (exact on Python
  integers of any size).
- :func:`mcm`: the optimum: Figure 5 on shared trees, :func:`closure` on any
  other.
- :func:`tdm`: Figure 6, top-down marking. Links are taken in an order
  compatible with ∪R_x; among the links ready at once (all parents marked)
  the smallest sigma − τ goes first, then the link order (the footnote's
  tie-break). A link below an s-link is an s-link; otherwise sigma < τ makes a
  p-link, else an s-link. When ∪R_x is acyclic the marking does not depend
  on the order (t is an s-link exactly when some link in its upward closure,
  t included, has sigma ≥ τ). If ∪R_x has a cycle (possible for custom trees;
  links that are each upstream of the other, through different trees), no
  such order exists: the stalled links are taken by the same tie-break, and
  a final pass turns every link below an s-link into an s-link, which keeps
  the marking valid and the rule above true.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable

import networkx as nx

from .costs import as_marking, valid
from .instance import Instance, InstanceError, Marking, node_key

__all__ = ["all_p", "all_s", "closure", "greedy", "mcm", "tdm"]


def all_p(instance: Instance) -> Marking:
    """M^P: every link a p-link (broadcast publication)."""
    return as_marking(instance, [False] * len(instance.links))


def all_s(instance: Instance) -> Marking:
    """M^S: every link an s-link (broadcast subscription)."""
    return as_marking(instance, [True] * len(instance.links))


def greedy(instance: Instance) -> Marking:
    """Figure 5: p-link where sigma^t(M^P) < τ^t(M^S), else s-link (valid on shared trees)."""
    return as_marking(instance, [s >= t for s, t in zip(instance.sigmas, instance.taus, strict=True)])


def _arcs(instance: Instance) -> list[tuple[int, int]]:
    return [(i, j) for i, below in enumerate(instance.multicast.downstream) for j in below]


def _integral(values: list) -> list[int] | None:
    out = []
    for v in values:
        if isinstance(v, int):
            out.append(v)
        elif float(v).is_integer():
            out.append(int(v))
        else:
            return None
    return out


#: scipy's maximum_flow takes int32 capacities. Its network has arcs of
#: capacity |η^t| and, for the infinite ones, the total gain plus one; scipy
#: takes an instance only when every capacity stays at most this bound (a
#: factor 2 below 2^31, so that no sum of capacities the solver forms wraps).
SCIPY_CAPACITY_LIMIT = 2**30


def _fits_scipy(eta: list[int]) -> bool:
    largest = max(sum(e for e in eta if e > 0) + 1, *(-e for e in eta))
    return largest <= SCIPY_CAPACITY_LIMIT


def _closure_scipy(eta: list[int], arcs: list[tuple[int, int]]) -> list[bool]:
    # deferred: numpy and scipy load only for the max-flow of mcm
    import numpy as np
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import breadth_first_order, maximum_flow

    n = len(eta)
    source, sink = n, n + 1
    infinite = sum(e for e in eta if e > 0) + 1
    rows, cols, caps = [], [], []
    for i, e in enumerate(eta):
        if e > 0:
            rows.append(source)
            cols.append(i)
            caps.append(e)
        elif e < 0:
            rows.append(i)
            cols.append(sink)
            caps.append(-e)
    for i, j in arcs:
        rows.append(i)
        cols.append(j)
        caps.append(infinite)
    capacity = csr_array((np.asarray(caps, dtype=np.int32), (np.asarray(rows, dtype=np.int64),
                          np.asarray(cols, dtype=np.int64))), shape=(n + 2, n + 2))
    flow = maximum_flow(capacity, source, sink, method="dinic").flow
    residual = (capacity - flow).tocsr()
    residual.data = (residual.data > 0).astype(np.int8)
    residual.eliminate_zeros()
    # Nodes that can still reach the sink are on the sink side of every
    # minimum cut; all others form the largest optimal closure.
    reaches_sink = breadth_first_order(residual.T.tocsr(), sink, directed=True, return_predecessors=False)
    is_s = [True] * n
    for v in reaches_sink.tolist():
        if v < n:
            is_s[v] = False
    return is_s


def _closure_networkx(eta: list, arcs: list[tuple[int, int]]) -> list[bool]:
    n = len(eta)
    # The network of closure(), every arc reversed and source and sink
    # swapped: here "source" stands for closure()'s sink and "sink" for its source.
    source, sink = "source", "sink"
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_nodes_from((source, sink))
    for i, e in enumerate(eta):
        if e > 0:
            g.add_edge(i, sink, capacity=e)
        elif e < 0:
            g.add_edge(source, i, capacity=-e)
    for i, j in arcs:
        g.add_edge(j, i)  # no capacity attribute: infinite
    # On the reversed network a minimum cut's source side that is smallest
    # is the set of links that reach the sink in the original residual graph.
    _, (reached, _) = nx.minimum_cut(g, source, sink)
    is_s = [True] * n
    for v in reached:
        if v != source:
            is_s[v] = False
    return is_s


def closure(instance: Instance, solver: str = "auto") -> Marking:
    """The optimal marking of §4.2 as a maximum-weight closure (module docstring);
    ``solver`` "scipy", "networkx" or "auto" (scipy when the counts are
    integers small enough for its 32-bit capacities, else networkx)."""
    if solver not in ("auto", "scipy", "networkx"):
        raise ValueError(f"solver must be auto, scipy or networkx, not {solver!r}")
    eta = [s - t for s, t in zip(instance.sigmas, instance.taus, strict=True)]
    if not eta:
        return as_marking(instance, [])
    arcs = _arcs(instance)
    whole = _integral(eta)
    if solver != "networkx" and whole is not None and _fits_scipy(whole):
        return as_marking(instance, _closure_scipy(whole, arcs))
    if solver == "scipy":
        raise InstanceError("scipy's max-flow needs integer CD counts; use solver='networkx' or 'auto'"
                            if whole is None else
                            f"CD counts too large for scipy's 32-bit max-flow (a capacity above "
                            f"{SCIPY_CAPACITY_LIMIT}); use solver='networkx' or 'auto'")
    return as_marking(instance, _closure_networkx(eta, arcs))


def mcm(instance: Instance, solver: str = "auto") -> Marking:
    """An optimal valid marking (the Min-Cost Matchmaker): Figure 5 on shared
    trees, the closure of §4.2 otherwise."""
    if instance.kind == "shared":
        marking = greedy(instance)
        if not valid(instance, marking):  # Claim 1 says this cannot happen on a CBT tree
            raise AssertionError("Figure 5's marking is invalid on a shared tree")
        return marking
    return closure(instance, solver)


def tdm(instance: Instance) -> Marking:
    """Figure 6, top-down marking (see the module docstring for the order and ties)."""
    sigma, tau = instance.sigmas, instance.taus
    up, down = instance.multicast.upstream, instance.multicast.downstream
    n = len(instance.links)
    keys = [(sigma[i] - tau[i], i) for i in range(n)]  # i follows the sorted link order
    waiting = [len(up[i]) for i in range(n)]
    ready = [keys[i] for i in range(n) if waiting[i] == 0]
    heapq.heapify(ready)
    stalled = sorted(keys)
    done = [False] * n
    is_s = [False] * n
    for _ in range(n):
        if ready:
            _, i = heapq.heappop(ready)
        else:  # a cycle of ∪R_x: take the first unmarked link by the tie-break
            while done[stalled[0][1]]:
                stalled.pop(0)
            i = stalled.pop(0)[1]
        if done[i]:
            continue
        done[i] = True
        marked_parents = [p for p in up[i] if done[p]]
        is_s[i] = any(is_s[p] for p in marked_parents) or sigma[i] >= tau[i]
        for j in down[i]:
            waiting[j] -= 1
            if waiting[j] == 0 and not done[j]:
                heapq.heappush(ready, keys[j])
    if not valid(instance, as_marking(instance, is_s)):  # only after a cycle
        stack = [i for i in range(n) if is_s[i]]
        while stack:
            for j in down[stack.pop()]:
                if not is_s[j]:
                    is_s[j] = True
                    stack.append(j)
    return as_marking(instance, is_s)


def matchmaking_nodes(instance: Instance, marking: Marking) -> tuple[Hashable, ...]:
    """The interior matchmakers: nodes where, in some tree, a p-link comes in
    and an s-link goes out, so publications meet subscriptions there (§2.1).
    (End hosts match too: a publisher whose first links are s-links, a
    subscriber reached by a p-link; they are not listed.)"""
    trees, links = instance.multicast, instance.links
    found = set()
    for above in trees.above.values():
        for i, p in above.items():
            if p >= 0 and marking[links[i]] == "s" and marking[links[p]] == "p":
                found.add(trees.head[i])
    return tuple(sorted(found, key=node_key))
