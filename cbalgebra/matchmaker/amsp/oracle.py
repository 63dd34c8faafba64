"""The static oracle of the installed MCDs, computed directly from the world.

For every publisher x, every receiver y of x, every live PCD of x and every
live SCD of y whose squares overlap (``cbalgebra.covering.overlaps``, through
:func:`~cbalgebra.matchmaker.amsp.regions.intersection`), the MCD belongs on
every node of the data path from x to y in x's tree, endpoints included.
No index, no cache: every pair is decided by the algebra.
"""

from __future__ import annotations

from typing import Any

from cbalgebra.matchmaker.amsp.overlay import Overlay
from cbalgebra.matchmaker.amsp.regions import intersection, square_filter
from cbalgebra.values import Filter

__all__ = ["cd_filter", "expected_mcds"]


def cd_filter(cell: tuple[int, int], grid: int, half: int = 1) -> Filter:
    """The CD of an entity at ``cell``: the (2·half + 1)² square around it, clipped to the grid."""
    cx, cy = cell
    return square_filter(max(0, cx - half), min(grid - 1, cx + half), max(0, cy - half), min(grid - 1, cy + half))


def expected_mcds(overlay: Overlay, apps: Any, grid: int, half: int = 1) -> dict[Any, set[tuple[int, int, Filter]]]:
    """Per node, the (PCD id, SCD id, MCD) that should be installed, given the applications' live entities."""
    pcds: dict[Any, dict[int, Filter]] = {}
    scds: dict[Any, dict[int, Filter]] = {}
    for app in apps:
        table = pcds if app.kind == "P" else scds
        table[app.node] = {eid: cd_filter(cell, grid, half) for eid, cell in app.live.items()}
    expected: dict[Any, set[tuple[int, int, Filter]]] = {n: set() for n in overlay.nodes}
    for x in overlay.publishers:
        for y in sorted(overlay.receivers[x], key=overlay.nodes.index):
            path = overlay.path_nodes(x, y)
            for p, pf in pcds.get(x, {}).items():
                for s, sf in scds.get(y, {}).items():
                    region = intersection(pf, sf)
                    if region is not None:
                        for n in path:
                            expected[n].add((p, s, region))
    return expected
