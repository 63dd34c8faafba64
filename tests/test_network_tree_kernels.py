"""The compiled shortest-path trees of table_memory (cbalgebra.network._tree_kernels)
against SourceTrees.parents, the numpy oracle (scipy's exact Dijkstra, then the
smallest-id tight tail), on graphs full of equal-length paths and on forests
(BFS groups of 64 trees, trees that miss processors); iPS's per-tree records
against their definition."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cbalgebra.network import build, table_memory, topology
from cbalgebra.network._tree_kernels import add_branch_sizes, class_priorities, grow_trees, ips_rows
from cbalgebra.network.paths import SourceTrees
from cbalgebra.network.workload import processor_predicates

# lengths that tie often: equal ints, small ints, decimals whose sums meet (0.1 + 0.2 = 0.3)
WEIGHTS = {
    "unit": st.just(1),
    "equal": st.just(7),
    "int": st.integers(1, 3),
    "float": st.sampled_from([0.1, 0.2, 0.3, 0.5, 1.5]),
}


@st.composite
def graphs(draw):
    """A connected graph with many ties: a grid, a complete graph, a cycle,
    a ladder or a random connected graph, with one kind of weight."""
    shape = draw(st.sampled_from(["grid", "complete", "cycle", "ladder", "random"]))
    if shape == "grid":
        g = nx.convert_node_labels_to_integers(nx.grid_2d_graph(draw(st.integers(1, 5)), draw(st.integers(2, 6))))
    elif shape == "complete":
        g = nx.complete_graph(draw(st.integers(2, 8)))
    elif shape == "cycle":
        g = nx.cycle_graph(draw(st.integers(3, 12)))
    elif shape == "ladder":
        g = nx.ladder_graph(draw(st.integers(2, 7)))
    else:
        n = draw(st.integers(2, 16))
        g = nx.path_graph(n)
        g = nx.relabel_nodes(g, dict(enumerate(draw(st.permutations(range(n))))))
        g.add_edges_from(draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n)))
        g.remove_edges_from(list(nx.selfloop_edges(g)))
    weight = WEIGHTS[draw(st.sampled_from(sorted(WEIGHTS)))]
    for u, v in g.edges:
        g.edges[u, v]["weight"] = draw(weight)
    return g


def _grown(trees: SourceTrees, sources: np.ndarray):
    start, neighbour, length, arc = trees.adjacency()
    shape = (len(sources), trees.n)
    parent, parent_arc, order = np.empty(shape, start.dtype), np.empty(shape, start.dtype), np.empty(shape, start.dtype)
    reached = np.zeros(len(sources), dtype=np.int64)
    grow_trees(start, neighbour, length, arc, trees.equal_lengths(), sources, parent, parent_arc, order, reached)
    return parent, parent_arc, order, reached


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_kernel_trees_equal_source_trees(g):
    """Every source's tree: the same parents as SourceTrees.parents (exact
    lengths, smallest-id tie-break), with BFS for equal lengths and Dijkstra
    for the others; each tree arc's index names (parent, x); the growth
    order lists every processor once, each parent before its children."""
    trees = SourceTrees.from_graph(g)
    n = trees.n
    sources = np.arange(n, dtype=np.int64)
    parent, parent_arc, order, reached = _grown(trees, sources)
    expected = trees.parents(sources.tolist())
    assert (parent == expected).all()
    for v in range(n):
        assert reached[v] == n and order[v, 0] == v
        grown = order[v, :n].tolist()
        assert sorted(grown) == list(range(n))
        position = {x: k for k, x in enumerate(grown)}
        for x in range(n):
            p = int(parent[v, x])
            if x == v:
                assert p == -1
                continue
            assert position[p] < position[x]
            a = int(parent_arc[v, x])
            assert (trees.arc_tail[a], trees.arc_head[a]) == (p, x)


@st.composite
def forests_of_components(draw):
    """Up to 200 processors in several components (isolated ones too), equal
    lengths, and a list of sources with repeats in any order: the BFS
    kernel's groups of 64 trees, whole and partial, and trees that miss
    processors."""
    n = draw(st.integers(1, 200))
    g = nx.empty_graph(n)
    cuts = sorted(draw(st.sets(st.integers(1, n), max_size=4)) | {n})
    low = 0
    for high in cuts:
        members = list(range(low, high))
        members = draw(st.permutations(members))
        g.add_edges_from(itertools.pairwise(members))          # a path through the component
        if len(members) > 1:
            pairs = st.tuples(st.sampled_from(members), st.sampled_from(members))
            g.add_edges_from((u, v) for u, v in draw(st.lists(pairs, max_size=2 * len(members))) if u != v)
        low = high
    if draw(st.booleans()):
        g.remove_edges_from(draw(st.lists(st.sampled_from(sorted(g.edges)), max_size=3)) if g.number_of_edges() else [])
    sources = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=150))
    return g, np.array(sources, dtype=np.int64)


@settings(max_examples=60, deadline=None)
@given(forests_of_components())
def test_trees_grown_in_groups_of_64_equal_source_trees(case):
    """BFS grows up to 64 trees at once (one bit per tree): however many
    sources, repeated or not, in whichever order, each row is
    SourceTrees.parents' tree, its arcs name (parent, x), its order lists
    the processors it reaches level by level (so parents first), and the
    processors it misses get parent and arc -1."""
    g, sources = case
    trees = SourceTrees.from_graph(g)
    assert trees.equal_lengths()
    parent, parent_arc, order, reached = _grown(trees, sources)
    assert (parent == trees.parents(sources.tolist())).all()
    for i, v in enumerate(sources.tolist()):
        hops = nx.single_source_shortest_path_length(g, v)
        grown = order[i, :reached[i]].tolist()
        assert sorted(grown) == sorted(hops) and grown[0] == v
        assert [hops[x] for x in grown] == sorted(hops[x] for x in grown)
        for x in range(trees.n):
            a = int(parent_arc[i, x])
            if x not in hops or x == v:
                assert parent[i, x] == -1 and a == -1
            else:
                assert (trees.arc_tail[a], trees.arc_head[a]) == (parent[i, x], x)


def test_batches_hold_whole_groups_within_their_bound():
    """table_memory's batches of trees: whole groups of the BFS kernel's 64
    when the cell bound fits one (else one group while GROUP_CELLS allows
    it, else what fits), never more cells than the larger bound."""
    from cbalgebra.network._tree_kernels import GROUP, GROUP_CELLS, trees_per_batch

    for n in (1, 5, 63, 64, 1000, 10_000, 31_250, 40_000, 100_000, 100_001, 3_000_000):
        for cells in (1, 64, 2_000_000, 6_400_000):
            trees = trees_per_batch(n, cells)
            assert trees >= 1
            if cells // n >= GROUP:
                assert trees % GROUP == 0 and trees * n <= cells
            elif GROUP * n <= GROUP_CELLS:
                assert trees == GROUP
            else:
                assert trees == max(1, cells // n)
            assert trees * n <= max(cells, GROUP_CELLS, n)


def test_counts_over_several_groups_equal_the_built_tables():
    """150 processors: the trees grow in groups of 64, 64 and 22; iPS, PSF
    and PIF count what the built tables hold, every sender and a subset."""
    g = topology("power_law", 150, seed=5, model="chung_lu", sampler="skip")
    predicates = processor_predicates(range(0, 150, 2), 3, seed=5)
    for senders in (None, range(1, 150, 3)):
        for scheme in ("ips", "psf", "pif"):
            counted = table_memory(scheme, g, predicates, senders=senders)
            built = build(scheme, g, predicates, senders=senders).memory()
            assert (counted.predicate_constraints, counted.id_bits) == \
                (built["predicate_constraints"], built["id_bits"]), (scheme, senders)


def _subtrees(parent_row: np.ndarray) -> list[set[int]]:
    """T/u for every u: x belongs to the subtree of every processor on its parent chain."""
    below: list[set[int]] = [set() for _ in parent_row]
    for x in range(len(parent_row)):
        y = x
        while y >= 0:
            below[y].add(x)
            y = int(parent_row[y])
    return below


@settings(max_examples=40, deadline=None)
@given(forests_of_components(), st.data())
def test_ips_rows_follow_their_definition(case, data):
    """iPS's record of sender v at processor u, from the definitions on the
    trees: the lanes and receivers' sizes summed over D = T_v/u, rewriting
    safe when |D| − 1 is the sum of |T_u/w| over u's children w in T_v,
    and the header the nearest strict ancestor that is safe (the root at
    the root and off the tree); few units (headers found by climbing) or
    many in deep trees (a pass over the tree)."""
    g, sources = case
    trees = SourceTrees.from_graph(g)
    n = trees.n
    sources = np.unique(sources)[:24]
    every = np.arange(n, dtype=np.int64)
    units = every if data.draw(st.booleans()) else \
        np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1))), dtype=np.int64)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    lanes = rng.integers(0, 2**64, size=(2, n), dtype=np.uint64)
    sizes = rng.integers(0, 5, size=n).astype(np.int64)
    all_parents, all_arcs, all_order, all_reached = _grown(trees, every)
    branch = np.zeros(len(trees.arc_tail), dtype=np.int64)
    add_branch_sizes(every, all_parents, all_arcs, all_order, all_reached, branch)
    parent, parent_arc, order, reached = _grown(trees, sources)
    shape = (len(sources), len(units))
    key0, key1 = np.empty(shape, np.uint64), np.empty(shape, np.uint64)
    size, header, safe = np.empty(shape, np.int64), np.empty(shape, np.int64), np.empty(shape, np.bool_)
    salt = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    threshold = data.draw(st.sampled_from([0.0, 2.5, np.inf]))
    capacity = len(sources) * n
    picks = (np.empty(capacity, np.int64), np.empty(capacity, np.int64), np.empty(capacity, np.uint64),
             np.empty(capacity, np.uint64), np.empty(capacity, np.int64), np.empty(capacity, np.float64))
    picked = ips_rows(sources, parent, parent_arc, order, reached, units, sizes, lanes, branch, key0, key1, size,
                      safe, header, salt, threshold, *picks)
    offered = {tuple(int(a[k]) if a.dtype != np.float64 else float(a[k]) for a in picks) for k in range(picked)}
    assert len(offered) == picked
    expected_picks = set()

    branch_of = [[len(b) for b in _subtrees(all_parents[u])] for u in range(n)]   # |T_u/w|
    for i, v in enumerate(sources.tolist()):
        row = parent[i]
        below = _subtrees(row)

        def is_safe(u: int, row=row, below=below) -> bool:
            return len(below[u]) - 1 == sum(branch_of[u][w] for w in range(n) if row[w] == u)

        for j, u in enumerate(units.tolist()):
            d = sorted(below[u])
            assert key0[i, j] == np.sum(lanes[0, d], dtype=np.uint64)
            assert key1[i, j] == np.sum(lanes[1, d], dtype=np.uint64)
            assert size[i, j] == sizes[d].sum()
            assert safe[i, j] == is_safe(u)
            expected = v
            if u != v and row[u] >= 0:
                expected = int(row[u])
                while expected != v and not is_safe(expected):
                    expected = int(row[expected])
            assert header[i, j] == expected
        for x in range(n):   # the priority sample's candidates: every class of T_v above the threshold
            d = sorted(below[x])
            weight = int(sizes[d].sum() - sizes[x])
            if (x == v or row[x] >= 0) and weight > 0:
                k0, k1 = np.sum(lanes[0, d], dtype=np.uint64), np.sum(lanes[1, d], dtype=np.uint64)
                priority = float(class_priorities(np.array([x]), np.array([k0]), np.array([weight]), salt)[0])
                assert priority >= weight
                if priority > threshold:
                    expected_picks.add((x, v, int(k0), int(k1), weight, priority))
    assert offered == expected_picks


def test_dijkstra_is_used_for_unequal_lengths_and_agrees_on_a_weighted_network():
    """A real network in km (topohub, float lengths): the kernel's Dijkstra
    gives SourceTrees.parents for every source."""
    g = topology("topohub:sndlib/polska")
    trees = SourceTrees.from_graph(g)
    assert not trees.equal_lengths() and trees.adjacency() is not None
    sources = np.arange(trees.n, dtype=np.int64)
    assert (_grown(trees, sources)[0] == trees.parents(sources.tolist())).all()


def test_lengths_beyond_float64_keep_the_exact_path():
    """Weights 1e-12 beside 1e12 need Python integers: no compiled
    adjacency, and iPS and PSF still count what the built tables hold."""
    g = topology("gnp", 12, seed=4, weight_range=(1, 3))
    for i, (u, v) in enumerate(sorted(g.edges)):
        g.edges[u, v]["weight"] = 1e-12 if i % 2 else 1e12
    assert SourceTrees.from_graph(g).adjacency() is None
    predicates = processor_predicates(range(0, 12, 2), 3, seed=4)
    for scheme in ("ips", "psf"):
        counted = table_memory(scheme, g, predicates, senders=range(0, 12, 3))
        built = build(scheme, g, predicates, senders=range(0, 12, 3)).memory()
        assert (counted.predicate_constraints, counted.id_bits) == (built["predicate_constraints"], built["id_bits"])


# A later process's counts on other graphs, both kinds of lengths: prints the
# tree kernels numba compiled (none once ``make install`` has warmed them).
_COUNT_LATER = """
import itertools
import json
from numba.core import event
from cbalgebra.network import table_memory, topology
from cbalgebra.network.workload import processor_predicates

compiled = set()
class Names(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        if func.__module__.endswith("_tree_kernels"):
            compiled.add(func.__qualname__)
    def on_end(self, ev):
        pass

with event.install_listener("numba:compile", Names()):
    for weights in ({}, {"weight_range": (2, 9)}):
        graph = topology("power_law", 40, seed=3, **weights)
        predicates = processor_predicates(range(0, 40, 3), 3, seed=2)
        for scheme in ("psf", "ips", "pif", "drp"):
            table_memory(scheme, graph, predicates, senders=range(0, 40, 2))
print(json.dumps(sorted(compiled)))
"""


def test_make_install_warms_the_tree_kernels_so_a_later_count_compiles_none(tmp_path):
    root = Path(__file__).resolve().parents[1]
    recipe = re.search(r"^install:.*\n((?:\t.*\n)+)", (root / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert recipe, "make install has no recipe"
    warm = [line.strip() for line in recipe.group(1).splitlines()
            if "warm_up" in line and "cbalgebra.network.sizing import" in line]
    assert len(warm) == 1, recipe.group(1)
    code = re.fullmatch(r"\$\(PY\) -c '(.*)'", warm[0])
    assert code, warm[0]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)

    def run(source: str) -> str:
        done = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True, text=True, cwd=root,
                              timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    assert json.loads(run(_COUNT_LATER).splitlines()[-1]), "a cold cache compiles the tree kernels"
    for stale in tmp_path.rglob("*_tree_kernels*"):   # forget them again, then warm as make install does
        stale.unlink()
    run(code.group(1))
    assert json.loads(run(_COUNT_LATER).splitlines()[-1]) == []
