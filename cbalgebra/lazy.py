"""Lazy re-exports for a package (PEP 562): a public name loads its submodule on first use.

Every package of ``cbalgebra`` that re-exports names of heavier submodules
(numpy, networkx, scipy, numba, lark) does it with :func:`lazy_exports`, one
way, so that ``import cbalgebra`` and ``cbalgebra --help`` pay only for what
they use::

    if TYPE_CHECKING:  # what type checkers and readers see
        from .table import ForwardingTable

    __all__ = ["ForwardingTable"]
    __getattr__, __dir__ = lazy_exports(__name__, {"table": ("ForwardingTable",)}, globals())
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, homes: Mapping[str, Iterable[str]], namespace: dict[str, Any],
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__``.

    ``homes`` maps each submodule (relative to ``package``) to the public
    names it defines; the names listed under ``""`` are submodules, exported
    as modules (``cbalgebra.workloads``). A name is imported on first use and kept in
    ``namespace`` (the package's globals), so it is looked up once;
    ``dir(package)`` lists the loaded names and ``__all__``.
    """
    home_of = {name: home for home, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:
        home = home_of.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if home == "":
            value = importlib.import_module(f"{package}.{name}")
        else:
            value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
