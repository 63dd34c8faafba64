"""Matching, with the paper's own tables as literal cases (Carzaniga, Rosenblum & Wolf,
Content-Based Addressing and Routing, 2000, §3.1–3.2)."""

import pytest
from hypothesis import given
from strategies import dense_filters, dense_predicates, messages

import cbalgebra as cb

F, P, A, M = cb.parse_filter, cb.parse_predicate, cb.parse_advertisement, cb.parse_message

# Seed 004 Table 2. The paper's `time date` attribute has no counterpart
# among our types; a string stands in for it (it only needs to be present).
TABLE_2 = [
    ('string what = "alarm"', '[string what = "alarm", string date = "02:40:03"]', True),
    ('string what = "alarm", integer level > 3', '[string what = "alarm", string date = "02:40:03"]', False),
    ('string what = "alarm", integer level > 3, integer level < 7', '[string what = "alarm", int level = 10]', False),
    ('string what = "alarm", integer level > 3, integer level < 7', '[string what = "alarm", int level = 5]', True),
]

# Seed 004 Table 3: several constraints on one name are a disjunction.
AD = 'string what = "alarm", string what = "login", string user any'
TABLE_3 = [
    (AD, '[string what = "alarm"]', True),
    (AD, '[string what = "alarm", string date = "02:40:03"]', False),
    (AD, '[string what = "login", string user = "ingmar"]', True),
    (AD, '[string what = "logout", string user = "ingmar"]', False),
]


@pytest.mark.parametrize("subscription, notification, expected", TABLE_2)
def test_table_2_subscriptions(subscription, notification, expected):
    assert cb.matches(F(subscription), M(notification)) is expected


@pytest.mark.parametrize("advertisement, notification, expected", TABLE_3)
def test_table_3_advertisements(advertisement, notification, expected):
    assert cb.matches(A(advertisement), M(notification)) is expected


@pytest.mark.parametrize(
    "x, message, expected",
    [
        ("int x != 3", "[]", False),                      # != needs the attribute
        ("int x != 3", '[string x = "a"]', False),        # ... with the same type
        ("int x != 3", "[int x = 4]", True),
        ("int x any", "[float x = 1.0]", False),          # any = present with this type
        ("any x any", "[float x = 1.0]", True),           # type any: present, any type
        ("any x any", "[]", False),
        ('string s >* ""', '[string s = ""]', True),      # the empty pattern matches every string
        ('string s *< ""', '[string s = "abc"]', True),
        ('string s * ""', '[string s = ""]', True),
        ('string s < "b"', '[string s = "az"]', True),    # code-point order
        ('string s < "a"', '[string s = "B"]', True),
        ('string s > "z"', '[string s = "é"]', True),
        ("float f = 0.0", "[float f = -0.0]", True),
        ("int x > 9223372036854775806", "[int x = 9223372036854775807]", True),
        ("[]", "[int x = 1]", True),                      # the empty filter matches everything
    ],
)
def test_filter_semantics(x, message, expected):
    assert cb.matches(F(x), M(message)) is expected


def test_empty_predicate_matches_nothing():
    assert not cb.matches(P("false"), M("[x = 1]"))


def test_empty_advertisement_covers_only_the_empty_message():
    assert cb.matches(A("[]"), M("[]")) and not cb.matches(A("[]"), M("[x = 1]"))


def test_sigcomm_example():
    p = P('[alert-type="intrusion" ∧ severity>2 ∨ class="alert" ∧ device-type="web-server"]')
    m = M('[class="alert", severity=6, device-type="web-server", alert-type="hardware failure"]')
    assert cb.matches(p, m)
    assert not cb.matches(p.filters[0], m) and cb.matches(p.filters[1], m)


@given(dense_predicates(), messages(dense=True))
def test_predicate_matches_iff_one_filter_matches(p, m):
    assert cb.matches(p, m) == any(cb.matches(f, m) for f in p)


@given(dense_filters(), messages(dense=True))
def test_filter_matches_iff_every_constraint_holds(f, m):
    assert cb.matches(f, m) == all(cb.matches(c, m) for c in f)
