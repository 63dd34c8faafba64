"""Forwarding tables and messages from documents.

Two dialects, both read by :func:`cbalgebra.parse_document`:

- **SFF driver files**: ``ifconfig N f1 | f2 ;`` configures interface N and
  ``select a = 1 b = "x" ;`` is a message.
- **Our documents**: ``subscribe P`` lines, each one a destination of its own
  (the k-th ``subscribe`` is interface k, counting from 0 — the centralized
  router of the paper), and ``publish M`` lines as messages.

Decisions (documented in docs/guide/forwarding.md):

- Several ``ifconfig`` statements for one interface add up: the interface's
  predicate is the disjunction of all of them (what the routing protocol of
  Carzaniga & Wolf, SIGCOMM 2003, §2.1 does when a new receiver
  advertisement arrives).
  ``ifconfig N false;``-style empty predicates still declare the interface.
- ``clear;`` forgets every interface configured before it. The table is the
  state at the end of the document.
- ``set preprocessing_limit = N;`` sets the number of pre-processing rounds
  (the last one wins, wherever it stands); an explicit
  ``preprocessing_rounds`` argument overrides it. SFF itself applies it only
  once a forwarding table exists (after the first ``ifconfig``), from that
  point of the file on. Other ``set`` variables and the commands ``consolidate``,
  ``timer``, ``statistics`` and ``output`` are accepted and ignored.
- ``advertise`` statements describe publishers, not destinations: ignored.
- A document may not mix ``ifconfig`` and ``subscribe`` (interface numbers
  would be ambiguous): that is a ParseError.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cbalgebra.parse import DocumentItem, ParseError, parse_document
from cbalgebra.values import Filter, Message, Predicate

if TYPE_CHECKING:  # the table module imports numba, which reading a document does not need
    from cbalgebra.matcher.table import ForwardingTable

__all__ = ["CompiledDocument", "DocumentTable", "TableStatements", "compile_document", "messages_from_document",
           "read_document", "table_from_document", "table_from_document_objects"]


@dataclass
class DocumentTable:
    """What a document says: the predicates per interface, the messages and
    the pre-processing limit it sets (None if it sets none)."""

    predicates: dict[int, Predicate] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    message_lines: list[int] = field(default_factory=list)
    preprocessing_limit: int | None = None


def _error(text: str, line: int, reason: str) -> ParseError:
    lines = text.splitlines()
    context = lines[line - 1] if 0 < line <= len(lines) else ""
    return ParseError(reason, line, 1, context + "\n^")


class TableStatements:
    """The meaning of a document's statements for its forwarding table, item
    by item (the decisions of the module docstring): which interface gets
    which filters, ``clear``, the pre-processing limit, the messages, and
    the first error (raised by the caller once the whole text has parsed, so
    that a parse error anywhere comes first). :func:`read_document` and the
    bulk reader (``_bulk``) subclass it with their own storage of filters."""

    def __init__(self) -> None:
        self.n_subscribe = 0
        self.limit: int | None = None
        self.kinds_seen: dict[str, int] = {}
        self.error: tuple[int, str] | None = None
        self.messages: list[Message] = []
        self.message_lines: list[int] = []

    def add_filters(self, interface: int, filters: tuple[Filter, ...]) -> None:
        """``filters`` join the predicate of ``interface`` (declared even if empty)."""
        raise NotImplementedError

    def clear(self) -> None:
        """Forget every interface configured so far."""
        raise NotImplementedError

    def configure(self, kind: str, line: int) -> None:
        other = "subscribe" if kind == "ifconfig" else "ifconfig"
        if other in self.kinds_seen and self.error is None:
            self.error = (line, f"'{kind}' after '{other}' (line {self.kinds_seen[other]}): a document "
                                "configures interfaces with either ifconfig or subscribe statements, not both")
        self.kinds_seen.setdefault(kind, line)

    def add_item(self, item: DocumentItem) -> None:
        kind = item.kind
        if kind == "ifconfig" and item.interface is not None:
            self.configure(kind, item.line)
            self.add_filters(item.interface, item.value.filters)
        elif kind == "subscribe":
            self.configure(kind, item.line)
            self.add_filters(self.n_subscribe, item.value.filters)
            self.n_subscribe += 1
        elif kind in ("select", "publish"):
            self.messages.append(item.value)
            self.message_lines.append(item.line)
        elif kind == "command":
            self.command(item.value, item.line)

    def command(self, words: list, line: int) -> None:
        if words and words[0] == "clear":
            self.clear()
        elif len(words) >= 2 and words[0] == "set" and words[1] in ("preprocessing_limit", "preprocessing_rounds"):
            value = words[-1]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                if self.error is None:
                    self.error = (line, f"{words[1]} must be an int >= 0, not {value!r}")
            else:
                self.limit = value

    def raise_error(self, text: str) -> None:
        """Raise the first error, if there was one, located in ``text``."""
        if self.error is not None:
            line, reason = self.error
            raise _error(text, line, reason)


class _Predicates(TableStatements):
    def __init__(self) -> None:
        super().__init__()
        self.filters: dict[int, list[Filter]] = {}

    def add_filters(self, interface: int, filters: tuple[Filter, ...]) -> None:
        self.filters.setdefault(interface, []).extend(filters)

    def clear(self) -> None:
        self.filters.clear()


def read_document(text: str) -> DocumentTable:
    """Parse a document into interfaces, messages and settings."""
    state = _Predicates()
    for item in parse_document(text):
        state.add_item(item)
    state.raise_error(text)
    return DocumentTable(predicates={iface: Predicate(fs) for iface, fs in state.filters.items()},
                         messages=state.messages, message_lines=state.message_lines,
                         preprocessing_limit=state.limit)


def messages_from_document(text: str) -> list[Message]:
    """The messages of a document: its ``select`` and ``publish`` statements, in order."""
    return read_document(text).messages


@dataclass
class CompiledDocument:
    """A document's forwarding table, compiled, with its messages (the
    ``select`` and ``publish`` statements, and the lines they start on), the
    pre-processing limit it sets (None if none) and the seconds spent
    reading it into columns (``compile_seconds`` is the table's)."""

    table: ForwardingTable
    messages: list[Message]
    message_lines: list[int]
    preprocessing_limit: int | None
    read_seconds: float


def compile_document(text: str, preprocessing_rounds: int | None = None, *,
                     numbers: str = "strict") -> CompiledDocument:
    """The forwarding table of a document, read in bulk into columns
    (``cbalgebra.matcher._bulk``: no Python object per constraint, the full
    parser for whatever the bulk reader leaves) and compiled from them, with
    the document's messages. The same table, messages and errors as
    ``read_document(text)`` compiled; ``preprocessing_rounds`` None takes
    the document's ``set preprocessing_limit``, else ``DEFAULT_ROUNDS``."""
    # deferred: the bulk loader and the table load numba and scipy
    from cbalgebra.matcher._bulk import table_columns
    from cbalgebra.matcher.table import DEFAULT_ROUNDS, ForwardingTable

    t0 = time.perf_counter()
    columns = table_columns(text)
    read_seconds = time.perf_counter() - t0
    rounds = preprocessing_rounds
    if rounds is None:
        rounds = DEFAULT_ROUNDS if columns.preprocessing_limit is None else columns.preprocessing_limit
    table = ForwardingTable.from_arrays(**columns.arrays(), preprocessing_rounds=rounds, numbers=numbers)
    return CompiledDocument(table, columns.messages, columns.message_lines, columns.preprocessing_limit,
                            read_seconds)


def table_from_document(text: str, preprocessing_rounds: int | None = None, *,
                        numbers: str = "strict") -> ForwardingTable:
    """The forwarding table of a document (:func:`compile_document`): the
    same table, arrays and errors as compiling ``read_document(text)``."""
    return compile_document(text, preprocessing_rounds, numbers=numbers).table


def table_from_document_objects(text: str, preprocessing_rounds: int | None = None, *,
                                numbers: str = "strict") -> ForwardingTable:
    """``table_from_document`` through the full parser and Predicate values
    (``read_document`` then ``ForwardingTable.compile``): the reference the
    bulk path is tested and measured against."""
    # deferred: the table loads numba and scipy
    from cbalgebra.matcher.table import DEFAULT_ROUNDS, ForwardingTable

    doc = read_document(text)
    rounds = preprocessing_rounds
    if rounds is None:
        rounds = DEFAULT_ROUNDS if doc.preprocessing_limit is None else doc.preprocessing_limit
    return ForwardingTable.compile(doc.predicates, preprocessing_rounds=rounds, numbers=numbers)
