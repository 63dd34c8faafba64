"""numba's on-disk cache, stamped with every source the kernels' machine code holds.

numba decides whether a cached function is fresh from the source of the file
that defines it, and nothing else. Our kernels are spread over several files
(split by phase) and compile in code and constants from elsewhere:
``_wire.forward_message`` holds the machine code of
``_message.match_message``, and every kernel holds the operator and type
codes of ``cbalgebra.values``. After an edit to ``_message.py`` alone, numba
would load the old ``forward_message`` for the unchanged ``_wire.py``, now
reading a table laid out differently: wrong
interface sets, not an error. (It happened: after the table's fields were
reordered, ``forward()`` on a warm cache returned ``[]`` for a matching
message.)

Importing this module (the kernel modules do it before their first ``njit``)
puts, in front of numba's own, cache locators that differ from them only in the
stamp: for a function defined in this package, the stamp is the digest of all
the package's Python sources and of the modules whose constants the kernels
read (:data:`STAMPED_MODULES`). Any edit to any of them makes every cached
kernel stale at once, which is what a change of table layout needs.

The locators are numba's own classes, subclassed; their names moved between
numba releases (``_InTreeCacheLocator`` before 0.60, ``InTreeCacheLocator``
after), so both spellings are looked up. If neither is there, the kernels are
compiled without a disk cache rather than risk a stale one. The same holds
when ``NUMBA_CACHE_LOCATOR_CLASSES`` is set: numba then uses the classes it
names instead of its list, ours included, so the stamp would not apply.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import warnings
from pathlib import Path
from typing import Any

from numba.core import caching

PACKAGE_DIRECTORY = Path(__file__).resolve().parent

# Modules outside this package whose values are frozen into the kernels'
# machine code as constants (operator and type codes, SFF's integer range),
# or whose intrinsics are (bit counting).
STAMPED_MODULES = ("cbalgebra.values", "cbalgebra.semantics", "cbalgebra.lexicon", "cbalgebra.bits")


def package_sources(directory: Path = PACKAGE_DIRECTORY) -> list[Path]:
    """The files whose contents make up the stamp, in a fixed order."""
    files = sorted(directory.glob("*.py"))
    for name in STAMPED_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            files.append(Path(spec.origin))
    return files


def sources_digest(files: list[Path]) -> str:
    """SHA-256 over each file's name and contents (names, so a file moved
    between the stamped set and elsewhere changes the digest too)."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def package_stamp() -> str:
    """The stamp of this process's kernels (computed once: sources edited
    while a process runs are not reloaded by it either)."""
    return sources_digest(package_sources())


def _in_package(py_file: str) -> bool:
    return Path(py_file).resolve().parent == PACKAGE_DIRECTORY


def _package_stamped(base: type) -> type:
    """A subclass of numba locator ``base`` that serves only this package's
    functions and adds :func:`package_stamp` to numba's per-file stamp."""

    class PackageStamped(base):
        def get_source_stamp(self) -> Any:
            return (super().get_source_stamp(), package_stamp())

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if not _in_package(py_file):
                return None
            return super().from_function(py_func, py_file)

    PackageStamped.__name__ = PackageStamped.__qualname__ = "PackageStamped" + base.__name__.lstrip("_")
    return PackageStamped


def _numba_class(name: str) -> Any:
    return getattr(caching, name, None) or getattr(caching, "_" + name, None)


def caching_locators() -> list[type]:
    """numba's list of locator classes, tried in order (ours first)."""
    impl = _numba_class("CacheImpl")
    return list(getattr(impl, "_locator_classes", []))


def _install() -> bool:
    impl = _numba_class("CacheImpl")
    names = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")
    bases = [_numba_class(name) for name in names]
    if impl is None or None in bases or not isinstance(getattr(impl, "_locator_classes", None), list):
        return False
    ours = [cls for cls in impl._locator_classes if getattr(cls, "_cbalgebra_stamped", False)]
    if not ours:
        ours = [_package_stamped(base) for base in bases]
        for cls in ours:
            cls._cbalgebra_stamped = True
        impl._locator_classes[:0] = ours
    return True


def _why_uncached() -> str | None:
    """Why the kernels cannot use numba's disk cache safely, or None."""
    from numba.core import config

    if getattr(config, "CACHE_LOCATOR_CLASSES", ""):
        return ("NUMBA_CACHE_LOCATOR_CLASSES is set, and numba's locators named there do not "
                "carry the package's stamp")
    if not _install():  # pragma: no cover - a numba release with other locator classes
        return "numba's cache locators were not found in this numba release"
    return None


#: ``njit`` options of a function that only compiled code calls: numba then
#: builds no entry for Python (nor a C one) beside its machine code. For a
#: function of many array arguments the Python entry, which unboxes and
#: checks each of them, is a large part of its compile time (0.7 s of a cold
#: first ``forward()`` over the dozen functions that have one). Python
#: cannot call such a function; a test calls it through an ``njit`` wrapper.
COMPILED_CALLERS_ONLY: dict[str, Any] = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}

# The ``cache=`` argument of every kernel's ``njit``.
UNCACHED_REASON = _why_uncached()
CACHE = UNCACHED_REASON is None
if not CACHE:
    warnings.warn(
        f"cbalgebra.matcher: {UNCACHED_REASON}; the kernels are compiled in each process, "
        "without a disk cache",
        RuntimeWarning,
        stacklevel=2,
    )
