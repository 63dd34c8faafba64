"""The single-message path: ``forward``, ``encode_message`` / ``forward_encoded``
and ``forward_batch`` give the same interfaces, with 0 and 10 pre-processing
rounds, on every type and operator (issue 15 §3, §5)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable

ALL_STRING_OPS = {op: 1 for op in ("=", "!=", "<", ">", "<=", ">=", ">*", "*<", "*", "any")}
ALL_NUMBER_OPS = {op: 1 for op in ("=", "!=", "<", ">", "<=", ">=", "any")}


def mixed(seed: int, interfaces: int, per_interface: int) -> cb.workloads.ForwardingWorkload:
    return cb.workloads.forwarding(
        interfaces=interfaces, filters_per_interface=(1, per_interface + 1), messages=40, seed=seed,
        attribute_names=30, string_values=20, int_values=10,
        type_weights={"string": 0.4, "int": 0.3, "float": 0.2, "bool": 0.1},
        string_op_weights=ALL_STRING_OPS, int_op_weights=ALL_NUMBER_OPS, bool_op_weights={"=": 1, "!=": 1, "any": 1})


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 70), st.integers(1, 30), st.sampled_from(["strict", "sff"]))
def test_every_path_forwards_alike(seed, interfaces, per_interface, numbers):
    w = mixed(seed, interfaces, per_interface)
    table = w.table(preprocessing_rounds=10, numbers=numbers)
    no_rounds = table.with_preprocessing_rounds(0)
    predicates = w.predicates()
    expected = [[i for i in sorted(predicates) if cb.matches(predicates[i], m, numbers=numbers)] for m in w.messages]
    for t in (table, no_rounds):
        assert [t.forward(m).tolist() for m in w.messages] == expected
        assert [t.forward_encoded(table.encode_message(m)).tolist() for m in w.messages] == expected
        for threads in (1, 2):
            assert [r.tolist() for r in t.forward_batch(w.messages, threads=threads)] == expected
    some = list(range(0, interfaces, 2))
    assert [table.forward(m, broadcast=some).tolist() for m in w.messages] == [
        [i for i in e if i in some] for e in expected]


def test_encoded_message_belongs_to_its_table_and_mode():
    a = ForwardingTable.compile({0: cb.parse_filter("[x > 1]")})
    b = ForwardingTable.compile({0: cb.parse_filter("[x > 1]")})
    m = cb.parse_message("[x = 2]")
    encoded = a.encode_message(m)
    assert a.forward_encoded(encoded).tolist() == [0]
    assert a.with_preprocessing_rounds(0).forward_encoded(encoded).tolist() == [0]
    with pytest.raises(ValueError, match="another table"):
        b.forward_encoded(encoded)
    with pytest.raises(ValueError, match="another table"):
        a.with_numbers("sff").forward_encoded(encoded)
    with pytest.raises(TypeError):
        a.forward("[x = 2]")  # type: ignore[arg-type]  # the wrong type on purpose


def test_long_strings_after_the_scratch_grew_elsewhere():
    """``forward`` keeps its kernel arguments per thread; when a batch (or a
    longer value) grows the thread's scratch, the next ``forward`` must use
    the new one, for values longer than the old capacity too."""
    predicates = {0: cb.parse_filter('[s *= "needle"]'), 1: cb.parse_filter('[s >* "ab"]'),
                  2: cb.parse_filter('[s *< "yz", n > 3]')}
    table = ForwardingTable.compile(predicates)
    values = ["ab", "x" * 70 + "needle", "ab" + "q" * 300 + "yz", "a" * 1000 + "needle" + "yz", "needle"]
    messages = [cb.Message({"s": v, "n": k + 2}) for k, v in enumerate(values)]
    expected = [[i for i in sorted(predicates) if cb.matches(predicates[i], m)] for m in messages]
    assert table.forward(messages[0]).tolist() == expected[0]  # small scratch
    assert [r.tolist() for r in table.forward_batch(messages[:3], threads=1)] == expected[:3]  # grows it
    assert [table.forward(m).tolist() for m in messages] == expected  # grows it again, on the way
    assert [table.forward_encoded(table.encode_message(m)).tolist() for m in reversed(messages)] == expected[::-1]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["int32", "int64", "uint8", "uint64", "int8"]),
                          st.integers(0, 9), st.booleans()), min_size=1, max_size=8))
def test_packed_arrays_are_views_with_the_same_contents(specs):
    import numpy as np

    from cbalgebra.matcher.layout import pack_arrays

    rng = np.random.default_rng(len(specs))
    arrays = tuple(rng.integers(0, 100, size=(n, 3) if two_d else n).astype(dtype) for dtype, n, two_d in specs)
    buffer, layout, views = pack_arrays(arrays, (None,) * len(arrays))
    for a, v, (start, end, rows) in zip(arrays, views, layout, strict=True):
        assert v.dtype == a.dtype and v.shape == a.shape and np.array_equal(v, a)
        assert v.size == 0 or (v.flags.c_contiguous and np.shares_memory(v, buffer))
        assert start % 8 == 0 and end - start == a.nbytes and rows == (a.shape[0] if a.ndim == 2 else -1)
    # the buffer starts with its own layout (what forward_one reads)
    assert np.array_equal(buffer[:layout.nbytes].view(np.int64).reshape(layout.shape), layout)
    with pytest.raises(TypeError, match="dtype"):
        pack_arrays((np.zeros(2, np.int64),), (np.int32,))


@pytest.mark.parametrize("interfaces", [3, 300])  # compact and wide layouts (uint8 / int32 counters)
def test_the_compiled_table_and_scratch_have_the_declared_fields(interfaces):
    """The layout is declared once (``matcher/layout.py``): the arrays a
    compiled table and its scratch hold have the declared dtypes and
    dimensions, and compiled code rebuilds the same named tuples from the
    packed buffers and from plain tuples, field by field."""
    import numpy as np
    from numba import njit

    from cbalgebra.matcher import _views
    from cbalgebra.matcher.layout import SCRATCH_DTYPES, TABLE_DTYPES, Params, Scratch, TableArrays, columns

    @njit
    def rebuilt(one_table, one_scratch, plain_table, plain_scratch):
        return (_views.unpack_named(one_table, TableArrays), _views.unpack_scalars(one_table, TableArrays, Params),
                _views.unpack_named(one_scratch, Scratch), _views.borrow_table(plain_table),
                _views.borrow_scratch(plain_scratch))

    predicates = {i: cb.parse_predicate(f'string s *= "n{i}" && int x > {i} || bool b = true && float f < {i}.5')
                  for i in range(interfaces)}
    table = ForwardingTable.compile(predicates, preprocessing_rounds=3)
    assert [r.tolist() for r in table.forward_batch([cb.Message({"s": "n1", "x": 5})], threads=1)] == [[1]]
    compiled = table._compiled
    scratch = table._local.scratch
    declared = {TableArrays: columns(TableArrays), Scratch: columns(Scratch)}
    assert tuple(c.dtype for c in declared[TableArrays]) == TABLE_DTYPES
    assert tuple(c.dtype for c in declared[Scratch]) == SCRATCH_DTYPES
    one = rebuilt(compiled.one_table, table._local.one_scratch, compiled.arrays_tuple, table._local.scratch_tuple)
    assert one[1] == compiled.params and type(one[1]) is Params
    for named, got in ((compiled.arrays, one[0]), (scratch, one[2]), (compiled.arrays, one[3]), (scratch, one[4])):
        assert type(got) is type(named) and got._fields == named._fields
        for column, name, want, have in zip(declared[type(named)], named._fields, named, got, strict=True):
            assert want.dtype == (column.dtype or want.dtype) and want.ndim == column.ndim, name
            assert have.dtype == want.dtype and have.shape == want.shape and np.array_equal(have, want), name


def test_forward_and_forward_batch_share_one_stamp_sequence():
    """A substring found twice in a value counts once per message, through a
    mark stamped with the message's number; ``forward`` and
    ``forward_batch`` on one thread share the scratch, so they must share
    the numbering too, or a message would see its predecessor's marks."""
    predicates = {0: cb.parse_filter('[s * "ab", n > 1]'), 1: cb.parse_filter('[s * "b", s * "ab"]')}
    table = ForwardingTable.compile(predicates)
    messages = [cb.Message({"s": "abab", "n": 2}), cb.Message({"s": "xabx", "n": 0}), cb.Message({"s": "zz", "n": 5})]
    expected = [[i for i in sorted(predicates) if cb.matches(predicates[i], m)] for m in messages]
    assert expected == [[0, 1], [1], []]
    for _ in range(3):
        # a message without the pattern between two with it: a numbering
        # that restarted would give the third the first one's stamp
        for _ in range(2):
            assert [r.tolist() for r in table.forward_batch([messages[0], messages[2]], threads=1)] == [
                expected[0], []]
        assert [table.forward(m).tolist() for m in messages] == expected
        assert table.forward_encoded(table.encode_message(messages[0])).tolist() == expected[0]
