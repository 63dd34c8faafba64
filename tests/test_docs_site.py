"""The documentation site builds strictly (issue 28 item 2): `mkdocs build --strict` over mkdocs.yml.

A warning (a broken link between pages, a docstring mkdocstrings cannot render) fails the build,
so these tests fail with it. The build writes into a scratch folder, never build/site.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import cbalgebra

ROOT = Path(__file__).resolve().parent.parent
# the packages with a page of the API reference (docs/api/<last part>.md)
API_PACKAGES = ("cbalgebra", *(f"cbalgebra.{name}" for name in (
    "covering", "poset", "network", "matchmaker", "workloads", "matcher", "reducers", "studies")))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert built.returncode == 0, built.stderr
    return out


def test_every_guide_and_design_page_is_built(site: Path) -> None:
    pages = [path.relative_to(ROOT / "docs").with_suffix("") for path in (ROOT / "docs").rglob("*.md")]
    assert pages
    for page in pages:
        built = site / ("index.html" if page.name == "index" else page / "index.html")
        assert built.is_file(), f"{page}.md has no page in the site"


def test_front_page_is_the_readme_with_site_links(site: Path) -> None:
    front = (site / "index.html").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    title = next(line for line in readme.splitlines() if line.startswith("# "))
    assert title[2:].strip() in front
    assert 'href="guide/language/"' in front  # README's `docs/guide/language.md`, as a site link
    assert 'href="docs/' not in front


def test_figures_outside_docs_are_copied_and_linked(site: Path) -> None:
    routing = (site / "guide" / "routing" / "index.html").read_text(encoding="utf-8")
    assert "../../repo/studies/results/routing/" in routing
    assert list((site / "repo" / "studies" / "results" / "routing").glob("*.svg"))


@pytest.mark.parametrize("package", API_PACKAGES)
def test_api_page_shows_the_public_names(site: Path, package: str) -> None:
    page = (site / "api" / package.rsplit(".", 1)[-1] / "index.html").read_text(encoding="utf-8")
    module = importlib.import_module(package)
    # a name of __all__ that is a submodule has its own page (or is a building block of one)
    documented = [name for name in module.__all__ if not isinstance(getattr(module, name), types.ModuleType)]
    # (`cbalgebra.network.topology` is also a module: its function is shown under the module's path)
    shown = [name for name in documented
             if f'id="{package}.{name}"' in page or f'id="{package}.{name}.{name}"' in page]
    assert shown == documented, sorted(set(documented) - set(shown))
    assert f'id="{package}._' not in page  # nothing underscored


def test_cbalgebra_api_page_names_parse_predicate_and_covers(site: Path) -> None:
    page = (site / "api" / "cbalgebra" / "index.html").read_text(encoding="utf-8")
    for name in ("parse_predicate", "covers"):
        assert name in cbalgebra.__all__
        assert f'id="cbalgebra.{name}"' in page


#: The committed pictures that must be rasters: screenshots of a browser.
RASTERS_NEEDED = {"docs/poset-viewer.png"}


def test_every_committed_figure_has_one_format() -> None:
    """Issue 28 item 7: a figure is committed once, as SVG; PNG only where a raster is needed
    (a screenshot), and never an SVG and a PNG of the same figure side by side."""
    tracked = subprocess.run(["git", "ls-files", "*.png", "*.svg"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    pngs = {name for name in tracked if name.endswith(".png")}
    assert pngs <= RASTERS_NEEDED, sorted(pngs - RASTERS_NEEDED)
    assert not {name[:-4] for name in pngs} & {name[:-4] for name in tracked if name.endswith(".svg")}


def test_the_api_pages_turn_rest_roles_into_links_or_code(site: Path) -> None:
    """The docstrings' Sphinx roles (:func:`walk`) are rewritten by tools/griffe_rest_roles.py: a
    link where the site shows the target, code otherwise; never the role's raw text."""
    import re

    pages = {path: path.read_text(encoding="utf-8") for path in (site / "api").rglob("index.html")}
    assert len(pages) == len(API_PACKAGES)
    raw = {path.parent.name for path, html in pages.items()
           if re.search(r":(?:py:)?(?:func|class|meth|attr|data|const|mod|exc|obj):", html)}
    assert not raw
    poset = (site / "api" / "poset" / "index.html").read_text(encoding="utf-8")
    # cbalgebra.poset's docstring says :func:`walk`: it links to walk's entry on the same page
    assert re.search(r'<a class="autorefs autorefs-internal"[^>]*href="#cbalgebra\.poset\.walk"><code>walk</code></a>',
                     poset)
