"""One fingerprint of the code a study's numbers depend on.

A study writes it into its manifest, and a rerun into the same output folder
refuses to mix results made by other code (``runner.COMPATIBILITY_KEYS``).

The hash is over what the code *does*, not how it is written: each Python
file is parsed and printed back without its docstrings, comments, type
annotations and formatting. So a lint pass, a new citation or a typing fix
keeps committed results resumable, while any change to an expression,
a constant or a control path changes the fingerprint. Data files (the DNF
generator's word list) are hashed byte for byte.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
from collections.abc import Iterable, Sequence
from pathlib import Path

#: Files of a package that cannot change a cell's numbers: command lines and pictures.
PRESENTATION_FILES = frozenset({"cli.py", "draw.py", "__main__.py"})


def code_fingerprint(label: str, modules: Sequence[str], data_folders: Iterable[str] = ()) -> str:
    """16 hex digits over ``label`` (the study and its model version), the
    behaviour of each module in ``modules`` (a package means all its Python
    files but the PRESENTATION_FILES), and every file of the ``data_folders``
    (paths relative to a module's folder, as ``"cbalgebra.workloads:data"``)."""
    digest = hashlib.sha256(label.encode())
    for path in _python_files(modules):
        digest.update(path.name.encode())
        digest.update(behaviour(path.read_text(encoding="utf-8")).encode())
    for spec in data_folders:
        module, _, folder = spec.partition(":")
        root = _module_path(module).parent / folder
        for path in sorted(p for p in root.iterdir() if p.is_file()):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def behaviour(source: str) -> str:
    """The source printed back from its syntax tree without docstrings and type annotations."""
    tree = _Strip().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree))


class _Strip(ast.NodeTransformer):
    """Drops docstrings and annotations; keeps everything that runs."""

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:] or [ast.Pass()]
        return body

    def visit_Module(self, node: ast.Module) -> ast.Module:
        node.body = self._body(node.body)
        self.generic_visit(node)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        node.body = self._body(node.body)
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.body = self._body(node.body)
        node.returns = None
        self.generic_visit(node)
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AsyncFunctionDef:
        node.body = self._body(node.body)
        node.returns = None
        self.generic_visit(node)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        # The name stays (in a dataclass it declares a field); its type goes.
        node.annotation = ast.Name("_", ast.Load())
        if node.value is not None:
            node.value = self.visit(node.value)
        return node


def _module_path(module: str) -> Path:
    origin = importlib.import_module(module).__file__
    if origin is None:
        raise ValueError(f"{module} has no source file")
    return Path(origin)


def _python_files(modules: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for module in modules:
        path = _module_path(module)
        if path.name == "__init__.py":
            files.extend(p for p in sorted(path.parent.rglob("*.py")) if p.name not in PRESENTATION_FILES)
        else:
            files.append(path)
    return files
