"""A strict scanner for the flat canonical shapes, in front of Lark.

Lark's pure-Python LALR costs about 5 µs a token, so a 25-token filter parses
at about 7,000 per second. Most real input is the flat canonical shape
``[type name op value, ...] || [...]``. This scanner reads only that shape.
It returns a value only when it is certain and returns None on anything
unusual: keywords as names, quoted names, nesting, word operators, SFF
forms, any error. Lark then parses the text again, which is also how every
error gets its position and reason. tests/test_parse.py checks that both
paths give equal values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from lark import Token

from cbalgebra._literals import MAX_DNF_TERMS, LocatedError, literal
from cbalgebra.values import (
    ANY,
    FLOAT,
    INT,
    KEYWORDS,
    OPERATOR_SPECS,
    OPERATORS_OF_TYPE,
    STRING,
    TYPE_SPECS,
    Attribute,
    Constraint,
    InvalidValueError,
    Message,
    Op,
)

# The lexical pieces, each written once. Names are read possessively (`*+`):
# a regex must never split `company` into the name `comp` and the keyword
# `any`; the grammar's lexer reads the longest name. Numbers are ASCII
# digits (never `\d`, which takes fullwidth and other Unicode digits). The type words and operator
# spellings come from the vocabulary tables of values.py, longest first so
# that an alternation never stops at a shorter spelling (`=` before `=*`).
_BLANK = r"[ \t\r\n\f\u00a0]"  # what the grammar %ignores besides comments
_WORD_END = r"(?![A-Za-z0-9_\-./])"
_NAME = r"([A-Za-z_](?:[A-Za-z0-9_\-.]|/(?![/*]))*+)"


def _alternation(spellings: Iterable[str]) -> str:
    return "|".join(re.escape(s) for s in sorted(set(spellings), key=len, reverse=True))


_TYPE_WORD = "(?:(" + _alternation(w for t in TYPE_SPECS for w in t.words) + ")" + _BLANK + "+)?"
_SYMBOL_OPERATOR = _alternation(s for o in OPERATOR_SPECS if o.code != Op.ANY for s in (o.symbol, o.sff))
_VALUE = (r"(\"(?:[^\"\\\n]|\\.)*\"|[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?[0-9]+[eE][+-]?[0-9]+"
          r"|[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)(?![0-9A-Za-z_.])"
          r"|true" + _WORD_END + "|false" + _WORD_END + ")")

_WS = re.compile(_BLANK + "*")


def _blank_end(text: str, pos: int) -> int:
    """Where the blanks that start at ``pos`` end (``pos`` itself when there are none)."""
    return _WS.match(text, pos).end()  # type: ignore[union-attr]  # "blank*" matches the empty string
_FAST_CONSTRAINT = re.compile(
    _TYPE_WORD + _NAME + _BLANK + "*(" + _SYMBOL_OPERATOR + "|any" + _WORD_END + ")" + _BLANK + "*" + _VALUE + "?"
)
_FAST_SEP = re.compile(_BLANK + "*(,|;|&&)")
_FAST_OR = re.compile(_BLANK + r"*\|\|")
#: Every type word (``long``) and operator spelling the scanner reads, to
#: the canonical spelling.
_FAST_TYPES = {w: t.spelling for t in TYPE_SPECS for w in t.words}
_FAST_OPS = {s: o.symbol for o in OPERATOR_SPECS if o.code != Op.ANY for s in (o.symbol, o.sff)}


# Words the grammar knows. A name spelled like one is left to Lark, which
# follows both readings (tests/test_parse_keywords.py checks this covers
# every keyword of the grammar).
_RESERVED = KEYWORDS | {"help", "start", "stop", "on", "off"}


class _Decline(Exception):
    pass


_PLAIN_INT = re.compile(r"[+-]?[0-9]{1,18}")  # always inside the 64-bit range
_PLAIN_FLOAT = re.compile(r"[+-]?[0-9]{1,15}\.[0-9]{0,15}")  # no exponent: never 0 unless written 0


def _fast_value(text: str, type_: str | None) -> tuple[str, Any]:
    first = text[0]
    # The common literals, decoded inline (the same results literal() gives);
    # everything else goes through literal() with its checks.
    if first == '"':
        if "\\" not in text and (type_ is None or type_ == STRING):
            return STRING, text[1:-1]
        kind = "STRING"
    elif text == "true":
        kind = "TRUE"
    elif text == "false":
        kind = "FALSE"
    elif "x" not in text and "X" not in text and ("." in text or "e" in text or "E" in text):
        if (type_ is None or type_ == FLOAT) and _PLAIN_FLOAT.fullmatch(text):
            return FLOAT, float(text) + 0.0  # + 0.0 turns -0.0 into 0.0
        kind = "FLOAT"
    else:
        if (type_ is None or type_ == INT) and _PLAIN_INT.fullmatch(text):
            return INT, int(text)
        kind = "INT"
    try:
        return literal(Token(kind, text), type_)
    except LocatedError:
        raise _Decline from None


def _flat_constraint(text: str, pos: int) -> tuple[Constraint, int]:
    m = _FAST_CONSTRAINT.match(text, pos)
    if m is None:
        raise _Decline
    type_word, name, op_word, value_text = m.groups()
    if name in _RESERVED:
        raise _Decline
    type_ = _FAST_TYPES[type_word] if type_word else None
    if op_word == "any":
        if type_ is None or value_text is not None:
            raise _Decline
        return Constraint(type_, name, ANY), m.end()
    if value_text is None:
        raise _Decline
    lit_type, value = _fast_value(value_text, type_)
    op = _FAST_OPS[op_word]
    if op not in OPERATORS_OF_TYPE[lit_type]:
        raise _Decline
    return Constraint(lit_type, name, op, value), m.end()


def _fast_conjunction(text: str, pos: int) -> tuple[list[Constraint], int]:
    """Constraints from ``pos`` up to a closing bracket, '||' or the end."""
    bracket = text.startswith("[", pos)
    if bracket:
        pos = _blank_end(text, pos + 1)
        if text.startswith("]", pos):
            return [], pos + 1
    constraints: list[Constraint] = []
    while True:
        c, pos = _flat_constraint(text, pos)
        constraints.append(c)
        sep = _FAST_SEP.match(text, pos)
        if sep is not None:
            pos = _blank_end(text, sep.end())
            if bracket and text.startswith("]", pos):
                return constraints, pos + 1
            if pos == len(text) or text.startswith("||", pos):
                if bracket:
                    raise _Decline
                return constraints, pos
            continue
        pos = _blank_end(text, pos)
        if bracket:
            if text.startswith("]", pos):
                return constraints, pos + 1
            raise _Decline
        return constraints, pos


def fast_dnf(text: str) -> list[list[Constraint]] | None:
    """The flat DNF of ``text``, or None when the fast path is not sure."""
    try:
        pos = _blank_end(text, 0)
        terms = []
        while True:
            constraints, pos = _fast_conjunction(text, pos)
            terms.append(constraints)
            if len(terms) > MAX_DNF_TERMS:
                return None  # Lark reports the limit, located, whatever the spelling
            pos = _blank_end(text, pos)
            if pos == len(text):
                return terms
            m = _FAST_OR.match(text, pos)
            if m is None:
                return None
            pos = _blank_end(text, m.end())
    except (_Decline, InvalidValueError):
        return None


_FAST_ATTRIBUTE = re.compile(_TYPE_WORD + _NAME + _BLANK + "*=(?![*])" + _BLANK + "*" + _VALUE)


def _flat_attribute(text: str, pos: int, attrs: dict[str, Attribute]) -> int:
    """Read one plain ``[type] name = value`` into ``attrs``; the end position."""
    m = _FAST_ATTRIBUTE.match(text, pos)
    if m is None:
        raise _Decline
    type_word, name, value_text = m.groups()
    if name in _RESERVED or name in attrs:
        raise _Decline
    type_, value = _fast_value(value_text, _FAST_TYPES[type_word] if type_word else None)
    attrs[name] = Attribute(type_, value)
    return m.end()


def fast_message(text: str) -> Message | None:
    try:
        pos = _blank_end(text, 0)
        if not text.startswith("[", pos):
            return None
        pos = _blank_end(text, pos + 1)
        attrs: dict[str, Attribute] = {}
        while not text.startswith("]", pos):
            pos = _flat_attribute(text, pos, attrs)
            sep = _FAST_SEP.match(text, pos)
            if sep is not None:
                if sep.group(1) == "&&":
                    return None
                pos = sep.end()
            pos = _blank_end(text, pos)
        if _blank_end(text, pos + 1) != len(text):
            return None
        return Message(attrs)
    except (_Decline, InvalidValueError):
        return None


# ------------------------------------------------------------------ documents
# Big SFF driver files (hundreds of thousands of `ifconfig` filters) are the
# common case for documents. This reader takes one statement at a time, when
# all its parts are flat and plain; on anything else it returns None and the
# grammar reads that statement (cbalgebra.parse.iter_document).
_SKIP = re.compile("(?:" + _BLANK + r"+|#[^\n]*|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)*")
_STATEMENT = re.compile(r"(subscribe|advertise|publish|ifconfig|select|consolidate|statistics|clear|timer|"
                        r"output|set|help)" + _WORD_END)
_INTERFACE = re.compile(_BLANK + "+([0-9]{1,10})" + _WORD_END)
_SEMI = re.compile(_BLANK + "*;")
_COMMA = re.compile(_BLANK + "*,")
_DOC_SEP = re.compile(_BLANK + "*(,|&&|;)")
_COMMANDS = {
    "consolidate": _SEMI,
    "statistics": _SEMI,
    "clear": _SEMI,
    "help": _SEMI,
    "timer": re.compile(_BLANK + "+(start|stop)" + _BLANK + "*;"),
    "output": re.compile(_BLANK + "+(on|off)" + _BLANK + "*;"),
    "set": re.compile(_BLANK + r"+([A-Za-z_][A-Za-z0-9_\-.]*+)" + _BLANK + "*=" + _BLANK + "*"
                      r"([+-]?[0-9]{1,18})" + _WORD_END + _BLANK + "*;"),
}
# After a word that may open a statement: an operator or a word operator
# means the word may instead be an attribute name, which only the grammar
# can settle.
_NAME_CONTINUES = re.compile(_BLANK + "*(?:[=!<>*]|(?:" + "|".join(
    ["any", *(w for o in OPERATOR_SPECS for w in o.words)]) + ")" + _WORD_END + ")")


_ORIGIN = re.compile("from" + _BLANK + r"+(?:([A-Za-z_][A-Za-z0-9_\-.]*+|[0-9]+)" + _WORD_END
                     + r"|\"([^\"\\\n]*)\")")


def skip(text: str, pos: int) -> int:
    """The offset after any blanks and comments at ``pos``."""
    return _SKIP.match(text, pos).end()  # type: ignore[union-attr]  # the pattern matches the empty string


def _statement_follows(text: str, pos: int) -> bool:
    """Whether a statement certainly starts at ``pos`` (or the text ends)."""
    if pos == len(text):
        return True
    m = _STATEMENT.match(text, pos)
    return m is not None and _NAME_CONTINUES.match(text, m.end()) is None


def _origin(text: str, pos: int) -> tuple[str | None, int]:
    """An optional `from NAME` clause at ``pos``."""
    if not text.startswith("from", pos):
        return None, pos
    m = _ORIGIN.match(text, pos)
    if m is None or (m.group(1) is not None and m.group(1) in _RESERVED):
        raise _Decline
    origin = m.group(1) if m.group(1) is not None else m.group(2)
    return origin, skip(text, m.end())


def _origin_follows(text: str, pos: int) -> bool:
    return text.startswith("from", pos) and _ORIGIN.match(text, pos) is not None


def _our_predicate(text: str, pos: int) -> tuple[list[tuple[Constraint, ...]], int]:
    """A `subscribe`/`advertise` body: flat, unbracketed or bracketed
    conjunctions joined by '||', ending where the next statement starts."""
    terms: list[tuple[Constraint, ...]] = []
    while True:
        pos = _blank_end(text, pos)
        if text.startswith("[", pos):
            constraints, pos = _fast_conjunction(text, pos)
            terms.append(tuple(constraints))
        else:
            constraints = []
            while True:
                c, pos = _flat_constraint(text, pos)
                constraints.append(c)
                sep = _DOC_SEP.match(text, pos)
                if sep is None:
                    break
                after = skip(text, sep.end())
                if _statement_follows(text, after) or _origin_follows(text, after) or text.startswith("||", after):
                    pos = sep.end()
                    break
                pos = after
            terms.append(tuple(constraints))
        after = skip(text, pos)
        if text.startswith("||", after):
            pos = after + 2
            continue
        if len(terms) > MAX_DNF_TERMS:
            raise _Decline  # the grammar reports the limit, located
        if _statement_follows(text, after) or text.startswith("from", after):
            return terms, after
        raise _Decline


# What follows a constraint in an `ifconfig` body, with the blanks around it.
_SFF_NEXT = re.compile(_BLANK + r"*(\|\||\||,|&&|;)" + _BLANK + "*")


def _sff_predicate(text: str, pos: int) -> tuple[list[tuple[Constraint, ...]], int]:
    """An `ifconfig` body: constraints joined by ',' and filters by '|', up to ';'."""
    terms: list[tuple[Constraint, ...]] = []
    constraints: list[Constraint] = []
    pos = _blank_end(text, pos)
    while True:
        c, pos = _flat_constraint(text, pos)
        constraints.append(c)
        m = _SFF_NEXT.match(text, pos)
        if m is None:
            raise _Decline
        sep = m.group(1)
        if sep == ";":
            terms.append(tuple(constraints))
            if len(terms) > MAX_DNF_TERMS:
                raise _Decline
            return terms, m.start(1) + 1
        if sep[0] == "|":
            terms.append(tuple(constraints))
            if len(terms) > MAX_DNF_TERMS:
                raise _Decline
            constraints = []
        pos = m.end()


def _select_body(text: str, pos: int) -> tuple[Message, int]:
    attrs: dict[str, Attribute] = {}
    while True:
        pos = _blank_end(text, pos)
        m = _SEMI.match(text, pos)
        if m is not None:
            return Message(attrs), m.end()
        pos = _flat_attribute(text, pos, attrs)
        comma = _COMMA.match(text, pos)
        if comma is not None:
            pos = comma.end()


def fast_statement(text: str, pos: int) -> tuple[str, Any, int | None, str | None, int] | None:
    """The statement at ``pos`` (just after blanks and comments) as
    (kind, value, interface, origin, end), where ``end`` is past the blanks
    and comments that follow; or None when unsure. Values are raw: a list of
    conjunctions for 'subscribe', 'advertise' and 'ifconfig'."""
    try:
        m = _STATEMENT.match(text, pos)
        if m is None:
            return None
        word, pos = m.group(1), m.end()
        origin = None
        interface = None
        value: Any  # conjunctions, a message, or a command's arguments, by ``word``
        if word in ("subscribe", "advertise"):
            if text.startswith("false", _blank_end(text, pos)):
                return None
            value, pos = _our_predicate(text, pos)
            origin, pos = _origin(text, pos)
            if not _statement_follows(text, pos):
                return None
        elif word == "publish":
            return None  # messages in our own documents are rare; the grammar reads them
        elif word == "ifconfig":
            number = _INTERFACE.match(text, pos)
            if number is None:
                return None
            interface = int(number.group(1))
            if interface > 2**32 - 1:
                return None
            value, pos = _sff_predicate(text, number.end())
            word = "ifconfig"
        elif word == "select":
            value, pos = _select_body(text, pos)
        else:
            cm = _COMMANDS[word].match(text, pos)
            if cm is None:
                return None
            args = tuple(int(g) if g.lstrip("+-").isdigit() else g for g in cm.groups())
            if word == "set" and args[0] in _RESERVED:
                return None
            value, word, pos = (word, *args), "command", cm.end()
        end = skip(text, pos)
        if end < len(text) and _STATEMENT.match(text, end) is None:
            return None  # let the grammar report what follows
        return word, value, interface, origin, end
    except (_Decline, InvalidValueError):
        return None
