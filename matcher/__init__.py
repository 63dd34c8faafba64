"""The forwarding engine of Carzaniga & Wolf, Forwarding in a Content-Based Network,
SIGCOMM 2003, §4: a compiled content-based forwarding table.

- ``ForwardingTable.compile({iface: Predicate | Filter}, preprocessing_rounds=10)``,
  ``ForwardingTable.from_arrays(...)`` (columns, for millions of constraints) and
  ``ForwardingTable.from_document(text)`` (SFF driver files and our documents,
  read in bulk into columns: ``cbalgebra.matcher._bulk``);
- ``table.forward(message, broadcast=None)`` and
  ``table.forward_batch(messages, broadcast=None)`` (all cores);
- ``table.encode_message(message)`` and ``table.forward_encoded(encoded, broadcast=None)``,
  the fast path for a message forwarded more than once;
- ``messages_from_document(text)``, ``read_document(text)`` and
  ``compile_document(text)`` (the table, read in bulk, with the messages);
- ``encode_predicates({iface: Predicate | Filter})``, ``ColumnEncoder``,
  ``TableColumns`` and ``decode_value``: the one encoder from predicates to
  the columns ``from_arrays`` takes, and back (numpy only: no numba);
- ``warm_up()`` compiles the numba kernels once; ``compile_times()`` reports it.

Names resolve lazily: ``import cbalgebra.matcher.cli`` (done by the CLI to
register its command) does not import numba.
"""

from __future__ import annotations

if __name__ != "cbalgebra.matcher":  # the folder is on sys.path from the repository's root: one name per module
    raise ImportError(f"{__name__} is cbalgebra.matcher: import it under that name")

from typing import TYPE_CHECKING

from cbalgebra.lazy import lazy_exports

if TYPE_CHECKING:
    from .columns import ColumnEncoder, TableColumns, decode_value, encode_predicates
    from .document import compile_document, messages_from_document, read_document
    from .table import EncodedMessage, ForwardingTable, MessageBatch, compile_times, warm_up

__all__ = [
    "ColumnEncoder",
    "EncodedMessage",
    "ForwardingTable",
    "MessageBatch",
    "TableColumns",
    "compile_document",
    "compile_times",
    "decode_value",
    "encode_predicates",
    "messages_from_document",
    "read_document",
    "warm_up",
]

# numba and scipy load with the table, on first use; the column encoder loads numpy only.
__getattr__, __dir__ = lazy_exports(__name__, {
    "columns": ("ColumnEncoder", "TableColumns", "decode_value", "encode_predicates"),
    "table": ("EncodedMessage", "ForwardingTable", "MessageBatch", "compile_times", "warm_up"),
    "document": ("compile_document", "messages_from_document", "read_document"),
}, globals())
