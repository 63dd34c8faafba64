"""Text to values: the Lark grammar in ``cbalgebra.grammar`` under LALR, with a
transformer that builds typed values in the same pass.

The grammar is driven by :mod:`cbalgebra._lalr` so that a word spelled like a
keyword can also be an attribute name (both readings go on until one fails;
the keyword reading wins if both succeed: ``int any any``); its tokens are
those of :mod:`cbalgebra.lexicon`, shared with every other reader. Documents
are read statement by statement (:func:`iter_document`), by the fast scanner
of ``cbalgebra._fastparse`` where a statement is flat and plain (which takes
the `ifconfig` and `select` statements of SFF driver files), else by the
grammar, which hands back to the scanner as soon as a statement is settled.
The grammar alone is ``_run(text, "document")``, the oracle of the tests.

Every malformed input raises :class:`ParseError` (a ``ValueError``) carrying
the line, the column, a caret context and a one-line reason.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from lark import Token, Transformer, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from cbalgebra._fastparse import DocumentMemo, fast_dnf, fast_message, fast_statement
from cbalgebra._lalr import Grammar, drive, drive_statements
from cbalgebra.errors import CbalgebraError
from cbalgebra.lexicon import OPERATOR_OF_TERMINAL, TYPE_OF_TERMINAL, describe_terminal, skip
from cbalgebra.literals import (
    INTERFACE_MAX,
    LITERAL_TYPE,
    MAX_DNF_TERMS,
    LocatedError,
    interface_literal,
    literal,
    unquote,
)
from cbalgebra.values import ANY, ANYTYPE, OPERATOR_NAMES, OPERATORS_OF_TYPE, InvalidValueError
from cbalgebra.values import Advertisement, Attribute, Constraint, Filter, Message, Predicate
from cbalgebra.values import format_name, format_value, infer_type

__all__ = [
    "INTERFACE_MAX",
    "MAX_DNF_TERMS",
    "DocumentItem",
    "ParseError",
    "iter_document",
    "parse_advertisement",
    "parse_any",
    "parse_constraint",
    "parse_document",
    "parse_filter",
    "parse_message",
    "parse_predicate",
    "scan_document",
]


class ParseError(CbalgebraError, ValueError):
    """Malformed input, located: ``line`` and ``column`` are 1-based."""

    def __init__(self, reason: str, line: int, column: int, context: str) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        self.context = context
        super().__init__(f"line {line}, column {column}: {reason}\n{context}")


@dataclass(frozen=True, slots=True)
class DocumentItem:
    """One statement of a document.

    ``kind`` is 'subscribe', 'advertise', 'publish', 'ifconfig', 'select' or
    'command' (an SFF driver command such as ``set preprocessing_limit = 10``,
    whose ``value`` is the tuple of its words). ``origin`` is the subscriber
    or publisher a ``from NAME`` clause names.

    ``line`` (1-based, 0 when unknown) says where the statement starts. It is
    provenance, not meaning: equality and hashing ignore it, so a document
    parsed back from its printed form equals the original item for item.

    ``str(item)`` is one statement in the grammar's syntax, which
    :func:`parse_document` reads back to an equal item.
    """

    kind: str
    value: Any
    interface: int | None = None
    line: int = field(default=0, compare=False)
    origin: str | None = None

    def __str__(self) -> str:
        if self.kind == "ifconfig":
            return f"ifconfig {self.interface} {_sff_predicate_text(self.value)};"
        if self.kind == "select":
            return "select " + "".join(
                f"{a.type} {format_name(n)} = {format_value(a.type, a.value)}, " for n, a in self.value.items()
            ).removesuffix(", ") + ";"
        if self.kind == "command":
            if self.value[0] == "set":
                _, name, setting = self.value
                return f"set {format_name(name)} = {format_value(infer_type(setting), setting)};"
            return " ".join(str(w) for w in self.value) + ";"
        text = f"{self.kind} {self.value}"
        return text if self.origin is None else f"{text} from {format_name(self.origin)}"


def _sff_predicate_text(p: Predicate) -> str:
    """A predicate in SFF's ``ifconfig`` syntax: constraints joined by ',',
    filters by '|'; ``[]`` for the empty filter and ``false`` for none."""
    if not p.filters:
        return "false"
    return " | ".join(", ".join(str(c) for c in f) or "[]" for f in p)


def _name(tree_or_token: Any) -> tuple[str, Token]:
    token = tree_or_token
    if token.type == "STRING":
        name = unquote(token)
        if not name:
            raise LocatedError("attribute name is empty", token)
        return name, token
    return token.value, token


class _Dnf:
    """A disjunction of conjunctions under construction.

    ``expanded`` counts the conjunctions that distributing an 'and' over
    nested disjunctions made (a product of two or more factors of several
    terms each): the only way a predicate grows faster than its text, so the
    only one :data:`MAX_DNF_TERMS` limits. Alternatives written side by side,
    at any depth, are not counted: they cost what their text does."""

    __slots__ = ("expanded", "or_token", "terms")

    def __init__(self, terms: list[tuple[Constraint, ...]], or_token: Token | None = None,
                 expanded: int = 0) -> None:
        self.terms = terms
        self.or_token = or_token
        self.expanded = expanded


def _expansion_error(token: Token | None) -> LocatedError:
    return LocatedError(f"expression expands to more than {MAX_DNF_TERMS} conjunctions in disjunctive normal "
                        "form (nested 'or' inside 'and'; alternatives written out are not limited)", token)


def _as_dnf(item: Any) -> _Dnf:
    if isinstance(item, Constraint):
        return _Dnf([(item,)])
    return item


@v_args(inline=True)
class _Builder(Transformer):
    """Builds values while the LALR parser reduces: one pass, no tree."""

    # -- constraints -------------------------------------------------------
    def type(self, token: Token) -> tuple[str, Token]:
        return TYPE_OF_TERMINAL[token.type], token

    sff_type = type

    def name(self, token: Token) -> tuple[str, Token]:
        return _name(token)

    def op(self, token: Token) -> tuple[str, Token]:
        return OPERATOR_OF_TERMINAL[token.type], token

    @staticmethod
    def _constraint(type_: str, name: tuple[str, Token], op: tuple[str, Token], value: Any) -> Constraint:
        op_symbol, op_token = op
        if op_symbol not in OPERATORS_OF_TYPE[type_]:
            raise LocatedError(f"operator {OPERATOR_NAMES[op_symbol]} does not apply to {type_}", op_token)
        try:
            return Constraint(type_, name[0], op_symbol, value)
        except InvalidValueError as e:  # pragma: no cover - literal checks come first
            raise LocatedError(str(e), name[1]) from None

    def typed_constraint(self, type_, name, op, value_token):
        t = type_[0]
        _, value = literal(value_token, t)
        return self._constraint(t, name, op, value)

    def untyped_constraint(self, name, op, value_token):
        t, value = literal(value_token, None)
        return self._constraint(t, name, op, value)

    def typed_any(self, type_, name, _any):
        return Constraint(type_[0], name[0], ANY)

    def anytype_any(self, _any, name, _any2):
        return Constraint(ANYTYPE, name[0], ANY)

    def sff_any(self, name, _any, type_):
        return Constraint(type_[0], name[0], ANY)

    def sff_anytype_any(self, name, _any, _any2):
        return Constraint(ANYTYPE, name[0], ANY)

    def untyped_any(self, name, any_token):
        raise LocatedError("'any' needs a type", any_token)

    # -- boolean structure ---------------------------------------------------
    def conj(self, *atoms):
        if all(isinstance(a, Constraint) for a in atoms):
            return _Dnf([atoms])
        factors = [_as_dnf(a) for a in atoms]
        or_token = next((f.or_token for f in factors if f.or_token is not None), None)
        several = [f for f in factors if len(f.terms) > 1]
        if len(several) > 1:
            # a product of disjunctions: its size is the product of theirs
            size = 1
            for f in several:
                size *= len(f.terms)
                if size > MAX_DNF_TERMS:
                    raise _expansion_error(or_token)
            expanded = size
        else:  # one factor of several terms at most: as many terms as it has
            expanded = sum(f.expanded for f in factors)
        terms: list[tuple[Constraint, ...]] = [()]
        for f in factors:
            terms = [t + u for t in terms for u in f.terms]
        return _Dnf(terms, or_token, expanded)

    def or_op(self, token):
        return token

    def disj(self, *children):
        if len(children) == 1:
            return children[0]
        conjs = children[0::2]
        terms = list(itertools.chain.from_iterable(c.terms for c in conjs))
        expanded = sum(c.expanded for c in conjs)
        if expanded > MAX_DNF_TERMS:
            raise _expansion_error(children[1])
        return _Dnf(terms, children[1], expanded)

    def group(self, inner=None):
        if inner is None:
            return _Dnf([()])
        return inner

    def predicate_text(self, dnf):
        return dnf

    def false_predicate(self, _token):
        return _Dnf([])

    # -- messages ------------------------------------------------------------
    def attribute(self, *children):
        if len(children) == 4:
            (type_, _), name, _eq, value_token = children
            t, value = literal(value_token, type_)
        else:
            name, _eq, value_token = children
            t, value = literal(value_token, None)
        return name, Attribute(t, value)

    def attributes(self, *attrs):
        return list(attrs)

    def message_body(self, attrs=None):
        return _message(attrs or [])

    def message_text(self, message):
        return message

    # -- documents -----------------------------------------------------------
    def origin(self, _from, token):
        if token.type == "STRING":
            return unquote(token)
        return token.value

    def subscribe(self, keyword, dnf, origin=None):
        return DocumentItem("subscribe", _predicate(dnf), line=keyword.line, origin=origin)

    def subscribe_false(self, keyword, _false, origin=None):
        return DocumentItem("subscribe", Predicate(), line=keyword.line, origin=origin)

    def advertise(self, keyword, dnf, origin=None):
        return DocumentItem("advertise", _advertisement(dnf), line=keyword.line, origin=origin)

    def publish(self, keyword, message, origin=None):
        return DocumentItem("publish", message, line=keyword.line, origin=origin)

    def ifconfig(self, keyword, number, dnf):
        return DocumentItem("ifconfig", _predicate(dnf), interface=interface_literal(number), line=keyword.line)

    def ifconfig_false(self, keyword, number, _false):
        return DocumentItem("ifconfig", Predicate(), interface=interface_literal(number), line=keyword.line)

    def select(self, keyword, attrs=None):
        return DocumentItem("select", _message(attrs or []), line=keyword.line)

    def statement(self, item):
        return item

    def command(self, first, *rest):
        words: list[Any] = [first.value]
        for tok in rest:
            if isinstance(tok, tuple):  # a name
                words.append(tok[0])
            elif tok.type == "EQ":
                continue
            elif tok.type in LITERAL_TYPE:
                words.append(literal(tok, None)[1])
            else:
                words.append(tok.value)
        return DocumentItem("command", tuple(words), line=first.line)


def _message(attrs: list[tuple[tuple[str, Token], Attribute]]) -> Message:
    seen: dict[str, Attribute] = {}
    for (name, token), attr in attrs:
        if name in seen:
            raise LocatedError(f"duplicate attribute {name!r} in message", token)
        seen[name] = attr
    return Message(seen)


def _predicate(dnf: _Dnf) -> Predicate:
    return Predicate(Filter(term) for term in dnf.terms)


def _single_term(dnf: _Dnf, what: str) -> tuple[Constraint, ...]:
    if len(dnf.terms) != 1:
        if not dnf.terms:
            raise LocatedError(f"{what} cannot be 'false'", None)
        raise LocatedError(f"{what} cannot hold a disjunction ('||', 'or'); only a predicate can", dnf.or_token)
    return dnf.terms[0]


def _advertisement(dnf: _Dnf) -> Advertisement:
    return Advertisement(_single_term(dnf, "an advertisement"))


@functools.lru_cache(maxsize=1)
def _grammar() -> Grammar:
    return Grammar(_Builder())


def keyword_spellings() -> dict[str, str]:
    """Every keyword of the grammar, by terminal type (for tests and docs)."""
    return dict(_grammar().keywords)


_TYPE_TERMINALS = frozenset(TYPE_OF_TERMINAL)
_OPERATOR_TERMINALS = frozenset(OPERATOR_OF_TERMINAL) - {"EQ"}


def _describe_expected(expected: set[str]) -> str:
    words = []
    kinds = set(expected)
    if kinds & _TYPE_TERMINALS:
        words.append("a type")
    if kinds & _OPERATOR_TERMINALS:
        words.append("an operator")
    elif "EQ" in kinds:
        words.append("'='")
    if kinds & {"STRING", "INT", "FLOAT", "TRUE"} and "an operator" not in words and "NAME" not in kinds:
        words.append("a value")
    for k in ("NAME", "RSQB", "RBRACE", "RPAR", "_SEMI", "$END", "ANY"):
        if k in kinds:
            words.append(describe_terminal(k))
    if "SUBSCRIBE" in kinds:
        words.append("a statement")
    if not words:
        words = sorted(describe_terminal(k) for k in kinds)[:6]
    return ", ".join(dict.fromkeys(words))


def _describe_token(token: Token) -> str:
    if token.type == "$END":
        return "end of input"
    text = token.value if len(token.value) <= 20 else token.value[:17] + "..."
    return repr(text)


def _context(text: str, line: int, column: int) -> str:
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return ""
    src = lines[line - 1].replace("\t", " ")
    start = max(0, column - 1 - 60)
    snippet = src[start : start + 120]
    return snippet + "\n" + " " * (column - 1 - start) + "^"


def _end_position(text: str) -> tuple[int, int]:
    line = text.count("\n") + 1
    column = len(text) - (text.rfind("\n") + 1) + 1
    return line, column


def _from_lark(err: UnexpectedInput, text: str) -> ParseError:
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream if err.pos_in_stream is not None else len(text)
        ch = text[pos] if pos < len(text) else ""
        if ch == '"':
            reason = "unterminated string literal"
        elif ch == "\n":
            reason = "unexpected line break"
        else:
            reason = f"unexpected character {ch!r}"
        line, column = err.line, err.column
    elif isinstance(err, (UnexpectedToken, UnexpectedEOF)):
        token = getattr(err, "token", None)
        expected = getattr(err, "expected", None) or set()
        if token is None or token.type == "$END":
            line, column = _end_position(text)
            reason = "unexpected end of input"
        else:
            line, column = token.line, token.column
            reason = f"unexpected {_describe_token(token)}"
        if expected:
            reason += f"; expected {_describe_expected(set(expected))}"
    else:  # pragma: no cover - lark has no other kinds today
        line, column = getattr(err, "line", 1) or 1, getattr(err, "column", 1) or 1
        reason = str(err).splitlines()[0]
    return ParseError(reason, line, column, _context(text, line, column))


def _located(err: LocatedError, text: str) -> ParseError:
    token = err.token
    line, column = 1, 1
    if token is not None and token.line is not None and token.column is not None:
        line, column = token.line, token.column
    return ParseError(err.reason, line, column, _context(text, line, column))


def _run(text: str, start: str) -> Any:
    """The pure grammar path (no fast scanner): the oracle of the fast one."""
    if not isinstance(text, str):
        raise TypeError(f"parse expects text (str), not {type(text).__name__}")
    if start == "document":
        return _guarded(lambda: list(drive_statements(_grammar(), text)), text)
    if not text.strip():
        raise ParseError("empty input", 1, 1, _context(text, 1, 1))
    return _guarded(lambda: drive(_grammar(), text, start), text)


def _guarded(run: Callable[[], Any], text: str) -> Any:
    try:
        return run()
    except LocatedError as e:
        raise _located(e, text) from None
    except UnexpectedInput as e:
        raise _from_lark(e, text) from None
    except InvalidValueError as e:
        raise ParseError(str(e), 1, 1, _context(text, 1, 1)) from None
    except RecursionError:
        raise ParseError("input nests too deeply", 1, 1, _context(text, 1, 1)) from None


def _parse_dnf(text: str, *, single: bool = False) -> _Dnf:
    """The DNF of a predicate text: the fast scanner first, Lark when unsure.

    With ``single`` (a filter or an advertisement), a fast result with other
    than one conjunction goes back to Lark so the error can point at the '||'.
    """
    if isinstance(text, str):
        terms = fast_dnf(text)
        if terms is not None and (not single or len(terms) == 1):
            return _Dnf([tuple(t) for t in terms])
    return _run(text, "predicate_text")


def parse_predicate(text: str) -> Predicate:
    """Parse a disjunction of filters, e.g. ``[x > 1, s >* "a"] || [int y any]``."""
    return _predicate(_parse_dnf(text))


def parse_filter(text: str) -> Filter:
    """Parse one conjunction of constraints, e.g. ``[int price < 500, string dest = "ORD"]``."""
    dnf = _parse_dnf(text, single=True)
    try:
        return Filter(_single_term(dnf, "a filter"))
    except LocatedError as e:
        raise _located(e, text) from None


def parse_constraint(text: str) -> Constraint:
    """Parse a single constraint such as ``int price < 500``."""
    f = parse_filter(text)
    if len(f) != 1:
        raise ParseError(f"expected one constraint, found {len(f)}", 1, 1, _context(text, 1, 1))
    return f.constraints[0]


def parse_advertisement(text: str) -> Advertisement:
    """Parse an advertisement: constraints, several on one name meaning 'or'."""
    dnf = _parse_dnf(text, single=True)
    try:
        return _advertisement(dnf)
    except LocatedError as e:
        raise _located(e, text) from None


def parse_message(text: str) -> Message:
    """Parse a message, e.g. ``[string carrier = "UA", int price = 300]``."""
    if isinstance(text, str):
        message = fast_message(text)
        if message is not None:
            return message
    return _run(text, "message_text")


def parse_document(text: str) -> list[DocumentItem]:
    """Parse a document of ``subscribe``/``advertise``/``publish`` statements
    and SFF driver statements (``ifconfig``, ``select`` and driver commands).

    The cyclic garbage collector is paused while the document is read (see
    :func:`_collector_paused`)."""
    with _collector_paused():
        return list(iter_document(text))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector, if it runs, for the block.

    Parsing builds millions of values (a 250,000-filter driver file: 1.25
    million constraints) and none is in a reference cycle, so a collection
    frees nothing; but each full collection walks every value built so far:
    on that file, a quarter to a third of the parse time. (The first
    collection after the block walks the new values once.) Memory is still
    freed as usual, by reference counting; only cycles made meanwhile, by
    this thread or another, wait until the block ends."""
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def iter_document(source: Any) -> Iterator[DocumentItem]:
    """The statements of a document, one at a time, as they are parsed.

    ``source`` is text or a text file object (read whole: the text is small
    next to its parsed values); a leading byte-order mark is skipped. Each statement is read by the fast scanner
    when it is flat and plain, else by the grammar; line numbers count from
    the start of the document, and an error raises :class:`ParseError` when
    the loop reaches it, after the items before it were yielded.
    """
    if isinstance(source, str):
        text = source
    elif hasattr(source, "read"):
        text = source.read()
    else:
        raise TypeError(f"parse expects text (str) or a text file, not {type(source).__name__}")
    if not isinstance(text, str):
        raise TypeError(f"parse expects text (str), not {type(text).__name__}")
    yield from scan_document(text)


_BYTE_ORDER_MARK = "\ufeff"


def scan_document(
    text: str, render: Callable[[str, int, int], tuple[Any, int] | None] | None = None,
) -> Iterator[Any]:
    """The loop of :func:`iter_document`, and its extension point for other
    readers of the language (the matcher's bulk reader, the printer). With
    ``render(text, pos, line)``, a reader asked first at each statement, which returns (its output, the
    offset of the next statement) or None; its outputs are yielded among the
    DocumentItems of the statements it leaves (``cbalgebra._docrender``).

    A leading byte-order mark (U+FEFF, which Windows editors write at the
    start of a UTF-8 file) is not part of the document: lines and columns
    count from after it."""
    text = text.removeprefix(_BYTE_ORDER_MARK)
    pos = skip(text, 0)
    line, counted_to = 1, 0
    memo = DocumentMemo()
    while pos < len(text):
        line += text.count("\n", counted_to, pos)
        counted_to = pos
        if render is not None:
            rendered = render(text, pos, line)
            if rendered is not None:
                yield rendered[0]
                pos = rendered[1]
                continue
        # One `ifconfig` builds thousands of values: the collector is paused
        # for one statement at a time, so that a caller of iter_document
        # runs with the collector as it left it.
        collecting = gc.isenabled()  # inline: a context manager costs more than a select
        if collecting:
            gc.disable()
        try:
            statement = fast_statement(text, pos, memo)
        finally:
            if collecting:
                gc.enable()
        if statement is not None:
            item = _fast_item(statement, line)
            if item is not None:
                yield item
                pos = statement[4]
                continue
        line_start = text.rfind("\n", 0, pos) + 1
        resume = yield from _grammar_statements(text, pos, line, line_start)
        if resume is None:
            return
        pos = resume


def _grammar_statements(text: str, pos: int, line: int, line_start: int) -> Generator[Any, None, int | None]:
    """The grammar's reading from ``pos``, until it can hand back to the fast
    scanner; errors become located ParseErrors."""
    try:
        return (yield from drive_statements(_grammar(), text, pos, line, line_start, handback=True))
    except LocatedError as e:
        raise _located(e, text) from None
    except UnexpectedInput as e:
        raise _from_lark(e, text) from None
    except InvalidValueError as e:
        raise ParseError(str(e), line, 1, _context(text, line, 1)) from None
    except RecursionError:
        raise ParseError("input nests too deeply", line, 1, _context(text, line, 1)) from None


def _fast_item(statement: tuple, line: int) -> DocumentItem | None:
    kind, value, interface, origin, _end = statement
    if kind == "advertise":
        if len(value) != 1:
            return None  # the grammar reports the error
        value = Advertisement(value[0])
    elif kind == "subscribe":
        value = Predicate(Filter(term) for term in value)
    return DocumentItem(kind, value, interface=interface, line=line, origin=origin)


def parse_any(text: str, kind: str) -> Any:
    """Parse ``text`` as ``kind``: filter, predicate, advertisement, message or document."""
    parsers = {
        "filter": parse_filter,
        "predicate": parse_predicate,
        "advertisement": parse_advertisement,
        "message": parse_message,
        "document": parse_document,
        "constraint": parse_constraint,
    }
    if kind not in parsers:
        raise ValueError(f"unknown kind {kind!r}; choose one of {', '.join(parsers)}")
    return parsers[kind](text)

