"""Strings and hashes in compiled code: the lookups that turn a message
value into table positions.

A message string is placed among the table's interned constants
(:func:`_string_position`: ``2 * lo + eq``, by a hash lookup when it is one of
them and by binary search otherwise), which turns every order operator on
strings into an integer comparison; a piece of it is looked up among the
prefix, suffix and substring patterns by its polynomial hash
(:func:`_probe`). The fill functions build the hash tables (``_build``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cbalgebra.matcher._numba_cache import CACHE, COMPILED_CALLERS_ONLY
from cbalgebra.matcher.layout import OP_EQ

HASH_BASE = np.uint64(0x100000001B3)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_KEYMUL = np.uint64(0x9E3779B97F4A7C15)
_OPMUL = np.uint64(0xC2B2AE3D27D4EB4F)


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


def string_hashes(chars: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Polynomial hash (digits are code point + 1, mod 2**64) of each string
    ``chars[off[s]:off[s + 1]]``."""
    out = np.empty(off.shape[0] - 1, dtype=np.uint64)
    _fill_string_hashes(chars, off, out)
    return out


@njit(cache=CACHE)
def _fill_string_hashes(chars, off, out):
    """:func:`string_hashes` into ``out`` (allocated by numpy: ``np.empty``
    in compiled code is a function numba compiles, 0.1 s of a cold first
    table)."""
    for s in range(off.shape[0] - 1):
        h = np.uint64(0)
        for j in range(off[s], off[s + 1]):
            h = h * HASH_BASE + (np.uint64(chars[j]) + np.uint64(1))
        out[s] = h


def set_bits(bits: np.ndarray, cols: np.ndarray, ids: np.ndarray) -> None:
    """``bits[ids[k] >> 6, cols[k]] |= 1 << (ids[k] & 63)`` for every k
    (``bitwise_or.at``: a word named twice gets both bits). numpy's, not a
    compiled kernel: it runs on a table's interfaces and selectivity rows,
    where numpy's ~3 ns an id (2 ms for 200,000, 0.17 s for 2,000,000) is
    less than the 0.1 s a kernel of its own costs a cold first table."""
    np.bitwise_or.at(bits, (ids >> 6, cols), np.left_shift(np.uint64(1), (ids & 63).astype(np.uint64)))


@njit(cache=CACHE)
def fill_pattern_slots(slots, hmask, first, ops, keys, ranks, thash, bloom):
    """Insert constraints ``first + j`` (pattern operators) with linear
    probing, and set the filter bit of each in ``bloom`` (see :func:`_probe`)
    unless it is empty. (One kernel for both: each kernel costs a cold first
    table ~0.1 s of compiling.)"""
    for j in range(ops.shape[0]):
        x = _mix(thash[ranks[j]], keys[j], ops[j])
        s = np.int64(x & np.uint64(hmask))
        while slots[s] >= 0:
            s = (s + 1) & hmask
        slots[s] = first[j]
        if bloom.shape[0]:
            bit = _filter_bit(x, bloom)
            bloom[bit >> np.uint64(6)] |= np.uint64(1) << (bit & np.uint64(63))


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
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


@njit(cache=CACHE, forceinline=True, **COMPILED_CALLERS_ONLY)
def _string_position(tchars, toff, thash, string_slots, chars, ms, me, h):
    """``2 * lo + eq``: lo interned strings are smaller, eq if one is equal.
    ``h`` is the hash of chars[ms:me]: a value that is one of the interned
    strings (the common case) is found in ``string_slots`` without a search.
    (Inlined by LLVM, not numba: numba's copy of it into the counting phase
    cost 0.2 s of a cold first ``forward()``.)"""
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
@njit(cache=CACHE, inline="always")
def _lower(cval, s, e, v):
    """First position in the sorted cval[s:e] whose value is >= v (e if none).
    (Inlined: it has one call in forward()'s kernels, and a function of its
    own costs numba ~0.1 s of a cold first call whatever its size.)"""
    n = e - s
    if n <= 0:
        return s
    base = s
    while n > 1:
        half = n >> 1
        base = base + half if cval[base + half - 1] < v else base
        n -= half
    return base + 1 if cval[base] < v else base



@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
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


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
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
