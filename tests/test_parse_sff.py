"""The fast reader of SFF driver statements against the grammar.

``cbalgebra._fastparse`` reads `ifconfig` and `select` bodies with one
findall each, a per-document memo of the values it built, and values put
together without their public constructors' checks (the scanner made
them). Here generated driver documents, valid and malformed, go through
:func:`cbalgebra.parse_document` and through the grammar alone
(``parse._run(text, "document")``, which never calls the fast scanner): both
give the same items on the same lines, or both raise a ParseError at the
same line and column for the same reason. The values the fast reader builds
are compared field by field with what the public constructors build.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import edited

import cbalgebra as cb
from cbalgebra import _fastparse
from cbalgebra import parse as parse_module
from cbalgebra.values import KEYWORDS, Attribute, Constraint, Filter, Message, Predicate

# ------------------------------------------------------------------ pieces
# Names: plain, with a keyword inside, keyword-like words the fast reader
# leaves to the grammar, quoted (keywords, escapes, the empty name).
PLAIN = st.from_regex(r"[a-z_][a-z0-9_\-.]{0,6}", fullmatch=True)
GOOD_NAMES = st.one_of(
    PLAIN,
    st.sampled_from(["ouspras", "a/b", "x.y-z", "_", "anyway", "company", "integers", "strings", "selector",
                     "timers", "fromage", "none", '"set"', '"any"', '"int"', '"a b"', '"x\\"y"', '"tab\\t"',
                     '"\\u00e9t\\u00e9"', '"é"', '"semi;colon"', '"bar|bar"', "on", "start", "help", "int", "any",
                     "false", "select", "or", "and", "from", "prefix"]),
)
# Keywords as names (the grammar's to settle), and names that are errors.
ODD_NAMES = st.one_of(st.sampled_from(sorted(KEYWORDS | {"start", "stop", "on", "off", "help"})),
                      st.sampled_from(['""', '"bad\\q"', '"\\uD800"', "9lives", "-x"]))
NAMES = st.one_of(GOOD_NAMES, GOOD_NAMES, GOOD_NAMES, GOOD_NAMES, GOOD_NAMES, GOOD_NAMES, ODD_NAMES)
INT_VALUES = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.sampled_from(["0", "-0", "+7", "007", "0x1F", "0XFF", "-0x10", "9223372036854775807",
                     "-9223372036854775808", "123456789012345678", "1234567890123456789"]),
)
FLOAT_VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr).filter(lambda s: "inf" not in s),
    st.sampled_from(["1.", ".5", "-0.0", "0.0", "1e5", "1E-3", "17.500000000000004", "2.5e+3", "5e-324", "+.5",
                     "-.5e-2", "123456789012345.123456789012345"]),
)
STRING_VALUES = st.one_of(
    st.from_regex(r'"[a-z ]{0,6}"', fullmatch=True),
    st.sampled_from(['""', '"a\\0"', '"q\\"q"', '"back\\\\"', '"nl\\n"', '"\\u00e9"', '"\\U0001F600"',
                     '"semi;colon"', '"bar|bar"', '"comma,comma"', '"é"']),
)
# Values that are errors, or are not one token.
ODD_VALUES = st.sampled_from(["9223372036854775808", "99999999999999999999", "0x", "1-2", "--1", "5abc", "1_000",
                              "٣", "1e400", "1e-400", "1.5.5", ".", "1.0e", "0x1.5", '"\\x41"', '"\\uD800"',
                              '"unterminated', "truex", "none"])
GOOD_VALUES = st.one_of(INT_VALUES, FLOAT_VALUES, STRING_VALUES, st.sampled_from(["true", "false"]))
VALUES = st.one_of(GOOD_VALUES, GOOD_VALUES, GOOD_VALUES, GOOD_VALUES, GOOD_VALUES, ODD_VALUES)
SFF_OPS = ["=", "!=", "<", ">", "<=", ">=", "=*", "*=", "**", ">*", "*<", "*"]
TYPE_WORDS = ["string", "int", "integer", "long", "float", "double", "bool", "boolean"]
# What the grammar ignores between tokens; a comment makes the fast reader defer.
BLANKS = st.sampled_from([" "] * 8 + ["  ", "\t", "\n", "\n  ", "\u00a0", "\f", "\r\n", " /* c */ ", " # c\n",
                                        " // c\n"])
TIGHT = st.sampled_from(["", " ", " ", " ", " ", " ", " ", " ", "\t", "\n", "/*c*/", " // c\n", "#c\n"])


ORDER_OPS = ["=", "!=", "<", ">", "<=", ">="]


@st.composite
def operator_and_value(draw, odd: bool) -> str:
    """An operator that applies to the value's type; with ``odd``, also
    odd values and any operator."""
    kind = draw(st.sampled_from(["int", "float", "string", "bool"] + ["odd"] * odd))
    value = draw({"int": INT_VALUES, "float": FLOAT_VALUES, "string": STRING_VALUES,
                  "bool": st.sampled_from(["true", "false"]), "odd": ODD_VALUES}[kind])
    ops = {"string": SFF_OPS, "bool": ["=", "!="]}.get(kind, ORDER_OPS)
    op = draw(st.sampled_from(SFF_OPS if odd and draw(st.booleans()) else ops))
    return f"{op}{draw(TIGHT)}{value}"


@st.composite
def sff_constraints(draw, odd: bool = True) -> str:
    """One constraint; an ``odd`` one may be an error or a keyword as a name."""
    name = draw(NAMES if odd else GOOD_NAMES)
    blank = draw(TIGHT)
    form = draw(st.sampled_from(["op"] * 12 + ["typed", "typed", "any_type", "any_type", "any_any", "typed_any",
                                                "anytype_any"] + ["bare_any", "word_op"] * odd))
    if form == "op":
        return f"{name}{blank}{draw(operator_and_value(odd))}"
    if form == "typed":
        value = draw(operator_and_value(odd))
        if not odd:  # a type word that fits the value
            text = value.lstrip("=!<>*").strip()
            type_word = ("string" if text.startswith('"') else "bool" if text in ("true", "false")
                         else "double" if any(ch in text for ch in ".eE") and "x" not in text.lower()
                         else draw(st.sampled_from(["int", "long", "integer", "double"])))
            return f"{type_word} {name}{blank}{value}"
        return f"{draw(st.sampled_from(TYPE_WORDS))} {name}{blank}{value}"
    if form == "any_type":
        return f"{name} any {draw(st.sampled_from(TYPE_WORDS))}"
    if form == "any_any":
        return f"{name} any any"
    if form == "typed_any":
        return f"{draw(st.sampled_from(TYPE_WORDS))} {name} any"
    if form == "anytype_any":
        return f"any {name} any"
    if form == "bare_any":
        return f"{name} any"
    return f"{name} {draw(st.sampled_from(['prefix', 'suffix', 'contains']))} {draw(STRING_VALUES)}"


@st.composite
def ifconfig_statements(draw, odd: bool = True) -> str:
    interface = draw(st.integers(0, 40).map(str) if not odd else st.one_of(
        st.integers(0, 40).map(str), st.sampled_from(["4294967295", "4294967296", "0x1f", "-1", "+2", "7x"])))
    filters = []
    for _ in range(draw(st.integers(1, 4))):
        cs = draw(st.lists(sff_constraints(odd and draw(st.booleans())), min_size=1, max_size=4))
        joins = [draw(st.sampled_from([", "] * 4 + [",", " , ", " && ", ",\n    ", " and ", " ∧ "])) for _ in cs[1:]]
        filters.append(cs[0] + "".join(j + c for j, c in zip(joins, cs[1:], strict=True)))
    ors = [draw(st.sampled_from([" | ", "\n  | "] * 3 + [" || ", "|", " or ", " ∨ "])) for _ in filters[1:]]
    body = filters[0] + "".join(o + f for o, f in zip(ors, filters[1:], strict=True))
    blanks = BLANKS if odd else TIGHT.filter(bool)
    return f"ifconfig{draw(blanks)}{interface}{draw(blanks)}{body}{draw(TIGHT)};"


@st.composite
def select_statements(draw, odd: bool = True) -> str:
    attributes = []
    for n in range(draw(st.integers(0, 5))):
        if odd:
            typed = draw(st.sampled_from(["", "", "", "int ", "string ", "double ", "bool "]))
            attributes.append(f"{typed}{draw(NAMES)}{draw(TIGHT)}={draw(TIGHT)}{draw(VALUES)}")
        else:  # distinct names, typed to fit
            typed, value = draw(st.sampled_from([("", INT_VALUES), ("int ", INT_VALUES), ("", FLOAT_VALUES),
                                                 ("double ", FLOAT_VALUES), ("", STRING_VALUES),
                                                 ("string ", STRING_VALUES), ("bool ", st.sampled_from(["true"]))]))
            attributes.append(f"{typed}{draw(GOOD_NAMES)}{n}{draw(TIGHT)}={draw(TIGHT)}{draw(value)}")
    seps = [draw(st.sampled_from([" ", ", ", ",", " ,\n", "\n"])) for _ in attributes[1:]]
    body = attributes[0] + "".join(s + a for s, a in zip(seps, attributes[1:], strict=True)) if attributes else ""
    return f"select{draw(BLANKS)}{body}{draw(TIGHT)};"


COMMANDS = ["consolidate;", "timer start;", "timer stop ;", "statistics;", "clear;", "output on;", "output off;",
            "help;", "set preprocessing_limit = 7;", "set x = \"a\";", "set y = 1.5;", "set any = 1;"]


@st.composite
def driver_documents(draw) -> str:
    """A driver document; most are valid, some have odd statements."""
    odd = draw(st.sampled_from([False, False, True]))
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["ifconfig"] * 4 + ["select"] * 3 + ["command", "comment", "subscribe"]))
        if kind == "ifconfig":
            parts.append(draw(ifconfig_statements(odd)))
        elif kind == "select":
            parts.append(draw(select_statements(odd)))
        elif kind == "command":
            parts.append(draw(st.sampled_from(COMMANDS)))
        elif kind == "comment":
            parts.append(draw(st.sampled_from(["# note", "// note", "/* a\nb */"])) + "\n")
        else:
            parts.append(f"subscribe {draw(sff_constraints(odd))}")
    return "".join(p + draw(st.sampled_from(["\n", " ", "\n\n", "\r\n", ""])) for p in parts)


# Damage: cut, insert a stray token, drop or duplicate a piece.
STRAY = [*"[](){}<>=!*|&,;\"\\.-+_/#0123456789ax \n",
         "any", "int", "select", "ifconfig", "false", "true", "||", "&&", "=*", "/*", "//", "\u00a0", "é",
         # a comment that hides the rest of a statement, its ';' included (issue 23 §2)
         "// x = 1;", "# x;", "/* ; */", "| //", ", //"]


@st.composite
def damaged(draw, text: str) -> str:
    return draw(edited(text, STRAY, ["truncate", "insert", "delete", "replace", "duplicate"], edits=3, span=3,
                       copy=6))


# ------------------------------------------------------------ comparisons
def _outcome(parse, text):
    try:
        items = parse(text)
    except cb.ParseError as e:
        return ("error", e.line, e.column, e.reason)
    return ("ok", items, [i.line for i in items], [str(i) for i in items])


def _grammar_only(text):
    return parse_module._run(text, "document")


def assert_same_as_grammar(text: str) -> list:
    fast = _outcome(cb.parse_document, text)
    grammar = _outcome(_grammar_only, text)
    assert fast[0] == grammar[0], (text, fast, grammar)
    if fast[0] == "error":
        assert fast == grammar, text
        return []
    assert fast[1] == grammar[1], text  # items: kind, value, interface, origin
    assert fast[2] == grammar[2], text  # lines
    assert fast[3] == grammar[3], text  # printed forms (an int 5 and a float 5.0 compare equal)
    for item in fast[1]:
        assert_as_built_by_constructors(item.value)
    return fast[1]


def _constraint_fields(c: Constraint) -> tuple:
    return (c.type, c.name, c.op, c.value, type(c.value), c.sort_key, hash(c))


def assert_same_fields(fast, built) -> None:
    """Every dataclass field (slot) of ``fast`` is set and equals ``built``'s:
    a field added to a value class later fails here, not far away."""
    assert type(fast) is type(built)
    for f in dataclasses.fields(fast):
        assert getattr(fast, f.name) == getattr(built, f.name), f.name


def assert_as_built_by_constructors(value) -> None:
    """The fast reader's values are what the public constructors build."""
    if isinstance(value, Predicate):
        rebuilt = Predicate(Filter(Constraint(c.type, c.name, c.op, c.value) for c in f) for f in value)
        assert value.filters == rebuilt.filters and hash(value) == hash(rebuilt)
        assert [len(f) for f in value] == [len(f) for f in rebuilt]
        assert_same_fields(value, rebuilt)
        for f, g in zip(value, rebuilt, strict=True):
            assert_same_fields(f, g)
            for c, d in zip(f, g, strict=True):
                assert_same_fields(c, d)
            assert type(f) is Filter and f.constraints == g.constraints and hash(f) == hash(g)
            assert f._cache == {} and f._cache is not g._cache
            assert [_constraint_fields(c) for c in f] == [_constraint_fields(c) for c in g]
        assert value._cache == {}
    elif isinstance(value, Message):
        rebuilt_message = Message({n: Attribute(a.type, a.value) for n, a in value.items()})
        assert value.attributes == rebuilt_message.attributes and hash(value) == hash(rebuilt_message)
        assert [type(a.value) for _, a in value.attributes] == [type(a.value) for _, a in rebuilt_message.attributes]
        assert value._index == rebuilt_message._index and list(value) == list(rebuilt_message)
        assert_same_fields(value, rebuilt_message)
        for (_, a), (_, b) in zip(value.attributes, rebuilt_message.attributes, strict=True):
            assert_same_fields(a, b)
            assert type(a) is Attribute and (a.type, a.value, hash(a)) == (b.type, b.value, hash(b))


# ------------------------------------------------------------------ tests
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(driver_documents())
def test_fast_reader_agrees_with_the_grammar_on_driver_documents(text):
    assert_same_as_grammar(text)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fast_reader_agrees_with_the_grammar_on_damaged_documents(data):
    text = data.draw(driver_documents())
    assert_same_as_grammar(data.draw(damaged(text)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(driver_documents())
def test_items_print_back_and_reparse_equal(text):
    try:
        items = cb.parse_document(text)
    except cb.ParseError:
        return
    printed = "\n".join(str(i) for i in items)
    again = assert_same_as_grammar(printed)
    assert again == items
    assert [i.line for i in again] == list(range(1, len(items) + 1))


LITERAL_CASES = [
    # every SFF spelling of the forms and operators, in one body
    'ifconfig 3 a = 1, b != -2, c < 0x10, d > 1.5, e =* "p", f *= "s", g ** "in", h any integer, '
    'i any any, j any double | k = true, l != false, m any boolean, n any string | o > "x", p <= 3, q >= 4.5;',
    # our own printed forms: typed constraints, >* *< *, `any NAME any`, `int NAME any`
    'ifconfig 0 int a = 5, float b < 2.5, string c >* "x", string d *< "y", string e * "z", any f any, int g any;',
    # quoted names, keywords quoted, escapes in values
    'ifconfig 1 "set" = 29, "any" > 1, "a b" = "c\\"d", x = "tab\\there", "\\u00e9" = 1, y = "a\\0";',
    'select "set" = 1 x = "a" y = 2.5 z = true;',
    'select int a = 1, string b = "x", double c = 2, bool d = false;',
    'select ;',
    # separators and spacing the fast reader takes
    'ifconfig 2 a=1,b=2&&c=3|d=4||e=5\n  | f\t=\t6;',
    # what it leaves to the grammar, which reads it or reports it
    'ifconfig 2 a = 1, [b = 2; c = 3] | d = 4;',
    'ifconfig 2 a = 1 /* note */, b = 2;',
    'ifconfig 2 /* c */ a/* c */=/**/1 // c\n , # c\n b any/*x*/integer | int/* c */c = 2 /* c */;',
    'select /* c */ a = 1 // c\n b = "x" # c\n;',
    'ifconfig 2 a = 1 // c; d\n, b = 2;',
    'ifconfig 2 a = 1 /* c; d */, b = 2;',
    'ifconfig 2 a = 1 # c; d\n;',
    'ifconfig 2 a = 1 /* unterminated;',
    'ifconfig 2 a = 1 |/**/| b = 2;',
    'ifconfig 2 a = 1 &/**/& b = 2;',
    'ifconfig 2 a = true/* c */, b = 1/* c */;',
    'ifconfig 2 a/b = 1, a//b = 1;',
    'ifconfig 2 a = "x;y" | b = 2;',
    'ifconfig 2 on = 1, start > 2, help < 3;',
    'ifconfig 2 a prefix "x", b contains "y";',
    'ifconfig 2 a = 1 and b = 2 or c = 3;',
    'ifconfig 2 false;',
    'ifconfig 2 a any;',
    'ifconfig 2 int a any int;',
    'ifconfig 2 a = 1,;',
    'ifconfig 2 a = 1 | ;',
    'ifconfig 1 x = 1 | // y = 2;\nifconfig 2 x = 5;\nselect y = 1;\n',
    'ifconfig 1 x = 1, // y = 2;\nifconfig 2 x = 5;\nselect y = 1;\n',
    'ifconfig 1 x = 1 | # y = 2;\nifconfig 2 x = 5;\n',
    'ifconfig 1 x = 1 || /* y = 2; */ z = 3;',
    'select y = 1, s = "a",;',
    'ifconfig 2 a = 1',
    'ifconfig 2 a = "unterminated;',
    'ifconfig 2 a = 1e400;',
    'ifconfig 2 a = 99999999999999999999;',
    'ifconfig 2 a =* 5;',
    'ifconfig 2 a = 1.5.5;',
    'ifconfig 4294967296 a = 1;',
    'ifconfig 7x = 1;',
    'select a = 1, a = 2;',
    'select a = 1,;',
    'select , a = 1;',
    'select a =* "x";',
    'select a = "x"b = 2;',
    'select a = truex;',
    'select a = 1\nifconfig 1 b = 2;',
    'ifconfig 1 a = 1; stray',
    'ifconfig 1 a = 1;\nselect a = 1;\nset preprocessing_limit = 3;\ntimer start;\nselect b = 2;\ntimer stop;\n',
]


@pytest.mark.parametrize("text", LITERAL_CASES)
def test_literal_driver_statements(text):
    assert_same_as_grammar(text)


ALL_KEYWORDS = sorted(set(parse_module.keyword_spellings().values()) | KEYWORDS)


def _without_the_grammar(monkeypatch) -> None:
    def no_grammar(*args, **kwargs):
        raise AssertionError(f"the grammar was asked at {args[1:3]}")

    monkeypatch.setattr(parse_module, "_grammar_statements", no_grammar)


@pytest.mark.parametrize("keyword", ALL_KEYWORDS)
def test_keywords_as_names_before_an_operator_symbol(keyword, monkeypatch):
    """`KEYWORD op value` reads the keyword as a name, in the fast reader as
    in the grammar, wherever a constraint or an attribute starts."""
    text = (f"ifconfig 1 {keyword} = 1, {keyword} != \"x\" | y = 2 || {keyword} > 2.5 && z < 3;\n"
            f"ifconfig 2 {keyword} =* \"p\";\nselect {keyword} = 1 y = 2;\nselect y = 1, {keyword} = \"s\";\n")
    expected = assert_same_as_grammar(text)
    assert len(expected) == 4
    _without_the_grammar(monkeypatch)
    assert cb.parse_document(text) == expected


def _mixed_workload(seed: int, filters: int, messages: int):
    """The mixed table of benchmarks/forward.py: every type and operator."""
    return cb.workloads.forwarding(
        interfaces=20, filters_per_interface=filters // 20, messages=messages, seed=seed,
        type_weights={"string": 0.4, "int": 0.3, "float": 0.2, "bool": 0.1},
        string_op_weights={"=": 3, "!=": 1, "<": 1, ">": 1, "<=": 1, ">=": 1, ">*": 2, "*<": 1, "*": 1, "any": 1},
        int_op_weights={"=": 3, "!=": 1, "<": 2, ">": 2, "<=": 1, ">=": 1, "any": 1},
        bool_op_weights={"=": 1, "!=": 1, "any": 1})


@pytest.mark.parametrize("workload", ["paper", "mixed"])
def test_workload_driver_files_take_the_fast_reader_only(workload, monkeypatch):
    """Every statement of the generated driver files is read by the fast
    reader (the grammar is never asked), and the items are the grammar's."""
    if workload == "paper":
        w = cb.workloads.forwarding(interfaces=20, filters_per_interface=15, messages=40, attributes_per_message=10,
                                    seed=3)
    else:
        w = _mixed_workload(4, 400, 40)
    text = w.sff(table=True, messages=True)
    expected = _grammar_only(text)
    _without_the_grammar(monkeypatch)
    items = cb.parse_document(text)
    assert items == expected and [i.line for i in items] == [i.line for i in expected]
    assert [str(i) for i in items] == [str(i) for i in expected]
    assert sum(i.kind == "ifconfig" for i in items) == 20 and sum(i.kind == "select" for i in items) == 40
    for item in items:
        assert_as_built_by_constructors(item.value)


def test_memo_limit_changes_nothing(monkeypatch):
    w = _mixed_workload(5, 200, 20)
    text = w.sff(table=True, messages=True)
    expected = cb.parse_document(text)
    monkeypatch.setattr(_fastparse, "_MEMO_LIMIT", 3)
    assert cb.parse_document(text) == expected


def test_constraints_repeat_as_one_object():
    items = cb.parse_document("ifconfig 1 a = 1, b = 2 | a = 1, c = 3;\nifconfig 2 a = 1;")
    first = {c.name: c for f in items[0].value for c in f}
    assert items[1].value.filters[0].constraints[0] is first["a"]


def test_iter_document_leaves_the_collector_as_it_was():
    import gc

    text = "ifconfig 1 a = 1;\nselect a = 1;\n"
    seen = [gc.isenabled() for _ in parse_module.iter_document(text)]
    assert seen == [True, True] and gc.isenabled()
    gc.disable()
    try:
        assert [gc.isenabled() for _ in parse_module.iter_document(text)] == [False, False]
        cb.parse_document(text)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(cb.ParseError):
        cb.parse_document("ifconfig 1 a = ;")
    assert gc.isenabled()


def test_reading_a_driver_file_makes_no_reference_cycles():
    """Nothing the fast reader builds or keeps is in a cycle, so a document's
    memos are freed when it is read (parse_document pauses the collector)."""
    import gc

    text = _mixed_workload(6, 200, 20).sff(table=True, messages=True)
    gc.collect()
    gc.disable()
    try:
        items = cb.parse_document(text)
        assert len(items) == 40
        assert gc.collect() == 0
    finally:
        gc.enable()
