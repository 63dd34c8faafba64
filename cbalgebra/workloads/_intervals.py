"""The interval workload of the interval-indexed matchers: REIN (Qian et al.,
Scalable and Fast Matching for Content-Based Publish/Subscribe Systems, 2014),
TAMA (Zhao & Wu, 2013), OpIndex (Zhang et al., VLDB 2014), H-Tree and the
counting "Siena", as their public C++ benchmark framework
(github.com/xizeroplus/matching-algorithm, ``intervalGenerator`` in each
engine's ``generator.cpp``) draws it.

``intervals(...)`` draws ``subscriptions`` subscriptions, each a conjunction of
``per_subscription`` interval predicates ``low <= a_j <= high`` on distinct
attributes of ``attributes``, and ``events`` events that each assign every
attribute. The framework's parameters and ours:

==================  =========================  ===============================
framework (paras)   parameter here             default (the issue's run)
==================  =========================  ===============================
subs                ``subscriptions``          1,000,000
atts                ``attributes``             20 (named ``a0`` … ``a19``)
cons                ``per_subscription``       10
valDom              ``value_range``            1,000,000: values in [0, valDom)
width               ``width``                  0.5 (a fraction of valDom)
attDis              ``distribution``           ``"uniform"`` (0) or ``"zipf"`` (1)
alpha               ``alpha``                  1.0 (Zipf exponent; zipf only)
pubs                ``events``                 1,000
m                   (always ``attributes``)    every event assigns every
                                               attribute (REIN requires m == atts)
==================  =========================  ===============================

The framework's law, reproduced:

- a subscription's attributes are drawn one by one, uniformly or with
  P(attribute i) ∝ 1 / (i + 1)**alpha, a draw that repeats an attribute of the
  same subscription being drawn again (``GenUniformAtts`` / ``GenZipfAtts``);
- every interval has the same width: ``low`` uniform in
  [0, int(valDom * (1 - width))) and ``high = low + int(valDom * width)``
  (``GenUniformValues``), both ends included (REIN marks a subscription as
  failing where ``low > v`` or ``high < v``);
- event values are uniform in [0, valDom).

With the defaults an event matches each predicate with probability about
0.5, so about 0.5**10 · 1,000,000 ≈ 1,000 subscriptions per event.

Not the framework's: its generator calls the C library's ``rand()`` unseeded.
Here, as in ``_forwarding.py``, ``numpy.random.Generator(PCG64)`` streams from
``SeedSequence([seed, k])`` draw the subscriptions (k = 1) and the events
(k = 2), so the subscriptions do not depend on the number of events. The C++
engines read this very workload through :meth:`IntervalWorkload.write_engine_input`
(the format a driver of their classes reads; see
``benchmarks/state_of_the_art.py``), which is how they and cbalgebra see
identical subscriptions.

Each subscription is one filter on an interface of its own (interface ``i``
for subscription ``i``), so a forwarding table's answer is the set of
matching subscriptions.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from cbalgebra.matcher import TableColumns
from cbalgebra.values import INT, OP_CODE, TYPE_CODE, Attribute, Constraint, Filter, Message

from ._forwarding import _cdf, _draw_distinct, _rng, sff_message, zipf_weights

if TYPE_CHECKING:  # numba loads only when a table is compiled
    from cbalgebra.matcher import ForwardingTable

__all__ = ["ENGINE_INPUT_MAGIC", "IntervalWorkload", "intervals"]

DISTRIBUTIONS = ("uniform", "zipf")
#: First int32 of :meth:`IntervalWorkload.write_engine_input` ("CBI1" little-endian).
ENGINE_INPUT_MAGIC = int.from_bytes(b"CBI1", "little")
_INT32_MAX = 2**31 - 1


def _count(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{what} must be an int >= {minimum}, not {value!r}")
    return int(value)


@dataclass
class IntervalWorkload:
    """Interval subscriptions and events (see the module docstring).

    - ``attribute[s, j]``: the attribute (index into ``names``) of the j-th
      predicate of subscription s; distinct within a row;
    - ``low[s, j]``, ``high[s, j]``: its bounds, ``low <= a <= high``;
    - ``event_values[e, a]``: the value of attribute a in event e.

    All int32 (the C++ engines' ``int``).
    """

    params: dict
    names: list[str]
    attribute: np.ndarray
    low: np.ndarray
    high: np.ndarray
    event_values: np.ndarray
    _messages: list[Message] | None = field(default=None, repr=False)

    @property
    def n_subscriptions(self) -> int:
        return int(self.attribute.shape[0])

    @property
    def per_subscription(self) -> int:
        return int(self.attribute.shape[1])

    @property
    def n_attributes(self) -> int:
        return len(self.names)

    @property
    def n_events(self) -> int:
        return int(self.event_values.shape[0])

    def __repr__(self) -> str:
        return (f"IntervalWorkload(subscriptions={self.n_subscriptions}, attributes={self.n_attributes}, "
                f"per_subscription={self.per_subscription}, events={self.n_events}, "
                f"distribution={self.params['distribution']!r}, seed={self.params['seed']})")

    # -------------------------------------------------------------- values
    def subscription(self, s: int) -> Filter:
        """Subscription ``s`` as a Filter: ``int a >= low, int a <= high`` per predicate."""
        cs = []
        for a, lo, hi in zip(self.attribute[s].tolist(), self.low[s].tolist(), self.high[s].tolist(), strict=True):
            cs += [Constraint(INT, self.names[a], ">=", lo), Constraint(INT, self.names[a], "<=", hi)]
        return Filter(cs)

    def subscriptions(self) -> Iterator[Filter]:
        """Every subscription as a Filter, in order (Python objects: slow for millions)."""
        return (self.subscription(s) for s in range(self.n_subscriptions))

    def predicates(self) -> dict[int, Filter]:
        """The table as ``{interface: Filter}``, subscription ``i`` on interface ``i``."""
        return dict(enumerate(self.subscriptions()))

    def event(self, e: int) -> Message:
        """Event ``e`` as a Message (every attribute, an int each)."""
        return Message({n: Attribute(INT, int(v)) for n, v in zip(self.names, self.event_values[e].tolist(),
                                                                  strict=True)})

    @property
    def messages(self) -> list[Message]:
        """The events as Messages (built once)."""
        if self._messages is None:
            self._messages = [self.event(e) for e in range(self.n_events)]
        return self._messages

    # -------------------------------------------------------------- oracle
    def matching(self, e: int) -> np.ndarray:
        """The subscriptions event ``e`` matches, ascending: the brute-force
        answer (every predicate of every subscription evaluated with numpy)."""
        values = self.event_values[e][self.attribute]
        return np.flatnonzero(((self.low <= values) & (values <= self.high)).all(axis=1))

    # -------------------------------------------------------------- tables
    def columns(self) -> TableColumns:
        """The table as the columns of ``ForwardingTable.from_arrays``: two rows
        (``>=`` low, ``<=`` high) per predicate, filter = interface = subscription."""
        n, k = self.attribute.shape
        subscriptions = np.arange(n, dtype=np.int64)
        rows = 2 * n * k
        c_op = np.empty(rows, dtype=np.int8)
        c_op[0::2], c_op[1::2] = OP_CODE[">="], OP_CODE["<="]
        c_value = np.empty(rows, dtype=np.int64)
        c_value[0::2], c_value[1::2] = self.low.ravel(), self.high.ravel()
        return TableColumns(interfaces=subscriptions, filter_interface=subscriptions,
                            c_filter=np.repeat(subscriptions, 2 * k), c_name=np.repeat(self.attribute.ravel(), 2)
                            .astype(np.int64), c_type=np.full(rows, TYPE_CODE[INT], dtype=np.int8), c_op=c_op,
                            c_value=c_value, names=list(self.names), strings=[])

    def table(self, preprocessing_rounds: int = 10, *, numbers: str = "strict") -> ForwardingTable:
        """The compiled ``ForwardingTable`` (through ``from_arrays``)."""
        from cbalgebra.matcher import ForwardingTable  # loads numba: only when a table is compiled

        return ForwardingTable.from_arrays(**self.columns().arrays(), preprocessing_rounds=preprocessing_rounds,
                                           numbers=numbers)

    # -------------------------------------------------------------- files
    def write_sff(self, target: str | os.PathLike | TextIO, *, table: bool = True, messages: bool = True) -> None:
        """Write an SFF 2.x driver file: ``ifconfig i ...;`` for subscription i,
        then a ``select`` per event. The text is what
        :func:`cbalgebra.workloads.write_sff_document` writes for
        ``predicates()`` and ``messages`` (SFF has no ``<=``/``>=``: ``a >= low``
        is written ``a > low - 1`` and ``a <= high`` ``a < high + 1``), produced
        a block of rows at a time instead of through a million Filters."""
        if isinstance(target, (str, os.PathLike)):
            with open(target, "w", encoding="utf-8", newline="\n") as opened:
                self.write_sff(opened, table=table, messages=messages)
            return
        target.write(f"// cbalgebra.workloads.intervals {self.params}\n")
        if table:
            for block in self._sff_blocks():
                target.write(block)
        if messages:
            for m in self.messages:
                target.write(sff_message(m) + "\n")

    def _sff_blocks(self, rows: int = 65_536) -> Iterator[str]:
        """The ifconfig lines, ``rows`` subscriptions per string. A Filter keeps
        its constraints sorted by name (as strings) then operator (``<=``
        before ``>=``): the predicates are written in that order."""
        k = self.per_subscription
        rank = np.argsort(np.argsort(np.array(self.names, dtype=object)))
        line = "ifconfig %d " + ", ".join(["%s < %d, %s > %d"] * k) + ";\n"
        for start in range(0, self.n_subscriptions, rows):
            att = self.attribute[start:start + rows]
            order = np.argsort(rank[att], axis=1)
            att = np.take_along_axis(att, order, axis=1)
            high = np.take_along_axis(self.high[start:start + rows], order, axis=1).astype(np.int64) + 1
            low = np.take_along_axis(self.low[start:start + rows], order, axis=1).astype(np.int64) - 1
            names = np.array(self.names, dtype=object)[att]
            fields = np.empty((att.shape[0], 1 + 4 * k), dtype=object)
            fields[:, 0] = np.arange(start, start + att.shape[0])
            fields[:, 1::4], fields[:, 2::4], fields[:, 3::4], fields[:, 4::4] = names, high, names, low
            yield "".join(line % tuple(r) for r in fields.tolist())

    def write_engine_input(self, target: str | os.PathLike) -> None:
        """Write the workload for a driver of the C++ engines: little-endian
        int32s, a header ``magic (ENGINE_INPUT_MAGIC), subscriptions,
        attributes, per_subscription, value_range, events``, then per
        subscription per predicate ``attribute, low, high``, then per event
        the value of every attribute in order."""
        header = np.array([ENGINE_INPUT_MAGIC, self.n_subscriptions, self.n_attributes, self.per_subscription,
                           self.params["value_range"], self.n_events], dtype="<i4")
        triples = np.stack([self.attribute, self.low, self.high], axis=2).astype("<i4")
        with open(target, "wb") as fh:
            fh.write(header.tobytes())
            fh.write(triples.tobytes())
            fh.write(self.event_values.astype("<i4").tobytes())


def intervals(subscriptions: int = 1_000_000, attributes: int = 20, per_subscription: int = 10,
              value_range: int = 1_000_000, *, width: float = 0.5, distribution: str = "uniform",
              alpha: float = 1.0, events: int = 1000, seed: int = 0) -> IntervalWorkload:
    """Draw the interval workload of the REIN/TAMA/OpIndex/H-Tree benchmark
    framework (see the module docstring for the law and every parameter).

    ``width`` is the fraction of ``value_range`` every interval spans (0 < width <= 1);
    ``distribution`` is how a subscription's attributes are drawn, ``"uniform"``
    or ``"zipf"`` (exponent ``alpha``, attribute ``a0`` the most popular).
    """
    n = _count(subscriptions, "subscriptions", 0)
    n_att = _count(attributes, "attributes", 1)
    k = _count(per_subscription, "per_subscription", 1)
    n_events = _count(events, "events", 0)
    domain = _count(value_range, "value_range", 1)
    if k > n_att:
        raise ValueError(f"per_subscription ({k}) cannot exceed attributes ({n_att}): the attributes are distinct")
    if domain > _INT32_MAX:
        raise ValueError(f"value_range must be at most {_INT32_MAX} (the C++ engines' int), not {domain}")
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not 0.0 < float(width) <= 1.0:
        raise ValueError(f"width must be a fraction of value_range in (0, 1], not {width!r}")
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {', '.join(map(repr, DISTRIBUTIONS))}, not {distribution!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not float(alpha) > 0.0:
        raise ValueError(f"alpha must be a number > 0, not {alpha!r}")
    width, alpha = float(width), float(alpha)
    # the framework's int(valDom * (1 - width)) and int(valDom * width), in doubles as in C++
    low_span, extent = int(domain * (1.0 - width)), int(domain * width)
    weights = zipf_weights(n_att, alpha) if distribution == "zipf" else np.ones(n_att)

    rng = _rng(seed, 1)
    attribute = _draw_distinct(rng, _cdf(weights), np.full(n, k, dtype=np.int64)).reshape(n, k).astype(np.int32)
    low = (rng.integers(0, low_span, size=(n, k)) if low_span else np.zeros((n, k))).astype(np.int32)
    high = low + np.int32(extent)
    event_values = _rng(seed, 2).integers(0, domain, size=(n_events, n_att)).astype(np.int32)

    params = dict(subscriptions=n, attributes=n_att, per_subscription=k, value_range=domain, width=width,
                  distribution=distribution, alpha=alpha, events=n_events, seed=int(seed))
    return IntervalWorkload(params=params, names=[f"a{i}" for i in range(n_att)], attribute=attribute, low=low,
                            high=high, event_values=event_values)
