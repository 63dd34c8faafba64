"""Literal decoding shared by the Lark transformer and the fast scanner."""

from __future__ import annotations

import math
from typing import Any

from lark import Token

from cbalgebra.values import (
    BOOL,
    EQ,
    FLOAT,
    GE,
    GT,
    INT,
    INT_MAX,
    INT_MIN,
    LE,
    LT,
    NE,
    PREFIX,
    STRING,
    SUBSTRING,
    SUFFIX,
)


class LocatedError(Exception):
    """A semantic error raised inside the transformer, pinned to a token."""

    def __init__(self, reason: str, token: Token | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.token = token


TYPE_OF_TOKEN = {
    "T_STRING": STRING,
    "T_INT": INT, "T_INTEGER": INT, "T_LONG": INT,
    "T_FLOAT": FLOAT, "T_DOUBLE": FLOAT,
    "T_BOOL": BOOL, "T_BOOLEAN": BOOL,
}
OP_OF_TOKEN = {
    "EQ": EQ, "NE": NE, "LT": LT, "GT": GT, "LE": LE, "GE": GE,
    "PREFIX": PREFIX, "SFF_PREFIX": PREFIX, "PREFIX_WORD": PREFIX,
    "SUFFIX": SUFFIX, "SFF_SUFFIX": SUFFIX, "SUFFIX_WORD": SUFFIX,
    "SUBSTRING": SUBSTRING, "SFF_SUBSTRING": SUBSTRING,
    "CONTAINS_WORD": SUBSTRING, "SUBSTRING_WORD": SUBSTRING,
}
LITERAL_TYPE = {"STRING": STRING, "INT": INT, "FLOAT": FLOAT, "TRUE": BOOL, "FALSE": BOOL}

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "0": "\0", "/": "/"}


def unquote(token: Token) -> str:
    """Decode a quoted literal; escapes are \\" \\\\ \\n \\t \\r \\0 \\/ \\uXXXX \\UXXXXXXXX."""
    body = token.value[1:-1]
    if "\\" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            i += 2
            continue
        width = {"u": 4, "U": 8}.get(esc)
        digits = body[i + 2 : i + 2 + width] if width else ""
        if not width or len(digits) != width or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise LocatedError(f"unknown escape '\\{esc}' in string literal", token)
        cp = int(digits, 16)
        if cp > 0x10FFFF:
            raise LocatedError(f"escape '\\{esc}{digits}' is beyond U+10FFFF", token)
        if 0xD800 <= cp <= 0xDFFF:
            raise LocatedError(f"escape '\\{esc}{digits}' is a surrogate code point", token)
        out.append(chr(cp))
        i += 2 + width
    return "".join(out)


def literal(token: Token, type_: str | None) -> tuple[str, Any]:
    """The (type, value) a literal token stands for, checked against ``type_``."""
    kind = token.type
    lit_type = LITERAL_TYPE[kind]
    if kind == "STRING":
        value: Any = unquote(token)
    elif kind in ("TRUE", "FALSE"):
        value = kind == "TRUE"
    elif kind == "INT":
        value = int(token.value)
        if type_ == FLOAT:
            f = float(value)
            if int(f) != value:
                raise LocatedError(f"int literal {token.value} is not exactly representable as a float", token)
            return FLOAT, (0.0 if f == 0 else f)
        if not INT_MIN <= value <= INT_MAX:
            raise LocatedError("int literal out of 64-bit range", token)
    else:
        value = float(token.value)
        if not math.isfinite(value):
            raise LocatedError("float literal out of range", token)
        if value == 0:
            value = 0.0
    if type_ is not None and type_ != lit_type:
        raise LocatedError(f"{lit_type} literal does not fit type {type_}", token)
    return lit_type, value
