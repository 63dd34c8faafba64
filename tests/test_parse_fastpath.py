"""The fast scanner never changes the meaning of input, and the DNF limit
does not depend on spelling.

The fast scanner (cbalgebra/_fastparse.py) may only return a value where the
grammar returns the same value. These tests compare the two paths on
mutated inputs: both raise ParseError, or both give equal values.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import edited

import cbalgebra as cb
from cbalgebra import parse as parse_module
from cbalgebra.parse import MAX_DNF_TERMS

KEYWORDS = sorted(set(parse_module.keyword_spellings().values()))


def _outcome(fn, text):
    try:
        return "ok", fn(text)
    except cb.ParseError:
        return "error", None


def _grammar_filter(text):
    try:
        return cb.Filter(parse_module._single_term(parse_module._run(text, "predicate_text"), "a filter"))
    except parse_module.LocatedError as e:
        raise parse_module._located(e, text) from None


def _grammar_advertisement(text):
    try:
        return parse_module._advertisement(parse_module._run(text, "predicate_text"))
    except parse_module.LocatedError as e:
        raise parse_module._located(e, text) from None


PATHS = {
    "filter": (cb.parse_filter, _grammar_filter),
    "predicate": (cb.parse_predicate, lambda t: parse_module._predicate(parse_module._run(t, "predicate_text"))),
    "advertisement": (cb.parse_advertisement, _grammar_advertisement),
    "message": (cb.parse_message, lambda t: parse_module._run(t, "message_text")),
    "document": (cb.parse_document, lambda t: parse_module._run(t, "document")),
}


def _assert_same(kind, text):
    fast, grammar_only = PATHS[kind]
    got, want = _outcome(fast, text), _outcome(grammar_only, text)
    assert got[0] == want[0], (kind, text, got, want)
    assert got[1] == want[1], (kind, text)


SEEDS = {
    "filter": ['[string company = "x", int price > 10]', "[int x > 1, string s >* \"ab\"]",
               "x = 1, y = 0x1F; z = 2.5e3", "[string many any]", "int anyway = 3, bool b = true"],
    "predicate": ["[int x > 1] || [float f <= 1.5e3, bool b != true]", "a = 1 || b = 2 || c = 3",
                  "[string fromage = \"brie\"] || [int selection < 3]"],
    "advertisement": ['string what = "alarm", string what = "login", string user any'],
    "message": ['[string carrier = "UA", int price = 300, bool upgradeable = true]',
                '[string company = "x"; int anyone = 2]'],
    "document": ["ifconfig 2 a = 1, b =* \"x\" | c any any;\nselect a = 1 b = \"xyz\";\n",
                 "subscribe [x = 1] || [y > 2] from c1\nadvertise s = \"a\", t any int\n",
                 "subscribe x = 1; y = 2\nset preprocessing_limit = 7;\ntimer start;\nselect company = 1;\n",
                 "ifconfig 0 company = \"x\" | anyway > 0x10;\nconsolidate;\n"],
}

TOKENS = (list('[](){}<>=!*|&,;"\\ \n.-+_/#0123456789abxyz') + ["\x00", "é", "\uff13", "٣٤", "0x", "1e-400", "9" * 25]
          + [f" {k} " for k in KEYWORDS] + KEYWORDS + [f"x{k}" for k in KEYWORDS] + [f"{k}x" for k in KEYWORDS])


@st.composite
def mutated(draw, kind):
    text = draw(st.sampled_from(SEEDS[kind]))
    return draw(edited(text, TOKENS, ["insert", "delete", "replace", "duplicate", "duplicate_token"]))


@pytest.mark.parametrize("kind", list(PATHS))
@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_fast_path_and_grammar_agree_on_mutated_input(kind, data):
    _assert_same(kind, data.draw(mutated(kind)))


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_names_that_start_or_end_with_a_keyword(keyword):
    for name in (f"x{keyword}", f"{keyword}x", f"{keyword}_{keyword}", f"{keyword}-1", f"{keyword}.b"):
        for text in (f"[string {name}]", f"[int {name} any]", f"{name} = 1", f"[int {name} = 1, string {name}s any]",
                     f"{name} any int", f"x = 1 || {name} > 2"):
            for kind in ("filter", "predicate"):
                _assert_same(kind, text)
        _assert_same("message", f"[{name} = 1, {name}2 = 2]")
        _assert_same("document", f"ifconfig 1 {name} = 1 | {name} any any;\nselect {name} = 2;\nsubscribe {name} < 3")


def test_the_reported_split_name():
    with pytest.raises(cb.ParseError):
        cb.parse_filter("[string company]")
    assert cb.parse_filter("[string company any]") == cb.Filter([cb.Constraint("string", "company", "any")])


# -------------------------------------------------- the DNF limit, any spelling
# The limit counts the conjunctions that expanding nested disjunctions makes
# (issue 23 §1): a flat list of filters is never limited, on either path.
ORS = ["||", "or", "|", "∨", "|| // comment\n", "or /* c */", "∨ # c\n"]
FLAT = MAX_DNF_TERMS + 1


def _grammar_predicate(text):
    return PATHS["predicate"][1](text)


@pytest.mark.parametrize("spelling", ["||", "|", "or /* c */", "∨ # c\n"])
def test_flat_alternatives_are_not_limited(spelling):
    text = f" {spelling} ".join(f"x = {i}" for i in range(FLAT))
    expected = cb.Predicate(cb.Filter([cb.Constraint("int", "x", "=", i)]) for i in range(FLAT))
    assert cb.parse_predicate(text) == expected
    if spelling == "||":  # the other spellings take the grammar on both paths
        assert _grammar_predicate(text) == expected


def test_flat_alternatives_in_a_group_or_beside_one_constraint_are_not_limited():
    group = "[" + " || ".join(f"[x = {i}]" for i in range(FLAT)) + "]"
    assert len(cb.parse_predicate(group)) == FLAT
    assert len(cb.parse_predicate(f"{group}, y = 1")) == FLAT  # one factor of several terms: no product


def _products(factors: int) -> str:
    return " , ".join(f"[a{k} = 1 || b{k} = 2]" for k in range(factors))


@pytest.mark.parametrize("spelling", ORS)
@pytest.mark.parametrize("path", ["fast", "grammar"])
def test_expansion_limit_does_not_depend_on_spelling(spelling, path):
    parse = cb.parse_predicate if path == "fast" else _grammar_predicate
    at = _products(13).replace("||", spelling)  # 2^13 = 8,192 conjunctions
    assert len(parse(at)) == 2**13
    with pytest.raises(cb.ParseError, match="expands to more than 10000 conjunctions"):
        parse(_products(14).replace("||", spelling))  # 16,384


@pytest.mark.parametrize("path", ["fast", "grammar"])
def test_expansions_add_up_across_alternatives(path):
    """Two expansions of 8,192 conjunctions side by side make 16,384: a
    short text could otherwise multiply its size without bound."""
    parse = cb.parse_predicate if path == "fast" else _grammar_predicate
    one = f"[{_products(13)}]"
    assert len(parse(f"{one} || x = 1 || y = 2")) == 2**13 + 2
    with pytest.raises(cb.ParseError, match="expands to more than 10000 conjunctions"):
        parse(f"{one} || {one.replace('a0', 'c0')}")


@pytest.mark.parametrize("path", ["fast", "grammar"])
def test_flat_statements_in_documents_are_not_limited(path):
    parse = cb.parse_document if path == "fast" else PATHS["document"][1]
    subscribe = " || ".join(f"[x = {i}]" for i in range(FLAT))
    advertise = ", ".join(f"s = \"{i}\"" for i in range(FLAT))
    ifconfig = " | ".join(f"x = {i}" for i in range(FLAT))
    items = parse(f"subscribe {subscribe}\nadvertise {advertise}\nifconfig 1 {ifconfig};\n")
    assert [len(items[0].value), len(items[1].value.constraints), len(items[2].value)] == [FLAT] * 3
    with pytest.raises(cb.ParseError, match="expands to more than 10000 conjunctions"):
        parse(f"subscribe {_products(14)}\n")


def test_reduce_files_of_flat_predicates_are_not_limited():
    """`cbalgebra reduce` reads a predicate per line, or a document."""
    from cbalgebra.reducers.cli import read_predicates

    line = " || ".join(f"[x = {i}]" for i in range(FLAT))
    assert [len(p) for p in read_predicates(f"{line}\nx = 1\n")] == [FLAT, 1]
    assert [len(p) for p in read_predicates(f"subscribe {line}\nifconfig 3 {line.replace('||', '|')};\n")] == [
        FLAT, FLAT]
