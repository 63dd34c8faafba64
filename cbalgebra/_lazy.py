"""Lazy re-exports for a package (PEP 562): a public name loads its submodule on first use.

``cbalgebra.network`` and ``cbalgebra.matchmaker`` re-export names whose
submodules import networkx, numpy or scipy; loading them lazily keeps those
out of every ``cbalgebra`` start.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any],
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__``: ``homes`` maps each public
    name to the submodule that defines it; a loaded name is kept in ``namespace``
    (the package's globals), so it is looked up once."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
