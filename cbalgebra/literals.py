"""Literal decoding: the values that string, number and boolean tokens stand
for, with their checks; shared by every reader of the language (the Lark
transformer, the fast scanner, the printer and the matcher's bulk reader)."""

from __future__ import annotations

import math
import re
from typing import Any

from lark import Token

from cbalgebra.errors import EXIT_INTERNAL, CbalgebraError
from cbalgebra.values import BOOL, FLOAT, INT, INT_MAX, INT_MIN, STRING


#: Largest number of conjunctions that expanding one predicate to
#: disjunctive normal form may make: distributing an 'and' over nested
#: disjunctions multiplies their sizes, so a short text could otherwise ask
#: for an exponential number of conjunctions. Alternatives written out side
#: by side (`f1 | f2 | ...`, whatever the spelling of 'or') cost what their
#: text costs and are never limited: an SFF `ifconfig` of the paper's
#: workload has 12,500 filters (Carzaniga & Wolf, SIGCOMM 2003, §5.1).
MAX_DNF_TERMS = 10_000


class LocatedError(CbalgebraError):
    """A semantic error raised inside the transformer, pinned to a token."""

    def __init__(self, reason: str, token: Token | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.token = token


#: Literal terminal -> the type of its value.
LITERAL_TYPE = {"STRING": STRING, "INT": INT, "FLOAT": FLOAT, "TRUE": BOOL, "FALSE": BOOL}

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "0": "\0", "/": "/"}


def unquote(token: Token) -> str:
    """Decode a quoted literal; escapes are \\" \\\\ \\n \\t \\r \\0 \\/ \\uXXXX \\UXXXXXXXX.

    A high surrogate escape followed at once by a low one (``\\ud83d\\ude00``,
    as JSON writes a character beyond U+FFFF) is that one character, U+1F600;
    a surrogate escape on its own is an error, as a surrogate is not a
    character."""
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
        i += 2 + width
        if 0xD800 <= cp <= 0xDFFF:
            low = _low_surrogate(body, i) if esc == "u" and cp <= 0xDBFF else None
            if low is None:
                raise LocatedError(_lone_surrogate(esc + digits, cp), token)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
            i += 6
        out.append(chr(cp))
    return "".join(out)


def _low_surrogate(body: str, i: int) -> int | None:
    """The low surrogate a ``\\uXXXX`` escape at ``body[i:]`` spells, if one does."""
    digits = body[i + 2 : i + 6]
    if body[i : i + 2] != "\\u" or len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    cp = int(digits, 16)
    return cp if 0xDC00 <= cp <= 0xDFFF else None


def _lone_surrogate(escape: str, cp: int) -> str:
    """Why a surrogate escape on its own is refused, and what to write instead."""
    if cp <= 0xDBFF:
        what = "a high surrogate not followed by a low surrogate escape (\\udc00 to \\udfff)"
    else:
        what = "a low surrogate without a high surrogate escape before it"
    return (f"escape '\\{escape}' is {what}; a character beyond U+FFFF is written as one escape such as "
            "'\\U0001F600' or as the pair '\\ud83d\\ude00'")


#: Interface numbers of SFF's ``ifconfig``: SFF keeps them as unsigned 32-bit ids.
INTERFACE_MIN, INTERFACE_MAX = 0, 2**32 - 1

# A literal with more significant digits than this cannot be in any range we
# accept (the largest double has 309 decimal digits), so it is rejected before
# int() is asked to convert it: int() refuses more than 4,300 digits with a
# ValueError, and a huge conversion is slow.
_MAX_SIGNIFICANT_DIGITS = 330


def int_literal(token: Token) -> int:
    """The value of an INT token: decimal, or hexadecimal ``0x...``, with an
    optional sign; ASCII digits only. Never raises anything but LocatedError."""
    text = token.value
    if not text.isascii():
        raise LocatedError(f"malformed int literal {text[:20]!r}", token)
    body = text.lstrip("+-")
    if len(text) - len(body) > 1:
        raise LocatedError(f"malformed int literal {text[:20]!r}", token)
    negative = text.startswith("-")
    base = 10
    if body[:2] in ("0x", "0X"):
        body, base = body[2:], 16
    significant = body.lstrip("0")
    if len(significant) > _MAX_SIGNIFICANT_DIGITS:
        raise LocatedError(f"int literal out of range: it has {len(significant)} digits (ints are 64-bit, "
                           f"from {INT_MIN} to {INT_MAX})", token)
    try:
        value = int(body, base) if body else None
    except ValueError:
        value = None
    if value is None:
        raise LocatedError(f"malformed int literal {text[:20]!r}", token)
    return -value if negative else value


def float_literal(token: Token) -> float:
    """The value of a FLOAT token, which must be exactly what it says or rounded
    to a nearby finite double.

    The rule: a literal is rounded to its nearest double (IEEE-754, ties to
    even). If that double is infinite, or it is zero while the literal is not
    zero, the literal is an error: it cannot be stored without changing its
    magnitude beyond rounding. So ``1e400`` and ``1e-400`` are both errors,
    while ``5e-324`` (the smallest subnormal) and ``1e-310`` are fine.
    """
    text = token.value
    if not text.isascii():
        raise LocatedError(f"malformed float literal {text[:20]!r}", token)
    try:
        value = float(text)
    except ValueError:
        raise LocatedError(f"malformed float literal {text[:20]!r}", token) from None
    if not math.isfinite(value):
        raise LocatedError("float literal out of range: its magnitude is above the largest double "
                           "(about 1.8e308)", token)
    if value == 0:
        mantissa = text.lower().split("e", 1)[0]
        if any(c in "123456789" for c in mantissa):
            raise LocatedError("float literal out of range: it is nonzero but below the smallest "
                               "double (about 4.9e-324) and would round to 0", token)
        value = 0.0
    return value


def interface_literal(token: Token) -> int:
    """An ``ifconfig`` interface number, in [INTERFACE_MIN, INTERFACE_MAX]."""
    try:
        value = int_literal(token)
    except LocatedError:
        value = None
    if value is None or not INTERFACE_MIN <= value <= INTERFACE_MAX:
        raise LocatedError(f"interface number out of range: it must be an integer from {INTERFACE_MIN} "
                           f"to {INTERFACE_MAX}", token)
    return value


def literal(token: Token, type_: str | None) -> tuple[str, Any]:
    """The (type, value) a literal token stands for, checked against ``type_``."""
    kind = token.type
    lit_type = LITERAL_TYPE[kind]
    if kind == "STRING":
        value: Any = unquote(token)
    elif kind in ("TRUE", "FALSE"):
        value = kind == "TRUE"
    elif kind == "INT":
        value = int_literal(token)
        if type_ == FLOAT:
            try:
                f = float(value)
            except OverflowError:
                raise LocatedError("int literal out of range for a float (above about 1.8e308)", token) from None
            if int(f) != value:
                raise LocatedError(f"int literal {token.value} is not exactly representable as a float", token)
            return FLOAT, (0.0 if f == 0 else f)
        if not INT_MIN <= value <= INT_MAX:
            raise LocatedError(f"int literal out of 64-bit range (from {INT_MIN} to {INT_MAX})", token)
    else:
        value = float_literal(token)
    if type_ is not None and type_ != lit_type:
        raise LocatedError(f"{lit_type} literal does not fit type {type_}", token)
    return lit_type, value


class Decline(CbalgebraError):
    """A reader other than the grammar is not sure of its reading: the grammar
    reads the text again (and reports the error, if there is one)."""

    exit_code = EXIT_INTERNAL  # the full parser reads what a fast reader declines: one escaping is a bug


_PLAIN_INT = re.compile(r"[+-]?[0-9]{1,18}")  # always inside the 64-bit range
#: A float without exponent, of at most 15 digits either side of the point:
#: float() reads it exactly as literal() does, and never as 0 unless written 0.
PLAIN_FLOAT = re.compile(r"[+-]?[0-9]{1,15}\.[0-9]{0,15}")


def fast_value(text: str, type_: str | None) -> tuple[str, Any]:
    """The (type, value) of one literal token's text, as :func:`literal`
    gives it, checked against ``type_``; raises Decline where literal()
    would raise its LocatedError."""
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
        if (type_ is None or type_ == FLOAT) and PLAIN_FLOAT.fullmatch(text):
            return FLOAT, float(text) + 0.0  # + 0.0 turns -0.0 into 0.0
        kind = "FLOAT"
    else:
        if (type_ is None or type_ == INT) and _PLAIN_INT.fullmatch(text):
            return INT, int(text)
        kind = "INT"
    try:
        return literal(Token(kind, text), type_)
    except LocatedError:
        raise Decline from None
