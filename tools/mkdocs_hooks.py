"""mkdocs hooks of the documentation site (mkdocs.yml `hooks:`).

- The front page is the README itself, so there is one source for it: docs/index.md only names
  it, and the README is served in its place, with its `docs/...` links (right on the repository's
  front page) turned into the site's links (relative to docs/).
- The guides show the committed figures of the studies and benchmarks where they live
  (`../../studies/results/...`, right when the Markdown is read in the repository). Such a link
  leaves docs/, so the site copies its target under `repo/` and points the link there.
- The API reference (docs/api/*.md, one `::: package` line each) is read by mkdocstrings from the
  sources, which do not sit as they install (`matcher/` is `cbalgebra.matcher`): the build lays the
  installed package out in a scratch folder of symbolic links (tools/layout.py) and reads it
  there. Each page shows exactly the package's `__all__` (the hook lists it as `members`).
"""

from __future__ import annotations

import importlib
import posixpath
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layout import lay_out_installed_package  # tools/ is not a package: its siblings are on sys.path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REPO_COPY = "repo"  # where the site keeps the repository files the pages link to
# a Markdown link or image target that starts in docs/: `](docs/guide/x.md)` -> `](guide/x.md)`
DOCS_LINK = re.compile(r"\]\(docs/")
# a relative Markdown link or image target: `](../../studies/results/x.png)`
RELATIVE_LINK = re.compile(r"\]\(((?:\.\./)+)([^)#\s]+)")
# an API page's directive: `::: cbalgebra.covering`
AUTODOC = re.compile(r"^::: ([\w.]+)[ \t]*$", re.M)
# the scratch folder holding the package laid out as installed, for this build
_layout: list[Path] = []


def readme_as_index(readme: str) -> str:
    """The README's Markdown with its links into docs/ made relative to docs/ (the site's root)."""
    return DOCS_LINK.sub("](", readme)


def outside_target(page_uri: str, ups: str, rest: str) -> str | None:
    """The repository path (from its root) a page's link points to when it leaves docs/, else None."""
    joined = posixpath.normpath(posixpath.join("docs", posixpath.dirname(page_uri), ups + rest))
    if joined.startswith(("docs/", "../")) or not (ROOT / joined).is_file():
        return None
    return joined


def link_out_of_docs(markdown: str, page_uri: str) -> str:
    """`markdown` with each link that leaves docs/ pointed at the site's copy under `repo/`."""
    depth = page_uri.count("/")

    def repoint(match: re.Match[str]) -> str:
        target = outside_target(page_uri, match.group(1), match.group(2))
        if target is None:
            return match.group(0)
        return "](" + "../" * depth + f"{REPO_COPY}/{target}"

    return RELATIVE_LINK.sub(repoint, markdown)


def public_members(markdown: str) -> str:
    """Each `::: package` directive of an API page with `members:` set to the package's `__all__`.

    A directive naming a function or class (not a module) is left as it is.
    """

    def with_members(match: re.Match[str]) -> str:
        try:
            names = importlib.import_module(match.group(1)).__all__
        except ModuleNotFoundError:
            return match.group(0)
        return f"{match.group(0)}\n    options:\n      members: [{', '.join(names)}]"

    return AUTODOC.sub(with_members, markdown)


@event_priority(100)  # before mkdocstrings' own on_config, which makes its handler from these paths
def on_config(config: Any, **_: Any) -> Any:
    """Point mkdocstrings at a scratch copy (symbolic links) of the package as it installs."""
    scratch = Path(tempfile.mkdtemp(prefix="cbalgebra-docs-"))
    _layout.append(scratch)
    lay_out_installed_package(scratch)
    config["plugins"]["mkdocstrings"].config["handlers"]["python"]["paths"] = [str(scratch)]
    return config


def on_post_build(**_: Any) -> None:
    """Remove the scratch layout."""
    while _layout:
        shutil.rmtree(_layout.pop(), ignore_errors=True)


def on_files(files: Files, config: Any, **_: Any) -> Files:
    """Add a copy (under `repo/`) of each repository file a page links to outside docs/."""
    targets: set[str] = set()
    for page in DOCS.rglob("*.md"):
        uri = page.relative_to(DOCS).as_posix()
        for ups, rest in RELATIVE_LINK.findall(page.read_text(encoding="utf-8")):
            target = outside_target(uri, ups, rest)
            if target is not None:
                targets.add(target)
    targets |= {shown for target in targets if target.endswith(".md") for shown in linked_beside(target)}
    for target in sorted(targets):
        files.append(File.generated(config, f"{REPO_COPY}/{target}", abs_src_path=str(ROOT / target)))
    return files


def linked_beside(page: str) -> set[str]:
    """The files a copied Markdown file (a study's report) links to in its own folder: its figures."""
    folder = posixpath.dirname(page)
    names = re.findall(r"\]\(([^)#\s/:]+)\)", (ROOT / page).read_text(encoding="utf-8"))
    return {posixpath.join(folder, name) for name in names if (ROOT / folder / name).is_file()}


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Serve the README as the site's index page; repoint the other pages' links out of docs/."""
    if page.file.src_uri == "index.md":
        return readme_as_index((ROOT / "README.md").read_text(encoding="utf-8"))
    if page.file.src_uri.startswith("api/"):
        return public_members(markdown)
    return link_out_of_docs(markdown, page.file.src_uri)
