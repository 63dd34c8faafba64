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
from typing import Any

from lark import Token

from cbalgebra._literals import LocatedError, literal
from cbalgebra.values import (
    ANY,
    BOOL,
    EQ,
    FLOAT,
    GE,
    GT,
    INT,
    KEYWORDS,
    LE,
    LT,
    NE,
    OPERATORS_OF_TYPE,
    PREFIX,
    STRING,
    SUBSTRING,
    SUFFIX,
    Attribute,
    Constraint,
    InvalidValueError,
    Message,
)

_WS = re.compile(r"[ \t\r\n\f\u00a0]*")
_FAST_CONSTRAINT = re.compile(
    r"(?:(string|int|integer|long|float|double|bool|boolean)[ \t\r\n\f\u00a0]+)?"
    r"([A-Za-z_](?:[A-Za-z0-9_\-.]|/(?![/*]))*)[ \t\r\n\f\u00a0]*"
    r"(!=|<=|>=|>\*|\*<|=\*|\*=|\*\*|=|<|>|\*|any(?![A-Za-z0-9_\-./]))[ \t\r\n\f\u00a0]*"
    r"(\"(?:[^\"\\\n]|\\.)*\"|[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?\d+[eE][+-]?\d+|[+-]?\d+"
    r"|true(?![A-Za-z0-9_\-./])|false(?![A-Za-z0-9_\-./]))?"
)
_FAST_SEP = re.compile(r"[ \t\r\n\f\u00a0]*(,|;|&&)")
_FAST_OR = re.compile(r"[ \t\r\n\f\u00a0]*\|\|")
_FAST_TYPES = {"string": STRING, "int": INT, "integer": INT, "long": INT, "float": FLOAT,
               "double": FLOAT, "bool": BOOL, "boolean": BOOL}
_FAST_OPS = {"=": EQ, "!=": NE, "<": LT, ">": GT, "<=": LE, ">=": GE, ">*": PREFIX, "=*": PREFIX,
             "*<": SUFFIX, "*=": SUFFIX, "*": SUBSTRING, "**": SUBSTRING}


class _Decline(Exception):
    pass


def _fast_value(text: str, type_: str | None) -> tuple[str, Any]:
    if text[0] == '"':
        kind = "STRING"
    elif text == "true":
        kind = "TRUE"
    elif text == "false":
        kind = "FALSE"
    elif any(c in text for c in ".eE"):
        kind = "FLOAT"
    else:
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
    if name in KEYWORDS:
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
        pos = _WS.match(text, pos + 1).end()
        if text.startswith("]", pos):
            return [], pos + 1
    constraints: list[Constraint] = []
    while True:
        c, pos = _flat_constraint(text, pos)
        constraints.append(c)
        sep = _FAST_SEP.match(text, pos)
        if sep is not None:
            pos = _WS.match(text, sep.end()).end()
            if bracket and text.startswith("]", pos):
                return constraints, pos + 1
            if pos == len(text) or text.startswith("||", pos):
                if bracket:
                    raise _Decline
                return constraints, pos
            continue
        pos = _WS.match(text, pos).end()
        if bracket:
            if text.startswith("]", pos):
                return constraints, pos + 1
            raise _Decline
        return constraints, pos


def fast_dnf(text: str) -> list[list[Constraint]] | None:
    """The flat DNF of ``text``, or None when the fast path is not sure."""
    try:
        pos = _WS.match(text).end()
        terms = []
        while True:
            constraints, pos = _fast_conjunction(text, pos)
            terms.append(constraints)
            pos = _WS.match(text, pos).end()
            if pos == len(text):
                return terms
            m = _FAST_OR.match(text, pos)
            if m is None:
                return None
            pos = _WS.match(text, m.end()).end()
    except (_Decline, InvalidValueError):
        return None


_FAST_ATTRIBUTE = re.compile(
    r"(?:(string|int|integer|long|float|double|bool|boolean)[ \t\r\n\f\u00a0]+)?"
    r"([A-Za-z_](?:[A-Za-z0-9_\-.]|/(?![/*]))*)[ \t\r\n\f\u00a0]*=(?![*])[ \t\r\n\f\u00a0]*"
    r"(\"(?:[^\"\\\n]|\\.)*\"|[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?\d+[eE][+-]?\d+|[+-]?\d+"
    r"|true(?![A-Za-z0-9_\-./])|false(?![A-Za-z0-9_\-./]))"
)


def _flat_attribute(text: str, pos: int, attrs: dict[str, Attribute]) -> int:
    """Read one plain ``[type] name = value`` into ``attrs``; the end position."""
    m = _FAST_ATTRIBUTE.match(text, pos)
    if m is None:
        raise _Decline
    type_word, name, value_text = m.groups()
    if name in KEYWORDS or name in attrs:
        raise _Decline
    type_, value = _fast_value(value_text, _FAST_TYPES[type_word] if type_word else None)
    attrs[name] = Attribute(type_, value)
    return m.end()


def fast_message(text: str) -> Message | None:
    try:
        pos = _WS.match(text).end()
        if not text.startswith("[", pos):
            return None
        pos = _WS.match(text, pos + 1).end()
        attrs: dict[str, Attribute] = {}
        while not text.startswith("]", pos):
            pos = _flat_attribute(text, pos, attrs)
            sep = _FAST_SEP.match(text, pos)
            if sep is not None:
                if sep.group(1) == "&&":
                    return None
                pos = sep.end()
            pos = _WS.match(text, pos).end()
        if _WS.match(text, pos + 1).end() != len(text):
            return None
        return Message(attrs)
    except (_Decline, InvalidValueError):
        return None


# ------------------------------------------------------------------ documents
# Big SFF driver files (hundreds of thousands of `ifconfig` filters) are the
# common case for documents. This reader takes statements whose parts are all
# flat and plain; anything else sends the whole document to Lark.
_SKIP = re.compile(r"(?:[ \t\r\n\f\u00a0]+|#[^\n]*|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)*")
_WORD_END = r"(?![A-Za-z0-9_\-./])"
_STATEMENT = re.compile(r"(subscribe|advertise|publish|ifconfig|select|consolidate|statistics|clear|timer|"
                        r"output|set)" + _WORD_END)
_INTERFACE = re.compile(r"[ \t\r\n\f\u00a0]+(\d+)" + _WORD_END)
_SEMI = re.compile(r"[ \t\r\n\f\u00a0]*;")
_COMMA = re.compile(r"[ \t\r\n\f\u00a0]*,")
_DOC_SEP = re.compile(r"[ \t\r\n\f\u00a0]*(,|&&|;)")
_DOC_OR = re.compile(r"[ \t\r\n\f\u00a0]*(\|\||\|)")
_COMMANDS = {
    "consolidate": re.compile(r"[ \t\r\n\f\u00a0]*;"),
    "statistics": re.compile(r"[ \t\r\n\f\u00a0]*;"),
    "clear": re.compile(r"[ \t\r\n\f\u00a0]*;"),
    "timer": re.compile(r"[ \t\r\n\f\u00a0]+(start|stop)[ \t\r\n\f\u00a0]*;"),
    "output": re.compile(r"[ \t\r\n\f\u00a0]+(on|off)[ \t\r\n\f\u00a0]*;"),
    "set": re.compile(r"[ \t\r\n\f\u00a0]+([A-Za-z_][A-Za-z0-9_\-.]*)[ \t\r\n\f\u00a0]*=[ \t\r\n\f\u00a0]*"
                      r"([+-]?\d+)" + _WORD_END + r"[ \t\r\n\f\u00a0]*;"),
}


_ORIGIN = re.compile(r"from[ \t\r\n\f\u00a0]+(?:([A-Za-z_][A-Za-z0-9_\-.]*|\d+)" + _WORD_END
                     + r"|\"([^\"\\\n]*)\")")


def _statement_follows(text: str, pos: int) -> bool:
    return pos == len(text) or _STATEMENT.match(text, pos) is not None or text.startswith("from", pos)


def _origin(text: str, pos: int) -> tuple[str | None, int]:
    """An optional `from NAME` clause at ``pos``."""
    if not text.startswith("from", pos):
        return None, pos
    m = _ORIGIN.match(text, pos)
    if m is None or (m.group(1) is not None and m.group(1) in KEYWORDS):
        raise _Decline
    origin = m.group(1) if m.group(1) is not None else m.group(2)
    return origin, _SKIP.match(text, m.end()).end()


def _our_predicate(text: str, pos: int) -> tuple[list[tuple[Constraint, ...]], int]:
    """A `subscribe`/`advertise` body: flat, unbracketed or bracketed
    conjunctions joined by '||', ending where the next statement starts."""
    terms: list[tuple[Constraint, ...]] = []
    while True:
        pos = _WS.match(text, pos).end()
        if text.startswith("[", pos):
            constraints, pos = _fast_conjunction(text, pos)
            terms.append(tuple(constraints))
        else:
            constraints: list[Constraint] = []
            while True:
                c, pos = _flat_constraint(text, pos)
                constraints.append(c)
                sep = _DOC_SEP.match(text, pos)
                if sep is None:
                    break
                after = _SKIP.match(text, sep.end()).end()
                if _statement_follows(text, after) or text.startswith("||", after):
                    pos = sep.end()
                    break
                pos = after
            terms.append(tuple(constraints))
        after = _SKIP.match(text, pos).end()
        if text.startswith("||", after):
            pos = after + 2
            continue
        if _statement_follows(text, after):
            return terms, after
        raise _Decline


def _sff_predicate(text: str, pos: int) -> tuple[list[tuple[Constraint, ...]], int]:
    """An `ifconfig` body: constraints joined by ',' and filters by '|', up to ';'."""
    terms: list[tuple[Constraint, ...]] = []
    constraints: list[Constraint] = []
    while True:
        pos = _WS.match(text, pos).end()
        c, pos = _flat_constraint(text, pos)
        constraints.append(c)
        m = _DOC_OR.match(text, pos)
        if m is not None:
            terms.append(tuple(constraints))
            constraints, pos = [], m.end()
            continue
        m = _DOC_SEP.match(text, pos)
        if m is None:
            raise _Decline
        if m.group(1) == ";":
            terms.append(tuple(constraints))
            return terms, m.end()
        pos = m.end()


def _select_body(text: str, pos: int) -> tuple[Message, int]:
    attrs: dict[str, Attribute] = {}
    while True:
        pos = _WS.match(text, pos).end()
        m = _SEMI.match(text, pos)
        if m is not None:
            return Message(attrs), m.end()
        pos = _flat_attribute(text, pos, attrs)
        comma = _COMMA.match(text, pos)
        if comma is not None:
            pos = comma.end()


def fast_document(text: str) -> list[tuple[str, Any, int | None, int, str | None]] | None:
    """Statements as (kind, value, interface, offset, origin), or None when unsure."""
    items: list[tuple[str, Any, int | None, int, str | None]] = []
    try:
        pos = _SKIP.match(text).end()
        while pos < len(text):
            m = _STATEMENT.match(text, pos)
            if m is None:
                return None
            word, start, pos = m.group(1), m.start(), m.end()
            if word in ("subscribe", "advertise"):
                if text.startswith("false", _WS.match(text, pos).end()):
                    return None
                terms, pos = _our_predicate(text, pos)
                origin, pos = _origin(text, pos)
                if not _statement_follows(text, pos) or text.startswith("from", pos):
                    return None
                items.append((word, terms, None, start, origin))
                continue
            if word == "publish":
                return None  # messages in our own documents are rare; Lark reads them
            if word == "ifconfig":
                number = _INTERFACE.match(text, pos)
                if number is None:
                    return None
                terms, pos = _sff_predicate(text, number.end())
                items.append(("ifconfig", terms, int(number.group(1)), start, None))
            elif word == "select":
                message, pos = _select_body(text, pos)
                items.append(("select", message, None, start, None))
            else:
                cm = _COMMANDS[word].match(text, pos)
                if cm is None:
                    return None
                args = tuple(int(g) if g.lstrip("+-").isdigit() else g for g in cm.groups())
                items.append(("command", (word, *args), None, start, None))
                pos = cm.end()
            pos = _SKIP.match(text, pos).end()
        return items
    except (_Decline, InvalidValueError):
        return None
