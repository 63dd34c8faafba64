"""The compiled scanner of the bulk reader: ``ifconfig`` statements to rows.

:func:`scan_ifconfigs` reads consecutive flat ``ifconfig`` statements from a
document held as code points and writes one row per constraint (where its
name and value are, their hashes, the type word, operator and value kind)
into the arrays of :class:`ScanRows`. It reads exactly the shapes of the
regular expressions of ``cbalgebra._fastparse`` (names, literals, blanks,
operator spellings) and stops at the first statement that is not one of
them, or when the rows are full; ``_bulk`` turns the rows into table columns
and leaves everything else to the full parser. Nothing here decides meaning:
a row records what was written, and ``_bulk`` checks it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from cbalgebra.matcher._numba_cache import CACHE
from cbalgebra.values import OPERATOR_SPECS, TYPE_SPECS, Op, Type

# Value kinds of a row (the literal written, or the ``any`` form).
K_STRING, K_FLOAT, K_INT, K_BOOL, K_ANY = 0, 1, 2, 3, 4
#: Row flags: the value needs Python (an escape in a string; a hex or long int).
F_SLOW = 1
#: Separators after a constraint.
S_AND, S_OR, S_END = 0, 1, 2
NO_TYPE = -1

# Words the scanner recognises as type words (code points, padded), with their
# type codes; ``any`` is the any type.
_WORDS = [(w, int(spec.code)) for spec in TYPE_SPECS for w in spec.words] + [("any", int(Type.ANY))]
_WIDTH = max(len(w) for w, _ in _WORDS)
TYPE_WORD_CHARS = np.zeros((len(_WORDS), _WIDTH), dtype=np.uint32)
TYPE_WORD_LENGTH = np.array([len(w) for w, _ in _WORDS], dtype=np.int64)
TYPE_WORD_CODE = np.array([c for _, c in _WORDS], dtype=np.int8)
for _k, (_w, _) in enumerate(_WORDS):
    TYPE_WORD_CHARS[_k, : len(_w)] = [ord(ch) for ch in _w]

# Operator spellings (symbols and SFF's), longest first, with their codes.
_SPELLINGS = sorted({s: int(o.code) for o in OPERATOR_SPECS if o.code != Op.ANY for s in (o.symbol, o.sff)}.items(),
                    key=lambda item: -len(item[0]))
OP_CHARS = np.zeros((len(_SPELLINGS), 2), dtype=np.uint32)
OP_LENGTH = np.array([len(s) for s, _ in _SPELLINGS], dtype=np.int64)
OP_CODE_OF = np.array([c for _, c in _SPELLINGS], dtype=np.int8)
for _k, (_s, _) in enumerate(_SPELLINGS):
    OP_CHARS[_k, : len(_s)] = [ord(ch) for ch in _s]
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
def _blank(c):
    return c == 32 or c == 9 or c == 13 or c == 10 or c == 12 or c == 0xA0


@njit(cache=CACHE, inline="always")
def _letter(c):
    return (65 <= c <= 90) or (97 <= c <= 122) or c == 95


@njit(cache=CACHE, inline="always")
def _digit(c):
    return 48 <= c <= 57


@njit(cache=CACHE, inline="always")
def _word_char(c):
    """What may not follow a keyword or literal: [A-Za-z0-9_\\-./]."""
    return _letter(c) or _digit(c) or c == 45 or c == 46 or c == 47


@njit(cache=CACHE, inline="always")
def _skip_blanks(chars, p, n):
    while p < n and _blank(chars[p]):
        p += 1
    return p


@njit(cache=CACHE)
def _name_end(chars, p, n):
    """End of the name at ``p`` (``_fastparse._NAME``), or p if none."""
    if p >= n or not _letter(chars[p]):
        return p
    p += 1
    while p < n:
        c = chars[p]
        if (_letter(c) or _digit(c) or c == 45 or c == 46
                or (c == 47 and not (p + 1 < n and (chars[p + 1] == 47 or chars[p + 1] == 42)))):
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
def _is_word(chars, p, n, w0, w1, w2, w3, length):
    """Whether chars[p:] starts with a word of ``length`` letters (the first
    four given; 'false' checks its fifth itself) followed by a word end."""
    if p + length > n:
        return False
    if chars[p] != w0 or chars[p + 1] != w1 or chars[p + 2] != w2 or (length > 3 and chars[p + 3] != w3):
        return False
    return p + length == n or not _word_char(chars[p + length])


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
    if q < n and (_word_char(chars[q]) and chars[q] != 45 and chars[q] != 47):
        return -1, K_INT, 0, False  # the grammar's literals are not followed by [0-9A-Za-z_.]
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
        if c == 34:
            return p, escaped
        if c == 10:
            return -1, escaped
        if c == 92:
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
    if _is_word(chars, q, n, 97, 110, 121, 0, 3):  # 'any'
        rows.op[r] = OP_ANY
        rows.kind[r] = K_ANY
        rows.value_start[r] = q
        rows.value_end[r] = q
        rows.value_hash[r] = np.uint64(0)
        q2 = _skip_blanks(chars, q + 3, n)
        if q2 > q + 3:
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
    if c == 34:
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
    if _is_word(chars, q, n, 116, 114, 117, 101, 4):  # 'true'
        rows.kind[r] = K_BOOL
        rows.int_value[r] = 1
        rows.value_start[r] = q
        rows.value_end[r] = q + 4
        rows.value_hash[r] = np.uint64(1)
        return _skip_blanks(chars, q + 4, n)
    if _is_word(chars, q, n, 102, 97, 108, 115, 5) and chars[q + 4] == 101:  # 'false'
        rows.kind[r] = K_BOOL
        rows.value_start[r] = q
        rows.value_end[r] = q + 5
        rows.value_hash[r] = np.uint64(0)
        return _skip_blanks(chars, q + 5, n)
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
    word = (105, 102, 99, 111, 110, 102, 105, 103)  # 'ifconfig'
    if p + 8 >= n:
        return -1, 0
    for j in range(8):
        if chars[p + j] != word[j]:
            return -1, 0
    q = p + 8
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
def _skip_comments(chars, p, n):
    """Past blanks and comments (``#``, ``//``, ``/* */``) at p."""
    while p < n:
        c = chars[p]
        if _blank(c):
            p += 1
        elif c == 35 or (c == 47 and p + 1 < n and chars[p + 1] == 47):
            while p < n and chars[p] != 10:
                p += 1
        elif c == 47 and p + 1 < n and chars[p + 1] == 42:
            q = p + 2
            while q + 1 < n and not (chars[q] == 42 and chars[q + 1] == 47):
                q += 1
            if q + 1 >= n:
                return p  # unterminated: the full parser reports it
            p = q + 2
        else:
            break
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
            if c == 59:  # ';'
                q += 1
                ok = True
                break
            if c == 44:  # ','
                q = _skip_blanks(chars, q + 1, n)
            elif c == 38 and q + 1 < n and chars[q + 1] == 38:  # '&&'
                q = _skip_blanks(chars, q + 2, n)
            elif c == 124:  # '|' or '||'
                q += 2 if q + 1 < n and chars[q + 1] == 124 else 1
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
