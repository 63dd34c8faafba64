"""``ForwardingTable``: the public face of the forwarding engine.

Build a table once (``compile``, ``from_arrays`` or ``from_document``), then
``forward`` messages one at a time or ``forward_batch`` them on all cores.
The work per message happens in compiled code (``_kernels`` and ``_wire``,
which decodes each message from its wire bytes, :func:`message_wire`,
encoded when the message is first forwarded); this module only validates
input and hands over buffers and results.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from cbalgebra.matcher._build import Compiled, RawTable, compile_raw
from cbalgebra.matcher._interval_build import IntervalIndex, _sorted_distinct, check_mode, split_table
from cbalgebra.matcher._intervals import match_interval_batch, match_interval_message, merge_csr
from cbalgebra.matcher.columns import encode_predicates
from cbalgebra.matcher._kernels import compile_times as _kernel_compile_times
from cbalgebra.matcher._kernels import (
    compile_notice, first_call, forward_one, forward_parallel, forward_serial, new_scratch,
)
from cbalgebra.matcher._wire import NOT_A_WIRE, decode_wires, encode_wire, forward_message, message_wire
from cbalgebra.matcher.layout import NTYPES, SCRATCH_DTYPES, TYPE_NAMES, Scratch, pack_arrays
from cbalgebra.semantics import check_numbers
from cbalgebra.values import Constraint, Filter, Message, Predicate

__all__ = ["EncodedMessage", "ForwardingTable", "MessageBatch", "compile_times", "message_wire", "warm_up"]

log = logging.getLogger("cbalgebra.matcher")

DEFAULT_ROUNDS = 10


# ---------------------------------------------------------------- messages
@dataclass(frozen=True)
class MessageBatch:
    """Messages encoded for one table (``ForwardingTable.encode``).

    ``attrs[k] = (name id, type code, value)``; ``m_off[m]:m_off[m + 1]`` are
    the rows of message m. A string's value is its index in the code-point
    pool ``s_chars`` / ``s_off``; a float's is its order-preserving int64.
    Attributes whose name and type no constraint of the table mentions are
    dropped: they cannot satisfy anything. Under ``numbers="sff"`` a number
    also gets a row of the other numeric type (type code + ``T_CONVERTED``)
    when SFF would try it there.
    """

    m_off: np.ndarray    # int64, M + 1
    attrs: np.ndarray    # int64, (n, 3)
    s_chars: np.ndarray  # uint32 code points
    s_off: np.ndarray    # int64
    maxlen: int
    token: object
    numbers: str = "strict"
    #: the messages' rows for the table's interval index, (m_off, attrs), if it has one
    interval_rows: tuple | None = None

    def __len__(self) -> int:
        return int(self.m_off.shape[0] - 1)


class EncodedMessage(NamedTuple):
    """One message encoded for one table (``ForwardingTable.encode_message``),
    in the form the single-message kernel takes: ``data`` is bytes holding
    int64 (n, -1, -1, s), n attribute rows (name id, type code, value) as in
    a :class:`MessageBatch`, the lengths of its s strings, then their code
    points as uint32. One bytes object, because per message each numpy
    array made in Python costs more than packing the numbers."""

    data: bytes
    maxlen: int        # the longest string, in code points
    token: object
    numbers: str = "strict"
    wire: bytes = b""  # the message's wire, kept when the table has an interval index

    @property
    def attrs(self) -> np.ndarray:
        """The attribute rows, (n, 3)."""
        n = int.from_bytes(self.data[:8], "little", signed=True)
        return np.frombuffer(self.data, dtype="<i8", count=3 * n, offset=32).reshape(n, 3)


# ----------------------------------------------------------- numba warm-up
compile_times = _kernel_compile_times


def _first_table() -> ForwardingTable:
    """A small table with a constraint of every operator family (so that
    building it runs each of the build's kernels but the substring automata's,
    which only a table that needs one compiles), for loading or compiling the
    kernels before a user's table."""
    return ForwardingTable.compile({
        0: Filter([Constraint("int", "a", ">", 1), Constraint("string", "b", ">*", "x"),
                   Constraint("string", "b", "*", "y"), Constraint("string", "s", "*<", "z")]),
        1: Filter([Constraint("bool", "c", "=", True), Constraint("float", "f", "<=", 2.5),
                   Constraint("string", "b", "=", "xy"), Constraint("string", "d", "any", None)]),
    }, preprocessing_rounds=1)


_kernels_ready: dict[str, bool] = {}
_kernels_lock = threading.Lock()


def _ensure_kernels() -> float:
    """Before the first table of a process: load the kernels that building a
    table and ``forward()`` need, or, on a fresh install, compile them all at
    once, saying so once on standard error (``compile_notice``). Returns
    the seconds it took (0 after the first time)."""
    if _kernels_ready:
        return 0.0
    with _kernels_lock:
        if _kernels_ready:
            return 0.0
        _kernels_ready["forward"] = True  # the small table below comes back here
        t0 = time.perf_counter()
        with compile_notice("ForwardingTable and forward()"):
            _first_table().forward(Message())
        return time.perf_counter() - t0


def warm_up() -> float:
    """Compile, or load from numba's cache, the kernels of the usual table
    layout: building (from predicates and from a document), ``forward()``,
    ``encode_message``/``forward_encoded`` and ``forward_batch`` on one
    thread and on two, and the interval index's (``make install`` runs it, so that later processes
    find them all in numba's cache). Returns the seconds this took."""
    t0 = time.perf_counter()
    _ensure_kernels()
    table = _first_table()
    with compile_notice("documents, forward_batch and forward_encoded"):
        ForwardingTable.from_document('ifconfig 0 a > 1, s *< "z";\n')  # the document scanner (the CLI's)
        # a substring of 63 characters or more gets an automaton (_build._automaton_keys)
        ForwardingTable.compile({0: Filter([Constraint("string", "s", "*", "z" * 63)])})
        table.forward_encoded(table.encode_message(Message()))
        table.forward_batch([Message(), Message()], threads=1)
        table.forward_batch([Message(), Message()], threads=2)
    with compile_notice("the interval index"):
        indexed = ForwardingTable.compile({0: Filter([Constraint("int", "a", ">", 1), Constraint("int", "a", "<", 5)])},
                                          intervals="index")
        indexed.forward(Message({"a": 2}))
        indexed.forward_encoded(indexed.encode_message(Message({"a": 2})))
        indexed.forward_batch([Message(), Message({"a": 2})], threads=1)
    return time.perf_counter() - t0


# ------------------------------------------------------------------- table
class ForwardingTable:
    """A compiled content-based forwarding table (Carzaniga & Wolf, Forwarding
    in a Content-Based Network, SIGCOMM 2003, §4).

    ``forward(m, B)`` computes CBF(m, B, T): the sorted ids of the interfaces
    in ``B`` (all interfaces when ``B`` is None) whose predicate matches m,
    with exactly the semantics of :func:`cbalgebra.matches` under the same
    ``numbers`` mode: ``"strict"`` (default) keeps int and float apart,
    ``"sff"`` converts between them as Siena Fast Forwarding 2.x does.
    The mode concerns matching only: covering (``cb.covers``) stays strict.
    """

    def __init__(self, compiled: Compiled, rounds_requested: int, compile_seconds: float,
                 numbers: str = "strict", intervals: IntervalIndex | None = None) -> None:
        self._compiled = compiled
        self._intervals = intervals
        self._numbers = check_numbers(numbers)
        self._rounds_requested = rounds_requested
        self.compile_seconds = compile_seconds
        self._local = threading.local()
        self._serial_variant = f"serial/{compiled.counter_dtype.name}"
        # interface ids 0 .. n - 1: a dense index is its own id
        ids = compiled.interfaces
        self._dense_ids = bool(ids.shape[0] == 0 or (ids[0] == 0 and ids[-1] == ids.shape[0] - 1))
        self._parallel_variant = f"parallel/{compiled.counter_dtype.name}"
        self._one_variant = f"one/{compiled.counter_dtype.name}"
        self._warm_one = self._one_variant in _kernel_compile_times()
        self._message_variant = f"message/{compiled.counter_dtype.name}"
        self._warm_message = self._message_variant in _kernel_compile_times()
        self._sff = numbers == "sff"
        self._one_table = compiled.one_table

    # ----------------------------------------------------------- building
    @classmethod
    def compile(cls, table: Mapping[int, Predicate | Filter], preprocessing_rounds: int = DEFAULT_ROUNDS, *,
                numbers: str = "strict", intervals: str = "auto") -> ForwardingTable:
        """Compile ``{interface_id: Predicate | Filter}``; ids are ints >= 0.

        ``preprocessing_rounds`` is how many entries of the selectivity table
        are checked before counting (0 turns the pre-processing off).
        ``numbers``: ``"strict"`` or ``"sff"`` (see :func:`cbalgebra.matches`).
        ``intervals``: how filters made only of numeric intervals are matched:
        ``"auto"`` chooses per attribute between counting and the interval
        index by measured selectivity, ``"index"`` forces the index for all
        of them, ``"counting"`` keeps counting alone (the paper's algorithm);
        :meth:`algorithms` says what was chosen.
        """
        t0 = time.perf_counter()
        check_numbers(numbers)
        if not isinstance(table, Mapping):
            raise TypeError(f"compile expects a mapping of interface id to predicate, not {type(table).__name__}")
        rounds = _check_rounds(preprocessing_rounds)
        check_mode(intervals)
        raw = encode_predicates(table)
        return cls._from_raw(raw, rounds, t0, numbers, intervals)

    @classmethod
    def _from_raw(cls, raw: RawTable, rounds: int, t0: float, numbers: str = "strict",
                  intervals: str = "auto") -> ForwardingTable:
        kernels = _ensure_kernels()
        jit_before = sum(compile_times().values())
        n_interfaces = int(_sorted_distinct(raw.interfaces).shape[0])
        counted, index = split_table(raw, n_interfaces, check_mode(intervals)) if raw.c_filter.size else (raw, None)
        compiled = compile_raw(counted, rounds)
        jit = sum(compile_times().values()) - jit_before + kernels
        # numba's first calls are reported by compile_times(), not here
        return cls(compiled, rounds, time.perf_counter() - t0 - jit, numbers, index)

    @classmethod
    def from_arrays(cls, *, interfaces: Any, filter_interface: Any, c_filter: Any, c_name: Any, c_type: Any,
                    c_op: Any, c_value: Any,
                    names: Sequence[str], strings: Sequence[str] = (),
                    preprocessing_rounds: int = DEFAULT_ROUNDS, numbers: str = "strict",
                    intervals: str = "auto") -> ForwardingTable:
        """The fast constructor: a table given as columns, one row per constraint.

        - ``interfaces``: all interface ids (ints >= 0), including those with
          an empty predicate; ``filter_interface[f]``: the interface of filter f
          (a filter with no rows is the empty filter, which matches everything).
        - ``c_filter[k]``, ``c_name[k]`` (index into ``names``), ``c_type[k]``
          (0 string, 1 int, 2 float, 3 bool, 4 any), ``c_op[k]`` (0 ``=``,
          1 ``!=``, 2 ``<``, 3 ``>``, 4 ``<=``, 5 ``>=``, 6 prefix, 7 suffix,
          8 substring, 9 any) and ``c_value[k]`` (int64: the int; 0/1 for a
          bool; the float's IEEE-754 bits, ``np.float64(x).view(np.int64)``;
          for a string, its index into ``strings``; ignored for any).

        Names and strings must be valid (no surrogates; names non-empty): they
        are not re-checked here. ``compile`` is the general entry point; the
        workload generator uses this one to build millions of constraints
        without Python objects. ``numbers`` and ``intervals`` as in ``compile``.
        """
        t0 = time.perf_counter()
        rounds = _check_rounds(preprocessing_rounds)
        check_numbers(numbers)
        check_mode(intervals)
        raw = raw_table(interfaces, filter_interface, c_filter, c_name, c_type, c_op, c_value, names, strings)
        return cls._from_raw(raw, rounds, t0, numbers, intervals)

    @classmethod
    def from_document(cls, text: str, preprocessing_rounds: int | None = None, *,
                      numbers: str = "strict") -> ForwardingTable:
        """Build a table from a document (see ``cbalgebra.matcher.document``)."""
        from cbalgebra.matcher.document import table_from_document

        return table_from_document(text, preprocessing_rounds, numbers=numbers)

    def with_preprocessing_rounds(self, rounds: int) -> ForwardingTable:
        """The same table with another number of pre-processing rounds; the
        arrays are shared, only the selectivity bitmaps are rebuilt."""
        rounds = _check_rounds(rounds)
        return ForwardingTable(self._compiled.with_rounds(rounds), rounds, 0.0, self._numbers, self._intervals)

    def with_numbers(self, numbers: str) -> ForwardingTable:
        """The same compiled table matching numbers another way (``"strict"``
        or ``"sff"``); nothing is recompiled. The mode is a property of how
        messages are encoded, so a MessageBatch belongs to one mode."""
        return ForwardingTable(self._compiled, self._rounds_requested, 0.0, numbers, self._intervals)

    @property
    def numbers(self) -> str:
        """How int and float meet: ``"strict"`` or ``"sff"``."""
        return self._numbers

    # ------------------------------------------------------------ facts
    @property
    def interfaces(self) -> np.ndarray:
        """All interface ids, sorted."""
        return self._compiled.interfaces.copy()

    @property
    def preprocessing_rounds(self) -> int:
        """Rounds actually run: the request, capped by the selectivity table's length."""
        return int(self._compiled.params.rounds)

    @property
    def nbytes(self) -> int:
        """Bytes of the compiled arrays (the whole table, not the per-thread scratch)."""
        return self._compiled.nbytes + (self._intervals.nbytes if self._intervals is not None else 0)

    def algorithms(self) -> list[tuple[str, str, str]]:
        """How each attribute (name, type) of the table's constraints is
        matched: ``"counting"`` (Carzaniga & Wolf, SIGCOMM 2003, §4),
        ``"interval index"`` (bucket bitmaps, see ``intervals=`` of
        :meth:`compile`) or ``"checked"`` (in the interval index's filters,
        compared exactly on each candidate without a bitmap of its own). An
        attribute with filters of both kinds is listed twice."""
        compiled = self._compiled
        found = [(compiled.names[int(code) // NTYPES], TYPE_NAMES[int(code) % NTYPES], "counting")
                 for code in np.flatnonzero(compiled.arrays.key_of >= 0)]
        if self._intervals is not None:
            found += [(name, type_, algorithm) for name, type_, algorithm, _, _ in self._intervals.algorithms()]
        return sorted(found)

    def selectivity_table(self, limit: int | None = None) -> list[tuple[str, str, list[int]]]:
        """The selectivity table of §4.3, most selective entry first: (name,
        type or 'any', interface ids for which that attribute is a
        determinant). Only the first ``preprocessing_rounds`` entries are used
        when forwarding."""
        compiled = self._compiled
        sel = compiled.selectivity
        n = len(sel) if limit is None else min(int(limit), len(sel))
        entries = []
        for e in range(n):
            dense = sel.ifaces[sel.offsets[e]:sel.offsets[e + 1]]
            entries.append((compiled.names[int(sel.name[e])], TYPE_NAMES[int(sel.type[e])],
                            [int(i) for i in compiled.interfaces[dense]]))
        return entries

    def stats(self) -> dict[str, Any]:
        compiled = self._compiled
        return {
            "interfaces": int(compiled.interfaces.shape[0]),
            "live_interfaces": compiled.n_live,
            "filters": compiled.n_filters,
            "constraints": compiled.n_constraints,
            "distinct_constraints": compiled.n_distinct,
            "names": len(compiled.names),
            "strings": len(compiled.strings),
            "selectivity_entries": len(compiled.selectivity),
            "preprocessing_rounds": self.preprocessing_rounds,
            "nbytes": self.nbytes,
            "bytes_per_constraint": self.nbytes / max(1, compiled.n_constraints),
            "array_bytes": compiled.array_bytes(),
            "compile_seconds": self.compile_seconds,
            "layout": "compact" if compiled.counter_dtype == np.uint8 else "wide",
            "numbers": self._numbers,
            "interval_filters": self._intervals.n_filters if self._intervals is not None else 0,
            "interval_constraints": self._intervals.n_constraints if self._intervals is not None else 0,
            "interval_bytes": self._intervals.nbytes if self._intervals is not None else 0,
        }

    def __repr__(self) -> str:
        compiled = self._compiled
        return (f"ForwardingTable({compiled.interfaces.shape[0]} interfaces, {compiled.n_filters} filters, "
                f"{compiled.n_constraints} constraints, rounds={self.preprocessing_rounds}"
                + ("" if self._numbers == "strict" else f", numbers={self._numbers!r}") + ")")

    # -------------------------------------------------------- messages
    def encode(self, messages: Iterable[Message]) -> MessageBatch:
        """Encode messages for this table (reusable across calls). The
        messages' wire bytes (:func:`message_wire`, encoded for those not
        forwarded before) are decoded in compiled code (``_wire.decode_wires``)."""
        wires = []
        for msg in messages:
            if msg.__class__ is not Message and not isinstance(msg, Message):
                raise TypeError(f"expected a Message, not {type(msg).__name__}")
            wire = msg.wire
            wires.append(message_wire(msg) if wire is None else wire)
        w_off = np.zeros(len(wires) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, wires), dtype=np.int64, count=len(wires)), out=w_off[1:])
        # writable, so that the decoder has the same argument types as in
        # forward() and is compiled once
        data = np.frombuffer(bytearray(b"".join(wires)), dtype=np.uint8)
        m_off, attrs, s_chars, s_off, maxlen = first_call(
            "decode_wires", decode_wires, (self._compiled.name_lookup, data, w_off, self._numbers == "sff"))
        if m_off.shape[0] != len(wires) + 1:
            raise ValueError("a message's wire bytes are not in the form matcher/_wire.py reads")
        interval_rows = None
        if self._intervals is not None:
            interval_rows = first_call("decode_wires", decode_wires,
                                       (self._intervals.name_lookup, data, w_off, self._numbers == "sff"))[:2]
        return MessageBatch(m_off=m_off, attrs=attrs, s_chars=s_chars, s_off=s_off, maxlen=int(maxlen),
                            token=self._compiled.token, numbers=self._numbers, interval_rows=interval_rows)

    def _batch_of(self, messages: Any) -> MessageBatch:
        if isinstance(messages, MessageBatch):
            if messages.token is not self._compiled.token:
                raise ValueError("this MessageBatch was encoded for another table")
            if messages.numbers != self._numbers:
                raise ValueError(f"this MessageBatch was encoded with numbers={messages.numbers!r}, "
                                 f"the table matches with numbers={self._numbers!r}")
            return messages
        if isinstance(messages, Message):
            raise TypeError("forward_batch expects a sequence of messages; use forward for one")
        return self.encode(messages)

    def _broadcast(self, broadcast: Any, n_messages: int, per_message_ok: bool
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The broadcast sets as the kernels take them, (set_of_message,
        set_start, set_members): message m uses the set k = set_of_message[m]
        (-1: every interface), whose members are the dense indices
        ``set_members[set_start[k]:set_start[k + 1]]``; ids that the table
        does not know are dropped."""
        if broadcast is None:
            return np.full(n_messages, -1, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int32)
        sets = None
        if per_message_ok and isinstance(broadcast, (list, tuple)) and broadcast and all(
            not isinstance(b, (int, np.integer)) for b in broadcast
        ):
            sets = list(broadcast)
            if len(sets) != n_messages:
                raise ValueError(f"{len(sets)} broadcast sets for {n_messages} messages")
        if sets is None:
            dense = self._dense(broadcast)
            return np.zeros(n_messages, np.int64), np.array([0, dense.shape[0]], np.int64), dense
        members = [np.array([], np.int32) if b is None else self._dense(b) for b in sets]
        set_start = np.zeros(len(members) + 1, np.int64)
        np.cumsum([m.shape[0] for m in members], out=set_start[1:])
        set_of_message = np.arange(n_messages, dtype=np.int64)
        for k, b in enumerate(sets):
            if b is None:
                set_of_message[k] = -1
        set_members = np.concatenate(members) if members else np.zeros(0, np.int32)
        return set_of_message, set_start, set_members.astype(np.int32)

    def _dense(self, ids: Any) -> np.ndarray:
        if isinstance(ids, (str, bytes)) or not isinstance(ids, (Iterable, np.ndarray)):
            raise TypeError("broadcast must be a collection of interface ids")
        arr = np.asarray(list(ids) if not isinstance(ids, np.ndarray) else ids)
        if arr.size == 0:
            return np.zeros(0, np.int32)
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise TypeError("broadcast interface ids must be integers")
        arr = arr.astype(np.int64).ravel()
        known = self._compiled.interfaces
        pos = np.searchsorted(known, arr)
        pos_c = np.minimum(pos, max(known.shape[0] - 1, 0))
        ok = (pos < known.shape[0]) & (known[pos_c] == arr) if known.size else np.zeros(arr.shape, bool)
        return np.unique(pos[ok]).astype(np.int32)

    # ------------------------------------------------------- forwarding
    def _scratch(self, maxlen: int) -> tuple:
        """This thread's working memory for the kernels, grown on demand to
        hold string values of ``maxlen`` code points; returned as the plain
        tuple the batch kernel takes. The same memory, packed, is what
        ``forward_one`` takes (``self._local.one_scratch``): a thread's
        messages share one stamp sequence, kept in the scratch, whichever
        entry forwards them."""
        local = self._local
        if getattr(local, "scratch", None) is None or local.string_capacity < maxlen:
            compiled = self._compiled
            capacity = max(maxlen, 512)
            buffer, _, views = pack_arrays(tuple(new_scratch(compiled.params, compiled.counter_dtype, capacity)),
                                           SCRATCH_DTYPES)
            local.scratch = Scratch(*views)
            local.scratch_tuple = views
            local.one_scratch = buffer.view(compiled.counter_dtype)
            local.string_capacity = capacity
        return local.scratch_tuple

    def _run_serial(self, batch: MessageBatch, set_of_message: np.ndarray, set_start: np.ndarray,
                    set_members: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """All messages on the calling thread: (count per message, dense ids).
        Runs in slices so that the output buffer (a message may go to every
        live interface) stays below a few million entries."""
        compiled = self._compiled
        scratch = self._scratch(batch.maxlen)
        n = len(batch)
        width = max(1, compiled.n_live)
        step = max(1, min(n, _SERIAL_OUT_ENTRIES // width))
        counts = np.zeros(n, dtype=np.int64)
        out = np.empty(step * width, dtype=np.int32)
        pieces = []
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            part = counts[lo:hi]
            args = (compiled.arrays_tuple, compiled.params_tuple, batch.attrs, batch.m_off[lo:hi + 1],
                    batch.s_chars, batch.s_off, set_of_message[lo:hi], set_start, set_members, scratch, out, part)
            first_call(self._serial_variant, forward_serial, args)
            pieces.append(out[: int(part.sum())].copy())
        return counts, (np.concatenate(pieces) if len(pieces) > 1 else pieces[0])

    def forward(self, message: Message, broadcast: Iterable[int] | None = None) -> np.ndarray:
        """The sorted ids (int64) of the interfaces in ``broadcast`` (default:
        all) whose predicate matches ``message``. Ids in ``broadcast`` that
        the table does not know are ignored."""
        if message.__class__ is not Message and not isinstance(message, Message):
            raise TypeError(f"forward expects a Message, not {type(message).__name__}")
        set_members = _NO_MEMBERS
        set_lo = set_hi = -1
        if broadcast is not None:
            _, set_start, set_members = self._broadcast(broadcast, 1, per_message_ok=False)
            set_lo, set_hi = int(set_start[0]), int(set_start[1])
        # compiled code decodes the message from its wire bytes
        # (matcher/_wire.py): no Python work per attribute here; a message
        # forwarded for the first time is encoded first
        wire = message.wire
        if wire is None:
            wire = message_wire(message)
        # this runs once per message: thread-local state is read through the
        # instance dict
        state = self._local.__dict__
        scratch = state.get("one_scratch")
        if scratch is None:
            scratch = self._one_scratch()
        if self._warm_message:
            k = forward_message(self._one_table, scratch, wire, set_members, set_lo, set_hi, self._sff)
        else:
            k = first_call(self._message_variant, forward_message,
                           (self._one_table, scratch, wire, set_members, set_lo, set_hi, self._sff))
            self._warm_message = True
        if k < 0:
            if k == NOT_A_WIRE:  # not made by _wire.message_wire
                raise ValueError("the message's wire bytes are not in the form matcher/_wire.py reads")
            # longer than the scratch holds: grow it (at least twofold), once
            self._scratch(max(len(wire), 2 * self._local.string_capacity))
            k = forward_message(self._one_table, state["one_scratch"], wire, set_members, set_lo, set_hi,
                                self._sff)
        if self._intervals is not None:
            return self._with_intervals(self._result(k), wire, None if broadcast is None else set_members)
        return self._result(k)

    def encode_message(self, message: Message) -> EncodedMessage:
        """``message`` encoded for this table, for :meth:`forward_encoded`.

        The fast path for callers that forward one message several times
        (to several broadcast sets, or again later): the encoding (names to
        ids, strings to code points, floats to order keys) is done once.
        The result belongs to this table and the tables derived from it
        (``with_preprocessing_rounds``) in this ``numbers`` mode."""
        if not isinstance(message, Message):
            raise TypeError(f"encode_message expects a Message, not {type(message).__name__}")
        wire = np.frombuffer(bytearray(message_wire(message)), dtype=np.uint8)  # writable: see encode
        data, maxlen = first_call("encode_wire", encode_wire, (self._compiled.name_lookup, wire, self._sff,
                                                               2 * self._compiled.params.n_names + 2))
        if data.shape[0] == 0:
            raise ValueError("the message's wire bytes are not in the form matcher/_wire.py reads")
        return EncodedMessage(data.tobytes(), int(maxlen), self._compiled.token, self._numbers,
                              b"" if self._intervals is None else message_wire(message))

    def forward_encoded(self, encoded: EncodedMessage, broadcast: Iterable[int] | None = None) -> np.ndarray:
        """``forward`` for a message from :meth:`encode_message`."""
        if encoded.token is not self._compiled.token or encoded.numbers != self._numbers:
            raise ValueError("this EncodedMessage was encoded for another table or numbers mode")
        data = encoded.data
        set_members = _NO_MEMBERS
        if broadcast is not None:  # the header names the broadcast set
            _, set_start, set_members = self._broadcast(broadcast, 1, per_message_ok=False)
            header = np.frombuffer(data, dtype="<i8", count=4).copy()
            header[1:3] = set_start[:2]
            data = header.tobytes() + data[32:]
        args = (self._compiled.one_table, self._one_scratch(), data, set_members)
        if self._warm_one:
            k = forward_one(*args)
        else:
            k = first_call(self._one_variant, forward_one, args)
            self._warm_one = True
        if k < 0:  # a string longer than the scratch holds: grow it, once
            self._scratch(encoded.maxlen)
            k = forward_one(self._compiled.one_table, self._one_scratch(), data, set_members)
        if self._intervals is not None:
            return self._with_intervals(self._result(k), encoded.wire, None if broadcast is None else set_members)
        return self._result(k)

    def _with_intervals(self, counted: np.ndarray, wire: bytes, members: np.ndarray | None) -> np.ndarray:
        """``counted`` (the ids counting found) with those of the interval
        index's filters matching the message ``wire`` (in the broadcast set's
        dense ``members``, or all)."""
        index = self._intervals
        assert index is not None
        data = np.frombuffer(bytearray(wire), dtype=np.uint8)  # writable: one compiled signature
        m_off, attrs = first_call("decode_wires", decode_wires,
                                  (index.name_lookup, data, np.array([0, len(wire)], np.int64), self._sff))[:2]
        if m_off.shape[0] != 2:
            raise ValueError("the message's wire bytes are not in the form matcher/_wire.py reads")
        scratch = self._local.__dict__.get("interval_scratch")
        if scratch is None:
            scratch = (np.empty(index.values_start.shape[0] - 1, np.int64), np.empty(max(1, index.row_base.shape[0]),
                                                                                      np.int64),
                       np.zeros(index.n_words_if, np.uint64), np.empty(64 * index.n_words_if, np.int32))
            self._local.interval_scratch = scratch
        allowed = _NO_SET if members is None else _bitmap_of(members, index.n_words_if)
        k = first_call("intervals/one", match_interval_message,
                       (*index.arrays, attrs, 0, int(m_off[1]), allowed, *scratch, 0))
        if k == 0:
            return counted
        found = self._compiled.interfaces[scratch[3][:k]]
        return found if counted.shape[0] == 0 else np.union1d(counted, found)

    def _one_scratch(self) -> np.ndarray:
        """This thread's scratch, packed, as the single-message entries take it."""
        scratch = self._local.__dict__.get("one_scratch")
        if scratch is None:
            self._scratch(0)
            scratch = self._local.one_scratch
        return scratch

    def _result(self, k: int) -> np.ndarray:
        """The ids of the ``k`` interfaces a single-message entry wrote."""
        out = self._local.scratch.out
        if self._dense_ids:
            return out[:k].astype(np.int64)
        return self._compiled.interfaces[out[:k]]

    def forward_batch(self, messages: Any, broadcast: Any = None, *, threads: int | None = None
                      ) -> list[np.ndarray]:
        """Forward many messages on all cores; one sorted id array per message.

        ``messages``: a sequence of Message or a :class:`MessageBatch` from
        ``encode``. ``broadcast``: None, one collection of ids for every
        message, or a list with one collection (or None) per message.
        ``threads``: numba threads to use (default: all).
        """
        offsets, ids = self.forward_batch_csr(messages, broadcast, threads=threads)
        if offsets.shape[0] <= 2:
            return [ids] if offsets.shape[0] == 2 else []
        return np.split(ids, offsets[1:-1])

    def forward_batch_csr(self, messages: Any, broadcast: Any = None, *, threads: int | None = None
                          ) -> tuple[np.ndarray, np.ndarray]:
        """Like ``forward_batch`` but returns (offsets, ids): message m went to
        ``ids[offsets[m]:offsets[m + 1]]``."""
        batch = self._batch_of(messages)
        n = len(batch)
        set_of_message, set_start, set_members = self._broadcast(broadcast, n, per_message_ok=True)
        if n == 0:
            return np.zeros(1, np.int64), np.zeros(0, np.int64)
        offsets, ids = self._counted_csr(batch, set_of_message, set_start, set_members, threads)
        if self._intervals is None:
            return offsets, ids
        return self._intervals_csr(batch, set_of_message, set_start, set_members, offsets, ids)

    def _intervals_csr(self, batch: MessageBatch, set_of_message: np.ndarray, set_start: np.ndarray,
                       set_members: np.ndarray, offsets: np.ndarray, ids: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
        """The counting path's CSR answer merged with the interval index's."""
        index = self._intervals
        assert index is not None and batch.interval_rows is not None
        m_off, attrs = batch.interval_rows
        n_sets = set_start.shape[0] - 1
        allowed = np.zeros((max(1, n_sets), index.n_words_if), np.uint64)
        for k in range(n_sets):
            allowed[k] = _bitmap_of(set_members[set_start[k]:set_start[k + 1]], index.n_words_if)
        i_off, i_dense = first_call("intervals/batch", match_interval_batch,
                                    (*index.arrays, attrs, m_off, allowed, set_of_message, index.n_words_if))
        return first_call("intervals/merge", merge_csr, (offsets, ids, i_off, self._compiled.interfaces[i_dense]))

    def _counted_csr(self, batch: MessageBatch, set_of_message: np.ndarray, set_start: np.ndarray,
                     set_members: np.ndarray, threads: int | None) -> tuple[np.ndarray, np.ndarray]:
        """``forward_batch_csr`` by the counting path alone."""
        import numba

        compiled = self._compiled
        n = len(batch)
        n_threads = numba.get_num_threads() if threads is None else int(threads)
        if n_threads < 1:
            raise ValueError("threads must be >= 1")
        offsets = np.zeros(n + 1, dtype=np.int64)
        if n_threads == 1 or n == 1:  # the calling thread, no parallel machinery
            counts, dense = self._run_serial(batch, set_of_message, set_start, set_members)
            np.cumsum(counts, out=offsets[1:])
            return offsets, compiled.interfaces[dense]
        # each chunk gets an output buffer of `capacity` entries; it stops when
        # fewer than `need` (one message to every live interface) are left
        need = max(1, compiled.n_live)
        n_chunks = min(n, max(1, n_threads * 4))
        bounds = np.linspace(0, n, n_chunks + 1).astype(np.int64)
        lo, hi = bounds[:-1].copy(), bounds[1:].copy()
        keep = hi > lo
        lo, hi = lo[keep], hi[keep]
        counts = np.zeros(n, dtype=np.int64)
        pieces: list[tuple[int, np.ndarray]] = []
        counter_proto = np.zeros(0, compiled.counter_dtype)
        per_message = 8  # estimated interfaces per message, doubled when a chunk runs out
        old = numba.get_num_threads()
        numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]  # set at import
        try:
            while lo.shape[0]:
                longest = int(np.max(hi - lo))
                capacity = int(min(longest * need, max(need, longest * per_message) + need))
                out = np.empty(capacity * lo.shape[0], dtype=np.int32)
                stop = np.empty(lo.shape[0], dtype=np.int64)
                args = (compiled.arrays_tuple, compiled.params_tuple, batch.attrs, batch.m_off, batch.s_chars,
                        batch.s_off, batch.maxlen, set_of_message, set_start, set_members, counter_proto, lo, hi,
                        capacity, need, out, counts, stop)
                with numba.parallel_chunksize(1):
                    first_call(self._parallel_variant, forward_parallel, args)
                for ch in range(lo.shape[0]):
                    k = int(counts[lo[ch]:stop[ch]].sum())
                    pieces.append((int(lo[ch]), out[ch * capacity: ch * capacity + k].copy()))
                finished = stop >= hi
                if not finished.all():
                    done_messages = max(1, int((stop - lo).sum()))
                    per_message = max(per_message * 2, int(counts.sum() / done_messages) + 1)
                lo, hi = stop[~finished], hi[~finished]
        finally:
            numba.set_num_threads(old)
        pieces.sort(key=lambda p: p[0])
        dense = np.concatenate([p[1] for p in pieces]) if pieces else np.zeros(0, np.int32)
        np.cumsum(counts, out=offsets[1:])
        return offsets, compiled.interfaces[dense]


_SERIAL_OUT_ENTRIES = 1 << 22
_NO_MEMBERS = np.zeros(0, np.int32)  # the broadcast set of a message sent to every interface
_NO_SET = np.zeros(0, np.uint64)  # the interval kernel's "every interface"


def _bitmap_of(members: np.ndarray, n_words: int) -> np.ndarray:
    """The bitmap of the dense interfaces ``members``."""
    bits = np.zeros(n_words, np.uint64)
    m = members.astype(np.int64)
    np.bitwise_or.at(bits, m >> 6, np.left_shift(np.uint64(1), (m & 63).astype(np.uint64)))
    return bits


def raw_table(interfaces: Any, filter_interface: Any, c_filter: Any, c_name: Any, c_type: Any, c_op: Any,
              c_value: Any, names: Sequence[str], strings: Sequence[str]) -> RawTable:
    """The columns of ``ForwardingTable.from_arrays`` (any sequences or
    arrays) as the :class:`RawTable` the compiler takes, of its dtypes."""
    return RawTable(
        interfaces=np.asarray(interfaces, dtype=np.int64),
        filter_interface=np.asarray(filter_interface, dtype=np.int64),
        c_filter=np.asarray(c_filter, dtype=np.int64),
        c_name=np.asarray(c_name, dtype=np.int64),
        c_type=np.asarray(c_type, dtype=np.int8),
        c_op=np.asarray(c_op, dtype=np.int8),
        c_value=np.asarray(c_value, dtype=np.int64),
        names=list(names),
        strings=list(strings),
    )


def _check_rounds(rounds: Any) -> int:
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 0:
        raise ValueError(f"preprocessing_rounds must be an int >= 0, not {rounds!r}")
    return int(rounds)

