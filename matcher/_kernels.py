"""The compiled forwarding engine's entry points: ``@njit`` kernels over flat arrays.

Nothing here knows about Python values. ``_build.py`` turns a forwarding table
into the arrays of :class:`~cbalgebra.matcher.layout.TableArrays` and
:class:`~cbalgebra.matcher.layout.Params` (declared, with their meaning, in
``layout.py``), ``table.py`` encodes messages, and these kernels run the
counting algorithm of Carzaniga & Wolf, Forwarding in a Content-Based Network,
SIGCOMM 2003, §4 (Figures 4 and 7) on them. The work is split by phase:

- ``_message.py``: one message, phase by phase (``match_message``);
- ``_collect.py``: the constraints one attribute satisfies (predicate evaluation);
- ``_counting.py``: counting the filters of those constraints;
- ``_lookup.py``: strings and hashes (interned constants, pattern probes);
- ``_views.py``: arrays without owners, and the named tuples rebuilt from
  their declaration;
- this module: the batch and single-message entries, and compile accounting.

Calling convention
------------------
The batch entry points (:func:`forward_serial`, :func:`forward_parallel`)
take the table, the parameters and the scratch as *plain* tuples and name
them inside (``_views.borrow_table``): numba types a plain tuple of arrays in
its C dispatcher, but a NamedTuple through Python. The Python side keeps the
named versions for itself and passes ``tuple(...)`` copies made once. Both
run the same per-message loop (:func:`_forward_run`): the serial entry over
all messages, the parallel one over each chunk in a ``prange``. The
single-message entry (:func:`forward_one`) takes packed buffers instead (see
"packed form"). Inside, the arrays the caller passed are used without numba's
reference counts (``_views._unmanaged``): their owners are the caller's,
alive for the call.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numba import njit, prange
from numba.core import event

from cbalgebra.matcher._collect import SUBSTRING_PROBE_LENGTHS
from cbalgebra.matcher._lookup import (
    HASH_BASE, fill_pattern_slots, set_bits, slot_of, string_hashes,
)
from cbalgebra.matcher._message import make_scratch, make_scratch_jit, match_message
from cbalgebra.matcher._numba_cache import CACHE
from cbalgebra.matcher._views import (
    _rows_of, _unmanaged, _view_at, borrow_scratch, borrow_table, popcount64, unpack_named,
    unpack_scalars,
)
from cbalgebra.matcher.layout import (
    NOPS, NTYPES, OP_ANY, OP_EQ, OP_GE, OP_NAMES, OP_PREFIX, OP_SUBSTRING, OP_SUFFIX, PACKED_TABLE_DTYPES,
    SCRATCH_DTYPES, STAMP, T_ANY, T_BOOL, T_CONVERTED, T_FLOAT, T_INT, T_STRING, TABLE_DTYPES, TYPE_NAMES, Params,
    Scratch, TableArrays, pack_arrays,
)

# The names the rest of the matcher (``_build``, ``table``, ``_wire``) and its
# tests take from here: the entries, and the layout and helpers they are
# built with.
__all__ = [
    "HASH_BASE", "NOPS", "NTYPES", "OP_ANY", "OP_EQ", "OP_GE", "OP_NAMES", "OP_PREFIX", "OP_SUBSTRING", "OP_SUFFIX",
    "PACKED_TABLE_DTYPES", "SCRATCH_DTYPES", "STAMP", "SUBSTRING_PROBE_LENGTHS", "TABLE_DTYPES", "TYPE_NAMES",
    "T_ANY", "T_BOOL", "T_CONVERTED", "T_FLOAT", "T_INT", "T_STRING", "Params", "Scratch", "TableArrays",
    "compile_notice", "compile_times", "fill_pattern_slots", "first_call", "forward_one",
    "forward_parallel", "forward_serial", "new_scratch", "pack_arrays", "popcount64", "set_bits", "slot_of",
    "string_hashes",
]

log = logging.getLogger("cbalgebra.matcher")

# ------------------------------------------------------- compile accounting
_compile_lock = threading.Lock()
_compile_times: dict[str, float] = {}


def compile_times() -> dict[str, float]:
    """Seconds the first call of each kernel variant took in this process:
    numba compiling it, or loading it from numba's on-disk cache."""
    return dict(_compile_times)


#: The cyclic garbage collector's thresholds (see ``gc.set_threshold``) while
#: numba compiles the kernels, in place of Python's (700, 10, 10) unless the
#: process set higher ones. numba's compiler allocates millions of objects
#: that live until a function is compiled; with Python's thresholds the
#: collector ran its young generations every few hundred allocations and its
#: full collection several times per cold compile, ~7 % of a cold first
#: ``forward()`` (0.93 of the time with these thresholds, the final full
#: collection below counted; benchmarks/forward_compile.py).
COMPILE_GC_THRESHOLDS = (100_000, 20, 1_000)


class _CollectingLess:
    """The collector's thresholds raised to :data:`COMPILE_GC_THRESHOLDS`
    while numba compiles in any thread (the thresholds are the process's),
    then restored, and the compile's garbage collected at once, when the
    last compile ends. A process that turned automatic collection off
    (threshold 0, or ``gc.disable()``) is left as it is."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._saved: tuple[int, int, int] = gc.get_threshold()

    def enter(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._saved = gc.get_threshold()
                if self._saved[0] > 0:
                    raised = (max(ours, old) for ours, old in zip(COMPILE_GC_THRESHOLDS, self._saved, strict=True))
                    gc.set_threshold(*raised)
            self._depth += 1

    def leave(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth > 0:
                return
            gc.set_threshold(*self._saved)
        if gc.isenabled() and self._saved[0] > 0:
            gc.collect()


_collecting_less = _CollectingLess()


class _CompileWatch(event.Listener):
    """Hears numba start compiling (a cache miss: loading from numba's cache
    fires no event) and says so on standard error, the first time; the
    garbage collector runs less often until the body ends
    (:class:`_CollectingLess`)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.started_at: float | None = None

    def on_start(self, event: Any) -> None:
        if self.started_at is None:
            self.started_at = time.perf_counter()
            _collecting_less.enter()
            print(f"cbalgebra.matcher: compiling the numba kernels for {self.what} (once: later processes "
                  "load them from numba's cache) ...", end=" ", file=sys.stderr, flush=True)

    def on_end(self, event: Any) -> None:
        pass


_notice = threading.local()


@contextmanager
def compile_notice(what: str) -> Iterator[None]:
    """Run the body; if numba compiles anything in it, say once on standard
    error that it is compiling (when it starts) and how long it took (when
    the body ends), and log the same at INFO. Nested uses are silent: the
    outermost one speaks for them."""
    if getattr(_notice, "active", False):
        yield
        return
    _notice.active = True
    watch = _CompileWatch(what)
    try:
        with event.install_listener("numba:compile", watch):
            yield
    finally:
        _notice.active = False
        if watch.started_at is not None:
            _collecting_less.leave()
            seconds = time.perf_counter() - watch.started_at
            print(f"done in {seconds:.1f} s", file=sys.stderr, flush=True)
            log.info("compiled the numba kernels for %s in %.1f s", watch.what, seconds)


def first_call(variant: str, kernel: Any, args: tuple) -> Any:
    """Call ``kernel(*args)``; the first call of each variant is timed and
    logged, so that compilation is reported apart from matching, and, if
    numba compiles it, announced on standard error (:func:`compile_notice`)."""
    if variant in _compile_times:
        return kernel(*args)
    with _compile_lock, compile_notice(variant):
        t0 = time.perf_counter()
        result = kernel(*args)
        dt = time.perf_counter() - t0
        if variant not in _compile_times:
            _compile_times[variant] = dt
            log.info("numba kernel %s ready in %.2f s (compiled, or loaded from numba's cache)", variant, dt)
        return result



# ----------------------------------------------------------------- scratch
def new_scratch(params: Params, counter_dtype: Any, maxlen: int) -> Scratch:
    """Per-thread working memory for a table with these parameters, for
    string values up to ``maxlen`` code points; counters of ``counter_dtype``."""
    return Scratch(*make_scratch(Params(*params), np.zeros(0, counter_dtype), maxlen))


# ------------------------------------------------------------ packed form
# forward() makes one kernel call per message, and numba's dispatcher unboxes
# every argument on each call (about 0.15 us an array, more for a tuple): the
# table, its parameters and the scratch as separate arguments made ~45 of
# them. The single-message entry takes the table (with its Params) and the
# scratch as ONE byte buffer each, whose first bytes hold the layout of the
# arrays in it, and takes the typed views inside (a deviation from the
# named-arrays style, for speed). Python keeps views of the same buffers as
# its TableArrays and Scratch, so nothing is stored twice and the batch entries
# are unchanged. A buffer is passed as a view of the dtype of its one
# variable field (filter_info for the table, the counters for the scratch),
# which is how the compiled code learns that dtype.
# The layout of the buffers is declared in layout.py (TABLE_DTYPES,
# SCRATCH_DTYPES, pack_arrays) and read back by _views.unpack_named and _views.unpack_scalars.


# ---------------------------------------------------------------- entries
@njit(cache=CACHE, inline="always")
def _forward_run(table, params, attrs, m_off, chars, char_start, set_of_message, set_start, set_members, scratch,
                 first, last, stamp, out, pos, end, need, out_cnt):
    """The per-message loop of both batch entries: forward messages
    ``first .. last - 1`` in order with one scratch, message m to the
    broadcast set ``set_of_message[m]`` (see ``ForwardingTable._broadcast``),
    writing its interfaces at ``out[pos:]`` and their number at
    ``out_cnt[m]``. Stops before a message when fewer than ``need`` slots of
    ``out[:end]`` are left. Each message takes the next stamp after
    ``stamp``. Returns (the first message not forwarded, the last stamp).
    Inlined into each entry, so that the arrays they borrowed stay known
    to have no owner (no reference counts per message)."""
    for m in range(first, last):
        if end - pos < need:
            return m, stamp
        stamp += 1
        k = set_of_message[m]
        if k < 0:
            set_lo, set_hi = np.int64(-1), np.int64(-1)
        else:
            set_lo, set_hi = set_start[k], set_start[k + 1]
        n = match_message(table, params, attrs, m_off[m], m_off[m + 1], chars, char_start, set_members, set_lo,
                          set_hi, scratch, stamp, out, pos)
        out_cnt[m] = n
        pos += n
    return last, stamp


@njit(cache=CACHE, nogil=True)
def forward_serial(table, params, attrs, m_off, chars, char_start, set_of_message, set_start, set_members,
                   scratch, out, out_cnt):
    """Forward messages one after the other with the scratch (one thread).
    ``table``, ``params`` and ``scratch`` are plain tuples in the field order
    of TableArrays, Params and Scratch; message m goes to the broadcast set
    ``set_of_message[m]`` (see ``ForwardingTable._broadcast``). ``out`` must hold ``M * n_live``
    entries at worst."""
    table = borrow_table(table)
    params = Params(*params)
    scratch = borrow_scratch(scratch)
    attrs, m_off, chars, char_start = _unmanaged(attrs), _unmanaged(m_off), _unmanaged(chars), _unmanaged(char_start)
    set_of_message, set_start, set_members = _unmanaged(set_of_message), _unmanaged(set_start), _unmanaged(set_members)
    out, out_cnt = _unmanaged(out), _unmanaged(out_cnt)
    # np.int64, not literal ints: numba compiles a function again for each
    # literal argument, and the entries would not share _forward_run
    zero = np.int64(0)
    _, stamp = _forward_run(table, params, attrs, m_off, chars, char_start, set_of_message, set_start, set_members,
                            scratch, zero, np.int64(m_off.shape[0] - 1), scratch.progress[STAMP], out, zero,
                            np.int64(out.shape[0]), zero, out_cnt)
    scratch.progress[STAMP] = stamp


@njit(cache=CACHE, parallel=True, nogil=True)
def forward_parallel(table, params, attrs, m_off, chars, char_start, maxlen, set_of_message, set_start, set_members,
                     counter_proto, chunk_lo, chunk_hi, cap, need, out, out_cnt, chunk_stop):
    """Forward the messages of each chunk on its own thread.

    Chunk ``ch`` writes its results contiguously into ``out[ch * cap:]`` and
    stops early, recording where in ``chunk_stop``, when fewer than ``need``
    slots are left; the caller resumes it with a fresh buffer. ``table`` and
    ``params`` are plain tuples, as for ``forward_serial``.
    """
    attrs, m_off, chars, char_start = _unmanaged(attrs), _unmanaged(m_off), _unmanaged(chars), _unmanaged(char_start)
    set_of_message, set_start, set_members = _unmanaged(set_of_message), _unmanaged(set_start), _unmanaged(set_members)
    out, out_cnt = _unmanaged(out), _unmanaged(out_cnt)
    for ch in prange(chunk_lo.shape[0]):
        # named per chunk: numba's parfors rebuild a named tuple that enters
        # the loop from its constructor's name, which borrow_table is not
        named = borrow_table(table)
        scalars = Params(*params)
        # the scratch is made per chunk, and keeps its owner
        scratch = make_scratch_jit(scalars, counter_proto, maxlen)
        start = np.int64(ch * cap)
        stop, _ = _forward_run(named, scalars, attrs, m_off, chars, char_start, set_of_message, set_start,
                               set_members, scratch, np.int64(chunk_lo[ch]), np.int64(chunk_hi[ch]), np.int64(0), out,
                               start, np.int64(start + cap), np.int64(need), out_cnt)
        chunk_stop[ch] = stop


@njit(cache=CACHE, nogil=True)
def forward_one(table_buffer, scratch_buffer, message, set_members):
    """Forward one message (``forward``). The table and the scratch come
    packed (see :func:`pack_arrays`), each as a view of the dtype of its
    variable field. ``message`` is bytes (see ``table.EncodedMessage``):
    int64 (number of attributes n, set_lo, set_hi, number of strings s), the
    n attribute rows (name id, type, value), the s string lengths, then the
    strings' code points as uint32; the broadcast set is
    ``set_members[set_lo:set_hi]`` (every interface when ``set_lo < 0``).
    Writes the dense ids, sorted, at the start of the scratch's ``out`` and
    returns how many; returns -1, having done nothing, when a string of the
    message is longer than the scratch holds."""
    # the intrinsics called here, not through a function numba inlines (see unpack_named)
    params = unpack_scalars(table_buffer, TableArrays, Params)
    scratch = unpack_named(scratch_buffer, Scratch)
    header = _view_at(message, 0, 32, np.int64)
    n = header[0]
    n_strings = header[3]
    rows_end = 32 + 24 * n
    attrs = _rows_of(_view_at(message, 32, rows_end, np.int64), 3)
    lengths = _view_at(message, rows_end, rows_end + 8 * n_strings, np.int64)
    chars = _view_at(message, rows_end + 8 * n_strings, len(message), np.uint32)
    capacity = scratch.prefix_hash.shape[0] - 1
    string_start = scratch.string_start
    string_start[0] = 0
    for k in range(n_strings):
        if lengths[k] > capacity:
            return -1
        string_start[k + 1] = string_start[k] + lengths[k]
    stamp = scratch.progress[STAMP] + 1
    scratch.progress[STAMP] = stamp
    # np.int64(0), not 0: numba compiles a function again for each literal
    # argument, and this entry would not share the phases' compiled functions
    # (_count_attributes) with forward()'s
    zero = np.int64(0)
    # the table and the scratch passed on packed, as this entry got them (see _views.field)
    return match_message(table_buffer, params, attrs, zero, n, chars, string_start, _unmanaged(set_members),
                         header[1], header[2], scratch_buffer, stamp, scratch.out, zero)
