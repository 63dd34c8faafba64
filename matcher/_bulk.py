"""Forwarding tables straight from documents, as columns.

``table_columns(text)`` reads an SFF driver file or one of our documents into
the columns of :class:`~cbalgebra.matcher._build.RawTable` without building a
``Constraint``, ``Filter`` or ``Predicate`` per row: the body of a flat
``ifconfig`` statement is cut into constraints by one regular expression
(``findall``, a C loop), and its names, operators, types and values become
numpy columns through ``map`` and ``numpy`` calls, never a Python loop per
constraint.

It reads only what it is sure of. Every other statement (keyword-spelled or
quoted names, comments inside a statement, type words that convert a literal,
hex or long numbers it cannot settle, any error) is left to the full parser
(:func:`cbalgebra.parse.iter_document` drives both: this reader is asked
first at each statement), whose items are then turned into columns. Errors
are therefore the full parser's, with the same line and column, and a
document the full parser rejects is rejected here too. The meaning of a
document is that of :func:`cbalgebra.matcher.document.read_document`; the
compiler numbers names and filters canonically (``_build``), so both paths
give identical compiled arrays (``tests/test_matcher_bulk.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from cbalgebra._fastparse import _BLANK, _NAME, _RESERVED, _STATEMENT, _WORD_END, _Decline, _fast_value, skip
from cbalgebra._literals import MAX_DNF_TERMS, LocatedError, unquote
from cbalgebra.parse import DocumentItem, _scan_document
from cbalgebra.values import (
    ANY,
    OP_CODE,
    OPERATOR_SPECS,
    TYPE_CODE,
    TYPE_SPECS,
    Filter,
    InvalidValueError,
    Op,
    Type,
)

__all__ = ["TableColumns", "table_columns"]

T_STRING, T_INT, T_FLOAT, T_BOOL, T_ANY = (int(Type.STRING), int(Type.INT), int(Type.FLOAT), int(Type.BOOL),
                                           int(Type.ANY))
OP_ANY = int(Op.ANY)

# allowed[type, op], from the one operator table of cbalgebra/values.py
_ALLOWED = np.zeros((len(Type), len(Op)), dtype=bool)
for _spec in OPERATOR_SPECS:
    _ALLOWED[[int(t) for t in _spec.types], int(_spec.code)] = True

#: Type words (``long``, ``double``; ``any`` for the any type) -> type code.
_TYPE_OF_WORD = {w: int(spec.code) for spec in TYPE_SPECS for w in spec.words}
_TYPE_OF_WORD["any"] = T_ANY
_TYPE_OF_WORD[""] = -1
#: Operator symbols and SFF spellings -> operator code ('' is the ``any`` form).
_OP_OF_SYMBOL = {s: int(o.code) for o in OPERATOR_SPECS if o.code != Op.ANY for s in (o.symbol, o.sff)}
_OP_OF_SYMBOL[""] = OP_ANY
#: Separators after a constraint: 0 and, 1 or (a new filter follows), 2 the end.
_SEPARATOR = {",": 0, "&&": 0, "|": 1, "||": 1, ";": 2}


def _alternation(words) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_TYPE_WORDS = _alternation([w for spec in TYPE_SPECS for w in spec.words] + ["any"])
_SYMBOLS = _alternation(_OP_OF_SYMBOL.keys() - {""})


def _constraint(separators: str, capture: bool) -> str:
    """One constraint and the separator after it, with the blanks around.
    Groups (with ``capture``): 1 type word, 2 name, 3 operator, 4 string
    (quoted), 5 float, 6 int, 7 bool, 8 'any', 9 the type word after 'any'
    (SFF's ``x any integer``), 10 the separator."""
    g = "(" if capture else "(?:"
    name = _NAME if capture else "(?:" + _NAME[1:]
    return (
        "(?:" + g + _TYPE_WORDS + ")" + _BLANK + "+)?" + name + _BLANK + "*"
        "(?:" + g + _SYMBOLS + ")" + _BLANK + "*"
        "(?:" + g + r"\"(?:[^\"\\\n]|\\.)*\")"
        "|" + g + r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?[0-9]+[eE][+-]?[0-9]+)(?![0-9A-Za-z_.])"
        "|" + g + r"[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+))(?![0-9A-Za-z_.])"
        "|" + g + "true|false)" + _WORD_END + ")"
        "|" + g + "any)" + _WORD_END + "(?:" + _BLANK + "+" + g + _TYPE_WORDS + ")" + _WORD_END + ")?)"
        + _BLANK + "*" + g + separators + ")" + _BLANK + "*"
    )


_ONE = re.compile(_constraint(r",|&&|\|\||\||;", capture=True))
# A whole body: constraints whose separators are not ';', then one whose is.
_BODY = re.compile("(?:" + _constraint(r",|&&|\|\||\|", capture=False) + ")*" + _constraint(";", capture=False))
_IFCONFIG = re.compile("ifconfig" + _BLANK + "+([0-9]{1,10})" + _WORD_END + _BLANK + "*")
_SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN_INT = 18  # digits (and a sign) that always fit in 64 bits
_PLAIN_FLOAT = re.compile(r"[+-]?[0-9]{1,15}\.[0-9]{0,15}")


class _Ids(dict):
    """Value -> dense id, in order of first use."""

    def __missing__(self, key):
        value = self[key] = len(self)
        return value


@dataclass
class _Chunk:
    """The filters of one ``ifconfig`` statement read in bulk."""

    interface: int
    line: int
    n_filters: int
    c_filter: np.ndarray
    c_name: np.ndarray
    c_type: np.ndarray
    c_op: np.ndarray
    c_value: np.ndarray


@dataclass
class TableColumns:
    """A document's forwarding table as the columns of ``ForwardingTable.from_arrays``,
    and the pre-processing limit it sets (None if none)."""

    interfaces: np.ndarray
    filter_interface: np.ndarray
    c_filter: np.ndarray
    c_name: np.ndarray
    c_type: np.ndarray
    c_op: np.ndarray
    c_value: np.ndarray
    names: list[str]
    strings: list[str]
    preprocessing_limit: int | None = None
    #: statements read in bulk and by the full parser (for benchmarks and tests)
    statements: dict[str, int] = field(default_factory=dict)

    def arrays(self) -> dict:
        """Keyword arguments for ``ForwardingTable.from_arrays``."""
        return dict(interfaces=self.interfaces, filter_interface=self.filter_interface, c_filter=self.c_filter,
                    c_name=self.c_name, c_type=self.c_type, c_op=self.c_op, c_value=self.c_value,
                    names=self.names, strings=self.strings)


class _Reader:
    """The bulk reader of ``ifconfig`` statements (the ``render`` hook of
    ``cbalgebra.parse._scan_document``)."""

    def __init__(self) -> None:
        self.names = _Ids()
        self.strings = _Ids()

    def __call__(self, text: str, pos: int, line: int) -> tuple[_Chunk, int] | None:
        if not text.startswith("ifconfig", pos):
            return None
        head = _IFCONFIG.match(text, pos)
        if head is None:
            return None
        interface = int(head.group(1))
        if interface > 2**32 - 1:
            return None
        start = head.end()
        body = _BODY.match(text, start)
        if body is None:
            return None
        end = body.end()
        following = skip(text, end)
        if following < len(text) and _STATEMENT.match(text, following) is None:
            return None  # the full parser reports what follows
        if _SURROGATE.search(text, start, end) is not None:
            return None
        try:
            chunk = self._columns(_ONE.findall(text, start, end), interface, line)
        except (_Decline, LocatedError, InvalidValueError):
            return None
        return (chunk, following) if chunk is not None else None

    def _columns(self, rows: list[tuple], interface: int, line: int) -> _Chunk | None:
        n = len(rows)
        (type_words, names, ops, strings, floats, ints, bools, any_words, any_types,
         separators) = zip(*rows, strict=True)
        if not _RESERVED.isdisjoint(names):
            return None  # a keyword-spelled name: the full parser follows both readings
        separator = np.fromiter(map(_SEPARATOR.__getitem__, separators), np.int8, n)
        new_filter = np.zeros(n, dtype=np.int64)
        new_filter[1:] = separator[:-1] == 1
        c_filter = np.cumsum(new_filter)
        n_filters = int(c_filter[-1]) + 1
        if n_filters > MAX_DNF_TERMS:
            return None  # the full parser reports the limit, located
        op = np.fromiter(map(_OP_OF_SYMBOL.__getitem__, ops), np.int8, n)
        is_string = np.fromiter(map(bool, strings), bool, n)
        is_float = np.fromiter(map(bool, floats), bool, n)
        is_int = np.fromiter(map(bool, ints), bool, n)
        is_bool = np.fromiter(map(bool, bools), bool, n)
        type_ = np.full(n, -1, dtype=np.int8)
        type_[is_string] = T_STRING
        type_[is_float] = T_FLOAT
        type_[is_int] = T_INT
        type_[is_bool] = T_BOOL
        is_any = op == OP_ANY
        if any(type_words) or is_any.any():
            prefix = np.fromiter(map(_TYPE_OF_WORD.__getitem__, type_words), np.int8, n)
            suffix = np.fromiter(map(_TYPE_OF_WORD.__getitem__, any_types), np.int8, n)
            # a type word before a literal must name the literal's own type
            # (the full parser converts or rejects the others)
            if ((prefix >= 0) & ~is_any & (prefix != type_)).any():
                return None
            # `type name any` or SFF's `name any type`: exactly one of the two
            if (is_any & ((prefix >= 0) == (suffix >= 0))).any():
                return None
            type_[is_any] = np.maximum(prefix, suffix)[is_any]
        if not _ALLOWED[type_, op].all():
            return None
        value = np.zeros(n, dtype=np.int64)
        if is_int.any():
            texts = list(filter(None, ints))
            joined = "".join(texts)
            if max(map(len, texts)) <= _PLAIN_INT and "x" not in joined and "X" not in joined:
                numbers = list(map(int, texts))
            else:
                numbers = [_fast_value(t, None)[1] for t in texts]
                if any(type(x) is not int for x in numbers):
                    return None
            value[is_int] = numbers
        if is_float.any():
            texts = list(filter(None, floats))
            numbers = [float(t) + 0.0 if _PLAIN_FLOAT.fullmatch(t) else _fast_value(t, None)[1] for t in texts]
            value[is_float] = np.array(numbers, dtype=np.float64).view(np.int64)
        if is_bool.any():
            value[is_bool] = np.fromiter((b == "true" for b in filter(None, bools)), np.int64)
        if is_string.any():
            quoted = list(filter(None, strings))
            decoded = [q[1:-1] if "\\" not in q else _unquote(q) for q in quoted]
            value[is_string] = np.fromiter(map(self.strings.__getitem__, decoded), np.int64, len(decoded))
        c_name = np.fromiter(map(self.names.__getitem__, names), np.int64, n)
        return _Chunk(interface, line, n_filters, c_filter, c_name, type_, op, value)


def _unquote(quoted: str) -> str:
    from lark import Token

    return unquote(Token("STRING", quoted))


class _Table:
    """The state of a document being read, as in ``read_document``: the
    interfaces in order of declaration and their filters as column chunks."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.clear()
        self.n_subscribe = 0
        self.limit: int | None = None
        self.kinds_seen: dict[str, int] = {}
        self.error: tuple[int, str] | None = None  # the first, raised once the whole text has parsed

    def clear(self) -> None:
        self.interfaces: dict[int, None] = {}
        self.chunks: list[tuple[int, int, tuple]] = []  # (interface, n_filters, columns)

    def configure(self, kind: str, line: int) -> None:
        other = "subscribe" if kind == "ifconfig" else "ifconfig"
        if other in self.kinds_seen and self.error is None:
            self.error = (line, f"'{kind}' after '{other}' (line {self.kinds_seen[other]}): a document "
                                "configures interfaces with either ifconfig or subscribe statements, not both")
        self.kinds_seen.setdefault(kind, line)

    def add_chunk(self, chunk: _Chunk) -> None:
        self.configure("ifconfig", chunk.line)
        self.interfaces.setdefault(chunk.interface, None)
        self.chunks.append((chunk.interface, chunk.n_filters,
                            (chunk.c_filter, chunk.c_name, chunk.c_type, chunk.c_op, chunk.c_value)))

    def add_filters(self, interface: int, filters: tuple[Filter, ...]) -> None:
        """Filters the full parser built (a statement the bulk reader left)."""
        self.interfaces.setdefault(interface, None)
        names, strings = self.reader.names, self.reader.strings
        c_filter: list[int] = []
        c_name: list[int] = []
        c_type: list[int] = []
        c_op: list[int] = []
        c_value: list = []
        float_rows: list[int] = []
        float_values: list[float] = []
        for k, f in enumerate(filters):
            for c in f.constraints:
                c_filter.append(k)
                c_name.append(names[c.name])
                t = TYPE_CODE[c.type]
                c_type.append(t)
                c_op.append(OP_CODE[c.op])
                if c.op == ANY:
                    c_value.append(0)
                elif t == T_STRING:
                    c_value.append(strings[c.value])
                elif t == T_FLOAT:
                    float_rows.append(len(c_value))
                    float_values.append(c.value)
                    c_value.append(0)
                else:
                    c_value.append(int(c.value))
        value = np.array(c_value, dtype=np.int64)
        if float_rows:
            value[np.array(float_rows)] = np.array(float_values, dtype=np.float64).view(np.int64)
        self.chunks.append((interface, len(filters), (np.array(c_filter, np.int64), np.array(c_name, np.int64),
                                                      np.array(c_type, np.int8), np.array(c_op, np.int8), value)))

    def add_item(self, item: DocumentItem) -> None:
        kind = item.kind
        if kind == "ifconfig":
            self.configure(kind, item.line)
            self.add_filters(item.interface, item.value.filters)
        elif kind == "subscribe":
            self.configure(kind, item.line)
            self.add_filters(self.n_subscribe, item.value.filters)
            self.n_subscribe += 1
        elif kind == "command":
            words = item.value
            if words and words[0] == "clear":
                self.clear()
            elif len(words) >= 2 and words[0] == "set" and words[1] in ("preprocessing_limit",
                                                                          "preprocessing_rounds"):
                value = words[-1]
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    if self.error is None:
                        self.error = (item.line, f"{words[1]} must be an int >= 0, not {value!r}")
                else:
                    self.limit = value

    def columns(self) -> TableColumns:
        interfaces = np.array(list(self.interfaces), dtype=np.int64)
        parts = [[] for _ in range(5)]
        filter_interface = []
        n_filters = 0
        for interface, count, cols in self.chunks:
            filter_interface.append(np.full(count, interface, dtype=np.int64))
            parts[0].append(cols[0] + n_filters)
            for k in range(1, 5):
                parts[k].append(cols[k])
            n_filters += count
        dtypes = (np.int64, np.int64, np.int8, np.int8, np.int64)
        c_filter, c_name, c_type, c_op, c_value = (
            np.concatenate(p) if p else np.zeros(0, d) for p, d in zip(parts, dtypes, strict=True))
        return TableColumns(
            interfaces=interfaces,
            filter_interface=np.concatenate(filter_interface) if filter_interface else np.zeros(0, np.int64),
            c_filter=c_filter, c_name=c_name, c_type=c_type.astype(np.int8), c_op=c_op.astype(np.int8),
            c_value=c_value, names=list(self.reader.names), strings=list(self.reader.strings),
            preprocessing_limit=self.limit,
        )


def table_columns(text: str) -> TableColumns:
    """The forwarding table of a document (see the module docstring).

    Raises the :class:`cbalgebra.parse.ParseError` that
    ``cbalgebra.matcher.document.read_document`` raises on the same text.
    """
    if not isinstance(text, str):
        raise TypeError(f"a document is text (str), not {type(text).__name__}")
    reader = _Reader()
    table = _Table(reader)
    bulk = full = 0
    for item in _scan_document(text, render=reader):
        if isinstance(item, _Chunk):
            table.add_chunk(item)
            bulk += 1
        else:
            table.add_item(item)
            full += 1
    if table.error is not None:
        from cbalgebra.matcher.document import _error

        line, reason = table.error
        raise _error(text, line, reason)
    columns = table.columns()
    columns.statements = {"bulk": bulk, "full": full}
    return columns
