"""Forwarding one message in compiled code, one ``@njit`` function per phase
(Carzaniga & Wolf, Forwarding in a Content-Based Network, SIGCOMM 2003, §4,
Figures 4 and 7): :func:`_start_candidates`, :func:`_match_empty_filters`,
:func:`_preprocess` and :func:`_count_attributes`, then :func:`_finish`;
:func:`match_message` runs them for the batch entries and ``forward_one``
(``_kernels``); ``_wire.forward_message``, the entry of ``forward()``, runs
them itself (see there).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cbalgebra.matcher._collect import _collect_ordered, _collect_patterns, _hash_prefixes, _push_range
from cbalgebra.matcher._counting import BLOCK, _count_ranges
from cbalgebra.matcher._lookup import _string_position
from cbalgebra.matcher._numba_cache import CACHE, COMPILED_CALLERS_ONLY
from cbalgebra.matcher._views import _unmanaged, field, popcount64
from cbalgebra.matcher.layout import (
    MATCHED, NTYPES, OP_ANY, OP_PREFIX, OP_SUBSTRING, OP_SUFFIX, OUT_BASE, REMAINING, T_ANY, T_CONVERTED,
    T_STRING, TOUCHED, Scratch, TableArrays,
)

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


# ------------------------------------------------------------ one message
# The phases of forwarding one message, in order. Each writes the state it
# leaves to ``scratch.progress`` and returns the candidates left; the next
# phase runs only while some remain. They are inlined into match_message
# and into ``_wire.forward_message`` (numba IR inlining; LLVM's for the
# counting phase, the largest, see ``_counting``), which therefore compile to
# the same single loop body as one long function would. They
# take the arrays they read, not the table and the scratch: numba copies an
# inlined function's arguments, and a copy of a named tuple of arrays costs
# a reference count update per array in its generated code (hundreds in
# all, a second of a cold first forward()).
@njit(cache=CACHE, inline="always")
def _start_candidates(done, dead, progress, n_words, n_live, set_members, set_lo, set_hi, out_pos):
    """Phase 1: the candidate set, the interfaces of the broadcast set
    ``set_members[set_lo:set_hi]`` (every interface when ``set_lo < 0``) that
    have at least one filter. Sets ``done`` to the complement and resets
    the progress."""
    if set_lo < 0:
        for w in range(n_words):
            done[w] = dead[w]
        remaining = n_live
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
    progress[MATCHED] = 0
    progress[TOUCHED] = 0
    progress[REMAINING] = remaining
    progress[OUT_BASE] = out_pos
    return remaining


@njit(cache=CACHE, inline="always")
def _match_empty_filters(always, done, progress, out):
    """Phase 2: interfaces with an empty filter match every message."""
    remaining = progress[REMAINING]
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
def _preprocess(selectivity_name, selectivity_type, bits, rounds, n_words, name_mark, name_types, absent, done,
                progress, attrs, a_lo, a_hi, stamp):
    """Phase 3: the pre-processing rounds over the selectivity table
    (Carzaniga & Wolf, SIGCOMM 2003, §4.3, Figure 7): exclude the interfaces
    of every determinant the message lacks, ORing all their bitmaps in one
    pass."""
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
    n_absent = 0
    for e in range(rounds):
        n = selectivity_name[e]
        t = selectivity_type[e]
        if not (name_mark[n] == stamp and (t == T_ANY or (name_types[n] >> t) & 1)):
            absent[n_absent] = e
            n_absent += 1
    if n_absent == 0:
        return progress[REMAINING]
    remaining = n_words * 64
    for w in range(n_words):
        x = done[w]
        for k in range(n_absent):
            x |= bits[w, absent[k]]
        done[w] = x
        remaining -= popcount64(x)
    progress[REMAINING] = remaining
    return remaining


@njit(cache=CACHE, forceinline=True, **COMPILED_CALLERS_ONLY)
def _count_attributes(packed_table, params, attrs, a_lo, a_hi, chars, char_start, packed_scratch, out, stamp):
    """Phase 4: the counting algorithm over the message's attributes
    (Carzaniga & Wolf, SIGCOMM 2003, §4, Figure 4): for each attribute, find
    the constraints it satisfies and count their filters; a filter whose
    count reaches its size matches, and its interface is output. Stops as
    soon as no candidate interface is left. The table and the scratch come
    as match_message got them (a buffer or a plain tuple each, see
    ``_views.field``). Inlined by LLVM, not numba: numba's copy of its
    intermediate code into match_message cost 0.5 s of a cold first
    ``forward()`` (see ``_counting``)."""
    n_keys = params.n_keys
    n_live = params.n_live
    hash_mask = params.hash_mask
    substring_base = params.substring_base
    shift = np.uint64(params.info_shift)
    size_mask = (np.uint64(1) << shift) - np.uint64(1)
    # the arrays one by one (see _views.field)
    t, s = packed_table, packed_scratch
    key_of, block_start = field(t, TableArrays, "key_of"), field(t, TableArrays, "block_start")
    pattern_rank = field(t, TableArrays, "pattern_rank")
    pattern_base = block_start[OP_PREFIX * n_keys]  # the first prefix, suffix or substring constraint
    link_start, links = field(t, TableArrays, "link_start"), field(t, TableArrays, "links")
    filter_info, interface_filters = field(t, TableArrays, "filter_info"), field(t, TableArrays, "interface_filters")
    pattern_slots, string_hash = field(t, TableArrays, "pattern_slots"), field(t, TableArrays, "string_hash")
    string_chars, string_start = field(t, TableArrays, "string_chars"), field(t, TableArrays, "string_start")
    pattern_lengths = field(t, TableArrays, "pattern_lengths")
    pattern_max_length = field(t, TableArrays, "pattern_max_length")
    string_slots, pattern_bloom = field(t, TableArrays, "string_slots"), field(t, TableArrays, "pattern_bloom")
    order_start, order_value = field(t, TableArrays, "order_start"), field(t, TableArrays, "order_value")
    order_layout, order_rank = field(t, TableArrays, "order_layout"), field(t, TableArrays, "order_rank")
    link_interface = field(t, TableArrays, "link_interface")
    substring_automata = field(t, TableArrays, "substring_automata")
    counters, touched, done = field(s, Scratch, "counters"), field(s, Scratch, "touched"), field(s, Scratch, "done")
    progress, link_buffer = field(s, Scratch, "progress"), field(s, Scratch, "link_buffer")
    prefix_hash, hash_power = field(s, Scratch, "prefix_hash"), field(s, Scratch, "hash_power")
    substring_mark, ranges = field(s, Scratch, "substring_mark"), field(s, Scratch, "ranges")
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
                    n_ranges = _collect_patterns(
                        key, chars, ms, me, stamp, n_keys, hash_mask, substring_base, block_start, pattern_lengths,
                        pattern_max_length, prefix_hash, hash_power, substring_mark, pattern_slots, pattern_bloom,
                        pattern_rank, pattern_base, string_hash, string_chars, string_start, substring_automata,
                        ranges, n_ranges)
        if n_ranges > 0 and _count_ranges(ranges, n_ranges, link_start, links, link_interface, filter_info, shift,
                                          size_mask, counters, touched, done, out, progress, link_buffer,
                                          interface_filters, n_live) == 0:
            return 0
    return progress[REMAINING]


@njit(cache=CACHE, inline="always")
def _sift_down(values, lo, root, n):
    """Restore the max-heap of values[lo:lo + n] below ``root`` (0-based)."""
    x = values[lo + root]
    while 2 * root + 1 < n:
        child = 2 * root + 1
        if child + 1 < n and values[lo + child + 1] > values[lo + child]:
            child += 1
        if values[lo + child] <= x:
            break
        values[lo + root] = values[lo + child]
        root = child
    values[lo + root] = x


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
def _sort_small(values, lo, hi):
    """Sort values[lo:hi] in place: insertion sort for the few interfaces a
    message usually goes to, heapsort beyond (O(n log n) on any order; not
    numpy's sort, whose quicksort numba compiles in 1 s of a cold first
    call)."""
    n = hi - lo
    if n > 32:
        # heapify (roots n // 2 - 1 .. 0), then move the top behind the heap
        # n - 1 times; one loop, so that _sift_down is inlined once
        half = n // 2
        for step in range(half + n - 1):
            if step < half:
                root, size = half - 1 - step, n
            else:
                end = n - 1 - (step - half)
                x = values[lo]
                values[lo] = values[lo + end]
                values[lo + end] = x
                root, size = 0, end
            _sift_down(values, lo, root, size)
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
def _finish(counters, touched, progress, done, out, out_pos):
    """Phase 5: reset the counters this message touched (so the next message
    starts from zero without clearing them all) and sort the output.
    Returns the number of interfaces written at ``out[out_pos:]``. ``done``
    is free by now (phase 1 sets it anew for every message), so it serves as
    the bitmap of the output's sort."""
    for k in range(progress[TOUCHED]):
        counters[touched[k]] = 0
    n_out = progress[MATCHED]
    if n_out > 32 and n_out * BITMAP_SORT_WORDS_PER_MATCH >= done.shape[0]:
        _sort_by_bitmap(out, out_pos, out_pos + n_out, done)
    else:
        _sort_small(out, out_pos, out_pos + n_out)
    return n_out


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
def match_message(packed_table, params, attrs, a_lo, a_hi, chars, char_start, set_members, set_lo, set_hi,
                  packed_scratch, stamp, out, out_pos):
    """Forward one message: returns the number of interfaces written at
    ``out[out_pos:]`` (dense indices, sorted). ``set_lo < 0`` means the
    broadcast set is every interface. The table and the scratch come as the
    entry has them: packed buffers (the single-message entries) or plain
    tuples of arrays (the batch entries); see ``_views.field``."""
    # Every entry shares this function, and it is not inlined into them:
    # arrays reaching it have owners unknown here, and numba would update
    # their reference counts (a call each) around every inlined helper below
    # that takes one, a dozen calls per attribute. Its callers own the arrays
    # for the call, so they are used without owner (as in the entries).
    # the table and the scratch without owners at once: a batch entry's
    # tuples would otherwise stay referenced (counted) until the end, a
    # reference count update per array and message
    packed_table, packed_scratch = _unmanaged(packed_table), _unmanaged(packed_scratch)
    # the few arrays each phase reads, one by one (see _views.field)
    attrs, chars, char_start = _unmanaged(attrs), _unmanaged(chars), _unmanaged(char_start)
    set_members, out = _unmanaged(set_members), _unmanaged(out)
    done, progress = field(packed_scratch, Scratch, "done"), field(packed_scratch, Scratch, "progress")
    if _start_candidates(done, field(packed_table, TableArrays, "dead"), progress, params.n_words, params.n_live,
                         set_members, set_lo, set_hi, out_pos) == 0:
        return 0
    if (_match_empty_filters(field(packed_table, TableArrays, "always"), done, progress, out) > 0
            and _preprocess(field(packed_table, TableArrays, "selectivity_name"),
                            field(packed_table, TableArrays, "selectivity_type"),
                            field(packed_table, TableArrays, "selectivity_bits"), params.rounds, params.n_words,
                            field(packed_scratch, Scratch, "name_mark"), field(packed_scratch, Scratch, "name_types"),
                            field(packed_scratch, Scratch, "absent"), done, progress, attrs, a_lo, a_hi, stamp) > 0):
        _count_attributes(packed_table, params, attrs, a_lo, a_hi, chars, char_start, packed_scratch, out, stamp)
    return _finish(field(packed_scratch, Scratch, "counters"), field(packed_scratch, Scratch, "touched"), progress,
                   done, out, out_pos)


# ----------------------------------------------------------------- scratch
def make_scratch(params, counter_proto, maxlen):
    """A thread's :class:`~cbalgebra.matcher.layout.Scratch` for a table with
    these parameters, for string values up to ``maxlen`` code points;
    counters of ``counter_proto``'s dtype. (Named fields: the dtypes are the
    declared ones, which ``layout.pack_arrays`` checks.) Plain Python, which
    the Python side runs with numpy as it is (a cold first call then compiles
    none of numpy's allocators), and compiled as :func:`make_scratch_jit`
    for the parallel entry, which makes a scratch per chunk."""
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
    return Scratch(counters=counters, touched=touched, done=done, name_mark=name_mark, name_types=name_types,
                   substring_mark=substring_mark, prefix_hash=prefix_hash, hash_power=hash_power, progress=progress,
                   absent=absent, link_buffer=link_buffer, ranges=ranges, out=out, string_start=string_start,
                   message_chars=message_chars, message_rows=message_rows)


#: :func:`make_scratch` in compiled code (the parallel entry's, compiled when
#: it is first used)
make_scratch_jit = njit(cache=CACHE)(make_scratch)
