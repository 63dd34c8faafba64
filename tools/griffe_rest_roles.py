"""A Griffe extension for the API reference: the docstrings' reST roles become links.

The docstrings cross-reference each other the Sphinx way (``:func:`reduce```, ``:class:`Poset```,
``:meth:`~Poset.add```), which mkdocstrings prints as they are: a stray ``:func:`` before the name.
This extension rewrites each role, when the docs are built, into what the site can show:

- a link (``[`reduce`][cbalgebra.reducers.reduce]``, an autorefs cross-reference) when the name is
  on the site: exported by one of the API pages' packages (their ``__all__``), or a public member of
  such an object;
- otherwise plain code (`` `name` ``): the name is private, or lives on no API page.

A name is resolved the way Python would from where the docstring sits (the object's own members,
then its enclosing class and module, with their imports followed), or as written when it is a full
dotted path. ``~`` shows only the last part, as in Sphinx. The sources keep their reST: they read
well in ``help()`` and in editors, and the site shows links.

mkdocs.yml lists it under the Python handler's ``extensions``.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import griffe

DOCS_API = Path(__file__).resolve().parent.parent / "docs" / "api"
# one Sphinx role: :func:`name`, :py:class:`~pkg.Name`, :meth:`title <target>` (title dropped)
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|data|const|mod|exc|obj):`(~?)([^`<]*?)\s*(?:<([^`>]+)>)?`")
# an API page's directive: `::: cbalgebra.covering`
AUTODOC = re.compile(r"^::: ([\w.]+)[ \t]*$", re.M)


def api_modules() -> list[str]:
    """The packages the API reference shows, one per page of docs/api/."""
    return [name for page in sorted(DOCS_API.glob("*.md")) for name in AUTODOC.findall(page.read_text("utf-8"))]


def member(root: griffe.Object, path: str) -> griffe.Object | griffe.Alias | None:
    """The object at a dotted ``path`` below ``root`` (whose own path is its first part), or None."""
    parts = path.split(".")
    if parts[0] != root.path:
        return None
    node: griffe.Object | griffe.Alias = root
    for part in parts[1:]:
        try:
            node = node.members[part]
        except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
    return node


def canonical(node: griffe.Object | griffe.Alias) -> str:
    """Where an object is defined: an alias (an import) points at its target."""
    return node.target_path if isinstance(node, griffe.Alias) else node.path


def public_places(root: griffe.Module) -> dict[str, str]:
    """Each exported object's defining path → the path the site shows it under."""
    pages = api_modules()
    places: dict[str, str] = {}
    for module_path in pages:
        try:
            runtime = importlib.import_module(module_path)
        except ModuleNotFoundError:  # a directive naming a function or class, not a module
            continue
        module = member(root, module_path)
        if module is None:
            continue
        places.setdefault(module_path, module_path)
        for name in runtime.__all__:
            defined = _defined_at(getattr(runtime, name, None))
            if defined is None:  # a constant: where the import says it comes from
                node = module.members.get(name)
                defined = canonical(node) if node is not None else None
            if defined is not None:
                # a function shadowing its module's name has a page directive of its own
                places.setdefault(defined, defined if defined in pages else f"{module_path}.{name}")
    return places


def _defined_at(obj: object) -> str | None:
    """Where a function or class is defined, from the object itself (``__module__.__qualname__``)."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and not isinstance(obj, type(importlib)):
        return f"{module}.{qualname}"
    return None


def resolve(name: str, where: griffe.Object) -> str | None:
    """The defining path of ``name`` as seen from the docstring of ``where``, or None."""
    name = name.strip().lstrip(".")
    first, _, rest = name.partition(".")
    scope: griffe.Object | None = where
    while scope is not None:
        found = scope.members.get(first) if first else None
        if found is not None:
            return canonical(found) + (f".{rest}" if rest else "")
        scope = scope.parent
    return name if "." in name else None


def site_path(path: str, places: dict[str, str], root: griffe.Module) -> str | None:
    """The path of ``path``'s object on the site, if the site shows it: an API page's package, an
    object it exports, or a public member of an exported class (classes show their members)."""
    if path in places:
        return places[path]
    owner, _, attribute = path.rpartition(".")
    if owner not in places or attribute.startswith("_"):
        return None
    shown_owner = member(root, places[owner])
    if shown_owner is None or not shown_owner.is_class or attribute not in shown_owner.members:
        return None
    return f"{places[owner]}.{attribute}"


def rewrite(text: str, where: griffe.Object, places: dict[str, str], root: griffe.Module) -> str:
    """``text`` with each reST role a cross-reference (when the site shows its target) or code."""

    def one(match: re.Match[str]) -> str:
        short, written, target = match.group(1), match.group(2).strip(), match.group(3)
        name = (target or written).strip()
        shown = name.rsplit(".", 1)[-1] if short else (written or name)
        path = resolve(name.lstrip("~"), where)
        on_site = site_path(path, places, root) if path else None
        return f"[`{shown}`][{on_site}]" if on_site else f"`{shown}`"

    return ROLE.sub(one, text)


def documented(node: griffe.Object) -> Iterator[griffe.Object]:
    """``node`` and every object defined below it (imports are their target's business)."""
    yield node
    for child in node.members.values():
        if not isinstance(child, griffe.Alias):
            yield from documented(child)


class RestRoles(griffe.Extension):
    """Rewrite the docstrings' reST roles once the package is loaded (see the module's docstring)."""

    def on_package(self, *, pkg: griffe.Module, **_: object) -> None:
        places = public_places(pkg)
        for node in documented(pkg):
            if node.docstring is not None and ":`" in node.docstring.value:
                node.docstring.value = rewrite(node.docstring.value, node, places, pkg)
