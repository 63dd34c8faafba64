"""Substring constraints, found by a key's Aho–Corasick automaton
(``cbalgebra.matcher._automaton``) or by hashed probes of the string's
pieces, against ``str.__contains__`` and ``cb.matches``.

Which keys get an automaton is ``_build``'s choice (more than
``SUBSTRING_PROBE_LENGTHS`` distinct pattern lengths, or a pattern of 63
characters or more); every differential case below runs once with every key
on the automaton and once with every key it can on probes. The automaton
reports each pattern once per message and stops walking an output chain at
the first pattern already reported; the cases are built to reach that stop
(patterns that are suffixes of one another, found many times in one string),
the empty pattern, patterns longer than the string, non-ASCII code points,
two keys of one name, and marks shared by messages in a batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable
from cbalgebra.matcher import _build
from cbalgebra.matcher._automaton import build_automata
from cbalgebra.matcher._build import _string_pool
from cbalgebra.matcher._kernels import NTYPES, T_STRING
from cbalgebra.values import Message

from test_matcher import check

ALPHABET = "ab\u00e9\U0001f600"  # two ASCII letters, one 2-byte and one 4-byte UTF-8 character
text = st.text(st.sampled_from(ALPHABET), max_size=10)


#: SUBSTRING_PROBE_LENGTHS for each path: 0 puts every key with substring
#: constraints on an automaton, 62 every key whose patterns are shorter than 63
PATHS = {"automaton": 0, "probes": 62}


@contextmanager
def substring_path(path: str) -> Iterator[None]:
    with mock.patch.object(_build, "SUBSTRING_PROBE_LENGTHS", PATHS[path]):
        yield


def check_both(spec: dict, messages: list[Message], **kw) -> list[list[int]]:
    """``test_matcher.check`` on each path; both must agree with the reference."""
    results = []
    for path in PATHS:
        with substring_path(path):
            results.append(check(spec, messages, **kw))
    assert results[0] == results[1]
    return results[0]


def _spec(patterns_by_interface: list[list[str]], name: str = "s") -> dict:
    """Interface i: the disjunction of substring filters on its patterns."""
    def quote(p: str) -> str:
        return '"' + p + '"'
    return {i: cb.parse_predicate(" || ".join(f"[string {name} * {quote(p)}]" for p in ps))
            for i, ps in enumerate(patterns_by_interface)}


def _messages(strings: list[str], name: str = "s") -> list[Message]:
    return [Message({name: s}) for s in strings]


def test_classic_dictionary_and_output_links():
    # he, she, his, hers (Aho & Corasick 1975): "ushers" holds she, he and hers
    spec = _spec([["he"], ["she"], ["his"], ["hers"], ["x"]])
    expected = check_both(spec, _messages(["ushers", "his", "hershe", "", "h", "xhe"]))
    assert expected[0] == [0, 1, 3]
    assert expected[2] == [0, 1, 3]


def test_suffix_chains_are_reported_once_each():
    # a, aa, ..., a^12 on strings of a's: every position ends many patterns,
    # each reported once; the chain walk stops at the first one reported
    spec = _spec([["a" * k] for k in range(1, 13)])
    strings = ["a" * n for n in (0, 1, 5, 12, 40)] + ["ba" * 9, "aab" * 5]
    expected = check_both(spec, _messages(strings))
    assert expected[4] == list(range(12))
    assert expected[3] == list(range(12))


def test_empty_pattern_and_patterns_longer_than_the_string():
    spec = _spec([[""], ["ab" * 20], ["b"]])
    assert check_both(spec, _messages(["", "a", "ab" * 19, "ab" * 20]))[3] == [0, 1, 2]


def test_two_keys_of_one_name_and_other_operators_on_the_key():
    spec = {i: cb.parse_predicate(p) for i, p in enumerate((
        '[string s * "ab", string s >* "x"]',
        '[string s * "ba"] || [string s *< "ab"]',
        '[string s * "\u00e9", string s != "xab"]',
        '[int s > 3]',
        '[string t * "ab", string s * "ab"]',
    ))}
    messages = [cb.parse_message(m) for m in (
        'string s = "xab"', 'string s = "xba"', 'string s = "\u00e9ab"', 'int s = 9',
        'string s = "ab", string t = "aab"', 'string s = "x\u00e9"')]
    check_both(spec, messages)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(text, min_size=1, max_size=3), min_size=1, max_size=8),
    st.lists(st.text(st.sampled_from(ALPHABET), max_size=60), min_size=1, max_size=12),
)
def test_generated_patterns_and_strings(patterns, strings):
    spec = _spec(patterns)
    expected = check_both(spec, _messages(strings), rounds=(0,))
    for s, got in zip(strings, expected, strict=True):
        assert got == [i for i, ps in enumerate(patterns) if any(p in s for p in ps)]


def test_one_long_pattern_and_many_lengths_on_a_long_string():
    # the adversarial shapes that took seconds when every length was probed
    rng = np.random.default_rng(7)
    long_string = "".join(rng.choice(list("ab"), 20_000))
    patterns = [[long_string[5_000:9_000]], ["".join(rng.choice(list("ab"), 4_000))]]
    patterns += [["".join(rng.choice(list("ab"), k))] for k in range(1, 300)]
    spec = _spec(patterns)
    table = ForwardingTable.compile(spec)
    got = table.forward(Message({"s": long_string})).tolist()
    assert got == [i for i, ps in enumerate(patterns) if ps[0] in long_string]
    assert 0 in got and 1 not in got


def test_automaton_links():
    chars, start = _string_pool(["", "a", "ab", "b", "bab"])
    # key 0: "", "a", "ab", "bab"; key 2: "b"; key 1 has none
    keys = np.array([0, 0, 0, 0, 2], np.int64)
    constraints = np.array([10, 11, 12, 14, 13], np.int64)
    ranks = np.array([0, 1, 2, 4, 3], np.int64)
    root, automata = build_automata(keys, constraints, ranks, chars, start, 3)
    assert root[1] == -1 and root[0] >= 0 and root[2] >= 0
    n_nodes = 8  # key 0: root, a, ab, b, ba, bab; key 2: root, b
    edges_at = 4 * (n_nodes + 1)
    assert len(automata) == edges_at + 2 * (n_nodes - 2)  # an edge into each node but the two roots
    rows = automata[:edges_at]
    child_start = (rows[0::4] - edges_at) // 2
    fail, out, links = rows[1::4][:n_nodes], rows[2::4][:n_nodes], rows[3::4][:n_nodes]
    child_char, child_node = automata[edges_at::2], automata[edges_at + 1::2]

    def walk(r, s):
        v = r
        for ch in s:
            kids = range(child_start[v], child_start[v + 1])
            v = next(child_node[e] for e in kids if child_char[e] == ord(ch))
        return v

    r0 = root[0]
    assert out[r0] == 10 and fail[r0] == -1
    assert out[walk(r0, "ab")] == 12 and out[walk(r0, "bab")] == 14
    assert fail[walk(r0, "bab")] == walk(r0, "ab")      # longest proper suffix in the trie
    assert fail[walk(r0, "ba")] == walk(r0, "a")
    assert links[walk(r0, "ba")] == walk(r0, "a")        # nearest output along the fail links
    assert links[walk(r0, "b")] == r0                     # the empty pattern ends every chain
    assert out[walk(root[2], "b")] == 13
    assert all(child_char[e] < child_char[e + 1] for v in range(n_nodes)
               for e in range(child_start[v], child_start[v + 1] - 1))


@pytest.mark.parametrize("rounds", [0, 10])
def test_batch_shares_the_marks_across_messages(rounds):
    # one stamp per message: a pattern reported for one message is reported
    # again for the next
    spec = _spec([["ab"], ["b"], ["ab", "ba"]])
    strings = ["abab", "abab", "ba", "", "ab"]
    check_both(spec, _messages(strings) * 3, rounds=(rounds,))


def test_which_keys_get_an_automaton():
    def roots(spec: dict) -> dict[str, bool]:
        table = ForwardingTable.compile(spec)
        compiled = table._compiled
        a = compiled.arrays
        n_keys = compiled.params.n_keys
        # -(root + 2) in the substring third of pattern_max_length marks an automaton
        return {name: bool(a.pattern_max_length[2 * n_keys + a.key_of[i * NTYPES + T_STRING]] < 0)
                for i, name in enumerate(compiled.names)}

    few = [["a" * k] for k in range(1, 17)]             # 16 lengths: probed
    many = [["b" * k] for k in range(1, 18)]            # 17 lengths: automaton
    long = [["c" * 63]]                                  # 63 characters: automaton
    spec = {**_spec(few, "p"), **{20 + i: v for i, v in _spec(many, "q").items()},
            **{40 + i: v for i, v in _spec(long, "r").items()}}
    assert roots(spec) == {"p": False, "q": True, "r": True}
    with substring_path("automaton"):
        assert roots(spec) == {"p": True, "q": True, "r": True}
