"""The rules layer: exact per-attribute reasoning, no solver.

A filter is normalized once (and cached on the value) into one
:class:`AttributeForm` per attribute name. Filter g covers filter f iff f is
unsatisfiable, or every constraint of g is implied by f's constraints on the
same name (docs/design.md, §5 "Deciding covering"). Numbers and bools are decided by
interval arithmetic here; string conjunctions go to
``cbalgebra.covering.strings``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from cbalgebra.covering import domains
from cbalgebra.covering.domains import NO_SOLUTION, Atom
from cbalgebra.covering.strings import string_atom_holds
from cbalgebra.values import (
    ANY,
    ANYTYPE,
    BOOL,
    FLOAT,
    INT,
    NE,
    STRING,
    Attribute,
    Constraint,
    Filter,
    Message,
    derived,
    group_by_name,
)

#: Value used for an attribute that must be present but whose type is free.
_FREE_TYPE_WITNESS = Attribute(INT, 0)
#: For a counterexample to a constraint of type T on an attribute whose type
#: is free: an attribute of another type.
_OTHER_TYPE = {STRING: Attribute(INT, 0), INT: Attribute(STRING, ""),
               FLOAT: Attribute(INT, 0), BOOL: Attribute(INT, 0)}


class AttributeForm:
    """What one filter says about one attribute name.

    ``type`` is the single concrete type the filter forces (None when only
    ``any name any`` constraints mention the name: present, type free).
    ``atoms`` are the positive atoms of that type. ``numbers`` holds the
    interval form for int and float. ``value`` is a witness attribute,
    computed on first use.
    """

    __slots__ = ("_strings", "_value", "atoms", "name", "numbers", "satisfiable", "type")
    type: str | None
    atoms: tuple[Atom, ...]
    numbers: domains.IntSet | None
    satisfiable: bool
    _value: Attribute | None
    _strings: _StringIndex | None

    def __init__(self, name: str, constraints: Iterable[Constraint]) -> None:
        self.name = name
        self.numbers = None
        self._value = None
        self._strings = None
        types = {c.type for c in constraints if c.type != ANYTYPE}
        if len(types) > 1:
            # A message holds one attribute per name: two types conflict.
            self.type, self.atoms, self.satisfiable = None, (), False
            return
        self.type = types.pop() if types else None
        self.atoms = tuple((c.op, c.value, True) for c in constraints if c.type == self.type and c.op != ANY)
        if self.type is None:
            self._value = _FREE_TYPE_WITNESS
            self.satisfiable = True
        elif self.type in (INT, FLOAT):
            self.numbers = domains.number_set(self.type, self.atoms)
            self.satisfiable = not self.numbers.empty
        else:
            v = domains.solve(self.type, self.atoms)
            self.satisfiable = v is not NO_SOLUTION
            if self.satisfiable:
                self._value = Attribute(self.type, v)

    @property
    def value(self) -> Attribute | Any:
        """An attribute this form allows (NO_SOLUTION when there is none)."""
        if not self.satisfiable:
            return NO_SOLUTION
        if self._value is None:
            # Only the number forms compute their witness late.
            assert self.numbers is not None, self
            if self.type == INT:
                self._value = Attribute(INT, domains.int_witness(self.numbers))
            else:
                self._value = Attribute(FLOAT, domains.float_witness(self.numbers))
        return self._value

    def implies(self, c: Constraint) -> bool:
        """Whether every attribute this (satisfiable) form allows satisfies c."""
        if c.type == ANYTYPE:
            return True
        if self.type != c.type:
            return False
        if c.op == ANY:
            return True
        if self.numbers is not None:
            return domains.number_set_implies(self.type, self.numbers, c.op, c.value)
        if self.type == STRING:
            return self._string_implies(c)
        return _violating_value(self.type, self.atoms, c) is NO_SOLUTION

    def _string_implies(self, c: Constraint) -> bool:
        """``implies(c)`` for a string c, remembered per form.

        A constraint of the form itself is implied; ``!= v`` is implied iff
        v itself is not allowed, which is one membership test and one check
        per other atom. This keeps a filter with thousands of ``!=`` covering
        itself (or a subset of its exclusions) linear instead of one
        thousands-atom solve per constraint. Other constraints take one solve.
        """
        value = c.value
        assert isinstance(value, str), c  # implies() has answered for the operator any
        if len(self.atoms) <= _SMALL_STRING_FORM:
            # Few atoms: scanning them is as quick as an index, and keeps no
            # extra objects alive per form.
            if (c.op, value, True) in self.atoms:
                return True
            if c.op == NE:
                return not all(string_atom_holds(op, v, value) for op, v, _ in self.atoms)
            return _violating_value(STRING, self.atoms, c) is NO_SOLUTION
        strings = self._strings
        if strings is None:
            strings = self._strings = _StringIndex(self.atoms)
        known = strings.implied.get(c)
        if known is None:
            if (c.op, value) in strings.positive:
                known = True
            elif c.op == NE:
                known = not strings.allows(value)
            else:
                known = _violating_value(STRING, self.atoms, c) is NO_SOLUTION
            if len(strings.implied) < _IMPLIED_MEMO_SIZE:
                strings.implied[c] = known
        return known

    def violation(self, c: Constraint) -> Attribute | None:
        """An allowed attribute that fails c (None: leave the attribute out).

        Only call when ``implies(c)`` is False.
        """
        if c.type == ANYTYPE:
            raise AssertionError("a present attribute always satisfies 'any name any'")
        if self.type is None:
            return _OTHER_TYPE[c.type]
        if self.type != c.type:
            return self.value
        if self.type == STRING and c.op == NE and isinstance(c.value, str):
            # Not implied, so c.value itself is allowed, and it violates c.
            return Attribute(STRING, c.value)
        v = _violating_value(self.type, self.atoms, c)
        if v is NO_SOLUTION:  # pragma: no cover - guarded by implies()
            raise AssertionError("no violation exists")
        return Attribute(self.type, v)

    def __repr__(self) -> str:
        return f"AttributeForm({self.name!r}, {self.type!r}, {self.atoms!r}, sat={self.satisfiable})"


#: String forms with at most this many atoms are scanned, not indexed.
_SMALL_STRING_FORM = 16
#: Answers remembered per string form (covering asks the same few constraints
#: of a form again and again).
_IMPLIED_MEMO_SIZE = 4096


class _StringIndex:
    """A string form's atoms, indexed for constant-time ``!=`` questions."""

    __slots__ = ("holes", "implied", "others", "positive")

    def __init__(self, atoms: tuple[Atom, ...]) -> None:
        self.implied: dict[Constraint, bool] = {}  # memo of AttributeForm._string_implies
        self.positive = frozenset((op, v) for op, v, _ in atoms)
        self.holes = frozenset(v for op, v, _ in atoms if op == NE)
        self.others = tuple((op, v) for op, v, _ in atoms if op != NE)

    def allows(self, s: str) -> bool:
        """Whether the string ``s`` satisfies every atom."""
        if s in self.holes:
            return False
        return all(string_atom_holds(op, v, s) for op, v in self.others)


_VIOLATION_CACHE: OrderedDict[tuple, Any] = OrderedDict()
_VIOLATION_CACHE_SIZE = 1 << 16


def _violating_value(type_: str, atoms: tuple[Atom, ...], c: Constraint) -> Any:
    """A value satisfying ``atoms`` and violating ``c``, or NO_SOLUTION."""
    key = (type_, atoms, c.op, c.value)
    hit = _VIOLATION_CACHE.get(key, _VIOLATION_CACHE)
    if hit is not _VIOLATION_CACHE:
        return hit
    result = domains.solve(type_, (*atoms, (c.op, c.value, False)))
    _VIOLATION_CACHE[key] = result
    if len(_VIOLATION_CACHE) > _VIOLATION_CACHE_SIZE:
        _VIOLATION_CACHE.popitem(last=False)
    return result


_FORMS: dict[tuple[Constraint, ...], AttributeForm] = {}
_FORMS_LIMIT = 1 << 17


def attribute_form(name: str, constraints: tuple[Constraint, ...]) -> AttributeForm:
    """The (shared, immutable) form of one attribute's constraints.

    Workloads repeat the same per-attribute constraints across many filters,
    so forms are interned by their constraint tuple.
    """
    form = _FORMS.get(constraints)
    if form is None:
        if len(_FORMS) >= _FORMS_LIMIT:
            _FORMS.clear()
        form = _FORMS[constraints] = AttributeForm(name, constraints)
    return form


class FilterForm:
    """A filter normalized per attribute, with its satisfiability."""

    __slots__ = ("forms", "names", "satisfiable")

    def __init__(self, f: Filter) -> None:
        grouped = group_by_name(f.constraints)  # this form is the filter's cache
        self.forms = {name: attribute_form(name, cs) for name, cs in grouped.items()}
        self.satisfiable = all(form.satisfiable for form in self.forms.values())
        self.names = frozenset(grouped)

    def witness(self) -> Message | None:
        if not self.satisfiable:
            return None
        return Message({name: form.value for name, form in self.forms.items()})


def form_of(f: Filter) -> FilterForm:
    """The filter's per-attribute normal form (computed once per filter)."""
    return derived(f, "form", FilterForm)


def filter_satisfiable(f: Filter) -> bool:
    return form_of(f).satisfiable


def filter_witness(f: Filter) -> Message | None:
    """A message the filter matches, or None when it is unsatisfiable."""
    return form_of(f).witness()


def filter_covers(g: Filter, f: Filter) -> bool:
    """g covers f: every message matched by f is matched by g."""
    ff = form_of(f)
    if not ff.satisfiable:
        return True
    forms = ff.forms
    for c in g.constraints:
        form = forms.get(c.name)
        if form is None or not form.implies(c):
            return False
    return True


def filter_counterexample(g: Filter, f: Filter) -> Message | None:
    """A message matched by f and not by g, or None when g covers f."""
    ff = form_of(f)
    if not ff.satisfiable:
        return None
    for c in g.constraints:
        form = ff.forms.get(c.name)
        if form is None:
            values = {name: fm.value for name, fm in ff.forms.items()}
            return Message(values)
        if not form.implies(c):
            values = {name: fm.value for name, fm in ff.forms.items()}
            values[c.name] = form.violation(c)
            return Message(values)
    return None


def conjoin(f: Filter, g: Filter) -> Filter:
    return Filter(f.constraints + g.constraints)


def filters_overlap(f: Filter, g: Filter) -> bool:
    return filter_satisfiable(conjoin(f, g))


_SINGLE: dict[Constraint, Filter] = {}


def single(c: Constraint) -> Filter:
    """The one-constraint filter of c, interned so its form is computed once."""
    f = _SINGLE.get(c)
    if f is None:
        if len(_SINGLE) > 1 << 16:
            _SINGLE.clear()
        f = _SINGLE[c] = Filter((c,))
    return f


def constraint_covers(a: Constraint, b: Constraint) -> bool:
    """a covers b: every message satisfying b satisfies a."""
    return filter_covers(single(a), single(b))


def constraint_satisfiable(c: Constraint) -> bool:
    return filter_satisfiable(single(c))
