"""The grammar: everything the grammar of docs/design.md accepts, located errors, and a fuzz test."""

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import filters, messages, plain_names, predicates

import cbalgebra as cb
from cbalgebra import parse as parse_module
from cbalgebra._fastparse import fast_dnf, fast_message
from cbalgebra.values import KEYWORDS, Constraint, Filter, Predicate

C = Constraint


def test_sigcomm_example_is_two_filters():
    p = cb.parse_predicate(
        '[alert-type="intrusion" ∧ severity>2 ∨ class="alert" ∧ device-type="web-server"]'
    )
    assert p == Predicate([
        Filter([C("string", "alert-type", "=", "intrusion"), C("int", "severity", ">", 2)]),
        Filter([C("string", "class", "=", "alert"), C("string", "device-type", "=", "web-server")]),
    ])
    m = cb.parse_message('[class="alert", severity=6, device-type="web-server", alert-type="hardware failure"]')
    assert cb.matches(p, m)


def test_sigcomm_message_with_semicolons():
    m = cb.parse_message("[string carrier = \"UA\"; string dest = \"ORD\"; int price = 300; bool upgradeable = true;]")
    assert m["price"].value == 300 and m["upgradeable"].value is True and len(m) == 4


#: Filters as written and as printed: the canonical spelling.
FILTER_SPELLINGS = [
    ("int x > 1 && int y < 2", "[int x > 1, int y < 2]"),
    ("x > 1 and y < 2", "[int x > 1, int y < 2]"),
    ("x > 1 ∧ y < 2", "[int x > 1, int y < 2]"),
    ("x > 1, y < 2", "[int x > 1, int y < 2]"),
    ("x > 1; y < 2;", "[int x > 1, int y < 2]"),
    ("{x > 1, y < 2}", "[int x > 1, int y < 2]"),
    ("(x > 1, y < 2)", "[int x > 1, int y < 2]"),
    ('s prefix "a", t suffix "b", u contains "c", v substring "d"',
     '[string s >* "a", string t *< "b", string u * "c", string v * "d"]'),
    ('s =* "a", t *= "b", u ** "c"', '[string s >* "a", string t *< "b", string u * "c"]'),
    ("int price any", "[int price any]"),
    ("price any integer", "[int price any]"),
    ("price any any", "[any price any]"),
    ("any price any", "[any price any]"),
    ("float f = 2", "[float f = 2.0]"),
    ("f = 1.5e3", "[float f = 1500.0]"),
    ("f = -0.0", "[float f = 0.0]"),
    ("b = true", "[bool b = true]"),
    ("boolean b != false", "[bool b != false]"),
    ('"30-day-cancellation" = true', '[bool "30-day-cancellation" = true]'),
    ("device-type.x/y_z = 1", "[int device-type.x/y_z = 1]"),
    ('s = "a\\"b\\\\c\\n\\u00e9\\U0001F600"', '[string s = "a\\"b\\\\c\\né😀"]'),
    ("[]", "[]"),
    ("int and > 3", '[int "and" > 3]'),
    ("int x > 1 // a comment", "[int x > 1]"),
    ("int x > 1 /* a\ncomment */ , y = 2", "[int x > 1, int y = 2]"),
    ("int x > 1 # a comment", "[int x > 1]"),
]
#: Predicates as written and as printed.
PREDICATE_SPELLINGS = [
    ("[x > 1] || [y < 2]", "[int x > 1] || [int y < 2]"),
    ("x > 1 or y < 2", "[int x > 1] || [int y < 2]"),
    ("x > 1 | y < 2", "[int x > 1] || [int y < 2]"),
    ("x > 1 ∨ y < 2", "[int x > 1] || [int y < 2]"),
    ("a = 1, b = 2 || c = 3", "[int a = 1, int b = 2] || [int c = 3]"),
    ("(a = 1 || b = 2) && c = 3", "[int a = 1, int c = 3] || [int b = 2, int c = 3]"),
    ("false", "false"),
    ("[x > 1] || [x > 1]", "[int x > 1]"),
]


@pytest.mark.parametrize("parse, text, expected", [
    *((cb.parse_filter, text, expected) for text, expected in FILTER_SPELLINGS),
    *((cb.parse_predicate, text, expected) for text, expected in PREDICATE_SPELLINGS),
])
def test_syntax(parse, text, expected):
    assert str(parse(text)) == expected


def test_documents_mix_our_statements_and_sff_driver_statements():
    doc = """
    # our own statements
    subscribe [string airline = "UA", string dest = "ARN"] || [int price < 500]
    advertise string what = "alarm", string what = "login", string user any
    publish [string airline = "UA", int price = 300]
    // SFF 2.x driver statements, as real input files write them
    set preprocessing_limit = 10;
    ifconfig 3 price < 100, stock = "MSFT" | quantity > 1000, t any any ;
    ifconfig 4 "30-day-cancellation" = true, s =* "ab", u any string;
    /* a block
       comment */
    consolidate;
    timer start;
    select price = 50 stock = "MSFT"
           quantity = 2000, flag = false;
    timer stop;
    statistics;
    """
    items = cb.parse_document(doc)
    kinds = [i.kind for i in items]
    assert kinds == ["subscribe", "advertise", "publish", "command", "ifconfig", "ifconfig",
                     "command", "command", "select", "command", "command"]
    assert items[3].value == ("set", "preprocessing_limit", 10)
    assert items[4].interface == 3 and len(items[4].value) == 2
    assert str(items[4].value.filters[1]) == "[int quantity > 1000, any t any]" or \
        str(items[4].value.filters[0]) == "[int quantity > 1000, any t any]"
    assert items[8].value["quantity"].value == 2000 and items[8].value["flag"].value is False
    assert items[1].value == cb.parse_advertisement('what = "alarm", what = "login", string user any')
    assert items[0].line == 3


@pytest.mark.parametrize(
    "parse, text, reason, line, column",
    [
        (cb.parse_filter, "int x > 99999999999999999999", "int literal out of 64-bit range", 1, 9),
        (cb.parse_filter, "int x >* 5", "operator prefix does not apply to int", 1, 7),
        (cb.parse_filter, "x any", "'any' needs a type", 1, 3),
        (cb.parse_message, "[int price = 1,\n int price = 2]", "duplicate attribute 'price' in message", 2, 6),
        (cb.parse_filter, "x > ", "unexpected end of input", 1, 5),
        (cb.parse_filter, '"abc', "unterminated string literal", 1, 1),
        (cb.parse_filter, 'x = "a\\q"', "unknown escape", 1, 5),
        (cb.parse_filter, "int x = 1.5", "float literal does not fit type int", 1, 9),
        (cb.parse_filter, 'string s = 5', "int literal does not fit type string", 1, 12),
        (cb.parse_filter, "x > 1 || y < 2", "a filter cannot hold a disjunction", 1, 7),
        (cb.parse_filter, "bool b < true", "operator less-than does not apply to bool", 1, 8),
        (cb.parse_filter, "f = 1e999", "float literal out of range", 1, 5),
        (cb.parse_filter, "float f = 9007199254740993", "not exactly representable", 1, 11),
        (cb.parse_filter, "x ~ 1", "unexpected character '~'", 1, 3),
        (cb.parse_filter, "", "empty input", 1, 1),
        (cb.parse_message, "[x > 1]", "expected '='", 1, 4),
        (cb.parse_advertisement, "x = 1 || y = 2", "an advertisement cannot hold a disjunction", 1, 7),
        (cb.parse_document, "ifconfig -1 x = 1;",
         "interface number out of range: it must be an integer from 0 to 4294967295", 1, 10),
        (cb.parse_document, "subscribe x = 1\npublish [x = 1] junk", "unexpected", 2, 17),
    ],
)
def test_errors_are_located_and_explained(parse, text, reason, line, column):
    with pytest.raises(cb.ParseError) as info:
        parse(text)
    e = info.value
    assert isinstance(e, ValueError)
    assert reason in e.reason
    assert "\n" not in e.reason
    assert (e.line, e.column) == (line, column)
    caret_line = e.context.splitlines()[-1]
    assert (caret_line.strip() == "^" and len(caret_line) - 1 == column - 1) or column > 60


def test_dnf_expansion_is_bounded():
    text = " && ".join(f"(a{i} = 1 || b{i} = 2)" for i in range(20))
    with pytest.raises(cb.ParseError, match="disjunctive normal form"):
        cb.parse_predicate(text)


def test_deep_nesting_is_fine():
    text = "[" * 500 + "x = 1" + "]" * 500
    assert cb.parse_filter(text) == cb.parse_filter("x = 1")


# ------------------------------------------------------------------ fuzzing
VALID_SAMPLES = [
    '[alert-type="intrusion" ∧ severity>2 ∨ class="alert" ∧ device-type="web-server"]',
    "[int x > 1, string s >* \"ab\"] || [float f <= 1.5e3, bool b != true]",
    "ifconfig 2 a = 1, b =* \"x\" | c any any;\nselect a = 1 b = \"xyz\";",
    "subscribe (a = 1 || b = 2) && c any int\npublish [a = 1; b = \"q\"]",
    '[string carrier = "UA", int price = 300, bool upgradeable = true]',
    "x > 1 /* c */ // d\n# e\n",
]

KINDS = ["filter", "predicate", "advertisement", "message", "document", "constraint"]


def _only_parse_errors(text: str) -> None:
    for kind in KINDS:
        with contextlib.suppress(cb.ParseError):
            parse_module.parse_any(text, kind)


@settings(max_examples=600)
@given(st.lists(st.sampled_from([*'[](){}<>=!*|&,;"\\ \n\tabxyz019.-+_/#∧∨', " any ", "int ", " or "])).map("".join))
def test_fuzz_random_text_raises_only_parse_errors(text):
    _only_parse_errors(text)


@settings(max_examples=400)
@given(st.text())
def test_fuzz_arbitrary_unicode_raises_only_parse_errors(text):
    _only_parse_errors(text)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(VALID_SAMPLES))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        ch = draw(st.sampled_from([*'[]"\\,;|&=<>*!-.0123456789 \nx', "\x00", "é", "any", "9" * 25]))
        if action == "insert":
            text = text[:i] + ch + text[i:]
        elif action == "delete":
            text = text[:i] + text[i + 1:]
        elif action == "replace":
            text = text[:i] + ch + text[i + 1:]
        else:
            text = text[:i] + text[i:i + 8] + text[i:]
    return text


@settings(max_examples=1500)
@given(mutated())
def test_fuzz_mutations_of_valid_inputs_raise_only_parse_errors(text):
    _only_parse_errors(text)


# ------------------------------------------------- fast path against Lark
def _lark_predicate(text):
    return parse_module._predicate(parse_module._run(text, "predicate_text"))


@settings(max_examples=400)
@given(predicates(name_strategy=plain_names))
def test_fast_path_agrees_with_lark_on_canonical_text(p):
    text = str(p)
    terms = fast_dnf(text)
    if terms is not None:
        assert Predicate(Filter(t) for t in terms) == p
    elif p.filters and not any(c.name in KEYWORDS or c.type == "any" for f in p for c in f):
        pytest.fail(f"the fast path declined plain canonical text: {text}")
    assert cb.parse_predicate(text) == _lark_predicate(text) == p


@settings(max_examples=400)
@given(mutated())
def test_fast_path_never_accepts_what_lark_rejects(text):
    terms = fast_dnf(text)
    if terms is not None:
        assert Predicate(Filter(t) for t in terms) == _lark_predicate(text)
    m = fast_message(text)
    if m is not None:
        assert m == parse_module._run(text, "message_text")


@settings(max_examples=300)
@given(messages(name_strategy=plain_names))
def test_fast_message_agrees_with_lark(m):
    text = str(m)
    assert cb.parse_message(text) == parse_module._run(text, "message_text") == m


@given(filters(name_strategy=plain_names, max_size=6), st.sampled_from([", ", " && ", "; ", ","]))
def test_fast_path_reads_lenient_flat_filters(f, sep):
    text = sep.join(str(c) for c in f) or "[]"
    assert cb.parse_filter(text) == f


@st.composite
def documents(draw):
    """Documents in the shapes the fast reader takes, and some it declines."""
    parts = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["subscribe", "advertise", "ifconfig", "select", "command", "publish"]))
        if kind == "subscribe":
            p = draw(predicates(name_strategy=plain_names, max_filters=3, max_size=3))
            body = draw(st.sampled_from([str(p), " or ".join(str(f) for f in p) or "false"]))
            parts.append(f"subscribe {body}")
        elif kind == "advertise":
            f = draw(filters(name_strategy=plain_names, max_size=3))
            parts.append("advertise " + draw(st.sampled_from([str(f), ", ".join(str(c) for c in f) or "[]"])))
        elif kind == "ifconfig":
            p = draw(predicates(name_strategy=plain_names, max_filters=3, max_size=3))
            if p.filters and all(f.constraints for f in p):
                body = " | ".join(", ".join(str(c) for c in f) for f in p)
                parts.append(f"ifconfig {draw(st.integers(0, 9))} {body};")
        elif kind == "select":
            m = draw(messages(name_strategy=plain_names, max_size=3))
            parts.append("select " + " ".join(f"{n} = {str(m)[1:-1].split(', ')[i].split(' = ', 1)[1]}"
                                              for i, n in enumerate(m)) + " ;")
        elif kind == "publish":
            parts.append(f"publish {draw(messages(name_strategy=plain_names, max_size=3))}")
        else:
            parts.append(draw(st.sampled_from(["consolidate;", "timer start ;", "set preprocessing_limit = 7;",
                                               "statistics;", "# note", "// note", "/* x */"])))
    return draw(st.sampled_from(["\n", " ", "\n\n  "])).join(parts)


@settings(max_examples=400)
@given(documents())
def test_fast_document_reader_agrees_with_lark(text):
    try:
        expected = parse_module._run(text, "document")
    except cb.ParseError:
        with pytest.raises(cb.ParseError):
            cb.parse_document(text)
        return
    assert cb.parse_document(text) == expected


def test_statements_name_their_subscriber_with_from():
    doc = 'subscribe [string airline any] from 3\nsubscribe x > 1; y = 2 from "client a"\n' \
          'advertise what = "a" from pub_1\nsubscribe x = 1, "from" = 2 from c'
    items = cb.parse_document(doc)
    assert [i.origin for i in items] == ["3", "client a", "pub_1", "c"]
    assert items == parse_module._run(doc, "document")
    assert cb.parse_document("\n".join(str(i) for i in items)) == [
        parse_module.DocumentItem(i.kind, i.value, i.interface, n + 1, i.origin) for n, i in enumerate(items)]
    assert cb.parse_document("subscribe x = 1")[0].origin is None
