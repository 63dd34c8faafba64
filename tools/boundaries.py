#!/usr/bin/env python3
"""The package walls and size limits, checked on the source (an AST scan; nothing is imported).

    tools/boundaries.py            print every finding; exit 1 if there is any
    tools/boundaries.py --counts   print the number of findings per rule

The units are the packages ``cbalgebra.covering``, ``poset``, ``network``,
``matchmaker`` (with ``amsp``), ``workloads``, ``matcher``, ``reducers``,
``studies``, ``grammar`` and the *core*: the modules directly inside
``cbalgebra/``. A unit speaks to another only through its public names:

- WALL1: ``from X import _name`` or an import of a private module (``X._mod``)
  of another unit;
- WALL2: a read of ``obj._name`` where ``_name`` is a private attribute that
  only another unit defines (assigned as ``self._name``, listed in
  ``__slots__``, or defined in a class body) or where ``obj`` is a module of
  another unit. A unit may read its own private attributes on any object;
- SIZE1: a module over 800 lines; SIZE2: a function (numba kernels included)
  over 120 lines.

Dunder names are public. ``tools/lint`` runs this check with ruff and mypy.
"""

from __future__ import annotations

import argparse
import ast
import collections
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layout import MAPPED_FOLDERS, REPO, ROOTS  # tools/ is not a package: its sibling is on sys.path

#: The subpackages of ``cbalgebra`` that are units of their own; every other module is in the core.
UNITS = frozenset({"covering", "poset", "network", "matchmaker", "workloads", *MAPPED_FOLDERS})
#: Folders that hold data, not code.
SKIPPED = frozenset({"results", "__pycache__", "data", "assets"})
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 120


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def unit_of(module: str) -> str:
    """``cbalgebra.poset.core`` -> ``cbalgebra.poset``; ``cbalgebra.parse`` -> ``cbalgebra``."""
    parts = module.split(".")
    return f"cbalgebra.{parts[1]}" if len(parts) > 1 and parts[1] in UNITS else "cbalgebra"


def installed_name(dotted: str) -> str:
    """A module name as the package installs it: ``reducers.x`` -> ``cbalgebra.reducers.x``."""
    head, _, rest = dotted.partition(".")
    if head in ROOTS and head != "cbalgebra":
        return ROOTS[head] + ("." + rest if rest else "")
    return dotted


@dataclass(frozen=True)
class Module:
    path: Path
    name: str
    tree: ast.Module
    lines: int

    @property
    def unit(self) -> str:
        return unit_of(self.name)


def modules(repo: Path = REPO) -> Iterator[Module]:
    for folder, package in ROOTS.items():
        for path in sorted((repo / folder).rglob("*.py")):
            relative = path.relative_to(repo / folder)
            if SKIPPED & set(relative.parts[:-1]):
                continue
            parts = [p for p in relative.with_suffix("").parts if p != "__init__"]
            text = path.read_text(encoding="utf-8")
            yield Module(path, ".".join([package, *parts]), ast.parse(text, str(path)), len(text.splitlines()))


def resolve(module: Module, node: ast.ImportFrom) -> str:
    """The absolute, installed name an ``ImportFrom`` imports from."""
    if not node.level:
        return installed_name(node.module or "")
    package = module.name.split(".")
    if module.path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def defined_private_attributes(module: Module) -> set[str]:
    """Private attribute names this module defines: ``self._x = ...``, ``__slots__`` entries, class-body names."""
    names: set[str] = set()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and is_private(node.attr):
            names.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and is_private(statement.name):
                    names.add(statement.name)
                targets = statement.targets if isinstance(statement, ast.Assign) else (
                    [statement.target] if isinstance(statement, ast.AnnAssign) else [])
                for target in targets:
                    if isinstance(target, ast.Name):
                        if is_private(target.id):
                            names.add(target.id)
                        if target.id == "__slots__" and statement.value is not None:
                            for constant in ast.walk(statement.value):
                                if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
                                    names.add(constant.value)
    return {name for name in names if is_private(name)}


def wall_findings(all_modules: list[Module]) -> Iterator[tuple[Module, int, int, str, str]]:
    names = {m.name for m in all_modules}
    owners: dict[str, set[str]] = collections.defaultdict(set)
    for m in all_modules:
        for attribute in defined_private_attributes(m):
            owners[attribute].add(m.unit)
    for m in all_modules:
        module_aliases: dict[str, str] = {}  # a local name bound to another unit's module
        for node in ast.walk(m.tree):
            if isinstance(node, ast.ImportFrom):
                source = resolve(m, node)
                if not source.startswith("cbalgebra") or unit_of(source) == m.unit:
                    continue
                private_path = [p for p in source.split(".")[1:] if is_private(p)]
                private_names = [a.name for a in node.names if is_private(a.name)]
                if private_path or private_names:
                    what = ", ".join(private_names) or source
                    owner = unit_of(source)
                    yield m, node.lineno, node.col_offset, "WALL1", f"imports {what} from {source}, private to {owner}"
                for alias in node.names:
                    if f"{source}.{alias.name}" in names:
                        module_aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    target = installed_name(alias.name)
                    if not target.startswith("cbalgebra") or unit_of(target) == m.unit:
                        continue
                    if any(is_private(p) for p in target.split(".")):
                        owner = unit_of(target)
                        yield m, node.lineno, node.col_offset, "WALL1", f"imports {target}, private to {owner}"
                    if alias.asname:
                        module_aliases[alias.asname] = target
        for node in ast.walk(m.tree):
            if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
                continue
            base = node.value
            if isinstance(base, ast.Name) and base.id in module_aliases:
                yield m, node.lineno, node.col_offset, "WALL2", f"reads {node.attr} of {module_aliases[base.id]}"
            elif owners.get(node.attr) and m.unit not in owners[node.attr]:
                owner = ", ".join(sorted(owners[node.attr]))
                yield m, node.lineno, node.col_offset, "WALL2", f"reads .{node.attr}, private to {owner}"


def size_findings(all_modules: list[Module]) -> Iterator[tuple[Module, int, int, str, str]]:
    for m in all_modules:
        if m.lines > MAX_MODULE_LINES:
            yield m, 1, 0, "SIZE1", f"module of {m.lines} lines (at most {MAX_MODULE_LINES})"
        for node in ast.walk(m.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                length = (node.end_lineno or node.lineno) - first + 1
                if not isinstance(node, ast.ClassDef) and length > MAX_FUNCTION_LINES:
                    yield m, node.lineno, node.col_offset, "SIZE2", (
                        f"function {node.name} of {length} lines (at most {MAX_FUNCTION_LINES})")


def findings(repo: Path = REPO) -> list[tuple[str, str]]:
    """``(rule, "path:line:col: RULE message")`` for every violation, in path order."""
    all_modules = list(modules(repo))
    rows = []
    for m, line, column, rule, message in [*wall_findings(all_modules), *size_findings(all_modules)]:
        rows.append((rule, f"{m.path.relative_to(repo)}:{line}:{column + 1}: {rule} {message}"))
    return sorted(set(rows), key=lambda row: row[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", action="store_true", help="print the number of findings per rule")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to scan (default: this one)")
    args = parser.parse_args(argv)
    rows = findings(args.repo)
    if args.counts:
        for rule, n in sorted(collections.Counter(rule for rule, _ in rows).items()):
            print(f"{rule} {n}")
    else:
        for _, line in rows:
            print(line)
    print(f"boundaries: {len(rows)} finding(s)")
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
