"""Keywords are never stolen from attribute names.

Every word the grammar knows (derived from the grammar's own terminals, so a
new keyword is tested automatically) is put in every position where an
attribute name can stand, in filters, predicates, advertisements, messages
and every statement of a document, and must parse as that name, on both the
fast path and the grammar-only path.
"""

import itertools

import pytest

import cbalgebra as cb
from cbalgebra import parse as parse_module
from cbalgebra._fastparse import RESERVED
from cbalgebra.parse import DocumentItem
from cbalgebra.values import Attribute, Constraint, Filter, Message, Predicate

C = Constraint
KEYWORDS = sorted(set(parse_module.keyword_spellings().values()))


def test_keyword_list_comes_from_the_grammar():
    # A sample of what the grammar must know, and what the fast path defers on.
    assert {"from", "subscribe", "select", "ifconfig", "and", "or", "any", "true", "false", "int",
            "prefix", "set", "timer", "help", "start", "on", "off"} <= set(KEYWORDS)
    assert set(KEYWORDS) <= RESERVED


_TYPES = {"string": "string", "int": "int", "integer": "int", "long": "int", "float": "float", "double": "float",
          "bool": "bool", "boolean": "bool"}


def _filter(*cs):
    return Filter(cs)


# (what to parse, template, expected value for keyword k)
FILTER_CASES = [
    ("{k} = 1", lambda k: _filter(C("int", k, "=", 1))),
    ("int {k} > 1", lambda k: _filter(C("int", k, ">", 1))),
    ("{k} >= 1.5", lambda k: _filter(C("float", k, ">=", 1.5))),
    ('{k} prefix "a"', lambda k: _filter(C("string", k, ">*", "a"))),
    ('string {k} contains "a"', lambda k: _filter(C("string", k, "*", "a"))),
    ("{k} = true", lambda k: _filter(C("bool", k, "=", True))),
    ("{k} != false", lambda k: _filter(C("bool", k, "!=", False))),
    ("string {k} any", lambda k: _filter(C("string", k, "any"))),
    ("{k} any int", lambda k: _filter(C("int", k, "any"))),
    ("any {k} any", lambda k: _filter(C("any", k, "any"))),
    # SFF's `name any any`, except for a type word, where `int any any` reads
    # as "int attribute `any`" (see test_a_real_ambiguity_keeps_the_keyword_reading).
    ("{k} any any", lambda k: _filter(C(_TYPES[k], "any", "any") if k in _TYPES else C("any", k, "any"))),
    ("[x = 1, {k} = 2]", lambda k: _filter(C("int", "x", "=", 1), C("int", k, "=", 2))),
    ("x = 1 and {k} = 2", lambda k: _filter(C("int", "x", "=", 1), C("int", k, "=", 2))),
    ("x = 1 && {k} = 2", lambda k: _filter(C("int", "x", "=", 1), C("int", k, "=", 2))),
    ("x = 1; {k} = 2;", lambda k: _filter(C("int", "x", "=", 1), C("int", k, "=", 2))),
    ("{{{k} < 2, {k} > 0}}", lambda k: _filter(C("int", k, "<", 2), C("int", k, ">", 0))),
    ("({k} < 2)", lambda k: _filter(C("int", k, "<", 2))),
    ('"{k}" = 1', lambda k: _filter(C("int", k, "=", 1))),
]

PREDICATE_CASES = [
    ("x = 1 or {k} = 2", lambda k: Predicate([_filter(C("int", "x", "=", 1)), _filter(C("int", k, "=", 2))])),
    ("{k} = 1 || {k} = 2", lambda k: Predicate([_filter(C("int", k, "=", 1)), _filter(C("int", k, "=", 2))])),
    ("{k} = 1 | y = 2 ∨ any {k} any",
     lambda k: Predicate([_filter(C("int", k, "=", 1)), _filter(C("int", "y", "=", 2)), _filter(C("any", k, "any"))])),
    ("({k} = 1 or {k} = 2) and z = 3",
     lambda k: Predicate([_filter(C("int", k, "=", 1), C("int", "z", "=", 3)),
                          _filter(C("int", k, "=", 2), C("int", "z", "=", 3))])),
]

ADVERTISEMENT_CASES = [
    ("{k} = 1, {k} = 2, string y any",
     lambda k: cb.Advertisement([C("int", k, "=", 1), C("int", k, "=", 2), C("string", "y", "any")])),
]

MESSAGE_CASES = [
    ("[{k} = 1]", lambda k: Message({k: Attribute("int", 1)})),
    ('[int {k} = 1; string x = "a"]', lambda k: Message({k: Attribute("int", 1), "x": Attribute("string", "a")})),
    ("[x = 1 {k} = 2]", lambda k: Message({"x": Attribute("int", 1), k: Attribute("int", 2)})),
    ("[x = 1, {k} = true]", lambda k: Message({"x": Attribute("int", 1), k: Attribute("bool", True)})),
    ("{k} = 1.5", lambda k: Message({k: Attribute("float", 1.5)})),
]


def _pred(*filters):
    return Predicate(filters)


DOCUMENT_CASES = [
    ("subscribe {k} = 1", lambda k: [DocumentItem("subscribe", _pred(_filter(C("int", k, "=", 1))))]),
    ("subscribe x = 1; {k} = 2", lambda k: [DocumentItem(
        "subscribe", _pred(_filter(C("int", "x", "=", 1), C("int", k, "=", 2))))]),
    ("subscribe x = 1, {k} = 2 from {k}", lambda k: [DocumentItem(
        "subscribe", _pred(_filter(C("int", "x", "=", 1), C("int", k, "=", 2))), origin=k)]),
    ("subscribe [{k} = 1] from c\nsubscribe {k} > 2;\n", lambda k: [
        DocumentItem("subscribe", _pred(_filter(C("int", k, "=", 1))), origin="c"),
        DocumentItem("subscribe", _pred(_filter(C("int", k, ">", 2))))]),
    ("advertise {k} = 1, {k} = 2", lambda k: [DocumentItem(
        "advertise", cb.Advertisement([C("int", k, "=", 1), C("int", k, "=", 2)]))]),
    ("publish [{k} = 1]", lambda k: [DocumentItem("publish", Message({k: Attribute("int", 1)}))]),
    ("publish x = 1 {k} = 2 from {k}", lambda k: [DocumentItem(
        "publish", Message({"x": Attribute("int", 1), k: Attribute("int", 2)}), origin=k)]),
    ("ifconfig 1 {k} = 1, {k} > 0 | any {k} any;", lambda k: [DocumentItem(
        "ifconfig", _pred(_filter(C("int", k, "=", 1), C("int", k, ">", 0)), _filter(C("any", k, "any"))),
        interface=1)]),
    ("ifconfig 3 {k} any string, x = 1;", lambda k: [DocumentItem(
        "ifconfig", _pred(_filter(C("string", k, "any"), C("int", "x", "=", 1))), interface=3)]),
    ("ifconfig 2 x = 1 && {k} =* \"a\";", lambda k: [DocumentItem(
        "ifconfig", _pred(_filter(C("int", "x", "=", 1), C("string", k, ">*", "a"))), interface=2)]),
    ("select {k} = 1;", lambda k: [DocumentItem("select", Message({k: Attribute("int", 1)}))]),
    ("select x = 1 {k} = 2;", lambda k: [DocumentItem(
        "select", Message({"x": Attribute("int", 1), k: Attribute("int", 2)}))]),
    ("select x = 1, {k} = \"GVA\" ;", lambda k: [DocumentItem(
        "select", Message({"x": Attribute("int", 1), k: Attribute("string", "GVA")}))]),
    ("set {k} = 3;", lambda k: [DocumentItem("command", ("set", k, 3))]),
    ("subscribe x = 1;\nselect {k} = 1;\ntimer start;", lambda k: [
        DocumentItem("subscribe", _pred(_filter(C("int", "x", "=", 1)))),
        DocumentItem("select", Message({k: Attribute("int", 1)})),
        DocumentItem("command", ("timer", "start"))]),
]

PARSERS = {
    "filter": (cb.parse_filter, lambda t: Filter(parse_module._single_term(parse_module._run(t, "predicate_text"),
                                                                           "a filter"))),
    "predicate": (cb.parse_predicate, lambda t: parse_module._predicate(parse_module._run(t, "predicate_text"))),
    "advertisement": (cb.parse_advertisement,
                      lambda t: parse_module._advertisement(parse_module._run(t, "predicate_text"))),
    "message": (cb.parse_message, lambda t: parse_module._run(t, "message_text")),
    "document": (cb.parse_document, lambda t: parse_module._run(t, "document")),
}

CASES = ([("filter", *c) for c in FILTER_CASES] + [("predicate", *c) for c in PREDICATE_CASES]
         + [("advertisement", *c) for c in ADVERTISEMENT_CASES] + [("message", *c) for c in MESSAGE_CASES]
         + [("document", *c) for c in DOCUMENT_CASES])


@pytest.mark.parametrize("keyword", KEYWORDS)
@pytest.mark.parametrize("kind, template, expected", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_every_keyword_is_a_name_in_every_position(keyword, kind, template, expected):
    text = template.format(k=keyword)
    want = expected(keyword)
    fast, grammar_only = PARSERS[kind]
    assert fast(text) == want, text
    assert grammar_only(text) == want, text
    # Printing quotes keyword-spelled names; both spellings read back.
    printed = "\n".join(str(i) for i in want) if kind == "document" else str(want)
    assert fast(printed) == want
    bare = printed.replace(f'"{keyword}"', keyword)
    assert fast(bare) == want, bare
    assert grammar_only(bare) == want, bare


@pytest.mark.parametrize("first, second", list(itertools.product(["int", "any", "from", "select", "or"], repeat=2)))
def test_two_keywords_in_a_row(first, second):
    # A typed constraint whose name is a keyword, with a keyword value type.
    f = cb.parse_filter(f"int {first} = 1, string {second} any")
    assert f == _filter(C("int", first, "=", 1), C("string", second, "any"))


def test_a_real_ambiguity_keeps_the_keyword_reading():
    # `int any any` is either "int attribute `any` is present" or SFF's
    # "attribute `int` of any type": the keyword reading wins, as before.
    assert cb.parse_filter("int any any") == _filter(C("int", "any", "any"))
    assert cb.parse_filter('any "int" any') == _filter(C("any", "int", "any"))


def test_statement_words_after_a_separator_still_open_statements():
    doc = "subscribe x > 1;\nsubscribe y < 2;\nset preprocessing_limit = 4;\nconsolidate;\nhelp;"
    items = cb.parse_document(doc)
    assert [i.kind for i in items] == ["subscribe", "subscribe", "command", "command", "command"]
    assert [i.line for i in items] == [1, 2, 3, 4, 5]
    assert items == parse_module._run(doc, "document")
