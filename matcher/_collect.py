"""Predicate evaluation per attribute, in compiled code: the constraints a
message attribute satisfies, collected as ranges of constraint numbers
(Carzaniga & Wolf, Forwarding in a Content-Based Network, SIGCOMM 2003, §4:
the constraints of one attribute name and operator are found by one search).
Ordered operators by rank tables (:func:`_collect_ordered`), prefixes and
suffixes by hash probes, substrings by hash probes or an Aho–Corasick
automaton.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cbalgebra.matcher._automaton import transition as _ac_transition
from cbalgebra.matcher._lookup import HASH_BASE, _lower, _probe
from cbalgebra.matcher._numba_cache import CACHE, COMPILED_CALLERS_ONLY
from cbalgebra.matcher._views import _unmanaged, popcount64
from cbalgebra.matcher.layout import OP_EQ, OP_GE, OP_LE, OP_LT, OP_GT, OP_NE, OP_PREFIX, OP_SUBSTRING

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


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
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
        # the range the operator's constraints hold for (one push site, not
        # six: each inlined copy of _push_range costs numba's cold compile)
        if op == OP_EQ:
            first, last = lo, hi
        elif op == OP_NE:  # every constant but the value itself: below it here, above it next
            first, last = b_s, lo
        elif op == OP_LT:  # x < k holds for k > v
            first, last = hi, b_e
        elif op == OP_GT:  # x > k holds for k < v
            first, last = b_s, lo
        elif op == OP_LE:  # k >= v
            first, last = lo, b_e
        else:  # OP_GE: k <= v
            first, last = b_s, hi
        n = _push_range(ranges, n, first, last)
        if op == OP_NE:
            n = _push_range(ranges, n, hi, b_e)
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


@njit(cache=CACHE, forceinline=True, **COMPILED_CALLERS_ONLY)
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


@njit(cache=CACHE, forceinline=True, **COMPILED_CALLERS_ONLY)
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
    L = me - ms
    # the empty pattern is a substring of every string, once: it is the piece
    # of length 0 at start 0, which an empty value has too (one probe site,
    # not two: each inlined copy of _probe costs numba's cold compile)
    for start in range(L if L > 0 else 1):
        lim = L - start
        if lim > top:
            lim = top
        for length in range(0 if start == 0 else 1, lim + 1):
            if lengths & (np.uint64(1) << np.uint64(length if length < 63 else 63)):
                h = prefix_hash[start + length] - prefix_hash[start] * hash_power[length]
                c = _probe(h, key, OP_SUBSTRING, b_s, b_e, pattern_slots, pattern_bloom, hash_mask, pattern_rank,
                           pattern_base, string_hash, string_chars, string_start, chars, ms + start,
                           ms + start + length)
                if c >= 0 and substring_mark[c - substring_base] != stamp:
                    substring_mark[c - substring_base] = stamp
                    n = _push_range(ranges, n, c, c + 1)
    return n


@njit(cache=CACHE, forceinline=True, **COMPILED_CALLERS_ONLY)
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


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
def _collect_patterns(key, chars, ms, me, stamp, n_keys, hash_mask, substring_base, block_start, pattern_lengths,
                      pattern_max_length, prefix_hash, hash_power, substring_mark, pattern_slots, pattern_bloom,
                      pattern_rank, pattern_base, string_hash, string_chars, string_start, substring_automata,
                      ranges, n):
    """The prefix, suffix and substring constraints of ``key`` that the
    string chars[ms:me] satisfies (:func:`_collect_prefixes_suffixes`, then
    :func:`_walk_substrings` or :func:`_probe_substrings`).

    A function of its own, called once per string attribute whose key has
    patterns, as :func:`_collect_ordered` is: inlined into the per-message
    function with the helpers it inlines, it made numba copy that function's
    whole intermediate code at each inlining, half of the cold compile of
    ``forward()`` (benchmarks/forward_compile.py). Its arrays are used
    without owner (the caller's are alive for the call), so that the helpers
    inlined here do not update reference counts."""
    chars, block_start, pattern_lengths, pattern_max_length = (
        _unmanaged(chars), _unmanaged(block_start), _unmanaged(pattern_lengths), _unmanaged(pattern_max_length))
    prefix_hash, hash_power, substring_mark, pattern_slots = (
        _unmanaged(prefix_hash), _unmanaged(hash_power), _unmanaged(substring_mark), _unmanaged(pattern_slots))
    pattern_bloom, pattern_rank, string_hash, string_chars = (
        _unmanaged(pattern_bloom), _unmanaged(pattern_rank), _unmanaged(string_hash), _unmanaged(string_chars))
    string_start, substring_automata, ranges = (
        _unmanaged(string_start), _unmanaged(substring_automata), _unmanaged(ranges))
    n = _collect_prefixes_suffixes(
        key, chars, ms, me, n_keys, hash_mask, block_start, pattern_lengths, pattern_max_length, prefix_hash,
        hash_power, pattern_slots, pattern_bloom, pattern_rank, pattern_base, string_hash, string_chars, string_start,
        ranges, n)
    longest = np.int64(pattern_max_length[2 * n_keys + key])
    if longest < 0:  # -(root + 2): the key's substrings have an automaton
        return _walk_substrings(-longest - 2, chars, ms, me, stamp, substring_base, substring_automata,
                                substring_mark, ranges, n)
    return _probe_substrings(
        key, chars, ms, me, stamp, n_keys, hash_mask, substring_base, block_start, pattern_lengths,
        pattern_max_length, prefix_hash, hash_power, substring_mark, pattern_slots, pattern_bloom, pattern_rank,
        pattern_base, string_hash, string_chars, string_start, ranges, n)
