"""A layered (Sugiyama-style) drawing of a Hasse diagram, in pure Python.

The HTML page and the SVG fallback (no Graphviz installed) use it:

1. levels are given (roots on level 0); an edge spanning several levels gets
   a chain of dummy points, so that it can bend around nodes;
2. the order within each level comes from barycenter sweeps, down and up,
   keeping the order with the fewest crossings;
3. x coordinates: each node is pulled toward the mean x of its neighbours in
   the adjacent level, and the level is then made non-overlapping with the
   least squared displacement (isotonic regression by pool-adjacent-
   violators), alternating downward and upward passes;
4. y coordinates: one row per level, as tall as its tallest node.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

__all__ = ["Box", "Layout", "layered_layout"]

H_GAP = 24.0
V_GAP = 56.0
DUMMY_WIDTH = 12.0
MARGIN = 20.0


@dataclass
class Box:
    width: float
    height: float
    level: int


@dataclass
class Layout:
    """Node centres, edge polylines (source bottom to target top) and size."""

    x: dict[Hashable, float] = field(default_factory=dict)
    y: dict[Hashable, float] = field(default_factory=dict)
    routes: dict[tuple[Hashable, Hashable], list[tuple[float, float]]] = field(default_factory=dict)
    width: float = 0.0
    height: float = 0.0
    crossings: int = 0


class _Dummy:
    __slots__ = ("edge", "level")

    def __init__(self, edge: tuple, level: int) -> None:
        self.edge = edge
        self.level = level


def layered_layout(
    boxes: dict[Hashable, Box],
    edges: Sequence[tuple[Hashable, Hashable]],
    sweeps: int = 8,
    passes: int = 6,
) -> Layout:
    """Lay out ``boxes`` (in the order given within each level) with ``edges``
    going from a lower level number to a higher one."""
    if not boxes:
        return Layout(width=2 * MARGIN, height=2 * MARGIN)
    depth = max(b.level for b in boxes.values()) + 1
    layers: list[list] = [[] for _ in range(depth)]
    for n, b in boxes.items():
        layers[b.level].append(n)

    up: dict = {n: [] for n in boxes}
    down: dict = {n: [] for n in boxes}
    width: dict = {n: b.width for n, b in boxes.items()}
    chains: dict[tuple, list] = {}
    for u, v in edges:
        lu, lv = boxes[u].level, boxes[v].level
        if lv <= lu:
            raise ValueError(f"edge {u!r} -> {v!r} does not go down a level")
        prev = u
        chain = []
        for lev in range(lu + 1, lv):
            d = _Dummy((u, v), lev)
            up[d], down[d] = [], []
            width[d] = DUMMY_WIDTH
            layers[lev].append(d)
            down[prev].append(d)
            up[d].append(prev)
            chain.append(d)
            prev = d
        down[prev].append(v)
        up[v].append(prev)
        chains[(u, v)] = chain

    order = _order(layers, up, down, sweeps)
    pos = {n: i for layer in order for i, n in enumerate(layer)}
    crossings = sum(_crossings(order[i], order[i + 1], down, pos) for i in range(depth - 1))
    x = _coordinates(order, up, down, width, passes)

    heights = [max((boxes[n].height for n in layer if not isinstance(n, _Dummy)), default=10.0) for layer in order]
    ys = []
    y = MARGIN
    for h in heights:
        ys.append(y + h / 2)
        y += h + V_GAP
    total_height = y - V_GAP + MARGIN

    left = min(x[n] - width[n] / 2 for layer in order for n in layer)
    shift = MARGIN - left
    out = Layout(crossings=crossings)
    right = 0.0
    for lev, layer in enumerate(order):
        for n in layer:
            x[n] += shift
            right = max(right, x[n] + width[n] / 2)
            if not isinstance(n, _Dummy):
                out.x[n] = x[n]
                out.y[n] = ys[lev]
    for (u, v), chain in chains.items():
        lu, lv = boxes[u].level, boxes[v].level
        pts = [(out.x[u], out.y[u] + boxes[u].height / 2)]
        for d in chain:
            pts.append((x[d], ys[d.level]))
        pts.append((out.x[v], out.y[v] - boxes[v].height / 2))
        out.routes[(u, v)] = pts
    out.width = right + MARGIN
    out.height = total_height
    return out


def _order(layers: list[list], up: dict, down: dict, sweeps: int) -> list[list]:
    order = [list(layer) for layer in layers]
    # Initial order: each level by the mean position of its upper neighbours.
    for i in range(1, len(order)):
        pos = {n: k for k, n in enumerate(order[i - 1])}
        order[i] = _sorted_by_barycenter(order[i], up, pos)
    best = [list(layer) for layer in order]
    best_count = _total_crossings(order, down)
    for sweep in range(sweeps):
        if best_count == 0:
            break
        if sweep % 2 == 0:
            for i in range(1, len(order)):
                pos = {n: k for k, n in enumerate(order[i - 1])}
                order[i] = _sorted_by_barycenter(order[i], up, pos)
        else:
            for i in range(len(order) - 2, -1, -1):
                pos = {n: k for k, n in enumerate(order[i + 1])}
                order[i] = _sorted_by_barycenter(order[i], down, pos)
        count = _total_crossings(order, down)
        if count < best_count:
            best_count = count
            best = [list(layer) for layer in order]
    return best


def _sorted_by_barycenter(layer: list, neighbours: dict, pos: dict) -> list:
    keyed = []
    for k, n in enumerate(layer):
        ps = [pos[m] for m in neighbours[n] if m in pos]
        keyed.append((sum(ps) / len(ps) if ps else float(k), k, n))
    keyed.sort(key=lambda t: (t[0], t[1]))
    return [n for _, _, n in keyed]


def _total_crossings(order: list[list], down: dict) -> int:
    pos = {n: i for layer in order for i, n in enumerate(layer)}
    return sum(_crossings(order[i], order[i + 1], down, pos) for i in range(len(order) - 1))


def _crossings(upper: list, lower: list, down: dict, pos: dict) -> int:
    """Edge crossings between two adjacent levels (sort + Fenwick tree)."""
    ends = []
    for n in upper:
        targets = sorted(pos[m] for m in down[n] if m in pos and pos.get(m) is not None)
        ends.extend(targets)
    size = len(lower)
    if size == 0 or not ends:
        return 0
    tree = [0] * (size + 1)
    count = 0
    for seen, p in enumerate(ends):
        # Count the ends already seen strictly to the right of p.
        i = p + 1
        le = 0
        while i > 0:
            le += tree[i]
            i -= i & -i
        count += seen - le
        i = p + 1
        while i <= size:
            tree[i] += 1
            i += i & -i
    return count


def _coordinates(order: list[list], up: dict, down: dict, width: dict, passes: int) -> dict:
    x: dict = {}
    for layer in order:
        cursor = 0.0
        for n in layer:
            x[n] = cursor + width[n] / 2
            cursor += width[n] + H_GAP
        shift = -cursor / 2
        for n in layer:
            x[n] += shift
    for p in range(passes):
        rng = range(1, len(order)) if p % 2 == 0 else range(len(order) - 2, -1, -1)
        nbrs = up if p % 2 == 0 else down
        for i in rng:
            layer = order[i]
            targets = []
            for n in layer:
                ns = nbrs[n]
                targets.append(sum(x[m] for m in ns) / len(ns) if ns else x[n])
            for n, v in zip(layer, _place(layer, targets, width), strict=True):
                x[n] = v
    return x


def _place(layer: list, targets: list[float], width: dict) -> list[float]:
    """Positions closest (least squares) to ``targets`` that keep the layer's
    order and gaps: isotonic regression by pool adjacent violators."""
    offsets = [0.0]
    for a, b in itertools.pairwise(layer):
        offsets.append(offsets[-1] + (width[a] + width[b]) / 2 + H_GAP)
    values = [t - o for t, o in zip(targets, offsets, strict=True)]
    blocks: list[tuple[float, int]] = []  # (sum, count) of each pooled block
    for v in values:
        total, count = v, 1
        while blocks and blocks[-1][0] / blocks[-1][1] > total / count:
            s, c = blocks.pop()
            total, count = total + s, count + c
        blocks.append((total, count))
    out: list[float] = []
    for s, c in blocks:
        out.extend([s / c] * c)
    return [y + o for y, o in zip(out, offsets, strict=True)]
