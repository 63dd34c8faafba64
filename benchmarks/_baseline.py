"""Run benchmark code against a baseline revision, side by side with this checkout.

An A/B benchmark times the same work in child processes, some importing this
checkout's ``cbalgebra`` and some importing the baseline's. The baseline is a
git revision (by default where this branch left ``main``): :func:`extracted`
unpacks its tree with ``git archive`` into a scratch folder and lays it out as
the installed package (``cbalgebra/`` with ``grammar/``, ``reducers/``,
``matcher/`` and ``studies/`` inside it, as setup.py maps them), so nothing is
installed and the editable install of this checkout stays as it is.

A child imports the baseline when that folder is first on ``PYTHONPATH`` and
the child's working folder is not this checkout (``python -m`` and ``-c`` put
the working folder first on ``sys.path``): :func:`environment` and
:func:`working_folder` give both. The editable install's import hook comes
after the path entries, so it is not consulted. Children that print one JSON
object as their last line can be run with :func:`run_json`, which also checks
that the child imported the package it was meant to (``"package"`` holds the
child's ``cbalgebra.__file__``; see :func:`imported_package`).

Used by cliffs_covering.py, cliffs_parse.py, cliffs_reduce_poset.py,
cliffs_regression_ab.py and vocabulary_ab.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Folders beside ``cbalgebra/`` that are installed as its subpackages (as in setup.py).
MAPPED_FOLDERS = ("grammar", "reducers", "matcher", "studies")


def default_ref() -> str:
    """The commit where this branch left ``main`` (``git merge-base HEAD main``)."""
    return subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"],
                          check=True, capture_output=True, text=True).stdout.strip()


def extract(ref: str, into: Path) -> Path:
    """``ref``'s package laid out as installed under ``into``; returns the folder to import it from.

    Older trees kept every subpackage inside ``cbalgebra/``; a mapped folder is
    moved in only where the tree has it beside ``cbalgebra/``.
    """
    tree = into / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    package_root = into / "package"
    shutil.copytree(tree / "cbalgebra", package_root / "cbalgebra")
    for folder in MAPPED_FOLDERS:
        if (tree / folder).is_dir() and not (package_root / "cbalgebra" / folder).exists():
            shutil.copytree(tree / folder, package_root / "cbalgebra" / folder)
    shutil.rmtree(tree)
    return package_root


@contextlib.contextmanager
def extracted(ref: str) -> Iterator[Path]:
    """:func:`extract` into a temporary folder, removed on leaving the block."""
    with tempfile.TemporaryDirectory(prefix="cbalgebra-baseline-") as scratch:
        yield extract(ref, Path(scratch))


def environment(package_root: Path | None, **extra: str) -> dict[str, str]:
    """The environment of a child importing the package at ``package_root`` (None: this checkout)."""
    env = {**os.environ, **extra}
    if package_root is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(package_root), os.environ.get("PYTHONPATH")) if p)
    return env


def working_folder(package_root: Path | None) -> Path:
    """Where such a child runs: outside this checkout for the baseline, so that it does not shadow it."""
    return package_root if package_root is not None else ROOT


def imported_package(result: dict[str, Any], package_root: Path | None) -> dict[str, Any]:
    """``result`` without its ``"package"`` entry, after checking that the child imported
    ``cbalgebra`` from ``package_root`` (None: this checkout)."""
    expected = package_root if package_root is not None else ROOT
    package = Path(result.pop("package"))
    if not package.resolve().is_relative_to(expected.resolve()):
        raise RuntimeError(f"the child imported {package}, expected a package under {expected}")
    return result


def run_json(argv: Sequence[str], package_root: Path | None, *, timeout: float | None = None,
             **env: str) -> dict[str, Any] | None:
    """Run ``argv`` importing the package at ``package_root`` (None: this checkout) and return
    the JSON object on its last line of output; None when it runs past ``timeout`` seconds.

    When the object has a ``"package"`` entry, it must name a file of that package."""
    try:
        done = subprocess.run(list(argv), env=environment(package_root, **env), cwd=working_folder(package_root),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if "package" in result:
        result = imported_package(result, package_root)
    return result
