"""`cbalgebra parse` prints documents from the text directly
(cbalgebra/_docrender.py) for flat `ifconfig` and `select` statements. It
must print exactly what the value path prints (iter_document, then str() or
the JSON of to_json), byte for byte, and stop at the same error: these tests
compare the two on generated statements of every spelling the scanner
reads, with mutations that make them wrong, and through the CLI."""

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra import cli
from cbalgebra._docrender import rendered_document
from cbalgebra.parse import iter_document

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import cliffs_parse


def _value_path(text, as_json):
    render = cli._json_item if as_json else str
    return _collect(render(item) for item in iter_document(text))


def _render_path(text, as_json):
    return _collect(rendered_document(text, as_json, cli._json_item if as_json else str))


def _collect(lines):
    out = []
    try:
        for line in lines:
            out.append(line)
    except cb.ParseError as e:
        return out, str(e)
    return out, None


def _assert_same(text):
    for as_json in (True, False):
        assert _render_path(text, as_json) == _value_path(text, as_json), (as_json, text)


# ------------------------------------------------------------- generated text
BLANK = st.sampled_from(["", " ", "  ", "\t", "\n", "\u00a0", " \r\n "])
GAP = st.sampled_from([" ", "\n", "  ", "\t", "\u00a0"])
PLAIN_NAMES = ["price", "x", "a.b", "a-b", "_n", "x/y", "Price2", "company", "stock", "anyway", "y"]
# Names spelled like keywords are left to the grammar: now and then.
NAMES = st.one_of(st.sampled_from(PLAIN_NAMES), st.sampled_from(PLAIN_NAMES),
                  st.sampled_from(PLAIN_NAMES), st.sampled_from(["from", "int", "any", "select", "ifconfig"]))
TYPE_WORDS = st.sampled_from([None, "string", "int", "integer", "long", "float", "double", "bool", "boolean"])
OPS = st.sampled_from(["=", "!=", "<", ">", "<=", ">=", ">*", "*<", "=*", "*=", "*", "**", "any"])
# Pieces of a string literal's body: characters and escapes, and now and
# then a piece that is wrong there (a bare quote or backslash, an unknown
# escape, an escaped surrogate).
_GOOD_PIECES = st.sampled_from([*list("ab Zé\t\u2028\x7f\x00"), "\\n", '\\"', "\\\\", "\\u00e9"])
_BAD_PIECES = st.sampled_from(['"', "\\", "\\q", "\\ud800"])
STRING_BODIES = st.lists(st.one_of(_GOOD_PIECES, _GOOD_PIECES, _GOOD_PIECES, _GOOD_PIECES, _GOOD_PIECES,
                                   _BAD_PIECES), max_size=6).map("".join)
NUMBERS = st.one_of(
    st.integers(-(2**64), 2**64).map(str),
    st.integers(0, 999).map(lambda i: f"00{i}"),
    st.integers(0, 999).map(lambda i: f"+{i}"),
    st.integers(0, 2**66).map(lambda i: f"0x{i:X}"),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["-0.0", "0.0", "1.", ".5", "1e400", "1e-400", "5e-324", "2.50", "1E3", "-7.125e-3",
                     "123456789012345.123", "9007199254740993", "9223372036854775808", "-9223372036854775808"]),
)
VALUES = st.one_of(st.none(), STRING_BODIES.map(lambda s: f'"{s}"'), NUMBERS, st.sampled_from(["true", "false"]))


# Well-typed constraints, so that most generated statements are ones the
# direct path prints (and not only ones it declines).
WELL_TYPED = {
    "string": (["string", None], ["=", "!=", "<", ">", ">*", "*<", "=*", "*=", "*", "**", "any"],
               STRING_BODIES.map(lambda s: f'"{s}"')),
    "int": (["int", "integer", "long", None], ["=", "!=", "<", ">", "<=", ">=", "any"], NUMBERS),
    "float": (["float", "double", None], ["=", "!=", "<", ">", "<=", ">=", "any"],
              st.floats(allow_nan=False, allow_infinity=False).map(repr)),
    "bool": (["bool", "boolean", None], ["=", "!=", "any"], st.sampled_from(["true", "false"])),
}


@st.composite
def constraint_texts(draw):
    if draw(st.integers(0, 3)) > 0:
        words, ops, values = WELL_TYPED[draw(st.sampled_from(sorted(WELL_TYPED)))]
        op = draw(st.sampled_from(ops))
        type_word = draw(st.sampled_from(words)) if op != "any" else draw(st.sampled_from(words[:-1]))
        head = f"{type_word}{draw(GAP)}" if type_word else ""
        tail = "" if op == "any" else draw(BLANK) + draw(values)
        return f"{head}{draw(NAMES)}{draw(BLANK)}{op}{tail}"
    type_word = draw(TYPE_WORDS)
    value = draw(VALUES)
    parts = ([type_word, draw(GAP)] if type_word else []) + [draw(NAMES), draw(BLANK), draw(OPS)]
    if value is not None:
        parts += [draw(BLANK), value]
    return "".join(parts)


@st.composite
def ifconfig_texts(draw):
    filters = []
    for _ in range(draw(st.integers(1, 3))):
        constraints = draw(st.lists(constraint_texts(), min_size=1, max_size=3))
        # Repeats: the same constraint twice in a filter, the same filter twice.
        if draw(st.booleans()):
            constraints.append(constraints[0])
        sep = draw(st.sampled_from([",", ", ", " && ", " ,\n"]))
        filters.append(sep.join(constraints))
    if draw(st.booleans()):
        filters.append(filters[0])
    joined = draw(st.sampled_from(["|", " | ", " || ", "\n|"])).join(filters)
    number = draw(st.sampled_from(["0", "1", "12", "007", "4294967295", "1", "12", "4294967296", "99999999999"]))
    after = draw(st.sampled_from([" ", " ", "\t", "\n ", ""]))
    return f"ifconfig{draw(GAP)}{number}{after}{joined}{draw(BLANK)};"


@st.composite
def select_texts(draw):
    attrs = []
    for _ in range(draw(st.integers(0, 4))):
        type_word = draw(TYPE_WORDS)
        value = draw(VALUES.filter(lambda v: v is not None))
        head = f"{type_word}{draw(GAP)}" if type_word else ""
        attrs.append(f"{head}{draw(NAMES)}{draw(BLANK)}={draw(BLANK)}{value}")
    sep = draw(st.sampled_from([",", ", ", " ", "\n"]))
    return f"select{draw(GAP)}{sep.join(attrs)}{draw(BLANK)};"


OTHER_STATEMENTS = st.sampled_from(["subscribe x > 1", "advertise int y any", "publish [x = 1]",
                                    "set preprocessing_limit = 10;", "consolidate;", "timer start;",
                                    "subscribe from = 3; int > 1 from client-7", "ifconfig 3 false;",
                                    "ifconfig 3 [];", "select ;", "ifconfig 2 int x any | y any int;"])
SEPARATORS = st.sampled_from(["\n", " ", "\n# note\n", "\n// note\n", "/* a\nb */", ""])


@st.composite
def documents(draw):
    statements = draw(st.lists(st.one_of(ifconfig_texts(), select_texts(), OTHER_STATEMENTS), max_size=5))
    text = "".join(draw(SEPARATORS) + s for s in statements) + draw(SEPARATORS)
    # Sometimes break it: drop or insert a character somewhere.
    if text and draw(st.integers(0, 4)) == 0:
        i = draw(st.integers(0, len(text) - 1))
        if draw(st.booleans()):
            text = text[:i] + text[i + 1:]
        else:
            text = text[:i] + draw(st.sampled_from(list(';,|"=x1 \n[]-.'))) + text[i:]
    return text


@settings(max_examples=600, deadline=None)
@given(documents())
def test_rendered_documents_print_what_the_value_path_prints(text):
    _assert_same(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(constraint_texts(), min_size=1, max_size=6))
def test_each_constraint_spelling_prints_the_same(constraints):
    _assert_same("ifconfig 1 " + " | ".join(constraints) + ";")
    _assert_same("select " + ", ".join(c for c in constraints) + ";")


@pytest.mark.parametrize("text", [
    "ifconfig 1 x = 1, x = 1 | x = 1;",  # duplicates dropped, once
    "ifconfig 1 b = 2, a = 1 | a = 1, b = 2;",  # one filter, two orders
    'ifconfig 1 s = "b" | s = "a" | s = "a\\"b" | s = "tab\there";',
    "ifconfig 1 x = 010 | x = 0x10 | x = +10 | x = -0 | float f = 3 | f = -0.0 | f = 1e3;",
    "ifconfig 1 int x any, string x any, x = 1, x != 1, x < 1;",
    'select b = 1, a = "x\\u00e9" c = 2.5;',
    "select x = 1, x = 2;",  # duplicate attribute: the value path's error
    "ifconfig 1 x = 1;\nifconfig 2 y = ;\nifconfig 3 z = 3;",  # error on line 2, after one item
    "ifconfig 4294967296 x = 1;",
    "ifconfig 1 x = 99999999999999999999;",
    'ifconfig 1 s = "\ud800";',  # a lone surrogate (not from UTF-8): the value path's error
    "ifconfig 1 x = 1; oops",
])
def test_literal_cases(text):
    _assert_same(text)


def test_the_benchmark_document_prints_the_same(tmp_path):
    path = tmp_path / "doc.sff"
    cliffs_parse.generate(path, 0.05, seed=3, keyword_share=0.05)
    _assert_same(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ the CLI
def _old_cli_output(text, as_json):
    """What `cbalgebra parse` wrote before the direct path: each item as
    iter_document yields it, the JSON array closed only at the end."""
    lines, error = _value_path(text, as_json)
    if not as_json:
        return "".join(line + "\n" for line in lines), error
    if not lines:
        return ("[]\n" if error is None else ""), error
    return "[\n" + ",\n".join(lines) + ("\n]\n" if error is None else ""), error


@pytest.mark.parametrize("as_json", [True, False])
@pytest.mark.parametrize("text", [
    "set a = 1;\n" + "".join(f"ifconfig {i} x = {i}, s = \"v{i}\" | y > {i};\nselect b = {i}, a = {i}.5;\n"
                             for i in range(600)),
    "".join(f"ifconfig {i} x = {i};\n" for i in range(300)) + "ifconfig 9 x = ;\nifconfig 10 x = 1;\n",
    "ifconfig 1 x = ;",
    "",
])
def test_cli_output_is_byte_identical(tmp_path, capsys, text, as_json):
    f = tmp_path / "doc.sff"
    f.write_text(text, encoding="utf-8")
    want_out, want_error = _old_cli_output(text, as_json)
    code = cli.main(["parse", "--kind", "document"] + (["--json"] if as_json else []) + [str(f)])
    captured = capsys.readouterr()
    assert captured.out == want_out
    if want_error is None:
        assert code == 0
    else:
        assert code == 2 and want_error.splitlines()[0] in captured.err


class _FailingOut:
    """A stream whose writes fail (a full disk), counting the attempts."""

    def __init__(self):
        self.attempts = 0

    def write(self, text):
        self.attempts += 1
        raise OSError(28, "No space left on device")


def test_a_failed_write_is_not_written_again():
    out = _FailingOut()
    with pytest.raises(OSError):
        cli._write_lines((f"line {i}" for i in range(cli._WRITE_BATCH + 5)), out, as_json=False)
    assert out.attempts == 1
