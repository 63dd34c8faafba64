"""The predicates of the routing schemes' tables, each encoded once.

Every routing scheme (:mod:`cbalgebra.network.schemes`) compiles, at every
processor, one :class:`cbalgebra.matcher.ForwardingTable` whose interfaces
hold disjunctions of receivers' predicates. :class:`_PredicatePool` numbers
the distinct predicates and has the matcher's one encoder
(:class:`cbalgebra.matcher.ColumnEncoder`) turn them into constraint rows
once; :class:`_Combiner` turns a set of receivers into the predicates of
their disjunction, reduced with the scheme's reducer. The memory model
(:mod:`cbalgebra.network.memory`) uses both without building any table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

import cbalgebra
from cbalgebra.values import Filter, Predicate


class _PredicatePool:
    """Every predicate any table uses, each encoded once (by the matcher's
    one encoder, :class:`cbalgebra.matcher.ColumnEncoder`) into constraint
    rows when the tables are built; a table is then a numpy gather of the
    rows of its (interface, predicate) pairs, with no Python loop per
    constraint. Adding a predicate encodes nothing: the memory model needs
    only its size."""

    def __init__(self) -> None:
        self._ids: dict[Predicate, int] = {}
        self.predicates: list[Predicate] = []
        self._frozen = False

    def add(self, pred: Predicate) -> int:
        found = self._ids.get(pred)
        if found is not None:
            return found
        assert not self._frozen, "pool already compiled"
        pid = self._ids[pred] = len(self.predicates)
        self.predicates.append(pred)
        return pid

    def size(self, pid: int) -> int:
        return self.predicates[pid].size

    def freeze(self) -> None:
        """Encode every predicate, predicate ``pid`` as the filters of interface ``pid``."""
        if self._frozen:
            return
        from cbalgebra.matcher import ColumnEncoder  # numpy only: the matcher's encoder does not load numba

        encoder = ColumnEncoder()
        for pid, pred in enumerate(self.predicates):
            encoder.add(pid, pred.filters)
        columns = encoder.columns()
        self._nf = np.bincount(columns.filter_interface, minlength=len(self.predicates)).astype(np.int64)
        first_filter = np.zeros(len(self.predicates) + 1, dtype=np.int64)
        np.cumsum(self._nf, out=first_filter[1:])
        self._start_a = np.searchsorted(columns.c_filter, first_filter).astype(np.int64)
        # rows as (filter within its predicate, name, type, op, value)
        local = columns.c_filter - np.repeat(first_filter[:-1], np.diff(self._start_a))
        self._cols = np.stack([local, columns.c_name, columns.c_type.astype(np.int64),
                               columns.c_op.astype(np.int64), columns.c_value], axis=1)
        self._names_list = list(columns.names)
        self._strings_list = list(columns.strings)
        self._frozen = True

    def table(self, interfaces: Iterable[int], iface: np.ndarray, pid: np.ndarray) -> Any:
        """A ForwardingTable with the given interfaces, where interface
        ``iface[k]`` holds the filters of predicate ``pid[k]`` (an interface
        may appear with several predicates: their disjunction)."""
        # deferred: the forwarding table loads numba
        from cbalgebra.matcher import ForwardingTable
        iface = np.asarray(iface, dtype=np.int64)
        pid = np.asarray(pid, dtype=np.int64)
        nf = self._nf[pid]
        filter_base = np.zeros(len(pid) + 1, dtype=np.int64)
        np.cumsum(nf, out=filter_base[1:])
        filter_interface = np.repeat(iface, nf)
        starts = self._start_a[pid]
        counts = self._start_a[pid + 1] - starts
        total = int(counts.sum())
        # row index of every constraint of every pair, in pair order
        pair_of_row = np.repeat(np.arange(len(pid)), counts)
        offsets = np.zeros(len(pid) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        rows = starts[pair_of_row] + (np.arange(total) - offsets[pair_of_row])
        cols = self._cols[rows] if total else np.zeros((0, 5), dtype=np.int64)
        return ForwardingTable.from_arrays(
            interfaces=np.array(sorted({int(i) for i in interfaces}), dtype=np.int64),
            filter_interface=filter_interface,
            c_filter=filter_base[pair_of_row] + cols[:, 0],
            c_name=cols[:, 1], c_type=cols[:, 2], c_op=cols[:, 3], c_value=cols[:, 4],
            names=self._names_list, strings=self._strings_list)


class _Combiner:
    """Turns a set of receivers into the predicate ids of their disjunction:
    their own predicates (reducer ``none``) or one reduced predicate (cached
    by the set, which many (source, edge) pairs share)."""

    def __init__(self, pool: _PredicatePool, predicates: Mapping[int, Predicate], reducer: str) -> None:
        self.pool = pool
        self.reducer = reducer
        self.own = {x: pool.add(p) for x, p in predicates.items()}
        self._cache: dict[frozenset, tuple[int, ...]] = {}

    def ids(self, receivers: Iterable[int]) -> tuple[int, ...]:
        receivers = frozenset(x for x in receivers if x in self.own)
        if self.reducer == "none":
            return tuple(self.own[x] for x in sorted(receivers))
        found = self._cache.get(receivers)
        if found is None:
            found = self._cache[receivers] = self._reduce(
                [f for x in sorted(receivers) for f in self.pool.predicates[self.own[x]].filters])
        return found

    def ids_of_filters(self, filters: list[Filter]) -> tuple[int, ...]:
        if self.reducer == "none":
            return (self.pool.add(Predicate(filters)),) if filters else ()
        return self._reduce(filters)

    def _reduce(self, filters: list[Filter]) -> tuple[int, ...]:
        if not filters:
            return ()
        return (self.pool.add(cbalgebra.reduce(Predicate(filters), reducer=self.reducer)),)
