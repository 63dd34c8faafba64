"""The interval index: filters made only of numeric intervals, matched by
negative bucket marking instead of counting.

Counting (Carzaniga & Wolf, SIGCOMM 2003, §4) turns ``low <= x <= high``
into two one-sided constraints and, per message, increments a counter per
satisfied constraint: on dense numeric workloads (every filter constrains
most attributes to a wide interval) that is most of the table's constraints
per message. REIN (Qian et al., Scalable and Elastic Event Matching for
Attribute-Based Publish/Subscribe Systems, 2014, §3) instead buckets the
interval ends per attribute and, for a value v, marks as *not* matching
every subscription whose interval excludes v, comparing values exactly only
in v's own bucket; unmarked subscriptions match.

This index does the same with precomputed bitmaps, one per (attribute,
bucket): bit f is set unless filter f's interval on the attribute misses the
bucket altogether. A message's candidates are the AND of one bitmap per
bucketed attribute (the bucket of its value, or the "absent" bitmap: the
filters that do not constrain the attribute); each candidate is then checked
exactly against all its intervals (``_intervals``). A filter goes to the index
when all of its constraints are ``=``, ``<``, ``>``, ``<=``, ``>=`` on int or
float attributes and one of them is bucketed; the others stay with counting,
and the table's answer is the union of the two.

Which attributes are bucketed is decided at compile time, per attribute, from
the table's measured selectivity (:func:`choose_keys`); ``intervals="index"``
and ``intervals="counting"`` force the choice (:data:`MODES`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cbalgebra.matcher._build import RawTable, _name_tables, _uniq
from cbalgebra.matcher._intervals import fill_bitmaps, interval_groups, interval_positions
from cbalgebra.matcher._kernels import first_call
from cbalgebra.matcher.layout import NTYPES, OP_GE, OP_NE, T_FLOAT, T_INT, TYPE_NAMES

#: ``intervals=`` of ``ForwardingTable.compile``: ``"auto"`` decides per
#: attribute by measured selectivity, ``"index"`` buckets every int and float
#: attribute, ``"counting"`` keeps the counting algorithm alone (the paper's).
MODES = ("auto", "index", "counting")
#: Buckets per attribute (REIN's buckets): more buckets, fewer candidates to
#: check exactly, and (buckets + 1) bitmaps of one bit per filter each.
BUCKETS = 16
#: ``"auto"`` buckets an attribute only if at least one filter in this many
#: constrains it (:func:`choose_keys`), and indexes a filter only if all its
#: attributes are bucketed: the index is for dense numeric workloads.
DENSE_SHARE = 16
#: ``"auto"`` leaves a table to counting when fewer constraints than this
#: would go to the index: a message then pays a second decode and kernel
#: call (a few microseconds) for less work than counting them costs.
MIN_INDEX_CONSTRAINTS = 1 << 15
_INT64_MIN = np.iinfo(np.int64).min
_INT64_MAX = np.iinfo(np.int64).max


@dataclass
class IntervalIndex:
    """The compiled index (arrays the kernels take, in ``arrays``' order)."""

    names: list[str]
    keycodes: np.ndarray      # per key: name id * NTYPES + type
    key_filters: np.ndarray   # per key: filters of the index constraining it
    key_pass: np.ndarray      # per key: measured fraction of its intervals a value falls in
    name_lookup: tuple        # the index's name tables, for _wire.decode_wires
    key_of: np.ndarray        # int32, n_names * NTYPES: key of (name, type) or -1
    values_start: np.ndarray  # int64, n_keys + 1: each key's run of values
    values_base: np.ndarray   # int64 per key: its smallest interval end
    values32: np.ndarray      # uint32: each key's distinct interval ends less its smallest, sorted (or empty)
    values64: np.ndarray      # int64: the same as they are, when some key's span is 2**32 or more (or empty)
    row_base: np.ndarray      # int64 per key: its first bitmap row, -1 if not bucketed
    bucket_start: np.ndarray  # int64, n_keys + 1: each key's run of buckets
    buckets: np.ndarray       # int64: per bucketed key, BUCKETS + 1 bucket starts (positions)
    bitmaps: np.ndarray       # uint64 (rows, words): per bucketed key, BUCKETS pass rows and the absent row
    f_start: np.ndarray       # int64, n_filters + 1: each filter's run of intervals
    f_key8: np.ndarray        # uint8 per interval: its key, if there are at most 256 keys (or empty)
    f_key32: np.ndarray       # int32 per interval: its key, otherwise (or empty)
    f_a: np.ndarray           # int32 per interval: first position inside
    f_b: np.ndarray           # int32 per interval: last position inside
    f_iface: np.ndarray       # int32 per filter: its dense interface (ascending)
    n_words_if: int           # 64-bit words of an interface bitmap
    n_constraints: int        # the constraints the index took from counting

    @property
    def arrays(self) -> tuple:
        return (self.key_of, self.values_start, self.values_base, self.values32, self.values64, self.row_base,
                self.bucket_start, self.buckets, self.bitmaps, self.f_start, self.f_key8, self.f_key32, self.f_a,
                self.f_b, self.f_iface)

    @property
    def n_filters(self) -> int:
        return int(self.f_iface.shape[0])

    @property
    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in self.arrays))

    def algorithms(self) -> list[tuple[str, str, str, int, float]]:
        """Per attribute of the index: (name, type, "interval index" if it is
        bucketed else "checked", filters constraining it, measured pass
        fraction)."""
        found = []
        for k, code in enumerate(self.keycodes):
            algorithm = "interval index" if self.row_base[k] >= 0 else "checked"
            found.append((self.names[int(code) // NTYPES], TYPE_NAMES[int(code) % NTYPES], algorithm,
                          int(self.key_filters[k]), float(self.key_pass[k])))
        return found


def check_mode(mode: object) -> str:
    if mode not in MODES:
        raise ValueError(f"intervals must be one of {', '.join(map(repr, MODES))}, not {mode!r}")
    return str(mode)


def _name_ids(raw: RawTable) -> tuple[list[str], np.ndarray]:
    """The distinct names the constraints use, in code-point order (as
    ``_build`` numbers them), and each input name's position among them."""
    used = np.flatnonzero(np.bincount(raw.c_name, minlength=len(raw.names))).tolist()
    names = sorted({raw.names[i] for i in used})
    pos = {s: r for r, s in enumerate(names)}
    name_id = np.full(len(raw.names), -1, np.int64)
    name_id[used] = [pos[raw.names[i]] for i in used]
    return names, name_id


def eligible_filters(raw: RawTable) -> tuple[np.ndarray, np.ndarray]:
    """Per filter: are all its constraints intervals on int or float
    attributes (and is there one)? And its number of constraints."""
    nf = raw.filter_interface.shape[0]
    interval = ((raw.c_type == T_INT) | (raw.c_type == T_FLOAT)) & (raw.c_op <= OP_GE) & (raw.c_op != OP_NE)
    size = np.bincount(raw.c_filter, minlength=nf)
    bad = np.bincount(raw.c_filter, weights=~interval, minlength=nf) if not interval.all() else np.zeros(nf)
    return (size > 0) & (bad == 0), size


def choose_keys(key_filters: np.ndarray, passing: np.ndarray, n_filters: int, mode: str) -> np.ndarray:
    """Which attributes get bucket bitmaps (per key, from its measured
    selectivity).

    ``key_filters[k]``: the filters constraining attribute k; ``passing[k]``
    the measured share s of its intervals that a value falls in (over the
    values of the intervals' own ends, ``_intervals.interval_positions``). A
    bitmap costs a read of ``n_filters / 64`` words per message and drops
    about ``c * (1 - s)`` candidates, each of which would otherwise be checked
    exactly: under ``"auto"`` an attribute is bucketed when it drops at least
    one candidate per word it reads and at least one filter in
    ``DENSE_SHARE`` constrains it; under ``"index"`` every one is."""
    if mode == "index":
        return key_filters > 0
    return (key_filters > 0) & (key_filters * (1.0 - passing) * 64 >= n_filters) & (
        key_filters * DENSE_SHARE >= n_filters)


def split_table(raw: RawTable, n_interfaces: int, mode: str) -> tuple[RawTable, IntervalIndex | None]:
    """``raw`` split into the part counting matches and the interval index
    (None when no filter goes to it, or under ``"counting"``)."""
    if mode == "counting" or raw.c_filter.shape[0] == 0:
        return raw, None
    eligible, size = eligible_filters(raw)
    if not eligible.any():
        return raw, None
    if mode == "auto" and int(size[eligible].sum()) < MIN_INDEX_CONSTRAINTS:
        return raw, None
    nf = int(eligible.shape[0])
    names, name_id = _name_ids(raw)
    interfaces = _sorted_distinct(raw.interfaces)
    f_iface = np.searchsorted(interfaces, raw.filter_interface)
    # filters are numbered in interface order, as in the counting table
    rank_of_filter = np.arange(nf)
    in_rank_order = not (nf and np.any(f_iface[1:] < f_iface[:-1]))
    if not in_rank_order:
        order = np.argsort(f_iface, kind="stable")
        rank_of_filter[order] = np.arange(nf)
        f_iface = f_iface[order]
    g_filter, g_code, g_lo, g_hi, never_rank = first_call(
        "interval_groups", interval_groups,
        (raw.c_filter, raw.c_name, raw.c_type, raw.c_op, raw.c_value, name_id, eligible, rank_of_filter,
         in_rank_order, nf))
    present = np.bincount(g_code, minlength=len(names) * NTYPES) > 0
    keycodes = np.flatnonzero(present)
    g_key = (np.cumsum(present) - 1).astype(np.int32)[g_code]
    n_keys = int(keycodes.shape[0])
    values_start, values_base, values32, values64, g_a, g_b, g_ja, g_jb, buckets, passing = first_call(
        "interval_positions", interval_positions, (g_key, g_lo, g_hi, n_keys, BUCKETS))
    del g_lo, g_hi
    eligible_rank = np.zeros(nf, bool)
    eligible_rank[rank_of_filter[eligible]] = True
    key_filters = np.bincount(g_key, minlength=n_keys)
    bucketed = choose_keys(key_filters, passing, int(np.count_nonzero(eligible_rank & ~never_rank)), mode)
    side_rank = eligible_rank & ~never_rank
    if mode == "auto":
        # an attribute without bitmap would let its filters through as
        # candidates (measured on the SIGCOMM 2003 workload, I = 20: 4x
        # slower than counting when one bucketed attribute was enough)
        side_rank[g_filter[~bucketed[g_key]]] = False
    else:
        # a filter with no bucketed attribute would be a candidate for every message
        has_bucket = np.zeros(nf, bool)
        has_bucket[g_filter[bucketed[g_key]]] = True
        side_rank &= has_bucket
    side, never = side_rank[rank_of_filter], never_rank[rank_of_filter]
    n_constraints = int(size[side].sum())
    if n_constraints == 0 or (mode == "auto" and n_constraints < MIN_INDEX_CONSTRAINTS):
        return raw, None
    counting = dataclasses.replace(raw, **_rows_of(raw, ~side & ~never))
    kept = side_rank[g_filter]
    if not kept.all():
        g_filter, g_key, g_a, g_b = g_filter[kept], g_key[kept], g_a[kept], g_b[kept]
        g_ja, g_jb = g_ja[kept], g_jb[kept]
        key_filters = np.bincount(g_key, minlength=n_keys)
    n_f = int(np.count_nonzero(side_rank))
    if n_f < nf:  # renumbered (kept filters keep their order)
        g_filter = (np.cumsum(side_rank) - 1)[g_filter]
    row_base = np.where(bucketed, (np.cumsum(bucketed) - 1) * (BUCKETS + 1), -1).astype(np.int64)
    bucket_start = np.zeros(n_keys + 1, np.int64)
    np.cumsum(np.where(bucketed, BUCKETS + 1, 0), out=bucket_start[1:])
    buckets = buckets.reshape(n_keys, BUCKETS + 1)[bucketed].ravel()
    bitmaps = np.empty((int(bucketed.sum()) * (BUCKETS + 1), max(1, (n_f + 63) // 64)), np.uint64)
    first_call("fill_bitmaps", fill_bitmaps, (bitmaps, row_base, BUCKETS, g_filter, g_key, g_ja, g_jb, n_f))
    del g_ja, g_jb
    # the groups are in filter order: each filter's run starts at its first
    f_start = np.searchsorted(g_filter, np.arange(n_f + 1, dtype=g_filter.dtype)).astype(np.int64)
    name_lookup = _name_tables(names, keycodes)
    return counting, IntervalIndex(
        names=names, keycodes=keycodes, key_filters=key_filters, key_pass=passing,
        name_lookup=tuple(name_lookup[k] for k in ("name_chars", "name_start", "name_hash", "name_slots",
                                                   "name_mask")),
        key_of=name_lookup["key_of"], values_start=values_start, values_base=values_base, values32=values32,
        values64=values64,
        row_base=row_base, bucket_start=bucket_start, buckets=buckets, bitmaps=bitmaps, f_start=f_start,
        f_key8=g_key.astype(np.uint8) if n_keys <= 256 else np.zeros(0, np.uint8),
        f_key32=g_key.astype(np.int32) if n_keys > 256 else np.zeros(0, np.int32),
        f_a=g_a, f_b=g_b, f_iface=f_iface[side_rank].astype(np.int32),
        n_words_if=max(1, (n_interfaces + 63) // 64), n_constraints=n_constraints)


def _sorted_distinct(x: np.ndarray) -> np.ndarray:
    """The sorted distinct values of ``x`` (itself when it is so already:
    interface ids usually are)."""
    x = np.asarray(x, dtype=np.int64)
    if x.shape[0] < 2 or bool(np.all(x[1:] > x[:-1])):
        return x
    return _uniq(x)


def _rows_of(raw: RawTable, keep_filter: np.ndarray) -> dict:
    """The columns of ``raw`` restricted to the filters of ``keep_filter``
    (renumbered)."""
    if not keep_filter.any():
        none = np.zeros(0, np.int64)
        return dict(filter_interface=none, c_filter=none, c_name=none, c_type=raw.c_type[:0], c_op=raw.c_op[:0],
                    c_value=none)
    new_id = np.cumsum(keep_filter) - 1
    rows = keep_filter[raw.c_filter]
    return dict(filter_interface=raw.filter_interface[keep_filter], c_filter=new_id[raw.c_filter[rows]],
                c_name=raw.c_name[rows], c_type=raw.c_type[rows], c_op=raw.c_op[rows], c_value=raw.c_value[rows])
