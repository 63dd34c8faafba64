"""Documents: every statement prints as text that parses back to an equal
item; documents stream statement by statement; the CLI finds documents
behind comments and keeps `from NAME` in JSON."""

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import advertisements, messages, names, predicates, value_of

import cbalgebra as cb
from cbalgebra import cli
from cbalgebra import parse as parse_module
from cbalgebra.parse import DocumentItem, iter_document
from cbalgebra.values import TYPES, Filter, Predicate

origins = st.none() | names | st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True) | \
    st.integers(0, 999).map(str)


@st.composite
def document_items(draw) -> DocumentItem:
    kind = draw(st.sampled_from(["subscribe", "advertise", "publish", "ifconfig", "select", "command"]))
    if kind == "subscribe":
        return DocumentItem("subscribe", draw(predicates(max_filters=3, max_size=3)), origin=draw(origins))
    if kind == "advertise":
        return DocumentItem("advertise", draw(advertisements(max_size=4)), origin=draw(origins))
    if kind == "publish":
        return DocumentItem("publish", draw(messages(max_size=4)), origin=draw(origins))
    if kind == "ifconfig":
        return DocumentItem("ifconfig", draw(predicates(max_filters=3, max_size=3)),
                            interface=draw(st.integers(0, 2**32 - 1)))
    if kind == "select":
        return DocumentItem("select", draw(messages(max_size=4)))
    words = draw(st.sampled_from([("consolidate",), ("timer", "start"), ("timer", "stop"), ("statistics",),
                                  ("clear",), ("output", "on"), ("output", "off"), ("help",), "set"]))
    if words == "set":
        words = ("set", draw(names), draw(st.sampled_from(TYPES).flatmap(value_of)))
    return DocumentItem("command", words)


@settings(max_examples=300, deadline=None)
@given(st.lists(document_items(), max_size=6), st.sampled_from(["\n", " ", "\n// note\n", "\n/* a\nb */ "]))
def test_printed_documents_parse_back_to_equal_items(items, separator):
    text = separator.join(str(i) for i in items)
    assert cb.parse_document(text) == items
    assert parse_module._run(text, "document") == items


@settings(max_examples=200, deadline=None)
@given(document_items())
def test_each_statement_round_trips(item):
    (back,) = cb.parse_document(str(item))
    assert back == item and back.line == 1
    assert str(back) == str(item)


def test_line_is_provenance_not_meaning():
    a = DocumentItem("select", cb.parse_message("[x = 1]"), line=3)
    b = DocumentItem("select", cb.parse_message("[x = 1]"), line=9)
    assert a == b and hash(a) == hash(b)


@pytest.mark.parametrize("item, text", [
    (DocumentItem("ifconfig", Predicate([Filter([])]), interface=2), "ifconfig 2 [];"),
    (DocumentItem("ifconfig", Predicate(), interface=2), "ifconfig 2 false;"),
    (DocumentItem("select", cb.parse_message("[]")), "select ;"),
    (DocumentItem("command", ("set", "preprocessing_limit", 10)), "set preprocessing_limit = 10;"),
    (DocumentItem("command", ("set", "a b", 1.5)), 'set "a b" = 1.5;'),
    (DocumentItem("publish", cb.parse_message("[x = 1]"), origin="p 1"), 'publish [int x = 1] from "p 1"'),
])
def test_statements_with_no_sff_spelling(item, text):
    assert str(item) == text
    assert cb.parse_document(text) == [item]


def test_the_reported_pipeline_round_trips():
    text = "ifconfig 4 x = 1 | y = 2;\nselect x = 1;\n"
    items = cb.parse_document(text)
    printed = "\n".join(str(i) for i in items)
    assert printed == "ifconfig 4 int x = 1 | int y = 2;\nselect int x = 1;"
    assert cb.parse_document(printed) == items


# ------------------------------------------------------------------ streaming
def test_iter_document_yields_before_an_error_and_counts_lines():
    text = ("/* head\n comment */\nifconfig 1 x = 1;\n"     # fast scanner
            "subscribe from = 1; select = 2 from c\n"        # grammar (keyword names)
            "select y = 2;\n\n"                              # fast again
            "publish [z = 3]\n"                              # grammar
            "ifconfig 2 w = 1;\n"
            "select q = ;\n")                                # error on line 9
    stream = iter_document(text)
    got = [next(stream) for _ in range(4)]
    assert [i.kind for i in got] == ["ifconfig", "subscribe", "select", "publish"]
    assert [i.line for i in got] == [3, 4, 5, 7]
    assert got[1].origin == "c" and {c.name for c in got[1].value.filters[0]} == {"from", "select"}
    assert next(stream).line == 8
    with pytest.raises(cb.ParseError) as info:
        next(stream)
    assert (info.value.line, info.value.column) == (9, 12)
    # The grammar-only path gives the same items and the same error.
    with pytest.raises(cb.ParseError) as info2:
        parse_module._run(text, "document")
    assert (info2.value.line, info2.value.column) == (9, 12)


def test_iter_document_reads_files():
    items = list(iter_document(io.StringIO("subscribe x = 1\nselect x = 1;")))
    assert [i.kind for i in items] == ["subscribe", "select"]


@settings(max_examples=200, deadline=None)
@given(st.lists(document_items(), max_size=5))
def test_lines_are_counted_from_the_document_start(items):
    printed = [str(i) for i in items]
    assert all("\n" not in p for p in printed)  # strings print their line breaks as escapes
    text = "".join(f"# statement {n}\n{p}\n\n" for n, p in enumerate(printed))
    assert [i.line for i in cb.parse_document(text)] == [3 * n + 2 for n in range(len(items))]


# ------------------------------------------------------------------------ CLI
@pytest.mark.parametrize("text", [
    "/* a\n   block */\nsubscribe x = 1",
    "# a\n// b\n\n  ifconfig 1 x = 1;",
    "/* one */ /* two */ select x = 1;",
    "help;",
])
def test_documents_behind_comments_are_detected(text):
    assert cli.looks_like_document(text)


@pytest.mark.parametrize("text", ["x = 1", "/* subscribe */ x = 1", "# subscribe\nx = 1", "subscribers = 1"])
def test_predicates_are_not_documents(text):
    assert not cli.looks_like_document(text)


def test_parse_json_streams_the_same_array_with_origins(tmp_path, capsys):
    doc = tmp_path / "d.txt"
    doc.write_text("// c\nsubscribe x = 1 from client-7\npublish [y = 2] from p\nifconfig 3 z = 1;\nhelp;\n")
    assert cli.main(["parse", "--json", str(doc)]) == 0
    out = capsys.readouterr().out
    items = cb.parse_document(doc.read_text())
    data = json.loads(out)
    assert data == cli.to_json(items)
    assert len(out.splitlines()) == len(items) + 2  # '[', an item per line, ']'
    assert [d.get("origin") for d in data] == ["client-7", "p", None, None]
    empty = tmp_path / "e.txt"
    empty.write_text("# nothing\nconsolidate;")
    assert cli.main(["parse", "--json", "--kind", "document", str(tmp_path / "e.txt")]) == 0
    assert json.loads(capsys.readouterr().out)[0]["value"] == ["consolidate"]


def test_parse_output_parses_back(tmp_path, capsys):
    doc = tmp_path / "d.txt"
    doc.write_text("ifconfig 4 x = 1 | y = 2;\nselect x = 1;\nsubscribe from = 1 from from\n")
    assert cli.main(["parse", str(doc)]) == 0
    once = capsys.readouterr().out
    again = tmp_path / "again.txt"
    again.write_text(once)
    assert cli.main(["parse", str(again)]) == 0
    assert capsys.readouterr().out == once
    assert cb.parse_document(once) == cb.parse_document(doc.read_text())
