"""The compiled scanner of the bulk reader: ``ifconfig`` statements to rows.

:func:`scan_ifconfigs` reads consecutive flat ``ifconfig`` statements from a
document held as code points and writes one row per constraint (where its
name and value are, their hashes, the type word, operator and value kind)
into the arrays of :class:`ScanRows`. It reads exactly the shapes of the
regular expressions of ``cbalgebra._fastparse``, with the tokens of
``cbalgebra.lexicon`` (character classes, keywords, operator spellings,
separators and comments become the lookup tables below), and stops at the first statement that is not one of
them, or when the rows are full; ``_bulk`` turns the rows into table columns
and leaves everything else to the full parser. Nothing here decides meaning:
a row records what was written, and ``_bulk`` checks it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
from numba import njit

from cbalgebra.lexicon import (
    BLANK,
    COMMENT_DELIMITERS,
    ESCAPE,
    NAME_CHAR,
    NAME_SLASH,
    NAME_START,
    NUMBER_END,
    QUOTE,
    SPELLING,
    SYMBOL_OPERATORS,
    TYPE_WORDS,
    WORD_END,
)
from cbalgebra.matcher._numba_cache import CACHE
from cbalgebra.values import OP_CODE, TYPE_CODE, Op, Type

# Value kinds of a row (the literal written, or the ``any`` form).
K_STRING, K_FLOAT, K_INT, K_BOOL, K_ANY = 0, 1, 2, 3, 4
#: Row flags: the value needs Python (an escape in a string; a hex or long int).
F_SLOW = 1
#: Separators after a constraint.
S_AND, S_OR, S_END = 0, 1, 2
NO_TYPE = -1

def _code_points(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Words as rows of code points (padded with 0) and their lengths."""
    chars = np.zeros((len(words), max(map(len, words))), dtype=np.uint32)
    for k, word in enumerate(words):
        chars[k, : len(word)] = [ord(ch) for ch in word]
    return chars, np.array([len(w) for w in words], dtype=np.int64)


# Everything below is derived from cbalgebra.lexicon: the compiled code only
# compares code points with these tables.
# Words the scanner recognises as type words, with their type codes; ``any``
# is the any type.
_WORDS = [(w, TYPE_CODE[t]) for w, t in TYPE_WORDS.items()] + [(SPELLING["ANY"], int(Type.ANY))]
TYPE_WORD_CHARS, TYPE_WORD_LENGTH = _code_points([w for w, _ in _WORDS])
TYPE_WORD_CODE = np.array([c for _, c in _WORDS], dtype=np.int8)

# Operator spellings (symbols and SFF's), longest first, with their codes.
_SPELLINGS = sorted(((s, OP_CODE[symbol]) for s, symbol in SYMBOL_OPERATORS.items()), key=lambda item: -len(item[0]))
OP_CHARS, OP_LENGTH = _code_points([s for s, _ in _SPELLINGS])
OP_CODE_OF = np.array([c for _, c in _SPELLINGS], dtype=np.int8)

ANY_WORD, _ = _code_points([SPELLING["ANY"]])
TRUE_WORD, _ = _code_points([SPELLING["TRUE"]])
FALSE_WORD, _ = _code_points([SPELLING["FALSE"]])
IFCONFIG_WORD, _ = _code_points([SPELLING["IFCONFIG"]])
ANY_WORD, TRUE_WORD, FALSE_WORD, IFCONFIG_WORD = ANY_WORD[0], TRUE_WORD[0], FALSE_WORD[0], IFCONFIG_WORD[0]

# Character classes, one bit each, for the code points below 256 (the
# lexicon's classes hold no other: tests/test_lexicon.py checks it).
C_BLANK, C_NAME_START, C_NAME_CHAR, C_WORD_CHAR, C_NUMBER_CHAR, C_SLASH, C_NOT_AFTER_SLASH = 1, 2, 4, 8, 16, 32, 64
_CLASSES = ((C_BLANK, BLANK), (C_NAME_START, NAME_START), (C_NAME_CHAR, NAME_CHAR),
            # what may not follow a keyword (WORD_END's class) or a number (NUMBER_END's)
            (C_WORD_CHAR, WORD_END.removeprefix("(?!").removesuffix(")")),
            (C_NUMBER_CHAR, NUMBER_END.removeprefix("(?!").removesuffix(")")))


def _class_table() -> np.ndarray:
    table = np.zeros(256, dtype=np.uint8)
    for c in range(256):
        ch = chr(c)
        for bit, pattern in _CLASSES:
            if re.fullmatch(pattern, ch):
                table[c] |= bit
        if re.match(NAME_SLASH, ch + "a"):  # a character that may join a name's parts
            table[c] |= C_SLASH
        if re.match(NAME_SLASH, "/" + ch) is None:  # ... but not before this one
            table[c] |= C_NOT_AFTER_SLASH
    return table


CHAR_CLASS = _class_table()
# Statement and constraint separators (single characters, and '&&', '||').
SEMI, COMMA = ord(SPELLING["_SEMI"]), ord(SPELLING["_COMMA"])
AND_TWICE, OR_ONCE = ord(SPELLING["_AND_SYM"][0]), ord(SPELLING["OR1"])
assert SPELLING["_AND_SYM"] == chr(AND_TWICE) * 2 and SPELLING["OR2"] == chr(OR_ONCE) * 2, "the separators' shapes"
QUOTE_CHAR, ESCAPE_CHAR = ord(QUOTE), ord(ESCAPE)
# Comments: (opening, closing) code points; a closing line break is not taken.
COMMENT_OPEN, COMMENT_OPEN_LENGTH = _code_points([o for o, _ in COMMENT_DELIMITERS.values()])
COMMENT_CLOSE, COMMENT_CLOSE_LENGTH = _code_points([c for _, c in COMMENT_DELIMITERS.values()])
OP_ANY = int(Op.ANY)

_HASH_BASE = np.uint64(0x100000001B3)


class ScanRows(NamedTuple):
    """One row per constraint, one entry per statement; sized by the caller."""

    name_start: np.ndarray   # int64
    name_end: np.ndarray     # int64
    name_hash: np.ndarray    # uint64
    type_word: np.ndarray    # int8 type code of a word before the name, NO_TYPE if none
    op: np.ndarray           # int8 operator code (OP_ANY for the any form)
    kind: np.ndarray         # int8 K_*
    any_type: np.ndarray     # int8 type code of the word after 'any', NO_TYPE if none
    value_start: np.ndarray  # int64 (for strings: inside the quotes)
    value_end: np.ndarray    # int64
    value_hash: np.ndarray   # uint64
    int_value: np.ndarray    # int64, for plain decimal ints and bools
    flags: np.ndarray        # int8 F_*
    filter: np.ndarray       # int64, counted from 0 in each statement
    statement_interface: np.ndarray  # int64, per statement
    statement_row: np.ndarray        # int64, per statement + 1: its first row
    statement_start: np.ndarray      # int64, per statement: offset of 'ifconfig'
    statement_filters: np.ndarray    # int64, per statement


def new_rows(n_rows: int, n_statements: int) -> ScanRows:
    i64, u64, i8 = np.int64, np.uint64, np.int8
    return ScanRows(
        np.empty(n_rows, i64), np.empty(n_rows, i64), np.empty(n_rows, u64), np.empty(n_rows, i8),
        np.empty(n_rows, i8), np.empty(n_rows, i8), np.empty(n_rows, i8), np.empty(n_rows, i64),
        np.empty(n_rows, i64), np.empty(n_rows, u64), np.empty(n_rows, i64), np.empty(n_rows, i8),
        np.empty(n_rows, i64), np.empty(n_statements, i64), np.empty(n_statements + 1, i64),
        np.empty(n_statements, i64), np.empty(n_statements, i64),
    )


# ------------------------------------------------------------ characters
@njit(cache=CACHE, inline="always")
def _is(c, bit):
    """Whether code point ``c`` is in the class ``bit`` of CHAR_CLASS."""
    return c < 256 and (CHAR_CLASS[c] & bit) != 0


@njit(cache=CACHE, inline="always")
def _blank(c):
    return _is(c, C_BLANK)


@njit(cache=CACHE, inline="always")
def _digit(c):
    return 48 <= c <= 57


@njit(cache=CACHE, inline="always")
def _word_char(c):
    """What may not follow a keyword or literal (the lexicon's WORD_END)."""
    return _is(c, C_WORD_CHAR)


@njit(cache=CACHE, inline="always")
def _skip_blanks(chars, p, n):
    while p < n and _blank(chars[p]):
        p += 1
    return p


@njit(cache=CACHE)
def _name_end(chars, p, n):
    """End of the name at ``p`` (the lexicon's NAME), or p if none."""
    if p >= n or not _is(chars[p], C_NAME_START):
        return p
    p += 1
    while p < n:
        c = chars[p]
        if _is(c, C_NAME_CHAR) or (_is(c, C_SLASH) and not (p + 1 < n and _is(chars[p + 1], C_NOT_AFTER_SLASH))):
            p += 1
        else:
            break
    return p


@njit(cache=CACHE)
def _type_word(chars, s, e):
    """Type code of the word chars[s:e] if it is a type word (or 'any'), else NO_TYPE."""
    for k in range(TYPE_WORD_LENGTH.shape[0]):
        if TYPE_WORD_LENGTH[k] == e - s:
            same = True
            for j in range(e - s):
                if chars[s + j] != TYPE_WORD_CHARS[k, j]:
                    same = False
                    break
            if same:
                return TYPE_WORD_CODE[k]
    return NO_TYPE


@njit(cache=CACHE)
def _hash(chars, s, e):
    h = np.uint64(0)
    for j in range(s, e):
        h = h * _HASH_BASE + (np.uint64(chars[j]) + np.uint64(1))
    return h


@njit(cache=CACHE)
def _starts(chars, p, n, word, length):
    """Whether chars[p:] starts with the first ``length`` code points of ``word``."""
    if p + length > n:
        return False
    for j in range(length):  # noqa: SIM110 - a loop numba compiles; all() of a generator it does not
        if chars[p + j] != word[j]:
            return False
    return True


@njit(cache=CACHE)
def _is_word(chars, p, n, word):
    """Whether chars[p:] starts with ``word`` (code points) followed by a word end."""
    length = word.shape[0]
    return _starts(chars, p, n, word, length) and (p + length == n or not _word_char(chars[p + length]))


# ---------------------------------------------------------------- values
@njit(cache=CACHE)
def _number(chars, p, n):
    """A number at ``p`` as (end, kind, plain int value, slow): the FLOAT and INT
    shapes of the grammar, followed by no [0-9A-Za-z_.]; end = -1 if none."""
    q = p
    if q < n and (chars[q] == 43 or chars[q] == 45):
        q += 1
    d0 = q
    while q < n and _digit(chars[q]):
        q += 1
    digits = q - d0
    kind = K_INT
    if q < n and chars[q] == 46 and (digits > 0 or (q + 1 < n and _digit(chars[q + 1]))):
        kind = K_FLOAT
        q += 1
        while q < n and _digit(chars[q]):
            q += 1
    if (digits > 0 or kind == K_FLOAT) and q < n and (chars[q] == 101 or chars[q] == 69):  # an exponent
        r = q + 1
        if r < n and (chars[r] == 43 or chars[r] == 45):
            r += 1
        r0 = r
        while r < n and _digit(chars[r]):
            r += 1
        if r > r0:
            q = r
            kind = K_FLOAT
    if digits == 0 and kind != K_FLOAT:
        return -1, K_INT, 0, False
    slow = False
    if kind == K_INT and digits == 1 and chars[d0] == 48 and q < n and (chars[q] == 120 or chars[q] == 88):
        r = q + 1
        while r < n and (_digit(chars[r]) or (65 <= chars[r] <= 70) or (97 <= chars[r] <= 102)):
            r += 1
        if r == q + 1:
            return -1, K_INT, 0, False
        q = r
        slow = True
    if q < n and _is(chars[q], C_NUMBER_CHAR):
        return -1, K_INT, 0, False  # the lexicon's NUMBER_END
    value = 0
    if kind == K_INT and not slow:
        if q - p > 18:
            slow = True
        else:
            for j in range(d0, q):
                value = value * 10 + (chars[j] - 48)
            if chars[p] == 45:
                value = -value
    return q, kind, value, slow


@njit(cache=CACHE)
def _string_end(chars, p, n):
    """After the opening quote at p - 1: (offset of the closing quote, escaped), or (-1, _)."""
    escaped = False
    while p < n:
        c = chars[p]
        if c == QUOTE_CHAR:
            return p, escaped
        if c == 10:
            return -1, escaped
        if c == ESCAPE_CHAR:
            if p + 1 >= n or chars[p + 1] == 10:
                return -1, escaped
            escaped = True
            p += 2
            continue
        p += 1
    return -1, escaped


# -------------------------------------------------------------- statements
@njit(cache=CACHE)
def _constraint(chars, p, n, rows, r):
    """One constraint at ``p`` into row r; returns the offset after it and the
    blanks that follow, or -1 if it is not of a shape the scanner reads."""
    e1 = _name_end(chars, p, n)
    if e1 == p:
        return -1
    name_s, name_e = p, e1
    type_word = NO_TYPE
    q = _skip_blanks(chars, e1, n)
    if q > e1:
        tw = _type_word(chars, p, e1)
        if tw != NO_TYPE:
            e2 = _name_end(chars, q, n)
            if e2 > q:  # `type name ...`; a type word is never a name the scanner keeps
                type_word = tw
                name_s, name_e = q, e2
                q = _skip_blanks(chars, e2, n)
    rows.name_start[r] = name_s
    rows.name_end[r] = name_e
    rows.name_hash[r] = _hash(chars, name_s, name_e)
    rows.type_word[r] = type_word
    rows.any_type[r] = NO_TYPE
    rows.flags[r] = 0
    rows.int_value[r] = 0
    if _is_word(chars, q, n, ANY_WORD):
        rows.op[r] = OP_ANY
        rows.kind[r] = K_ANY
        rows.value_start[r] = q
        rows.value_end[r] = q
        rows.value_hash[r] = np.uint64(0)
        q2 = _skip_blanks(chars, q + ANY_WORD.shape[0], n)
        if q2 > q + ANY_WORD.shape[0]:
            e3 = _name_end(chars, q2, n)
            if e3 > q2:
                tw = _type_word(chars, q2, e3)
                if tw == NO_TYPE or (e3 < n and _word_char(chars[e3])):
                    return -1
                rows.any_type[r] = tw
                return _skip_blanks(chars, e3, n)
        return q2
    op = -1
    for k in range(OP_LENGTH.shape[0]):
        length = OP_LENGTH[k]
        if q + length <= n and chars[q] == OP_CHARS[k, 0] and (length == 1 or chars[q + 1] == OP_CHARS[k, 1]):
            op = k
            break
    if op < 0:
        return -1
    rows.op[r] = OP_CODE_OF[op]
    q = _skip_blanks(chars, q + OP_LENGTH[op], n)
    if q >= n:
        return -1
    c = chars[q]
    if c == QUOTE_CHAR:
        end, escaped = _string_end(chars, q + 1, n)
        if end < 0:
            return -1
        rows.kind[r] = K_STRING
        rows.value_start[r] = q + 1
        rows.value_end[r] = end
        rows.value_hash[r] = _hash(chars, q + 1, end)
        if escaped:
            rows.flags[r] = F_SLOW
        return _skip_blanks(chars, end + 1, n)
    if _is_word(chars, q, n, TRUE_WORD):
        rows.kind[r] = K_BOOL
        rows.int_value[r] = 1
        rows.value_start[r] = q
        rows.value_end[r] = q + TRUE_WORD.shape[0]
        rows.value_hash[r] = np.uint64(1)
        return _skip_blanks(chars, q + TRUE_WORD.shape[0], n)
    if _is_word(chars, q, n, FALSE_WORD):
        rows.kind[r] = K_BOOL
        rows.value_start[r] = q
        rows.value_end[r] = q + FALSE_WORD.shape[0]
        rows.value_hash[r] = np.uint64(0)
        return _skip_blanks(chars, q + FALSE_WORD.shape[0], n)
    end, kind, value, slow = _number(chars, q, n)
    if end < 0:
        return -1
    rows.kind[r] = kind
    rows.value_start[r] = q
    rows.value_end[r] = end
    rows.value_hash[r] = _hash(chars, q, end)
    rows.int_value[r] = value
    if slow:
        rows.flags[r] = F_SLOW
    return _skip_blanks(chars, end, n)


@njit(cache=CACHE)
def _ifconfig_head(chars, p, n):
    """(offset of the body, interface) after 'ifconfig N' at p, or (-1, 0)."""
    length = IFCONFIG_WORD.shape[0]
    if p + length >= n or not _starts(chars, p, n, IFCONFIG_WORD, length):
        return -1, 0
    q = p + length
    if not _blank(chars[q]):
        return -1, 0
    q = _skip_blanks(chars, q, n)
    d0 = q
    value = 0
    while q < n and _digit(chars[q]) and q - d0 < 11:
        value = value * 10 + (chars[q] - 48)
        q += 1
    if q == d0 or q - d0 > 10 or value > 4294967295 or (q < n and _word_char(chars[q])):
        return -1, 0
    return _skip_blanks(chars, q, n), value


@njit(cache=CACHE)
def _comment_end(chars, p, n):
    """The end of a comment at p (before a closing line break, after any
    other closing); p if no comment starts there, -1 if it is unterminated."""
    for k in range(COMMENT_OPEN_LENGTH.shape[0]):
        if _starts(chars, p, n, COMMENT_OPEN[k], COMMENT_OPEN_LENGTH[k]):
            q = p + COMMENT_OPEN_LENGTH[k]
            length = COMMENT_CLOSE_LENGTH[k]
            if length == 1 and COMMENT_CLOSE[k, 0] == 10:
                while q < n and chars[q] != 10:
                    q += 1
                return q
            while q < n and not _starts(chars, q, n, COMMENT_CLOSE[k], length):
                q += 1
            return q + length if q < n else -1
    return p


@njit(cache=CACHE)
def _skip_comments(chars, p, n):
    """Past blanks and comments (the lexicon's COMMENT_DELIMITERS) at p."""
    while p < n:
        if _blank(chars[p]):
            p += 1
            continue
        end = _comment_end(chars, p, n)
        if end <= p:
            break  # no comment, or unterminated: the full parser reports it
        p = end
    return p


@njit(cache=CACHE)
def scan_ifconfigs(chars, p, rows):
    """Read consecutive ``ifconfig`` statements from offset ``p``.

    Returns (statements read, rows written, offset after the last statement
    read and the blanks and comments that follow, whether the rows ran out).
    Stops before a statement it cannot read or one that would not fit in
    the rows. (A statement's filters are not limited: written side by side,
    they cost what their text does.)"""
    n = chars.shape[0]
    n_rows = rows.name_start.shape[0]
    n_statements = rows.statement_interface.shape[0]
    r = 0
    s = 0
    full = False
    rows.statement_row[0] = 0
    while s < n_statements:
        body, interface = _ifconfig_head(chars, p, n)
        if body < 0:
            break
        q = body
        r0 = r
        f = 0
        ok = False
        while r < n_rows:
            q = _constraint(chars, q, n, rows, r)
            if q < 0 or q >= n:
                break
            rows.filter[r] = f
            r += 1
            c = chars[q]
            if c == SEMI:
                q += 1
                ok = True
                break
            if c == COMMA:
                q = _skip_blanks(chars, q + 1, n)
            elif c == AND_TWICE and q + 1 < n and chars[q + 1] == AND_TWICE:  # '&&'
                q = _skip_blanks(chars, q + 2, n)
            elif c == OR_ONCE:  # '|' or '||'
                q += 2 if q + 1 < n and chars[q + 1] == OR_ONCE else 1
                q = _skip_blanks(chars, q, n)
                f += 1
            else:
                break
        if not ok:
            full = r == n_rows and not ok
            r = r0
            break
        rows.statement_interface[s] = interface
        rows.statement_start[s] = p
        rows.statement_filters[s] = f + 1
        s += 1
        rows.statement_row[s] = r
        p = _skip_comments(chars, q, n)
    if s == n_statements:
        full = True
    return s, r, p, full


@njit(cache=CACHE)
def same_slices(chars, start, end, other_start, other_end):
    """Whether chars[start[k]:end[k]] equals chars[other_start[k]:other_end[k]],
    for each k (equal hashes are confirmed by the text itself)."""
    out = np.empty(start.shape[0], dtype=np.bool_)
    for k in range(start.shape[0]):
        a, b = start[k], other_start[k]
        length = end[k] - a
        same = length == other_end[k] - b
        if same and a != b:
            for j in range(length):
                if chars[a + j] != chars[b + j]:
                    same = False
                    break
        out[k] = same
    return out
