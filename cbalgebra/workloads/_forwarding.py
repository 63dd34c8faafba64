"""The forwarding-table workload of Carzaniga & Wolf, Forwarding in a
Content-Based Network, SIGCOMM 2003, §5.1 (Table 1).

``forwarding(...)`` draws a forwarding table (I interfaces, each a disjunction
of filters, each a conjunction of constraints) and a set of messages, with
every parameter of Table 1 and the paper's values as defaults:

========================  ==================================  =====================
Table 1                   parameter here                      default (the paper's)
========================  ==================================  =====================
M                         ``messages``                        100
a_l, a_h                  ``attributes_per_message``          (1, 20): 1–19, mean 10
I                         ``interfaces``                      20 (ours)
f_l, f_h                  ``filters_per_interface``           (1, 101) (ours)
c_l, c_h                  ``constraints_per_filter``          (1, 10): 1–9, mean 5
D_a                       ``attribute_names``                 1,000 names, Zipf(1)
D_c                       ``constraint_names``                same as D_a
D_t                       ``type_weights``                    50 % string, 50 % int
D_os                      ``string_op_weights``               35 % =, 15 % prefix,
                                                              15 % suffix, 15 %
                                                              substring, 10 % <,
                                                              10 % >
D_oi                      ``int_op_weights``                  60 % =, 20 % <, 20 % >
D_s                       ``string_values``                   1,000 words, uniform
D_i                       ``int_values``                      100 values (0..99),
                                                              uniform
========================  ==================================  =====================

Ranges are half-open ``(lo, hi)`` as in Table 1 (uniform in [lo, hi)); an int
means exactly that many. The paper says its messages have "between 1 and 19
attributes" with mean 10, which is [1, 20).

Decisions the paper leaves open, made here:

- **Words.** The paper picks names and string values from "a common
  dictionary". No dictionary ships with the project, so the words are
  pronounceable pseudo-words built from syllables (2–12 letters). Like real
  words, some are prefixes, suffixes or substrings of others. Pass lists of
  your own words to ``attribute_names`` / ``string_values`` to use others.
- **Names are distinct within a filter and within a message** (a message has
  each name once by definition; a filter gets the same rule). They are drawn
  by successive weighted sampling without replacement from D_c (D_a), i.e.
  the law of ``numpy``'s ``choice(replace=False, p=...)``.
- **Types are drawn per constraint and per attribute** from D_t, independently
  of the name: "distribution function for data types in both filters and
  messages". An attribute therefore sometimes has a name a constraint
  mentions but another type, and does not match it.
- Types other than string and int may be given weights: floats take the
  values of D_i plus 0.5, bools true/false uniformly, with ``float_op_weights``
  (default: those of ints) and ``bool_op_weights`` (default: = only).

Reproducibility: ``numpy.random.Generator(PCG64)`` streams derived from
``SeedSequence([seed, k])`` for the words (k = 0), the table (1) and the
messages (2), used only through ``random()`` and ``integers()``. Categorical
draws invert a cumulative table with ``searchsorted``. No Python ``hash()`` is
involved, so the same seed gives the same workload on any machine, and the
table does not depend on how many messages are drawn.
"""

from __future__ import annotations

import io
import itertools
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from cbalgebra.matcher import TableColumns, decode_value
from cbalgebra.values import (
    BOOL,
    INT,
    INT_MAX,
    INT_MIN,
    KEYWORDS,
    NAME_PATTERN,
    OPERATOR_SPECS,
    OPERATORS,
    OPERATORS_OF_TYPE,
    TYPE_SPEC_OF,
    Attribute,
    Constraint,
    Filter,
    Message,
    Predicate,
    Type,
)
from cbalgebra.values import OP_CODE as _OP_CODE
from cbalgebra.values import TYPE_CODE as _TYPE_CODE
from cbalgebra.values import TYPES as TYPES

if TYPE_CHECKING:  # numba loads only when a table is compiled
    from cbalgebra.matcher import ForwardingTable

__all__ = [
    "ForwardingWorkload",
    "forwarding",
    "pseudo_words",
    "sff_constraint",
    "sff_float",
    "sff_message",
    "sff_string",
    "write_sff_document",
    "zipf_weights",
]

# The workload's arrays hold the type and operator codes of values.Type and
# values.Op: TYPES[code] and OPS[code] are their spellings.
OPS = OPERATORS
#: Other spellings a weights mapping may use for an operator (``prefix``, ``=*``).
_OP_ALIASES = {s: o.symbol for o in OPERATOR_SPECS for s in (o.sff, *o.words) if s != o.symbol}

DEFAULT_STRING_OPS = {"=": 0.35, "prefix": 0.15, "suffix": 0.15, "substring": 0.15, "<": 0.10, ">": 0.10}
DEFAULT_INT_OPS = {"=": 0.60, "<": 0.20, ">": 0.20}
DEFAULT_BOOL_OPS = {"=": 1.0}
DEFAULT_TYPES = {"string": 0.5, "int": 0.5}

_ONSETS = ("b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
           "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "")
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ea", "ou", "ai", "y")
_CODAS = ("", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "ck")


# ------------------------------------------------------------------- helpers
def _rng(seed: int, stream: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), stream])))


def zipf_weights(n: int, exponent: float = 1.0) -> np.ndarray:
    """Weights ∝ 1 / rank**exponent for ranks 1..n (rank 1 most popular)."""
    return 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent


def _cdf(weights: np.ndarray) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size == 0 or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError("weights must be a non-empty vector of finite non-negative numbers with a positive sum")
    c = np.cumsum(w)
    c /= c[-1]
    c[-1] = 1.0
    return c


def _draw(rng: np.random.Generator, cdf: np.ndarray, n: int) -> np.ndarray:
    """n independent categorical draws by inverting the cumulative table."""
    return np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), cdf.shape[0] - 1)


def _draw_distinct(rng: np.random.Generator, cdf: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Rows of ``sizes[r]`` distinct categories each, drawn slot by slot; a
    draw that repeats a category already in its row is drawn again (that is
    sampling from the renormalized remainder). Returns (rows, max) with -1 pad."""
    rows = sizes.shape[0]
    width = int(sizes.max()) if rows else 0
    if width > int((np.diff(np.concatenate([[0.0], cdf])) > 0).sum()):
        raise ValueError(f"cannot draw {width} distinct names from {cdf.shape[0]} (some with weight 0)")
    out = np.full((rows, width), -1, dtype=np.int64)
    for j in range(width):
        todo = np.flatnonzero(sizes > j)
        while todo.size:
            vals = _draw(rng, cdf, todo.size)
            clash = (out[todo, :j] == vals[:, None]).any(axis=1) if j else np.zeros(todo.size, bool)
            ok = ~clash
            out[todo[ok], j] = vals[ok]
            todo = todo[clash]
    return out


def pseudo_words(n: int, seed: int = 0, stream: int = 0) -> list[str]:
    """``n`` distinct pronounceable pseudo-words (lower-case ASCII, 2–12 letters)."""
    rng = _rng(seed, 1000 + stream)
    words: dict[str, None] = {}
    syll_cdf = _cdf(np.array([0.15, 0.40, 0.30, 0.15]))
    while len(words) < n:
        k = n - len(words)
        nsyl = _draw(rng, syll_cdf, k) + 1
        pick = rng.integers(0, 1 << 30, size=(k, 4, 3))
        for r in range(k):
            parts = []
            for s in range(nsyl[r]):
                o, v, c = pick[r, s]
                parts.append(_ONSETS[o % len(_ONSETS)] + _VOWELS[v % len(_VOWELS)]
                             + (_CODAS[c % len(_CODAS)] if s == nsyl[r] - 1 or c % 3 == 0 else ""))
            w = "".join(parts)
            if 2 <= len(w) <= 12:
                words.setdefault(w, None)
            if len(words) == n:
                break
    return list(words)


def _range(value: Any, what: str, minimum: int) -> tuple[int, int]:
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int or a (lo, hi) range")
    if isinstance(value, (int, np.integer)):
        lo, hi = int(value), int(value) + 1
    else:
        try:
            lo, hi = (int(x) for x in value)
        except (TypeError, ValueError):
            raise TypeError(f"{what} must be an int or a (lo, hi) range, not {value!r}") from None
    if lo < minimum or hi <= lo:
        raise ValueError(f"{what}: need {minimum} <= lo < hi for the range [lo, hi), got {value!r}")
    return lo, hi


def _op_weights(weights: Mapping[str, float], allowed: Sequence[str], what: str) -> np.ndarray:
    w = np.zeros(len(OPS))
    for op, p in weights.items():
        canon = _OP_ALIASES.get(op, op)
        if canon not in allowed:
            raise ValueError(f"{what}: operator {op!r} is not one of {', '.join(allowed)}")
        w[_OP_CODE[canon]] += float(p)
    return w


def _names_and_weights(spec: Any, exponent: float, seed: int, stream: int) -> tuple[list[str], np.ndarray]:
    """A distribution of names: a count (pseudo-words, Zipf), a sequence of
    names (Zipf in that order) or a mapping name -> weight."""
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if spec < 1:
            raise ValueError("need at least one attribute name")
        return pseudo_words(int(spec), seed, stream), zipf_weights(int(spec), exponent)
    if isinstance(spec, Mapping):
        return [str(k) for k in spec], np.array([float(v) for v in spec.values()])
    names = [str(s) for s in spec]
    if not names:
        raise ValueError("need at least one attribute name")
    return names, zipf_weights(len(names), exponent)


# ------------------------------------------------------------------ workload
@dataclass
class ForwardingWorkload(TableColumns):
    """A generated forwarding table and messages, held as columns.

    Table: the columns of ``ForwardingTable.from_arrays``
    (:class:`cbalgebra.matcher.TableColumns`: ``filter_interface[f]``; one
    row per constraint in ``c_filter``, ``c_name`` (into ``names``),
    ``c_type`` / ``c_op`` (codes of ``TYPES`` / ``OPS``) and ``c_value``
    (int64: int value; 0/1 for bools; IEEE bits for floats; index into
    ``strings`` for strings)). Messages: ``m_off`` (CSR) over ``a_name``,
    ``a_type``, ``a_value`` (same encoding).
    """

    params: dict
    m_off: np.ndarray
    a_name: np.ndarray
    a_type: np.ndarray
    a_value: np.ndarray
    _messages: list | None = field(default=None, repr=False)

    # ----------------------------------------------------------- sizes
    @property
    def n_interfaces(self) -> int:
        return int(self.interfaces.shape[0])

    @property
    def n_filters(self) -> int:
        return int(self.filter_interface.shape[0])

    @property
    def n_constraints(self) -> int:
        return int(self.c_filter.shape[0])

    @property
    def n_messages(self) -> int:
        return int(self.m_off.shape[0] - 1)

    def __repr__(self) -> str:
        return (f"ForwardingWorkload(I={self.n_interfaces}, F={self.n_filters}, C={self.n_constraints}, "
                f"M={self.n_messages}, seed={self.params.get('seed')})")

    @property
    def messages(self) -> list[Message]:
        """The messages as Message values (built once)."""
        if self._messages is None:
            out = []
            for m in range(self.n_messages):
                attrs = {}
                for k in range(int(self.m_off[m]), int(self.m_off[m + 1])):
                    t = int(self.a_type[k])
                    value = decode_value(t, int(self.a_value[k]), self.strings)
                    attrs[self.names[int(self.a_name[k])]] = Attribute(TYPES[t], value)
                out.append(Message(attrs))
            self._messages = out
        return self._messages

    def table_arrays(self) -> dict[str, Any]:
        """Keyword arguments for ``ForwardingTable.from_arrays`` (``arrays()``)."""
        return self.arrays()

    def table(self, preprocessing_rounds: int = 10, *, numbers: str = "strict") -> ForwardingTable:
        """The compiled ``ForwardingTable`` (through ``from_arrays``)."""
        from cbalgebra.matcher import ForwardingTable  # loads numba: only when a table is compiled

        return ForwardingTable.from_arrays(**self.table_arrays(), preprocessing_rounds=preprocessing_rounds,
                                           numbers=numbers)

    # -------------------------------------------------------------- SFF
    def _sff_filter(self, ks: np.ndarray) -> list[str]:
        """The SFF spellings of one filter (a ``>=`` on a string makes two)."""
        alternatives = []
        for k in ks:
            k = int(k)
            t = int(self.c_type[k])
            op = OPS[int(self.c_op[k])]
            value = None if op == "any" else decode_value(t, int(self.c_value[k]), self.strings)
            alternatives.append(_sff_alternatives(TYPES[t], self.names[int(self.c_name[k])], op, value))
        return _sff_conjunctions(alternatives)

    def write_sff(self, target: str | os.PathLike | TextIO, *, table: bool = True, messages: bool = True,
                  preprocessing_limit: int | None = None) -> None:
        """Write an SFF 2.x driver file: ``ifconfig`` statements for the table
        and ``select`` statements for the messages (either may be left out).

        The file is written so that SFF's own parser accepts it and reads the
        same table and messages (see :func:`write_sff_document`).
        """
        if isinstance(target, (str, os.PathLike)):
            with open(target, "w", encoding="utf-8", newline="\n") as opened:
                self.write_sff(opened, table=table, messages=messages, preprocessing_limit=preprocessing_limit)
            return
        fh = target
        fh.write(f"// cbalgebra.workloads.forwarding {self.params}\n")
        if not table:
            _write_sff_limit(fh, preprocessing_limit)
        else:
            order = np.argsort(self.c_filter, kind="stable")
            bounds = np.searchsorted(self.c_filter[order], np.arange(self.n_filters + 1))
            f_order = np.argsort(self.filter_interface, kind="stable")
            f_bounds = np.append(np.searchsorted(self.filter_interface[f_order], self.interfaces), self.n_filters)
            for j, iface in enumerate(self.interfaces):
                filters = []
                for f in f_order[f_bounds[j]:f_bounds[j + 1]]:
                    ks = order[bounds[f]:bounds[f + 1]]
                    if ks.size == 0:
                        raise ValueError("an empty filter cannot be written in the SFF format")
                    filters.extend(self._sff_filter(ks))
                if filters:
                    fh.write(f"ifconfig {int(iface)} " + "\n  | ".join(filters) + ";\n")
            _write_sff_limit(fh, preprocessing_limit)
        if messages:
            for m in range(self.n_messages):
                attrs = []
                for k in range(int(self.m_off[m]), int(self.m_off[m + 1])):
                    t = int(self.a_type[k])
                    attrs.append(f"{sff_name(self.names[int(self.a_name[k])])} = "
                                 f"{_sff_value(TYPES[t], decode_value(t, int(self.a_value[k]), self.strings))}")
                if not attrs:
                    raise ValueError(f"message {m} has no attributes: SFF's select statement needs at least one")
                fh.write("select " + " ".join(attrs) + ";\n")

    def sff(self, **kw: Any) -> str:
        buf = io.StringIO()
        self.write_sff(buf, **kw)
        return buf.getvalue()


# ---------------------------------------------------------- the SFF language
# What Siena Fast Forwarding 2.x's driver reads (its flex scanner and bison
# grammar, sff_scanner.ll / sff_parser.yy), and how our values are spelled in
# it so that both its parser and ours read the same thing:
#
# - types in `name any TYPE` are `string`, `integer`, `double`, `boolean`;
# - a double literal needs a '.' (`1e-05` scans as the int 1 and the name
#   `e-05`): we write Python's shortest round-trip repr, with `.0` put into
#   the mantissa when it has no point (`1.0e-05`), which strtod reads back to
#   the same double;
# - the operators are = != < > =* *= ** and any; there is no <= or >=, so
#   `x <= v` is written `x < succ(v)` (ints: v + 1; floats: the next double;
#   strings: v + U+0000, the next string in code-point order), `x >= v` as
#   `x > pred(v)` for numbers, and for strings as two filters `x = v | x > v`;
#   at the end of the range (`x <= INT_MAX`) the constraint is `x any TYPE`;
# - names: letters, digits, `_ / . -` after a letter or `_`; others (and the
#   keyword `any`, which SFF's grammar does not take as a name) are quoted;
# - strings escape only `"` `\` and newline, tab, carriage return and U+0000
#   (`\0`), which both scanners decode alike; other characters are written as
#   they are (UTF-8): SFF's `\u` does not exist, and its octal and hex escapes
#   are not ours;
# - `select` needs at least one attribute, `ifconfig` at least one constraint;
# - `set preprocessing_limit = N;` acts only once SFF has a forwarding table
#   (its handler sets the rounds of the current table and otherwise prints
#   "Not using the FwdTable algorithm."), and the table is created by the
#   first `ifconfig`: so the limit is written after the ifconfig statements.

#: Our type spelling -> the word SFF's driver format uses.
SFF_TYPE_NAMES = {spelling: spec.sff for spelling, spec in TYPE_SPEC_OF.items()}
_SFF_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_/.\-]*\Z")
_SFF_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
#: How many SFF filters one of our filters may turn into (each string `>=`
#: doubles it) before the writer gives up.
SFF_MAX_EXPANSION = 1024
_FLOAT_MAX = float.fromhex("0x1.fffffffffffffp+1023")


def sff_string(s: str) -> str:
    """A string literal that SFF's scanner and ours decode to ``s`` (SFF sees
    its UTF-8 bytes)."""
    out = ['"']
    for i, ch in enumerate(s):
        esc = _SFF_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch == "\0":
            # SFF reads \0 followed by octal digits, or by x and hex digits,
            # as one longer escape; raw NUL it would drop
            if s[i + 1:i + 2] and s[i + 1] in "01234567xX":
                raise ValueError(f"the string {s!r} cannot be written for SFF: U+0000 before {s[i + 1]!r} "
                                 "has no spelling that SFF and cbalgebra both read")
            out.append("\\0")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def sff_name(name: str) -> str:
    if _SFF_IDENT.match(name) and NAME_PATTERN.match(name) and name not in KEYWORDS:
        return name
    return sff_string(name)


def sff_float(x: float) -> str:
    """A double literal SFF accepts (it has a '.') and reads back exactly."""
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"SFF has no literal for {x!r}")
    text = repr(x)
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}.0e{exponent}" if exponent else f"{mantissa}.0"
    return text


def _sff_value(type_: str, value: Any) -> str:
    if type_ == "string":
        return sff_string(value)
    if type_ == "float":
        return sff_float(value)
    if type_ == "bool":
        return "true" if value else "false"
    return str(int(value))


def _sff_alternatives(type_: str, name: str, op: str, value: Any) -> list[str]:
    """One constraint in SFF syntax: usually one spelling; ``>=`` on a string
    is the disjunction of two (``=`` and ``>``)."""
    n = sff_name(name)
    if op == "any":
        return [f"{n} any {SFF_TYPE_NAMES[type_]}"]
    if op in ("<=", ">="):
        up = op == "<="
        if type_ == "int":
            if value == (INT_MAX if up else INT_MIN):
                return [f"{n} any integer"]
            return [f"{n} {'<' if up else '>'} {value + 1 if up else value - 1}"]
        if type_ == "float":
            if value == (_FLOAT_MAX if up else -_FLOAT_MAX):
                return [f"{n} any double"]
            # + 0.0: the neighbour of -5e-324 is -0.0, which we spell 0.0
            neighbour = math.nextafter(value, math.inf if up else -math.inf) + 0.0
            return [f"{n} {'<' if up else '>'} {sff_float(neighbour)}"]
        if type_ == "string":
            if up:
                return [f"{n} < {sff_string(value + chr(0))}"]
            return [f"{n} = {sff_string(value)}", f"{n} > {sff_string(value)}"]
        raise ValueError(f"operator {op!r} does not apply to type {type_!r}")
    return [f"{n} {OPERATOR_SPECS[_OP_CODE[op]].sff} {_sff_value(type_, value)}"]



def _sff_conjunctions(alternatives: list[list[str]]) -> list[str]:
    """The filters (comma-joined) of the product of per-constraint alternatives."""
    size = 1
    for alt in alternatives:
        size *= len(alt)
    if size > SFF_MAX_EXPANSION:
        raise ValueError(f"a filter would become {size} SFF filters (each string >= constraint doubles them); "
                         f"the limit is {SFF_MAX_EXPANSION}")
    return [", ".join(combo) for combo in itertools.product(*alternatives)]


def sff_constraint(c: Constraint) -> list[str]:
    """``c`` in SFF syntax: a list of alternatives (one, except for ``>=`` on strings)."""
    return _sff_alternatives(c.type, c.name, c.op, c.value)


def sff_filters(f: Filter) -> list[str]:
    """A filter as SFF filters (more than one only for ``>=`` on strings)."""
    if not f.constraints:
        raise ValueError("an empty filter cannot be written in the SFF format")
    return _sff_conjunctions([sff_constraint(c) for c in f.constraints])


def sff_message(m: Message) -> str:
    """A ``select`` statement for ``m``."""
    if not len(m):
        raise ValueError("a message with no attributes cannot be written in the SFF format")
    return "select " + " ".join(f"{sff_name(name)} = {_sff_value(a.type, a.value)}" for name, a in m.attributes) + ";"


def _write_sff_limit(fh: TextIO, preprocessing_limit: int | None) -> None:
    if preprocessing_limit is not None:
        limit = int(preprocessing_limit)
        if limit < 0:
            raise ValueError("preprocessing_limit must be >= 0")
        fh.write(f"set preprocessing_limit = {limit};\n")


def write_sff_document(target: str | os.PathLike | TextIO, predicates: Mapping[int, Predicate | Filter] | None = None,
                       messages: Iterable[Message] = (), *, preprocessing_limit: int | None = None,
                       comment: str | None = None) -> None:
    """Write an SFF 2.x driver file: one ``ifconfig`` per interface with a
    non-empty predicate (in id order), then ``set preprocessing_limit`` (if
    given), then one ``select`` per message. Both SFF's parser and
    ``cbalgebra.parse_document`` read it as the same table and messages (an
    interface whose predicate is empty is left out: it matches nothing)."""
    if isinstance(target, (str, os.PathLike)):
        with open(target, "w", encoding="utf-8", newline="\n") as opened:
            write_sff_document(opened, predicates, messages, preprocessing_limit=preprocessing_limit, comment=comment)
        return
    fh = target
    if comment is not None:
        for line in comment.splitlines() or [""]:
            fh.write(f"// {line}\n")
    table = predicates or {}
    for iface in sorted(table):
        if isinstance(iface, bool) or not isinstance(iface, (int, np.integer)) or iface < 0:
            raise ValueError(f"interface ids must be ints >= 0, not {iface!r}")
        pred = table[iface]
        filters = [pred] if isinstance(pred, Filter) else list(pred.filters)
        spelled = [g for f in filters for g in sff_filters(f)]
        if spelled:
            fh.write(f"ifconfig {int(iface)} " + "\n  | ".join(spelled) + ";\n")
    _write_sff_limit(fh, preprocessing_limit)
    for m in messages:
        fh.write(sff_message(m) + "\n")


# ------------------------------------------------------------------ generator
def forwarding(
    interfaces: int = 20,
    filters_per_interface: int | tuple[int, int] = (1, 101),
    constraints_per_filter: int | tuple[int, int] = (1, 10),
    messages: int = 100,
    attributes_per_message: int | tuple[int, int] = (1, 20),
    attribute_names: int | Sequence[str] | Mapping[str, float] = 1000,
    constraint_names: int | Sequence[str] | Mapping[str, float] | None = None,
    zipf_exponent: float = 1.0,
    type_weights: Mapping[str, float] | None = None,
    string_op_weights: Mapping[str, float] | None = None,
    int_op_weights: Mapping[str, float] | None = None,
    float_op_weights: Mapping[str, float] | None = None,
    bool_op_weights: Mapping[str, float] | None = None,
    string_values: int | Sequence[str] = 1000,
    int_values: int | tuple[int, int] = 100,
    seed: int = 0,
) -> ForwardingWorkload:
    """Draw the §5.1 workload (see the module docstring for every parameter).

    ``interfaces`` = I; ``filters_per_interface`` = [f_l, f_h);
    ``constraints_per_filter`` = [c_l, c_h); ``messages`` = M;
    ``attributes_per_message`` = [a_l, a_h); ``attribute_names`` = D_a (a
    count of pseudo-words under Zipf(``zipf_exponent``), a list in popularity
    order, or a mapping name -> weight); ``constraint_names`` = D_c (None:
    D_a); ``type_weights`` = D_t; ``string_op_weights`` = D_os;
    ``int_op_weights`` = D_oi; ``string_values`` = D_s (count or word list,
    uniform); ``int_values`` = D_i (a count n for 0..n-1, or a range [lo, hi),
    uniform).
    """
    if isinstance(interfaces, bool) or not isinstance(interfaces, (int, np.integer)) or interfaces < 1:
        raise ValueError("interfaces must be an int >= 1")
    if isinstance(messages, bool) or not isinstance(messages, (int, np.integer)) or messages < 0:
        raise ValueError("messages must be an int >= 0")
    f_lo, f_hi = _range(filters_per_interface, "filters_per_interface", 0)
    c_lo, c_hi = _range(constraints_per_filter, "constraints_per_filter", 1)
    a_lo, a_hi = _range(attributes_per_message, "attributes_per_message", 0)
    if isinstance(int_values, (int, np.integer)) and not isinstance(int_values, bool):
        if int_values < 1:
            raise ValueError("int_values must be >= 1")
        i_lo, i_hi = 0, int(int_values)
    else:
        i_lo, i_hi = _range(int_values, "int_values", -(2**62))
    tw = dict(DEFAULT_TYPES if type_weights is None else type_weights)
    for t in tw:
        if t not in TYPES:
            raise ValueError(f"type_weights: unknown type {t!r}")
    t_w = np.array([float(tw.get(t, 0.0)) for t in TYPES])
    sop = _op_weights(DEFAULT_STRING_OPS if string_op_weights is None else string_op_weights, OPS, "string_op_weights")
    numeric_ops = tuple(op for op in OPS if op in OPERATORS_OF_TYPE[INT])
    iop = _op_weights(DEFAULT_INT_OPS if int_op_weights is None else int_op_weights, numeric_ops, "int_op_weights")
    fop = iop if float_op_weights is None else _op_weights(float_op_weights, numeric_ops, "float_op_weights")
    bop = _op_weights(DEFAULT_BOOL_OPS if bool_op_weights is None else bool_op_weights,
                      tuple(op for op in OPS if op in OPERATORS_OF_TYPE[BOOL]),
                      "bool_op_weights")
    op_cdfs = []
    for t, w in zip(TYPES, (sop, iop, fop, bop), strict=True):
        op_cdfs.append(_cdf(w) if t_w[_TYPE_CODE[t]] > 0 else None)

    # -- the vocabulary (stream 0)
    a_names, a_weights = _names_and_weights(attribute_names, zipf_exponent, seed, 0)
    if constraint_names is None:
        c_names, c_weights = a_names, a_weights
    else:
        c_names, c_weights = _names_and_weights(constraint_names, zipf_exponent, seed, 1)
    names = list(dict.fromkeys(a_names + c_names))
    name_pos = {s: i for i, s in enumerate(names)}
    a_ids = np.array([name_pos[s] for s in a_names], dtype=np.int64)
    c_ids = np.array([name_pos[s] for s in c_names], dtype=np.int64)
    if isinstance(string_values, (int, np.integer)) and not isinstance(string_values, bool):
        if string_values < 1:
            raise ValueError("string_values must be >= 1")
        strings = pseudo_words(int(string_values), seed, 2)
    elif isinstance(string_values, bool):
        raise TypeError("string_values must be a count or a list of words, not a bool")
    else:
        strings = list(dict.fromkeys(str(s) for s in string_values))
        if not strings:
            raise ValueError("string_values is empty")

    params = dict(interfaces=int(interfaces), filters_per_interface=(f_lo, f_hi),
                  constraints_per_filter=(c_lo, c_hi), messages=int(messages),
                  attributes_per_message=(a_lo, a_hi), seed=int(seed))

    # -- the table (stream 1)
    rng = _rng(seed, 1)
    n_if = int(interfaces)
    nf_per = rng.integers(f_lo, f_hi, size=n_if)
    filter_interface = np.repeat(np.arange(n_if, dtype=np.int64), nf_per)
    nf = int(filter_interface.shape[0])
    sizes = rng.integers(c_lo, c_hi, size=nf)
    slots = _draw_distinct(rng, _cdf(c_weights), sizes)
    valid = slots >= 0
    c_filter = np.repeat(np.arange(nf, dtype=np.int64), sizes)
    c_name = c_ids[slots[valid]]
    c_type, c_op, c_value = _typed_values(rng, c_name.shape[0], t_w, op_cdfs, len(strings), i_lo, i_hi, True)

    # -- the messages (stream 2)
    rng_m = _rng(seed, 2)
    m_sizes = rng_m.integers(a_lo, a_hi, size=int(messages))
    mslots = _draw_distinct(rng_m, _cdf(a_weights), m_sizes)
    a_name = a_ids[mslots[mslots >= 0]]
    m_off = np.zeros(int(messages) + 1, dtype=np.int64)
    np.cumsum(m_sizes, out=m_off[1:])
    a_type, _, a_value = _typed_values(rng_m, a_name.shape[0], t_w, op_cdfs, len(strings), i_lo, i_hi, False)

    return ForwardingWorkload(
        params=params, names=names, strings=strings, interfaces=np.arange(n_if, dtype=np.int64),
        filter_interface=filter_interface, c_filter=c_filter, c_name=c_name.astype(np.int64),
        c_type=c_type, c_op=c_op, c_value=c_value, m_off=m_off, a_name=a_name.astype(np.int64),
        a_type=a_type, a_value=a_value,
    )


def _typed_values(rng: np.random.Generator, n: int, t_w: np.ndarray, op_cdfs: list, n_strings: int,
                  i_lo: int, i_hi: int, with_ops: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Types, operators (for constraints) and values, all vectorized."""
    types = _draw(rng, _cdf(t_w), n).astype(np.int8)
    ops = np.zeros(n, dtype=np.int8)
    values = np.zeros(n, dtype=np.int64)
    u_op = rng.random(n) if with_ops else None
    u_val = rng.random(n)
    for t in range(len(TYPES)):
        m = np.flatnonzero(types == t)
        if not m.size:
            continue
        if with_ops:
            assert u_op is not None  # drawn above whenever with_ops
            ops[m] = np.minimum(np.searchsorted(op_cdfs[t], u_op[m], side="right"), len(OPS) - 1)
        if t == Type.STRING:
            values[m] = np.minimum((u_val[m] * n_strings).astype(np.int64), n_strings - 1)
        elif t in (Type.INT, Type.FLOAT):
            span = i_hi - i_lo
            iv = i_lo + np.minimum((u_val[m] * span).astype(np.int64), span - 1)
            values[m] = iv if t == Type.INT else (iv.astype(np.float64) + 0.5).view(np.int64)
        else:
            values[m] = (u_val[m] < 0.5).astype(np.int64)
    if with_ops:
        values[ops == _OP_CODE["any"]] = 0
    return types, ops, values
