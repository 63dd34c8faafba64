"""The package walls and size limits of tools/boundaries.py: it finds planted violations, and the package has none."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "tools" / "boundaries.py"


def load_tool():
    spec = importlib.util.spec_from_file_location("boundaries", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules["boundaries"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


boundaries = load_tool()


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


#: A poset package with a private name, a private module and a class with private slots and attributes.
POSET = {
    "cbalgebra/__init__.py": "",
    "cbalgebra/poset/__init__.py": "from cbalgebra.poset.core import Poset\n",
    "cbalgebra/poset/_index.py": "TABLE = {}\n",
    "cbalgebra/poset/core.py": """
        _SECRET = 1

        class Poset:
            __slots__ = ("_by_value", "size")

            def __init__(self):
                self._by_value = {}
                self.size = 0

            def _coerce(self, x):
                return x

            def elements(self):
                return list(self._by_value)
        """,
}


def rules(root: Path) -> list[str]:
    return [line for _, line in boundaries.findings(root)]


def test_a_clean_tree_has_no_findings(tmp_path):
    root = plant(tmp_path, {**POSET, "cbalgebra/network/siena.py": """
        from cbalgebra.poset import Poset

        def size(p: Poset) -> int:
            return len(p.elements())
        """})
    assert rules(root) == []


@pytest.mark.parametrize(("source", "rule", "where"), [
    ("from cbalgebra.poset.core import _SECRET\n", "WALL1", "_SECRET"),
    ("from cbalgebra.poset._index import TABLE\n", "WALL1", "cbalgebra.poset._index"),
    ("import cbalgebra.poset._index\n", "WALL1", "cbalgebra.poset._index"),
    ("from ..poset.core import _SECRET\n", "WALL1", "_SECRET"),
    ("def peek(p):\n    return p._by_value\n", "WALL2", "_by_value"),
    ("def peek(server):\n    return server.poset._coerce(1)\n", "WALL2", "_coerce"),
    ("from cbalgebra.poset import core\n\ndef peek():\n    return core._SECRET\n", "WALL2", "_SECRET"),
])
def test_a_planted_violation_is_found(tmp_path, source, rule, where):
    root = plant(tmp_path, {**POSET, "cbalgebra/network/siena.py": source})
    found = rules(root)
    assert len(found) == 1, found
    assert found[0].startswith("cbalgebra/network/siena.py:")
    assert f" {rule} " in found[0] and where in found[0]


def test_a_unit_reads_its_own_private_attributes(tmp_path):
    root = plant(tmp_path, {**POSET, "cbalgebra/poset/search.py": """
        from cbalgebra.poset.core import _SECRET

        def peek(p):
            return p._by_value, p._coerce(_SECRET)
        """})
    assert rules(root) == []


def test_sizes_are_limited(tmp_path):
    long_function = "def f():\n" + "    x = 1\n" * 130
    root = plant(tmp_path, {**POSET, "cbalgebra/poset/big.py": long_function + "\n" * 700})
    found = rules(root)
    assert [line.split()[1] for line in found] == ["SIZE1", "SIZE2"], found


def test_the_command_fails_on_a_violation_and_names_it(tmp_path):
    root = plant(tmp_path, {**POSET, "cbalgebra/network/siena.py": "def peek(p):\n    return p._by_value\n"})
    result = subprocess.run([sys.executable, str(TOOL), "--repo", str(root)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "cbalgebra/network/siena.py:2:12: WALL2 reads ._by_value, private to cbalgebra.poset" in result.stdout


def test_the_package_keeps_its_walls():
    assert rules(REPO) == []


def mapped_folders() -> tuple[str, ...]:
    import tomllib

    with open(REPO / "pyproject.toml", "rb") as pyproject:
        return tuple(tomllib.load(pyproject)["tool"]["cbalgebra"]["mapped-folders"])


@pytest.mark.parametrize("folder", mapped_folders())
def test_a_mapped_folder_is_importable_under_its_installed_name_only(folder):
    """From the repository's root ``reducers/`` is also a top-level package on ``sys.path``;
    a second name would load a second copy of every module, so it is refused with the right name."""
    as_folder = subprocess.run([sys.executable, "-c", f"import {folder}"], cwd=REPO, capture_output=True, text=True)
    assert as_folder.returncode == 1
    assert f"ImportError: {folder} is cbalgebra.{folder}: import it under that name" in as_folder.stderr
    installed = subprocess.run([sys.executable, "-c", f"import cbalgebra.{folder}"], cwd=REPO,
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
