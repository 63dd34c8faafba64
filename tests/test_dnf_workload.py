"""The Carzaniga, Rembert & Wolf 2006 (§4.2) random DNF predicate generator."""

from __future__ import annotations

import hashlib
import math
import pickle
from collections import Counter

import pytest

import cbalgebra as cb
from cbalgebra.workloads import _dnf
from cbalgebra.values import INT, STRING

dnf = cb.workloads.dnf_predicates


def test_golden_values_are_the_same_on_every_machine():
    # Recorded once; any change to the random layout or the word list shows here.
    assert [str(p) for p in dnf(5, 500, "zipf", 0)] == [
        '[int a0 = -74, int a0 = 58, int a0 > 24, int a24 > 92]',
        '[string a1 < "pay", string a2 != "south"]',
        '[string a318 = "day"]',
        '[int a102 = 54, string a200 * "history", string a283 *< "law", int a8 < -87, int a87 > -71, '
        'int a9 > -83]',
        '[int a0 > -8, int a4 > 32, string a62 * "play"]',
    ]
    assert [str(p) for p in dnf(3, 50, "uniform", 42)] == [
        '[int a12 < 27, string a40 *< "political", int a41 < 50]',
        '[int a12 = 50, int a23 < 14, int a30 < -18, int a48 > 1]',
        '[string a21 *< "set", int a7 = -36]',
    ]
    text = "\n".join(map(str, dnf(1000, 5000, "zipf", 3)))
    assert hashlib.sha256(text.encode()).hexdigest() == \
        "2ebee8ee4b8c08c7b941fb43b2c5d0bf644569db9e4e7b33992d4025063739f4"


def test_same_seed_same_predicates_and_prefix_property():
    a = dnf(300, 500, "zipf", 11)
    assert a == dnf(300, 500, "zipf", 11)
    assert a[:120] == dnf(120, 500, "zipf", 11)
    assert a != dnf(300, 500, "zipf", 12)
    assert pickle.loads(pickle.dumps(a)) == a


def test_shape_one_conjunction_of_one_to_six():
    for p in dnf(500, 50, "uniform", 1):
        assert isinstance(p, cb.Predicate) and len(p.filters) == 1
        assert 1 <= p.size <= 6


def test_word_list():
    terms = _dnf.english_terms()
    assert len(terms) == 200 == len(set(terms))
    assert all(t.isascii() and t.isalpha() and t.islower() and len(t) >= 3 for t in terms)
    assert "the" not in terms and "and" not in terms


def _constraints(ps):
    return [c for p in ps for f in p.filters for c in f.constraints]


@pytest.fixture(scope="module")
def big():
    return dnf(20_000, 500, "zipf", 5)


def test_size_distribution(big):
    # Sizes drawn 10/40/30/10/5/5 %; an exact duplicate constraint collapses (rare).
    counts = Counter(p.size for p in big)
    n = len(big)
    for size, pct in zip(range(1, 7), _dnf.SIZE_WEIGHTS, strict=True):
        assert abs(counts[size] / n - pct / 100) < 0.012, (size, counts[size] / n)


def test_operator_and_value_distributions(big):
    cs = _constraints(big)
    strings = [c for c in cs if c.type == STRING]
    ints = [c for c in cs if c.type == INT]
    assert {c.type for c in cs} == {STRING, INT}
    s_ops = Counter(c.op for c in strings)
    for op, pct in _dnf.STRING_OPS:
        assert abs(s_ops[op] / len(strings) - pct / 100) < 0.015, op
    i_ops = Counter(c.op for c in ints)
    for op, pct in _dnf.INT_OPS:
        assert abs(i_ops[op] / len(ints) - pct / 100) < 0.015, op
    values = [c.value for c in ints]
    assert min(values) == -100 and max(values) == 100
    terms = set(_dnf.english_terms())
    assert {c.value for c in strings} <= terms
    assert len({c.value for c in strings}) == 200


def test_each_name_has_one_type_and_half_are_strings(big):
    types: dict[str, set] = {}
    for c in _constraints(big):
        types.setdefault(c.name, set()).add(c.type)
    assert all(len(t) == 1 for t in types.values())
    share = sum(1 for t in types.values() if STRING in t) / len(types)
    assert 0.4 < share < 0.6
    # The type of a name does not depend on n.
    small = dnf(50, 500, "zipf", 5)
    for c in _constraints(small):
        assert types.get(c.name, {c.type}) == {c.type}


def test_zipf_and_uniform_name_frequencies(big):
    names = Counter(c.name for c in _constraints(big))
    total = sum(names.values())
    h = sum(1 / k for k in range(1, 501))
    for rank in (1, 2, 10):
        expected = 1 / (rank * h)
        assert abs(names[f"a{rank - 1}"] / total - expected) < 0.15 * expected + 0.002
    uni = Counter(c.name for c in _constraints(dnf(10_000, 50, "uniform", 5)))
    assert len(uni) == 50
    assert max(uni.values()) / min(uni.values()) < 1.5


def test_names_may_repeat_unless_distinct_names():
    ps = dnf(2000, 50, "uniform", 9)
    assert any(len(p.filters[0].names) < p.size for p in ps)
    distinct = dnf(2000, 50, "uniform", 9, distinct_names=True)
    assert all(len(p.filters[0].names) == p.size for p in distinct)
    # Zipf without replacement still favours popular names.
    zd = Counter(c.name for c in _constraints(dnf(3000, 500, "zipf", 9, distinct_names=True)))
    assert zd.most_common(1)[0][0] == "a0"


def test_explicit_names_and_bad_arguments():
    ps = dnf(50, ["alpha", "beta", "gamma"], "uniform", 2)
    assert {c.name for c in _constraints(ps)} <= {"alpha", "beta", "gamma"}
    with pytest.raises(ValueError):
        dnf(10, 50, "normal", 1)
    with pytest.raises(ValueError):
        dnf(-1, 50, "zipf", 1)
    with pytest.raises(ValueError):
        dnf(10, 0, "zipf", 1)
    with pytest.raises(ValueError):
        dnf(10, ["a", "a"], "zipf", 1)
    assert dnf(0, 50, "zipf", 1) == []


def test_scenarios_table():
    assert _dnf.DNF_SCENARIOS == {
        "zipf-500": (500, "zipf"), "zipf-5000": (5000, "zipf"),
        "uniform-50": (50, "uniform"), "uniform-500": (500, "uniform"),
    }
    assert math.isclose(sum(_dnf.SIZE_WEIGHTS), 100)
