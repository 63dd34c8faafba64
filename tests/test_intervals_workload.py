"""The interval workload of the REIN/TAMA/OpIndex/H-Tree framework
(``cb.workloads.intervals``): parameters, laws, determinism, the brute-force
answer against ``cb.matches`` and the table, SFF and engine files."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.matcher import read_document
from cbalgebra.matcher._bulk import table_columns
from cbalgebra.values import OP_CODE, TYPE_CODE
from cbalgebra.workloads import ENGINE_INPUT_MAGIC, IntervalWorkload, write_sff_document


def _digest(w: IntervalWorkload) -> str:
    h = hashlib.sha256()
    for a in (w.attribute, w.low, w.high, w.event_values):
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return h.hexdigest()


def test_seeded_and_the_subscriptions_do_not_depend_on_the_events():
    a = cb.workloads.intervals(2000, events=50, seed=11)
    b = cb.workloads.intervals(2000, events=50, seed=11)
    c = cb.workloads.intervals(2000, events=50, seed=12)
    assert _digest(a) == _digest(b) != _digest(c)
    d = cb.workloads.intervals(2000, events=7, seed=11)
    assert np.array_equal(a.attribute, d.attribute) and np.array_equal(a.low, d.low)
    assert np.array_equal(a.event_values[:7], d.event_values)


def test_golden_values():
    # the same seed gives the same workload on any machine (PCG64 through integers()/random() only)
    w = cb.workloads.intervals(3, attributes=6, per_subscription=3, value_range=100, events=2, seed=2014)
    assert (w.attribute.tolist(), w.low.tolist(), w.event_values.tolist()) == GOLDEN


GOLDEN = ([[5, 0, 1], [5, 2, 1], [4, 3, 5]], [[22, 26, 27], [39, 14, 42], [49, 23, 38]],
          [[38, 73, 29, 16, 32, 25], [70, 48, 79, 69, 45, 68]])


@pytest.mark.parametrize("distribution", ["uniform", "zipf"])
@pytest.mark.parametrize("n, attributes, k, domain, width", [
    (3000, 20, 10, 1_000_000, 0.5), (500, 7, 7, 10, 0.3), (800, 30, 1, 2**31 - 1, 0.01), (100, 5, 2, 50, 1.0)])
def test_parameters_are_respected(distribution, n, attributes, k, domain, width):
    w = cb.workloads.intervals(n, attributes, k, domain, width=width, distribution=distribution, events=40, seed=5)
    assert w.attribute.shape == w.low.shape == w.high.shape == (n, k)
    assert w.event_values.shape == (40, attributes) and w.names == [f"a{i}" for i in range(attributes)]
    # distinct attributes within a subscription
    assert all(len(set(row)) == k for row in w.attribute.tolist())
    assert w.attribute.min() >= 0 and w.attribute.max() < attributes
    # the framework's law: low uniform in [0, int(D (1 - width))), high = low + int(D width)
    low_span, extent = int(domain * (1.0 - width)), int(domain * width)
    assert (w.high - w.low == extent).all()
    assert w.low.min() >= 0 and w.low.max() < max(low_span, 1) and w.high.max() < domain + (low_span == 0)
    assert w.event_values.min() >= 0 and w.event_values.max() < domain
    assert w.params == dict(subscriptions=n, attributes=attributes, per_subscription=k, value_range=domain,
                            width=width, distribution=distribution, alpha=1.0, events=40, seed=5)


def test_values_are_uniform_and_match_half_the_time():
    w = cb.workloads.intervals(20_000, per_subscription=1, events=2000, seed=3)
    assert abs(w.low.mean() / 250_000 - 1) < 0.01 and abs(w.event_values.mean() / 500_000 - 1) < 0.01
    # a predicate of width 0.5 holds for about half the values
    hits = np.mean([len(w.matching(e)) for e in range(200)]) / 20_000
    assert abs(hits - 0.5) < 0.03


def test_zipf_skews_the_attributes_and_uniform_does_not():
    n, k = 20_000, 10
    uniform = np.bincount(cb.workloads.intervals(n, events=0, seed=1).attribute.ravel(), minlength=20)
    zipf = np.bincount(cb.workloads.intervals(n, events=0, distribution="zipf", seed=1).attribute.ravel(),
                       minlength=20)
    assert uniform.sum() == zipf.sum() == n * k
    # uniform: every attribute in half the subscriptions (10 of 20)
    assert np.abs(uniform / n - 0.5).max() < 0.02
    # zipf: the popularity falls with the rank; a0 is in almost every subscription
    assert (np.diff(zipf) < 0).sum() >= 17 and zipf[0] > 0.95 * n and zipf[-1] < 0.35 * n
    # a larger exponent skews more
    steep = np.bincount(cb.workloads.intervals(n, events=0, distribution="zipf", alpha=2.0, seed=1)
                        .attribute.ravel(), minlength=20)
    assert steep[-1] < zipf[-1] and steep[0] >= zipf[0]


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32), n=st.integers(0, 60), attributes=st.integers(1, 8), k=st.integers(1, 8),
       domain=st.integers(1, 40), width=st.sampled_from([0.05, 0.3, 0.5, 0.9, 1.0]),
       distribution=st.sampled_from(["uniform", "zipf"]))
def test_brute_force_answer_is_cb_matches(seed, n, attributes, k, domain, width, distribution):
    k = min(k, attributes)
    w = cb.workloads.intervals(n, attributes, k, domain, width=width, distribution=distribution, events=6,
                               seed=seed)
    subscriptions = list(w.subscriptions())
    assert all(f.size == 2 * k for f in subscriptions)
    for e, m in enumerate(w.messages):
        assert w.matching(e).tolist() == [s for s, f in enumerate(subscriptions) if cb.matches(f, m)]


def test_table_answers_the_matching_subscriptions():
    w = cb.workloads.intervals(3000, value_range=100, events=60, seed=9)
    table = w.table()
    for e, m in enumerate(w.messages):
        assert table.forward(m).tolist() == w.matching(e).tolist()
    assert sum(len(w.matching(e)) for e in range(w.n_events)) > 0


def test_sff_is_the_project_writer_text_and_reads_back():
    w = cb.workloads.intervals(300, value_range=1000, width=0.4, events=25, seed=4)
    fast = io.StringIO()
    w.write_sff(fast)
    reference = io.StringIO()
    write_sff_document(reference, w.predicates(), w.messages, comment=f"cbalgebra.workloads.intervals {w.params}")
    assert fast.getvalue() == reference.getvalue()
    doc = read_document(fast.getvalue())
    assert doc.messages == w.messages
    for s, f in w.predicates().items():
        assert cb.covers(doc.predicates[s], f) and cb.covers(f, doc.predicates[s])
    only_table = io.StringIO()
    w.write_sff(only_table, messages=False)
    assert "select" not in only_table.getvalue() and only_table.getvalue().count("ifconfig") == 300


@pytest.mark.slow
def test_sff_round_trip_at_full_size(tmp_path):
    # the writer at the benchmark's size: 1,000,000 subscriptions through the bulk SFF reader
    w = cb.workloads.intervals(events=20, seed=1)
    path = tmp_path / "intervals.sff"
    w.write_sff(path)
    back = table_columns(path.read_text())
    assert back.statements == {"bulk": 1_000_000, "full": 20}
    assert back.messages == w.messages
    assert np.array_equal(back.filter_interface, np.arange(1_000_000))
    assert (back.c_type == TYPE_CODE["int"]).all()
    # rows in the file's order: per subscription, names as strings, then `<` high + 1 before `>` low - 1
    names = np.array(back.names, dtype=object)
    rank = np.argsort(np.argsort(np.array(w.names, dtype=object)))
    order = np.argsort(rank[w.attribute], axis=1)
    attribute = np.take_along_axis(w.attribute, order, axis=1)
    assert np.array_equal(names[back.c_name.reshape(-1, 20)[:, 0::2]], np.array(w.names, dtype=object)[attribute])
    assert np.array_equal(back.c_filter, np.repeat(np.arange(1_000_000), 20))
    ops = back.c_op.reshape(-1, 20)
    assert (ops[:, 0::2] == OP_CODE["<"]).all() and (ops[:, 1::2] == OP_CODE[">"]).all()
    values = back.c_value.reshape(-1, 20)
    assert np.array_equal(values[:, 0::2], np.take_along_axis(w.high, order, axis=1) + 1)
    assert np.array_equal(values[:, 1::2], np.take_along_axis(w.low, order, axis=1) - 1)


def test_engine_input_file(tmp_path):
    w = cb.workloads.intervals(1234, attributes=9, per_subscription=4, value_range=5000, events=17, seed=8)
    path = tmp_path / "w.bin"
    w.write_engine_input(path)
    data = np.fromfile(path, dtype="<i4")
    assert data[:6].tolist() == [ENGINE_INPUT_MAGIC, 1234, 9, 4, 5000, 17]
    triples = data[6:6 + 1234 * 4 * 3].reshape(1234, 4, 3)
    assert np.array_equal(triples[:, :, 0], w.attribute) and np.array_equal(triples[:, :, 1], w.low)
    assert np.array_equal(triples[:, :, 2], w.high)
    assert np.array_equal(data[6 + 1234 * 12:].reshape(17, 9), w.event_values)


@pytest.mark.parametrize("kwargs, message", [
    (dict(subscriptions=-1), "subscriptions must be an int >= 0"),
    (dict(attributes=0), "attributes must be an int >= 1"),
    (dict(per_subscription=21), "cannot exceed attributes"),
    (dict(value_range=2**31), "value_range must be at most"),
    (dict(width=0.0), "width must be a fraction"),
    (dict(width=1.5), "width must be a fraction"),
    (dict(distribution="normal"), "distribution must be one of"),
    (dict(distribution="zipf", alpha=0), "alpha must be a number > 0"),
    (dict(events=True), "events must be an int"),
])
def test_bad_parameters_say_which(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cb.workloads.intervals(**{"subscriptions": 10, **kwargs})
