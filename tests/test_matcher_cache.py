"""numba's disk cache of the forwarding kernels goes stale as a whole.

numba stamps a cached function with its own file only; a kernel compiled from
``_wire.py`` holds machine code of ``_kernels.py`` and constants of
``cbalgebra.values``. ``cbalgebra.matcher._numba_cache`` stamps every kernel
with all of them; these tests pin that down, end to end in fresh processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cbalgebra.matcher import _kernels, _numba_cache, _scan, _wire


@pytest.mark.parametrize(
    "kernel",
    [_wire.forward_message, _wire.decode_wires, _kernels.forward_serial, _kernels.popcount64, _scan.scan_ifconfigs],
    ids=lambda kernel: kernel.py_func.__name__,
)
def test_every_kernel_carries_the_package_stamp(kernel):
    assert _numba_cache.CACHE
    locator = kernel._cache._impl.locator
    assert getattr(type(locator), "_cbalgebra_stamped", False)
    _file_stamp, package_stamp = locator.get_source_stamp()
    assert package_stamp == _numba_cache.package_stamp()


def test_the_stamp_covers_the_package_and_the_modules_whose_constants_it_holds():
    names = {path.name for path in _numba_cache.package_sources()}
    assert {"_kernels.py", "_wire.py", "_scan.py", "_build.py", "table.py", "values.py", "semantics.py"} <= names


def test_an_edit_to_any_one_source_changes_the_stamp(tmp_path):
    copy = tmp_path / "matcher"
    shutil.copytree(_numba_cache.PACKAGE_DIRECTORY, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _numba_cache.sources_digest(_numba_cache.package_sources(copy))
    assert before == _numba_cache.package_stamp()
    for name in ("_kernels.py", "_wire.py"):
        path = copy / name
        original = path.read_bytes()
        path.write_bytes(original + b"\n# edited\n")
        assert _numba_cache.sources_digest(_numba_cache.package_sources(copy)) != before
        path.write_bytes(original)
    assert _numba_cache.sources_digest(_numba_cache.package_sources(copy)) == before


def test_functions_outside_the_package_keep_numba_s_own_locators(tmp_path):
    module = tmp_path / "outside.py"
    module.write_text("def f(x):\n    return x\n")
    for cls in _numba_cache.caching_locators():
        if getattr(cls, "_cbalgebra_stamped", False):
            assert cls.from_function(lambda x: x, str(module)) is None


# One fresh interpreter per run: load the cache the previous run wrote, or
# miss it. ``stamp`` replaces the package stamp, as an edit to a file other
# than popcount64's own would.
_PROBE = """
import json, sys
import numpy as np
import cbalgebra.matcher._numba_cache as numba_cache
if sys.argv[1] != "-":
    numba_cache.package_stamp = lambda: sys.argv[1]
from cbalgebra.matcher import _kernels
assert _kernels.popcount64(np.uint64(0b1011)) == 3
stats = _kernels.popcount64.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values())}))
"""


def _probe(cache_dir: Path, stamp: str) -> dict[str, int]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, stamp], env=env, capture_output=True, text=True, timeout=300, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_changed_stamp_misses_the_cache_that_an_unchanged_one_hits(tmp_path):
    assert _probe(tmp_path, "-") == {"hits": 0, "misses": 1}
    assert _probe(tmp_path, "-") == {"hits": 1, "misses": 0}
    assert _probe(tmp_path, "another package stamp") == {"hits": 0, "misses": 1}
    assert _probe(tmp_path, "another package stamp") == {"hits": 1, "misses": 0}


def test_a_locator_override_turns_the_disk_cache_off_with_a_warning(tmp_path):
    # NUMBA_CACHE_LOCATOR_CLASSES replaces numba's locator list, ours included:
    # a cache entry would then be judged by its own file alone, so none is used
    probe = (
        "import json, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from cbalgebra.matcher import _numba_cache as c\n"
        "print(json.dumps({'cache': c.CACHE, 'reason': c.UNCACHED_REASON,\n"
        "                  'warned': [str(w.message) for w in caught if w.category is RuntimeWarning]}))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
           "NUMBA_CACHE_LOCATOR_CLASSES": "numba.core.caching.UserWideCacheLocator"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["cache"] is False
    assert "NUMBA_CACHE_LOCATOR_CLASSES" in got["reason"]
    assert any("NUMBA_CACHE_LOCATOR_CLASSES" in w and "without a disk cache" in w for w in got["warned"])
