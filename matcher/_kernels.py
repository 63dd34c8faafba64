"""The compiled half of the forwarding engine: ``@njit`` kernels over flat arrays.

Nothing here knows about Python values. ``_build.py`` turns a forwarding table
into the arrays of :class:`TableArrays` and :class:`Params`, ``table.py``
encodes messages, and these kernels run the counting algorithm of Carzaniga &
Wolf, Forwarding in a Content-Based Network, SIGCOMM 2003, §4 (Figures 4 and
7) on them, one ``@njit`` function per phase of a message:
:func:`_start_candidates`, :func:`_match_empty_filters`,
:func:`_preprocess` and :func:`_count_attributes`, then :func:`_finish`.

Codes
-----
Operators (``OP_*``) and types (``T_*``) are small ints defined once, below,
in "Type and operator codes"; ``_build`` and ``table`` import them from here.

The table (:class:`TableArrays`)
--------------------------------
- ``key_of[name * NTYPES + type]``: the key (name, type) or -1.
- Distinct constraints are numbered in (operator, key, value) order, so the
  constraints of one key and operator form the block
  ``block_start[op * n_keys + key] .. block_start[op * n_keys + key + 1]``,
  sorted by value. A constraint's value is an ordered int64: ints as they
  are, bools 0/1, floats through an order-preserving bit transform, strings
  under an order operator as ``2 * rank + 1`` (rank of the constant among
  all interned strings), strings under a pattern operator as their rank.
- Rank tables (``order_start``, ``order_value``, ``order_layout``,
  ``order_rank``, see ``_build._order_ranks``): each key's distinct
  ``=`` .. ``>=`` values, sorted, and for each of them how many constants of
  each of the key's ordered blocks are smaller, so that one search places a
  message value in all of the key's blocks (:func:`_collect_ordered`); the
  ordered constraints' own values are not kept.
- ``pattern_rank[c - block_start[OP_PREFIX * n_keys]]``: the rank of the
  string of prefix, suffix or substring constraint ``c``.
- ``link_start[c] .. link_start[c + 1]`` in ``links``: the filters that
  contain ``c``; ``link_interface`` (tables of at most 256 interfaces) the
  interface of each link's filter, read by the counting's gathering step.
- ``filter_info[f] = interface << info_shift | size``; filters are numbered
  in interface order, those of interface i being
  ``interface_filters[i] .. interface_filters[i + 1]``.
- ``always``: interfaces holding an empty filter; ``dead``: bitmap of
  interfaces without filters (and the padding bits past the last interface).
- Selectivity table: ``selectivity_name``, ``selectivity_type`` (T_ANY = any
  type) and one bitmap of interfaces per entry in ``selectivity_bits``
  (word-major: ``selectivity_bits[w, e]``), most selective first.
- Strings: ``string_chars`` / ``string_start`` (interned constants in
  code-point order), ``string_hash`` their polynomial hashes,
  ``pattern_slots`` an open-addressing table from (operator, key, string) to
  the prefix and suffix constraints and the substring constraints of keys
  without an automaton, ``pattern_max_length`` / ``pattern_lengths`` the
  longest pattern and the set of pattern lengths per (pattern operator,
  key); ``string_slots`` an open-addressing table from a constant's hash to
  its rank.
- Substrings: ``substring_automata`` holds an Aho–Corasick automaton for
  each key whose substring patterns have more than
  ``SUBSTRING_PROBE_LENGTHS`` distinct lengths or one of 63 characters or
  more (see ``_automaton``; the key's root is in ``pattern_max_length``); the
  other keys' substrings are probed by hash.

Messages are encoded as attribute arrays (name id, type code, value) with a
string pool of code points; a string attribute's value is its index in the
pool. Under ``numbers="sff"`` a number may have a second row, of the other
numeric type plus ``T_CONVERTED``: it meets that type's constraints but not
the name's type-any constraints again (its original row does that). A string
value is placed among the interned constants (``2 * lo + eq``), by a hash
lookup when it is one of them and by binary search otherwise, which turns
every order operator on strings into an integer comparison.

Per attribute, the constraints it satisfies are first collected as ranges of
constraint numbers, then the filters linked from them are counted in one
place (see "Each attribute is handled in two steps" below).

Calling convention
------------------
The batch entry points (:func:`forward_serial`, :func:`forward_parallel`)
take the table, the parameters and the scratch as *plain* tuples and name
them inside (``TableArrays(*table)``): numba types a plain tuple of arrays in
its C dispatcher, but a NamedTuple through Python. The Python side keeps the
named versions for itself and passes ``tuple(...)`` copies made once. The
single-message entry (:func:`forward_one`) takes packed buffers instead (see
"packed form"). Inside, the arrays the caller passed are used without numba's
reference counts (:func:`_unmanaged`): their owners are the caller's, alive
for the call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple, cast

import numpy as np
from numba import njit, prange, types
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic

from cbalgebra.matcher._automaton import transition as _ac_transition
from cbalgebra.matcher._numba_cache import CACHE
from cbalgebra.values import OPERATORS, TYPE_SPECS, Op, Type

log = logging.getLogger("cbalgebra.matcher")

# ------------------------------------------------ type and operator codes
# The codes of values.Op and values.Type (defined once, in cbalgebra/values.py),
# bound here as plain module-level ints: numba reads module globals as
# compile-time constants, and a plain int needs no enum support in nopython
# code. _build.py, table.py and the kernels below use these names.
OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE = int(Op.EQ), int(Op.NE), int(Op.LT), int(Op.GT), int(Op.LE), int(Op.GE)
OP_PREFIX, OP_SUFFIX, OP_SUBSTRING, OP_ANY = int(Op.PREFIX), int(Op.SUFFIX), int(Op.SUBSTRING), int(Op.ANY)
NOPS = len(Op)
T_STRING, T_INT, T_FLOAT, T_BOOL = int(Type.STRING), int(Type.INT), int(Type.FLOAT), int(Type.BOOL)
T_ANY = int(Type.ANY)
NTYPES = len(Type)
#: Added to the type code of a message row that is a number seen as the other
#: numeric type (``numbers="sff"``, see ``_wire._decode_wire``).
T_CONVERTED = 8
#: Grammar spelling of each code, index = code.
TYPE_NAMES = tuple(spec.spelling for spec in TYPE_SPECS)
OP_NAMES = OPERATORS


# ------------------------------------------------------- the packed arrays
class TableArrays(NamedTuple):
    """The compiled forwarding table (see the module docstring)."""

    key_of: np.ndarray              # int32, n_names * NTYPES
    block_start: np.ndarray         # int32, NOPS * n_keys + 1
    pattern_rank: np.ndarray        # int32, per prefix, suffix or substring constraint: its string's rank
    link_start: np.ndarray          # int32, per distinct constraint + 1
    links: np.ndarray               # int32 filter ids
    filter_info: np.ndarray         # uint32 or uint64: interface << info_shift | size
    interface_filters: np.ndarray   # int32, n_interfaces + 1
    always: np.ndarray              # int32 interfaces with an empty filter
    dead: np.ndarray                # uint64 bitmap of interfaces without filters
    selectivity_name: np.ndarray    # int32, per round
    selectivity_type: np.ndarray    # int8, per round
    selectivity_bits: np.ndarray    # uint64, (n_words, rounds)
    string_chars: np.ndarray        # uint32 code points of the interned constants
    string_start: np.ndarray        # int64 offsets into string_chars
    string_hash: np.ndarray         # uint64 polynomial hash per constant
    pattern_slots: np.ndarray       # int32 open-addressing table, -1 = empty
    pattern_max_length: np.ndarray  # int32, 3 * n_keys (prefix, suffix, substring; -(root + 2): an automaton)
    pattern_lengths: np.ndarray     # uint64 bitmask of pattern lengths, 3 * n_keys
    string_slots: np.ndarray        # int32 open-addressing table from a string's hash to its rank, -1 = empty
    pattern_bloom: np.ndarray       # uint64 bit filter of the pattern constraints (_probe)
    name_chars: np.ndarray          # uint32 code points of the names, in name id order
    name_start: np.ndarray          # int64 offsets into name_chars, n_names + 1
    name_hash: np.ndarray           # uint64 polynomial hash per name (as string_hash)
    name_slots: np.ndarray          # int32 open-addressing table from a name's hash to its id, -1 = empty
    name_mask: np.ndarray           # int8 per name: bit t set if message values of type t can match
    order_start: np.ndarray         # int32, n_keys + 1: each key's run of order_value
    order_value: np.ndarray         # int64: each key's distinct =, !=, <, >, <=, >= constants, sorted
    order_layout: np.ndarray        # int64 per key: rank offset << 8 | log2 width << 6 | mask of its blocks
    order_rank: np.ndarray          # uint8: per key, rank rows (see _collect_ordered)
    link_interface: np.ndarray      # uint8 per link: its filter's interface (empty above 256 interfaces)
    substring_automata: np.ndarray  # int32: the keys' substring automata, nodes then edges (_automaton)


class Params(NamedTuple):
    """The table's scalar parameters (all int)."""

    n_keys: int
    n_names: int
    n_interfaces: int
    n_words: int          # 64-bit words of an interface bitmap
    info_shift: int       # filter_info = interface << info_shift | size
    rounds: int           # pre-processing rounds actually run
    hash_mask: int        # len(pattern_slots) - 1
    substring_base: int   # first substring constraint
    n_substrings: int
    n_filters: int
    n_live: int           # interfaces with at least one filter
    max_ranges: int       # most constraint ranges one attribute can collect (Scratch.ranges)


class Scratch(NamedTuple):
    """One thread's working memory for matching messages."""

    counters: np.ndarray        # per filter: constraints matched so far (zero between messages)
    touched: np.ndarray         # filters whose counter this message raised
    done: np.ndarray            # bitmap: interfaces matched or excluded
    name_mark: np.ndarray       # per name: the stamp of the last message carrying it
    name_types: np.ndarray      # per name: bit t set if that message has it with type t
    substring_mark: np.ndarray  # per substring constraint: stamp of the last message it matched
    prefix_hash: np.ndarray     # hashes of the value's prefixes
    hash_power: np.ndarray      # HASH_BASE ** k
    progress: np.ndarray        # int64[5], indexed by MATCHED, TOUCHED, REMAINING, OUT_BASE, STAMP
    absent: np.ndarray          # selectivity entries the message lacks
    link_buffer: np.ndarray     # BLOCK filters gathered by _count_links
    ranges: np.ndarray          # int32 pairs: the constraint ranges one attribute satisfies
    out: np.ndarray             # int32, n_live: forward_one's output (dense interface indices)
    string_start: np.ndarray    # int64, n_names + 1: forward_one's string offsets
    message_chars: np.ndarray   # uint32: forward_message's decoded names and strings (as long as prefix_hash)
    message_rows: np.ndarray    # int64, 6 * n_names + 6: forward_message's attribute rows (2 per name at most)


#: Indices into ``Scratch.progress``, the state the counting functions share:
#: interfaces written to the output, filters touched, candidate interfaces
#: left, where this message's output starts, and the stamp of the thread's
#: last message (each message takes the next one: the name and substring
#: marks of older messages then no longer count).
MATCHED, TOUCHED, REMAINING, OUT_BASE, STAMP = range(5)

BLOCK = 64  # links gathered per block in _count_links
#: A key whose substring patterns have at most this many distinct lengths, all
#: below 63, has them probed by hash (:func:`_probe_substrings`): at most this
#: many probes per character of a message string. Any other key gets an
#: Aho–Corasick automaton (:func:`_walk_substrings`), whose cost does not grow
#: with the number of lengths. The probes need no memory beyond the pattern
#: hash table, and a message forwarded alone finds their few-kilobyte bit
#: filter in cache where the automaton's nodes are not: with automata for the
#: 18 keys of more than 8 lengths, forward() on the mixed table took 6 % longer
#: (its batch kernel did not), and automata for every key of the §5.1 I = 20
#: table would add 7.3 bytes per constraint. Those tables have at most 11
#: lengths per key, so they keep the probes.
SUBSTRING_PROBE_LENGTHS = 16
SKIP_FACTOR = 8  # galloping search per candidate interface above this many links each

HASH_BASE = np.uint64(0x100000001B3)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_KEYMUL = np.uint64(0x9E3779B97F4A7C15)
_OPMUL = np.uint64(0xC2B2AE3D27D4EB4F)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


# ------------------------------------------------------- compile accounting
_compile_lock = threading.Lock()
_compile_times: dict[str, float] = {}


def compile_times() -> dict[str, float]:
    """Seconds the first call of each kernel variant took in this process:
    numba compiling it, or loading it from numba's on-disk cache."""
    return dict(_compile_times)


def first_call(variant: str, kernel: Any, args: tuple) -> Any:
    """Call ``kernel(*args)``; the first call of each variant is timed and
    logged, so that compilation is reported apart from matching."""
    if variant in _compile_times:
        return kernel(*args)
    with _compile_lock:
        t0 = time.perf_counter()
        result = kernel(*args)
        dt = time.perf_counter() - t0
        if variant not in _compile_times:
            _compile_times[variant] = dt
            log.info("numba kernel %s ready in %.2f s (compiled, or loaded from numba's cache)", variant, dt)
        return result


# ------------------------------------------------------------------ helpers
@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one instruction where the CPU has it)."""
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    """LLVM's count of trailing zero bits (x != 0)."""
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [args[0].type, ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


@intrinsic
def _unmanaged_intrinsic(typingctx, array):
    """The same array view without its reference-counted owner (a null
    meminfo). Numba updates the owner's count atomically whenever compiled
    code hands an array on (a call, or an inlined function's argument), and
    on the kernels' arrays those updates were 12 % of the kernel's samples
    (issue 15); on a view without owner they are a null test. Only for
    arrays whose owner outlives the call (the kernels' arguments)."""
    if not isinstance(array, types.Array):
        return None
    sig = array(array)

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return sig, codegen


@intrinsic
def _view_at_intrinsic(typingctx, raw, start, end, dtype):
    """``raw[start:end].view(dtype)`` for a C-contiguous uint8 ``raw`` and an
    aligned ``start``, built directly and without an owner (as
    :func:`_unmanaged`): the single-message entry takes ~31 arrays out of two
    buffers per call, and numba's slice and view checks cost more than the
    rest of an empty message."""
    if isinstance(dtype, types.DType):
        item = dtype.dtype
    elif isinstance(dtype, types.NumberClass):
        item = dtype.instance_type
    else:
        return None
    result = types.Array(item, 1, "C")
    sig = result(raw, start, end, dtype)

    def codegen(context, builder, signature, args):
        source = context.make_array(raw)(context, builder, value=args[0])
        out = context.make_array(result)(context, builder)
        width = context.get_abi_sizeof(context.get_data_type(item))
        intp = context.get_value_type(types.intp)
        first = builder.sext(args[1], intp) if args[1].type.width < intp.width else args[1]
        last = builder.sext(args[2], intp) if args[2].type.width < intp.width else args[2]
        data = builder.bitcast(builder.gep(source.data, [first]), out.data.type)
        count = builder.sdiv(builder.sub(last, first), intp(width))
        context.populate_array(out, data=data, shape=[count], strides=[intp(width)], itemsize=intp(width),
                               meminfo=None)
        return out._getvalue()

    return sig, codegen


# typed for mypy (an intrinsic's signature includes numba's typing context)
_unmanaged = cast(Callable[[Any], Any], _unmanaged_intrinsic)
_view_at = cast(Callable[[Any, Any, Any, Any], Any], _view_at_intrinsic)


@njit(cache=CACHE, inline="always")
def popcount64(x):
    return np.int64(_ctpop(np.uint64(x)))  # type: ignore[call-arg]  # an intrinsic: numba passes the typing context


@njit(cache=CACHE, inline="always")
def _mix(h, key, op):
    """A 64-bit mix of (string hash, key, operator): its low bits place it in
    the pattern hash table, its high bits in the pattern filter."""
    x = np.uint64(h) ^ (np.uint64(key) * _KEYMUL) ^ (np.uint64(op) * _OPMUL)
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


@njit(cache=CACHE, inline="always")
def slot_of(h, key, op, hmask):
    """Home slot of (string hash, key, operator) in the pattern hash table."""
    return np.int64(_mix(h, key, op) & np.uint64(hmask))


@njit(cache=CACHE, inline="always")
def _filter_bit(x, bloom):
    """The bit of mix ``x`` in the pattern filter ``bloom`` (64 * len bits, a power of two)."""
    return (x >> np.uint64(32)) & np.uint64(64 * bloom.shape[0] - 1)


@njit(cache=CACHE)
def fill_pattern_filter(bloom, ops, keys, ranks, thash):
    """Set the filter bit of each pattern constraint (see :func:`_probe`)."""
    for j in range(ops.shape[0]):
        bit = _filter_bit(_mix(thash[ranks[j]], keys[j], ops[j]), bloom)
        bloom[bit >> np.uint64(6)] |= np.uint64(1) << (bit & np.uint64(63))


@njit(cache=CACHE)
def string_hashes(chars, off):
    """Polynomial hash (digits are code point + 1, mod 2**64) of each string."""
    n = off.shape[0] - 1
    out = np.empty(n, dtype=np.uint64)
    for s in range(n):
        h = np.uint64(0)
        for j in range(off[s], off[s + 1]):
            h = h * HASH_BASE + (np.uint64(chars[j]) + np.uint64(1))
        out[s] = h
    return out


@njit(cache=CACHE)
def set_bits(bits, cols, ids):
    """``bits[ids[k] >> 6, cols[k]] |= 1 << (ids[k] & 63)`` for every k."""
    for k in range(ids.shape[0]):
        i = ids[k]
        bits[i >> 6, cols[k]] |= np.uint64(1) << np.uint64(i & 63)


@njit(cache=CACHE)
def fill_pattern_slots(slots, hmask, first, ops, keys, ranks, thash):
    """Insert constraints ``first + j`` (pattern operators) with linear probing."""
    for j in range(ops.shape[0]):
        s = slot_of(thash[ranks[j]], keys[j], ops[j], hmask)
        while slots[s] >= 0:
            s = (s + 1) & hmask
        slots[s] = first[j]


@njit(cache=CACHE)
def _compare(tchars, ts, te, chars, ms, me):
    """Code-point order of interned string [ts, te) against message string [ms, me)."""
    n1 = te - ts
    n2 = me - ms
    n = n1 if n1 < n2 else n2
    for k in range(n):
        a = tchars[ts + k]
        b = chars[ms + k]
        if a != b:
            return -1 if a < b else 1
    if n1 == n2:
        return 0
    return -1 if n1 < n2 else 1


@njit(cache=CACHE, inline="always")
def _string_position(tchars, toff, thash, string_slots, chars, ms, me, h):
    """``2 * lo + eq``: lo interned strings are smaller, eq if one is equal.
    ``h`` is the hash of chars[ms:me]: a value that is one of the interned
    strings (the common case) is found in ``string_slots`` without a search."""
    mask = string_slots.shape[0] - 1
    s = slot_of(h, 0, OP_EQ, mask)
    while True:
        r = string_slots[s]
        if r < 0:
            break
        if thash[r] == h and _equal_chars(tchars, toff[r], toff[r + 1], chars, ms, me):
            return 2 * np.int64(r) + 1
        s = (s + 1) & mask
    lo = 0
    hi = toff.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if _compare(tchars, toff[mid], toff[mid + 1], chars, ms, me) < 0:
            lo = mid + 1
        else:
            hi = mid
    eq = 0
    if lo < toff.shape[0] - 1 and _compare(tchars, toff[lo], toff[lo + 1], chars, ms, me) == 0:
        eq = 1
    return 2 * lo + eq


# The search below runs a fixed number of steps for a given length and
# picks each half with a conditional move: the value decides nothing but the
# data, so there is no branch to mispredict (a search among a key's few
# hundred constants otherwise mispredicts about half of its steps).
@njit(cache=CACHE)
def _lower(cval, s, e, v):
    """First position in the sorted cval[s:e] whose value is >= v (e if none)."""
    n = e - s
    if n <= 0:
        return s
    base = s
    while n > 1:
        half = n >> 1
        base = base + half if cval[base + half - 1] < v else base
        n -= half
    return base + 1 if cval[base] < v else base


# ----------------------------------------------------------- right-hand side
@njit(cache=CACHE, inline="always")
def _count_links(l_lo, l_hi, links, link_interface, filter_info, shift, size_mask, counters, touched, done, out,
                 progress, link_buffer, n_live):
    """Count the filters linked from a run of matched constraints (the
    counting step of Figure 4). Returns the remaining number of candidate
    interfaces.

    Links are taken in blocks of ``BLOCK``: first the filters whose interface
    is still a candidate are gathered without a branch, then only those are
    counted. Once the selectivity table has excluded some interfaces, "is this
    interface done?" is close to random per link; as a branch it would be
    mispredicted half of the time and stall the loads behind it. For the
    same reason a filter is appended to ``touched`` on every visit and the
    end of the list moves only on its first one. On tables of at most 256
    interfaces the gathering reads each link's interface from
    ``link_interface``, next to the link, instead of from ``filter_info``
    (a random read per link, and a cache miss on a large table): the links
    of done interfaces, often most of them, are then passed over without
    touching their filters.
    """
    # the loops index with unsigned ints: numba then leaves out the test for
    # negative indices it makes on every signed one
    one = np.uint64(1)
    remaining = progress[REMAINING]
    n_touched = np.uint64(progress[TOUCHED])
    n_matched = progress[MATCHED]
    out_base = progress[OUT_BASE]
    pos = np.uint64(l_lo)
    end = np.uint64(l_hi)
    block = np.uint64(BLOCK)
    if remaining == n_live:
        # no interface is matched or excluded yet: every link counts, and
        # the filters are counted straight from the links until one matches
        while pos < end:
            f = links[pos]
            pos += one
            info = np.uint64(filter_info[np.uint64(f)])
            count = np.uint64(counters[np.uint64(f)]) + one
            counters[np.uint64(f)] = count
            touched[n_touched] = f
            n_touched += np.uint64(count == one)
            if count == info & size_mask:
                i = np.int64(info >> shift)
                done[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
                out[out_base + n_matched] = i
                n_matched += 1
                remaining -= 1
                if remaining == 0:
                    progress[TOUCHED] = np.int64(n_touched)
                    progress[MATCHED] = n_matched
                    progress[REMAINING] = 0
                    return 0
                break
    interface_known = link_interface.shape[0] != 0
    while pos < end:
        hi = pos + block if pos + block < end else end
        k = np.uint64(0)
        if interface_known:
            for j in range(pos, hi):
                iface = np.uint64(link_interface[j])
                link_buffer[k] = links[j]
                k += ((done[iface >> np.uint64(6)] >> (iface & np.uint64(63))) & one) ^ one
        else:
            for j in range(pos, hi):
                f = links[j]
                i = np.uint64(filter_info[np.uint64(f)]) >> shift
                link_buffer[k] = f
                k += ((done[i >> np.uint64(6)] >> (i & np.uint64(63))) & one) ^ one
        for j in range(k):
            f = link_buffer[j]
            info = np.uint64(filter_info[np.uint64(f)])
            count = np.uint64(counters[np.uint64(f)]) + one
            counters[np.uint64(f)] = count
            touched[n_touched] = f
            n_touched += np.uint64(count == one)
            if count == info & size_mask:  # every constraint of f holds
                i = np.int64(info >> shift)
                bit = np.uint64(1) << np.uint64(i & 63)
                if not (done[i >> 6] & bit):  # matched earlier in this block?
                    done[i >> 6] |= bit
                    out[out_base + n_matched] = i
                    n_matched += 1
                    remaining -= 1
                    if remaining == 0:
                        progress[TOUCHED] = np.int64(n_touched)
                        progress[MATCHED] = n_matched
                        progress[REMAINING] = 0
                        return 0
        pos = hi
    progress[TOUCHED] = np.int64(n_touched)
    progress[MATCHED] = n_matched
    progress[REMAINING] = remaining
    return remaining


@njit(cache=CACHE)
def _visit_links(l_lo, l_hi, links, link_interface, filter_info, shift, size_mask, counters, touched, done, out,
                 progress, link_buffer, n_live):
    """:func:`_count_links` as a function of its own, for the rare path
    (:func:`_visit_skipping`): inlined at each of its calls there too, it
    doubled numba's cold compile time of the kernels."""
    return _count_links(l_lo, l_hi, links, link_interface, filter_info, shift, size_mask, counters, touched, done,
                        out, progress, link_buffer, n_live)


@njit(cache=CACHE)
def _links_from(links, a, b, f):
    """First position in links[a:b] (sorted) holding a filter >= f, by
    galloping from a: the candidates come in increasing order, so each search
    starts where the previous one ended and costs the log of the distance."""
    if a >= b or links[a] >= f:
        return a
    lo = a  # links[lo] < f
    step = 1
    while True:
        nxt = lo + step
        if nxt >= b:
            hi = b
            break
        if links[nxt] >= f:
            hi = nxt
            break
        lo = nxt
        step <<= 1
    lo += 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if links[mid] < f:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=CACHE, inline="always")
def _count_ranges(ranges, n_ranges, link_start, links, link_interface, filter_info, shift, size_mask, counters,
                  touched, done, out, progress, link_buffer, interface_filters, n_live):
    """Count the filters of the matched constraints ``ranges[2r] ..
    ranges[2r + 1]`` for r < n_ranges (one attribute's, see
    :func:`_count_attributes`). Returns the candidates left.

    A constraint's links are sorted by filter, and filters are numbered in
    interface order. Once most interfaces are matched or excluded (at most a
    quarter left), a constraint with many links per remaining candidate is
    not read link by link (:func:`_visit_skipping`).
    """
    remaining = progress[REMAINING]
    for r in range(n_ranges):
        c_lo = ranges[2 * r]
        c_hi = ranges[2 * r + 1]
        if (4 * remaining > n_live
                or link_start[c_hi] - link_start[c_lo] <= SKIP_FACTOR * remaining + 4 * done.shape[0]):
            remaining = _count_links(link_start[c_lo], link_start[c_hi], links, link_interface, filter_info, shift,
                                     size_mask, counters, touched, done, out, progress, link_buffer, n_live)
        else:
            remaining = _visit_skipping(c_lo, c_hi, link_start, links, link_interface, filter_info, shift, size_mask,
                                        counters, touched, done, out, progress, link_buffer, interface_filters)
        if remaining == 0:
            return 0
    return remaining


@njit(cache=CACHE)
def _visit_skipping(c_lo, c_hi, link_start, links, link_interface, filter_info, shift, size_mask, counters, touched,
                    done, out, progress, link_buffer, interface_filters):
    """``_visit`` once few candidates are left: the links of each candidate
    interface are found by galloping search, and those of the other
    interfaces are skipped without being read (the first shortcut of
    Carzaniga & Wolf, SIGCOMM 2003, §4.1, applied to whole runs of links)."""
    n_words = done.shape[0]
    run = link_start[c_lo]  # consecutive small constraints are read as one run of links
    for c in range(c_lo, c_hi):
        a = link_start[c]
        b = link_start[c + 1]
        if b - a <= SKIP_FACTOR * progress[REMAINING] + 4 * n_words:
            continue
        # (n_live = -1: some interfaces are done here, so the links are always gathered)
        if run < a and _visit_links(run, a, links, link_interface, filter_info, shift, size_mask, counters, touched,
                                    done, out, progress, link_buffer, -1) == 0:
            return 0
        run = b
        for w in range(n_words):
            candidates = ~done[w]  # padding and dead interfaces are set in done
            while candidates:
                i = w * 64 + np.int64(_cttz(candidates))  # type: ignore[call-arg]  # an intrinsic, as above
                candidates &= candidates - np.uint64(1)
                s = _links_from(links, a, b, interface_filters[i])
                e = _links_from(links, s, b, interface_filters[i + 1])
                if s < e and _visit_links(s, e, links, link_interface, filter_info, shift, size_mask, counters,
                                          touched, done, out, progress, link_buffer, -1) == 0:
                    return 0
                a = e
    if run < link_start[c_hi]:
        return _visit_links(run, link_start[c_hi], links, link_interface, filter_info, shift, size_mask, counters,
                            touched, done, out, progress, link_buffer, -1)
    return progress[REMAINING]


@njit(cache=CACHE)
def _equal_chars(tchars, ts, te, chars, ms, me):
    if te - ts != me - ms:
        return False
    for k in range(te - ts):  # noqa: SIM110 - all() over a generator does not compile in nopython mode
        if tchars[ts + k] != chars[ms + k]:
            return False
    return True


@njit(cache=CACHE, inline="always")
def _probe(h, key, op, b_lo, b_hi, pattern_slots, pattern_bloom, hash_mask, pattern_rank, pattern_base, string_hash,
           string_chars, string_start, chars, ms, me):
    """The constraint of block [b_lo, b_hi) whose pattern is chars[ms:me], or -1.

    Most pieces of a value are no pattern at all. A filter of one bit per
    pattern position (16 per pattern constraint, one hash: about 6 % false
    positives) answers those from a few kilobytes that stay in cache, and
    only the rest probe the hash table (:func:`_probe_table`), which on a
    large table is megabytes and a cache miss per probe."""
    x = _mix(h, key, op)
    bit = _filter_bit(x, pattern_bloom)
    if not (pattern_bloom[bit >> np.uint64(6)] >> (bit & np.uint64(63))) & np.uint64(1):
        return -1
    return _probe_table(x, h, b_lo, b_hi, pattern_slots, hash_mask, pattern_rank, pattern_base, string_hash,
                        string_chars, string_start, chars, ms, me)


@njit(cache=CACHE)
def _probe_table(x, h, b_lo, b_hi, pattern_slots, hash_mask, pattern_rank, pattern_base, string_hash, string_chars,
                 string_start, chars, ms, me):
    """:func:`_probe` past the filter: the slots from the home slot of mix
    ``x`` on (a function of its own: inlined at each probe, it cost numba
    seconds of compiling for a path few probes take)."""
    s = np.int64(x & np.uint64(hash_mask))
    while True:
        c = pattern_slots[s]
        if c < 0:
            return -1
        if b_lo <= c < b_hi:
            r = pattern_rank[c - pattern_base]
            if string_hash[r] == h and _equal_chars(string_chars, string_start[r], string_start[r + 1], chars, ms,
                                                    me):
                return c
        s = (s + 1) & hash_mask


# ------------------------------------------------------------ one message
# The phases of forwarding one message, in order. Each writes the state it
# leaves to ``scratch.progress`` and returns the candidates left; the next
# phase runs only while some remain. They are inlined into _match_message
# (numba IR inlining), which therefore compiles to the same single loop body
# as one long function would.
@njit(cache=CACHE, inline="always")
def _start_candidates(table, params, set_members, set_lo, set_hi, scratch, out_pos):
    """Phase 1: the candidate set, the interfaces of the broadcast set
    ``set_members[set_lo:set_hi]`` (every interface when ``set_lo < 0``) that
    have at least one filter. Sets ``done`` to the complement and resets
    the progress."""
    done = scratch.done
    dead = table.dead
    n_words = params.n_words
    if set_lo < 0:
        for w in range(n_words):
            done[w] = dead[w]
        remaining = params.n_live
    else:
        for w in range(n_words):
            done[w] = _ALL
        for k in range(set_lo, set_hi):
            i = set_members[k]
            done[i >> 6] &= ~(np.uint64(1) << np.uint64(i & 63))
        remaining = n_words * 64
        for w in range(n_words):
            x = done[w] | dead[w]
            done[w] = x
            remaining -= popcount64(x)
    progress = scratch.progress
    progress[MATCHED] = 0
    progress[TOUCHED] = 0
    progress[REMAINING] = remaining
    progress[OUT_BASE] = out_pos
    return remaining


@njit(cache=CACHE, inline="always")
def _match_empty_filters(table, scratch, out):
    """Phase 2: interfaces with an empty filter match every message."""
    done = scratch.done
    progress = scratch.progress
    remaining = progress[REMAINING]
    always = table.always
    for k in range(always.shape[0]):
        i = always[k]
        bit = np.uint64(1) << np.uint64(i & 63)
        if not (done[i >> 6] & bit):
            done[i >> 6] |= bit
            out[progress[OUT_BASE] + progress[MATCHED]] = i
            progress[MATCHED] += 1
            remaining -= 1
    progress[REMAINING] = remaining
    return remaining


@njit(cache=CACHE, inline="always")
def _preprocess(table, params, attrs, a_lo, a_hi, scratch, stamp):
    """Phase 3: the pre-processing rounds over the selectivity table
    (Carzaniga & Wolf, SIGCOMM 2003, §4.3, Figure 7): exclude the interfaces
    of every determinant the message lacks, ORing all their bitmaps in one
    pass."""
    name_mark = scratch.name_mark
    name_types = scratch.name_types
    # which names the message carries, with which types (a bit per type: a
    # converted number is present with two)
    for a in range(a_lo, a_hi):
        n = attrs[a, 0]
        bit = np.int8(1 << (attrs[a, 1] & 7))
        if name_mark[n] == stamp:
            name_types[n] |= bit
        else:
            name_mark[n] = stamp
            name_types[n] = bit
    absent = scratch.absent
    selectivity_name = table.selectivity_name
    selectivity_type = table.selectivity_type
    n_absent = 0
    for e in range(params.rounds):
        n = selectivity_name[e]
        t = selectivity_type[e]
        if not (name_mark[n] == stamp and (t == T_ANY or (name_types[n] >> t) & 1)):
            absent[n_absent] = e
            n_absent += 1
    progress = scratch.progress
    if n_absent == 0:
        return progress[REMAINING]
    done = scratch.done
    bits = table.selectivity_bits
    remaining = params.n_words * 64
    for w in range(params.n_words):
        x = done[w]
        for k in range(n_absent):
            x |= bits[w, absent[k]]
        done[w] = x
        remaining -= popcount64(x)
    progress[REMAINING] = remaining
    return remaining


# Each attribute is handled in two steps: the constraints it satisfies are
# collected as ranges of constraint numbers (the _collect_* functions), then
# their filters are counted in one loop (_count_ranges). Counting at a single
# place lets numba inline it once; calling a counting function for every
# range instead passed a dozen arrays each time, with a reference-count
# update per array, and cost about as much as the counting itself on small
# tables (benchmarks/forward.py, issue 15). The helpers take arrays, unpacked
# from the NamedTuples once per message by _count_attributes, and are
# inlined, so their long argument lists cost nothing at run time.
@njit(cache=CACHE, inline="always")
def _push_range(ranges, n, lo, hi):
    """Append the constraints lo .. hi to ``ranges`` (extending the last
    range when they follow it); returns the new number of ranges. An
    attribute adds at most ``Params.max_ranges`` ranges (see ``_build``)."""
    if lo >= hi:
        return n
    if n > 0 and ranges[2 * n - 1] == lo:
        ranges[2 * n - 1] = hi
        return n
    ranges[2 * n] = lo
    ranges[2 * n + 1] = hi
    return n + 1


@njit(cache=CACHE)
def _collect_ordered(key, value, n_keys, block_start, order_start, order_value, order_layout, order_rank, ranges,
                     n):
    """The constraints ``=``, ``!=``, ``<``, ``>``, ``<=``, ``>=`` of ``key``
    that ``value`` (an ordered int64, see the module docstring) satisfies:
    each is a contiguous range of a block sorted by value (``!=``: two).

    The counting algorithm needs, per operator block of the key, where the
    value falls among its constants (Carzaniga & Wolf, Forwarding in a
    Content-Based Network, SIGCOMM 2003, §4: the constraints an attribute
    satisfies are found by a search per (name, operator)). Instead of one
    binary search per block, the value is placed once among all the key's
    distinct ordered constants (``order_value``); row p of the key's rank
    table then holds, for each block the key has, how many of the block's
    constants are below the p-th distinct constant, and row p + 1 whether
    the block holds it. A key's counts take the fewest bytes its largest
    block needs (one on most keys). On the mixed table this replaced ~5
    searches of an attribute by one and two small reads per block.

    A function of its own, not inlined: inlined, it added ~3 s (15 %) to
    numba's cold compile of the kernels and ran no faster. Its arrays are
    used without owner (the caller's are alive for the call), so that the
    helpers inlined here do not update reference counts."""
    order_start, order_value, order_layout, order_rank, ranges = (
        _unmanaged(order_start), _unmanaged(order_value), _unmanaged(order_layout), _unmanaged(order_rank),
        _unmanaged(ranges))
    layout = order_layout[key]
    mask = layout & 63
    if mask == 0:
        return n
    v_lo = order_start[key]
    v_hi = order_start[key + 1]
    at = _lower(order_value, v_lo, v_hi, value)
    equal = at < v_hi and order_value[at] == value
    wlog = (layout >> 6) & 3
    stride = popcount64(mask) << wlog  # bytes of a row
    row = (layout >> 8) + (at - v_lo) * stride
    col = 0
    for op in range(OP_EQ, OP_GE + 1):
        if not (mask >> op) & 1:
            continue
        j = op * n_keys + key
        b_s = block_start[j]
        b_e = block_start[j + 1]
        # the block's counts in rows p and p + 1: 1 << wlog bytes each,
        # little-endian, read a byte at a time (a wider count need not be
        # aligned; written out here, not as a helper taking the array, whose
        # every call numba wraps in reference count updates)
        below = np.int64(0)
        upto = np.int64(0)
        for byte in range(1 << wlog):
            below |= np.int64(order_rank[row + col + byte]) << (8 * byte)
            upto |= np.int64(order_rank[row + stride + col + byte]) << (8 * byte)
        lo = b_s + below  # first constant >= value
        hi = lo + 1 if equal and upto != below else lo  # first constant > value
        col += 1 << wlog
        if op == OP_EQ:
            n = _push_range(ranges, n, lo, hi)
        elif op == OP_NE:  # every constant but the value itself
            n = _push_range(ranges, n, b_s, lo)
            n = _push_range(ranges, n, hi, b_e)
        elif op == OP_LT:  # x < k holds for k > v
            n = _push_range(ranges, n, hi, b_e)
        elif op == OP_GT:  # x > k holds for k < v
            n = _push_range(ranges, n, b_s, lo)
        elif op == OP_LE:  # k >= v
            n = _push_range(ranges, n, lo, b_e)
        else:  # OP_GE: k <= v
            n = _push_range(ranges, n, b_s, hi)
    return n


@njit(cache=CACHE, inline="always")
def _hash_prefixes(chars, ms, me, prefix_hash, hash_power):
    """Rolling hashes of the string chars[ms:me]: the hash of any piece
    [ms + i, ms + i + l) is ``prefix_hash[i + l] - prefix_hash[i] * hash_power[l]``."""
    prefix_hash[0] = np.uint64(0)
    hash_power[0] = np.uint64(1)
    for k in range(me - ms):
        prefix_hash[k + 1] = prefix_hash[k] * HASH_BASE + (np.uint64(chars[ms + k]) + np.uint64(1))
        hash_power[k + 1] = hash_power[k] * HASH_BASE


@njit(cache=CACHE, inline="always")
def _collect_prefixes_suffixes(key, chars, ms, me, n_keys, hash_mask, block_start, pattern_lengths,
                               pattern_max_length, prefix_hash, hash_power, pattern_slots, pattern_bloom,
                               pattern_rank, pattern_base, string_hash, string_chars, string_start, ranges, n):
    """The prefix and suffix constraints of ``key`` that the string
    ``chars[ms:me]`` satisfies: the value's prefixes and suffixes whose
    length some pattern has are probed in the pattern hash table by their
    hash."""
    L = me - ms
    for pattern in range(2):
        op = OP_PREFIX + pattern
        j = op * n_keys + key
        b_s = block_start[j]
        b_e = block_start[j + 1]
        if b_s == b_e:
            continue
        lengths = pattern_lengths[pattern * n_keys + key]
        maxlen = pattern_max_length[pattern * n_keys + key]
        top = maxlen if maxlen < L else L
        for length in range(top + 1):
            if lengths & (np.uint64(1) << np.uint64(length if length < 63 else 63)):
                if op == OP_PREFIX:
                    h = prefix_hash[length]
                    ps, pe = ms, ms + length
                else:  # OP_SUFFIX
                    h = prefix_hash[L] - prefix_hash[L - length] * hash_power[length]
                    ps, pe = me - length, me
                c = _probe(h, key, op, b_s, b_e, pattern_slots, pattern_bloom, hash_mask, pattern_rank, pattern_base,
                           string_hash, string_chars, string_start, chars, ps, pe)
                if c >= 0:
                    n = _push_range(ranges, n, c, c + 1)
    return n


@njit(cache=CACHE, inline="always")
def _probe_substrings(key, chars, ms, me, stamp, n_keys, hash_mask, substring_base, block_start,
                      pattern_lengths, pattern_max_length, prefix_hash, hash_power, substring_mark,
                      pattern_slots, pattern_bloom, pattern_rank, pattern_base, string_hash, string_chars,
                      string_start, ranges, n):
    """The substring constraints of ``key`` found in chars[ms:me], for keys
    whose patterns have few distinct lengths, all below 63 (``_build``
    chooses; the others have an automaton, :func:`_walk_substrings`): every
    piece of the value whose length some pattern has is probed by its hash
    (``prefix_hash`` / ``hash_power`` already hold the value's hashes), at
    most ``SUBSTRING_PROBE_LENGTHS`` probes per character. A pattern found
    twice in the value is collected once (``substring_mark``)."""
    j = OP_SUBSTRING * n_keys + key
    b_s = block_start[j]
    b_e = block_start[j + 1]
    if b_s == b_e:
        return n
    lengths = pattern_lengths[2 * n_keys + key]
    maxlen = pattern_max_length[2 * n_keys + key]
    top = me - ms if me - ms < maxlen else maxlen
    # the empty pattern is a substring of every string, once
    if lengths & np.uint64(1):
        c = _probe(np.uint64(0), key, OP_SUBSTRING, b_s, b_e, pattern_slots, pattern_bloom, hash_mask, pattern_rank,
                   pattern_base, string_hash, string_chars, string_start, chars, ms, ms)
        if c >= 0:
            n = _push_range(ranges, n, c, c + 1)
    L = me - ms
    for start in range(L):
        lim = L - start
        if lim > top:
            lim = top
        for length in range(1, lim + 1):
            if lengths & (np.uint64(1) << np.uint64(length if length < 63 else 63)):
                h = prefix_hash[start + length] - prefix_hash[start] * hash_power[length]
                c = _probe(h, key, OP_SUBSTRING, b_s, b_e, pattern_slots, pattern_bloom, hash_mask, pattern_rank,
                           pattern_base, string_hash, string_chars, string_start, chars, ms + start,
                           ms + start + length)
                if c >= 0 and substring_mark[c - substring_base] != stamp:
                    substring_mark[c - substring_base] = stamp
                    n = _push_range(ranges, n, c, c + 1)
    return n


@njit(cache=CACHE, inline="always")
def _walk_substrings(root, chars, ms, me, stamp, substring_base, automata, substring_mark, ranges, n):
    """The substring constraints whose patterns occur in chars[ms:me], for a
    key with many pattern lengths or a long pattern, read once through its
    Aho–Corasick automaton (``_automaton``), whose root is ``root``. Each is
    collected once per message: ``substring_mark`` holds the message's stamp
    once it is, and the walk along the output links stops at the first
    pattern collected before, since the rest of that chain was collected
    with it: O(L log(alphabet) + patterns found)."""
    state = root
    c = automata[4 * root + 2]  # the empty pattern occurs in every string
    if c >= 0 and substring_mark[c - substring_base] != stamp:
        substring_mark[c - substring_base] = stamp
        n = _push_range(ranges, n, c, c + 1)
    for k in range(ms, me):
        state = _ac_transition(automata, root, state, chars[k])
        o = state if automata[4 * state + 2] >= 0 else np.int64(automata[4 * state + 3])
        while o >= 0:
            c = automata[4 * o + 2]
            if substring_mark[c - substring_base] == stamp:
                break
            substring_mark[c - substring_base] = stamp
            n = _push_range(ranges, n, c, c + 1)
            o = np.int64(automata[4 * o + 3])
    return n


@njit(cache=CACHE, inline="always")
def _count_attributes(table, params, attrs, a_lo, a_hi, chars, char_start, scratch, out, stamp):
    """Phase 4: the counting algorithm over the message's attributes
    (Carzaniga & Wolf, SIGCOMM 2003, §4, Figure 4): for each attribute, find
    the constraints it satisfies and count their filters; a filter whose
    count reaches its size matches, and its interface is output. Stops as
    soon as no candidate interface is left."""
    n_keys = params.n_keys
    n_live = params.n_live
    hash_mask = params.hash_mask
    substring_base = params.substring_base
    shift = np.uint64(params.info_shift)
    size_mask = (np.uint64(1) << shift) - np.uint64(1)
    key_of, block_start, pattern_rank = table.key_of, table.block_start, table.pattern_rank
    pattern_base = block_start[OP_PREFIX * n_keys]  # the first prefix, suffix or substring constraint
    link_start, links, filter_info, interface_filters = (table.link_start, table.links, table.filter_info,
                                                         table.interface_filters)
    pattern_slots, string_hash, string_chars, string_start = (table.pattern_slots, table.string_hash,
                                                              table.string_chars, table.string_start)
    pattern_lengths, pattern_max_length = table.pattern_lengths, table.pattern_max_length
    string_slots, pattern_bloom = table.string_slots, table.pattern_bloom
    order_start, order_value, order_layout, order_rank = (table.order_start, table.order_value, table.order_layout,
                                                          table.order_rank)
    link_interface = table.link_interface
    substring_automata = table.substring_automata
    counters, touched, done, progress, link_buffer = (scratch.counters, scratch.touched, scratch.done,
                                                      scratch.progress, scratch.link_buffer)
    prefix_hash, hash_power, substring_mark = scratch.prefix_hash, scratch.hash_power, scratch.substring_mark
    ranges = scratch.ranges
    for a in range(a_lo, a_hi):
        n = attrs[a, 0]
        t = attrs[a, 1]
        v = attrs[a, 2]
        n_ranges = 0
        if t >= T_CONVERTED:
            t -= T_CONVERTED
        else:
            # constraints of type any on this name: present is enough
            any_key = key_of[n * NTYPES + T_ANY]
            if any_key >= 0:
                j = OP_ANY * n_keys + any_key
                n_ranges = _push_range(ranges, n_ranges, block_start[j], block_start[j + 1])
        key = key_of[n * NTYPES + t]
        if key >= 0:
            ms = 0
            me = 0
            value = v
            if t == T_STRING:
                ms = char_start[v]
                me = char_start[v + 1]
                value = np.int64(-1)
                # the rolling hashes serve the exact lookup and the patterns
                _hash_prefixes(chars, ms, me, prefix_hash, hash_power)
                if order_layout[key] & 63:  # some =, !=, <, >, <=, >= constraint
                    value = _string_position(string_chars, string_start, string_hash, string_slots, chars, ms, me,
                                             prefix_hash[me - ms])
            n_ranges = _collect_ordered(key, value, n_keys, block_start, order_start, order_value, order_layout,
                                        order_rank, ranges, n_ranges)
            # typed any: present with this type
            j = OP_ANY * n_keys + key
            n_ranges = _push_range(ranges, n_ranges, block_start[j], block_start[j + 1])
            if t == T_STRING:
                jp = OP_PREFIX * n_keys + key
                js = OP_SUFFIX * n_keys + key
                jb = OP_SUBSTRING * n_keys + key
                if (block_start[jp] != block_start[jp + 1] or block_start[js] != block_start[js + 1]
                        or block_start[jb] != block_start[jb + 1]):
                    # prefix, suffix and substring: probe the value's pieces
                    n_ranges = _collect_prefixes_suffixes(
                        key, chars, ms, me, n_keys, hash_mask, block_start, pattern_lengths, pattern_max_length,
                        prefix_hash, hash_power, pattern_slots, pattern_bloom, pattern_rank, pattern_base, string_hash,
                        string_chars, string_start, ranges, n_ranges)
                    longest = np.int64(pattern_max_length[2 * n_keys + key])
                    if longest < 0:  # -(root + 2): the key's substrings have an automaton
                        n_ranges = _walk_substrings(-longest - 2, chars, ms, me, stamp, substring_base,
                                                    substring_automata, substring_mark, ranges, n_ranges)
                    else:
                        n_ranges = _probe_substrings(
                            key, chars, ms, me, stamp, n_keys, hash_mask, substring_base, block_start,
                            pattern_lengths, pattern_max_length, prefix_hash, hash_power, substring_mark,
                            pattern_slots, pattern_bloom, pattern_rank, pattern_base, string_hash, string_chars,
                            string_start, ranges, n_ranges)
        if n_ranges > 0 and _count_ranges(ranges, n_ranges, link_start, links, link_interface, filter_info, shift,
                                          size_mask, counters, touched, done, out, progress, link_buffer,
                                          interface_filters, n_live) == 0:
            return 0
    return progress[REMAINING]


@njit(cache=CACHE)
def _sort_small(values, lo, hi):
    """Sort values[lo:hi] in place: insertion sort for the few interfaces a
    message usually goes to, numpy's sort beyond."""
    if hi - lo > 32:
        values[lo:hi].sort()
        return
    for k in range(lo + 1, hi):
        x = values[k]
        j = k - 1
        while j >= lo and values[j] > x:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = x


#: A message's matched interfaces are sorted through a bitmap when there are at
#: least one per this many bitmap words: the pass costs O(words + matched),
#: never the quadratic worst case of numba's quicksort (an order crafted
#: against its pivots took 0.73 s a message at 100,000 interfaces), and a
#: quicksort is left only sizes whose square is small beside the table.
BITMAP_SORT_WORDS_PER_MATCH = 16


@njit(cache=CACHE, inline="always")
def _sort_by_bitmap(values, lo, hi, bitmap):
    """Sort the distinct interface indices values[lo:hi] in place by setting
    their bits in ``bitmap`` (cleared first) and reading the set bits back in
    order."""
    for w in range(bitmap.shape[0]):
        bitmap[w] = 0
    for k in range(lo, hi):
        i = values[k]
        bitmap[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    k = lo
    for w in range(bitmap.shape[0]):
        x = bitmap[w]
        while x:
            low = x & (~x + np.uint64(1))  # the lowest set bit
            values[k] = (w << 6) + popcount64(low - np.uint64(1))
            k += 1
            x ^= low


@njit(cache=CACHE, inline="always")
def _finish(scratch, out, out_pos):
    """Phase 5: reset the counters this message touched (so the next message
    starts from zero without clearing them all) and sort the output.
    Returns the number of interfaces written at ``out[out_pos:]``. ``done``
    is free by now (phase 1 sets it anew for every message), so it serves as
    the bitmap of the output's sort."""
    counters = scratch.counters
    touched = scratch.touched
    progress = scratch.progress
    for k in range(progress[TOUCHED]):
        counters[touched[k]] = 0
    n_out = progress[MATCHED]
    done = scratch.done
    if n_out > 32 and n_out * BITMAP_SORT_WORDS_PER_MATCH >= done.shape[0]:
        _sort_by_bitmap(out, out_pos, out_pos + n_out, done)
    else:
        _sort_small(out, out_pos, out_pos + n_out)
    return n_out


@njit(cache=CACHE)
def _match_message(table, params, attrs, a_lo, a_hi, chars, char_start, set_members, set_lo, set_hi, scratch,
                   stamp, out, out_pos):
    """Forward one message: returns the number of interfaces written at
    ``out[out_pos:]`` (dense indices, sorted). ``set_lo < 0`` means the
    broadcast set is every interface."""
    # Every entry shares this function, and it is not inlined into them:
    # arrays reaching it have owners unknown here, and numba would update
    # their reference counts (a call each) around every inlined helper below
    # that takes one, a dozen calls per attribute. Its callers own the arrays
    # for the call, so they are used without owner (as in the entries).
    table = _borrow_table(table)
    scratch = _borrow_scratch(scratch)
    attrs, chars, char_start = _unmanaged(attrs), _unmanaged(chars), _unmanaged(char_start)
    set_members, out = _unmanaged(set_members), _unmanaged(out)
    if _start_candidates(table, params, set_members, set_lo, set_hi, scratch, out_pos) == 0:
        return 0
    if (_match_empty_filters(table, scratch, out) > 0
            and _preprocess(table, params, attrs, a_lo, a_hi, scratch, stamp) > 0):
        _count_attributes(table, params, attrs, a_lo, a_hi, chars, char_start, scratch, out, stamp)
    return _finish(scratch, out, out_pos)


# ----------------------------------------------------------------- scratch
@njit(cache=CACHE)
def _new_scratch(params, counter_proto, maxlen):
    counters = np.zeros(params.n_filters, dtype=counter_proto.dtype)
    touched = np.empty(params.n_filters + 1, dtype=np.int32)
    done = np.empty(params.n_words, dtype=np.uint64)
    name_mark = np.zeros(params.n_names, dtype=np.int64)
    name_types = np.zeros(params.n_names, dtype=np.int8)
    substring_mark = np.zeros(params.n_substrings, dtype=np.int64)
    prefix_hash = np.empty(maxlen + 1, dtype=np.uint64)
    hash_power = np.empty(maxlen + 1, dtype=np.uint64)
    progress = np.zeros(5, dtype=np.int64)
    absent = np.empty(max(params.rounds, 1), dtype=np.int64)
    link_buffer = np.empty(BLOCK, dtype=np.int32)
    ranges = np.empty(2 * params.max_ranges, dtype=np.int32)
    out = np.empty(max(params.n_live, 1), dtype=np.int32)
    string_start = np.empty(params.n_names + 1, dtype=np.int64)
    message_chars = np.empty(maxlen, dtype=np.uint32)
    message_rows = np.empty(6 * params.n_names + 6, dtype=np.int64)
    return Scratch(counters, touched, done, name_mark, name_types, substring_mark, prefix_hash, hash_power,
                   progress, absent, link_buffer, ranges, out, string_start, message_chars, message_rows)


@njit(cache=CACHE)
def _new_scratch_entry(params, counter_proto, maxlen):
    return _new_scratch(Params(*params), counter_proto, maxlen)


def new_scratch(params: Params, counter_dtype: Any, maxlen: int) -> Scratch:
    """Per-thread working memory for a table with these parameters, for
    string values up to ``maxlen`` code points; counters of ``counter_dtype``."""
    return Scratch(*_new_scratch_entry(tuple(params), np.zeros(0, counter_dtype), maxlen))


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
#: dtypes of the TableArrays fields in the packed buffer, then of the Params;
#: ``None`` is filter_info, whose dtype (uint32 or uint64) comes with the
#: table layout.
TABLE_DTYPES = (np.int32, np.int32, np.int32, np.int32, np.int32, None, np.int32, np.int32, np.uint64,
                np.int32, np.int8, np.uint64, np.uint32, np.int64, np.uint64, np.int32, np.int32, np.uint64, np.int32,
                np.uint64, np.uint32, np.int64, np.uint64, np.int32, np.int8, np.int32, np.int64, np.int64, np.uint8,
                np.uint8, np.int32)
PACKED_TABLE_DTYPES = (*TABLE_DTYPES, np.int64)
#: the same for Scratch; ``None`` is counters (uint8 or int32, with the table).
SCRATCH_DTYPES = (None, np.int32, np.uint64, np.int64, np.int8, np.int64, np.uint64, np.uint64, np.int64, np.int64,
                  np.int32, np.int32, np.int32, np.int64, np.uint32, np.int64)
#: arrays in the two packed buffers; the table's last one holds the Params
N_PACKED_TABLE = len(PACKED_TABLE_DTYPES)
N_PACKED_SCRATCH = len(SCRATCH_DTYPES)
_ALIGN = 8


def pack_arrays(arrays: tuple, dtypes: tuple) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``arrays`` copied into one 8-byte aligned uint8 buffer: returns
    (buffer, layout, views). ``layout[k]`` is (first byte, end byte, rows of a
    2-D array or -1), and the buffer's first ``24 * len(arrays)`` bytes hold
    a copy of it; ``views[k]`` is array k as a view of the buffer, of the
    same dtype, shape and contents. Each array must be C-contiguous, of the
    dtype ``dtypes[k]`` (any for ``None``), at most 2-D."""
    layout = np.zeros((len(arrays), 3), np.int64)
    pos = layout.nbytes
    for k, (a, dtype) in enumerate(zip(arrays, dtypes, strict=True)):
        if dtype is not None and a.dtype != dtype:
            raise TypeError(f"packed array {k}: dtype {a.dtype}, expected {np.dtype(dtype)}")
        if a.ndim > 2:
            raise ValueError(f"packed array {k} has {a.ndim} dimensions")
        layout[k] = (pos, pos + a.nbytes, a.shape[0] if a.ndim == 2 else -1)
        pos += -(-a.nbytes // _ALIGN) * _ALIGN
    buffer = np.empty(max(pos, _ALIGN), np.uint8)
    buffer[:layout.nbytes].view(np.int64)[:] = layout.ravel()
    views = []
    for k, a in enumerate(arrays):
        view = buffer[layout[k, 0]:layout[k, 1]].view(a.dtype).reshape(a.shape)
        view[...] = a
        views.append(view)
    return buffer, layout, tuple(views)


@njit(cache=CACHE, inline="always")
def _layout(raw, n_fields):
    """The layout :func:`pack_arrays` wrote at the start of a buffer."""
    return _unmanaged(raw[:24 * n_fields].view(np.int64).reshape(n_fields, 3))


@njit(cache=CACHE, inline="always")
def _field(buffer, layout, k, dtype):
    return _view_at(buffer, layout[k, 0], layout[k, 1], dtype)


@njit(cache=CACHE, inline="always")
def _unpack_table(buffer, layout, info_proto):
    bits = _field(buffer, layout, 11, np.uint64)
    return TableArrays(
        _field(buffer, layout, 0, np.int32), _field(buffer, layout, 1, np.int32),
        _field(buffer, layout, 2, np.int32), _field(buffer, layout, 3, np.int32),
        _field(buffer, layout, 4, np.int32), _field(buffer, layout, 5, info_proto.dtype),
        _field(buffer, layout, 6, np.int32), _field(buffer, layout, 7, np.int32),
        _field(buffer, layout, 8, np.uint64), _field(buffer, layout, 9, np.int32),
        _field(buffer, layout, 10, np.int8), bits.reshape(layout[11, 2], bits.shape[0] // max(layout[11, 2], 1)),
        _field(buffer, layout, 12, np.uint32), _field(buffer, layout, 13, np.int64),
        _field(buffer, layout, 14, np.uint64), _field(buffer, layout, 15, np.int32),
        _field(buffer, layout, 16, np.int32), _field(buffer, layout, 17, np.uint64),
        _field(buffer, layout, 18, np.int32), _field(buffer, layout, 19, np.uint64),
        _field(buffer, layout, 20, np.uint32), _field(buffer, layout, 21, np.int64),
        _field(buffer, layout, 22, np.uint64), _field(buffer, layout, 23, np.int32),
        _field(buffer, layout, 24, np.int8), _field(buffer, layout, 25, np.int32),
        _field(buffer, layout, 26, np.int64), _field(buffer, layout, 27, np.int64),
        _field(buffer, layout, 28, np.uint8), _field(buffer, layout, 29, np.uint8),
        _field(buffer, layout, 30, np.int32))


@njit(cache=CACHE, inline="always")
def _unpack_params(buffer, layout):
    p = _field(buffer, layout, N_PACKED_TABLE - 1, np.int64)
    return Params(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11])


@njit(cache=CACHE, inline="always")
def _unpack_scratch(buffer, layout, counter_proto):
    return Scratch(
        _field(buffer, layout, 0, counter_proto.dtype), _field(buffer, layout, 1, np.int32),
        _field(buffer, layout, 2, np.uint64), _field(buffer, layout, 3, np.int64),
        _field(buffer, layout, 4, np.int8), _field(buffer, layout, 5, np.int64),
        _field(buffer, layout, 6, np.uint64), _field(buffer, layout, 7, np.uint64),
        _field(buffer, layout, 8, np.int64), _field(buffer, layout, 9, np.int64),
        _field(buffer, layout, 10, np.int32), _field(buffer, layout, 11, np.int32),
        _field(buffer, layout, 12, np.int32), _field(buffer, layout, 13, np.int64),
        _field(buffer, layout, 14, np.uint32), _field(buffer, layout, 15, np.int64))


@njit(cache=CACHE, inline="always")
def unpack_buffers(table_buffer, scratch_buffer):
    """(TableArrays, Params, Scratch) from the packed table and scratch of a
    single-message entry."""
    table_raw = table_buffer.view(np.uint8)
    table_layout = _layout(table_raw, N_PACKED_TABLE)
    table = _unpack_table(table_raw, table_layout, table_buffer)
    params = _unpack_params(table_raw, table_layout)
    scratch_raw = scratch_buffer.view(np.uint8)
    return table, params, _unpack_scratch(scratch_raw, _layout(scratch_raw, N_PACKED_SCRATCH), scratch_buffer)


@njit(cache=CACHE, inline="always")
def _borrow_table(t):
    """``TableArrays(*t)`` with every array :func:`_unmanaged`."""
    return TableArrays(
        _unmanaged(t[0]), _unmanaged(t[1]), _unmanaged(t[2]), _unmanaged(t[3]), _unmanaged(t[4]), _unmanaged(t[5]),
        _unmanaged(t[6]), _unmanaged(t[7]), _unmanaged(t[8]), _unmanaged(t[9]), _unmanaged(t[10]),
        _unmanaged(t[11]), _unmanaged(t[12]), _unmanaged(t[13]), _unmanaged(t[14]), _unmanaged(t[15]),
        _unmanaged(t[16]), _unmanaged(t[17]), _unmanaged(t[18]), _unmanaged(t[19]), _unmanaged(t[20]),
        _unmanaged(t[21]), _unmanaged(t[22]), _unmanaged(t[23]), _unmanaged(t[24]), _unmanaged(t[25]),
        _unmanaged(t[26]), _unmanaged(t[27]), _unmanaged(t[28]), _unmanaged(t[29]), _unmanaged(t[30]))


@njit(cache=CACHE, inline="always")
def _borrow_scratch(s):
    """``Scratch(*s)`` with every array :func:`_unmanaged`."""
    return Scratch(
        _unmanaged(s[0]), _unmanaged(s[1]), _unmanaged(s[2]), _unmanaged(s[3]), _unmanaged(s[4]), _unmanaged(s[5]),
        _unmanaged(s[6]), _unmanaged(s[7]), _unmanaged(s[8]), _unmanaged(s[9]), _unmanaged(s[10]),
        _unmanaged(s[11]), _unmanaged(s[12]), _unmanaged(s[13]), _unmanaged(s[14]), _unmanaged(s[15]))


# ---------------------------------------------------------------- entries
@njit(cache=CACHE, nogil=True)
def forward_serial(table, params, attrs, m_off, chars, char_start, set_of_message, set_start, set_members,
                   scratch, out, out_cnt):
    """Forward messages one after the other with the scratch (one thread).
    ``table``, ``params`` and ``scratch`` are plain tuples in the field order
    of TableArrays, Params and Scratch; message m goes to the broadcast set
    ``set_of_message[m]`` (see ``ForwardingTable._broadcast``). ``out`` must hold ``M * n_live``
    entries at worst."""
    table = _borrow_table(table)
    params = Params(*params)
    scratch = _borrow_scratch(scratch)
    attrs, m_off, chars, char_start = _unmanaged(attrs), _unmanaged(m_off), _unmanaged(chars), _unmanaged(char_start)
    set_of_message, set_start, set_members = _unmanaged(set_of_message), _unmanaged(set_start), _unmanaged(set_members)
    out, out_cnt = _unmanaged(out), _unmanaged(out_cnt)
    pos = np.int64(0)  # not a literal 0: every entry shares one _match_message (see forward_one)
    stamp = scratch.progress[STAMP]
    for m in range(m_off.shape[0] - 1):
        stamp += 1
        k = set_of_message[m]
        if k < 0:
            set_lo, set_hi = -1, -1
        else:
            set_lo, set_hi = set_start[k], set_start[k + 1]
        n = _match_message(table, params, attrs, m_off[m], m_off[m + 1], chars, char_start,
                           set_members, set_lo, set_hi, scratch, stamp, out, pos)
        out_cnt[m] = n
        pos += n
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
    table = _borrow_table(table)
    params = Params(*params)
    attrs, m_off, chars, char_start = _unmanaged(attrs), _unmanaged(m_off), _unmanaged(chars), _unmanaged(char_start)
    set_of_message, set_start, set_members = _unmanaged(set_of_message), _unmanaged(set_start), _unmanaged(set_members)
    # the scratch is made per chunk, below, and keeps its owner
    n_chunks = chunk_lo.shape[0]
    for ch in prange(n_chunks):
        scratch = _new_scratch(params, counter_proto, maxlen)
        pos = ch * cap
        end = pos + cap
        stop = chunk_hi[ch]
        stamp = 0
        for m in range(chunk_lo[ch], chunk_hi[ch]):
            if end - pos < need:
                stop = m
                break
            stamp += 1  # noqa: SIM113 - counts the messages matched, and the loop may stop early
            k = set_of_message[m]
            if k < 0:
                set_lo, set_hi = -1, -1
            else:
                set_lo, set_hi = set_start[k], set_start[k + 1]
            n = _match_message(table, params, attrs, m_off[m], m_off[m + 1], chars, char_start,
                               set_members, set_lo, set_hi, scratch, stamp, out, pos)
            out_cnt[m] = n
            pos += n
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
    table, params, scratch = unpack_buffers(table_buffer, scratch_buffer)
    header = _view_at(message, 0, 32, np.int64)
    n = header[0]
    n_strings = header[3]
    rows_end = 32 + 24 * n
    attrs = _view_at(message, 32, rows_end, np.int64).reshape(n, 3)
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
    # argument, and the entries would not share _match_message
    zero = np.int64(0)
    return _match_message(table, params, attrs, zero, n, chars, string_start, _unmanaged(set_members),
                          header[1], header[2], scratch, stamp, scratch.out, zero)
