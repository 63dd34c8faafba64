"""The repository's layout as the package installs it, read from pyproject.toml (one declaration).

``grammar/``, ``reducers/``, ``matcher/`` and ``studies/`` sit beside ``cbalgebra/``
and install as ``cbalgebra.grammar`` and so on: ``[tool.cbalgebra] mapped-folders``
lists them, and setup.py, tools/lint, tools/boundaries.py and the benchmarks read
that list from here rather than spelling it again. tools/lint (for mypy) and the docs site's
hooks (for mkdocstrings, which reads sources, not the installed package) lay the source tree out
as installed with :func:`lay_out_installed_package`.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

with open(REPO / "pyproject.toml", "rb") as _pyproject:
    #: Folders beside ``cbalgebra/`` that are installed as its subpackages.
    MAPPED_FOLDERS: tuple[str, ...] = tuple(tomllib.load(_pyproject)["tool"]["cbalgebra"]["mapped-folders"])

#: Source folder -> the package it is installed as.
ROOTS: dict[str, str] = {"cbalgebra": "cbalgebra", **{folder: f"cbalgebra.{folder}" for folder in MAPPED_FOLDERS}}


def lay_out_installed_package(scratch: Path) -> Path:
    """Symbolic links that give ``scratch/cbalgebra`` the installed package's layout."""
    package = scratch / "cbalgebra"
    package.mkdir()
    for entry in (REPO / "cbalgebra").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for folder in MAPPED_FOLDERS:
        (package / folder).symlink_to(REPO / folder)
    return package


def write_generated(path: Path, text: str, *, check: bool, command: str) -> int:
    """Write a page generated from the code; with ``check``, write nothing and
    return 1 (naming ``command``, which regenerates it) when the page differs."""
    if check:
        if path.read_text(encoding="utf-8") != text:
            print(f"{path.relative_to(REPO)} is out of date: run {command}", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    return 0
