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


def _fast_conjunction(text: str, pos: int) -> tuple[list[Constraint], int]:
    """Constraints from ``pos`` up to a closing bracket, '||' or the end."""
    bracket = text.startswith("[", pos)
    if bracket:
        pos = _WS.match(text, pos + 1).end()
        if text.startswith("]", pos):
            return [], pos + 1
    constraints: list[Constraint] = []
    while True:
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
            constraints.append(Constraint(type_, name, ANY))
        else:
            if value_text is None:
                raise _Decline
            lit_type, value = _fast_value(value_text, type_)
            op = _FAST_OPS[op_word]
            if op not in OPERATORS_OF_TYPE[lit_type]:
                raise _Decline
            constraints.append(Constraint(lit_type, name, op, value))
        pos = m.end()
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


def fast_message(text: str) -> Message | None:
    try:
        pos = _WS.match(text).end()
        if not text.startswith("[", pos):
            return None
        pos = _WS.match(text, pos + 1).end()
        attrs: dict[str, Attribute] = {}
        while not text.startswith("]", pos):
            m = _FAST_ATTRIBUTE.match(text, pos)
            if m is None:
                return None
            type_word, name, value_text = m.groups()
            if name in KEYWORDS or name in attrs:
                return None
            type_, value = _fast_value(value_text, _FAST_TYPES[type_word] if type_word else None)
            attrs[name] = Attribute(type_, value)
            pos = m.end()
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
