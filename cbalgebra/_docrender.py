"""Documents straight to their printed forms, for ``cbalgebra parse``.

A big SFF driver file is mostly flat ``ifconfig`` and ``select`` statements.
Building a Constraint, Filter, Predicate and DocumentItem for each, then a
JSON tree, only to print it, cost about 25 s of CPU time on a 50 MB file
(issue 9 §8). This reader takes those two statements from the text to their
output line directly: the canonical order of a filter (constraints sorted
on (name, type rank, operator rank, value), duplicates dropped) and of a
predicate (filters sorted on their constraint keys) is computed on plain
tuples with the same keys as :mod:`cbalgebra.values`, and each constraint's
text or JSON is formatted once with the spelling the value path produces.

It reads exactly what the fast scanner of :mod:`cbalgebra._fastparse`
reads, with its flat shapes (FLAT_CONSTRAINT, FLAT_ATTRIBUTE), the tokens of
:mod:`cbalgebra.lexicon` and the literal decoding of :mod:`cbalgebra.literals`, and declines (returns None)
on anything else; the statement then goes the value path
(:func:`cbalgebra.parse.iter_document`), which is also where every error
is reported. tests/test_parse_render.py checks both paths print the same
bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring  # the C encoder's string function (ensure_ascii=False)
from typing import Any

from cbalgebra._fastparse import FLAT_ATTRIBUTE, FLAT_CONSTRAINT, SEPARATOR_AFTER
from cbalgebra.lexicon import BLANK, KEYWORDS, SPELLING, STATEMENT, SYMBOL_OPERATORS, TYPE_WORDS, WORD_END, skip
from cbalgebra.literals import INTERFACE_MAX, PLAIN_FLOAT, Decline, fast_value
from cbalgebra.parse import scan_document
from cbalgebra.values import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    OP_CODE,
    OPERATORS_OF_TYPE,
    STRING,
    TYPE_CODE,
    InvalidValueError,
    _has_surrogate,
    format_name,
    quote,
)

__all__ = ["rendered_document"]

# `ifconfig N` and the blanks before its first constraint: STATEMENT's
# word end is implied by the blank that the interface number's blank requires.
_IFCONFIG_WORD, _SELECT_WORD, _ANY = SPELLING["IFCONFIG"], SPELLING["SELECT"], SPELLING["ANY"]
_IFCONFIG = re.compile(_IFCONFIG_WORD + BLANK + "+([0-9]{1,10})" + WORD_END + BLANK + "*")
# One constraint and the separator after it in one match. The constraint is
# an atomic group: it matches exactly where FLAT_CONSTRAINT.match does (no
# backtracking into it to make the separator fit), so each constraint it
# reads is one FLAT_CONSTRAINT reads. (The value path's reader,
# _fastparse._sff_ifconfig, takes more spellings: quoted names, `name any
# TYPE`; statements using them are rendered from their values instead.)
_SFF_CONSTRAINT = re.compile("(?>" + FLAT_CONSTRAINT.pattern + ")" + SEPARATOR_AFTER.pattern)
_SELECT = re.compile(_SELECT_WORD + WORD_END + BLANK + "*")
# One attribute and the optional comma after it; ';' ends the body.
_SELECT_ATTRIBUTE = re.compile("(?>" + FLAT_ATTRIBUTE.pattern + ")" + BLANK + "*(,)?" + BLANK + "*")

#: Per output mode, (type, name, operator as written) -> (type rank,
#: operator rank, the constraint printed up to its value). Names repeat
#: throughout a document; a cache is cleared when it grows past
#: _PREFIX_LIMIT so that odd input cannot grow it without bound.
_PREFIXES: dict[bool, dict[tuple[str, str, str], tuple[int, int, str]]] = {True: {}, False: {}}
_PREFIX_LIMIT = 50_000


def _prefix(type_: str, name: str, op_word: str, as_json: bool) -> tuple[int, int, str] | None:
    """The cache entry of a constraint's (type, name, operator), or None
    where the fast scanner declines on a flat constraint: a name spelled like a
    keyword, an operator the type does not take. (Every decline means the
    same, so these checks are made once per entry, not per constraint.)"""
    if name in KEYWORDS:
        return None
    op = ANY if op_word == _ANY else SYMBOL_OPERATORS[op_word]
    if op not in OPERATORS_OF_TYPE[type_]:
        return None
    cache = _PREFIXES[as_json]
    if len(cache) >= _PREFIX_LIMIT:
        cache.clear()
    if as_json:
        head = (f'{{"type": {encode_basestring(type_)}, "name": {encode_basestring(name)}, '
                f'"op": {encode_basestring(op)}, "value": ')
    elif op == ANY:
        head = f"{type_} {format_name(name)} any"
    else:
        head = f"{type_} {format_name(name)} {op} "
    entry = cache[type_, name, op_word] = (TYPE_CODE[type_], OP_CODE[op], head)
    return entry


def _shown(type_: str, value: Any, as_json: bool) -> str:
    """A value as printed: what json's C encoder writes (ints and finite
    floats by repr) or ``values.format_value``."""
    if type_ == STRING:
        if as_json:
            return encode_basestring(value)
        if value.isprintable() and '"' not in value and "\\" not in value:
            return '"' + value + '"'
        return quote(value)
    if type_ == BOOL:
        return "true" if value else "false"
    return repr(value)


def _ifconfig(text: str, pos: int, line: int, as_json: bool) -> tuple[str, int] | None:
    """An ``ifconfig`` statement, printed, and the offset of the next
    statement; None where _fastparse.fast_statement would decline."""
    head = _IFCONFIG.match(text, pos)
    if head is None:
        return None
    interface = int(head.group(1))
    if interface > INTERFACE_MAX:
        return None
    pos = head.end()
    filters: dict[tuple, str] = {}  # filter key -> its constraints, printed
    constraints: dict[tuple, str] = {}  # constraint key -> printed
    prefixes = _PREFIXES[as_json]
    tail = "}" if as_json else ""
    match = _SFF_CONSTRAINT.match
    value: Any
    shown: str | None
    try:
        while True:
            # the fast scanner's flat constraint, inline (this loop runs for every
            # constraint of the document), and the value as printed.
            m = match(text, pos)
            if m is None:
                return None
            type_word, name, op_word, value_text, sep = m.groups()
            if value_text is None:
                if op_word != _ANY or type_word is None:
                    return None
                type_, value, shown = TYPE_WORDS[type_word], None, "null" if as_json else ""
            elif op_word == _ANY:
                return None
            else:
                # fast_value's commonest cases first, with its results. A
                # printable string without escapes, and a decimal int without
                # leading zeros, print as they are written.
                if value_text[0] == '"' and "\\" not in value_text and (
                        type_word is None or TYPE_WORDS[type_word] == STRING):
                    type_, value = STRING, value_text[1:-1]
                    shown = value_text if value_text.isprintable() else None
                elif value_text.isdigit() and len(value_text) <= 18 and (
                        type_word is None or TYPE_WORDS[type_word] == INT):
                    type_, value = INT, int(value_text)  # ASCII digits (the regex), in the 64-bit range
                    shown = value_text if value_text[0] != "0" or len(value_text) == 1 else None
                elif "." in value_text and (type_word is None or TYPE_WORDS[type_word] == FLOAT) and (
                        PLAIN_FLOAT.fullmatch(value_text)):
                    type_, value = FLOAT, float(value_text) + 0.0  # + 0.0 turns -0.0 into 0.0
                    shown = repr(value)
                else:
                    type_, value = fast_value(value_text, TYPE_WORDS[type_word] if type_word else None)
                    shown = None
                if shown is None:
                    # Constraint() refuses a lone surrogate (a str that did
                    # not come from UTF-8); the value path reports it.
                    if type_ == STRING and not value.isascii() and _has_surrogate(value):
                        return None
                    shown = _shown(type_, value, as_json)
            # The name and operator are checked when their entry is made.
            prefix = prefixes.get((type_, name, op_word))
            if prefix is None:
                prefix = _prefix(type_, name, op_word, as_json)
                if prefix is None:
                    return None
            constraints[name, prefix[0], prefix[1], () if value is None else value] = prefix[2] + shown + tail
            pos = m.end()
            if sep == "," or sep == "&&":
                continue
            key = tuple(sorted(constraints))
            filters[key] = ", ".join([constraints[k] for k in key])
            constraints = {}
            if sep == ";":
                break
    except (Decline, InvalidValueError):
        return None
    end = skip(text, pos)
    if end < len(text) and STATEMENT.match(text, end) is None:
        return None  # let the grammar report what follows
    ordered = [filters[k] for k in sorted(filters)]
    if as_json:
        return (f'{{"kind": "ifconfig", "line": {line}, "value": {{"kind": "predicate", "filters": '
                f'[[{"], [".join(ordered)}]]}}, "interface": {interface}}}'), end
    return f"ifconfig {interface} {' | '.join(ordered)};", end


def _select(text: str, pos: int, line: int, as_json: bool) -> tuple[str, int] | None:
    head = _SELECT.match(text, pos)
    if head is None:
        return None
    pos = head.end()
    attributes: dict[str, tuple[str, Any]] = {}
    comma = None
    try:
        while not text.startswith(";", pos):  # blanks are read with each attribute
            m = _SELECT_ATTRIBUTE.match(text, pos)
            if m is None:
                return None
            type_word, name, value_text, comma = m.groups()
            if name in KEYWORDS or name in attributes:
                return None
            type_, value = fast_value(value_text, TYPE_WORDS[type_word] if type_word else None)
            if type_ == STRING and not value.isascii() and _has_surrogate(value):
                return None  # Attribute() refuses it; the value path reports it
            attributes[name] = (type_, _shown(type_, value, as_json))
            pos = m.end()
    except (Decline, InvalidValueError):
        return None
    if comma is not None:
        return None  # a comma before ';': the grammar reports it
    after = skip(text, pos + 1)
    if after < len(text) and STATEMENT.match(text, after) is None:
        return None
    names = sorted(attributes)
    if as_json:
        body = ", ".join([f'{encode_basestring(n)}: {{"type": "{attributes[n][0]}", "value": '
                          f"{attributes[n][1]}}}" for n in names])
        return f'{{"kind": "select", "line": {line}, "value": {{"kind": "message", "attributes": {{{body}}}}}}}', after
    body = ", ".join([f"{attributes[n][0]} {format_name(n)} = {attributes[n][1]}" for n in names])
    return f"select {body};", after


def _renderer(as_json: bool) -> Callable[[str, int, int], tuple[str, int] | None]:
    def render(text: str, pos: int, line: int) -> tuple[str, int] | None:
        if text.startswith(_IFCONFIG_WORD, pos):
            return _ifconfig(text, pos, line, as_json)
        if text.startswith(_SELECT_WORD, pos):
            return _select(text, pos, line, as_json)
        return None

    return render


def rendered_document(text: str, as_json: bool, render_item: Callable[[Any], str]) -> Iterator[str]:
    """The printed statements of a document, one string per statement (no
    newline): its JSON with ``as_json``, else its canonical text.
    ``render_item`` prints the DocumentItems of the statements this module
    leaves to the value path; it must be ``str`` or the CLI's JSON encoding,
    whose output this module reproduces. Errors raise ParseError as
    :func:`cbalgebra.parse.iter_document` does, after the statements before."""
    for out in scan_document(text, _renderer(as_json)):
        yield out if isinstance(out, str) else render_item(out)
