"""Compile a forwarding table into the flat arrays of ``_kernels``.

Everything here is vectorized numpy over one row per constraint occurrence:
the only Python loops run over distinct names and distinct string constants.
The input is a :class:`~cbalgebra.matcher.columns.TableColumns` (see
``ForwardingTable.from_arrays``), the output a :class:`Compiled` holding the
table's arrays (:class:`_kernels.TableArrays`) and parameters
(:class:`_kernels.Params`). :func:`compile_raw` runs the phases in order:
dense filters, ordered rows, distinct constraints, filter words, key and
name tables, pattern tables, selectivity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from cbalgebra.matcher._automaton import build_automata, no_automata
from cbalgebra.matcher._kernels import (
    NOPS, NTYPES, OP_ANY, OP_EQ, OP_GE, OP_NAMES, OP_PREFIX, OP_SUBSTRING, OP_SUFFIX, PACKED_TABLE_DTYPES,
    SUBSTRING_PROBE_LENGTHS, T_ANY, T_BOOL, T_FLOAT, T_INT, T_STRING, TYPE_NAMES, Params, TableArrays,
    fill_pattern_slots, first_call, pack_arrays, set_bits, string_hashes,
)
from cbalgebra.matcher.columns import ALLOWED, TableColumns

_LOW63 = np.int64(0x7FFFFFFFFFFFFFFF)
INT32_MAX = 2**31 - 1


def float_keys(x: np.ndarray) -> np.ndarray:
    """``values.float_order_key`` of each finite double, vectorized (-0.0 as 0.0)."""
    x = np.asarray(x, dtype=np.float64) + 0.0  # -0.0 + 0.0 == 0.0
    bits = x.view(np.int64)
    return np.where(bits < 0, -(bits & _LOW63), bits)


#: The compiler's input: a table as columns (``ForwardingTable.from_arrays``).
RawTable = TableColumns


@dataclass
class Compiled:
    arrays: TableArrays
    params: Params
    interfaces: np.ndarray            # dense index -> external id (sorted)
    names: list[str]                  # name id -> name
    lookup: dict[str, tuple[int, int]]  # name -> (name id, bitmask of message types that matter)
    strings: list[str]                # rank -> interned constant
    n_constraints: int                # occurrences, after removing duplicates within a filter
    n_distinct: int
    n_filters: int
    n_live: int
    counter_dtype: np.dtype
    selectivity: Selectivity
    stats: dict = field(default_factory=dict)
    #: identity of the message encoding (names, strings): shared by the tables
    #: ``with_preprocessing_rounds`` derives, so their MessageBatch is reusable
    token: object = field(default_factory=object)
    #: ``arrays`` and ``params`` as plain tuples, the form the kernels' entry
    #: points take (see "Calling convention" in ``_kernels``)
    arrays_tuple: tuple = ()
    params_tuple: tuple = ()
    #: the arrays and the parameters packed into one buffer
    #: (``_kernels.pack_arrays``), viewed as filter_info's dtype: the form
    #: ``forward_one`` takes; ``arrays`` are views of it
    one_table: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))
    #: the name arrays of ``arrays``, the form ``_wire.decode_wires`` takes
    name_lookup: tuple = ()

    def __post_init__(self) -> None:
        params = np.array(tuple(self.params), dtype=np.int64)
        buffer, _, views = pack_arrays((*self.arrays, params), PACKED_TABLE_DTYPES)
        self.arrays = TableArrays(*views[:-1])
        self.one_table = buffer.view(self.arrays.filter_info.dtype)
        self.arrays_tuple = tuple(self.arrays)
        self.params_tuple = tuple(self.params)
        a = self.arrays
        self.name_lookup = (a.name_chars, a.name_start, a.name_hash, a.name_slots, a.name_mask)

    @property
    def nbytes(self) -> int:
        """The arrays plus the parameters (one int64 each)."""
        return int(sum(a.nbytes for a in self.arrays) + 8 * len(self.params))

    def array_bytes(self) -> dict[str, int]:
        return {name: int(a.nbytes) for name, a in zip(TableArrays._fields, self.arrays, strict=True)}

    def with_rounds(self, rounds: int) -> Compiled:
        """A copy sharing every array but the selectivity bitmaps, which are
        rebuilt for ``rounds`` pre-processing rounds."""
        sel = self.selectivity
        r = min(int(rounds), len(sel))
        arrays = self.arrays._replace(
            selectivity_name=sel.name[:r].copy(),
            selectivity_type=sel.type[:r].copy(),
            selectivity_bits=sel.bitmaps(r, self.params.n_words),
        )
        fields = {k: getattr(self, k) for k in self.__dataclass_fields__}
        fields.update(arrays=arrays, params=self.params._replace(rounds=r))
        return Compiled(**fields)


@dataclass
class Selectivity:
    """The whole selectivity table, most selective entry first (CSR)."""

    name: np.ndarray     # int32 name id
    type: np.ndarray     # int8 type code, 4 = any type
    offsets: np.ndarray  # int64
    ifaces: np.ndarray   # int32 dense interface indices

    def __len__(self) -> int:
        return int(self.name.shape[0])

    def bitmaps(self, rounds: int, nwords: int) -> np.ndarray:
        r = min(rounds, len(self))
        bits = np.zeros((nwords, r), dtype=np.uint64)  # word-major: one pass ORs every round
        if r:
            rows = np.repeat(np.arange(r), np.diff(self.offsets[: r + 1]))
            ifs = self.ifaces[: self.offsets[r]].astype(np.int64)
            set_bits(bits, rows, ifs)
        return bits


def _flags(s: np.ndarray) -> np.ndarray:
    """For a sorted array: True where a new value starts."""
    new = np.empty(s.shape[0], dtype=bool)
    if s.shape[0]:
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
    return new


def _uniq(x: np.ndarray) -> np.ndarray:
    """Sorted distinct values (by sorting: numpy's hash-based unique is slow on
    millions of int64 here)."""
    s = np.sort(x)
    return s[_flags(s)]


def _uniq_counts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = np.sort(x)
    idx = np.flatnonzero(_flags(s))
    return s[idx], np.diff(np.append(idx, s.shape[0]))


def _validate(raw: RawTable) -> None:
    n = raw.c_filter.shape[0]
    for name in ("c_name", "c_type", "c_op", "c_value"):
        if getattr(raw, name).shape[0] != n:
            raise ValueError(f"{name} has {getattr(raw, name).shape[0]} rows, c_filter has {n}")
    nf = raw.filter_interface.shape[0]
    if n and (raw.c_filter.min() < 0 or raw.c_filter.max() >= nf):
        raise ValueError("c_filter refers to a filter that does not exist")
    if n and (raw.c_name.min() < 0 or raw.c_name.max() >= len(raw.names)):
        raise ValueError("c_name refers to a name that does not exist")
    if n and (raw.c_type.min() < 0 or raw.c_type.max() > 4 or raw.c_op.min() < 0 or raw.c_op.max() > 9):
        raise ValueError("unknown type or operator code")
    bad = ~ALLOWED[raw.c_type, raw.c_op]
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"operator {OP_NAMES[raw.c_op[k]]!r} does not apply to type {TYPE_NAMES[raw.c_type[k]]!r} "
            f"(constraint on {raw.names[raw.c_name[k]]!r})"
        )
    if raw.interfaces.size and raw.interfaces.min() < 0:
        raise ValueError("interface ids must be >= 0")
    known = _uniq(np.asarray(raw.interfaces, dtype=np.int64))
    pos = np.minimum(np.searchsorted(known, raw.filter_interface), max(0, known.shape[0] - 1))
    if nf and (known.shape[0] == 0 or (known[pos] != raw.filter_interface).any()):
        raise ValueError("filter_interface refers to an interface missing from interfaces")
    strs = raw.c_type == T_STRING
    ops = raw.c_op != OP_ANY
    sv = raw.c_value[strs & ops]
    if sv.size and (sv.min() < 0 or sv.max() >= len(raw.strings)):
        raise ValueError("a string constraint refers to a string that does not exist")
    bv = raw.c_value[(raw.c_type == T_BOOL) & ops]
    if bv.size and ((bv != 0) & (bv != 1)).any():
        raise ValueError("bool values must be 0 or 1")
    fv = raw.c_value[(raw.c_type == T_FLOAT) & ops].view(np.float64)
    if fv.size and not np.isfinite(fv).all():
        raise ValueError("float values must be finite")


def _canonical_names(names: Sequence[str], c_name: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct names the constraints use, in code-point order, and each
    row's index among them. Sorting makes name ids (and so the key layout) a
    function of the table's content, not of the order it was given in."""
    c_name = np.asarray(c_name, dtype=np.int64)
    if not c_name.size:
        return [], c_name
    used = _uniq(c_name)
    distinct = sorted({names[i] for i in used})
    pos = {s: r for r, s in enumerate(distinct)}
    remap = np.full(len(names), -1, dtype=np.int64)
    remap[used] = [pos[names[i]] for i in used]
    return distinct, remap[c_name]


def _intern_strings(strings: Sequence[str], used: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Sorted distinct constants (code-point order) and input index -> rank."""
    rank = np.full(len(strings), -1, dtype=np.int64)
    if not used.size:
        return [], rank
    idx = _uniq(used)
    distinct = sorted({strings[i] for i in idx})
    pos = {s: r for r, s in enumerate(distinct)}
    rank[idx] = [pos[strings[i]] for i in idx]
    return distinct, rank


def _string_pool(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(s) for s in strings), dtype=np.int64, count=len(strings))
    off = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths, out=off[1:])
    chars = np.frombuffer("".join(strings).encode("utf-32-le"), dtype="<u4").astype(np.uint32)
    return chars, off


def _group_starts(*cols: np.ndarray) -> np.ndarray:
    """Boolean 'new group' flags for rows sorted by ``cols``."""
    n = cols[0].shape[0]
    new = np.zeros(n, dtype=bool)
    if n:
        new[0] = True
        for c in cols:
            new[1:] |= c[1:] != c[:-1]
    return new


_SPLIT1 = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 of each value (uint64, wrapping)."""
    z = x.astype(np.uint64) * _SPLIT1 + _SPLIT1
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _canonical_filters(link_u: np.ndarray, link_f: np.ndarray, f_iface: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number the filters canonically and drop duplicates.

    ``link_u[k]`` (distinct constraint) and ``link_f[k]`` (filter) are the
    links, each (constraint, filter) pair once; ``f_iface`` is each filter's
    dense interface, ascending. Within an interface, filters are ordered by
    (size, a hash of their set of constraints) and a filter equal to the one
    before it is dropped (a predicate is a set of filters). The compiled
    arrays are thus a function of the table's content: a table read in bulk
    from a document and the same table compiled from Predicate values give
    the same arrays, whatever the order of their filters. Returns the links
    (sorted by constraint, then by new filter id) and the new ``f_iface``.
    Two different filters with equal hashes are both kept, in input order.
    """
    nf = f_iface.shape[0]
    if nf == 0:
        return link_u, link_f, f_iface
    f_size = np.bincount(link_f, minlength=nf).astype(np.int64)
    f_hash = np.zeros(nf, dtype=np.uint64)
    np.add.at(f_hash, link_f, _mix(link_u))  # a sum: independent of the order of the links
    order = np.lexsort((f_hash, f_size, f_iface))
    # adjacent filters with equal (interface, size, hash): compare their constraints
    same_key = (f_iface[order][1:] == f_iface[order][:-1]) & (f_size[order][1:] == f_size[order][:-1]) \
        & (f_hash[order][1:] == f_hash[order][:-1])
    duplicate = np.zeros(nf, dtype=bool)
    pairs = np.flatnonzero(same_key)
    if pairs.size:
        a, b = order[pairs], order[pairs + 1]
        by_filter = np.lexsort((link_u, link_f))
        members = link_u[by_filter]
        start = np.zeros(nf + 1, dtype=np.int64)
        np.cumsum(f_size, out=start[1:])
        sizes = f_size[a]
        total = int(sizes.sum())
        pair_of = np.repeat(np.arange(a.shape[0]), sizes)
        first = np.zeros(a.shape[0], dtype=np.int64)
        np.cumsum(sizes[:-1], out=first[1:])
        offset = np.arange(total, dtype=np.int64) - first[pair_of]
        differs = members[start[a][pair_of] + offset] != members[start[b][pair_of] + offset]
        unequal = np.zeros(a.shape[0], dtype=bool)
        np.logical_or.at(unequal, pair_of, differs)
        duplicate[b[~unequal]] = True
    kept = order[~duplicate[order]]
    new_id = np.full(nf, -1, dtype=np.int64)
    new_id[kept] = np.arange(kept.shape[0], dtype=np.int64)
    live = ~duplicate[link_f]
    link_u, link_f = link_u[live], new_id[link_f[live]]
    resort = np.lexsort((link_f, link_u))
    return link_u[resort], link_f[resort], f_iface[kept]


class _Filters(NamedTuple):
    """Interfaces, dense in ascending id order, and the filters renumbered in
    interface order: the filters of interface i are interface_filters[i] ..
    interface_filters[i + 1], so a constraint's links (sorted by filter) come
    grouped by interface."""

    ifaces: np.ndarray    # dense index -> external id
    f_iface: np.ndarray   # each filter's dense interface, ascending
    c_filter: np.ndarray  # each row's filter, renumbered


def _dense_filters(raw: RawTable) -> _Filters:
    ifaces = _uniq(np.asarray(raw.interfaces, dtype=np.int64))
    f_iface_in = np.searchsorted(ifaces, raw.filter_interface).astype(np.int64)
    nf = f_iface_in.shape[0]
    f_order = np.argsort(f_iface_in, kind="stable")
    f_new = np.empty(nf, dtype=np.int64)
    f_new[f_order] = np.arange(nf, dtype=np.int64)
    c_filter = f_new[np.asarray(raw.c_filter, dtype=np.int64)] if nf else np.asarray(raw.c_filter, dtype=np.int64)
    return _Filters(ifaces, f_iface_in[f_order], c_filter)


class _Rows(NamedTuple):
    """Each row's key (name, type) and value as an ordered int64, with the
    canonical names and interned string constants."""

    names: list[str]
    strings: list[str]
    keycodes: np.ndarray  # dense key -> name id * NTYPES + type
    c_key: np.ndarray
    c_op: np.ndarray
    cv: np.ndarray


def _ordered_rows(raw: RawTable) -> _Rows:
    names, c_name = _canonical_names(raw.names, raw.c_name)
    c_type = raw.c_type.astype(np.int64)
    c_op = raw.c_op.astype(np.int64)
    c_val_in = raw.c_value.astype(np.int64)
    is_str = (c_type == T_STRING) & (c_op != OP_ANY)
    strings, rank = _intern_strings(raw.strings, c_val_in[is_str])
    # keys (name, type)
    kcode = c_name * NTYPES + c_type
    present = np.zeros(len(names) * NTYPES, dtype=bool)
    present[kcode] = True
    keycodes = np.flatnonzero(present)
    dense_key = np.cumsum(present) - 1
    c_key = dense_key[kcode].astype(np.int64)
    # each constraint's value as an ordered int64
    cv = np.zeros(c_val_in.shape[0], dtype=np.int64)
    m = (c_type == T_INT) | (c_type == T_BOOL)
    cv[m] = c_val_in[m]
    m = c_type == T_FLOAT
    cv[m] = float_keys(c_val_in[m].view(np.float64))
    m = is_str & (c_op <= OP_GE)
    cv[m] = 2 * rank[c_val_in[m]] + 1
    m = is_str & (c_op > OP_GE)
    cv[m] = rank[c_val_in[m]]
    cv[c_op == OP_ANY] = 0
    return _Rows(names, strings, keycodes, c_key, c_op, cv)


class _Distinct(NamedTuple):
    """The distinct constraints in (op, key, value) order and their links to
    the filters (canonical, duplicates dropped: ``_canonical_filters``)."""

    d_op: np.ndarray
    d_key: np.ndarray
    d_cv: np.ndarray
    link_u: np.ndarray    # each link's distinct constraint
    links64: np.ndarray   # each link's filter
    f_iface: np.ndarray   # each kept filter's dense interface


def _distinct_constraints(rows: _Rows, c_filter: np.ndarray, f_iface: np.ndarray) -> _Distinct:
    order = np.lexsort((c_filter, rows.cv, rows.c_key, rows.c_op))
    s_op, s_key, s_cv = rows.c_op[order], rows.c_key[order], rows.cv[order]
    s_f = c_filter[order]
    new_c = _group_starts(s_op, s_key, s_cv)
    keep = new_c.copy()
    if keep.size:
        keep[1:] |= s_f[1:] != s_f[:-1]  # drop a constraint repeated inside a filter
    u_of_row = np.cumsum(new_c) - 1
    link_u, links64, f_iface = _canonical_filters(u_of_row[keep], s_f[keep], f_iface)
    if links64.shape[0] > INT32_MAX or f_iface.shape[0] > INT32_MAX:
        raise ValueError("table too large: more than 2**31 - 1 constraints or filters")
    return _Distinct(s_op[new_c], s_key[new_c], s_cv[new_c], link_u, links64, f_iface)


class _FilterWords(NamedTuple):
    """Filters: size and interface packed in one word; interfaces without
    filters never match (``dead``), empty filters always do (``always``)."""

    filter_info: np.ndarray
    shift: int
    counter_dtype: Any
    n_live: int
    n_words: int
    dead: np.ndarray
    always: np.ndarray


def _filter_words(links64: np.ndarray, f_iface: np.ndarray, n_if: int) -> _FilterWords:
    nf = f_iface.shape[0]
    f_size = np.bincount(links64, minlength=nf).astype(np.int64)
    max_size = int(f_size.max()) if nf else 0
    info_dtype: Any
    counter_dtype: Any
    if max_size <= 255 and n_if < 2**24:
        shift, info_dtype, counter_dtype = 8, np.uint32, np.uint8
    else:
        shift, info_dtype, counter_dtype = 32, np.uint64, np.int32
    filter_info = ((f_iface.astype(np.uint64) << np.uint64(shift)) | f_size.astype(np.uint64)).astype(info_dtype)
    nwords = max(1, (n_if + 63) // 64)
    live = np.zeros(n_if, dtype=bool)
    live[f_iface] = True
    dead = np.zeros(nwords, dtype=np.uint64)
    dead_idx = np.concatenate([np.flatnonzero(~live), np.arange(n_if, nwords * 64)]).astype(np.int64)
    set_bits(dead.reshape(nwords, 1), np.zeros(dead_idx.shape[0], np.int64), dead_idx)
    always = _uniq(f_iface[f_size == 0]).astype(np.int32)
    return _FilterWords(filter_info, shift, counter_dtype, int(live.sum()), nwords, dead, always)


def _pattern_tables(d: _Distinct, string_chars: np.ndarray, string_start: np.ndarray, string_hash: np.ndarray,
                    nkeys: int) -> tuple[dict[str, np.ndarray], int]:
    """The tables of the prefix, suffix and substring constraints, and the
    pattern hash table's mask. Prefix and suffix constraints are probed by
    hash, and so are the substring constraints of keys with few pattern
    lengths; the other keys' substrings are found by an automaton
    (``_automaton``)."""
    d_op, d_key, d_cv = d.d_op, d.d_key, d.d_cv
    automaton_keys = _automaton_keys(d_op, d_key, d_cv, string_start, nkeys)
    pat = np.flatnonzero(d_op >= OP_PREFIX)
    pat = pat[(d_op[pat] <= OP_SUFFIX) | ((d_op[pat] == OP_SUBSTRING) & ~automaton_keys[d_key[pat]])]
    hsize = 1
    while hsize < 2 * pat.shape[0]:
        hsize *= 2
    pattern_slots = np.full(hsize, -1, dtype=np.int32)
    # one bit per 16 pattern positions' worth: 16 bits per pattern constraint
    bloom_words = 1
    while 64 * bloom_words < 16 * pat.shape[0]:
        bloom_words *= 2
    pattern_bloom = np.zeros(bloom_words, dtype=np.uint64)
    if pat.size:
        # the argument types of _string_slots' call, so that numba compiles fill_pattern_slots once
        first_call("fill_pattern_slots", fill_pattern_slots,
                   (pattern_slots, hsize - 1, pat.astype(np.int64), d_op[pat].astype(np.int8),
                    d_key[pat].astype(np.int64), d_cv[pat].astype(np.int64), string_hash, pattern_bloom))
    pattern_max_length = np.zeros(3 * nkeys, dtype=np.int32)
    pattern_lengths = np.zeros(3 * nkeys, dtype=np.uint64)
    if pat.size:
        plen = (string_start[d_cv[pat] + 1] - string_start[d_cv[pat]]).astype(np.int64)
        slot = (d_op[pat] - OP_PREFIX) * nkeys + d_key[pat]
        np.maximum.at(pattern_max_length, slot, plen.astype(np.int32))
        np.bitwise_or.at(pattern_lengths, slot, np.left_shift(np.uint64(1), np.minimum(plen, 63).astype(np.uint64)))
    substring_automata, roots = _substring_automata(d_op, d_key, d_cv, automaton_keys, string_chars, string_start)
    has_root = np.flatnonzero(roots >= 0)
    # the kernel's sign for an automaton, where the key's longest substring length would be
    pattern_max_length[2 * nkeys + has_root] = -(roots[has_root] + 2)
    return dict(pattern_slots=pattern_slots, pattern_bloom=pattern_bloom, pattern_max_length=pattern_max_length,
                pattern_lengths=pattern_lengths, substring_automata=substring_automata), hsize - 1


def _name_tables(names: list[str], keycodes: np.ndarray) -> dict[str, np.ndarray]:
    """Key of each (name, type) code, and the names, for messages decoded in
    compiled code (``_wire``): the pool, hashes, hash table and the mask of
    the message types that matter for each name."""
    nkeys = keycodes.shape[0]
    key_of = np.full(len(names) * NTYPES, -1, dtype=np.int32)
    key_of[keycodes] = np.arange(nkeys, dtype=np.int32)
    key_name = keycodes // NTYPES
    key_type = keycodes % NTYPES
    relevant = np.zeros(len(names), dtype=np.int64)
    np.bitwise_or.at(relevant, key_name, np.where(key_type == T_ANY, 0b1111, 1 << key_type))
    name_chars, name_start = _string_pool(names)
    name_hash = first_call("string_hashes", string_hashes, (name_chars, name_start))
    return dict(key_of=key_of, name_chars=name_chars, name_start=name_start, name_hash=name_hash,
                name_slots=_string_slots(name_hash), name_mask=relevant.astype(np.int8))


def compile_raw(raw: RawTable, rounds: int) -> Compiled:
    _validate(raw)
    filters = _dense_filters(raw)
    ifaces = filters.ifaces
    n_if = ifaces.shape[0]
    rows = _ordered_rows(raw)
    names, keycodes = rows.names, rows.keycodes
    nkeys = int(keycodes.shape[0])
    d = _distinct_constraints(rows, filters.c_filter, filters.f_iface)
    d_op, d_key, d_cv, link_u, links64, f_iface = d
    n_distinct, nf = d_op.shape[0], f_iface.shape[0]
    interface_filters = np.searchsorted(f_iface, np.arange(n_if + 1)).astype(np.int32)
    link_start = np.zeros(n_distinct + 1, dtype=np.int64)
    np.cumsum(np.bincount(link_u, minlength=n_distinct), out=link_start[1:])
    words = _filter_words(links64, f_iface, n_if)
    # -- key tables: the constraints of a key and operator are one block
    block_start = np.zeros(NOPS * nkeys + 1, dtype=np.int64)
    np.cumsum(np.bincount(d_op * nkeys + d_key, minlength=NOPS * nkeys), out=block_start[1:])
    block_start = block_start.astype(np.int32)
    name_tables = _name_tables(names, keycodes)
    # -- strings: pool, hashes, pattern tables
    string_chars, string_start = _string_pool(rows.strings)
    string_hash = first_call("string_hashes", string_hashes, (string_chars, string_start))
    patterns, hash_mask = _pattern_tables(d, string_chars, string_start, string_hash, nkeys)
    # -- selectivity table (§4.3), typed where every filter agrees on the type
    sel = _selectivity(links64, link_u, d_key, keycodes // NTYPES, keycodes % NTYPES, f_iface, nf, n_if)

    sub_base = int(block_start[OP_SUBSTRING * nkeys]) if nkeys else 0
    n_sub = int(block_start[OP_ANY * nkeys]) - sub_base if nkeys else 0
    params = Params(
        n_keys=nkeys, n_names=len(names), n_interfaces=int(n_if), n_words=int(words.n_words),
        info_shift=words.shift, rounds=0, hash_mask=hash_mask, substring_base=sub_base, n_substrings=n_sub,
        n_filters=int(nf), n_live=words.n_live, max_ranges=_max_ranges(block_start, nkeys),
    )
    arrays = TableArrays(
        block_start=block_start, link_start=link_start.astype(np.int32),
        # the ordered constraints' values are in the rank tables (order_value)
        pattern_rank=d_cv[block_start[OP_PREFIX * nkeys]:block_start[OP_ANY * nkeys]].astype(np.int32),
        links=links64.astype(np.int32), filter_info=words.filter_info, interface_filters=interface_filters,
        always=words.always, dead=words.dead,
        # the selectivity arrays are filled by with_rounds
        selectivity_name=sel.name[:0].copy(), selectivity_type=sel.type[:0].copy(),
        selectivity_bits=sel.bitmaps(0, words.n_words),
        string_chars=string_chars, string_start=string_start, string_hash=string_hash,
        string_slots=_string_slots(string_hash), **patterns, **name_tables,
        **_order_ranks(d_op, d_key, d_cv, nkeys),
        # the interface of each link's filter, for the counting's gathering
        # step (_kernels._count_links); a byte, so only up to 256 interfaces
        link_interface=f_iface[links64].astype(np.uint8) if n_if <= 256 else np.zeros(0, np.uint8),
    )
    compiled = Compiled(
        arrays=arrays, params=params, interfaces=ifaces, names=names,
        lookup={s: (i, int(m)) for i, (s, m) in enumerate(zip(names, name_tables["name_mask"], strict=True))},
        strings=rows.strings, n_constraints=int(links64.shape[0]), n_distinct=int(n_distinct),
        n_filters=nf, n_live=words.n_live, counter_dtype=np.dtype(words.counter_dtype), selectivity=sel,
        stats={},
    )
    return compiled.with_rounds(rounds)


def _automaton_keys(d_op: np.ndarray, d_key: np.ndarray, d_cv: np.ndarray, string_start: np.ndarray,
                    n_keys: int) -> np.ndarray:
    """Per key: does it get a substring automaton? Those whose substring
    patterns have more than ``SUBSTRING_PROBE_LENGTHS`` distinct lengths, or
    one of 63 characters or more (the length mask is exact below 63 only)."""
    sub = np.flatnonzero(d_op == OP_SUBSTRING)
    plen = string_start[d_cv[sub] + 1] - string_start[d_cv[sub]]
    pairs = np.unique(np.stack([d_key[sub].astype(np.int64), plen.astype(np.int64)]), axis=1)
    n_lengths = np.bincount(pairs[0], minlength=n_keys)
    longest = np.zeros(n_keys, np.int64)
    np.maximum.at(longest, d_key[sub].astype(np.int64), plen.astype(np.int64))
    return (n_lengths > SUBSTRING_PROBE_LENGTHS) | (longest >= 63)


def _substring_automata(d_op: np.ndarray, d_key: np.ndarray, d_cv: np.ndarray, automaton_keys: np.ndarray,
                        string_chars: np.ndarray, string_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``substring_automata``, one Aho–Corasick automaton per key of
    ``automaton_keys`` over its substring constraints' patterns (see
    ``_automaton``), and each key's root node (-1 for none)."""
    sub = np.flatnonzero(d_op == OP_SUBSTRING)
    sub = sub[automaton_keys[d_key[sub]]]
    sub = sub[np.lexsort((d_cv[sub], d_key[sub]))]
    keys, ranks = d_key[sub].astype(np.int64), d_cv[sub].astype(np.int64)
    if np.any((keys[1:] == keys[:-1]) & (ranks[1:] == ranks[:-1])):
        raise RuntimeError("a substring constraint appears twice on one key after deduplication")
    if keys.shape[0] == 0:
        # what build_automata returns for no pattern, without compiling it
        # (1 s of a cold first call; most tables have no automaton)
        roots, automata = no_automata(automaton_keys.shape[0])
        return automata, roots
    roots, automata = first_call("substring_automata", build_automata,
                                 (keys, sub.astype(np.int64), ranks, string_chars, string_start,
                                  automaton_keys.shape[0]))
    return automata, roots


def _string_slots(string_hash: np.ndarray) -> np.ndarray:
    """The hash table from an interned string's hash to its rank (linear
    probing, at most half full), which places a message's string among the
    constants without a search when it is one of them."""
    size = 2
    while size < 2 * string_hash.shape[0]:
        size *= 2
    slots = np.full(size, -1, dtype=np.int32)
    ranks = np.arange(string_hash.shape[0], dtype=np.int64)
    first_call("fill_pattern_slots", fill_pattern_slots,
               (slots, size - 1, ranks, np.full(ranks.shape[0], OP_EQ, np.int8), np.zeros(ranks.shape[0], np.int64),
                ranks, string_hash, np.zeros(0, np.uint64)))
    return slots


def _order_ranks(d_op: np.ndarray, d_key: np.ndarray, d_cv: np.ndarray, n_keys: int) -> dict[str, np.ndarray]:
    """The rank tables that place a value among all the ``=``, ``!=``, ``<``,
    ``>``, ``<=``, ``>=`` constants of a key with one search
    (``_kernels._collect_ordered``).

    Per key: ``order_value[order_start[k]:order_start[k + 1]]``, the key's
    distinct ordered constants (u of them), sorted; and u + 1 rows of counts
    in ``order_rank``, row p holding, for each operator block the key has (in
    operator order), how many of the block's constants are smaller than the
    p-th distinct constant (row u: the block's size). Counts are relative to
    the block's start and stored in the fewest bytes (1, 2 or 4) that the
    key's largest block needs, so that on most keys a row is a few bytes.
    ``order_layout[k]`` is the byte offset of the key's rows << 8 | log2 of
    the count width << 6 | the bitmask of the key's ordered blocks.
    """
    ordered = np.flatnonzero(d_op <= OP_GE)
    o_key, o_op, o_val = d_key[ordered], d_op[ordered], d_cv[ordered]
    by_value = np.lexsort((o_val, o_key))
    o_key, o_op, o_val = o_key[by_value], o_op[by_value], o_val[by_value]
    new = _group_starts(o_key, o_val)
    distinct_key = o_key[new]
    order_start = np.zeros(n_keys + 1, dtype=np.int64)
    np.cumsum(np.bincount(distinct_key, minlength=n_keys), out=order_start[1:])
    # key k's rows are the global rows order_start[k] + k .. order_start[k + 1] + k
    n_rows = int(order_start[-1]) + n_keys
    row_key = np.repeat(np.arange(n_keys), np.diff(order_start) + 1)
    key_row0 = order_start[:-1] + np.arange(n_keys)
    # a constant counts in the rows after its own: row p counts the constants below the p-th
    member = np.zeros((n_rows, OP_GE + 1), dtype=np.int64)
    member[np.cumsum(new) - 1 + o_key + 1, o_op] = 1
    counts = np.cumsum(member, axis=0)
    counts -= counts[key_row0[row_key]]
    mask = np.zeros(n_keys, dtype=np.int64)
    np.bitwise_or.at(mask, o_key, np.left_shift(1, o_op))
    present = ((mask[:, None] >> np.arange(OP_GE + 1)) & 1).astype(bool)
    stride = present.sum(axis=1)
    largest = counts[order_start[1:] + np.arange(n_keys)].max(axis=1) if n_keys else np.zeros(0, np.int64)
    wlog = np.where(largest < 2**8, 0, np.where(largest < 2**16, 1, 2))
    key_bytes = (np.diff(order_start) + 1) * (stride << wlog)
    offset = np.zeros(n_keys + 1, dtype=np.int64)
    np.cumsum(key_bytes, out=offset[1:])
    # every (row, present block): its byte position
    col = np.cumsum(present, axis=1) - 1
    rows, ops = np.nonzero(present[row_key])
    keys = row_key[rows]
    position = offset[keys] + (((rows - key_row0[keys]) * stride[keys] + col[keys, ops]) << wlog[keys])
    value = counts[rows, ops]
    order_rank = np.zeros(max(int(offset[-1]), 1), dtype=np.uint8)
    for byte, width_needed in enumerate((0, 1, 2, 2)):  # little-endian, 1 << wlog bytes
        wide = wlog[keys] >= width_needed
        order_rank[position[wide] + byte] = (value[wide] >> (8 * byte)) & 0xFF
    return {
        "order_start": order_start.astype(np.int32), "order_value": o_val[new].astype(np.int64),
        "order_layout": (offset[:-1] << 8) | (wlog << 6) | mask, "order_rank": order_rank,
    }


def _max_ranges(block_start: np.ndarray, n_keys: int) -> int:
    """The most constraint ranges one message attribute can collect in the
    kernel (``_kernels._count_attributes``): 9 for the operators that give
    ranges (``!=`` two, ``=`` .. ``>=`` one each, typed and type-any ``any``
    one each), plus one per prefix, suffix and substring constraint of its
    key, each found at most once."""
    if n_keys == 0:
        return 9
    sizes = np.diff(block_start.astype(np.int64))[: NOPS * n_keys].reshape(NOPS, n_keys)
    return 9 + int(sizes[OP_PREFIX:OP_SUBSTRING + 1].sum(axis=0).max())


def _selectivity(links: np.ndarray, link_u: np.ndarray, d_key: np.ndarray, key_name: np.ndarray,
                 key_type: np.ndarray, f_iface: np.ndarray, nf: int, n_if: int) -> Selectivity:
    """Determinant attributes: (name, type) or name (any type) constrained by
    every filter of an interface. Entries are sorted by the number of
    interfaces they exclude, largest first (ties by name id, then type)."""
    empty = Selectivity(np.zeros(0, np.int32), np.zeros(0, np.int8), np.zeros(1, np.int64), np.zeros(0, np.int32))
    if links.size == 0:
        return empty
    nnames = int(key_name.max()) + 1 if key_name.size else 1
    lk = d_key[link_u]
    ln = key_name[lk].astype(np.int64)
    lt = key_type[lk].astype(np.int64)
    f_count = np.bincount(f_iface, minlength=n_if)

    def determinants(lf: np.ndarray, code: np.ndarray, ncodes: int) -> tuple[np.ndarray, np.ndarray]:
        # distinct (filter, code) pairs, then (interface, code) pairs counted
        pairs = _uniq(lf * ncodes + code)
        pf = pairs // ncodes
        pc = pairs % ncodes
        ic, counts = _uniq_counts(f_iface[pf] * ncodes + pc)
        iface = ic // ncodes
        code_ = ic % ncodes
        full = counts == f_count[iface]
        return iface[full], code_[full]

    # typed: code = name * 4 + type (specific types only)
    typed = lt < T_ANY
    t_if, t_code = determinants(links[typed], (ln * 4 + lt)[typed], nnames * 4)
    # name level: some constraint on the name, whatever its type
    a_if, a_name = determinants(links, ln, nnames)
    # a typed determinant makes the name-level one redundant for that interface
    covered = _uniq(t_if * nnames + t_code // 4)
    probe = a_if * nnames + a_name
    at = np.minimum(np.searchsorted(covered, probe), max(0, covered.shape[0] - 1))
    keep = ~((covered.shape[0] > 0) & (covered[at] == probe)) if covered.shape[0] else np.ones(probe.shape, bool)
    a_if, a_name = a_if[keep], a_name[keep]

    e_name = np.concatenate([t_code // 4, a_name])
    e_type = np.concatenate([t_code % 4, np.full(a_name.shape[0], T_ANY, dtype=np.int64)])
    e_if = np.concatenate([t_if, a_if])
    if e_if.size == 0:
        return empty
    ecode = e_name * 5 + e_type
    order0 = np.argsort(ecode, kind="stable")
    sorted_codes = ecode[order0]
    starts = _flags(sorted_codes)
    codes = sorted_codes[starts]
    sizes = np.diff(np.append(np.flatnonzero(starts), sorted_codes.shape[0]))
    inv = np.empty(ecode.shape[0], dtype=np.int64)
    inv[order0] = np.cumsum(starts) - 1
    # most selective first; ties by (name, type) code for determinism
    rank_order = np.lexsort((codes, -sizes))
    new_pos = np.empty_like(rank_order)
    new_pos[rank_order] = np.arange(rank_order.shape[0])
    row = new_pos[inv]
    o = np.lexsort((e_if, row))
    offsets = np.zeros(codes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes[rank_order], out=offsets[1:])
    return Selectivity(
        name=(codes[rank_order] // 5).astype(np.int32),
        type=(codes[rank_order] % 5).astype(np.int8),
        offsets=offsets,
        ifaces=e_if[o].astype(np.int32),
    )
