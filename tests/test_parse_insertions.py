"""Comments and separators at every position: the fast paths against the grammar.

A `;` inside a comment once ended an `ifconfig` early in the fast scanner,
which then read ``ifconfig 1 x = 1 | // y = 2;`` as ``x = 1`` or the empty
filter, a filter that matches every message (issue 23 §2). Here every
comment form of grammar/siena.lark (``//``, ``#``, ``/* */``) and every
separator (``|``, ``||``, ``,``, ``;``, ``&&``) is inserted at every position
of a few documents and predicates, and each fast path must give the
grammar's value or the grammar's error:

- ``parse_document`` (the fast scanner) against ``parse._run(text, "document")``;
- ``parse_predicate`` against the grammar's predicate;
- the bulk reader of forwarding tables (``table_from_document``, which
  ``cbalgebra forward`` uses) against the table of the grammar's items;
- the printing path of ``cbalgebra parse`` (``_docrender``) against the
  printed grammar items.
"""

from __future__ import annotations

import pytest
from test_matcher_bulk import assert_same_table
from test_parse_sff import assert_same_as_grammar

import cbalgebra as cb
from cbalgebra import cli
from cbalgebra import parse as parse_module
from cbalgebra._docrender import rendered_document
from cbalgebra.matcher.document import compile_document, read_document, table_from_document_objects

COMMENTS = ["//", "// y = 2;", "/* c */", "/* ; */", "/*", "*/", "#", "# y = 2;", "// c\n", "#c\n"]
SEPARATORS = ["|", "||", ",", ";", "&&"]
PIECES = COMMENTS + SEPARATORS

DOCUMENTS = [
    'ifconfig 1 x = 1 | y = 2, s = "a";\nifconfig 2 z any int;\nselect y = 1, s = "a";\n',
    'subscribe [x = 1, y > 2] || z = 3\nadvertise s = "a", t any int\n',
]
TABLES = DOCUMENTS[:1]
PREDICATES = ['[x = 1, y > 2] || z = 3', 'x = 1, s >* "a" || int y any']


def _insertions(text: str, piece: str) -> list[str]:
    return [text[:i] + piece + text[i:] for i in range(len(text) + 1)]


def _outcome(build, text):
    try:
        return "ok", build(text)
    except cb.ParseError as e:
        return "error", (e.line, e.column, e.reason)


def _grammar_table(text):
    """The table of the grammar's items (the fast scanner switched off)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parse_module, "fast_statement", lambda *args: None)
        return _outcome(table_from_document_objects, text), _outcome(read_document, text)


def _printed(lines) -> tuple[list[str], str | None]:
    out = []
    try:
        out.extend(lines)
    except cb.ParseError as e:
        return out, str(e)
    return out, None


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("text", DOCUMENTS)
def test_documents_agree_with_the_grammar(text, piece):
    for inserted in _insertions(text, piece):
        assert_same_as_grammar(inserted)


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("text", PREDICATES)
def test_predicates_agree_with_the_grammar(text, piece):
    def grammar(t):
        return parse_module._predicate(parse_module._run(t, "predicate_text"))

    for inserted in _insertions(text, piece):
        assert _outcome(cb.parse_predicate, inserted) == _outcome(grammar, inserted), inserted


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("text", TABLES)
def test_forwarding_tables_agree_with_the_grammar(text, piece):
    """The bulk reader behind ``cbalgebra forward`` and ``from_document``:
    the grammar's table and messages, or the grammar's error."""
    for inserted in _insertions(text, piece):
        (kind, reference), (_, doc) = _grammar_table(inserted)
        got_kind, got = _outcome(compile_document, inserted)
        assert got_kind == kind, inserted
        if kind == "error":
            assert got == reference, inserted
            continue
        assert_same_table(got.table, reference)
        assert (got.messages, got.message_lines) == (doc.messages, doc.message_lines), inserted


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("text", TABLES)
def test_printing_agrees_with_the_grammar(text, piece):
    """``cbalgebra parse`` prints what the grammar's items print."""
    for inserted in _insertions(text, piece):
        try:
            expected: tuple[list[str], str | None] = ([str(i) for i in parse_module._run(inserted, "document")], None)
        except cb.ParseError as e:
            expected = ([], str(e))
        got = _printed(rendered_document(inserted, False, str))
        if expected[1] is None:
            assert got == expected, inserted
        else:  # the statements before the error are printed, then the same error
            assert got[1] == expected[1], inserted


def test_the_reported_documents():
    """The reproductions of issue 23 §2: errors, as in the grammar (and SFF)."""
    for text in ("ifconfig 1 x = 1 | // y = 2;\nifconfig 2 x = 5;\nselect y = 1;\n",
                 "ifconfig 1 x = 1, // y = 2;\nifconfig 2 x = 5;\nselect y = 1;\n"):
        with pytest.raises(cb.ParseError):
            cb.parse_document(text)
        with pytest.raises(cb.ParseError):
            parse_module._run(text, "document")
        with pytest.raises(cb.ParseError):
            list(rendered_document(text, True, cli._json_item))
