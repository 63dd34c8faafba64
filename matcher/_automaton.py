"""Substring constraints: one Aho–Corasick automaton per key.

A message string of length L satisfies the substring constraints of its key
whose patterns occur in it. Probing every piece of the string whose length
some pattern has costs L times the number of distinct pattern lengths: with
one pattern of 5,000 characters, or 2,000 patterns of distinct lengths, a
100 kB string took seconds. The automaton of Aho & Corasick (1975) reads the
string once instead, and reports each pattern found; a pattern is reported
once per message (``substring_mark``), and the walk along the output links
stops at the first pattern already reported, since everything further along
that chain was reported with it. One message string therefore costs
O(L log(alphabet) + patterns found), whatever the patterns.

The automata of all keys share one flat int32 array, ``substring_automata``,
each node's fields side by side, since a step of the walk reads all of them
and a message forwarded alone finds few of them in cache:

- ``[4 * v .. 4 * v + 3]``: node v's first edge (the index in this array of
  its first edge pair; its edges run to the next node's first edge, and a
  last row holds the end), its fail link (the node of the longest proper
  suffix of its string that is a node of its trie, −1 at a root), the
  substring constraint whose pattern is its string (or −1), and its output
  link (the nearest node along the fail links that has one, or −1);
- then the edge pairs: code point and target node, a node's edges sorted by
  code point.

A key's root is not stored here: ``_build`` writes ``-(root + 2)`` where the
key's longest substring pattern would be (``pattern_max_length``), which the
kernel reads for every string attribute anyway.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cbalgebra.matcher._numba_cache import CACHE


@njit(cache=CACHE)
def build_automata(keys, constraints, ranks, string_chars, string_start, n_keys):
    """The automata of the substring constraints ``constraints`` (ids), of
    ``keys``, whose patterns are interned strings ``ranks``; sorted by key,
    then rank (code-point order), and distinct within a key. Returns the
    root node of each key (−1 for none) and ``substring_automata``."""
    n = keys.shape[0]
    # nodes: one root per key that has patterns, one per distinct pattern prefix
    bound = 0
    for j in range(n):
        bound += 1 + string_start[ranks[j] + 1] - string_start[ranks[j]]
    parent = np.full(bound, -1, np.int64)
    char = np.zeros(bound, np.uint32)
    depth = np.zeros(bound, np.int64)
    owner = np.zeros(bound, np.int64)  # the root of each node's trie
    out = np.full(bound, -1, np.int32)
    root = np.full(n_keys, -1, np.int32)
    path = np.zeros(1, np.int64)
    n_nodes = 0
    j = 0
    while j < n:
        key = keys[j]
        r = n_nodes
        n_nodes += 1
        root[key] = r
        owner[r] = r
        prev_s = 0
        prev_e = 0
        while j < n and keys[j] == key:
            s = string_start[ranks[j]]
            e = string_start[ranks[j] + 1]
            if path.shape[0] < e - s + 1:
                grown = np.zeros(2 * (e - s + 1), np.int64)
                # element by element: a slice assignment makes numba compile
                # its shape-mismatch error (string formatting), 1.6 s of a
                # cold first call
                for d in range(path.shape[0]):
                    grown[d] = path[d]
                path = grown
            path[0] = r
            # the trie already holds this pattern's prefix shared with the previous one
            common = 0
            while common < e - s and common < prev_e - prev_s and string_chars[s + common] == \
                    string_chars[prev_s + common]:
                common += 1
            for d in range(common + 1, e - s + 1):
                v = n_nodes
                n_nodes += 1
                parent[v] = path[d - 1]
                char[v] = string_chars[s + d - 1]
                depth[v] = d
                owner[v] = r
                path[d] = v
            out[path[e - s]] = constraints[j]
            prev_s, prev_e = s, e
            j += 1
    # the packed array: node rows (first edge, fail, constraint, output link),
    # then the edge pairs grouped by parent; within a group in node order,
    # which is code-point order because the patterns arrive sorted
    child_start = np.zeros(n_nodes + 1, np.int64)
    for v in range(n_nodes):
        if parent[v] >= 0:
            child_start[parent[v] + 1] += 1
    for v in range(n_nodes):
        child_start[v + 1] += child_start[v]
    edges_at = 4 * (n_nodes + 1)
    automata = np.full(edges_at + 2 * child_start[n_nodes], -1, np.int32)
    for v in range(n_nodes + 1):
        automata[4 * v] = edges_at + 2 * child_start[v]
    for v in range(n_nodes):
        automata[4 * v + 2] = out[v]
        p = parent[v]
        if p >= 0:
            e = edges_at + 2 * child_start[p]
            automata[e] = np.int32(char[v])  # code points fit: at most 0x10FFFF
            automata[e + 1] = v
            child_start[p] += 1
    # fail and output links, shallower nodes first, with the matching walk's
    # own transition
    max_depth = 0
    for v in range(n_nodes):
        if depth[v] > max_depth:
            max_depth = depth[v]
    by_depth = np.zeros(max_depth + 2, np.int64)
    for v in range(n_nodes):
        by_depth[depth[v] + 1] += 1
    for d in range(max_depth + 1):
        by_depth[d + 1] += by_depth[d]
    order = np.zeros(n_nodes, np.int64)
    for v in range(n_nodes):
        order[by_depth[depth[v]]] = v
        by_depth[depth[v]] += 1
    for k in range(n_nodes):
        v = order[k]
        if depth[v] == 0:
            continue
        r = owner[v]
        f = r if depth[v] == 1 else transition(automata, r, np.int64(automata[4 * parent[v] + 1]), char[v])
        automata[4 * v + 1] = f
        automata[4 * v + 3] = f if automata[4 * f + 2] >= 0 else automata[4 * f + 3]
    return root, automata


def no_automata(n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`build_automata` returns when no key has a pattern (every
    root -1, and the one row of the end node), made in Python: a table without
    automata then never compiles the builder."""
    automata = np.full(4, -1, np.int32)
    automata[0] = 4  # the end node's first edge: where the (no) edges start
    return np.full(n_keys, -1, np.int32), automata


@njit(cache=CACHE, inline="always")
def _step(automata, s, ch):
    """The child of node ``s`` along code point ``ch`` in ``substring_automata``,
    or −1 (binary search over the node's edge pairs)."""
    first = np.int64(automata[4 * s])
    lo = np.int64(0)
    hi = (np.int64(automata[4 * s + 4]) - first) >> 1
    n = hi
    c = np.int64(ch)
    while lo < hi:
        mid = (lo + hi) >> 1
        if np.int64(automata[first + 2 * mid]) < c:
            lo = mid + 1
        else:
            hi = mid
    if lo < n and np.int64(automata[first + 2 * lo]) == c:
        return np.int64(automata[first + 2 * lo + 1])
    return np.int64(-1)


@njit(cache=CACHE, inline="always")
def transition(automata, root, state, ch):
    """The node reached from ``state`` by code point ``ch``: its child along
    ``ch``, else that of the first node along its fail links that has one,
    else ``root``. Reading a string and building the fail links both take
    this step."""
    while True:
        g = _step(automata, state, ch)
        if g >= 0:
            return g
        if state == root:
            return root
        state = np.int64(automata[4 * state + 1])
