"""The compiled helpers that let a cold first forward() compile less
(issue 28 §6) give what the code they replace gave: the empty automata,
the scratch made by numpy or by compiled code, the heapsort of a message's
matches, and typed views of a buffer at byte offsets."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from cbalgebra.matcher._automaton import build_automata, no_automata
from cbalgebra.matcher._message import _sort_small, make_scratch, make_scratch_jit
from cbalgebra.matcher._views import _view_at
from cbalgebra.matcher.layout import Params


@given(st.integers(0, 40))
@settings(max_examples=20, deadline=None)
def test_no_automata_is_what_the_builder_returns_for_no_pattern(n_keys):
    empty = np.zeros(0, np.int64)
    built = build_automata(empty, empty, empty, np.zeros(0, np.uint32), np.zeros(1, np.int64), n_keys)
    made = no_automata(n_keys)
    for b, m in zip(built, made, strict=True):
        assert b.dtype == m.dtype and b.tolist() == m.tolist()


@njit
def _sort_small_from_python(values, lo, hi):
    """``_sort_small`` has no entry for Python (only compiled code calls it)."""
    _sort_small(values, lo, hi)


@given(st.lists(st.integers(0, 2**31 - 1), max_size=300), st.integers(0, 5), st.integers(0, 5))
@settings(max_examples=200, deadline=None)
def test_sort_small_sorts_the_slice_and_leaves_the_rest(values, before, after):
    """Insertion sort up to 32 values, heapsort beyond; numpy is the oracle."""
    rng = np.random.default_rng(len(values))
    whole = np.concatenate([rng.integers(0, 9, before), values, rng.integers(0, 9, after)]).astype(np.int32)
    got = whole.copy()
    _sort_small_from_python(got, before, before + len(values))
    expected = whole.copy()
    expected[before:before + len(values)].sort()
    assert got.tolist() == expected.tolist()


@given(st.integers(0, 50), st.integers(0, 9), st.integers(0, 300), st.sampled_from([np.uint8, np.int32]))
@settings(max_examples=30, deadline=None)
def test_the_scratch_is_the_same_made_by_numpy_and_by_compiled_code(n, rounds, maxlen, counter_dtype):
    params = Params(n_keys=n, n_names=n + 1, n_interfaces=2 * n, n_words=n // 64 + 1, info_shift=8, rounds=rounds,
                    hash_mask=7, substring_base=n, n_substrings=n // 2, n_filters=3 * n, n_live=n, max_ranges=n + 9)
    proto = np.zeros(0, counter_dtype)
    by_numpy, compiled = make_scratch(params, proto, maxlen), make_scratch_jit(params, proto, maxlen)
    assert by_numpy._fields == compiled._fields
    for a, b in zip(by_numpy, compiled, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape


@njit
def _int32_view(raw, start, end):
    return _view_at(raw, start, end, np.int32).copy()


@given(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=20), st.data())
@settings(max_examples=50, deadline=None)
def test_view_at_takes_byte_offsets_into_an_array_of_any_dtype(values, data):
    raw = np.array(values, np.int64)
    start = 4 * data.draw(st.integers(0, 2 * len(values)))
    end = 4 * data.draw(st.integers(start // 4, 2 * len(values)))
    assert _int32_view(raw, start, end).tolist() == raw.view(np.uint8)[start:end].view(np.int32).tolist()
