"""cbalgebra.bits: LLVM's bit counting in compiled code, against Python's."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from cbalgebra.bits import population_count, trailing_zeros


@njit
def _counts(x):
    return population_count(x), trailing_zeros(x)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=2**64 - 1))
def test_population_count_and_trailing_zeros_agree_with_python_on_uint64(x):
    ones, zeros = _counts(np.uint64(x))
    assert int(ones) == x.bit_count()
    assert int(zeros) == (x & -x).bit_length() - 1


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1).filter(lambda x: x != 0))
def test_on_int64_they_count_the_twos_complement_bits(x):
    ones, zeros = _counts(np.int64(x))
    assert int(ones) == (x % 2**64).bit_count()
    assert int(zeros) == (x & -x).bit_length() - 1
