"""The first call on a fresh install: numba compiles the forwarding kernels
once, says so once on standard error, and caches them for later processes;
``make install`` warms that cache so that the demo and the CLI never compile.

Each run is a fresh interpreter with its own ``NUMBA_CACHE_DIR`` (empty at
first), so these tests see exactly what a new user sees. No timings are
asserted: ``benchmarks/forward_compile.py`` measures them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTICE = "cbalgebra.matcher: compiling the numba kernels"

# A user's session: two tables, several messages, forward() and the batch
# entries; prints numba's cache misses of the entries it used.
_USER = """
import json
import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable
from cbalgebra.matcher import _automaton, _kernels, _wire

table = ForwardingTable.compile({0: cb.parse_filter('[a > 1, b >* "x"]'), 1: cb.parse_filter('[c = true]')})
assert list(table.forward(cb.parse_message('[a=2, b="xy", c=true]'))) == [0, 1]
assert list(table.forward(cb.parse_message('[a=0]'))) == []
other = ForwardingTable.compile({3: cb.parse_filter('[s *< "z"]')})
assert list(other.forward(cb.parse_message('[s="baz"]'))) == [3]
if "batch" in __import__("sys").argv:
    messages = [cb.parse_message('[a=2]'), cb.parse_message('[c=true]')]
    table.forward_batch(messages, threads=1)
    table.forward_batch(messages, threads=2)
    table.forward_encoded(table.encode_message(messages[0]))
if "batch" in __import__("sys").argv:
    # a substring pattern of 63 characters gets an automaton (_build._automaton_keys)
    long = ForwardingTable.compile({4: cb.parse_filter('[s * "' + "z" * 63 + '"]')})
    assert list(long.forward(cb.parse_message('[s="a' + "z" * 63 + '"]'))) == [4]
kernels = [_wire.forward_message, _kernels.forward_serial, _kernels.forward_parallel, _kernels.forward_one,
           _automaton.build_automata]
print(json.dumps(sum(sum(k.stats.cache_misses.values()) for k in kernels)))
"""


def _run(cache: Path, *args: str, code: str = _USER) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True,
                          cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_the_first_call_says_once_that_it_compiles_and_a_later_process_does_not_compile(tmp_path):
    first = _run(tmp_path)
    assert first.stderr.count(NOTICE) == 1, first.stderr
    assert re.search(r"compiling the numba kernels .* done in \d+\.\d s", first.stderr), first.stderr
    assert json.loads(first.stdout.splitlines()[-1]) > 0  # it did compile forward()'s kernel

    again = _run(tmp_path)
    assert NOTICE not in again.stderr, again.stderr
    assert json.loads(again.stdout.splitlines()[-1]) == 0


def _install_warm_step() -> str:
    """The command of ``make install`` that warms the matcher's numba cache
    (the recipe warms each package's kernels with one line of its own)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^install:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, "make install has no recipe"
    warm = [line.strip() for line in recipe.group(1).splitlines()
            if "warm_up" in line and "cbalgebra.matcher import" in line]
    assert len(warm) == 1, recipe.group(1)
    return warm[0]


def test_make_install_warms_every_entry_so_the_first_call_afterwards_compiles_nothing(tmp_path):
    command = _install_warm_step()
    code = re.fullmatch(r"\$\(PY\) -c '(.*)'", command)
    assert code, command
    _run(tmp_path, code=code.group(1))

    after = _run(tmp_path, "batch")
    assert NOTICE not in after.stderr, after.stderr
    assert json.loads(after.stdout.splitlines()[-1]) == 0


# What a new user's first table and forward() make numba compile, by name.
_COMPILED = """
import json
from numba.core import event
import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable

names = []
class Names(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        names.append(function.__module__ + ":" + function.__qualname__)
    def on_end(self, ev):
        pass

with event.install_listener("numba:compile", Names()):
    table = ForwardingTable.compile({0: cb.parse_filter('[a > 1, b >* "x", b * "y"]'), 1: cb.parse_filter('[c = 1]')})
    assert list(table.forward(cb.parse_message('[a=2, b="xy", c=1]'))) == [0, 1]
print(json.dumps(names))
"""


def test_the_first_forward_compiles_only_what_it_needs(tmp_path):
    """Issue 28 §6: what a cold first forward() compiles is its cost. A table
    without substring automata does not compile the automaton builder; the
    scratch is allocated by numpy, not by compiled allocators; a message's
    matches are sorted without numpy's sort (numba compiles a quicksort of
    seven functions for it) and the packed buffers are read without
    ``ndarray.view`` (compiled once per pair of dtypes)."""
    compiled = [name.split(":")[1] for name in json.loads(_run(tmp_path, code=_COMPILED).stdout.splitlines()[-1])]
    assert "_count_attributes" in compiled and "forward_message" in compiled  # it did compile forward()
    unneeded = {"build_automata", "make_scratch", "_new_scratch_entry"}
    assert not unneeded & set(compiled), compiled
    assert not [name for name in compiled if "quicksort" in name or "view" in name], compiled


def test_the_first_forward_compiles_each_of_its_functions_once_and_nothing_of_numpy(tmp_path):
    """Issue 28 §6: every function numba compiles for a cold first
    forward() is the matcher's own, compiled for one signature: no numpy
    implementation that numba compiles as a function of its own (``np.empty``
    in compiled code, ~0.1 s each), and no second specialization of a kernel
    (a literal or an int32 argument where another call passes an int64)."""
    compiled = json.loads(_run(tmp_path, code=_COMPILED).stdout.splitlines()[-1])
    assert "cbalgebra.matcher._wire:forward_message" in compiled  # it did compile forward()
    assert not [name for name in compiled if not name.startswith("cbalgebra.matcher.")], compiled
    assert len(compiled) == len(set(compiled)), sorted(compiled)


# The collector's thresholds seen from inside numba's compile and after it.
_THRESHOLDS = """
import gc, json
from numba.core import event
import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable, _kernels

collections = []
class CollectorSpy:  # the module's gc, recording its full collections
    def __getattr__(self, name):
        return getattr(gc, name)
    def collect(self, *args):
        collections.append(list(args))
        return gc.collect(*args)
_kernels.gc = CollectorSpy()

seen = []
class Thresholds(event.Listener):
    def on_start(self, ev):
        seen.append(gc.get_threshold())
    def on_end(self, ev):
        pass

before = gc.get_threshold()
with event.install_listener("numba:compile", Thresholds()):
    table = ForwardingTable.compile({0: cb.parse_filter('[a > 1]')})
    assert list(table.forward(cb.parse_message('[a=2]'))) == [0]
print(json.dumps({"before": before, "during": sorted(set(seen)), "after": gc.get_threshold(),
                  "collections": collections}))
"""


def test_numba_compiles_with_the_collector_relaxed_and_the_thresholds_come_back(tmp_path):
    """Issue 28 §6: while numba compiles forward()'s kernels, the cyclic
    collector runs at COMPILE_GC_THRESHOLDS (it took ~7 % of a cold compile
    at Python's); the process's own thresholds are back afterwards, and the
    compile's garbage was collected when it ended."""
    from cbalgebra.matcher._kernels import COMPILE_GC_THRESHOLDS

    seen = json.loads(_run(tmp_path, code=_THRESHOLDS).stdout.splitlines()[-1])
    assert seen["before"] == [700, 10, 10]
    # the first event is heard before our listener raises them; every later one sees them raised
    assert seen["during"][-1] == list(COMPILE_GC_THRESHOLDS) and len(seen["during"]) <= 2, seen
    assert seen["after"] == seen["before"]
    assert seen["collections"] == [[]]  # one full collection at the end, not left to a later one


def test_collecting_less_nests_restores_and_leaves_a_process_without_collection_alone():
    import gc

    from cbalgebra.matcher._kernels import COMPILE_GC_THRESHOLDS, _CollectingLess

    saved, enabled = gc.get_threshold(), gc.isenabled()
    try:
        gc.set_threshold(700, 10, 10)
        less = _CollectingLess()
        less.enter()
        less.enter()
        assert gc.get_threshold() == COMPILE_GC_THRESHOLDS
        less.leave()
        assert gc.get_threshold() == COMPILE_GC_THRESHOLDS  # another compile is still running
        less.leave()
        assert gc.get_threshold() == (700, 10, 10)

        gc.set_threshold(500_000, 5, 10)  # a process's own higher threshold is kept
        less.enter()
        assert gc.get_threshold() == (500_000, 20, 1_000)
        less.leave()
        assert gc.get_threshold() == (500_000, 5, 10)

        gc.set_threshold(0, 10, 10)  # automatic collection off: left off
        less.enter()
        assert gc.get_threshold() == (0, 10, 10)
        less.leave()
        assert gc.get_threshold() == (0, 10, 10)

        gc.set_threshold(700, 10, 10)
        gc.disable()
        less.enter()
        less.leave()
        assert not gc.isenabled()
    finally:
        gc.set_threshold(*saved)
        if enabled:
            gc.enable()


def test_numba_error_highlighting_is_off_unless_the_process_chose():
    """Issue 28 §6: numba highlights each of the ~11,000 error messages its
    type inference writes during a cold compile (colorama re-wrapping the
    terminal streams each time, 4-5 % of the compile); ``import cbalgebra``
    turns that off through numba's documented setting, and a process that set
    it (here to "", highlighting kept) is left as it chose."""
    code = ("import os, cbalgebra\nfrom numba.core import errors\n"
            "print(repr(os.environ['NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING']), type(errors.termcolor()).__name__)")
    for chosen, expected in ((None, "'1' NOPColorScheme"), ("", "'' HighlightColorScheme")):
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"}
        if chosen is not None:
            env["NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"] = chosen
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.split("\n")[-2] == expected, done.stdout
