"""A strict scanner for the flat canonical shapes, in front of Lark.

Lark's pure-Python LALR costs about 5 µs a token, so a 25-token filter parses
at about 7,000 per second. Most real input is the flat canonical shape
``[type name op value, ...] || [...]``. This scanner reads only that shape.
It returns a value only when it is certain and returns None on anything
unusual: keywords as names, quoted names, nesting, word operators, SFF
forms, any error. Lark then parses the text again, which is also how every
error gets its position and reason. tests/test_parse.py checks that both
paths give equal values.

Documents are read statement by statement (:func:`fast_statement`). SFF
driver files are the big ones: their `ifconfig` and `select` statements
have readers of their own, which cut a body into constraint or attribute
texts with one findall and build each distinct text once per document
(:class:`DocumentMemo`); they take SFF's spellings (`=*`, `*=`, `**`,
`name any TYPE`), our printed forms, quoted names, and leave to the grammar
only keywords as names, comments, brackets, word connectives and errors.
tests/test_parse_sff.py compares them with the grammar.

Every token these readers know (names, literals, blanks, comments, keywords,
type words and operator spellings) comes from :mod:`cbalgebra.lexicon`, as
the grammar's terminals do; the literal decoding is :mod:`cbalgebra.literals`.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from typing import Any

from lark import Token

from cbalgebra.lexicon import (
    BLANK,
    FLOAT as FLOAT_TOKEN,
    GAP,
    INT as INT_TOKEN,
    KEYWORDS,
    NAME_END,
    NAME_SCANNED,
    NAME_WORD,
    NUMBER_END,
    SPELLING,
    STATEMENT,
    STRING as STRING_TOKEN,
    STRING_SCANNED,
    SYMBOL_OPERATORS,
    TYPE_WORDS,
    WORD_END,
    WORD_OPERATORS,
    alternation,
    skip,
)
from cbalgebra.literals import PLAIN_FLOAT, Decline, LocatedError, fast_value, literal, unquote
from cbalgebra.values import ANY, ANYTYPE, FLOAT, INT, OP_CODE, OPERATORS_OF_TYPE, TYPE_CODE, InvalidValueError
from cbalgebra.values import Attribute, Constraint, Filter, Message, Predicate, message_wire

__all__ = ["FLAT_ATTRIBUTE", "FLAT_CONSTRAINT", "RESERVED", "SEPARATOR_AFTER", "STATEMENT", "DocumentMemo",
           "fast_dnf", "fast_message", "fast_statement", "skip"]

# The lexical pieces come from cbalgebra.lexicon. Names are read possessively
# (a regex must never split `company` into the name `comp` and the keyword
# `any`; the grammar's lexer reads the longest name); the type words and
# operator spellings are alternations longest first, so that one never stops
# at a shorter spelling (`=` before `=*`).
_NAME = "(" + NAME_SCANNED + ")"
_TRUE, _FALSE, _ANY, _FROM = SPELLING["TRUE"], SPELLING["FALSE"], SPELLING["ANY"], SPELLING["FROM"]
_BOOLEANS = (_TRUE, _FALSE)
_TYPE_WORD = "(?:(" + alternation(TYPE_WORDS) + ")" + BLANK + "+)?"
_SYMBOL_OPERATOR = alternation(SYMBOL_OPERATORS)
# A literal, as the grammar lexes it (an INT is not followed by what would
# make the lexer read more).
_VALUE = ("(" + STRING_TOKEN + "|" + FLOAT_TOKEN + "|" + INT_TOKEN + NUMBER_END
          + "|" + _TRUE + WORD_END + "|" + _FALSE + WORD_END + ")")

_WS = re.compile(BLANK + "*")


def _blank_end(text: str, pos: int) -> int:
    """Where the blanks that start at ``pos`` end (``pos`` itself when there are none)."""
    return _WS.match(text, pos).end()  # type: ignore[union-attr]  # "blank*" matches the empty string


#: A flat constraint `[type] name op value` or `type name any` (groups: type
#: word, name, operator, value); the printer (cbalgebra._docrender) reads the
#: same shape.
FLAT_CONSTRAINT = re.compile(
    _TYPE_WORD + _NAME + BLANK + "*(" + _SYMBOL_OPERATOR + "|" + _ANY + WORD_END + ")" + BLANK + "*" + _VALUE + "?"
)
_FAST_SEP = re.compile(BLANK + "*(,|;|&&)")
_FAST_OR = re.compile(BLANK + r"*\|\|")
#: Every type word (``long``) and operator spelling the scanner reads, to
#: the canonical spelling.
_FAST_TYPES = TYPE_WORDS
_FAST_OPS = SYMBOL_OPERATORS


# Words the grammar knows. A name spelled like one is left to Lark, which
# follows both readings (tests/test_parse_keywords.py checks this covers
# every keyword of the grammar).
RESERVED = KEYWORDS


def _flat_constraint(text: str, pos: int) -> tuple[Constraint, int]:
    m = FLAT_CONSTRAINT.match(text, pos)
    if m is None:
        raise Decline
    type_word, name, op_word, value_text = m.groups()
    if name in RESERVED:
        raise Decline
    type_ = _FAST_TYPES[type_word] if type_word else None
    if op_word == _ANY:
        if type_ is None or value_text is not None:
            raise Decline
        return Constraint(type_, name, ANY), m.end()
    if value_text is None:
        raise Decline
    lit_type, value = fast_value(value_text, type_)
    op = _FAST_OPS[op_word]
    if op not in OPERATORS_OF_TYPE[lit_type]:
        raise Decline
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
                    raise Decline
                return constraints, pos
            continue
        pos = _blank_end(text, pos)
        if bracket:
            if text.startswith("]", pos):
                return constraints, pos + 1
            raise Decline
        return constraints, pos


def fast_dnf(text: str) -> list[list[Constraint]] | None:
    """The flat DNF of ``text``, or None when the fast path is not sure."""
    try:
        pos = _blank_end(text, 0)
        terms = []
        while True:
            constraints, pos = _fast_conjunction(text, pos)
            terms.append(constraints)
            pos = _blank_end(text, pos)
            if pos == len(text):
                return terms
            m = _FAST_OR.match(text, pos)
            if m is None:
                return None
            pos = _blank_end(text, m.end())
    except (Decline, InvalidValueError):
        return None


#: A plain attribute `[type] name = value` (groups: type word, name, value).
FLAT_ATTRIBUTE = re.compile(_TYPE_WORD + _NAME + BLANK + "*=(?![*])" + BLANK + "*" + _VALUE)


def _flat_attribute(text: str, pos: int, attrs: dict[str, Attribute]) -> int:
    """Read one plain ``[type] name = value`` into ``attrs``; the end position."""
    m = FLAT_ATTRIBUTE.match(text, pos)
    if m is None:
        raise Decline
    type_word, name, value_text = m.groups()
    if name in RESERVED or name in attrs:
        raise Decline
    type_, value = fast_value(value_text, _FAST_TYPES[type_word] if type_word else None)
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
    except (Decline, InvalidValueError):
        return None


# ------------------------------------------------------------------ documents
# Big SFF driver files (hundreds of thousands of `ifconfig` filters) are the
# common case for documents. This reader takes one statement at a time, when
# all its parts are flat and plain; on anything else it returns None and the
# grammar reads that statement (cbalgebra.parse.iter_document).
#: The statements read as items of their own kind (DocumentItem.kind); the
#: other statement words are driver commands.
_KIND_OF_WORD = {SPELLING[t]: t.lower() for t in ("SUBSCRIBE", "ADVERTISE", "PUBLISH", "IFCONFIG", "SELECT")}
_INTERFACE = re.compile(BLANK + "+([0-9]{1,10})" + WORD_END)
_SEMI = re.compile(BLANK + "*;")
_DOC_SEP = re.compile(BLANK + "*(,|&&|;)")
_COMMANDS = {
    SPELLING["CONSOLIDATE"]: _SEMI,
    SPELLING["STATISTICS"]: _SEMI,
    SPELLING["CLEAR"]: _SEMI,
    SPELLING["HELP"]: _SEMI,
    SPELLING["TIMER"]: re.compile(BLANK + "+(" + SPELLING["START"] + "|" + SPELLING["STOP"] + ")" + BLANK + "*;"),
    SPELLING["OUTPUT"]: re.compile(BLANK + "+(" + SPELLING["ON"] + "|" + SPELLING["OFF"] + ")" + BLANK + "*;"),
    SPELLING["SET"]: re.compile(BLANK + "+(" + NAME_SCANNED + ")" + BLANK + "*=" + BLANK + "*"
                                r"([+-]?[0-9]{1,18})" + WORD_END + BLANK + "*;"),
}
# After a word that may open a statement: an operator or a word operator
# means the word may instead be an attribute name, which only the grammar
# can settle.
_NAME_CONTINUES = re.compile(BLANK + "*(?:[" + "".join(sorted({re.escape(s[0]) for s in SYMBOL_OPERATORS}))
                             + "]|(?:" + alternation([_ANY, *WORD_OPERATORS]) + ")" + WORD_END + ")")


_ORIGIN = re.compile(_FROM + BLANK + "+(?:(" + NAME_SCANNED + "|[0-9]+)" + WORD_END + r'|"([^"\\\n]*)")')


def _statement_follows(text: str, pos: int) -> bool:
    """Whether a statement certainly starts at ``pos`` (or the text ends)."""
    if pos == len(text):
        return True
    m = STATEMENT.match(text, pos)
    return m is not None and _NAME_CONTINUES.match(text, m.end()) is None


def _origin(text: str, pos: int) -> tuple[str | None, int]:
    """An optional `from NAME` clause at ``pos``."""
    if not text.startswith(_FROM, pos):
        return None, pos
    m = _ORIGIN.match(text, pos)
    if m is None or (m.group(1) is not None and m.group(1) in RESERVED):
        raise Decline
    origin = m.group(1) if m.group(1) is not None else m.group(2)
    return origin, skip(text, m.end())


def _origin_follows(text: str, pos: int) -> bool:
    return text.startswith(_FROM, pos) and _ORIGIN.match(text, pos) is not None


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
        if _statement_follows(text, after) or text.startswith(_FROM, after):
            return terms, after
        raise Decline


#: What follows a constraint in an `ifconfig` body, with the blanks around it
#: (cbalgebra._docrender reads constraint by constraint with it).
SEPARATOR_AFTER = re.compile(BLANK + r"*(\|\||\||,|&&|;)" + BLANK + "*")


# ------------------------------------------------------- SFF driver statements
# An `ifconfig` body of a 250,000-filter driver file has 1.25 million
# constraints, and about half of them repeat one seen before (Zipf names, few
# values). So a body is cut into constraint texts by one C-level ``findall``,
# each text is looked up in a per-document memo of built Constraints, and
# only a text not seen before is decoded, checked and built. The pieces below
# lex as grammar/siena.lark does (the same NAME, STRING, FLOAT and INT
# patterns, unrolled so that the regex engine runs a character class rather
# than an alternation per character); what they cannot settle they leave to
# the grammar. tests/test_parse_sff.py compares the two paths on generated
# driver documents, valid and malformed.
# The pieces are the lexicon's: its unrolled NAME_WORD and STRING_SCANNED,
# and GAP, what the grammar ignores between two tokens (a comment in an
# `ifconfig` of 1,000 filters would otherwise send all of them to the grammar).
_TYPE_WORDS = alternation(TYPE_WORDS)
# A number as far as the grammar's lexer could read one and further: the
# decoder then requires one FLOAT or INT token to span it exactly.
_LOOSE_NUMBER = r"[+-]?[0-9.][0-9A-Za-z_.+\-]*+"
_SFF_VALUE = "(?:" + STRING_SCANNED + "|" + _LOOSE_NUMBER + "|(?:" + _TRUE + "|" + _FALSE + ")" + NAME_END + ")"
_SYMBOL_OPS = "(?>" + _SYMBOL_OPERATOR + ")"  # longest spelling, as the lexer reads it
# A constraint: `[type] name op value`, `name any TYPE`, `name any any`,
# `type name any`, `any name any`; the name plain or quoted.
_SFF_CONSTRAINT_PARTS = re.compile(
    "(?:(" + _TYPE_WORDS + "|" + _ANY + ")" + GAP + "++)?(" + NAME_WORD + "|" + STRING_SCANNED + ")" + GAP
    + "*+(?:(" + _SYMBOL_OPS + ")" + GAP + "*+(" + _SFF_VALUE + ")|" + _ANY + "(?:" + GAP + "++(" + _TYPE_WORDS
    + "|" + _ANY + "))?" + NAME_END + ")")
_SFF_CONSTRAINT_TEXT = "(?>" + re.sub(r"\((?!\?)", "(?:", _SFF_CONSTRAINT_PARTS.pattern) + ")"
# One body item: (constraint text, first character of the separator after it)
# or, as the third group, one character that starts no item. Items are
# atomic, so findall reads them back to back exactly as a match per item
# would, and a gap shows as that third group.
_SFF_ITEMS = re.compile("(" + _SFF_CONSTRAINT_TEXT + ")" + GAP + "*+(?=([,|;&]))(?:,|&&|\\|\\|?|;)" + GAP
                        + "*+|([\\s\\S])")
_SFF_ATTRIBUTE_PARTS = re.compile(
    "(?:(" + _TYPE_WORDS + ")" + GAP + "++)?(" + NAME_WORD + "|" + STRING_SCANNED + ")" + GAP + "*+="
    + GAP + "*+(" + _SFF_VALUE + ")")
# One `select` item: (attribute text, ',' or ''), or ';' as the third group,
# or a character that starts no item as the fourth.
_SFF_ATTRIBUTES = re.compile("((?>" + re.sub(r"\((?!\?)", "(?:", _SFF_ATTRIBUTE_PARTS.pattern) + "))" + GAP
                             + "*+(,?)" + GAP + "*+|(;)|([\\s\\S])")
# The grammar's FLOAT (group 1) or INT terminal, spanning the whole text. Its
# lexer tries FLOAT first; FLOAT never matches a proper prefix of an INT.
_NUMBER_TOKEN = re.compile("(" + FLOAT_TOKEN + ")|" + INT_TOKEN)
_SFF_TYPE_OF_WORD = {**_FAST_TYPES, _ANY: ANYTYPE}
_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)
_THIRD = operator.itemgetter(2)
_FOURTH = operator.itemgetter(3)
#: A document memo is cleared past this many entries, so that a stream of
#: distinct constraints cannot grow it without bound.
_MEMO_LIMIT = 1 << 20


def _sff_value(text: str, type_: str | None) -> tuple[str, Any]:
    """A value as the grammar lexes and decodes it, or Decline."""
    if text[0] == '"' or text in _BOOLEANS:
        return fast_value(text, type_)
    m = _NUMBER_TOKEN.fullmatch(text)
    if m is None:
        raise Decline  # not one FLOAT or INT token: the grammar reports it
    if m.lastindex is None:
        if (type_ is None or type_ == INT) and len(text) <= 18 and "x" not in text and "X" not in text:
            return INT, int(text)  # at most 18 characters: inside the 64-bit range
        kind = "INT"
    else:
        if (type_ is None or type_ == FLOAT) and PLAIN_FLOAT.fullmatch(text):
            return FLOAT, float(text) + 0.0  # + 0.0 turns -0.0 into 0.0
        kind = "FLOAT"
    try:
        return literal(Token(kind, text), type_)
    except LocatedError:
        raise Decline from None


def _sff_name(text: str, before_operator: bool = False) -> str:
    """The name of a plain or quoted name token. A keyword is a name only
    ``before_operator`` symbol (see _memo_name); elsewhere the grammar
    settles it, following both readings."""
    if text[0] == '"':
        try:
            name = unquote(Token("STRING", text))
        except LocatedError:
            raise Decline from None
        if not name:
            raise Decline
        return name
    if text in RESERVED and not before_operator:
        raise Decline
    return text


# Values built here skip the checks of their public constructors where this
# scanner has already made them: a Constraint whose type, operator and value
# came from the grammar's own tables and literal decoding (literal(),
# fast_value), and ASCII text (never a surrogate); a Filter or Predicate of
# such Constraints, put in canonical order with the same keys values.py sorts
# on. Each is the object its public constructor builds, field for field
# (tests/test_parse_sff.py checks equality, hash and order against them);
# anything else goes through the public constructor.
_new = object.__new__
# The slots of the values, written directly (a frozen dataclass refuses
# setattr; its own __init__ goes through object.__setattr__, which costs more).
_SET_TYPE, _SET_NAME, _SET_OP, _SET_VALUE, _SET_KEY, _SET_HASH = (
    Constraint.__dict__[f].__set__ for f in ("type", "name", "op", "value", "_key", "_hash"))
_SET_CONSTRAINTS, _SET_FILTER_HASH, _SET_FILTER_CACHE = (
    Filter.__dict__[f].__set__ for f in ("constraints", "_hash", "_cache"))
_SET_FILTERS, _SET_PREDICATE_HASH, _SET_PREDICATE_CACHE = (
    Predicate.__dict__[f].__set__ for f in ("filters", "_hash", "_cache"))


def _checked_constraint(type_: str, name: str, op: str, value: Any) -> tuple[tuple, Constraint]:
    """(sort key, Constraint) for parts the scanner decoded and checked."""
    if not (name.isascii() and (type(value) is not str or value.isascii())):
        c = Constraint(type_, name, op, value)  # a surrogate is possible: full checks
        return c.sort_key, c
    key = (name, TYPE_CODE[type_], OP_CODE[op], () if value is None else value)
    return key, _assembled_constraint(type_, name, op, value, key)


def _assembled_constraint(type_: str, name: str, op: str, value: Any, key: tuple) -> Constraint:
    """A Constraint put together from checked parts and its sort key
    ``key``, without the constructor's checks (ASCII parts only: a surrogate
    needs them)."""
    c = _new(Constraint)
    _SET_TYPE(c, type_)
    _SET_NAME(c, name)
    _SET_OP(c, op)
    _SET_VALUE(c, value)
    _SET_KEY(c, key)
    _SET_HASH(c, hash(key))
    return c


def _keyed_predicate(keyed: list[tuple[tuple, Filter]]) -> Predicate:
    """The Predicate of (sort key, Filter) pairs, as Predicate() makes it."""
    by_key = dict(keyed)
    filters = tuple(map(by_key.__getitem__, sorted(by_key)))
    p = _new(Predicate)
    _SET_FILTERS(p, filters)
    _SET_PREDICATE_HASH(p, hash(("P", filters)))
    _SET_PREDICATE_CACHE(p, {})
    return p


class _Memo(dict):
    """Text -> what ``build`` makes of it, built on first use: a lookup that
    hits stays in C (``map(memo.__getitem__, texts)``)."""

    def __init__(self, build: Callable[[str], Any]) -> None:
        super().__init__()
        self.build = build

    def __missing__(self, text: str) -> Any:
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        value = self[text] = self.build(text)
        return value


_NAME_TOKEN = re.compile(NAME_WORD + "|" + STRING_SCANNED)
_VALUE_TOKEN = re.compile(_SFF_VALUE)
_OPERAND_TOKENS = re.compile("(" + _SYMBOL_OPS + ") (" + _SFF_VALUE + ")")
_TYPED_OPERAND_TOKENS = re.compile("(" + _TYPE_WORDS + ") (" + _SYMBOL_OPS + ") (" + _SFF_VALUE + ")")


def _memo_name(text: str) -> str | None:
    """The name a plain or quoted name token stands for; None if ``text``
    is not one such token, or the grammar must settle it.

    Only for the name of `[type] name op value` (`[type] name = value` in
    a select) with a symbol operator, where a keyword is a name too: where
    a constraint or attribute may start, or after its type, no keyword can
    be followed by an operator symbol (a type or `any` needs a name next,
    `false` ends an `ifconfig` only before its ';', a statement word cannot
    start a statement before the ';', and 'and'/'or' cannot follow a
    separator), so the grammar reads the word as a name alone."""
    if _NAME_TOKEN.fullmatch(text) is None:
        return None
    if text[0] != '"':
        return text
    try:
        return _sff_name(text)
    except Decline:
        return None


def _memo_value(text: str) -> tuple[str, Any] | None:
    """(type, value) of an untyped value token; None if ``text`` is not
    one, or the grammar must settle it."""
    if _VALUE_TOKEN.fullmatch(text) is None:
        return None
    try:
        return _sff_value(text, None)
    except Decline:
        return None


def _memo_operand(values: _Memo, text: str) -> tuple | None:
    """For `op value` with one space: (type, operator, value, and the last
    three parts of the constraint's sort key), when the value is untyped,
    plain ASCII, and takes the operator; else None."""
    m = _OPERAND_TOKENS.fullmatch(text)
    if m is None:
        return None
    decoded = values[m.group(2)]
    if decoded is None or (type(decoded[1]) is str and not decoded[1].isascii()):
        return None
    type_, value = decoded
    op = _FAST_OPS[m.group(1)]
    if op not in OPERATORS_OF_TYPE[type_]:
        return None
    return type_, op, value, TYPE_CODE[type_], OP_CODE[op], value


def _memo_typed_operand(text: str) -> tuple | None:
    """As _memo_operand, for `type op value` (the value read as that type)."""
    m = _TYPED_OPERAND_TOKENS.fullmatch(text)
    if m is None:
        return None
    try:
        type_, value = _sff_value(m.group(3), _FAST_TYPES[m.group(1)])
    except (Decline, InvalidValueError):
        return None
    if type(value) is str and not value.isascii():
        return None
    op = _FAST_OPS[m.group(2)]
    if op not in OPERATORS_OF_TYPE[type_]:
        return None
    return type_, op, value, TYPE_CODE[type_], OP_CODE[op], value


def _memo_constraint(names: _Memo, operands: _Memo, typed_operands: _Memo, text: str) -> tuple[tuple, Constraint]:
    """(sort key, Constraint) of one constraint text of _SFF_ITEMS."""
    name_text, space, operand_text = text.partition(" ")
    if space:
        # `name op value` or `type name op value`, one space each: the text
        # matched the constraint pattern, so these are its type, name,
        # operator and value exactly when each is one whole token of its
        # kind (a type word followed by a name is always read as a type).
        if name_text in _FAST_TYPES:
            name_text, _, rest = operand_text.partition(" ")
            operand = typed_operands[text[:text.index(" ") + 1] + rest]
        else:
            operand = operands[operand_text]
        name = names[name_text] if operand is not None else None
        if name is not None and name.isascii():
            type_, op, value, type_code, op_code, value_key = operand
            key = (name, type_code, op_code, value_key)
            return key, _assembled_constraint(type_, name, op, value, key)
    m = _SFF_CONSTRAINT_PARTS.fullmatch(text)
    assert m is not None, "a constraint text of _SFF_ITEMS is a _SFF_CONSTRAINT_PARTS"
    type_word, name_text, op_word, value_text, any_type = m.groups()
    name = _sff_name(name_text, before_operator=op_word is not None)
    if op_word is not None:
        if type_word == _ANY:
            raise Decline
        lit_type, value = _sff_value(value_text, _FAST_TYPES[type_word] if type_word else None)
        op = _FAST_OPS[op_word]
        if op not in OPERATORS_OF_TYPE[lit_type]:
            raise Decline
        return _checked_constraint(lit_type, name, op, value)
    if (type_word is None) == (any_type is None):
        raise Decline  # `name any` has no type; `int name any int` two
    return _checked_constraint(_SFF_TYPE_OF_WORD[type_word or any_type], name, ANY, None)


def _memo_untyped(values: _Memo, text: str) -> Attribute | None:
    """The Attribute of an untyped value token; None as for _memo_value."""
    decoded = values[text]
    return None if decoded is None else _checked_attribute(*decoded)


def _memo_attribute(names: _Memo, untyped: _Memo, text: str) -> tuple[str, Attribute]:
    """(name, Attribute) of one attribute text of _SFF_ATTRIBUTES."""
    parts = text.split(" ")
    if len(parts) == 3 and parts[1] == "=":
        # `name = value`, single-spaced: its name and value exactly when each
        # is one whole token of its kind (as for constraints)
        name = names[parts[0]]
        attribute = untyped[parts[2]] if name is not None else None
        if attribute is not None:
            return name, attribute
    m = _SFF_ATTRIBUTE_PARTS.fullmatch(text)
    assert m is not None, "an attribute text of _SFF_ATTRIBUTES is a _SFF_ATTRIBUTE_PARTS"
    type_word, name_text, value_text = m.groups()
    type_, value = _sff_value(value_text, _FAST_TYPES[type_word] if type_word else None)
    return _sff_name(name_text, before_operator=True), _checked_attribute(type_, value)


class DocumentMemo:
    """Built values by the text that spelled them, for one document: the
    (sort key, Constraint) pairs of `ifconfig` bodies and the (name,
    Attribute) pairs of `select` bodies. Values are immutable, so items
    share them.

    A constraint text not seen before is mostly `name op value` with single
    spaces, whose name and value were seen before in other constraints:
    those pieces have memos of their own, so that only the Constraint is
    new. No memo refers back to another or to this object: without a
    reference cycle, the memos are freed as soon as the document is read,
    not at the next run of the cyclic collector.
    """

    __slots__ = ("attributes", "constraints", "names", "operands", "typed_operands", "untyped", "values")

    def __init__(self) -> None:
        self.names = _Memo(_memo_name)
        self.values = _Memo(_memo_value)
        self.operands = _Memo(functools.partial(_memo_operand, self.values))
        self.typed_operands = _Memo(_memo_typed_operand)
        self.constraints = _Memo(functools.partial(_memo_constraint, self.names, self.operands,
                                                   self.typed_operands))
        self.untyped = _Memo(functools.partial(_memo_untyped, self.values))
        self.attributes = _Memo(functools.partial(_memo_attribute, self.names, self.untyped))


_SET_ATTRIBUTE_TYPE, _SET_ATTRIBUTE_VALUE = (Attribute.__dict__[f].__set__ for f in ("type", "value"))
_SET_ATTRIBUTES, _SET_INDEX, _SET_MESSAGE_HASH, _SET_MESSAGE_WIRE = (
    Message.__dict__[f].__set__ for f in ("attributes", "_index", "_hash", "wire"))


def _checked_attribute(type_: str, value: Any) -> Attribute:
    """An Attribute of a value the scanner decoded and checked."""
    if type(value) is str and not value.isascii():
        return Attribute(type_, value)  # a surrogate is possible: full checks
    a = _new(Attribute)
    _SET_ATTRIBUTE_TYPE(a, type_)
    _SET_ATTRIBUTE_VALUE(a, value)
    return a


def _checked_message(index: dict[str, Attribute]) -> Message:
    """The Message of distinct names the scanner read, as Message() makes it."""
    if not all(map(str.isascii, index)):
        return Message(index)  # a surrogate is possible: full checks
    attributes = tuple(sorted(index.items()))
    m = _new(Message)
    _SET_ATTRIBUTES(m, attributes)
    _SET_INDEX(m, index)
    _SET_MESSAGE_HASH(m, None)
    _SET_MESSAGE_WIRE(m, message_wire(attributes))
    return m


def _statement_end(text: str, pos: int) -> int:
    """The offset after the first ';' from ``pos`` (a ';' inside a string
    or a comment shows later as a gap in the items, and the statement goes
    to the grammar)."""
    end = text.find(";", pos)
    if end < 0:
        raise Decline  # unterminated: the grammar says where
    return end + 1


def _sff_ifconfig(text: str, pos: int, memo: DocumentMemo) -> tuple[Predicate, int]:
    """An `ifconfig` body from ``pos`` up to and including its ';'."""
    end = _statement_end(text, pos)
    items = _SFF_ITEMS.findall(text, skip(text, pos), end)
    if not items or any(map(_THIRD, items)):
        raise Decline
    pairs = list(map(memo.constraints.__getitem__, map(_FIRST, items)))
    # One character per constraint for what follows it: ',' or '&' within a
    # filter, '|' or ';' after its last constraint.
    if items[-1][1] != ";":
        # The ';' found ends a comment (`a = 1 | // b = 2;`): the body goes
        # on past it, or ends in a separator; the grammar reads or reports it.
        raise Decline
    follows = "".join(map(_SECOND, items)).replace("&", ",").split("|")
    follows[-1] = follows[-1][:-1]  # the last filter ends at ';' rather than '|'
    return _predicate_of_runs(pairs, follows), end


def _predicate_of_runs(pairs: list[tuple[tuple, Constraint]], runs: list[str]) -> Predicate:
    """The Predicate whose filters take ``pairs`` (sort key, Constraint) in
    turn, ``len(run) + 1`` each, as Filter() and Predicate() make them."""
    filters = []
    start = 0
    for run in runs:
        # A Filter as Filter() makes it, with its sort key: duplicates
        # dropped, constraints in canonical order (inline: once per filter).
        stop = start + len(run) + 1
        by_key = dict(pairs[start:stop])
        keys = sorted(by_key)
        constraints = tuple(map(by_key.__getitem__, keys))
        f = _new(Filter)
        _SET_CONSTRAINTS(f, constraints)
        _SET_FILTER_HASH(f, hash(("F", constraints)))
        _SET_FILTER_CACHE(f, {})
        filters.append((tuple(keys), f))
        start = stop
    return _keyed_predicate(filters)


def _sff_select(text: str, pos: int, memo: DocumentMemo) -> tuple[Message, int]:
    """A `select` body from ``pos`` up to and including its ';':
    attributes, optionally comma-separated."""
    end = _statement_end(text, pos)
    items = _SFF_ATTRIBUTES.findall(text, skip(text, pos), end)
    last = items[-1] if items else None
    if last is None or last[2] != ";" or any(map(_FOURTH, items)):
        raise Decline
    if len(items) > 1 and items[-2][1]:
        raise Decline  # a comma before ';'
    del items[-1]
    attributes = dict(map(memo.attributes.__getitem__, map(_FIRST, items)))
    if len(attributes) != len(items):
        raise Decline  # a duplicate name: the grammar locates it
    return _checked_message(attributes), end


def fast_statement(text: str, pos: int, memo: DocumentMemo | None = None,
                   ) -> tuple[str, Any, int | None, str | None, int] | None:
    """The statement at ``pos`` (just after blanks and comments) as
    (kind, value, interface, origin, end), where ``end`` is past the blanks
    and comments that follow; or None when unsure. Values are raw, a list of
    conjunctions, for 'subscribe' and 'advertise'; an 'ifconfig' value is
    its Predicate. ``memo`` holds the values built for earlier statements
    of the same document."""
    try:
        m = STATEMENT.match(text, pos)
        if m is None:
            return None
        word, pos = m.group(1), m.end()
        kind = _KIND_OF_WORD.get(word, "command")
        origin = None
        interface = None
        value: Any  # conjunctions, a message, or a command's arguments, by ``kind``
        if kind in ("subscribe", "advertise"):
            if text.startswith(_FALSE, _blank_end(text, pos)):
                return None
            value, pos = _our_predicate(text, pos)
            origin, pos = _origin(text, pos)
            if not _statement_follows(text, pos):
                return None
        elif kind == "publish":
            return None  # messages in our own documents are rare; the grammar reads them
        elif kind == "ifconfig":
            number = _INTERFACE.match(text, pos)
            if number is None:
                return None
            interface = int(number.group(1))
            if interface > 2**32 - 1:
                return None
            value, pos = _sff_ifconfig(text, number.end(), memo or DocumentMemo())
        elif kind == "select":
            value, pos = _sff_select(text, pos, memo or DocumentMemo())
        else:
            cm = _COMMANDS[word].match(text, pos)
            if cm is None:
                return None
            args = tuple(int(g) if g.lstrip("+-").isdigit() else g for g in cm.groups())
            if word == SPELLING["SET"] and args[0] in RESERVED:
                return None
            value, pos = (word, *args), cm.end()
        end = skip(text, pos)
        if end < len(text) and STATEMENT.match(text, end) is None:
            return None  # let the grammar report what follows
        return kind, value, interface, origin, end
    except (Decline, InvalidValueError):
        return None
