"""The counting step of Carzaniga & Wolf, Forwarding in a Content-Based
Network, SIGCOMM 2003, §4 (Figure 4), in compiled code: the filters linked
from the constraints an attribute satisfies are counted, and a filter whose
count reaches its size matches its interface.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cbalgebra.matcher._numba_cache import CACHE, COMPILED_CALLERS_ONLY
from cbalgebra.matcher._views import _cttz
from cbalgebra.matcher.layout import MATCHED, OUT_BASE, REMAINING, TOUCHED

# Two ways of inlining are used here. ``inline="always"`` is numba's: the
# callee's intermediate code is copied into each caller before typing, and
# numba types and lowers every copy (and copies in time that grows with the
# callee's size times its number of variables). ``forceinline=True`` is
# LLVM's: numba compiles the function once, marks it ``alwaysinline``, and
# LLVM inlines the machine code into each caller, where the arrays without
# owner are known to have none. The small helpers are numba's, the loops of
# many lines LLVM's (``_count_links``: 0.5 s less of a cold first
# ``forward()``, and the kernels ran no slower, benchmarks/forward.py).

BLOCK = 64  # links gathered per block in _count_links
SKIP_FACTOR = 8  # galloping search per candidate interface above this many links each


@njit(cache=CACHE, forceinline=True, **COMPILED_CALLERS_ONLY)
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
            n_touched, i = _count_filter(links[pos], filter_info, shift, size_mask, counters, touched, n_touched)
            pos += one
            if i >= 0:
                n_matched += _output(i, done, out, out_base + n_matched)
                remaining -= 1
                if remaining == 0:
                    return _save_progress(progress, n_touched, n_matched, 0)
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
            n_touched, i = _count_filter(link_buffer[j], filter_info, shift, size_mask, counters, touched, n_touched)
            # (an interface may have matched earlier in this block)
            if i >= 0 and _output(i, done, out, out_base + n_matched):
                n_matched += 1
                remaining -= 1
                if remaining == 0:
                    return _save_progress(progress, n_touched, n_matched, 0)
        pos = hi
    return _save_progress(progress, n_touched, n_matched, remaining)


@njit(cache=CACHE, inline="always")
def _count_filter(f, filter_info, shift, size_mask, counters, touched, n_touched):
    """One more constraint of filter ``f`` holds: count it, and append ``f``
    to ``touched`` (its end, ``n_touched``, moves only on f's first count).
    Returns (the new ``n_touched``, f's interface if every constraint of f
    now holds, else -1)."""
    one = np.uint64(1)
    info = np.uint64(filter_info[np.uint64(f)])
    count = np.uint64(counters[np.uint64(f)]) + one
    counters[np.uint64(f)] = count
    touched[n_touched] = f
    n_touched += np.uint64(count == one)
    if count == info & size_mask:
        return n_touched, np.int64(info >> shift)
    return n_touched, np.int64(-1)


@njit(cache=CACHE, inline="always")
def _output(i, done, out, at):
    """Interface ``i`` matches: unless it is done already, mark it done and
    write it at ``out[at]``. Returns 1 if it was written, else 0."""
    bit = np.uint64(1) << np.uint64(i & 63)
    if done[i >> 6] & bit:
        return 0
    done[i >> 6] |= bit
    out[at] = i
    return 1


@njit(cache=CACHE, inline="always")
def _save_progress(progress, n_touched, n_matched, remaining):
    """Leave the counting's state in ``progress``; returns ``remaining``."""
    progress[TOUCHED] = np.int64(n_touched)
    progress[MATCHED] = n_matched
    progress[REMAINING] = remaining
    return remaining


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
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
            # int64 positions, as _visit_skipping passes them: _count_links compiles for one signature
            remaining = _count_links(np.int64(link_start[c_lo]), np.int64(link_start[c_hi]), links, link_interface,
                                     filter_info, shift, size_mask, counters, touched, done, out, progress,
                                     link_buffer, n_live)
        else:
            remaining = _visit_skipping(c_lo, c_hi, link_start, links, link_interface, filter_info, shift, size_mask,
                                        counters, touched, done, out, progress, link_buffer, interface_filters)
        if remaining == 0:
            return 0
    return remaining


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
def _visit_skipping(c_lo, c_hi, link_start, links, link_interface, filter_info, shift, size_mask, counters, touched,
                    done, out, progress, link_buffer, interface_filters):
    """``_visit`` once few candidates are left: the links of each candidate
    interface are found by galloping search, and those of the other
    interfaces are skipped without being read (the first shortcut of
    Carzaniga & Wolf, SIGCOMM 2003, §4.1, applied to whole runs of links)."""
    n_words = done.shape[0]
    # positions as int64 throughout: _count_links and _links_from are then
    # compiled for one signature, not for int32 and int64 both (1 s cold).
    # _count_links is inlined by LLVM at its three calls here (numba's
    # inlining of it here doubled the cold compile; LLVM's copies cost
    # less than a function of its own, 0.1 s)
    run = np.int64(link_start[c_lo])  # consecutive small constraints are read as one run of links
    for c in range(c_lo, c_hi):
        a = np.int64(link_start[c])
        b = np.int64(link_start[c + 1])
        if b - a <= SKIP_FACTOR * progress[REMAINING] + 4 * n_words:
            continue
        # (n_live = -1: some interfaces are done here, so the links are always gathered)
        if run < a and _count_links(run, a, links, link_interface, filter_info, shift, size_mask, counters, touched,
                                    done, out, progress, link_buffer, np.int64(-1)) == 0:
            return 0
        run = b
        for w in range(n_words):
            candidates = ~done[w]  # padding and dead interfaces are set in done
            while candidates:
                i = w * 64 + np.int64(_cttz(candidates))
                candidates &= candidates - np.uint64(1)
                s = _links_from(links, a, b, interface_filters[i])
                e = _links_from(links, s, b, interface_filters[i + 1])
                if s < e and _count_links(s, e, links, link_interface, filter_info, shift, size_mask, counters,
                                          touched, done, out, progress, link_buffer, np.int64(-1)) == 0:
                    return 0
                a = e
    if run < link_start[c_hi]:
        return _count_links(run, np.int64(link_start[c_hi]), links, link_interface, filter_info, shift, size_mask,
                            counters, touched, done, out, progress, link_buffer, np.int64(-1))
    return progress[REMAINING]
