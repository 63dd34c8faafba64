"""The interval index's compiled code: filling its bucket bitmaps, and
matching messages against it (see ``_interval_build`` for the structure).

Positions: on each key, a value v is placed among the key's sorted distinct
interval ends U as ``q = 2 * p + eq`` (p ends are smaller than v, eq if one
equals it), and an interval [lo, hi] as ``[2 * rank(lo) + 1, 2 * rank(hi) +
1]``; then ``lo <= v <= hi`` exactly when ``a <= q <= b``. An absent
attribute has q = -1, below every interval.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cbalgebra.matcher._lookup import _lower
from cbalgebra.matcher._numba_cache import CACHE
from cbalgebra.matcher._views import _cttz
from cbalgebra.matcher.layout import NTYPES, OP_EQ, OP_GE, OP_GT, OP_LE, OP_LT, T_CONVERTED, T_FLOAT

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=CACHE)
def fill_bitmaps(bitmaps, row_base, n_buckets, g_filter, g_key, g_ja, g_jb, n_filters):
    """The pass bitmaps: row ``row_base[k] + j`` holds filter f's bit unless f
    constrains key k to an interval that misses bucket j of k; row
    ``row_base[k] + n_buckets`` (k absent from the message) holds the bits
    of the filters that do not constrain k. Groups (g_filter, g_key) are the
    (filter, key) intervals, from bucket g_ja to bucket g_jb of their key,
    in filter order (as :func:`interval_groups` gives them).

    One 64-filter word at a time: each group sets its bit in its key's
    "starts in bucket ga" and "ends in bucket gb" masks (two operations
    instead of one per bucket), and the word of row j is then the filters
    started at or before j and not ended before j, or not constraining k."""
    n_words = bitmaps.shape[1]
    n_keys = row_base.shape[0]
    starts = np.zeros((n_keys, n_buckets), np.uint64)
    ends = np.zeros((n_keys, n_buckets), np.uint64)
    constrained = np.zeros(n_keys, np.uint64)
    n_groups = g_filter.shape[0]
    for i in range(1, n_groups):
        if g_filter[i] < g_filter[i - 1]:
            raise ValueError("fill_bitmaps: the groups are not in filter order")
    i = 0
    for w in range(n_words):
        while i < n_groups and (g_filter[i] >> 6) == w:
            k = g_key[i]
            if row_base[k] >= 0:
                bit = np.uint64(1) << np.uint64(g_filter[i] & 63)
                starts[k, g_ja[i]] |= bit
                ends[k, g_jb[i]] |= bit
                constrained[k] |= bit
            i += 1
        valid = _ALL
        if (w + 1) * 64 > n_filters:  # padding: never a candidate
            valid = (np.uint64(1) << np.uint64(n_filters - w * 64)) - np.uint64(1)
        for k in range(n_keys):
            base = row_base[k]
            if base < 0:
                continue
            free = ~constrained[k] & valid
            started = np.uint64(0)
            ended = np.uint64(0)  # ended before bucket j
            for j in range(n_buckets):
                started |= starts[k, j]
                bitmaps[base + j, w] = free | (started & ~ended & valid)
                ended |= ends[k, j]
                starts[k, j] = 0
                ends[k, j] = 0
            bitmaps[base + n_buckets, w] = free
            constrained[k] = 0


@njit(cache=CACHE, inline="always")
def _bucket_of(buckets, s, bounds, q):
    """The bucket of position q: the last j < bounds - 1 with buckets[s + j] <= q."""
    lo = 0
    hi = bounds - 1  # buckets[s] == 0 <= q for q >= 0
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if buckets[s + mid] <= q:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=CACHE)
def match_interval_message(key_of, values_start, values_base, values32, values64, row_base, bucket_start, buckets,
                           bitmaps, f_start, f_key8, f_key32, f_a, f_b, f_iface, attrs, a_lo, a_hi, allowed, q_of, rows,
                           seen, out, out_pos):
    """One message (its rows ``attrs[a_lo:a_hi]``): writes at ``out[out_pos:]``
    the dense interfaces, ascending, of the filters all of whose intervals
    hold, and returns how many. ``allowed`` is a bitmap of the broadcast
    set's interfaces, or empty for all. ``q_of``, ``rows`` and ``seen`` are
    scratch (per key, per bucketed key, per interface word; ``seen`` zero
    between messages). The ends are ``values32`` (their offsets from their
    key's smallest, ``values_base``) when every key's ends span less than
    2**32, else ``values64``; the keys are ``f_key8`` when there are at most
    256, else ``f_key32`` (the other array of each pair is empty: one
    compiled signature for both layouts)."""
    n_keys = q_of.shape[0]
    narrow = values32.shape[0] != 0 or values64.shape[0] == 0
    few_keys = f_key8.shape[0] != 0 or f_key32.shape[0] == 0
    for k in range(n_keys):
        q_of[k] = -1
    for a in range(a_lo, a_hi):
        t = attrs[a, 1]
        if t >= T_CONVERTED:
            t -= T_CONVERTED
        k = key_of[attrs[a, 0] * NTYPES + t]
        if k < 0:
            continue
        q_of[k] = _position(values_start, values_base, values32, values64, narrow, k, attrs[a, 2])
    n_rows = 0
    for k in range(n_keys):
        base = row_base[k]
        if base < 0:
            continue
        s = bucket_start[k]
        bounds = bucket_start[k + 1] - s
        q = q_of[k]
        rows[n_rows] = base + (bounds - 1 if q < 0 else _bucket_of(buckets, s, bounds, q))
        n_rows += 1
    check_allowed = allowed.shape[0] != 0
    n_out = 0
    for w in range(bitmaps.shape[1]):
        x = _ALL
        for r in range(n_rows):
            x &= bitmaps[rows[r], w]
            if x == 0:
                break
        while x:
            f = w * 64 + np.int64(_cttz(x))
            x &= x - np.uint64(1)
            i = f_iface[f]
            bit = np.uint64(1) << np.uint64(i & 63)
            if seen[i >> 6] & bit:
                continue
            if check_allowed and not (allowed[i >> 6] & bit):
                continue
            ok = True
            for j in range(f_start[f], f_start[f + 1]):
                q = q_of[np.int64(f_key8[j]) if few_keys else np.int64(f_key32[j])]
                if q < f_a[j] or q > f_b[j]:
                    ok = False
                    break
            if ok:
                seen[i >> 6] |= bit
                out[out_pos + n_out] = i
                n_out += 1
    for m in range(n_out):
        i = out[out_pos + m]
        seen[i >> 6] = 0
    return n_out


@njit(cache=CACHE, inline="always")
def _position(values_start, values_base, values32, values64, narrow, k, v):
    """Value v's position ``2 * p + eq`` among key k's interval ends."""
    s = values_start[k]
    e = values_start[k + 1]
    if not narrow:
        p = _lower(values64, s, e, v)
        return 2 * (p - s) + (1 if p < e and values64[p] == v else 0)
    base = values_base[k]
    if v < base:
        return np.int64(0)
    offset = np.uint64(v) - np.uint64(base)
    if offset > np.uint64(0xFFFFFFFF):
        return 2 * (e - s)
    x = np.uint32(offset)
    p = _lower(values32, s, e, x)
    return 2 * (p - s) + (1 if p < e and values32[p] == x else 0)


@njit(cache=CACHE)
def match_interval_batch(key_of, values_start, values_base, values32, values64, row_base, bucket_start, buckets,
                         bitmaps, f_start, f_key8, f_key32, f_a, f_b, f_iface, attrs, m_off, allowed,
                         allowed_of_message, n_words_if):
    """Every message of a batch (rows ``attrs[m_off[m]:m_off[m + 1]]``),
    message m restricted to the interfaces of bitmap row
    ``allowed_of_message[m]`` of ``allowed`` (-1: all): (offsets, dense
    interfaces) as CSR."""
    n_messages = m_off.shape[0] - 1
    q_of = np.empty(values_start.shape[0] - 1, np.int64)
    rows = np.empty(max(1, row_base.shape[0]), np.int64)
    seen = np.zeros(n_words_if, np.uint64)
    offsets = np.zeros(n_messages + 1, np.int64)
    capacity = max(16, 2 * n_messages)
    out = np.empty(capacity, np.int32)
    buffer = np.empty(n_words_if * 64, np.int32)
    no_set = np.zeros(0, np.uint64)
    for m in range(n_messages):
        row = allowed_of_message[m]
        mask = no_set if row < 0 else allowed[row]
        k = match_interval_message(key_of, values_start, values_base, values32, values64, row_base, bucket_start,
                                   buckets, bitmaps, f_start, f_key8, f_key32, f_a, f_b, f_iface, attrs, m_off[m],
                                   m_off[m + 1], mask, q_of, rows, seen, buffer, 0)
        while offsets[m] + k > capacity:
            capacity *= 2
            grown = np.empty(capacity, np.int32)
            grown[:offsets[m]] = out[:offsets[m]]
            out = grown
        out[offsets[m]:offsets[m] + k] = buffer[:k]
        offsets[m + 1] = offsets[m] + k
    return offsets, out[:offsets[n_messages]].copy()


@njit(cache=CACHE)
def merge_csr(a_off, a_ids, b_off, b_ids):
    """Per message, the sorted union of two sorted CSR lists."""
    n = a_off.shape[0] - 1
    offsets = np.zeros(n + 1, np.int64)
    out = np.empty(a_ids.shape[0] + b_ids.shape[0], a_ids.dtype)
    k = 0
    for m in range(n):
        i, ie = a_off[m], a_off[m + 1]
        j, je = b_off[m], b_off[m + 1]
        while i < ie or j < je:
            if j >= je or (i < ie and a_ids[i] < b_ids[j]):
                out[k] = a_ids[i]
                i += 1
            elif i >= ie or b_ids[j] < a_ids[i]:
                out[k] = b_ids[j]
                j += 1
            else:
                out[k] = a_ids[i]
                i += 1
                j += 1
            k += 1
        offsets[m + 1] = k
    return offsets, out[:k].copy()


# ------------------------------------------------------------------ building
_SIGN = np.uint64(0x8000000000000000)
_LOW63 = np.int64(0x7FFFFFFFFFFFFFFF)
_I64_MIN = np.int64(-0x8000000000000000)
_I64_MAX = np.int64(0x7FFFFFFFFFFFFFFF)
_LOW32 = np.int64(0xFFFFFFFF)
_HIGH_ONE = np.int64(1) << np.int64(32)


@njit(cache=CACHE, inline="always")
def _closed(t, op, v):
    """Constraint ``x op v`` on an int or float (v: the int, or the double's
    bits) as a closed interval [lo, hi] of ordered int64 keys. Open ends
    become closed ones (a float's next key is the next double); ``x >
    INT64_MAX`` and ``x < INT64_MIN`` give lo > hi, which no value
    satisfies."""
    if t == T_FLOAT:
        v = v if v >= 0 else -(v & _LOW63)
    lo = _I64_MIN
    hi = _I64_MAX
    if op == OP_EQ or op == OP_GE:  # noqa: SIM109 - a tuple membership test does not compile in nopython mode
        lo = v
    if op == OP_EQ or op == OP_LE:  # noqa: SIM109 - as above
        hi = v
    if op == OP_GT:
        if v == _I64_MAX:
            return np.int64(1), np.int64(0)
        lo = v + 1
    if op == OP_LT:
        if v == _I64_MIN:
            return np.int64(1), np.int64(0)
        hi = v - 1
    return lo, hi


@njit(cache=CACHE)
def interval_groups(c_filter, c_name, c_type, c_op, c_value, name_id, eligible, rank_of_filter, in_rank_order,
                    n_ranks):
    """The constraints of the eligible filters as one closed interval [lo, hi]
    per (filter, key) (:func:`_closed`, intersected): (group's filter rank,
    its (name, type) code, lo, hi), in filter rank order, and per rank
    whether some interval of it is empty."""
    n = c_filter.shape[0]
    start = np.zeros(n_ranks + 1, np.int64)
    # rows already in filter order, filters in rank order (the usual
    # layout): each filter's rows are a run of the input as it is
    in_order = in_rank_order
    for r in range(1, n):
        if c_filter[r] < c_filter[r - 1]:
            in_order = False
            break
    for r in range(n):
        f = c_filter[r]
        if in_order or eligible[f]:
            start[rank_of_filter[f] + 1] += 1
    for k in range(n_ranks):
        start[k + 1] += start[k]
    rows = np.empty(0 if in_order else start[n_ranks], np.int64)
    if not in_order:
        fill = start[:-1].copy()
        for r in range(n):
            f = c_filter[r]
            if eligible[f]:
                k = rank_of_filter[f]
                rows[fill[k]] = r
                fill[k] += 1
    # per (name, type) code: the last rank that used it and its group
    # there (one look-up per row, where a search of the rank's codes so far
    # made the pass quadratic in the constraints per filter)
    n_codes = max(1, (np.max(name_id) + 1) * NTYPES) if name_id.shape[0] else 1
    last_rank = np.full(n_codes, -1, np.int64)
    group_of = np.empty(n_codes, np.int64)
    n_groups = 0
    for k in range(n_ranks):  # first the groups' number
        if in_order and not eligible[k]:
            continue
        for j in range(start[k], start[k + 1]):
            r = j if in_order else rows[j]
            code = name_id[c_name[r]] * NTYPES + np.int64(c_type[r])
            if last_rank[code] != k:
                last_rank[code] = k
                n_groups += 1
    g_filter = np.empty(n_groups, np.int32)
    g_code = np.empty(n_groups, np.int32)
    g_lo = np.empty(n_groups, np.int64)
    g_hi = np.empty(n_groups, np.int64)
    never = np.zeros(n_ranks, np.bool_)
    n_groups = 0
    last_rank[:] = -1
    for k in range(n_ranks):
        first = n_groups
        if in_order and not eligible[k]:
            continue
        for j in range(start[k], start[k + 1]):
            r = j if in_order else rows[j]
            t = np.int64(c_type[r])
            lo, hi = _closed(t, np.int64(c_op[r]), np.int64(c_value[r]))
            code = name_id[c_name[r]] * NTYPES + t
            if last_rank[code] == k:
                g = group_of[code]
            else:
                g = n_groups
                last_rank[code] = k
                group_of[code] = g
            if g == n_groups:
                g_filter[g] = k
                g_code[g] = code
                g_lo[g] = lo
                g_hi[g] = hi
                n_groups += 1
            else:
                g_lo[g] = max(g_lo[g], lo)
                g_hi[g] = min(g_hi[g], hi)
        for g in range(first, n_groups):
            if g_lo[g] > g_hi[g]:
                never[k] = True
    return g_filter, g_code, g_lo, g_hi, never


@njit(cache=CACHE)
def _radix_sort(u, idx, u2, idx2):
    """Sort u (uint64) with idx alongside, in place (u2, idx2: scratch at
    least as long): LSD radix, 11-bit digits, the digits where all values
    agree skipped."""
    n = u.shape[0]
    if n < 2:
        return
    changed = np.uint64(0)
    for i in range(1, n):
        changed |= u[i] ^ u[0]
    count = np.empty(2049, np.int64)
    src_u, src_i, dst_u, dst_i = u, idx, u2, idx2
    swapped = False
    for d in range(6):
        shift = np.uint64(11 * d)
        if not (changed >> shift) & np.uint64(0x7FF):
            continue
        count[:] = 0
        for i in range(n):
            count[((src_u[i] >> shift) & np.uint64(0x7FF)) + np.uint64(1)] += 1
        for b in range(2048):
            count[b + 1] += count[b]
        for i in range(n):
            b = (src_u[i] >> shift) & np.uint64(0x7FF)
            p = count[b]
            count[b] = p + 1
            dst_u[p] = src_u[i]
            dst_i[p] = src_i[i]
        src_u, src_i, dst_u, dst_i = dst_u, dst_i, src_u, src_i
        swapped = not swapped
    if swapped:
        for i in range(n):
            u[i] = src_u[i]
            idx[i] = src_i[i]


#: A key's ends are ranked by counting (one histogram over their span,
#: :func:`_dense_walk`) instead of sorting when the span is at most this many
#: times their number plus ``DENSE_SLACK``: the histogram then costs about what
#: one radix pass would, where the sort needs two or more (integer
#: attributes on a bounded domain, as in the issue-29 workload)
DENSE_SPAN_FACTOR = 2
DENSE_SLACK = 1 << 16


@njit(cache=CACHE)
def interval_positions(g_key, g_lo, g_hi, n_keys, n_buckets, dense=True):
    """Per key, its distinct interval ends, sorted (values_start; values_base,
    values32, values64 as ``match_interval_message`` takes them); each
    group's positions (g_a, g_b: ``2 * rank + 1`` of its lo and hi among its
    key's ends) and buckets (g_ja, g_jb); each key's ``n_buckets + 1``
    bucket starts (positions; buckets hold about as many ends each, and the
    last start is past every position); and each key's pass fraction: the
    mean share of its intervals that hold a value, over the values of its
    interval ends (the only sample of the messages' values a table has).

    The ends are laid out by key (counting: group i's lo and hi at slots p,
    p + 1 of its key's run, in group order), each run is ranked where it
    lies, by a histogram over its span when that is small
    (:func:`_dense_walk`; ``dense=False`` never does) or else by a radix
    sort (:func:`_sorted_walk`),
    and the groups then read their positions back in one sequential pass
    (writing them per key straight into the group arrays would sweep those
    arrays once per key)."""
    g = g_key.shape[0]
    run = np.zeros(n_keys + 1, np.int64)
    for i in range(g):
        run[g_key[i] + 1] += 2
    for k in range(n_keys):
        run[k + 1] += run[k]
    fill = run[:-1].copy()
    u = np.empty(2 * g, np.uint64)
    smallest = np.full(n_keys, _ALL)
    largest = np.zeros(n_keys, np.uint64)
    for i in range(g):
        k = g_key[i]
        p = fill[k]
        lo = np.uint64(g_lo[i]) ^ _SIGN
        hi = np.uint64(g_hi[i]) ^ _SIGN
        u[p] = lo
        u[p + 1] = hi
        fill[k] = p + 2
        smallest[k] = min(smallest[k], lo, hi)
        largest[k] = max(largest[k], lo, hi)
    by_histogram = np.zeros(n_keys, np.bool_)
    widest_span = np.int64(0)
    widest_run = np.int64(0)
    for k in range(n_keys):
        n = run[k + 1] - run[k]
        if dense and n >= 2 and largest[k] - smallest[k] < np.uint64(DENSE_SPAN_FACTOR * n + DENSE_SLACK):
            by_histogram[k] = True
            widest_span = max(widest_span, np.int64(largest[k] - smallest[k]) + 1)
        else:
            widest_run = max(widest_run, n)
    count = np.empty(widest_span, np.int64)
    slot = np.empty(widest_run, np.int32)
    u2 = np.empty(widest_run, np.uint64)
    slot2 = np.empty(widest_run, np.int32)
    q_of = np.empty(2 * g, np.int32)  # per slot: its end's position
    j_of = np.empty(2 * g, np.uint8)  # and bucket
    values_start = np.zeros(n_keys + 1, np.int64)
    values = np.empty(2 * g, np.int64)
    buckets = np.empty(n_keys * (n_buckets + 1), np.int64)
    passing = np.ones(n_keys)
    n_values = 0
    for k in range(n_keys):
        s, e = run[k], run[k + 1]
        first = k * (n_buckets + 1)
        if by_histogram[k]:
            n_values, inside, n_set = _dense_walk(u, s, e, smallest[k], largest[k], count, values, n_values,
                                                  q_of, j_of, buckets, first, n_buckets)
        else:
            for t in range(s, e):
                slot[t - s] = t
            _radix_sort(u[s:e], slot[:e - s], u2, slot2)
            n_values, inside, n_set = _sorted_walk(u, slot, s, e, values, n_values, q_of, j_of, buckets, first,
                                                   n_buckets)
        values_start[k + 1] = n_values
        for b in range(n_set, n_buckets + 1):
            buckets[first + b] = _I64_MAX
        if e > s:
            passing[k] = inside / (e - s) / ((e - s) // 2)
    g_a = np.empty(g, np.int32)
    g_b = np.empty(g, np.int32)
    g_ja = np.empty(g, np.uint8)
    g_jb = np.empty(g, np.uint8)
    fill[:] = run[:-1]
    for i in range(g):
        k = g_key[i]
        p = fill[k]
        fill[k] = p + 2
        g_a[i] = q_of[p]
        g_b[i] = q_of[p + 1]
        g_ja[i] = j_of[p]
        g_jb[i] = j_of[p + 1]
    values_base, values32, values64 = _narrow(values[:n_values], values_start)
    return values_start, values_base, values32, values64, g_a, g_b, g_ja, g_jb, buckets, passing


@njit(cache=CACHE, inline="always")
def _bucket_cut(s, e, n_set, n_buckets):
    """Bucket ``n_set`` of the ends ``s:e`` (sorted) starts at the first
    distinct end past sorted index ``s + n_set * (e - s) // n_buckets``
    (buckets hold about as many ends each); past the last bucket, never."""
    if n_set >= n_buckets:
        return _I64_MAX
    return s + (n_set * (e - s)) // n_buckets


@njit(cache=CACHE)
def _sorted_walk(u, slot, s, e, values, n_values, q_of, j_of, buckets, first, n_buckets):
    """One key's ends ``u[s:e]``, sorted, with the slot each came from
    (``slot[:e - s]``; even slots hold lo ends, odd ones hi ends): appends
    the distinct ends to ``values``, sets each slot's position and bucket
    and the key's bucket starts (from ``buckets[first]``). Returns
    (n_values, the pass fraction's sum, bucket starts placed)."""
    rank = -1
    hi_before = 0  # hi ends below the current value
    lo_through = 0  # lo ends up to the current value
    inside = 0.0
    buckets[first] = 0
    n_set = 1  # bucket starts placed
    cut = _bucket_cut(s, e, n_set, n_buckets)
    i = s
    while i < e:
        j = i
        rank += 1
        q = 2 * rank + 1
        values[n_values] = np.int64(u[i] ^ _SIGN)
        n_values += 1
        while j < e and u[j] == u[i]:
            j += 1
        while cut < j:
            buckets[first + n_set] = q
            n_set += 1
            cut = _bucket_cut(s, e, n_set, n_buckets)
        hi_here = 0
        for t in range(i, j):
            x = slot[t - s]
            q_of[x] = q
            j_of[x] = n_set - 1
            if x & 1:
                hi_here += 1
            else:
                lo_through += 1
        inside += (j - i) * (lo_through - hi_before)
        hi_before += hi_here
        i = j
    return n_values, inside, n_set


@njit(cache=CACHE)
def _dense_walk(u, s, e, smallest, largest, count, values, n_values, q_of, j_of, buckets, first, n_buckets):
    """:func:`_sorted_walk` for ends ``u[s:e]`` as they lie (lo ends at even
    slots) whose span ``largest - smallest`` is small: a histogram of the
    ends per value (a counting sort in one pass, the whole span as its
    radix; ``count[v]`` holds the lo ends in its low 32 bits and the hi ends
    in its high 32, so that an end touches one word), a scan of it in value
    order that leaves each value's position (low half) and bucket (high
    half) in place of its counts, then each slot looks its value's up. Same
    results, in O(ends + span) instead of a pass per radix digit."""
    span = np.int64(largest - smallest) + 1
    count[:span] = 0
    for t in range(s, e, 2):
        count[np.int64(u[t] - smallest)] += 1
        count[np.int64(u[t + 1] - smallest)] += _HIGH_ONE
    rank = -1
    hi_before = 0
    lo_through = 0
    inside = 0.0
    through = s  # sorted index past the ends up to the current value
    buckets[first] = 0
    n_set = 1
    cut = _bucket_cut(s, e, n_set, n_buckets)
    for v in range(span):
        c = count[v]
        if c == 0:
            continue
        lo_here = c & _LOW32
        hi_here = c >> 32
        rank += 1
        q = 2 * rank + 1
        values[n_values] = np.int64((smallest + np.uint64(v)) ^ _SIGN)
        n_values += 1
        through += lo_here + hi_here
        while cut < through:  # (one division per bucket, not per value)
            buckets[first + n_set] = q
            n_set += 1
            cut = _bucket_cut(s, e, n_set, n_buckets)
        lo_through += lo_here
        inside += (lo_here + hi_here) * (lo_through - hi_before)
        hi_before += hi_here
        count[v] = q | ((n_set - 1) << 32)  # from here on: the value's position and bucket
    for t in range(s, e):
        c = count[np.int64(u[t] - smallest)]
        q_of[t] = c & _LOW32
        j_of[t] = c >> 32
    return n_values, inside, n_set


@njit(cache=CACHE)
def _narrow(values, values_start):
    """The ends as uint32 offsets from their key's smallest when every key's
    span allows it (half the bytes): (values_base, values32, values64), the
    unused one of the last two empty."""
    n_keys = values_start.shape[0] - 1
    base = np.zeros(n_keys, np.int64)
    narrow = True
    for k in range(n_keys):
        if values_start[k + 1] > values_start[k]:
            base[k] = values[values_start[k]]
            if np.uint64(values[values_start[k + 1] - 1]) - np.uint64(base[k]) > np.uint64(0xFFFFFFFF):
                narrow = False
    if not narrow:
        return base, np.zeros(0, np.uint32), values.copy()
    values32 = np.empty(values.shape[0], np.uint32)
    for k in range(n_keys):
        for i in range(values_start[k], values_start[k + 1]):
            values32[i] = np.uint32(np.uint64(values[i]) - np.uint64(base[k]))
    return base, values32, np.zeros(0, np.int64)
