"""Text to values: the Lark grammar in ``cbalgebra.grammar`` under LALR, with a
transformer that builds typed values in the same pass.

Every malformed input raises :class:`ParseError` (a ``ValueError``) carrying
the line, the column, a caret context and a one-line reason.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from cbalgebra._fastparse import fast_dnf, fast_document, fast_message
from cbalgebra._literals import (
    LITERAL_TYPE,
    OP_OF_TOKEN,
    TYPE_OF_TOKEN,
    LocatedError,
    literal,
    unquote,
)
from cbalgebra.values import (
    ANY,
    ANYTYPE,
    OPERATOR_NAMES,
    OPERATORS_OF_TYPE,
    Advertisement,
    Attribute,
    Constraint,
    Filter,
    InvalidValueError,
    Message,
    Predicate,
    format_name,
)

__all__ = [
    "ParseError",
    "DocumentItem",
    "parse_filter",
    "parse_predicate",
    "parse_advertisement",
    "parse_message",
    "parse_constraint",
    "parse_document",
    "parse_any",
]

#: Largest number of conjunctions a nested and/or expression may expand to.
MAX_DNF_TERMS = 10_000


class ParseError(ValueError):
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
    """

    kind: str
    value: Any
    interface: int | None = None
    line: int = 0
    origin: str | None = None

    def __str__(self) -> str:
        if self.kind == "ifconfig":
            return f"ifconfig {self.interface} {self.value}"
        if self.kind == "command":
            if self.value[0] == "set":
                return f"set {self.value[1]} = {self.value[2]};"
            return " ".join(str(w) for w in self.value) + ";"
        text = f"{self.kind} {self.value}"
        return text if self.origin is None else f"{text} from {format_name(self.origin)}"


def _name(tree_or_token: Any) -> tuple[str, Token]:
    token = tree_or_token
    if token.type == "STRING":
        name = unquote(token)
        if not name:
            raise LocatedError("attribute name is empty", token)
        return name, token
    return token.value, token


class _Dnf:
    """A disjunction of conjunctions under construction."""

    __slots__ = ("terms", "or_token")

    def __init__(self, terms: list[tuple[Constraint, ...]], or_token: Token | None = None) -> None:
        self.terms = terms
        self.or_token = or_token


def _as_dnf(item: Any) -> _Dnf:
    if isinstance(item, Constraint):
        return _Dnf([(item,)])
    return item


@v_args(inline=True)
class _Builder(Transformer):
    """Builds values while the LALR parser reduces: one pass, no tree."""

    # -- constraints -------------------------------------------------------
    def type(self, token: Token) -> tuple[str, Token]:
        return TYPE_OF_TOKEN[token.type], token

    sff_type = type

    def name(self, token: Token) -> tuple[str, Token]:
        return _name(token)

    def op(self, token: Token) -> tuple[str, Token]:
        return OP_OF_TOKEN[token.type], token

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
        terms: list[tuple[Constraint, ...]] = [()]
        or_token = None
        for atom in atoms:
            dnf = _as_dnf(atom)
            or_token = or_token or dnf.or_token
            if len(terms) * len(dnf.terms) > MAX_DNF_TERMS:
                raise LocatedError(
                    f"expression expands to more than {MAX_DNF_TERMS} conjunctions in disjunctive normal form",
                    or_token,
                )
            terms = [t + u for t in terms for u in dnf.terms]
        return _Dnf(terms, or_token)

    def or_op(self, token):
        return token

    def disj(self, *children):
        if len(children) == 1:
            return children[0]
        conjs = children[0::2]
        terms = list(itertools.chain.from_iterable(c.terms for c in conjs))
        if len(terms) > MAX_DNF_TERMS:
            raise LocatedError(f"predicate has more than {MAX_DNF_TERMS} conjunctions", children[1])
        return _Dnf(terms, children[1])

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

    def publish(self, keyword, message):
        return DocumentItem("publish", message, line=keyword.line)

    def ifconfig(self, keyword, number, dnf):
        interface = int(number.value)
        if interface < 0:
            raise LocatedError("interface number must be >= 0", number)
        return DocumentItem("ifconfig", _predicate(dnf), interface=interface, line=keyword.line)

    def select(self, keyword, attrs=None):
        return DocumentItem("select", _message(attrs or []), line=keyword.line)

    def statement(self, item):
        return item

    def command(self, first, *rest):
        words: list[Any] = [first.value]
        for tok in rest:
            if tok.type == "EQ":
                continue
            if tok.type in LITERAL_TYPE:
                words.append(literal(tok, None)[1])
            else:
                words.append(tok.value)
        return DocumentItem("command", tuple(words), line=first.line)

    def document(self, *items):
        return list(items)


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
def _parser() -> Lark:
    return Lark.open_from_package(
        "cbalgebra.grammar",
        "siena.lark",
        parser="lalr",
        lexer="contextual",
        start=["predicate_text", "message_text", "document"],
        transformer=_Builder(),
        maybe_placeholders=False,
        cache=False,
    )


_TERMINAL_WORDS = {
    "NAME": "an attribute name", "STRING": "a string", "INT": "an int", "FLOAT": "a float",
    "TRUE": "true", "FALSE": "false", "ANY": "any", "EQ": "'='", "NE": "'!='",
    "LT": "'<'", "GT": "'>'", "LE": "'<='", "GE": "'>='", "PREFIX": "'>*'",
    "SUFFIX": "'*<'", "SUBSTRING": "'*'", "LSQB": "'['", "RSQB": "']'",
    "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'",
    "_COMMA": "','", "_SEMI": "';'", "OR2": "'||'", "_AND_SYM": "'&&'",
    "$END": "end of input",
}


def _describe_expected(expected: set[str]) -> str:
    words = []
    kinds = set(expected)
    if kinds & {"T_STRING", "T_INT", "T_FLOAT", "T_BOOL"}:
        words.append("a type")
    if kinds & {"NE", "LT", "GT", "LE", "GE", "PREFIX", "SUFFIX", "SUBSTRING"}:
        words.append("an operator")
    elif "EQ" in kinds:
        words.append("'='")
    if kinds & {"STRING", "INT", "FLOAT", "TRUE"} and "an operator" not in words and "NAME" not in kinds:
        words.append("a value")
    for k in ("NAME", "RSQB", "RBRACE", "RPAR", "_SEMI", "$END", "ANY"):
        if k in kinds:
            words.append(_TERMINAL_WORDS[k])
    if "SUBSCRIBE" in kinds:
        words.append("a statement")
    if not words:
        words = sorted(_TERMINAL_WORDS.get(k, k.lower()) for k in kinds)[:6]
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
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
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
    if token is None or getattr(token, "line", None) is None:
        line, column = 1, 1
    else:
        line, column = token.line, token.column
    return ParseError(err.reason, line, column, _context(text, line, column))


def _run(text: str, start: str) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"parse expects text (str), not {type(text).__name__}")
    if start != "document" and not text.strip():
        raise ParseError("empty input", 1, 1, _context(text, 1, 1))
    try:
        return _parser().parse(text, start=start)
    except LocatedError as e:
        raise _located(e, text) from None
    except UnexpectedInput as e:
        raise _from_lark(e, text) from None
    except InvalidValueError as e:
        raise ParseError(str(e), 1, 1, _context(text, 1, 1)) from None
    except (LarkError, RecursionError) as e:
        # Lark wraps callback errors; unwrap ours, and report anything else plainly.
        inner = getattr(e, "orig_exc", None)
        if isinstance(inner, LocatedError):
            raise _located(inner, text) from None
        reason = "input nests too deeply" if isinstance(e, RecursionError) else str(e).splitlines()[0]
        raise ParseError(reason, 1, 1, _context(text, 1, 1)) from None


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
    and SFF driver statements (``ifconfig``, ``select`` and driver commands)."""
    if isinstance(text, str):
        items = _fast_document_items(text)
        if items is not None:
            return items
    return _run(text, "document")


def _fast_document_items(text: str) -> list[DocumentItem] | None:
    statements = fast_document(text)
    if statements is None:
        return None
    items = []
    line, counted_to = 1, 0
    for kind, value, interface, offset, origin in statements:
        line += text.count("\n", counted_to, offset)
        counted_to = offset
        if kind == "advertise":
            if len(value) != 1:
                return None  # Lark reports the error
            value = Advertisement(value[0])
        elif kind in ("subscribe", "ifconfig"):
            value = Predicate(Filter(term) for term in value)
        items.append(DocumentItem(kind, value, interface=interface, line=line, origin=origin))
    return items


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

