"""Messages as the matcher's wire bytes, encoded in Python and decoded in
compiled code: the single-message entry reads a :class:`cbalgebra.Message`'s
wire.

A message's wire (:func:`message_wire`: encoded the first time the matcher
forwards the message, and kept in the slot ``Message.wire`` that the core
reserves for it) is ``marshal`` format version 2 of ``(names, values)``: a
tuple of the attribute names and a list of their values, in the same order.
Version 2 writes no back-references, so the format read here is small:

- ``(`` or ``[``, then the item count as int32;
- a string: ``u`` (or ``t``, interned), the length in bytes as int32, then
  UTF-8;
- ``i`` and an int32; ``l``, a signed int32 count n of 15-bit digits, then
  |n| uint16 digits, least significant first (ints beyond 32 bits);
- ``g`` and a little-endian IEEE-754 double;
- ``T`` and ``F`` for the bools.

:func:`forward_message` turns the wire into the attribute rows and the
string pool the kernel takes, as ``ForwardingTable.encode`` describes them
(``tests/test_matcher_wire.py`` checks them against an encoder written in
Python), then matches it by the same phases as ``_message.match_message``,
which :func:`cbalgebra.matcher._kernels.forward_one` and the batch entries
call. :func:`decode_wires` decodes a batch.
"""

from __future__ import annotations

import marshal
import operator
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from cbalgebra.matcher._lookup import HASH_BASE, slot_of
from cbalgebra.matcher._message import (
    _count_attributes, _finish, _match_empty_filters, _preprocess, _start_candidates,
)
from cbalgebra.matcher._numba_cache import CACHE, COMPILED_CALLERS_ONLY
from cbalgebra.matcher._views import _rows_of, _unmanaged, _view_at, field, unpack_scalars
from cbalgebra.matcher.layout import (
    OP_EQ, STAMP, T_BOOL, T_CONVERTED, T_FLOAT, T_INT, T_STRING, Params, Scratch, TableArrays,
)
from cbalgebra.semantics import SFF_INT_MAX, SFF_INT_MIN
from cbalgebra.values import Message

#: What :func:`forward_message` returns besides a count: the scratch cannot
#: hold the message (grow it to ``len(wire)`` code points and call again), or
#: the bytes are not a wire this module reads.
SCRATCH_TOO_SMALL = -1
NOT_A_WIRE = -2

_LOW63 = np.int64(0x7FFFFFFFFFFFFFFF)


# ------------------------------------------------------------ encoding
_VALUE_OF = operator.attrgetter("value")
_EMPTY_WIRE = marshal.dumps(((), []), 2)
_SET_WIRE = Message.__dict__["wire"].__set__  # the slot Message reserves for the matcher


def encode_attributes(attributes: tuple) -> bytes:
    """A message's attributes, (name, Attribute) pairs in name order, as its
    wire: ``marshal`` format version 2 of (the names, a list of the values).
    Equal messages have equal wires. Values are canonical (exact ``str``,
    ``int``, ``float`` and ``bool``), so a value's Python class gives its
    type."""
    if not attributes:
        return _EMPTY_WIRE
    names, attrs = zip(*attributes, strict=True)
    return marshal.dumps((names, list(map(_VALUE_OF, attrs))), 2)


def message_wire(message: Message) -> bytes:
    """``message``'s wire, encoded on the first call and kept in
    ``message.wire`` for the next ones.

    Why the wire: the compiled entries decode it, so ``forward()`` does no
    Python work per attribute (on a message's Python objects that work costs
    a few hundred nanoseconds per attribute, more than matching the
    attribute does). Why encoded here and not with the message: most
    messages are never forwarded (issue 25), and a message forwarded again
    (to several tables, or broadcast sets) is encoded once. Why a slot on the
    message and not a table of the matcher's own: a slot costs one attribute
    read per ``forward()``, where a ``WeakKeyDictionary`` would hash the
    message (and Message, a slotted class, takes no weak references).
    Two threads encoding one message at once store equal bytes."""
    wire = message.wire
    if wire is None:
        wire = encode_attributes(message.attributes)
        _SET_WIRE(message, wire)
    return wire


@intrinsic
def _reinterpret_intrinsic(typingctx, value, target):
    """The bits of a 64-bit ``value`` read as ``target`` (int64 <-> float64)."""
    if not isinstance(target, types.NumberClass):
        return None
    result = target.instance_type
    if result.bitwidth != 64 or getattr(value, "bitwidth", 0) != 64:
        return None
    sig = result(value, target)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(result))

    return sig, codegen


_reinterpret = cast(Callable[[Any, Any], Any], _reinterpret_intrinsic)


@njit(cache=CACHE, forceinline=True, **COMPILED_CALLERS_ONLY)
def _int32_at(w, p):
    """The little-endian int32 at ``w[p:p + 4]``. (Inlined by LLVM, not by
    numba: at its ten call sites numba's copies cost 0.2 s of a cold first
    ``forward()``; see ``_counting``.)"""
    x = (np.uint32(w[p]) | (np.uint32(w[p + 1]) << np.uint32(8)) | (np.uint32(w[p + 2]) << np.uint32(16))
         | (np.uint32(w[p + 3]) << np.uint32(24)))
    return np.int64(np.int32(x))


@njit(cache=CACHE, inline="always")
def _utf8_sequence(w, p, b):
    """The code point of the multi-byte UTF-8 sequence at ``w[p]`` (first
    byte ``b``) and the position after it. The bytes come from CPython's
    encoder, so they are well formed."""
    low6 = np.uint32(0x3F)
    if b < 0xE0:
        return ((b & np.uint32(0x1F)) << np.uint32(6)) | (np.uint32(w[p + 1]) & low6), p + 2
    if b < 0xF0:
        c = ((b & np.uint32(0x0F)) << np.uint32(12)) | ((np.uint32(w[p + 1]) & low6) << np.uint32(6))
        return c | (np.uint32(w[p + 2]) & low6), p + 3
    c = ((b & np.uint32(0x07)) << np.uint32(18)) | ((np.uint32(w[p + 1]) & low6) << np.uint32(12))
    return c | ((np.uint32(w[p + 2]) & low6) << np.uint32(6)) | (np.uint32(w[p + 3]) & low6), p + 4


@njit(cache=CACHE, forceinline=True, **COMPILED_CALLERS_ONLY)
def _decode_utf8(w, p, end, chars, q):
    """Decode the UTF-8 in ``w[p:end]`` to code points at ``chars[q:]``;
    returns the position after the last one and the polynomial hash of the
    code points (as ``_kernels.string_hashes``). ASCII, the common case,
    takes one comparison a byte."""
    h = np.uint64(0)
    while p < end:
        b = np.uint32(w[p])
        if b < 0x80:
            c = b
            p += 1
        else:
            c, p = _utf8_sequence(w, p, b)
        chars[q] = c
        h = h * HASH_BASE + (np.uint64(c) + np.uint64(1))
        q += 1
    return q, h


@njit(cache=CACHE, inline="always")
def _name_id(names, chars, s, e, h):
    """The table's id of the name ``chars[s:e]`` (hash ``h``), -1 if no
    constraint names it. ``names`` is the table's (name_chars, name_start,
    name_hash, name_slots, name_mask)."""
    name_chars, name_start, name_hash, slots, _ = names
    mask = slots.shape[0] - 1
    k = slot_of(h, 0, OP_EQ, mask)
    while True:
        r = slots[k]
        if r < 0:
            return -1
        if name_hash[r] == h and name_start[r + 1] - name_start[r] == e - s:
            first = name_start[r]
            same = True
            for j in range(e - s):
                if name_chars[first + j] != chars[s + j]:
                    same = False
                    break
            if same:
                return r
        k = (k + 1) & mask


@njit(cache=CACHE, inline="always")
def _float_order_key(bits):
    """``values.float_order_key`` from the double's bits (as int64)."""
    return bits if bits >= 0 else -(bits & _LOW63)


# _attribute_count and _skip_strings are inlined (by numba; they are small):
# each has one call in forward()'s kernels, and a function of its own costs
# numba ~0.1 s of a cold first call whatever its size.
@njit(cache=CACHE, inline="always")
def _attribute_count(w, start, end):
    """The number of attributes in the wire ``w[start:end]`` as its header
    gives it, or -1 if the header is not a wire's. An attribute takes at
    least 7 bytes (a one-byte name and a bool), which bounds the count."""
    if end - start < 10 or w[start] != 0x28 or _int32_at(w, start + 1) != 2 or w[start + 5] != 0x28:  # '(' 2 '('
        return -1
    n = _int32_at(w, start + 6)
    return n if 0 <= n <= (end - start) // 7 else -1


@njit(cache=CACHE, inline="always")
def _skip_strings(w, p, n, end):
    """The position after ``n`` marshalled strings from ``w[p]``; -1 if
    something else is there."""
    for _ in range(n):
        if p + 5 > end or (w[p] != 0x75 and w[p] != 0x74):  # 'u', 't'
            return -1
        p += 5 + _int32_at(w, p + 1)
    return p


@njit(cache=CACHE, **COMPILED_CALLERS_ONLY)
def _decode_wire(names, w, start, end, sff, rows, n_rows, chars, free, string_start, n_strings):
    """Append the message ``w[start:end]`` (a wire, see the module docstring)
    as attribute rows (name id, type code, value) at ``rows[3 * n_rows:]``
    and its strings as ``chars[free:]`` with their ends at
    ``string_start[n_strings + 1:]``, exactly as
    ``ForwardingTable.encode`` describes: attributes whose name and type no
    constraint of the table mentions are left out; under ``sff`` a number
    may get a second row. ``names`` is the table's name lookup (see
    :func:`_name_id`). Returns (rows, strings, chars) used after the
    message, or (NOT_A_WIRE, 0, 0)."""
    fail = (np.int64(NOT_A_WIRE), np.int64(0), np.int64(0))
    n = _attribute_count(w, start, end)
    if n < 0:
        return fail
    name_pos = start + 10
    value_pos = _skip_strings(w, name_pos, n, end)
    if value_pos < 0 or value_pos + 5 > end or w[value_pos] != 0x5B or _int32_at(w, value_pos + 1) != n:  # '['
        return fail
    value_pos += 5
    name_mask = names[4]
    for _ in range(n):
        length = _int32_at(w, name_pos + 1)
        name_end, h = _decode_utf8(w, name_pos + 5, name_pos + 5 + length, chars, free)
        name_pos += 5 + length
        name = _name_id(names, chars, free, name_end, h)
        if value_pos >= end:
            return fail
        tag = w[value_pos]
        used = np.int64(name_mask[name]) if name >= 0 else np.int64(0)
        if tag == 0x75 or tag == 0x74:  # a string: 'u', or 't' if interned
            length = _int32_at(w, value_pos + 1)
            if (used >> T_STRING) & 1:
                free, _ = _decode_utf8(w, value_pos + 5, value_pos + 5 + length, chars, free)
                string_start[n_strings + 1] = free
                rows[3 * n_rows] = name
                rows[3 * n_rows + 1] = T_STRING
                rows[3 * n_rows + 2] = n_strings
                n_rows += 1
                n_strings += 1
            value_pos += 5 + length
            continue
        if tag == 0x54 or tag == 0x46:  # 'T', 'F'
            t = T_BOOL
            value = np.int64(1 if tag == 0x54 else 0)
            value_pos += 1
        elif tag == 0x69:  # 'i'
            t = T_INT
            value = _int32_at(w, value_pos + 1)
            value_pos += 5
        elif tag == 0x6C:  # 'l'
            t = T_INT
            digits = _int32_at(w, value_pos + 1)
            count = digits if digits >= 0 else -digits
            magnitude = np.uint64(0)
            for k in range(count):
                q = value_pos + 5 + 2 * k
                digit = np.uint64(w[q]) | (np.uint64(w[q + 1]) << np.uint64(8))
                magnitude |= digit << np.uint64(15 * k)
            value = np.int64(magnitude) if digits >= 0 else np.int64(0) - np.int64(magnitude)
            value_pos += 5 + 2 * count
        elif tag == 0x67:  # 'g'
            t = T_FLOAT
            bits = np.uint64(0)
            for k in range(8):
                bits |= np.uint64(w[value_pos + 1 + k]) << np.uint64(8 * k)
            value = np.int64(bits)
            value_pos += 9
        else:
            return fail
        if (used >> t) & 1:
            rows[3 * n_rows] = name
            rows[3 * n_rows + 1] = t
            rows[3 * n_rows + 2] = _float_order_key(value) if t == T_FLOAT else value
            n_rows += 1
        if sff and name >= 0:
            # SFF 2.x tries a number as the other numeric type too
            # (cbalgebra.semantics.attribute_satisfies); the row is flagged so
            # that the name's type-any constraints are not counted twice
            if t == T_INT and (used >> T_FLOAT) & 1:
                rows[3 * n_rows] = name
                rows[3 * n_rows + 1] = T_FLOAT + T_CONVERTED
                rows[3 * n_rows + 2] = _float_order_key(_reinterpret(np.float64(value), np.int64))
                n_rows += 1
            elif t == T_FLOAT and (used >> T_INT) & 1:
                x = _reinterpret(value, np.float64)
                if np.floor(x) == x and SFF_INT_MIN <= x <= SFF_INT_MAX:
                    rows[3 * n_rows] = name
                    rows[3 * n_rows + 1] = T_INT + T_CONVERTED
                    rows[3 * n_rows + 2] = np.int64(x)
                    n_rows += 1
    return np.int64(n_rows), np.int64(n_strings), np.int64(free)


@njit(cache=CACHE)
def decode_wires(names, w, w_off, sff):
    """Messages ``w[w_off[m]:w_off[m + 1]]`` (wires) as a ``MessageBatch``'s
    arrays: (m_off, attrs, s_chars, s_off, longest string), or a first array
    of length 0 if one of them is not a wire."""
    n_messages = w_off.shape[0] - 1
    bound = 0  # rows: one per attribute, two under sff
    for m in range(n_messages):
        count = _attribute_count(w, w_off[m], w_off[m + 1])
        if count < 0:
            return np.empty(0, np.int64), np.empty((0, 3), np.int64), np.empty(0, np.uint32), np.zeros(1, np.int64), 0
        bound += count
    rows = np.empty(3 * (2 if sff else 1) * bound, dtype=np.int64)
    chars = np.empty(w.shape[0], dtype=np.uint32)
    string_start = np.empty(bound + 1, dtype=np.int64)
    string_start[0] = 0
    m_off = np.empty(n_messages + 1, dtype=np.int64)
    m_off[0] = 0
    n_rows = np.int64(0)
    n_strings = np.int64(0)
    free = np.int64(0)
    for m in range(n_messages):
        n_rows, n_strings, free = _decode_wire(names, w, w_off[m], w_off[m + 1], sff, rows, n_rows, chars, free,
                                               string_start, n_strings)
        if n_rows < 0:
            return np.empty(0, np.int64), np.empty((0, 3), np.int64), np.empty(0, np.uint32), np.zeros(1, np.int64), 0
        m_off[m + 1] = n_rows
    longest = 0
    for k in range(n_strings):
        longest = max(longest, string_start[k + 1] - string_start[k])
    return (m_off, rows[:3 * n_rows].copy().reshape(n_rows, 3), chars[:free].copy(),
            string_start[:n_strings + 1].copy(), longest)


@njit(cache=CACHE)
def encode_wire(names, w, sff, capacity):
    """The wire ``w`` as ``table.EncodedMessage.data`` lays a message out
    (int64 n, -1, -1, s; n rows; s string lengths; the code points as
    uint32), in a uint8 array, and the longest string; ``capacity`` bounds
    the rows (twice the table's names). A first array of length 0 if ``w``
    is not a wire."""
    rows = np.empty(3 * capacity, dtype=np.int64)
    chars = np.empty(w.shape[0], dtype=np.uint32)
    string_start = np.empty(capacity + 1, dtype=np.int64)
    string_start[0] = 0
    zero = np.int64(0)  # see forward_message
    n, n_strings, free = _decode_wire(names, w, zero, w.shape[0], sff, rows, zero, chars, zero, string_start, zero)
    if n < 0:
        return np.empty(0, np.uint8), 0
    head = 4 + 3 * n + n_strings
    out = np.empty(8 * head + 4 * free, dtype=np.uint8)
    numbers = out[:8 * head].view(np.int64)
    numbers[0] = n
    numbers[1] = -1
    numbers[2] = -1
    numbers[3] = n_strings
    numbers[4:4 + 3 * n] = rows[:3 * n]
    longest = 0
    for k in range(n_strings):
        length = string_start[k + 1] - string_start[k]
        numbers[4 + 3 * n + k] = length
        longest = max(longest, length)
    out[8 * head:].view(np.uint32)[:] = chars[:free]
    return out, longest


@njit(cache=CACHE)
def forward_message(table_buffer, scratch_buffer, wire, set_members, set_lo, set_hi, sff):
    """Forward one :class:`cbalgebra.Message` given by its ``wire`` bytes
    (``ForwardingTable.forward``): the table and the scratch are packed as
    for :func:`cbalgebra.matcher._kernels.forward_one`; the broadcast set is
    ``set_members[set_lo:set_hi]`` (every interface when ``set_lo < 0``);
    ``sff`` selects ``numbers="sff"``. Writes the dense ids, sorted, at the
    start of the scratch's ``out`` and returns how many, or
    SCRATCH_TOO_SMALL (having done nothing) or NOT_A_WIRE."""
    # the few arrays read here, one by one (see _views.field)
    params = unpack_scalars(table_buffer, TableArrays, Params)
    message_chars = field(scratch_buffer, Scratch, "message_chars")
    w = _view_at(wire, 0, len(wire), np.uint8)
    # a name or a string never decodes to more code points than it has bytes
    if w.shape[0] > message_chars.shape[0]:
        return SCRATCH_TOO_SMALL
    rows = field(scratch_buffer, Scratch, "message_rows")
    string_start = field(scratch_buffer, Scratch, "string_start")
    string_start[0] = 0
    names = (field(table_buffer, TableArrays, "name_chars"), field(table_buffer, TableArrays, "name_start"),
             field(table_buffer, TableArrays, "name_hash"), field(table_buffer, TableArrays, "name_slots"),
             field(table_buffer, TableArrays, "name_mask"))
    zero = np.int64(0)  # not a literal 0, which numba would compile the callees for again (see forward_one)
    n, _, _ = _decode_wire(names, w, zero, w.shape[0], sff, rows, zero, message_chars, zero, string_start, zero)
    if n < 0:
        return n
    attrs = _unmanaged(_rows_of(_view_at(rows, 0, 24 * n, np.int64), 3))
    # The phases of match_message, run here rather than called (issue 28 §6):
    # a compiled callee is optimised by LLVM once in its own library and again
    # in each caller's, so match_message as a function of its own put the
    # counting code through LLVM a third time. Without it a cold first
    # forward() took 0.94-0.96 of the CPU time (interleaved runs of
    # benchmarks/forward_compile.py's child); inlining it by numba instead
    # saved nothing, numba's copy of its code costing what LLVM's pass saved. The batch entries and forward_one keep
    # match_message; tests/test_matcher_wire.py checks forward() against them.
    table, scratch = _unmanaged(table_buffer), _unmanaged(scratch_buffer)
    chars, string_start, set_members = _unmanaged(message_chars), _unmanaged(string_start), _unmanaged(set_members)
    out = _unmanaged(field(scratch, Scratch, "out"))
    done, progress = field(scratch, Scratch, "done"), field(scratch, Scratch, "progress")
    stamp = progress[STAMP] + 1
    progress[STAMP] = stamp
    if _start_candidates(done, field(table, TableArrays, "dead"), progress, params.n_words, params.n_live,
                         set_members, set_lo, set_hi, zero) == 0:
        return 0
    if (_match_empty_filters(field(table, TableArrays, "always"), done, progress, out) > 0
            and _preprocess(field(table, TableArrays, "selectivity_name"),
                            field(table, TableArrays, "selectivity_type"),
                            field(table, TableArrays, "selectivity_bits"), params.rounds, params.n_words,
                            field(scratch, Scratch, "name_mark"), field(scratch, Scratch, "name_types"),
                            field(scratch, Scratch, "absent"), done, progress, attrs, zero, n, stamp) > 0):
        _count_attributes(table, params, attrs, zero, n, chars, string_start, scratch, out, stamp)
    return _finish(field(scratch, Scratch, "counters"), field(scratch, Scratch, "touched"), progress, done, out, zero)
