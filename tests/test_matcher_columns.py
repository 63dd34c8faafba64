"""The one encoder from predicates to forwarding-table columns
(``cbalgebra.matcher.encode_predicates``, ``ColumnEncoder``, ``TableColumns``).

Differential tests: the encoder's columns against a plain reference encoder
written here (one constraint at a time, floats through ``struct``), the
tables compiled from them array for array, the decoding back into
predicates, and every caller (``ForwardingTable.compile``, the bulk document
reader, the workload generator, the routing schemes' predicate pool) against
compiling the same predicates directly."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import dense_predicates, predicates
from test_matcher_bulk import assert_same_table, documents

import cbalgebra as cb
from cbalgebra.matcher import ColumnEncoder, ForwardingTable, TableColumns, decode_value, encode_predicates
from cbalgebra.matcher.document import read_document, table_from_document
from cbalgebra.values import Filter, Predicate

TABLES = st.dictionaries(st.integers(0, 6), st.one_of(predicates(), dense_predicates(), dense_predicates().map(
    lambda p: p.filters[0] if p.filters else Filter(()))), max_size=5)

TYPE_CODES = {"string": 0, "int": 1, "float": 2, "bool": 3, "any": 4}
OP_CODES = {"=": 0, "!=": 1, "<": 2, ">": 3, "<=": 4, ">=": 5, ">*": 6, "*<": 7, "*": 8, "any": 9}


def reference_columns(table) -> dict:
    """The columns of ``from_arrays``, encoded the plain way."""
    names: list[str] = []
    strings: list[str] = []
    out: dict[str, list] = {k: [] for k in ("filter_interface", "c_filter", "c_name", "c_type", "c_op", "c_value")}

    def number(pool: list[str], s: str) -> int:
        if s not in pool:
            pool.append(s)
        return pool.index(s)

    for iface, pred in table.items():
        for f in ((pred,) if isinstance(pred, Filter) else pred.filters):
            out["filter_interface"].append(iface)
            for c in f.constraints:
                out["c_filter"].append(len(out["filter_interface"]) - 1)
                out["c_name"].append(number(names, c.name))
                out["c_type"].append(TYPE_CODES[c.type])
                out["c_op"].append(OP_CODES[c.op])
                if c.op == "any":
                    value = 0
                elif c.type == "string":
                    value = number(strings, c.value)
                elif c.type == "float":
                    value = struct.unpack("<q", struct.pack("<d", c.value))[0]
                else:
                    value = int(c.value)
                out["c_value"].append(value)
    return {"interfaces": list(table), **out, "names": names, "strings": strings}


def test_the_reference_codes_are_the_values_codes():
    assert TYPE_CODES == cb.values.TYPE_CODE
    assert OP_CODES == cb.values.OP_CODE


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TABLES)
def test_encoder_columns_equal_the_reference_and_compile_alike(table):
    columns = encode_predicates(table)
    expected = reference_columns(table)
    for name, want in expected.items():
        got = getattr(columns, name)
        if name in ("names", "strings"):
            assert list(got) == want, name
        else:
            assert got.tolist() == want, name
    assert columns.c_type.dtype == columns.c_op.dtype == np.int8 and columns.c_value.dtype == np.int64
    # the compiled tables, array for array, from the encoder and from the reference columns
    reference = ForwardingTable.from_arrays(**expected)
    assert_same_table(ForwardingTable.compile(table), reference)
    assert_same_table(ForwardingTable.from_arrays(**columns.arrays()), reference)


@settings(max_examples=200, deadline=None)
@given(TABLES)
def test_decoding_inverts_encoding(table):
    as_predicates = {i: Predicate((p,)) if isinstance(p, Filter) else p for i, p in table.items()}
    assert encode_predicates(table).predicates() == as_predicates


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_the_bulk_reader_and_the_encoder_compile_documents_alike(text):
    try:
        doc = read_document(text)
    except cb.ParseError:
        return
    rounds = 10 if doc.preprocessing_limit is None else doc.preprocessing_limit
    assert_same_table(table_from_document(text),
                      ForwardingTable.from_arrays(**encode_predicates(doc.predicates).arrays(),
                                                  preprocessing_rounds=rounds))


def test_take_numbers_filters_from_zero_and_keeps_the_interners():
    encoder = ColumnEncoder()
    encoder.add(3, cb.parse_predicate('[a = 1, s = "x"] || [b > 2.5]').filters)
    first_interfaces, first = encoder.take()
    encoder.add(5, cb.parse_predicate('[s = "y", a < 2] || [s = "x"]').filters)
    second_interfaces, second = encoder.take()
    assert first_interfaces.tolist() == [3, 3] and second_interfaces.tolist() == [5, 5]
    assert first[0].tolist() == [0, 0, 1] and second[0].tolist() == [0, 0, 1]
    assert list(encoder.names) == ["a", "s", "b"] and list(encoder.strings) == ["x", "y"]
    assert decode_value(2, int(first[4][2]), []) == 2.5
    # a taken encoder holds nothing more; the interfaces it saw stay declared
    assert encoder.columns().filter_interface.size == 0 and list(encoder.interfaces) == [3, 5]


@pytest.mark.parametrize(("table", "error"), [
    ({-1: Predicate()}, ValueError), ({True: Predicate()}, TypeError), ({"1": Predicate()}, TypeError),
    ({1: "[a = 1]"}, TypeError),
])
def test_bad_entries_raise_what_compile_raises(table, error):
    with pytest.raises(error):
        encode_predicates(table)
    with pytest.raises(error):
        ForwardingTable.compile(table)


@pytest.mark.parametrize("seed", range(3))
def test_workload_columns_decode_to_the_predicates_they_compile_as(seed):
    w = cb.workloads.forwarding(interfaces=5, filters_per_interface=(0, 12), messages=3, seed=seed,
                                type_weights={"string": 1, "int": 1, "float": 1, "bool": 1})
    assert isinstance(w, TableColumns)
    assert_same_table(w.table(), ForwardingTable.compile(w.predicates()))
    assert_same_table(w.table(), ForwardingTable.from_arrays(**encode_predicates(w.predicates()).arrays()))


@pytest.mark.parametrize("scheme", ["psf", "pif", "siena"])
@pytest.mark.parametrize("reducer", [None, "cover"])
def test_routing_tables_equal_their_predicates_compiled(scheme, reducer):
    """The predicate pool's gathered tables against compiling each
    processor's interfaces from Predicate values."""
    from cbalgebra.network import build, topology
    from cbalgebra.network.workload import processor_predicates

    graph = topology("power_law", 14, seed=3, model="chung_lu", gamma=2.5)
    routing = build(scheme, graph, processor_predicates(14, 4, seed=3), reducer=reducer)
    # the rows each table was gathered from (private state, read by the test only)
    pool = routing._pool
    for u, table in routing.tables.items():
        rows = routing._table_rows.get(u, routing._rows.get(u, []))
        per_interface: dict[int, list[Filter]] = {int(i): [] for i in table.interfaces}
        for iface, ids in rows:
            per_interface[iface].extend(f for p in ids for f in pool.predicates[p].filters)
        expected = ForwardingTable.compile({i: Predicate(fs) for i, fs in per_interface.items()})
        assert_same_table(table, expected)
