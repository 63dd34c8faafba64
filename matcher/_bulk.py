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

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from lark import Token

from cbalgebra.lexicon import KEYWORDS, STATEMENT
from cbalgebra.matcher._kernels import first_call
from cbalgebra.matcher._scan import (
    F_SLOW, K_ANY, K_FLOAT, K_INT, K_STRING, ScanRows, new_rows, same_slices, scan_ifconfigs,
)
from cbalgebra.literals import PLAIN_FLOAT, Decline, LocatedError, fast_value, unquote
from cbalgebra.parse import scan_document
from cbalgebra.values import FLOAT, Filter, InvalidValueError, Message, Type
from cbalgebra.matcher.columns import ALLOWED, ColumnEncoder, Interner, TableColumns
from cbalgebra.matcher.document import TableStatements

__all__ = ["DocumentColumns", "table_columns"]

T_STRING, T_INT, T_FLOAT, T_BOOL = int(Type.STRING), int(Type.INT), int(Type.FLOAT), int(Type.BOOL)


@dataclass
class _Chunk:
    """Consecutive ``ifconfig`` statements read in bulk: their interfaces,
    the interface of each filter and the constraint columns (``c_filter``
    counted from 0 in the chunk)."""

    line: int
    interfaces: list[int]
    filter_interface: np.ndarray
    columns: tuple  # c_filter, c_name, c_type, c_op, c_value


@dataclass
class DocumentColumns(TableColumns):
    """A document's forwarding table as columns, and the pre-processing
    limit it sets (None if none)."""

    preprocessing_limit: int | None = None
    #: the document's messages (``select`` and ``publish``) and the lines they start on
    messages: list[Message] = field(default_factory=list)
    message_lines: list[int] = field(default_factory=list)
    #: statements read in bulk and by the full parser (for benchmarks and tests)
    statements: dict[str, int] = field(default_factory=dict)


#: Type code of each value kind of ``_scan`` (-1: the any form, typed by its words).
_TYPE_OF_KIND = np.array([T_STRING, T_FLOAT, T_INT, T_BOOL, -1], dtype=np.int8)
_ROWS = 1 << 18


class _Reader:
    """The bulk reader of ``ifconfig`` statements (the ``render`` hook of
    ``cbalgebra.parse.scan_document``): ``_scan.scan_ifconfigs`` cuts
    statements into rows, then names, strings and numbers become columns
    through their distinct values only."""

    def __init__(self) -> None:
        self.names = Interner()
        self.strings = Interner()
        self.text: str | None = None
        self.chars: np.ndarray | None = None
        self.rows = new_rows(_ROWS, _ROWS // 4)

    def _code_points(self, text: str) -> np.ndarray | None:
        if self.text is not text:
            self.text = text
            try:
                self.chars = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
            except UnicodeEncodeError:  # a lone surrogate: the full parser reports it
                self.chars = None
        return self.chars

    def __call__(self, text: str, pos: int, line: int) -> tuple[_Chunk, int] | None:
        if not text.startswith("ifconfig", pos):
            return None
        chars = self._code_points(text)
        if chars is None:
            return None
        while True:
            rows = self.rows
            # first_call: on a fresh install its compiling is announced (and logged)
            count, _, end, full = first_call("scan_ifconfigs", scan_ifconfigs, (chars, pos, rows))
            if count or not full:
                break
            self.rows = new_rows(2 * rows.name_start.shape[0], rows.statement_interface.shape[0])
        if count and end < len(text) and STATEMENT.match(text, end) is None:
            count -= 1  # the full parser reads the statement before what it will report
            end = int(rows.statement_start[count])
        if count == 0:
            return None
        chunk, used = self._columns(text, chars, rows, count, line)
        if chunk is None:
            return None
        return chunk, (end if used == count else int(rows.statement_start[used]))

    @staticmethod
    def _distinct(text: str, chars: np.ndarray, start: np.ndarray, end: np.ndarray, hashes: np.ndarray
                  ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The distinct texts of the slices (by hash, confirmed by the text),
        each slice's index among them, and the slices whose hash another text shares."""
        _, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        rep_start, rep_end = start[first], end[first]
        collision = ~same_slices(chars, start, end, rep_start[inverse], rep_end[inverse])
        texts = [text[a:b] for a, b in zip(rep_start.tolist(), rep_end.tolist(), strict=True)]
        return texts, inverse, collision

    def _columns(self, text: str, chars: np.ndarray, rows: ScanRows, count: int, line: int
                 ) -> tuple[_Chunk | None, int]:
        n = int(rows.statement_row[count])
        name_start, name_end = rows.name_start[:n], rows.name_end[:n]
        kind, op = rows.kind[:n], rows.op[:n]
        names, name_of_row, bad = self._distinct(text, chars, name_start, name_end, rows.name_hash[:n])
        reserved = np.fromiter((name in KEYWORDS for name in names), bool, len(names))
        bad |= reserved[name_of_row]  # a keyword-spelled name: the full parser follows both readings
        type_ = _TYPE_OF_KIND[kind]
        prefix, suffix = rows.type_word[:n], rows.any_type[:n]
        is_any = kind == K_ANY
        # a type word before a literal must name the literal's own type (the
        # full parser converts or rejects the others); `type name any` or
        # SFF's `name any type` need exactly one of the two
        bad |= (prefix >= 0) & ~is_any & (prefix != type_)
        bad |= is_any & ((prefix >= 0) == (suffix >= 0))
        type_ = np.where(is_any, np.maximum(prefix, suffix), type_).astype(np.int8)
        bad |= ~ALLOWED[np.maximum(type_, 0), op] | (type_ < 0)
        value = rows.int_value[:n].copy()
        value_start, value_end = rows.value_start[:n], rows.value_end[:n]
        slow = (rows.flags[:n] & F_SLOW) != 0
        for k in np.flatnonzero(slow & (kind == K_INT)).tolist():
            try:
                value[k] = fast_value(text[value_start[k]:value_end[k]], None)[1]
            except (Decline, InvalidValueError, OverflowError):
                bad[k] = True
        for wanted, convert in ((K_FLOAT, _float), (K_STRING, _string)):
            where = np.flatnonzero(kind == wanted)
            if not where.size:
                continue
            texts, of_row, collision = self._distinct(text, chars, value_start[where], value_end[where],
                                                      rows.value_hash[:n][where])
            converted = [convert(t) for t in texts]
            failed = np.fromiter((c is None for c in converted), bool, len(converted))
            bad[where] |= collision | failed[of_row]
            if wanted == K_FLOAT:
                bits = np.array([0.0 if c is None else c for c in converted], dtype=np.float64).view(np.int64)
            else:
                bits = np.fromiter((0 if c is None else self.strings[c] for c in converted), np.int64,
                                   len(converted))
            value[where] = bits[of_row]
        used = count
        if bad.any():  # keep the statements before the first row read wrongly
            used = int(np.searchsorted(rows.statement_row[: count + 1], int(np.argmax(bad)), side="right")) - 1
            n = int(rows.statement_row[used])
            if used == 0:
                return None, 0
        name_ids = np.fromiter(map(self.names.__getitem__, names), np.int64, len(names))
        filters = rows.statement_filters[:used]
        first_filter = np.zeros(used, dtype=np.int64)
        np.cumsum(filters[:-1], out=first_filter[1:])
        statement_of_row = np.repeat(np.arange(used), np.diff(rows.statement_row[: used + 1]))
        c_filter = rows.filter[:n] + first_filter[statement_of_row]
        interfaces = rows.statement_interface[:used]
        chunk = _Chunk(line, interfaces.tolist(), np.repeat(interfaces, filters),
                       (c_filter, name_ids[name_of_row[:n]], type_[:n].copy(), op[:n].copy(), value[:n]))
        return chunk, used


def _float(text: str) -> float | None:
    if PLAIN_FLOAT.fullmatch(text):
        return float(text) + 0.0  # + 0.0 turns -0.0 into 0.0
    try:
        literal_type, number = fast_value(text, None)
    except (Decline, InvalidValueError):
        return None
    return number if literal_type == FLOAT else None


def _string(raw: str) -> str | None:
    if "\\" not in raw:
        return raw

    try:
        return unquote(Token("STRING", '"' + raw + '"'))
    except LocatedError:
        return None


class _Table(TableStatements):
    """The state of a document being read (``TableStatements``): the
    interfaces in order of declaration and their filters as column chunks,
    from the bulk reader or encoded by the one encoder (``columns``) for the
    statements the full parser read."""

    def __init__(self, reader: _Reader) -> None:
        super().__init__()
        self.reader = reader
        self.encoder = ColumnEncoder(reader.names, reader.strings)
        self.clear()

    def clear(self) -> None:
        self.interfaces: dict[int, None] = {}
        self.chunks: list[tuple[np.ndarray, Sequence[np.ndarray]]] = []  # (interface of each filter, columns)

    def add_chunk(self, chunk: _Chunk) -> None:
        self.configure("ifconfig", chunk.line)
        for interface in chunk.interfaces:
            self.interfaces.setdefault(interface, None)
        self.chunks.append((chunk.filter_interface, chunk.columns))

    def add_filters(self, interface: int, filters: tuple[Filter, ...]) -> None:
        """Filters the full parser built (a statement the bulk reader left)."""
        self.interfaces.setdefault(interface, None)
        self.encoder.add(interface, filters)
        self.chunks.append(self.encoder.take())

    def columns(self) -> DocumentColumns:
        interfaces = np.array(list(self.interfaces), dtype=np.int64)
        parts: list[list[np.ndarray]] = [[] for _ in range(5)]
        filter_interface: list[np.ndarray] = []
        n_filters = 0
        for chunk_interfaces, cols in self.chunks:
            filter_interface.append(chunk_interfaces)
            parts[0].append(cols[0] + n_filters)
            for k in range(1, 5):
                parts[k].append(cols[k])
            n_filters += chunk_interfaces.shape[0]
        dtypes = (np.int64, np.int64, np.int8, np.int8, np.int64)
        c_filter, c_name, c_type, c_op, c_value = (
            np.concatenate(p) if p else np.zeros(0, d) for p, d in zip(parts, dtypes, strict=True))
        return DocumentColumns(
            interfaces=interfaces,
            filter_interface=np.concatenate(filter_interface) if filter_interface else np.zeros(0, np.int64),
            c_filter=c_filter, c_name=c_name, c_type=c_type.astype(np.int8), c_op=c_op.astype(np.int8),
            c_value=c_value, names=list(self.reader.names), strings=list(self.reader.strings),
            preprocessing_limit=self.limit, messages=self.messages, message_lines=self.message_lines,
        )


def table_columns(text: str) -> DocumentColumns:
    """The forwarding table of a document (see the module docstring).

    Raises the :class:`cbalgebra.parse.ParseError` that
    ``cbalgebra.matcher.document.read_document`` raises on the same text.
    """
    if not isinstance(text, str):
        raise TypeError(f"a document is text (str), not {type(text).__name__}")
    reader = _Reader()
    table = _Table(reader)
    bulk = full = 0
    for item in scan_document(text, render=reader):
        if isinstance(item, _Chunk):
            table.add_chunk(item)
            bulk += len(item.interfaces)
        else:
            table.add_item(item)
            full += 1
    table.raise_error(text)
    columns = table.columns()
    columns.statements = {"bulk": bulk, "full": full}
    return columns
