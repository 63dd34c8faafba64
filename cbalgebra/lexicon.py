"""The tokens of the Siena language, written once.

Five readers read the language: the grammar (grammar/siena.lark under the
LALR driver of ``cbalgebra.parse``), the fast scanner
(``cbalgebra._fastparse``), the printer (``cbalgebra._docrender``), and the
matcher's bulk reader (``cbalgebra.matcher._scan`` and ``_bulk``). Every
token they know is defined here:

- the character classes and token patterns: blanks, names, string and number
  literals, comments (:data:`BLANK`, :data:`NAME`, :data:`STRING`,
  :data:`FLOAT`, :data:`INT`, :data:`COMMENTS`), from which the scanners'
  possessive and unrolled forms are derived;
- :data:`LEXEMES`, the table of every fixed spelling: type words and operator
  spellings (from the vocabulary of ``cbalgebra.values``, TYPE_SPECS and
  OPERATOR_SPECS, where a spelling of an operator or type is a field of its
  row), the connectives, the literal and statement keywords. Each row names
  the grammar terminal that reads it.

The grammar file holds only rules: :func:`grammar_text` appends the
terminals, and the rules ``type``, ``sff_type`` and ``op`` that list them,
generated from this module. So a new operator spelling is one change to the
vocabulary table, and every reader takes it (tests/test_lexicon.py shows it
by reading a spelling added to the table with all five readers).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

from cbalgebra.values import OPERATOR_SPECS, TYPE_SPECS, Op

__all__ = [
    "BLANK",
    "BLANKS",
    "COMMENTS",
    "COMMENT_DELIMITERS",
    "ESCAPE",
    "FLOAT",
    "GAP",
    "INT",
    "KEYWORDS",
    "LEXEMES",
    "NAME",
    "NAME_CHAR",
    "NAME_END",
    "NAME_SCANNED",
    "NAME_SLASH",
    "NAME_START",
    "NAME_WORD",
    "NUMBER_END",
    "OPERATOR_OF_TERMINAL",
    "QUOTE",
    "SPELLING",
    "STATEMENT",
    "STATEMENT_WORDS",
    "STRING",
    "STRING_SCANNED",
    "SYMBOL_OPERATORS",
    "TYPE_OF_TERMINAL",
    "TYPE_WORDS",
    "WORD_END",
    "WORD_OPERATORS",
    "Lexeme",
    "alternation",
    "describe_terminal",
    "grammar_text",
    "skip",
]

# ------------------------------------------------------------ character classes
#: What separates tokens besides comments (a no-break space too: editors insert it).
BLANKS = " \t\r\n\f\u00a0"
BLANK = "[" + BLANKS.replace("\t", r"\t").replace("\r", r"\r").replace("\n", r"\n").replace(
    "\f", r"\f").replace("\u00a0", r"\u00a0") + "]"
#: A name starts with an ASCII letter or '_' and goes on with these, or with a
#: '/' that does not open a comment (``a/b`` is one name, ``a//b`` a name and
#: a comment). ASCII only: ``\w`` would take letters of every script.
NAME_START = "[A-Za-z_]"
NAME_CHAR = r"[A-Za-z0-9_\-.]"
NAME_SLASH = r"/(?![/*])"
#: Where a keyword or literal certainly ends (a '/' after it is read as part of
#: a name by the grammar, or opens a comment: either way the scanners decline).
WORD_END = r"(?![A-Za-z0-9_\-./])"
#: Where a number literal certainly ends (the grammar's lexer would read no
#: more of it, nor a name glued to it).
NUMBER_END = r"(?![0-9A-Za-z_.])"
#: Where a name could not go on.
NAME_END = "(?!" + NAME_CHAR + "|" + NAME_SLASH + ")"

# ------------------------------------------------------------------- patterns
# The grammar's forms (Lark reads them); the scanners use the possessive or
# unrolled forms derived below, which match exactly the same texts but never
# backtrack into a name or string (a regex must not split `company` into the
# name `comp` and the keyword `any`).
NAME = NAME_START + "(?:" + NAME_CHAR + "|" + NAME_SLASH + ")*"
NAME_SCANNED = NAME_START + "(?:" + NAME_CHAR + "|" + NAME_SLASH + ")*+"
#: NAME unrolled: the regex engine runs a character class, not an alternation per character.
NAME_WORD = NAME_START + NAME_CHAR + "*+(?:" + NAME_SLASH + NAME_CHAR + "*+)*+"
#: A string literal: between quotes, any character but the quote, the escape
#: and a line break, or the escape and any character (decoded by
#: cbalgebra.literals.unquote).
QUOTE, ESCAPE = '"', "\\"
_STRING_CHAR = "[^" + re.escape(QUOTE + ESCAPE) + r"\n]"
_STRING_ESCAPE = re.escape(ESCAPE) + "."
STRING = QUOTE + "(?:" + _STRING_CHAR + "|" + _STRING_ESCAPE + ")*" + QUOTE
STRING_SCANNED = QUOTE + _STRING_CHAR + "*+(?:" + _STRING_ESCAPE + _STRING_CHAR + "*+)*+" + QUOTE
# ASCII digits only: `\d` would also take Unicode digits (fullwidth, Arabic-Indic).
FLOAT = r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?[0-9]+[eE][+-]?[0-9]+"
#: Decimal, or hexadecimal as SFF's own test files write it (`0xffffffff`).
INT = r"[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)"
#: Comments, by grammar terminal: (opening, closing) delimiters. A comment
#: closed by a line break ends before it; one closed by two characters
#: (``*/``) takes them, and none nests.
COMMENT_DELIMITERS = {"HASH_COMMENT": ("#", "\n"), "LINE_COMMENT": ("//", "\n"), "BLOCK_COMMENT": ("/*", "*/")}


def _comment(opening: str, closing: str, possessive: bool) -> str:
    more = "*+" if possessive else "*"
    if closing == "\n":
        return re.escape(opening) + r"[^\n]" + more
    first, second = re.escape(closing[0]), re.escape(closing[1])
    return re.escape(opening) + "(?:[^" + first + "]|" + first + "(?!" + second + "))" + more + re.escape(closing)


#: Comments, by grammar terminal: (the pattern, its possessive form).
COMMENTS = {name: (_comment(*ends, possessive=False), _comment(*ends, possessive=True))
            for name, ends in COMMENT_DELIMITERS.items()}
#: What the grammar ignores between two tokens: one blank or one comment.
GAP = "(?:" + "|".join([BLANK, *(scanned for _, scanned in COMMENTS.values())]) + ")"
_SKIP = re.compile("(?:" + "|".join([BLANK + "+", *(plain for plain, _ in COMMENTS.values())]) + ")*")


def skip(text: str, pos: int) -> int:
    """The offset after any blanks and comments at ``pos``."""
    return _SKIP.match(text, pos).end()  # type: ignore[union-attr]  # the pattern matches the empty string


# --------------------------------------------------------------- the spellings
TYPE, OPERATOR, CONNECTIVE, LITERAL, STATEMENT_WORD, COMMAND_WORD = (
    "type", "operator", "connective", "literal", "statement", "command")


@dataclass(frozen=True)
class Lexeme:
    """One fixed spelling: the grammar terminal that reads it, its role and
    what it stands for (a canonical type or operator spelling; for a
    connective ``and`` or ``or``)."""

    terminal: str
    text: str
    role: str
    meaning: str = ""

    @property
    def is_word(self) -> bool:
        """A keyword: spelled like a name, so it stays usable as one."""
        return re.fullmatch(NAME, self.text) is not None


def _vocabulary() -> list[Lexeme]:
    """The type words and operator spellings of the vocabulary tables of
    values.py (the terminals are named by TypeSpec.tokens and OperatorSpec.tokens)."""
    rows = [Lexeme(token, word, TYPE, t.spelling) for t in TYPE_SPECS for token, word in zip(t.tokens, t.words,
                                                                                           strict=True)]
    for o in OPERATOR_SPECS:
        if o.code == Op.ANY:
            continue  # `any` is a keyword of its own (below): it takes no operand
        spellings = (o.symbol, *((o.sff,) if o.sff != o.symbol else ()), *o.words)
        rows += [Lexeme(token, s, OPERATOR, o.symbol) for token, s in zip(o.tokens, spellings, strict=True)]
    return rows


#: Every fixed spelling of the language, by the terminal that reads it. A
#: terminal may have several symbol spellings (``&&`` and ``∧``); a keyword
#: has a terminal of its own, which the driver of cbalgebra.parse needs to
#: follow both readings of a word that may also be a name.
LEXEMES: tuple[Lexeme, ...] = (
    *_vocabulary(),
    # `and` binds tighter than `or`; ',' and ';' join constraints too.
    Lexeme("_AND_SYM", "&&", CONNECTIVE, "and"),
    Lexeme("_AND_SYM", "\u2227", CONNECTIVE, "and"),
    Lexeme("_AND_WORD", "and", CONNECTIVE, "and"),
    Lexeme("_COMMA", ",", CONNECTIVE, "and"),
    Lexeme("_SEMI", ";", CONNECTIVE, "and"),
    Lexeme("OR2", "||", CONNECTIVE, "or"),
    Lexeme("OR1", "|", CONNECTIVE, "or"),
    Lexeme("OR_SYMBOL", "\u2228", CONNECTIVE, "or"),
    Lexeme("OR_WORD", "or", CONNECTIVE, "or"),
    Lexeme("ANY", "any", LITERAL),
    Lexeme("TRUE", "true", LITERAL),
    Lexeme("FALSE", "false", LITERAL),
    # Statements of our documents and of SFF's driver files.
    Lexeme("SUBSCRIBE", "subscribe", STATEMENT_WORD),
    Lexeme("ADVERTISE", "advertise", STATEMENT_WORD),
    Lexeme("PUBLISH", "publish", STATEMENT_WORD),
    Lexeme("FROM", "from", STATEMENT_WORD),
    Lexeme("IFCONFIG", "ifconfig", STATEMENT_WORD),
    Lexeme("SELECT", "select", STATEMENT_WORD),
    Lexeme("CONSOLIDATE", "consolidate", STATEMENT_WORD),
    Lexeme("TIMER", "timer", STATEMENT_WORD),
    Lexeme("STATISTICS", "statistics", STATEMENT_WORD),
    Lexeme("CLEAR", "clear", STATEMENT_WORD),
    Lexeme("OUTPUT", "output", STATEMENT_WORD),
    Lexeme("SET", "set", STATEMENT_WORD),
    Lexeme("HELP", "help", STATEMENT_WORD),
    Lexeme("START", "start", COMMAND_WORD),
    Lexeme("STOP", "stop", COMMAND_WORD),
    Lexeme("ON", "on", COMMAND_WORD),
    Lexeme("OFF", "off", COMMAND_WORD),
)


def _check(lexemes: Iterable[Lexeme]) -> None:
    terminals: dict[str, list[Lexeme]] = {}
    spellings: set[str] = set()
    for row in lexemes:
        terminals.setdefault(row.terminal, []).append(row)
        assert row.text not in spellings, f"{row.text!r} is spelled twice in the lexicon"
        spellings.add(row.text)
    for name, rows in terminals.items():
        # Lark treats a terminal as a keyword only when it is one string.
        assert len(rows) == 1 or not any(r.is_word for r in rows), f"keyword terminal {name} has one spelling"


_check(LEXEMES)

#: Terminal -> its (first) spelling: ``SPELLING["FROM"]`` is ``from``.
SPELLING: dict[str, str] = {row.terminal: row.text for row in reversed(LEXEMES)}
#: Every word the language reserves; a name spelled like one is read by the
#: grammar, which follows both readings (the scanners leave it to it).
KEYWORDS: frozenset[str] = frozenset(row.text for row in LEXEMES if row.is_word)
#: Type word -> canonical type spelling (``long`` -> ``int``).
TYPE_WORDS: dict[str, str] = {row.text: row.meaning for row in LEXEMES if row.role == TYPE}
#: Operator spelling written with symbols (ours and SFF's) -> canonical symbol.
SYMBOL_OPERATORS: dict[str, str] = {row.text: row.meaning for row in LEXEMES
                                    if row.role == OPERATOR and not row.is_word}
#: Operator spelled as a word (``prefix``) -> canonical symbol.
WORD_OPERATORS: dict[str, str] = {row.text: row.meaning for row in LEXEMES if row.role == OPERATOR and row.is_word}
#: Grammar terminal -> canonical spelling.
TYPE_OF_TERMINAL: dict[str, str] = {row.terminal: row.meaning for row in LEXEMES if row.role == TYPE}
OPERATOR_OF_TERMINAL: dict[str, str] = {row.terminal: row.meaning for row in LEXEMES if row.role == OPERATOR}
#: The words that open a statement of a document.
STATEMENT_WORDS: tuple[str, ...] = tuple(row.text for row in LEXEMES
                                         if row.role == STATEMENT_WORD and row.terminal != "FROM")


def alternation(spellings: Iterable[str]) -> str:
    """A regex alternation of fixed spellings, longest first, so that it
    never stops at a shorter spelling (`=` before `=*`)."""
    return "|".join(re.escape(s) for s in sorted(set(spellings), key=lambda s: (-len(s), s)))


#: A statement's first word (group 1).
STATEMENT = re.compile("(" + alternation(STATEMENT_WORDS) + ")" + WORD_END)


# ------------------------------------------------------------------ the grammar
_PATTERN_TERMINALS = (
    ("NAME", NAME),
    ("STRING", STRING),
    # FLOAT before INT: `1.5` must not lex as INT `1` and a stray `.5`.
    ("FLOAT.2", FLOAT),
    ("INT", INT),
)


def _lark_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _lark_regexp(pattern: str) -> str:
    return "/" + pattern.replace("/", "\\/") + "/"


def grammar_terminals(lexemes: Iterable[Lexeme] = LEXEMES) -> str:
    """The terminals of the grammar, and the rules ``type``, ``sff_type``,
    ``op`` and ``or_op`` that list the type, operator and 'or' terminals, in
    Lark's syntax."""
    by_terminal: dict[str, list[str]] = {}
    types: list[str] = []
    operators: list[str] = []
    ors: list[str] = []
    for row in lexemes:
        if row.terminal not in by_terminal:
            by_terminal[row.terminal] = []
            listed = {TYPE: types, OPERATOR: operators}.get(row.role, ors if row.meaning == "or" else [])
            listed.append(row.terminal)
        by_terminal[row.terminal].append(row.text)
    lines = [
        "type: " + " | ".join(types),
        # The same words after SFF's `name any`. A rule of its own keeps LALR
        # from merging the two contexts' lookaheads, which would let `and`
        # after `int` lex as a keyword instead of an attribute name.
        "sff_type: " + " | ".join(types),
        "op: " + " | ".join(operators),
        "or_op: " + " | ".join(ors),
    ]
    lines += [f"{name}: " + " | ".join(map(_lark_string, texts)) for name, texts in by_terminal.items()]
    lines += [f"{name}: {_lark_regexp(pattern)}" for name, pattern in _PATTERN_TERMINALS]
    lines += [f"{name}: {_lark_regexp(plain)}" for name, (plain, _) in COMMENTS.items()]
    lines += [f"%ignore {name}" for name in COMMENTS]
    lines.append(f"%ignore {_lark_regexp(BLANK + '+')}")
    return "\n".join(lines) + "\n"


def grammar_text(lexemes: Iterable[Lexeme] = LEXEMES) -> str:
    """The whole grammar: the rules of grammar/siena.lark and the generated terminals."""
    rules = resources.files("cbalgebra.grammar").joinpath("siena.lark").read_text(encoding="utf-8")
    return rules + "\n// ---- generated by cbalgebra.lexicon.grammar_terminals\n" + grammar_terminals(lexemes)


# -------------------------------------------------------------- error messages
#: How an error message names the pattern terminals (and the end of input).
_NAMED = {"NAME": "an attribute name", "STRING": "a string", "INT": "an int", "FLOAT": "a float",
          "$END": "end of input", "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'",
          "LPAR": "'('", "RPAR": "')'"}
_DESCRIBED = {**{row.terminal: row.text if row.is_word else f"'{row.text}'" for row in reversed(LEXEMES)}, **_NAMED}


def describe_terminal(terminal: str) -> str:
    """How an error message names what a terminal reads: ``'>*'``, ``any``,
    ``a string`` (its first spelling, for a terminal of several)."""
    return _DESCRIBED.get(terminal, terminal.lower())
