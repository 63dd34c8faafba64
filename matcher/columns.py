"""Forwarding tables as columns, and the one encoder from predicates to them.

A table as columns (:class:`TableColumns`) is what
``ForwardingTable.from_arrays`` takes and what the compiler (``_build``)
starts from: one row per constraint occurrence, values encoded in int64.
:class:`ColumnEncoder` is the only code that turns ``Filter`` and
``Predicate`` values into such rows; ``ForwardingTable.compile``, the bulk
document reader (for the statements the full parser reads), the routing
schemes' predicate pool (``cbalgebra.network``) all call it, and
:meth:`TableColumns.predicates` is its inverse (the workload generator of
``cbalgebra.workloads`` draws columns directly and decodes them with it).

Only numpy is imported here: building columns does not load numba.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cbalgebra.values import OP_CODE, OPERATOR_SPECS, OPERATORS, TYPE_CODE, Constraint, Filter, Predicate, Type

__all__ = ["ALLOWED", "ColumnEncoder", "Interner", "TableColumns", "check_interface", "decode_value",
           "encode_predicates", "filters_of"]

_T_STRING, _T_INT, _T_FLOAT = int(Type.STRING), int(Type.INT), int(Type.FLOAT)
#: type code -> spelling, ``any`` (no type) included
_TYPE_SPELLING = {code: spelling for spelling, code in TYPE_CODE.items()}

#: ``ALLOWED[type code, operator code]``: the operator table of
#: ``cbalgebra.values`` (docs/design.md, §3 "Fixed semantics") as an array,
#: for checking columns.
ALLOWED = np.zeros((len(Type), len(OPERATORS)), dtype=bool)
for _spec in OPERATOR_SPECS:
    ALLOWED[[int(t) for t in _spec.types], int(_spec.code)] = True


class Interner(dict):
    """Value -> dense id, in order of first use (``interner[value]`` adds it)."""

    def __missing__(self, key: Any) -> int:
        value = self[key] = len(self)
        return value


def decode_value(type_code: int, value: int, strings: Sequence[str]) -> Any:
    """The Python value an int64 cell of ``c_value`` (or a message's
    attribute value) encodes for a type code: the inverse of the encoding
    :class:`ColumnEncoder` applies."""
    if type_code == _T_STRING:
        return strings[value]
    if type_code == _T_INT:
        return int(value)
    if type_code == _T_FLOAT:
        return float(np.int64(value).view(np.float64))
    return bool(value)


def check_interface(interface: Any) -> int:
    """An interface id as an int, or the TypeError / ValueError a table raises."""
    if isinstance(interface, bool) or not isinstance(interface, (int, np.integer)):
        raise TypeError(f"interface ids must be ints, not {interface!r}")
    if interface < 0 or interface > np.iinfo(np.int64).max:
        raise ValueError(f"interface ids must be ints >= 0, not {interface}")
    return int(interface)


@dataclass
class TableColumns:
    """A forwarding table as columns, one row per constraint occurrence.

    - ``interfaces``: every interface id (int64), including interfaces whose
      predicate is empty; ``filter_interface[f]``: the interface of filter f
      (a filter with no rows is the empty filter, which matches everything).
    - ``c_filter``, ``c_name`` (index into ``names``), ``c_type`` and ``c_op``
      (the codes of ``values.Type`` / ``values.Op``), ``c_value`` (int64): the
      value of an int; 0/1 for a bool; the IEEE-754 bits of a float
      (``np.float64(x).view(np.int64)``); for a string the index into
      ``strings``; 0 for ``any``.
    """

    interfaces: np.ndarray
    filter_interface: np.ndarray
    c_filter: np.ndarray
    c_name: np.ndarray
    c_type: np.ndarray
    c_op: np.ndarray
    c_value: np.ndarray
    names: Sequence[str]
    strings: Sequence[str]

    def arrays(self) -> dict[str, Any]:
        """Keyword arguments for ``ForwardingTable.from_arrays``."""
        return dict(interfaces=self.interfaces, filter_interface=self.filter_interface, c_filter=self.c_filter,
                    c_name=self.c_name, c_type=self.c_type, c_op=self.c_op, c_value=self.c_value,
                    names=self.names, strings=self.strings)

    def constraint(self, k: int) -> Constraint:
        """Row ``k`` as a Constraint."""
        t = int(self.c_type[k])
        op = OPERATORS[int(self.c_op[k])]
        value = None if op == "any" else decode_value(t, int(self.c_value[k]), self.strings)
        return Constraint(_TYPE_SPELLING[t], self.names[int(self.c_name[k])], op, value)

    def predicates(self) -> dict[int, Predicate]:
        """The table as ``{interface: Predicate}``, the inverse of
        :func:`encode_predicates` (builds Python objects: slow for millions of
        constraints)."""
        n_filters = int(self.filter_interface.shape[0])
        order = np.argsort(self.c_filter, kind="stable")
        bounds = np.searchsorted(self.c_filter[order], np.arange(n_filters + 1))
        per_interface: dict[int, list[Filter]] = {int(i): [] for i in self.interfaces}
        for f in range(n_filters):
            cs = [self.constraint(int(k)) for k in order[bounds[f]:bounds[f + 1]]]
            per_interface[int(self.filter_interface[f])].append(Filter(cs))
        return {i: Predicate(fs) for i, fs in per_interface.items()}


class ColumnEncoder:
    """Encodes filters into the rows of :class:`TableColumns`.

    Names and string constants are numbered in order of first use, in the
    ``names`` and ``strings`` interners (which a caller may share, as the bulk
    reader does with its own columns). Filters are numbered in the order
    they are added. :meth:`take` hands over the rows added since the last
    take, :meth:`columns` the whole table."""

    def __init__(self, names: Interner | None = None, strings: Interner | None = None) -> None:
        self.names = Interner() if names is None else names
        self.strings = Interner() if strings is None else strings
        self.interfaces: dict[int, None] = {}
        self._reset()

    def add(self, interface: int, filters: Iterable[Filter]) -> None:
        """Append ``filters`` as filters of ``interface`` (declared even if
        there are none: an empty predicate)."""
        self.interfaces.setdefault(interface, None)
        names, strings = self.names, self.strings
        filter_interface, c_filter, c_name = self._filter_interface, self._filter, self._name
        c_type, c_op, c_value = self._type, self._op, self._value
        for f in filters:
            filter_id = len(filter_interface)
            filter_interface.append(interface)
            for c in f.constraints:
                c_filter.append(filter_id)
                c_name.append(names[c.name])
                type_code = TYPE_CODE[c.type]
                c_type.append(type_code)
                c_op.append(OP_CODE[c.op])
                value: Any = c.value
                if value is None:
                    c_value.append(0)
                elif type_code == _T_STRING:
                    c_value.append(strings[value])
                elif type_code == _T_FLOAT:
                    self._float_rows.append(len(c_value))
                    self._float_values.append(value)
                    c_value.append(0)
                else:
                    c_value.append(int(value))

    def take(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """The filters and rows added since the last take (and forgets them;
        the interners keep their numbering): the interface of each filter and
        the columns c_filter (counted from 0), c_name, c_type, c_op, c_value."""
        taken = self._arrays()
        self._reset()
        return taken

    def columns(self) -> TableColumns:
        """Every filter added, as a table whose interfaces are those added (in order)."""
        filter_interface, (c_filter, c_name, c_type, c_op, c_value) = self._arrays()
        return TableColumns(
            interfaces=np.array(list(self.interfaces), dtype=np.int64), filter_interface=filter_interface,
            c_filter=c_filter, c_name=c_name, c_type=c_type, c_op=c_op, c_value=c_value,
            names=list(self.names), strings=list(self.strings))

    def _reset(self) -> None:
        self._filter_interface: list[int] = []
        self._filter: list[int] = []
        self._name: list[int] = []
        self._type: list[int] = []
        self._op: list[int] = []
        self._value: list[int] = []
        # floats are stored as their bits, converted in one numpy call
        self._float_rows: list[int] = []
        self._float_values: list[float] = []

    def _arrays(self) -> tuple[np.ndarray, list[np.ndarray]]:
        value = np.array(self._value, dtype=np.int64)
        if self._float_rows:
            value[np.array(self._float_rows)] = np.array(self._float_values, dtype=np.float64).view(np.int64)
        return (np.array(self._filter_interface, dtype=np.int64),
                [np.array(self._filter, dtype=np.int64), np.array(self._name, dtype=np.int64),
                 np.array(self._type, dtype=np.int8), np.array(self._op, dtype=np.int8), value])


def filters_of(interface: Any, predicate: Any) -> tuple[Filter, ...]:
    """The filters of a table entry (a Predicate or a single Filter)."""
    if isinstance(predicate, Filter):
        return (predicate,)
    if isinstance(predicate, Predicate):
        return predicate.filters
    raise TypeError(f"interface {interface}: expected a Predicate or Filter, not {type(predicate).__name__}")


def encode_predicates(table: Mapping[int, Predicate | Filter]) -> TableColumns:
    """``{interface id: Predicate | Filter}`` as columns, interfaces and
    filters in the mapping's order (ids are checked: ints >= 0)."""
    encoder = ColumnEncoder()
    for interface, predicate in table.items():
        encoder.add(check_interface(interface), filters_of(interface, predicate))
    return encoder.columns()
