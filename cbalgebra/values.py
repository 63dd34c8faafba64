"""Immutable values of the Siena model: constraints, filters, predicates,
advertisements and messages.

Every value is canonical on construction: a filter is a set of constraints
kept in one fixed order, a predicate a set of filters, and so on. Equal
values therefore compare and hash equal whatever order they were written in,
and ``str(x)`` prints the one canonical spelling that the parser reads back.
"""

from __future__ import annotations

import math
import re
import struct
import types
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
import operator
from types import MappingProxyType
from typing import Any, ClassVar, Self, TypeVar

from cbalgebra.errors import CbalgebraError

Value = str | int | float | bool

STRING, INT, FLOAT, BOOL, ANYTYPE = "string", "int", "float", "bool", "any"
EQ, NE, LT, GT, LE, GE = "=", "!=", "<", ">", "<=", ">="
PREFIX, SUFFIX, SUBSTRING, ANY = ">*", "*<", "*", "any"


# --------------------------------------------------------------- vocabulary
#
# Types and operators are defined here once. ``Constraint.type`` and
# ``Constraint.op`` hold the canonical spellings (the strings above: what
# ``str()`` prints, what JSON carries, what the parser returns); ``Type`` and
# ``Op`` are their integer codes, the ones the forwarding kernels
# (matcher/_kernels.py) and the canonical constraint order use. Every other
# table of types or operators in the project is derived from TYPE_SPECS and
# OPERATOR_SPECS below, so adding an operator means one row there plus the
# places whose behaviour really differs (a covering domain, a kernel).


class _Vocabulary(IntEnum):
    """What Type and Op share: the canonical spelling (``str()``), and
    :meth:`of` reading any spelling of a member (the tables after the specs)."""

    @property
    def spelling(self) -> str:
        return _CANONICAL_SPELLING[self.__class__][self]

    def __str__(self) -> str:
        return self.spelling

    @classmethod
    def of(cls, spelling: str) -> Self:
        """The member a spelling names: the canonical one, a synonym (``long``), a word or an SFF form."""
        try:
            return _MEMBER_OF_SPELLING[cls][spelling]
        except KeyError:
            raise InvalidValueError(f"unknown {_VOCABULARY_NOUN[cls]} {spelling!r}") from None


class Type(_Vocabulary):
    """The type codes; ``str(Type.INT)`` is the spelling ``int``."""

    STRING = 0
    INT = 1
    FLOAT = 2
    BOOL = 3
    #: Only in constraints ``any name any`` (present with whatever type),
    #: from the SFF driver format.
    ANY = 4


class Op(_Vocabulary):
    """The operator codes; ``str(Op.PREFIX)`` is the symbol ``>*``."""

    EQ = 0
    NE = 1
    LT = 2
    GT = 3
    LE = 4
    GE = 5
    PREFIX = 6
    SUFFIX = 7
    SUBSTRING = 8
    ANY = 9

    #: An operator's spelling is called its symbol.
    symbol = _Vocabulary.spelling


@dataclass(frozen=True)
class TypeSpec:
    """One type: its canonical spelling, every word the grammar reads for it
    (the canonical one first) and the word SFF's driver format writes."""

    code: Type
    spelling: str
    words: tuple[str, ...]
    sff: str

    @property
    def tokens(self) -> tuple[str, ...]:
        """The grammar's terminal names for the words (``T_INTEGER``)."""
        return tuple("T_" + w.upper() for w in self.words)


@dataclass(frozen=True)
class OperatorSpec:
    """One operator: spellings and semantics.

    ``holds(value, operand)`` is the operator's meaning on a value of the
    constraint's type (docs/design.md, §3 "Fixed semantics"); for the order operators it is
    Python's comparison operator, so it also builds z3 terms. ``complement``
    is the operator that holds exactly when this one fails on a present value
    of the same type, if there is one.
    """

    code: Op
    symbol: str
    name: str
    words: tuple[str, ...]
    sff: str
    types: frozenset[Type]
    holds: Callable[[Any, Any], Any]
    complement: Op | None = None

    @property
    def is_order(self) -> bool:
        """Whether numbers take it: ``= != < > <= >=`` (and ``any``)."""
        return Type.INT in self.types

    @property
    def tokens(self) -> tuple[str, ...]:
        """The grammar's terminal names: ``PREFIX``, ``SFF_PREFIX``, ``PREFIX_WORD``."""
        sff = ("SFF_" + self.code.name,) if self.sff != self.symbol else ()
        return (self.code.name, *sff, *(w.upper() + "_WORD" for w in self.words))


TYPE_SPECS: tuple[TypeSpec, ...] = (
    TypeSpec(Type.STRING, STRING, ("string",), "string"),
    TypeSpec(Type.INT, INT, ("int", "integer", "long"), "integer"),
    TypeSpec(Type.FLOAT, FLOAT, ("float", "double"), "double"),
    TypeSpec(Type.BOOL, BOOL, ("bool", "boolean"), "boolean"),
    TypeSpec(Type.ANY, ANYTYPE, (), "any"),
)

_ALL = frozenset(Type)
_ORDERED = frozenset((Type.STRING, Type.INT, Type.FLOAT))
_EQUALITY = frozenset((Type.STRING, Type.INT, Type.FLOAT, Type.BOOL))
_STRINGS = frozenset((Type.STRING,))

def _always(value: Any, operand: Any) -> bool:
    return True


# ``holds`` are the C functions of the operator module and str where there is
# one: a call costs less than a lambda's, and matching calls it per constraint.
OPERATOR_SPECS: tuple[OperatorSpec, ...] = (
    OperatorSpec(Op.EQ, EQ, "equals", (), EQ, _EQUALITY, operator.eq, Op.NE),
    OperatorSpec(Op.NE, NE, "not-equals", (), NE, _EQUALITY, operator.ne, Op.EQ),
    OperatorSpec(Op.LT, LT, "less-than", (), LT, _ORDERED, operator.lt, Op.GE),
    OperatorSpec(Op.GT, GT, "greater-than", (), GT, _ORDERED, operator.gt, Op.LE),
    OperatorSpec(Op.LE, LE, "less-or-equal", (), LE, _ORDERED, operator.le, Op.GT),
    OperatorSpec(Op.GE, GE, "greater-or-equal", (), GE, _ORDERED, operator.ge, Op.LT),
    OperatorSpec(Op.PREFIX, PREFIX, "prefix", ("prefix",), "=*", _STRINGS, str.startswith),
    OperatorSpec(Op.SUFFIX, SUFFIX, "suffix", ("suffix",), "*=", _STRINGS, str.endswith),
    OperatorSpec(Op.SUBSTRING, SUBSTRING, "substring", ("contains", "substring"), "**", _STRINGS,
                 operator.contains),
    OperatorSpec(Op.ANY, ANY, "any", (), ANY, _ALL, _always),
)

#: The four value types of attributes (``ANYTYPE`` is for constraints only).
TYPES: tuple[str, ...] = tuple(t.spelling for t in TYPE_SPECS if t.code != Type.ANY)
OPERATORS: tuple[str, ...] = tuple(o.symbol for o in OPERATOR_SPECS)
#: Operator symbol -> its name in messages (``less-than``).
OPERATOR_NAMES: dict[str, str] = {o.symbol: o.name for o in OPERATOR_SPECS}
#: Which operators each type takes (docs/design.md, §3 "Fixed semantics").
OPERATORS_OF_TYPE: dict[str, frozenset[str]] = {
    t.spelling: frozenset(o.symbol for o in OPERATOR_SPECS if t.code in o.types) for t in TYPE_SPECS
}
#: The operators that bound a range (of numbers or strings).
RANGE_OPERATORS: tuple[str, ...] = (LT, LE, GT, GE)
#: Canonical spelling -> code, as plain ints for the hot paths (a dict lookup
#: of a str, no enum construction).
TYPE_CODE: dict[str, int] = {t.spelling: int(t.code) for t in TYPE_SPECS}
OP_CODE: dict[str, int] = {o.symbol: int(o.code) for o in OPERATOR_SPECS}
#: Operator symbol -> its ``holds(value, operand)``.
HOLDS: dict[str, Callable[[Any, Any], Any]] = {o.symbol: o.holds for o in OPERATOR_SPECS}
#: Operator symbol -> its row of OPERATOR_SPECS.
OPERATOR_OF: dict[str, OperatorSpec] = {o.symbol: o for o in OPERATOR_SPECS}
#: Canonical type spelling -> its row of TYPE_SPECS.
TYPE_SPEC_OF: dict[str, TypeSpec] = {t.spelling: t for t in TYPE_SPECS}

_MEMBER_OF_SPELLING: dict[type[_Vocabulary], dict[str, Any]] = {
    Type: {w: t.code for t in TYPE_SPECS for w in (t.spelling, *t.words)},
    Op: {s: o.code for o in OPERATOR_SPECS for s in (o.symbol, o.sff, *o.words)},
}
_CANONICAL_SPELLING: dict[type[_Vocabulary], dict[Any, str]] = {
    Type: {t.code: t.spelling for t in TYPE_SPECS},
    Op: {o.code: o.symbol for o in OPERATOR_SPECS},
}
_VOCABULARY_NOUN: dict[type[_Vocabulary], str] = {Type: "type", Op: "operator"}
assert [t.code for t in TYPE_SPECS] == list(Type) and [o.code for o in OPERATOR_SPECS] == list(Op)

INT_MIN, INT_MAX = -(2**63), 2**63 - 1

NAME_PATTERN = re.compile(r"[A-Za-z_](?:[A-Za-z0-9_\-.]|/(?![/*]))*\Z")
#: Words the grammar reserves; a name spelled like one prints quoted.
KEYWORDS = frozenset(
    [w for t in TYPE_SPECS for w in t.words]
    + [w for o in OPERATOR_SPECS for w in o.words]
    + ["any", "and", "or", "true", "false", "subscribe", "advertise", "publish", "ifconfig", "select",
       "set", "consolidate", "timer", "statistics", "clear", "output", "none", "from"]
)


class InvalidValueError(CbalgebraError, ValueError):
    """Raised when a value cannot be built: the message names what is wrong."""


def _spelling(word: Any, codes: Mapping[str, int], enum: type[IntEnum], what: str) -> str:
    """The canonical spelling of a type or operator given as spelling or enum member."""
    if isinstance(word, enum):
        return str(word)
    if isinstance(word, str) and word in codes:
        return word
    raise InvalidValueError(f"unknown {what} {word!r}")


_PACK_D = struct.Struct("<d")
_PACK_Q = struct.Struct("<q")
_LOW63 = 0x7FFFFFFFFFFFFFFF


def float_order_key(x: float) -> int:
    """The order key of a finite double: an int64 that orders as the doubles
    do, consecutive for consecutive doubles, with -0.0 and 0.0 both 0.

    The one float encoding of the project: covering counts ordinals with it
    (domains, z3) and the forwarding table compares floats as these ints.
    """
    bits = _PACK_Q.unpack(_PACK_D.pack(x))[0]
    return bits if bits >= 0 else -(bits & _LOW63)


def float_of_order_key(key: int) -> float:
    """The double whose :func:`float_order_key` is ``key`` (0 gives 0.0)."""
    if key >= 0:
        return _PACK_D.unpack(_PACK_Q.pack(key))[0]
    return -_PACK_D.unpack(_PACK_Q.pack(-key))[0]


def check_value(type_: str, value: Any, what: str = "value") -> Value:
    """Validate ``value`` for ``type_`` and return its canonical form."""
    if type_ == STRING:
        if not isinstance(value, str):
            raise InvalidValueError(f"{what} {value!r} is not a string")
        if _has_surrogate(value):
            raise InvalidValueError(f"{what} {value!r} contains a surrogate code point")
        return value if value.__class__ is str else str.__str__(value)  # a subclass: the plain string
    if type_ == BOOL:
        if not isinstance(value, bool):
            raise InvalidValueError(f"{what} {value!r} is not a bool")
        return value
    if type_ == INT:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidValueError(f"{what} {value!r} is not an int")
        if not INT_MIN <= value <= INT_MAX:
            raise InvalidValueError(f"int {what} {value} out of 64-bit range")
        return int(value)
    if type_ == FLOAT:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidValueError(f"{what} {value!r} is not a float")
        f = float(value)
        if isinstance(value, int) and int(f) != value:
            raise InvalidValueError(f"int {value} is not exactly representable as a float")
        if not math.isfinite(f):
            raise InvalidValueError(f"float {what} must be finite, not {value!r}")
        # -0.0 and 0.0 are the same value for every operator: keep one spelling.
        return 0.0 if f == 0.0 else f
    raise InvalidValueError(f"unknown type {type_!r}")


def _has_surrogate(s: str) -> bool:
    if s.isascii():  # the common case, without encoding the string
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def quote(s: str) -> str:
    """Quote a string literal in the grammar's escape syntax."""
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch.isprintable():
            out.append(ch)
        else:
            cp = ord(ch)
            out.append(f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)


def format_name(name: str) -> str:
    if NAME_PATTERN.match(name) and name not in KEYWORDS:
        return name
    return quote(name)


def format_value(type_: str, value: Value) -> str:
    if isinstance(value, str):  # the values of string constraints, and only those, are str
        return quote(value)
    if type_ == BOOL:
        return "true" if value else "false"
    if type_ == FLOAT:
        return repr(float(value))
    return str(value)


def _value_key(type_: str, value: Value | None) -> Any:
    return () if value is None else value


@dataclass(frozen=True, slots=True, eq=False)
class Constraint:
    """One elementary condition ``type name op value`` (value None for ``any``)."""

    type: str
    name: str
    op: str
    value: Value | None = None
    _key: tuple = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.type not in TYPE_CODE:
            object.__setattr__(self, "type", _spelling(self.type, TYPE_CODE, Type, "type"))
        if not isinstance(self.name, str) or not self.name:
            raise InvalidValueError(f"attribute name must be a non-empty string, not {self.name!r}")
        if _has_surrogate(self.name):
            raise InvalidValueError(f"attribute name {self.name!r} contains a surrogate code point")
        if self.op not in OP_CODE:
            if not isinstance(self.op, Op):
                raise InvalidValueError(f"unknown operator {self.op!r} in constraint on {self.name!r}")
            object.__setattr__(self, "op", self.op.symbol)
        if self.op not in OPERATORS_OF_TYPE[self.type]:
            if self.type == ANYTYPE:
                raise InvalidValueError(f"type 'any' only takes the operator any (constraint on {self.name!r})")
            raise InvalidValueError(
                f"operator {OPERATOR_NAMES[self.op]} does not apply to {self.type} "
                f"(constraint on {self.name!r})"
            )
        if self.op == ANY:
            if self.value is not None:
                raise InvalidValueError(f"'any' takes no value (constraint on {self.name!r})")
            value = None
        else:
            try:
                value = check_value(self.type, self.value)
            except InvalidValueError:
                # again, for the message naming the attribute (built only
                # on error: formatting it for every constraint was a
                # measurable part of parsing a table)
                value = check_value(self.type, self.value, what=f"value of {self.name!r}")
        object.__setattr__(self, "value", value)
        key = (self.name, TYPE_CODE[self.type], OP_CODE[self.op], _value_key(self.type, value))
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    @property
    def sort_key(self) -> tuple:
        return self._key

    @property
    def type_code(self) -> Type:
        return _TYPE_MEMBERS[self._key[1]]

    @property
    def op_code(self) -> Op:
        return _OP_MEMBERS[self._key[2]]

    @property
    def operator(self) -> OperatorSpec:
        """The row of OPERATOR_SPECS for this constraint's operator."""
        return OPERATOR_SPECS[self._key[2]]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Constraint):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: Constraint) -> bool:
        return self._key < other._key

    def __str__(self) -> str:
        name = format_name(self.name)
        if self.value is None:  # the operator any, the only one without a value
            return f"{self.type} {name} any"
        return f"{self.type} {name} {self.op} {format_value(self.type, self.value)}"

    def __repr__(self) -> str:
        return f"Constraint({self.type!r}, {self.name!r}, {self.op!r}, {self.value!r})"

    def _repr_html_(self) -> str:
        from cbalgebra.notebook import value_html  # notebooks only: not loaded by `import cbalgebra`
        return value_html(self)

    def __reduce__(self):
        # Rebuild rather than restore: the cached hash depends on the process.
        return (Constraint, (self.type, self.name, self.op, self.value))


_TYPE_MEMBERS: tuple[Type, ...] = tuple(Type)
_OP_MEMBERS: tuple[Op, ...] = tuple(Op)


def group_by_name(constraints: tuple[Constraint, ...]) -> dict[str, tuple[Constraint, ...]]:
    """Constraints in canonical order grouped by attribute name: a new dict
    of name -> tuple, names and groups in canonical order.

    The one grouping of the project. ``Filter.by_name`` caches a read-only
    view of it; a caller that caches its own per-filter result (covering's
    FilterForm) calls this directly, as a second cache on every fresh filter
    costs more than the grouping.
    """
    # Canonical order sorts by name first, so each name is one run: slicing
    # the runs is about twice as fast as a dict of lists.
    groups: dict[str, tuple[Constraint, ...]] = {}
    if constraints:
        start, name = 0, constraints[0].name
        for i in range(1, len(constraints)):
            next_name = constraints[i].name
            if next_name != name:
                groups[name] = constraints[start:i]
                start, name = i, next_name
        groups[name] = constraints[start:]
    return groups


def _canonical_constraints(constraints: Iterable[Constraint], owner: _ConstraintSet) -> tuple[Constraint, ...]:
    items = []
    for c in constraints:
        if not isinstance(c, Constraint):
            raise InvalidValueError(f"{owner._WHAT} holds constraints, not {c!r}")
        items.append(c)
    if len(items) == 1:
        return (items[0],)
    return tuple(sorted(set(items), key=_constraint_sort_key))


def _constraint_sort_key(c: Constraint) -> tuple:
    return c._key


def _filter_sort_key(f: Filter) -> tuple:
    return tuple([c._key for c in f.constraints])


#: How the frozen values set their slots in __init__ (bound once: looking
#: ``object.__setattr__`` up costs about as much as the call).
_set_slot = object.__setattr__


class _CanonicalTuple:
    """What Filter, Predicate and Advertisement share: the value is a tuple of
    members in canonical order (the field ``_MEMBERS`` names: ``constraints``
    or ``filters``), hashed once with a tag (``_hash``), equal to a value of
    the same class with equal members.

    The methods read the members as ``self._items``: each class gets the slot
    descriptor of its members' field under that name too, so the read is a
    slot read (no property, no extra slot: the layout stays the one
    ``_fastparse`` writes directly). Each class also gets its own copy of
    the hot methods' code: CPython specializes attribute reads per code
    object (PEP 659), and one code shared by Filter and Predicate (predicate
    equality runs filter equality) kept missing its caches: 300 ns against
    210 ns to compare a predicate with an equal one.
    """

    __slots__ = ()
    _MEMBERS: ClassVar[str]
    _items: tuple
    _hash: int

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        members = cls.__dict__.get(getattr(cls, "_MEMBERS", ""))
        if isinstance(members, types.MemberDescriptorType):  # the slotted class dataclass makes
            setattr(cls, "_items", members)  # noqa: B010 - a slot descriptor under a second name, not a tuple
        for name in ("__init__", "__iter__", "__len__", "__eq__", "__hash__"):
            fn = getattr(cls, name)
            if isinstance(fn, types.FunctionType):
                setattr(cls, name, types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__,
                                                      fn.__defaults__, fn.__closure__))

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, self.__class__):
            return NotImplemented
        return self._hash == other._hash and self._items == other._items

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({list(self._items)!r})"

    def _repr_html_(self) -> str:
        from cbalgebra.notebook import value_html  # notebooks only: not loaded by `import cbalgebra`
        return value_html(self)

    def __reduce__(self) -> tuple[type, tuple[tuple, ...]]:
        # Rebuild rather than restore: the cached hash depends on the process.
        return (self.__class__, (self._items,))


# The value classes below declare their fields for dataclasses (slots,
# frozen) and take __init__, __repr__, __eq__ and __hash__ from the bases:
# hence init=False, repr=False, eq=False.
@dataclass(frozen=True, slots=True, eq=False, init=False, repr=False)
class _ConstraintSet(_CanonicalTuple):
    """What Filter and Advertisement share: a set of constraints, kept in
    canonical order, grouped by name on demand."""

    _MEMBERS = "constraints"
    #: What the value is called in errors, and the tag of its hash.
    _WHAT: ClassVar[str]
    _TAG: ClassVar[str]
    constraints: tuple[Constraint, ...] = ()
    _hash: int = field(init=False, repr=False, compare=False)
    # Derived data (per-attribute normal forms) computed lazily by other modules.
    _cache: dict = field(init=False, repr=False, compare=False)

    def __init__(self, constraints: Iterable[Constraint] = ()) -> None:
        cs = _canonical_constraints(constraints, self)
        _set_slot(self, "constraints", cs)
        _set_slot(self, "_hash", hash((self._TAG, cs)))
        _set_slot(self, "_cache", {})

    def __contains__(self, c: object) -> bool:
        return c in self.constraints

    @property
    def names(self) -> frozenset[str]:
        return frozenset(c.name for c in self.constraints)

    @property
    def by_name(self) -> Mapping[str, tuple[Constraint, ...]]:
        """The constraints grouped by attribute name, names and each group in
        canonical order (computed once, read-only)."""
        return derived(self, "by_name", _grouped)

    def __str__(self) -> str:
        return "[" + ", ".join(str(c) for c in self.constraints) + "]"


@dataclass(frozen=True, slots=True, eq=False, init=False, repr=False)
class Filter(_ConstraintSet):
    """A conjunction of constraints. The empty filter matches every message."""

    _WHAT = "a filter"
    _TAG = "F"

    @property
    def sort_key(self) -> tuple:
        return tuple(c._key for c in self.constraints)

    def __lt__(self, other: Filter) -> bool:
        return self.sort_key < other.sort_key

    @property
    def size(self) -> int:
        return len(self.constraints)


@dataclass(frozen=True, slots=True, eq=False, init=False, repr=False)
class Predicate(_CanonicalTuple):
    """A disjunction of filters. The empty predicate matches no message."""

    _MEMBERS = "filters"
    filters: tuple[Filter, ...] = ()
    _hash: int = field(init=False, repr=False, compare=False)
    _cache: dict = field(init=False, repr=False, compare=False)

    def __init__(self, filters: Iterable[Filter] = ()) -> None:
        items = []
        for f in filters:
            if not isinstance(f, Filter):
                raise InvalidValueError(f"a predicate holds filters, not {f!r}")
            items.append(f)
        # one filter needs no sort (nor its sort key)
        fs = tuple(items) if len(items) == 1 else tuple(sorted(set(items), key=_filter_sort_key))
        _set_slot(self, "filters", fs)
        _set_slot(self, "_hash", hash(("P", fs)))
        _set_slot(self, "_cache", {})

    @classmethod
    def of(cls, x: Filter | Predicate) -> Predicate:
        return x if isinstance(x, Predicate) else cls((x,))

    @property
    def size(self) -> int:
        """Number of constraints (an ``any`` counts as one)."""
        return sum(len(f) for f in self.filters)

    def __or__(self, other: Predicate | Filter) -> Predicate:
        return Predicate(self.filters + Predicate.of(other).filters)

    def __str__(self) -> str:
        if not self.filters:
            return "false"
        return " || ".join(str(f) for f in self.filters)


@dataclass(frozen=True, slots=True, eq=False, init=False, repr=False)
class Advertisement(_ConstraintSet):
    """What a publisher may send: every attribute of a covered message must
    satisfy at least one of these constraints on its name and type (several
    constraints on one name are a disjunction)."""

    _WHAT = "an advertisement"
    _TAG = "A"


_Derived = TypeVar("_Derived")


def derived(value: _ConstraintSet | Predicate, key: Hashable, compute: Callable[[Any], _Derived]) -> _Derived:
    """``compute(value)``, computed once per value and ``key`` and kept on the
    value (immutable: it never goes stale). Other layers keep their forms of a
    value here (covering's normal forms, the reducers'), under keys of their own."""
    try:
        return value._cache[key]
    except KeyError:
        found = value._cache[key] = compute(value)
        return found


def _grouped(value: _ConstraintSet) -> Mapping[str, tuple[Constraint, ...]]:
    return MappingProxyType(group_by_name(value.constraints))


@dataclass(frozen=True, slots=True)
class Attribute:
    """A typed value carried by a message."""

    type: str
    value: Value

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            if isinstance(self.type, Type) and self.type != Type.ANY:
                object.__setattr__(self, "type", self.type.spelling)
            else:
                raise InvalidValueError(
                    f"attribute type must be one of {', '.join(TYPES)}, not {self.type!r}")
        object.__setattr__(self, "value", check_value(self.type, self.value))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Attribute):
            return NotImplemented
        return self.type == other.type and self.value == other.value

    def __hash__(self) -> int:
        return hash((self.type, self.value))

    def __str__(self) -> str:
        return f"{self.type} {format_value(self.type, self.value)}"


def infer_type(value: Any) -> str:
    """The type a Python value stands for (bool before int: bool is an int)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, str):
        return STRING
    raise InvalidValueError(f"no Siena type for {value!r}")


@dataclass(frozen=True, slots=True, eq=False)
class Message(Mapping):
    """A read-only mapping from attribute name to :class:`Attribute`."""

    attributes: tuple[tuple[str, Attribute], ...] = ()
    _index: dict = field(init=False, repr=False, compare=False)
    #: computed on first use: many messages are never hashed
    _hash: int | None = field(init=False, repr=False, compare=False)
    #: Reserved for the forwarding matcher (``cbalgebra.matcher``), which keeps
    #: the message's encoding here the first time it forwards the message
    #: (``cbalgebra.matcher.table.message_wire``). ``None`` until then: the core
    #: neither fills nor reads it, and it takes no part in equality, hashing,
    #: ``repr`` or pickling.
    wire: bytes | None = field(init=False, repr=False, compare=False)

    def __init__(self, attributes: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        items = attributes.items() if isinstance(attributes, Mapping) else attributes
        index: dict[str, Attribute] = {}
        for name, attr in items:
            if not isinstance(name, str) or not name:
                raise InvalidValueError(f"attribute name must be a non-empty string, not {name!r}")
            if name.__class__ is not str:
                name = str.__str__(name)  # a subclass: keep the plain string
            if _has_surrogate(name):
                raise InvalidValueError(f"attribute name {name!r} contains a surrogate code point")
            if name in index:
                raise InvalidValueError(f"duplicate attribute {name!r} in message")
            if not isinstance(attr, Attribute):
                attr = Attribute(infer_type(attr), attr)
            index[name] = attr
        attrs = tuple(sorted(index.items()))
        object.__setattr__(self, "attributes", attrs)
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_hash", None)
        object.__setattr__(self, "wire", None)

    def __getitem__(self, name: str) -> Attribute:
        return self._index[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self._index.get(name, default)

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self.attributes)

    def __len__(self) -> int:
        return len(self.attributes)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return self.attributes == other.attributes

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash(("M", self.attributes))
            object.__setattr__(self, "_hash", h)
        return h

    def __str__(self) -> str:
        return "[" + ", ".join(
            f"{a.type} {format_name(n)} = {format_value(a.type, a.value)}" for n, a in self.attributes
        ) + "]"

    def __repr__(self) -> str:
        return "Message({" + ", ".join(f"{n!r}: {a!r}" for n, a in self.attributes) + "})"

    def _repr_html_(self) -> str:
        from cbalgebra.notebook import value_html  # notebooks only: not loaded by `import cbalgebra`
        return value_html(self)

    def __reduce__(self):
        return (Message, (self.attributes,))
