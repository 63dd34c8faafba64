"""Package discovery for cbalgebra's layout; all other metadata is in pyproject.toml.

The core lives in ``cbalgebra/``; four folders beside it are subpackages of
``cbalgebra`` (``grammar/`` is ``cbalgebra.grammar``, and so on for
``reducers/``, ``matcher/`` and ``studies/``). ``[tool.setuptools.packages.find]``
names a package after its folder, so it cannot put those folders under
``cbalgebra``; this script finds the packages in each root and names them
in the ``cbalgebra`` namespace. A new subpackage or data folder anywhere in
these roots is picked up without editing a list.

Data folders (``cbalgebra/poset/assets``, ``cbalgebra/workloads/data``) are
found as namespace packages, so that setuptools ships them as packages of
their own (rather than warning that an importable folder holds data but is
not a package); ``package-data`` in pyproject.toml says which files they hold.
"""

import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup

#: Folders beside ``cbalgebra/`` that are subpackages of ``cbalgebra`` (declared once, in pyproject.toml).
with open(Path(__file__).resolve().parent / "pyproject.toml", "rb") as pyproject:
    MAPPED_FOLDERS = tuple(tomllib.load(pyproject)["tool"]["cbalgebra"]["mapped-folders"])

#: Folders that hold no shipped code or data: caches and the studies' committed results.
NOT_PACKAGES = ("__pycache__", "*.__pycache__", "results", "results.*")


def discover(root: str, name: str) -> list[str]:
    """``name`` and every package below the folder ``root``, named under ``name``."""
    return [name] + [f"{name}.{sub}" for sub in find_namespace_packages(root, exclude=NOT_PACKAGES)]


PACKAGE_DIR = {"cbalgebra": "cbalgebra", **{f"cbalgebra.{folder}": folder for folder in MAPPED_FOLDERS}}

setup(
    package_dir=PACKAGE_DIR,
    packages=[package for name, root in PACKAGE_DIR.items() for package in discover(root, name)],
)
