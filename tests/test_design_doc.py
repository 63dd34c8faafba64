"""docs/design.md draws the packages as the code has them: its import diagram and API table are generated."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_package_diagram_is_the_code_s():
    result = subprocess.run([sys.executable, str(REPO / "tools" / "design.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_diagram_shows_the_walls_the_issue_drew():
    generated = subprocess.run([sys.executable, str(REPO / "tools" / "design.py"), "--print"],
                               capture_output=True, text=True, check=True).stdout
    edges = {line.split()[0] + " " + line.split()[-1] for line in generated.splitlines() if "->" in line}
    assert "poset network" not in edges  # the poset never imports the network
    assert "network poset" in edges
    assert not any(edge.startswith("core ") for edge in edges), edges  # the core values and parsers are a leaf
    assert not any(edge.endswith(" cli") and not edge.startswith("studies") for edge in edges), edges


def test_the_library_packages_import_each_other_without_a_cycle():
    """Layers, not a web: leaving out the command line and the facade, the package graph is acyclic."""
    import graphlib
    import importlib.util

    sys.path.insert(0, str(REPO / "tools"))
    spec = importlib.util.spec_from_file_location("design", REPO / "tools" / "design.py")
    design = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(design)
    graph: dict[str, set[str]] = {}
    for importer, imported in design.unit_graph():
        if design.CLI not in (importer, imported) and design.FACADE not in (importer, imported):
            graph.setdefault(importer, set()).add(imported)
    order = list(graphlib.TopologicalSorter(graph).static_order())  # raises CycleError on a cycle
    assert order.index("cbalgebra") < order.index("cbalgebra.covering") < order.index("cbalgebra.poset")
