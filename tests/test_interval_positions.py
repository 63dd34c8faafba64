"""The interval index's build kernels (issue 29): ``interval_positions``
ranks each attribute's interval ends by a histogram over their span when it
is small (a counting sort with the whole span as its radix) and by a radix
sort otherwise; ``fill_bitmaps`` fills the bucket bitmaps a 64-filter word
at a time. Both are checked against a numpy oracle written from the
definitions (``np.unique``, ``np.searchsorted``), on adversarial ends: equal
values, int64 extremes, the ordered keys of floats with ±0.0 and the largest
doubles, and dense runs of small integers, with the histogram path forced on
and off."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbalgebra.matcher._intervals import fill_bitmaps, interval_positions

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
BUCKETS = 16
_LOW63 = np.int64(0x7FFFFFFFFFFFFFFF)


def float_key(x: float) -> int:
    """A double's ordered int64 key, as ``_intervals._closed`` makes it."""
    bits = int(np.float64(x).view(np.int64))
    return bits if bits >= 0 else -(bits & int(_LOW63))


EDGE_INTS = [I64_MIN, I64_MIN + 1, -1, 0, 1, I64_MAX - 1, I64_MAX]
EDGE_FLOATS = [float_key(x) for x in (-sys.float_info.max, -1.5, -0.0, 0.0, 5e-324, 1.5, sys.float_info.max)]
ENDS = st.one_of(st.integers(0, 40), st.integers(-3, 3), st.sampled_from(EDGE_INTS), st.sampled_from(EDGE_FLOATS),
                 st.integers(I64_MIN, I64_MAX))


@st.composite
def groups(draw) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    n_keys = draw(st.integers(1, 4))
    n = draw(st.integers(1, 60))
    keys = draw(st.lists(st.integers(0, n_keys - 1), min_size=n, max_size=n))
    # per key one family of ends, so that some keys are dense and others not
    family = draw(st.lists(st.sampled_from(["small", "any"]), min_size=n_keys, max_size=n_keys))
    lo, hi = [], []
    for k in keys:
        end = st.integers(0, 40) if family[k] == "small" else ENDS
        lo.append(draw(end))
        hi.append(draw(end))
    return (np.array(keys, np.int32), np.array(lo, np.int64), np.array(hi, np.int64), n_keys)


def oracle(g_key, g_lo, g_hi, n_keys, n_buckets):
    """The definitions of ``interval_positions``' results, key by key."""
    g = g_key.shape[0]
    values, starts = [], [0]
    g_a, g_b = np.zeros(g, np.int64), np.zeros(g, np.int64)
    g_ja, g_jb = np.zeros(g, np.int64), np.zeros(g, np.int64)
    buckets = np.full((n_keys, n_buckets + 1), I64_MAX, np.int64)
    passing = np.ones(n_keys)
    for k in range(n_keys):
        mine = np.flatnonzero(g_key == k)
        ends = np.sort(np.concatenate([g_lo[mine], g_hi[mine]]))
        distinct = np.unique(ends)
        values.extend(distinct.tolist())
        starts.append(len(values))
        if not mine.size:
            buckets[k, 0] = 0
            continue
        position = 2 * np.searchsorted(distinct, distinct) + 1
        through = np.searchsorted(ends, distinct, side="right")  # ends up to each distinct value
        n = ends.shape[0]
        buckets[k, 0] = 0
        for b in range(1, n_buckets):  # bucket b starts at the first value past sorted index b * n // n_buckets
            past = np.flatnonzero(through > b * n // n_buckets)
            buckets[k, b] = position[past[0]]
        g_a[mine] = 2 * np.searchsorted(distinct, g_lo[mine]) + 1
        g_b[mine] = 2 * np.searchsorted(distinct, g_hi[mine]) + 1
        g_ja[mine] = np.searchsorted(buckets[k], g_a[mine], side="right") - 1
        g_jb[mine] = np.searchsorted(buckets[k], g_b[mine], side="right") - 1
        lo_through = np.searchsorted(np.sort(g_lo[mine]), ends, side="right")
        hi_before = np.searchsorted(np.sort(g_hi[mine]), ends, side="left")
        passing[k] = float((lo_through - hi_before).sum()) / n / (n // 2)
    return np.array(starts), np.array(values, np.int64), g_a, g_b, g_ja, g_jb, buckets.ravel(), passing


def unpacked_values(values_start, values_base, values32, values64):
    """The ends as int64, from either layout of ``interval_positions``."""
    if values64.shape[0] or not values32.shape[0]:
        return values64
    key = np.repeat(np.arange(values_base.shape[0]), np.diff(values_start))
    return (values32.astype(np.uint64) + values_base[key].astype(np.uint64)).astype(np.int64)


@settings(max_examples=300, deadline=None)
@given(groups(), st.booleans())
def test_interval_positions_equal_the_sorted_definition(data, dense):
    g_key, g_lo, g_hi, n_keys = data
    got = interval_positions(g_key, g_lo, g_hi, n_keys, BUCKETS, dense)
    values_start, values_base, values32, values64, g_a, g_b, g_ja, g_jb, buckets, passing = got
    want = oracle(g_key, g_lo, g_hi, n_keys, BUCKETS)
    assert values_start.tolist() == want[0].tolist()
    assert unpacked_values(values_start, values_base, values32, values64).tolist() == want[1].tolist()
    for mine, theirs in zip((g_a, g_b, g_ja, g_jb, buckets), want[2:7], strict=True):
        assert mine.tolist() == theirs.tolist()
    assert passing.tolist() == want[7].tolist()


def test_a_dense_run_of_a_million_ends_is_ranked_by_its_histogram_as_by_the_sort():
    rng = np.random.default_rng(7)
    g = 200_000
    g_key = rng.integers(0, 3, g).astype(np.int32)
    lo = rng.integers(0, 300_000, g)
    g_lo, g_hi = lo, lo + rng.integers(0, 200_000, g)
    by_histogram = interval_positions(g_key, g_lo, g_hi, 3, BUCKETS, True)
    by_sort = interval_positions(g_key, g_lo, g_hi, 3, BUCKETS, False)
    for a, b in zip(by_histogram, by_sort, strict=True):
        assert a.tolist() == b.tolist()


def bitmaps_oracle(row_base, n_buckets, g_filter, g_key, g_ja, g_jb, n_filters, n_rows, n_words):
    """Bit f of row ``row_base[k] + j``: f does not constrain k or ja <= j <= jb;
    of row ``row_base[k] + n_buckets``: f does not constrain k; no padding bit."""
    bits = np.zeros((n_rows, n_words * 64), bool)
    for k, base in enumerate(row_base):
        if base < 0:
            continue
        bits[base:base + n_buckets + 1, :n_filters] = True
        mine = g_key == k
        for f, ja, jb in zip(g_filter[mine], g_ja[mine], g_jb[mine], strict=True):
            bits[base + n_buckets, f] = False
            for j in range(n_buckets):
                bits[base + j, f] = ja <= j <= jb
    return np.packbits(bits, axis=1, bitorder="little").view(np.uint64)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3), st.integers(0, 150), st.data())
def test_fill_bitmaps_sets_a_filter_in_the_buckets_its_interval_meets(n_keys, n_filters, data):
    bucketed = data.draw(st.lists(st.booleans(), min_size=n_keys, max_size=n_keys))
    row_base = np.where(bucketed, (np.cumsum(bucketed) - 1) * (BUCKETS + 1), -1).astype(np.int64)
    g_filter, g_key, g_ja, g_jb = [], [], [], []
    for f in range(n_filters):
        for k in sorted(data.draw(st.sets(st.integers(0, n_keys - 1)))):
            ja, jb = sorted(data.draw(st.lists(st.integers(0, BUCKETS - 1), min_size=2, max_size=2)))
            g_filter.append(f)
            g_key.append(k)
            g_ja.append(ja)
            g_jb.append(jb)
    columns = (np.array(g_filter, np.int32), np.array(g_key, np.int32), np.array(g_ja, np.uint8),
               np.array(g_jb, np.uint8))
    n_rows, n_words = int(sum(bucketed)) * (BUCKETS + 1), max(1, (n_filters + 63) // 64)
    bitmaps = np.empty((n_rows, n_words), np.uint64)
    fill_bitmaps(bitmaps, row_base, BUCKETS, columns[0], columns[1], columns[2], columns[3], n_filters)
    assert bitmaps.tolist() == bitmaps_oracle(row_base, BUCKETS, *columns, n_filters, n_rows, n_words).tolist()


def test_fill_bitmaps_refuses_groups_out_of_filter_order():
    bitmaps = np.empty((BUCKETS + 1, 1), np.uint64)
    with pytest.raises(ValueError, match="filter order"):
        fill_bitmaps(bitmaps, np.zeros(1, np.int64), BUCKETS, np.array([1, 0], np.int32), np.zeros(2, np.int32),
                     np.zeros(2, np.uint8), np.zeros(2, np.uint8), 2)
