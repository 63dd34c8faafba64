"""The compiled forwarding table's layout, declared once.

Every array the kernels read is a field of :class:`TableArrays` (the table),
:class:`Params` (its scalars) or :class:`Scratch` (one thread's working
memory), and each field is declared here with its dtype and meaning
(``Annotated[np.ndarray, Column(dtype, meaning)]``). Everything positional is
derived from these declarations: the dtypes of the packed buffers
(:data:`TABLE_DTYPES`, :data:`SCRATCH_DTYPES`), and in compiled code the named
tuples rebuilt from a packed buffer or from a plain tuple
(``_views.unpack_named``, ``_views.borrow_named``). Adding a field is one line
here plus the code that fills and reads it.

The structures follow Carzaniga & Wolf, Forwarding in a Content-Based Network,
SIGCOMM 2003, §4: constraints indexed by attribute (name, type) and operator,
the counting algorithm's per-filter counters (Figure 4) and the selectivity
table of §4.3 (Figure 7).

The table in words
------------------
- Distinct constraints are numbered in (operator, key, value) order, a key
  being a (name, type) pair, so the constraints of one key and operator form
  the block ``block_start[op * n_keys + key] .. block_start[op * n_keys + key
  + 1]``, sorted by value. A constraint's value is an ordered int64: ints as
  they are, bools 0/1, floats through an order-preserving bit transform,
  strings under an order operator as ``2 * rank + 1`` (rank of the constant
  among all interned strings), strings under a pattern operator as their rank.
- The rank tables (``order_*``, see ``_build._order_ranks``) place a message
  value among all of a key's ordered constants with one search
  (``_collect._collect_ordered``); the ordered constraints' own values are not
  kept.
- Filters are numbered in interface order, those of interface i being
  ``interface_filters[i] .. interface_filters[i + 1]``.
- Substrings: ``substring_automata`` holds an Aho–Corasick automaton for each
  key whose substring patterns have more than ``SUBSTRING_PROBE_LENGTHS``
  distinct lengths or one of 63 characters or more (see ``_automaton``; the
  key's root is in ``pattern_max_length``); the other keys' substrings are
  probed by hash.

Messages reach the kernels as attribute rows (name id, type code, value) with
a pool of string code points; a string attribute's value is its index in the
pool. Under ``numbers="sff"`` a number may have a second row, of the other
numeric type plus :data:`T_CONVERTED`.
"""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple, get_type_hints

import numpy as np

from cbalgebra.values import OPERATORS, TYPE_SPECS, Op, Type

# ------------------------------------------------ type and operator codes
# The codes of values.Op and values.Type (defined once, in cbalgebra/values.py),
# bound here as plain module-level ints: numba reads module globals as
# compile-time constants, and a plain int needs no enum support in nopython
# code.
OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE = int(Op.EQ), int(Op.NE), int(Op.LT), int(Op.GT), int(Op.LE), int(Op.GE)
OP_PREFIX, OP_SUFFIX, OP_SUBSTRING, OP_ANY = int(Op.PREFIX), int(Op.SUFFIX), int(Op.SUBSTRING), int(Op.ANY)
NOPS = len(Op)
T_STRING, T_INT, T_FLOAT, T_BOOL = int(Type.STRING), int(Type.INT), int(Type.FLOAT), int(Type.BOOL)
T_ANY = int(Type.ANY)
NTYPES = len(Type)
#: Added to the type code of a message row that is a number seen as the other
#: numeric type (``numbers="sff"``, see ``_wire._decode_wire``).
T_CONVERTED = 8
#: Grammar spelling of each code, index = code.
TYPE_NAMES = tuple(spec.spelling for spec in TYPE_SPECS)
OP_NAMES = OPERATORS


class Column(NamedTuple):
    """What a field of :class:`TableArrays` or :class:`Scratch` holds: its
    numpy dtype (``None``: chosen per table, and passed with the packed
    buffer), its meaning, and its number of dimensions."""

    dtype: Any
    meaning: str
    ndim: int = 1


class TableArrays(NamedTuple):
    """The compiled forwarding table (see the module docstring)."""

    key_of: Annotated[np.ndarray, Column(np.int32, "n_names * NTYPES: key of (name, type), or -1")]
    block_start: Annotated[np.ndarray, Column(np.int32, "NOPS * n_keys + 1: first constraint of each block")]
    pattern_rank: Annotated[np.ndarray, Column(np.int32, "per prefix, suffix or substring constraint: "
                                                         "its string's rank")]
    link_start: Annotated[np.ndarray, Column(np.int32, "per distinct constraint + 1: its run of links")]
    links: Annotated[np.ndarray, Column(np.int32, "filter ids: the filters holding each constraint")]
    filter_info: Annotated[np.ndarray, Column(None, "uint32 or uint64 per filter: "
                                                    "interface << info_shift | size")]
    interface_filters: Annotated[np.ndarray, Column(np.int32, "n_interfaces + 1: each interface's filters")]
    always: Annotated[np.ndarray, Column(np.int32, "interfaces holding an empty filter")]
    dead: Annotated[np.ndarray, Column(np.uint64, "bitmap: interfaces without filters, and the padding bits")]
    selectivity_name: Annotated[np.ndarray, Column(np.int32, "per selectivity entry: its name")]
    selectivity_type: Annotated[np.ndarray, Column(np.int8, "per selectivity entry: its type (T_ANY: any)")]
    selectivity_bits: Annotated[np.ndarray, Column(np.uint64, "(n_words, entries): each entry's interfaces, "
                                                              "word-major, most selective entry first", 2)]
    string_chars: Annotated[np.ndarray, Column(np.uint32, "code points of the interned constants, in order")]
    string_start: Annotated[np.ndarray, Column(np.int64, "offsets into string_chars")]
    string_hash: Annotated[np.ndarray, Column(np.uint64, "polynomial hash per constant")]
    pattern_slots: Annotated[np.ndarray, Column(np.int32, "open addressing from (operator, key, string) to the "
                                                          "pattern constraints probed by hash, -1 = empty")]
    pattern_max_length: Annotated[np.ndarray, Column(np.int32, "3 * n_keys (prefix, suffix, substring): longest "
                                                               "pattern; -(root + 2): an automaton")]
    pattern_lengths: Annotated[np.ndarray, Column(np.uint64, "3 * n_keys: bitmask of the pattern lengths")]
    string_slots: Annotated[np.ndarray, Column(np.int32, "open addressing from a string's hash to its rank, "
                                                         "-1 = empty")]
    pattern_bloom: Annotated[np.ndarray, Column(np.uint64, "bit filter of the pattern constraints (_probe)")]
    name_chars: Annotated[np.ndarray, Column(np.uint32, "code points of the names, in name id order")]
    name_start: Annotated[np.ndarray, Column(np.int64, "n_names + 1: offsets into name_chars")]
    name_hash: Annotated[np.ndarray, Column(np.uint64, "polynomial hash per name (as string_hash)")]
    name_slots: Annotated[np.ndarray, Column(np.int32, "open addressing from a name's hash to its id, "
                                                       "-1 = empty")]
    name_mask: Annotated[np.ndarray, Column(np.int8, "per name: bit t set if values of type t can match")]
    order_start: Annotated[np.ndarray, Column(np.int32, "n_keys + 1: each key's run of order_value")]
    order_value: Annotated[np.ndarray, Column(np.int64, "each key's distinct =, !=, <, >, <=, >= constants, "
                                                        "sorted")]
    order_layout: Annotated[np.ndarray, Column(np.int64, "per key: rank offset << 8 | log2 width << 6 | "
                                                         "mask of its blocks")]
    order_rank: Annotated[np.ndarray, Column(np.uint8, "per key, rank rows (see _collect_ordered)")]
    link_interface: Annotated[np.ndarray, Column(np.uint8, "per link: its filter's interface "
                                                           "(empty above 256 interfaces)")]
    substring_automata: Annotated[np.ndarray, Column(np.int32, "the keys' substring automata, nodes then edges "
                                                               "(_automaton)")]


class Params(NamedTuple):
    """The table's scalar parameters (all int; packed as one int64 array)."""

    n_keys: int
    n_names: int
    n_interfaces: int
    n_words: int          # 64-bit words of an interface bitmap
    info_shift: int       # filter_info = interface << info_shift | size
    rounds: int           # pre-processing rounds actually run
    hash_mask: int        # len(pattern_slots) - 1
    substring_base: int   # first substring constraint
    n_substrings: int
    n_filters: int
    n_live: int           # interfaces with at least one filter
    max_ranges: int       # most constraint ranges one attribute can collect (Scratch.ranges)


class Scratch(NamedTuple):
    """One thread's working memory for matching messages."""

    counters: Annotated[np.ndarray, Column(None, "uint8 or int32 per filter: constraints matched so far "
                                                 "(zero between messages)")]
    touched: Annotated[np.ndarray, Column(np.int32, "filters whose counter this message raised")]
    done: Annotated[np.ndarray, Column(np.uint64, "bitmap: interfaces matched or excluded")]
    name_mark: Annotated[np.ndarray, Column(np.int64, "per name: the stamp of the last message carrying it")]
    name_types: Annotated[np.ndarray, Column(np.int8, "per name: bit t set if that message has it with type t")]
    substring_mark: Annotated[np.ndarray, Column(np.int64, "per substring constraint: stamp of the last "
                                                           "message it matched")]
    prefix_hash: Annotated[np.ndarray, Column(np.uint64, "hashes of the value's prefixes")]
    hash_power: Annotated[np.ndarray, Column(np.uint64, "HASH_BASE ** k")]
    progress: Annotated[np.ndarray, Column(np.int64, "[5], indexed by MATCHED, TOUCHED, REMAINING, OUT_BASE, "
                                                     "STAMP")]
    absent: Annotated[np.ndarray, Column(np.int64, "selectivity entries the message lacks")]
    link_buffer: Annotated[np.ndarray, Column(np.int32, "BLOCK filters gathered by _count_links")]
    ranges: Annotated[np.ndarray, Column(np.int32, "pairs: the constraint ranges one attribute satisfies")]
    out: Annotated[np.ndarray, Column(np.int32, "n_live: a single-message entry's output (dense indices)")]
    string_start: Annotated[np.ndarray, Column(np.int64, "n_names + 1: forward_one's string offsets")]
    message_chars: Annotated[np.ndarray, Column(np.uint32, "forward_message's decoded names and strings "
                                                           "(as long as prefix_hash)")]
    message_rows: Annotated[np.ndarray, Column(np.int64, "6 * n_names + 6: forward_message's attribute rows "
                                                         "(2 per name at most)")]


#: Indices into ``Scratch.progress``, the state the counting functions share:
#: interfaces written to the output, filters touched, candidate interfaces
#: left, where this message's output starts, and the stamp of the thread's
#: last message (each message takes the next one: the name and substring
#: marks of older messages then no longer count).
MATCHED, TOUCHED, REMAINING, OUT_BASE, STAMP = range(5)


def columns(cls: type) -> tuple[Column, ...]:
    """The declared :class:`Column` of each field of ``cls``
    (:class:`TableArrays` or :class:`Scratch`), in field order."""
    hints = get_type_hints(cls, include_extras=True)
    found = []
    for name in cls._fields:  # type: ignore[attr-defined]  # a NamedTuple class, which mypy types as type here
        column = next((m for m in getattr(hints[name], "__metadata__", ()) if isinstance(m, Column)), None)
        if column is None:
            raise TypeError(f"{cls.__name__}.{name} declares no Column")
        found.append(column)
    return tuple(found)


# ------------------------------------------------------- the packed buffers
#: dtypes of the TableArrays fields in the packed buffer; ``None`` is
#: filter_info, whose dtype (uint32 or uint64) comes with the table.
TABLE_DTYPES = tuple(c.dtype for c in columns(TableArrays))
#: the packed table: its arrays, then the Params as one int64 array
PACKED_TABLE_DTYPES = (*TABLE_DTYPES, np.int64)
#: the same for Scratch; ``None`` is counters (uint8 or int32, with the table).
SCRATCH_DTYPES = tuple(c.dtype for c in columns(Scratch))
#: arrays in the two packed buffers; the table's last one holds the Params
N_PACKED_TABLE = len(PACKED_TABLE_DTYPES)
N_PACKED_SCRATCH = len(SCRATCH_DTYPES)
_ALIGN = 8


def pack_arrays(arrays: tuple, dtypes: tuple) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``arrays`` copied into one 8-byte aligned uint8 buffer: returns
    (buffer, layout, views). ``layout[k]`` is (first byte, end byte, rows of a
    2-D array or -1), and the buffer's first ``24 * len(arrays)`` bytes hold
    a copy of it; ``views[k]`` is array k as a view of the buffer, of the
    same dtype, shape and contents. Each array must be C-contiguous, of the
    dtype ``dtypes[k]`` (any for ``None``), at most 2-D."""
    layout = np.zeros((len(arrays), 3), np.int64)
    pos = layout.nbytes
    for k, (a, dtype) in enumerate(zip(arrays, dtypes, strict=True)):
        if dtype is not None and a.dtype != dtype:
            raise TypeError(f"packed array {k}: dtype {a.dtype}, expected {np.dtype(dtype)}")
        if a.ndim > 2:
            raise ValueError(f"packed array {k} has {a.ndim} dimensions")
        layout[k] = (pos, pos + a.nbytes, a.shape[0] if a.ndim == 2 else -1)
        pos += -(-a.nbytes // _ALIGN) * _ALIGN
    buffer = np.empty(max(pos, _ALIGN), np.uint8)
    buffer[:layout.nbytes].view(np.int64)[:] = layout.ravel()
    views = []
    for k, a in enumerate(arrays):
        view = buffer[layout[k, 0]:layout[k, 1]].view(a.dtype).reshape(a.shape)
        view[...] = a
        views.append(view)
    return buffer, layout, tuple(views)
