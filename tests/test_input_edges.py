"""Inputs at the edges (issue 23 §4, §5): a byte-order mark at the start of
a file, surrogate-pair escapes as JSON writes them, and ``--broadcast``
ids beyond any interface. Each is read alike by the grammar, the fast
scanner, the bulk reader and the printing path, and every command that
reads a file."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from cli_helpers import run, usage_error_on_file

import cbalgebra as cb
from cbalgebra import parse as parse_module
from cbalgebra._docrender import rendered_document
from cbalgebra.matcher.document import compile_document, read_document, table_from_document_objects

BOM = "\ufeff"
DOCUMENT = 'ifconfig 1 x = 1 | s = "a";\nifconfig 2 x > 5;\nselect x = 7;\nselect s = "a";\n'


# ------------------------------------------------------------ byte-order mark
def test_a_document_after_a_byte_order_mark_reads_as_without_it():
    plain = cb.parse_document(DOCUMENT)
    assert cb.parse_document(BOM + DOCUMENT) == plain
    assert list(parse_module.iter_document(io.StringIO(BOM + DOCUMENT))) == plain
    assert list(rendered_document(BOM + DOCUMENT, False, str)) == [str(i) for i in plain]
    loaded = compile_document(BOM + DOCUMENT)
    assert loaded.messages == read_document(DOCUMENT).messages
    assert [r.tolist() for r in loaded.table.forward_batch(loaded.messages)] == [[2], [1]]


def test_errors_after_a_byte_order_mark_count_columns_from_after_it():
    with pytest.raises(cb.ParseError) as plain:
        cb.parse_document("ifconfig 1 x = ;")
    with pytest.raises(cb.ParseError) as marked:
        cb.parse_document(BOM + "ifconfig 1 x = ;")
    assert (marked.value.line, marked.value.column, marked.value.reason) == (
        plain.value.line, plain.value.column, plain.value.reason)


@pytest.mark.parametrize("command,text,expected", [
    (["parse"], DOCUMENT, None),
    (["forward"], DOCUMENT, "2\n1\n"),
    (["reduce", "--quiet"], "x = 1 || x = 2\nx > 5\n", None),
    (["reduce", "--quiet"], "subscribe x = 1\nsubscribe x > 0\n", None),
    (["poset", "--format", "text"], "subscribe x = 1\nsubscribe x > 0\n", None),
])
def test_every_file_reader_takes_a_byte_order_mark(command, text, expected, tmp_path, capsys):
    """As Windows editors write UTF-8 files: the same output as without it."""
    plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
    plain.write_bytes(text.encode("utf-8"))
    marked.write_bytes(BOM.encode("utf-8") + text.encode("utf-8"))
    code, out, err = run(capsys, *command, str(plain))
    assert code == 0, err
    assert run(capsys, *command, str(marked)) == (code, out, err)
    if expected is not None:
        assert out == expected


def test_standard_input_takes_a_byte_order_mark(monkeypatch, capsys):
    data = (BOM + DOCUMENT).encode("utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code, out, _ = run(capsys, "forward", "-")
    assert (code, out) == (0, "2\n1\n")


# ------------------------------------------------------------- surrogate pairs
GRINNING = "\U0001F600"


def _grammar_predicate(text):
    return parse_module._predicate(parse_module._run(text, "predicate_text"))


@pytest.mark.parametrize("escape", ["\\ud83d\\ude00", "\\uD83D\\uDE00", "\\U0001F600", "\\U0001f600"])
def test_a_surrogate_pair_escape_is_one_character_on_every_path(escape):
    text = f'[string s = "a{escape}b", "{escape}" = 1]'
    expected = cb.Predicate([cb.Filter([cb.Constraint("string", "s", "=", f"a{GRINNING}b"),
                                        cb.Constraint("int", GRINNING, "=", 1)])])
    assert cb.parse_predicate(text) == expected
    assert _grammar_predicate(text) == expected
    document = f'ifconfig 3 s = "{escape}";\nselect s = "{escape}";\n'
    items = cb.parse_document(document)
    assert items == parse_module._run(document, "document")
    assert items[0].value == cb.parse_predicate(f's = "{GRINNING}"')
    assert list(rendered_document(document, False, str)) == [str(i) for i in items]
    loaded = compile_document(document)
    assert loaded.messages == [cb.Message({"s": GRINNING})]
    assert [r.tolist() for r in loaded.table.forward_batch(loaded.messages)] == [[3]]
    assert [r.tolist() for r in table_from_document_objects(document).forward_batch(loaded.messages)] == [[3]]


@pytest.mark.parametrize("escape,says", [
    ("\\ud83d", "high surrogate not followed by a low surrogate"),
    ("\\ud83dx", "high surrogate not followed by a low surrogate"),
    ("\\ud83d\\u0041", "high surrogate not followed by a low surrogate"),
    ("\\ud83d\\ud83d", "high surrogate not followed by a low surrogate"),
    ("\\ude00", "low surrogate without a high surrogate"),
    ("\\ude00\\ud83d", "low surrogate without a high surrogate"),
    ("\\U0000D83D\\U0000DE00", "high surrogate not followed by a low surrogate"),
])
def test_a_lone_surrogate_escape_is_an_error_that_says_what_to_write(escape, says):
    text = f'[s = "{escape}"]'
    for parse in (cb.parse_predicate, _grammar_predicate):
        with pytest.raises(cb.ParseError) as e:
            parse(text)
        assert says in e.value.reason and "\\U0001F600" in e.value.reason
        assert "\n" not in e.value.reason and e.value.column == 6
    document = f'ifconfig 1 s = "{escape}";'
    with pytest.raises(cb.ParseError) as fast:
        compile_document(document)
    with pytest.raises(cb.ParseError) as grammar:
        parse_module._run(document, "document")
    assert (fast.value.line, fast.value.column, fast.value.reason) == (
        grammar.value.line, grammar.value.column, grammar.value.reason)


def test_a_surrogate_pair_prints_and_reads_back():
    p = cb.parse_predicate('s = "\\ud83d\\ude00"')
    assert cb.parse_predicate(str(p)) == p


# ---------------------------------------------------------------- --broadcast
@pytest.mark.parametrize("ids,says", [
    ("99999999999999999999999", "at most 4294967295"),
    ("1,4294967296", "at most 4294967295"),
    ("-1", ">= 0"),
])
def test_broadcast_ids_beyond_any_interface_are_usage_errors(ids, says, tmp_path, capsys):
    path = tmp_path / "t.sff"
    assert says in usage_error_on_file(capsys, path, DOCUMENT, "forward", "--broadcast", ids)
    assert run(capsys, "forward", str(path), "--broadcast", "4294967295,2") == (0, "2\n\n", "")


def test_broadcast_beyond_any_interface_exits_2_from_a_shell(tmp_path):
    path = tmp_path / "t.sff"
    path.write_text(DOCUMENT)
    done = subprocess.run([sys.executable, "-m", "cbalgebra", "forward", str(path), "--broadcast",
                           "99999999999999999999999"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1
