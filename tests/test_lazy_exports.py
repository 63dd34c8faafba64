"""One lazy-export helper (issue 25 §3): every package that re-exports names
of heavier submodules does it with ``cbalgebra.lazy.lazy_exports``; each
name in ``__all__`` resolves, is listed by ``dir()``, and loads nothing
heavy before it is named."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cbalgebra.lazy import lazy_exports

ROOT = Path(__file__).resolve().parent.parent

#: package -> (its source file, modules that must not load with it)
LAZY_PACKAGES = {
    "cbalgebra": ("cbalgebra/__init__.py",
                  ("cbalgebra.reducers", "cbalgebra.poset", "cbalgebra.workloads", "numpy", "sympy")),
    "cbalgebra.workloads": ("cbalgebra/workloads/__init__.py", ("numpy",)),
    "cbalgebra.network": ("cbalgebra/network/__init__.py", ("networkx", "numpy", "scipy")),
    "cbalgebra.matchmaker": ("cbalgebra/matchmaker/__init__.py", ("networkx",)),
    "cbalgebra.matcher": ("matcher/__init__.py", ("numba", "numpy")),
    "cbalgebra.studies": ("studies/__init__.py", ("pyspark", "sympy", "pandas")),
}


def _module_getattr_definitions(path: Path) -> list[str]:
    """How a package file defines its module ``__getattr__``: 'def' or the helper's name."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            found.append("def")
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            targets = [t for target in node.targets for t in getattr(target, "elts", [target])]
            if any(getattr(t, "id", "") == "__getattr__" for t in targets):
                found.append(getattr(node.value.func, "id", "?"))
    return found


@pytest.mark.parametrize("package", sorted(LAZY_PACKAGES))
def test_one_style_everywhere(package):
    assert _module_getattr_definitions(ROOT / LAZY_PACKAGES[package][0]) == ["lazy_exports"]


def test_no_package_file_defines_its_own_getattr():
    for path in [*ROOT.glob("cbalgebra/**/__init__.py"), *ROOT.glob("*/__init__.py")]:
        if ".venv" in path.parts:
            continue
        assert "def" not in _module_getattr_definitions(path), path


@pytest.mark.parametrize("package", sorted(LAZY_PACKAGES))
def test_every_public_name_resolves_and_is_listed(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = module.no_such_name


@pytest.mark.parametrize("package", sorted(LAZY_PACKAGES))
def test_importing_a_package_loads_nothing_heavy(package):
    heavy = LAZY_PACKAGES[package][1]
    program = f"import json, sys, {package}\nprint(json.dumps([m for m in {list(heavy)!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(done.stdout) == []


def test_the_workloads_export_what_their_generators_declare():
    from cbalgebra import workloads
    from cbalgebra.workloads import _dnf, _forwarding, _intervals

    assert set(workloads.__all__) == set(_dnf.__all__) | set(_forwarding.__all__) | set(_intervals.__all__)


def test_a_name_is_imported_once_and_kept():
    namespace: dict = {"__all__": ["sqrt"]}
    getattr_, dir_ = lazy_exports("os", {"path": ("join",)}, namespace)
    with pytest.raises(AttributeError):
        getattr_("sqrt")  # listed but without a home: still an AttributeError, not a KeyError
    assert getattr_("join") is importlib.import_module("os.path").join
    assert namespace["join"] is importlib.import_module("os.path").join
    assert dir_() == ["__all__", "join", "sqrt"]


def test_submodules_listed_under_the_empty_home_are_modules():
    import cbalgebra
    from cbalgebra import workloads

    getattr_, _ = lazy_exports("os", {"": ("path",)}, {})
    assert getattr_("path") is importlib.import_module("os.path")
    assert cbalgebra.workloads is workloads and callable(workloads.forwarding)


def test_a_name_shared_with_its_submodule_is_the_name():
    # cbalgebra.network.topology (the function) lives in cbalgebra.network.topology (the module)
    code = "from cbalgebra.network import topology; print(callable(topology) and type(topology).__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "function"
