"""Compiled shortest-path trees T_v and the per-tree sums :mod:`cbalgebra.network.sizing` counts.

Each function is one phase over flat arrays (no Python values): growing a
batch of trees, then one pass over each tree in the order it was grown. The
trees are those of :mod:`cbalgebra.network.paths`: exact distances and the
smallest-id tie-break (the parent of x is the smallest-id u with
d(u) + w(u, x) = d(x)). The graph comes as the adjacency of
:meth:`cbalgebra.network.paths.SourceTrees.adjacency`: for processor u, the
slots ``start[u]:start[u + 1]`` hold its neighbours in ascending id, the
scaled integer lengths (float64, every sum exact below 2**52, as ``paths``
proves) and the index of the arc (u, neighbour) in ``SourceTrees``' arc
order; the slots are those arcs grouped by head, so slot s of u is itself
the arc (neighbour, u).

Why the growth order matters: a parent is strictly closer to the root than
its child (weights are positive), so Dijkstra's order of settling
processors, or BFS's level by level, lists every parent before its children. Subtree sums are then
one pass over that order backwards, and anything inherited from ancestors
(a depth, the nearest safe ancestor) one pass forwards; no pointer jumping.

Self-contained: numba's cache is keyed by this file's source, and these
kernels call nothing compiled elsewhere.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cbalgebra.bits import trailing_zeros


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


#: Trees grown together by :func:`_breadth_first_group`: one bit of a 64-bit word per tree.
GROUP = 64

#: A batch of trees may grow to a whole group up to this many cells (trees × processors; the int32 rows
#: of parent, parent_arc and order take 12 bytes a cell: 77 MB at n = 100,000), since a BFS level's
#: scan costs the same for one tree as for 64.
GROUP_CELLS = 6_400_000


def trees_per_batch(n: int, cells: int) -> int:
    """Trees per batch over n processors: about ``cells`` / n, in whole
    groups of :data:`GROUP` when that is at least one, else one whole group
    while it stays within :data:`GROUP_CELLS`."""
    fit = max(1, cells // max(1, n))
    if fit >= GROUP:
        return fit // GROUP * GROUP
    return GROUP if GROUP * n <= GROUP_CELLS else fit


#: Top-down while the frontier's arcs × this stay below the arcs of processors some tree has not reached
#: (Beamer, Asanović & Patterson, "Direction-Optimizing Breadth-First Search", SC 2012, §4: their α).
#: Measured on the 100,000-node Chung–Lu graph of benchmarks/routing_trees.py, 128 trees, one run on the
#: shared machine, with a first version of this kernel (parents written as the levels grew): 1.43, 1.40
#: and 1.41 ms per tree with 4, 14 and 50, 2.10 ms with 1.
_TOP_DOWN_RATIO = 14


@njit(cache=True)
def _lowest_bit(bits: np.uint64) -> np.int64:
    """The index of the lowest set bit of nonzero ``bits`` (the tree it stands for)."""
    return np.int64(trailing_zeros(bits))


@njit(cache=True)
def _close_level(start: np.ndarray, seen: np.ndarray, fresh: np.ndarray, full: np.uint64, first: int,
                 order: np.ndarray, tail: np.ndarray, frontier: np.ndarray) -> tuple[int, int, int]:
    """After a level: the processors some tree reached in it (``fresh`` ≠ 0)
    go, ascending, into ``frontier`` and at the end of each such tree's
    order (row ``first`` + bit). Returns their number, their arcs and the
    arcs of the processors some tree has still to reach."""
    count, arcs, open_arcs = 0, 0, 0
    for x in range(len(start) - 1):
        new = fresh[x]
        if new != 0:
            frontier[count] = x
            count += 1
            arcs += start[x + 1] - start[x]
            while new != 0:
                tree = _lowest_bit(new)
                new &= new - np.uint64(1)
                order[first + tree, tail[tree]] = x
                tail[tree] += 1
        if seen[x] != full:
            open_arcs += start[x + 1] - start[x]
    return count, arcs, open_arcs


@njit(cache=True)
def _top_down(start: np.ndarray, neighbour: np.ndarray, arc: np.ndarray, frontier: np.ndarray, count: int,
              current: np.ndarray, seen: np.ndarray, fresh: np.ndarray, first: int, parent_arc: np.ndarray) -> None:
    """One level from the frontier's arcs. The frontier is in ascending id,
    so the first frontier processor to reach x for a tree is its smallest
    tight neighbour: the tie-break."""
    for k in range(count):
        u = frontier[k]
        trees = current[u]
        for slot in range(start[u], start[u + 1]):
            x = neighbour[slot]
            new = trees & ~seen[x]
            if new != 0:
                seen[x] |= new
                fresh[x] |= new
                a = arc[slot]
                while new != 0:
                    tree = _lowest_bit(new)
                    new &= new - np.uint64(1)
                    parent_arc[first + tree, x] = a


@njit(cache=True)
def _bottom_up(start: np.ndarray, neighbour: np.ndarray, current: np.ndarray, seen: np.ndarray,
               fresh: np.ndarray, full: np.uint64, first: int, parent_arc: np.ndarray) -> None:
    """One level from the arcs of the processors some tree has still to
    reach. Each adjacency lists its neighbours in ascending id, so the first
    frontier neighbour found for a tree is its smallest tight one: the
    tie-break, and the scan stops once every tree waiting at x has one.
    Slot s of x's adjacency is itself the arc (neighbour, x) (the slots are
    :class:`~cbalgebra.network.paths.SourceTrees`' arcs grouped by head)."""
    for x in range(len(start) - 1):
        waiting = full & ~seen[x]
        if waiting == 0:
            continue
        left = waiting
        for slot in range(start[x], start[x + 1]):
            u = neighbour[slot]
            hit = current[u] & left
            if hit != 0:
                left &= ~hit
                while hit != 0:
                    tree = _lowest_bit(hit)
                    hit &= hit - np.uint64(1)
                    parent_arc[first + tree, x] = slot
                if left == 0:
                    break
        fresh[x] = waiting & ~left
        seen[x] |= fresh[x]


@njit(cache=True)
def _breadth_first_group(start: np.ndarray, neighbour: np.ndarray, arc: np.ndarray, sources: np.ndarray,
                         first: int, size: int, parent: np.ndarray, parent_arc: np.ndarray, order: np.ndarray,
                         reached: np.ndarray, seen: np.ndarray, current: np.ndarray, fresh: np.ndarray,
                         frontier: np.ndarray, tail: np.ndarray) -> None:
    """T_v for the ``size`` ≤ 64 sources v = sources[first:first + size]
    when every link has the same length, grown together: bit t of a
    processor's word stands for tree first + t (multi-source BFS, Then et
    al., "The More the Merrier: Efficient Multi-Source Graph Traversal",
    VLDB 2014), so one scan of an arc serves every tree at that level. Each
    level runs top-down or bottom-up, whichever scans fewer arcs (Beamer et
    al., SC 2012); both find for each tree the smallest-id neighbour one hop
    closer. Rows ``first``.. of ``order`` list each tree level by level
    (parents first); unreached processors get parent and arc -1."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if size == GROUP else (np.uint64(1) << np.uint64(size)) - np.uint64(1)
    seen[:] = 0
    current[:] = 0
    tail[:] = 0
    for tree in range(size):
        v = sources[first + tree]
        bit = np.uint64(1) << np.uint64(tree)
        seen[v] |= bit
        current[v] |= bit
        parent_arc[first + tree, v] = -1
    count, arcs, open_arcs = _close_level(start, seen, current, full, first, order, tail, frontier)
    while count > 0:
        fresh[:] = 0
        if arcs * _TOP_DOWN_RATIO < open_arcs:
            _top_down(start, neighbour, arc, frontier, count, current, seen, fresh, first, parent_arc)
        else:
            _bottom_up(start, neighbour, current, seen, fresh, full, first, parent_arc)
        count, arcs, open_arcs = _close_level(start, seen, fresh, full, first, order, tail, frontier)
        current, fresh = fresh, current
    for tree in range(size):
        reached[first + tree] = tail[tree]
        _parents_from_arcs(neighbour, seen, np.uint64(1) << np.uint64(tree), parent[first + tree],
                           parent_arc[first + tree])


@njit(cache=True)
def _parents_from_arcs(neighbour: np.ndarray, seen: np.ndarray, bit: np.uint64, parent: np.ndarray,
                       parent_arc: np.ndarray) -> None:
    """One tree's parents from its arcs (parent, x), which are slots of x's
    adjacency: one sequential pass, where writing them as the levels
    grow would touch each row's cache lines once a level; -1 off the tree."""
    for x in range(len(parent)):
        if seen[x] & bit == 0:
            parent[x] = -1
            parent_arc[x] = -1
        else:
            a = parent_arc[x]
            parent[x] = neighbour[a] if a >= 0 else -1


@njit(cache=True)
def _dijkstra(start: np.ndarray, neighbour: np.ndarray, length: np.ndarray, arc: np.ndarray, source: int,
              distance: np.ndarray, parent: np.ndarray, parent_arc: np.ndarray, order: np.ndarray,
              heap_keys: np.ndarray, heap_items: np.ndarray) -> int:
    """T_source over integer lengths held exactly in float64 (binary heap,
    lazy deletion): a processor is settled once, from its shortest length;
    every settled u then offers itself as parent to the neighbours it
    reaches at their current length, and the smallest id wins. A parent is
    settled before its child, so by the time x settles every tight u has
    been offered. Returns the processors reached (``order[:reached]``, in the
    order settled)."""
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
    the processors parents first (the first ``reached[i]``; the rest of the
    row is not written). ``equal``: every length is the same (BFS, in groups
    of :data:`GROUP` sources: give batches of a multiple of it)."""
    n = len(start) - 1
    if equal:
        seen = np.empty(n, dtype=np.uint64)
        current = np.empty(n, dtype=np.uint64)
        fresh = np.empty(n, dtype=np.uint64)
        frontier = np.empty(n, dtype=np.int64)
        tail = np.empty(GROUP, dtype=np.int64)
        for first in range(0, len(sources), GROUP):
            _breadth_first_group(start, neighbour, arc, sources, first, min(GROUP, len(sources) - first), parent,
                                 parent_arc, order, reached, seen, current, fresh, frontier, tail)
        return
    scratch = np.empty(n, dtype=np.float64)
    heap_keys = np.empty(len(neighbour) + 1, dtype=np.float64)
    heap_items = np.empty(len(neighbour) + 1, dtype=np.int64)
    for i in range(len(sources)):
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
    child w of u (subtree sizes, one backward pass: when it reaches x, every
    processor below x has been added to x)."""
    count = np.zeros(parent.shape[1], dtype=np.int32)
    for i in range(len(roots)):
        u = roots[i]
        for k in range(reached[i]):
            count[order[i, k]] = 1
        for k in range(reached[i] - 1, 0, -1):
            x = order[i, k]
            p = parent[i, x]
            count[p] += count[x]
            if p == u:
                branch[parent_arc[i, x]] = count[x]


#: The record of a processor in :func:`ips_rows`: two hash lanes, the receivers' size and the packed
#: (|T_v/x| << 32) + Σ |T_x/w| over x's children w, summed below x (one cache line holds two records).
_LANE0, _LANE1, _SIZE, _COUNTS = 0, 1, 2, 3
_ONE_BELOW = np.uint64(1) << np.uint64(32)
_COUNT_PART = np.uint64(0xFFFFFFFF00000000)
_WHOLE_PART = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def _rewrite_safe(counts: np.uint64) -> bool:
    """|T_v/x| − 1 = Σ |T_x/w| over x's children w in T_v (both below 2**32: each is at most n)."""
    return (counts >> np.uint64(32)) - np.uint64(1) == counts & _WHOLE_PART


@njit(cache=True)
def _headers_by_climbing(parent: np.ndarray, below: np.ndarray, units: np.ndarray, root: int, reached: int,
                         header: np.ndarray) -> bool:
    """header[j]: the nearest strict ancestor of units[j] that is safe (the
    root at the root and off the tree), found by climbing from each unit:
    with a few units in a shallow tree (BFS trees of small-world graphs)
    that is far fewer steps than a pass over the tree. Gives up, returning
    False, once the climbs would take more steps than that pass."""
    budget = reached
    for j in range(len(units)):
        u = units[j]
        x = u
        heard = root
        if u != root and parent[u] >= 0:
            while True:
                x = parent[x]
                budget -= 1
                if budget < 0:
                    return False
                if x == root or _rewrite_safe(below[x, _COUNTS]):
                    heard = x
                    break
        header[j] = heard
    return True


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
    the root and off the tree). See :func:`cbalgebra.network.sizing.ips_classes`.
    The sums over subtrees are kept in one record per processor (one cache
    line touched per parent, not five), started from a copy of the
    processors' own values; the headers are found by climbing from the
    units when that is shorter than a pass over the tree.

    Also the candidates of the priority sample of stored classes (every
    processor x of T_v, not only ``units``): the class (x, D_v(x)) of weight
    w = size(D_v(x)) − size(x) > 0 has priority w / h, h uniform in (0, 1]
    from the class's lane 0 mixed with ``salt[x]`` (:func:`_uniform`); those
    above ``threshold`` go to the ``pick_*`` arrays (capacity: the batch's
    processors), and their number is returned. ``threshold`` = inf: none."""
    n = parent.shape[1]
    own = np.empty((n, 4), dtype=np.uint64)
    for x in range(n):
        own[x, _LANE0] = lanes[0, x]
        own[x, _LANE1] = lanes[1, x]
        own[x, _SIZE] = sizes[x]
        own[x, _COUNTS] = _ONE_BELOW
    whole = branch.astype(np.uint32)              # |T_u/w| ≤ n: half the bytes of the random reads
    below = np.empty((n, 4), dtype=np.uint64)
    heard = np.empty(n, dtype=np.int32)
    picked = 0
    for i in range(len(sources)):
        v = sources[i]
        below[:] = own
        for k in range(reached[i] - 1, 0, -1):
            x = order[i, k]
            p = parent[i, x]
            below[p, _LANE0] += below[x, _LANE0]
            below[p, _LANE1] += below[x, _LANE1]
            below[p, _SIZE] += below[x, _SIZE]
            below[p, _COUNTS] += (below[x, _COUNTS] & _COUNT_PART) + np.uint64(whole[parent_arc[i, x]])
        climbed = _headers_by_climbing(parent[i], below, units, v, reached[i], header[i])
        if not climbed:
            heard[v] = v
            for k in range(1, reached[i]):
                x = order[i, k]
                p = parent[i, x]
                heard[x] = p if _rewrite_safe(below[p, _COUNTS]) else heard[p]
        for j in range(len(units)):
            u = units[j]
            key0[i, j] = below[u, _LANE0]
            key1[i, j] = below[u, _LANE1]
            size[i, j] = np.int64(below[u, _SIZE])
            safe[i, j] = _rewrite_safe(below[u, _COUNTS])
            if not climbed:
                header[i, j] = heard[u] if u == v or parent[i, u] >= 0 else v
        if threshold == np.inf:
            continue
        for k in range(reached[i]):
            x = order[i, k]
            weight = np.int64(below[x, _SIZE]) - sizes[x]
            if weight > 0:
                priority = weight / _uniform(below[x, _LANE0] ^ salt[x])
                if priority > threshold:
                    pick_unit[picked] = x
                    pick_sender[picked] = v
                    pick_key0[picked] = below[x, _LANE0]
                    pick_key1[picked] = below[x, _LANE1]
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
