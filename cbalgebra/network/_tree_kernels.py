"""Compiled shortest-path trees T_v and the per-tree sums :mod:`cbalgebra.network.sizing` counts.

Each function is one phase over flat arrays (no Python values): growing a
batch of trees, then one pass over each tree in the order it was grown. The
trees are those of :mod:`cbalgebra.network.paths`: exact distances and the
smallest-id tie-break (the parent of x is the smallest-id u with
d(u) + w(u, x) = d(x)). The graph comes as the adjacency of
:meth:`cbalgebra.network.paths.SourceTrees.adjacency`: for processor u, the
slots ``start[u]:start[u + 1]`` hold its neighbours, the scaled integer
lengths (float64, every sum exact below 2**52, as ``paths`` proves) and the
index of the arc (u, neighbour) in ``SourceTrees``' arc order.

Why the growth order matters: a parent is strictly closer to the root than
its child (weights are positive), so Dijkstra's (or BFS's) order of settling
processors lists every parent before its children. Subtree sums are then
one pass over that order backwards, and anything inherited from ancestors
(a depth, the nearest safe ancestor) one pass forwards; no pointer jumping.

Self-contained: numba's cache is keyed by this file's source, and these
kernels call nothing compiled elsewhere.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _sift_up(keys: np.ndarray, items: np.ndarray, i: int) -> None:
    while i > 0:
        up = (i - 1) >> 1
        if keys[up] <= keys[i]:
            return
        keys[up], keys[i] = keys[i], keys[up]
        items[up], items[i] = items[i], items[up]
        i = up


@njit(cache=True)
def _sift_down(keys: np.ndarray, items: np.ndarray, size: int) -> None:
    i = 0
    while True:
        low = 2 * i + 1
        if low >= size:
            return
        if low + 1 < size and keys[low + 1] < keys[low]:
            low += 1
        if keys[i] <= keys[low]:
            return
        keys[low], keys[i] = keys[i], keys[low]
        items[low], items[i] = items[i], items[low]
        i = low


@njit(cache=True)
def _breadth_first(start: np.ndarray, neighbour: np.ndarray, arc: np.ndarray, source: int, hops: np.ndarray,
                   parent: np.ndarray, parent_arc: np.ndarray, order: np.ndarray) -> int:
    """T_source when every link has the same length: BFS, and among the
    neighbours one hop closer, the smallest id. Returns the processors
    reached (``order[:reached]``, in the order settled); ``parent`` and
    ``parent_arc`` are written at those only (-1 at the source)."""
    hops[:] = -1
    parent[source] = -1
    parent_arc[source] = -1
    hops[source] = 0
    order[0] = source
    head, tail = 0, 1
    while head < tail:
        u = order[head]
        head += 1
        below = hops[u] + 1
        for slot in range(start[u], start[u + 1]):
            x = neighbour[slot]
            h = hops[x]
            if h < 0:
                hops[x] = below
                parent[x] = u
                parent_arc[x] = slot        # u's slot for now: see below
                order[tail] = x
                tail += 1
            elif h == below and u < parent[x]:
                parent[x] = u
                parent_arc[x] = slot
    for k in range(1, tail):                # the arc index of each final (parent, x), once per processor
        x = order[k]
        parent_arc[x] = arc[parent_arc[x]]
    return tail


@njit(cache=True)
def _dijkstra(start: np.ndarray, neighbour: np.ndarray, length: np.ndarray, arc: np.ndarray, source: int,
              distance: np.ndarray, parent: np.ndarray, parent_arc: np.ndarray, order: np.ndarray,
              heap_keys: np.ndarray, heap_items: np.ndarray) -> int:
    """T_source over integer lengths held exactly in float64 (binary heap,
    lazy deletion): a processor is settled once, from its shortest length;
    every settled u then offers itself as parent to the neighbours it
    reaches at their current length, and the smallest id wins. A parent is
    settled before its child, so by the time x settles every tight u has
    been offered. Returns the processors reached, as :func:`_breadth_first`."""
    distance[:] = np.inf
    parent[:] = -1
    parent_arc[:] = -1
    settled = np.zeros(len(parent), dtype=np.bool_)
    distance[source] = 0.0
    heap_keys[0] = 0.0
    heap_items[0] = source
    size, reached = 1, 0
    while size > 0:
        d, u = heap_keys[0], heap_items[0]
        size -= 1
        if size > 0:
            heap_keys[0], heap_items[0] = heap_keys[size], heap_items[size]
            _sift_down(heap_keys, heap_items, size)
        if settled[u]:
            continue
        settled[u] = True
        order[reached] = u
        reached += 1
        for slot in range(start[u], start[u + 1]):
            x = neighbour[slot]
            through = d + length[slot]
            if through < distance[x]:
                distance[x] = through
                parent[x] = u
                parent_arc[x] = arc[slot]
                heap_keys[size], heap_items[size] = through, x
                size += 1
                _sift_up(heap_keys, heap_items, size - 1)
            elif through == distance[x] and u < parent[x]:
                parent[x] = u
                parent_arc[x] = arc[slot]
    return reached


@njit(cache=True)
def grow_trees(start: np.ndarray, neighbour: np.ndarray, length: np.ndarray, arc: np.ndarray, equal: bool,
               sources: np.ndarray, parent: np.ndarray, parent_arc: np.ndarray, order: np.ndarray,
               reached: np.ndarray) -> None:
    """Row i of ``parent``/``parent_arc``/``order`` (-1 where none):
    T_{sources[i]}'s parents, the index of each tree arc (parent, x), and
    the processors in the order they were settled (the first
    ``reached[i]``; the rest of the row is not written). ``equal``: every
    length is the same (BFS)."""
    n = len(start) - 1
    scratch = np.empty(n, dtype=np.float64)
    hops = np.empty(n, dtype=np.int32)
    heap_keys = np.empty(len(neighbour) + 1, dtype=np.float64)
    heap_items = np.empty(len(neighbour) + 1, dtype=np.int64)
    for i in range(len(sources)):
        parent[i, :] = -1
        if equal:
            reached[i] = _breadth_first(start, neighbour, arc, sources[i], hops, parent[i], parent_arc[i], order[i])
        else:
            reached[i] = _dijkstra(start, neighbour, length, arc, sources[i], scratch, parent[i], parent_arc[i],
                                   order[i], heap_keys, heap_items)


@njit(cache=True)
def hop_weighted_sums(parent: np.ndarray, order: np.ndarray, reached: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Per tree i: Σ_x weight[x] · (hops from the root to x in the tree)."""
    out = np.zeros(len(reached), dtype=np.int64)
    hops = np.zeros(parent.shape[1], dtype=np.int64)
    for i in range(len(reached)):
        total = 0
        hops[order[i, 0]] = 0
        for k in range(1, reached[i]):
            x = order[i, k]
            hops[x] = hops[parent[i, x]] + 1
            total += hops[x] * weight[x]
        out[i] = total
    return out


@njit(cache=True)
def add_branch_sizes(roots: np.ndarray, parent: np.ndarray, parent_arc: np.ndarray, order: np.ndarray,
                     reached: np.ndarray, branch: np.ndarray) -> None:
    """Per tree T_u (u = roots[i]): branch[arc (u, w)] = |T_u/w| for every
    child w of u (subtree sizes, one backward pass)."""
    count = np.zeros(parent.shape[1], dtype=np.int32)
    for i in range(len(roots)):
        u = roots[i]
        for k in range(reached[i]):
            count[order[i, k]] = 1
        for k in range(reached[i] - 1, 0, -1):
            x = order[i, k]
            count[parent[i, x]] += count[x]
        for k in range(1, reached[i]):
            x = order[i, k]
            if parent[i, x] == u:
                branch[parent_arc[i, x]] = count[x]


@njit(cache=True)
def _uniform(key: np.uint64) -> float:
    """A number in (0, 1] from a 64-bit key: SplitMix64's finaliser (Steele,
    Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
    2014), then its top 53 bits."""
    z = np.uint64(key)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (float(z >> np.uint64(11)) + 1.0) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def ips_rows(sources: np.ndarray, parent: np.ndarray, parent_arc: np.ndarray, order: np.ndarray,
             reached: np.ndarray, units: np.ndarray, sizes: np.ndarray, lanes: np.ndarray, branch: np.ndarray,
             key0: np.ndarray, key1: np.ndarray, size: np.ndarray, safe: np.ndarray, header: np.ndarray,
             salt: np.ndarray, threshold: float, pick_unit: np.ndarray, pick_sender: np.ndarray,
             pick_key0: np.ndarray, pick_key1: np.ndarray, pick_weight: np.ndarray,
             pick_priority: np.ndarray) -> int:
    """iPS's record of each sender v = sources[i] at each processor
    u = units[j] (row i, column j of the outputs): the two hash lanes summed
    over D_v(u) = T_v/u (uint64, wrapping), the receivers' size of D_v(u),
    whether rewriting at u is safe (|T_v/u| − 1 = Σ |T_u/w| over u's
    children w in T_v: D_v(u) is a union of whole branches of T_u) and the
    header u receives, its nearest strict ancestor that is safe (the root at
    the root). See :func:`cbalgebra.network.sizing.ips_classes`.

    Also the candidates of the priority sample of stored classes (every
    processor x of T_v, not only ``units``): the class (x, D_v(x)) of weight
    w = size(D_v(x)) − size(x) > 0 has priority w / h, h uniform in (0, 1]
    from the class's lane 0 mixed with ``salt[x]`` (:func:`_uniform`); those
    above ``threshold`` go to the ``pick_*`` arrays (capacity: the batch's
    processors), and their number is returned. ``threshold`` = inf: none."""
    n = parent.shape[1]
    count = np.empty(n, dtype=np.int32)
    held = np.empty(n, dtype=np.int64)
    lane0 = np.empty(n, dtype=np.uint64)
    lane1 = np.empty(n, dtype=np.uint64)
    whole = np.empty(n, dtype=np.int32)
    is_safe = np.empty(n, dtype=np.bool_)
    heard = np.empty(n, dtype=np.int32)
    picked = 0
    for i in range(len(sources)):
        v = sources[i]
        count[:] = 1
        held[:] = sizes
        lane0[:] = lanes[0]
        lane1[:] = lanes[1]
        whole[:] = 0
        for k in range(reached[i] - 1, 0, -1):
            x = order[i, k]
            p = parent[i, x]
            count[p] += count[x]
            held[p] += held[x]
            lane0[p] += lane0[x]
            lane1[p] += lane1[x]
            whole[p] += branch[parent_arc[i, x]]
        for x in range(n):
            is_safe[x] = count[x] - 1 == whole[x]
        heard[:] = v
        for k in range(1, reached[i]):
            x = order[i, k]
            p = parent[i, x]
            heard[x] = p if is_safe[p] else heard[p]
        for j in range(len(units)):
            u = units[j]
            key0[i, j] = lane0[u]
            key1[i, j] = lane1[u]
            size[i, j] = held[u]
            safe[i, j] = is_safe[u]
            header[i, j] = heard[u]
        if threshold == np.inf:
            continue
        for k in range(reached[i]):
            x = order[i, k]
            weight = held[x] - sizes[x]
            if weight > 0:
                priority = weight / _uniform(lane0[x] ^ salt[x])
                if priority > threshold:
                    pick_unit[picked] = x
                    pick_sender[picked] = v
                    pick_key0[picked] = lane0[x]
                    pick_key1[picked] = lane1[x]
                    pick_weight[picked] = weight
                    pick_priority[picked] = priority
                    picked += 1
    return picked


@njit(cache=True)
def class_priorities(units: np.ndarray, key0: np.ndarray, weight: np.ndarray, salt: np.ndarray) -> np.ndarray:
    """The priority w / h :func:`ips_rows` gives each class (unit, key0) of
    ``weight`` w, for classes already collected."""
    out = np.empty(len(units), dtype=np.float64)
    for i in range(len(units)):
        out[i] = weight[i] / _uniform(key0[i] ^ salt[units[i]])
    return out
