"""The solver layer: z3 as the complete procedure for covering by a disjunction.

Encoding (one set of variables per attribute name):

- ``tag`` an Int in 0..4: 0 absent, else the attribute's type. One attribute
  per name, so the types exclude each other for free.
- int: an Int bounded to 64 bits.
- float: the value's *ordinal* (see ``values.float_order_key``), an Int. The
  map is an order isomorphism between finite doubles (with -0.0 = 0.0) and
  an integer range, so every float operator is an exact integer comparison.
  We use it instead of z3's floating-point theory, which is much slower here.
- bool: a Bool.
- string: every distinct string atom (op, operand) on the name is abstracted
  as a Bool. When z3 finds a model, the automaton procedure checks, name by
  name, that the atoms the model chose can hold together. If they cannot, we
  add a clause that blocks a minimal contradictory subset and ask again (lazy
  refinement). z3's own string theory managed 2 to 60 checks per second
  here, with unknowns, so z3 never reasons about strings (docs/design.md, §5).

``covering_counterexample(q, ps)`` answers "is filter q covered by the
disjunction ps?" with None (covered) or a counterexample message, checked
with ``matches`` before it is returned. z3 ``unknown`` or a timeout raises
``UndecidedError``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import z3

from cbalgebra.covering import domains
from cbalgebra.covering.errors import UndecidedError
from cbalgebra.covering.strings import solve_string
from cbalgebra.semantics import matches
from cbalgebra.values import (
    ANYTYPE,
    BOOL,
    EQ,
    FLOAT,
    INT,
    INT_MAX,
    INT_MIN,
    OPERATOR_OF,
    STRING,
    TYPE_CODE,
    TYPES,
    Attribute,
    Constraint,
    Filter,
    Message,
    Op,
    Type,
    float_of_order_key,
    float_order_key,
)

#: The tag of an absent attribute; a present one's is its type code + 1.
ABSENT = 0


def _tag(type_: str) -> int:
    return TYPE_CODE[type_] + 1

#: Milliseconds z3 may spend on one check before we raise UndecidedError.
DEFAULT_TIMEOUT_MS = 10_000
#: Refinement rounds before we give up on one question.
MAX_REFINEMENTS = 5_000


class _Name:
    """The z3 variables of one attribute name."""

    __slots__ = ("atoms", "bool", "domain", "ford", "int", "tag")

    def __init__(self, ctx: z3.Context, index: int) -> None:
        self.tag = z3.Int(f"t{index}", ctx)
        self.int = z3.Int(f"i{index}", ctx)
        self.ford = z3.Int(f"f{index}", ctx)
        self.bool = z3.Bool(f"b{index}", ctx)
        self.atoms: dict[tuple[str, str], z3.BoolRef] = {}
        self.domain = z3.And(
            self.tag >= ABSENT, self.tag <= len(TYPES),
            self.int >= INT_MIN, self.int <= INT_MAX,
            self.ford >= domains.FLOAT_ORD_MIN, self.ford <= domains.FLOAT_ORD_MAX,
        )


def _compare(op: str, x: z3.ArithRef, v: int) -> z3.BoolRef:
    # The order operators' semantics use only comparison operators, which z3
    # terms overload.
    spec = OPERATOR_OF[op]
    if Type.INT not in spec.types or spec.code == Op.ANY:
        raise ValueError(f"operator {op!r} does not apply to numbers")
    return spec.holds(x, v)


class Z3Layer:
    """One long-lived z3 context and solver, used with push/pop."""

    def __init__(self, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self.ctx = z3.Context()
        self.solver = z3.SolverFor("QF_LIA", ctx=self.ctx)
        self.solver.set("timeout", timeout_ms)
        self.names: dict[str, _Name] = {}
        self.encoded: dict[Constraint, z3.BoolRef] = {}
        self.checks = 0
        self.refinements = 0

    # -- encoding --------------------------------------------------------------
    def _name(self, name: str) -> _Name:
        var = self.names.get(name)
        if var is None:
            var = self.names[name] = _Name(self.ctx, len(self.names))
        return var

    def _string_atom(self, var: _Name, op: str, value: str) -> z3.BoolRef:
        key = (op, value)
        atom = var.atoms.get(key)
        if atom is None:
            atom = var.atoms[key] = z3.Bool(f"s{id(var)}_{len(var.atoms)}", self.ctx)
        return atom

    def encode(self, c: Constraint) -> z3.BoolRef:
        expr = self.encoded.get(c)
        if expr is not None:
            return expr
        var, value = self._name(c.name), c.value
        if c.type == ANYTYPE:
            expr = var.tag != ABSENT
        else:
            # A constraint's value has its type's Python type (values.check_value),
            # so the tests on the value choose the same branch as c.type would.
            has_type = var.tag == _tag(c.type)
            if value is None:  # the operator any
                expr = has_type
            elif isinstance(value, bool):
                literal = var.bool if value else z3.Not(var.bool)
                expr = z3.And(has_type, literal if c.op == EQ else z3.Not(literal))
            elif isinstance(value, int):
                expr = z3.And(has_type, _compare(c.op, var.int, value))
            elif isinstance(value, float):
                expr = z3.And(has_type, _compare(c.op, var.ford, float_order_key(value)))
            else:
                expr = z3.And(has_type, self._string_atom(var, c.op, value))
        if len(self.encoded) > 200_000:
            self.encoded.clear()
        self.encoded[c] = expr
        return expr

    def _conjunction(self, f: Filter) -> z3.BoolRef:
        return z3.And([self.encode(c) for c in f.constraints], self.ctx)

    # -- deciding --------------------------------------------------------------
    def counterexample(self, q: Filter, ps: Sequence[Filter]) -> Message | None:
        """A message matched by q and by no filter of ps, or None."""
        names = {c.name for c in q.constraints}
        for p in ps:
            names.update(c.name for c in p.constraints)
        vars_ = {n: self._name(n) for n in sorted(names)}
        # Only the string atoms of this question take part in refinement.
        atoms_in_query: dict[str, set[tuple[str, str]]] = {}
        for f in (q, *ps):
            for c in f.constraints:
                if isinstance(c.value, str):  # a string constraint other than any
                    atoms_in_query.setdefault(c.name, set()).add((c.op, c.value))
        solver = self.solver
        solver.push()
        try:
            for var in vars_.values():
                solver.add(var.domain)
            solver.add(self._conjunction(q))
            for p in ps:
                solver.add(z3.Not(self._conjunction(p)))
            for _ in range(MAX_REFINEMENTS):
                self.checks += 1
                result = solver.check()
                if result == z3.unsat:
                    return None
                if result != z3.sat:
                    raise UndecidedError(
                        f"z3 answered {result} ({solver.reason_unknown()}) deciding whether "
                        f"{len(ps)} filter(s) cover {q}"
                    )
                model = solver.model()
                message, conflicts = self._message_from(model, vars_, atoms_in_query)
                if not conflicts:
                    if matches(q, message) and not any(matches(p, message) for p in ps):
                        return message
                    raise AssertionError(  # pragma: no cover - would be a bug in the encoding
                        f"z3 model gave {message}, which does not refute covering of {q}"
                    )
                self.refinements += 1
                for clause in conflicts:
                    solver.add(clause)
            raise UndecidedError(f"no answer after {MAX_REFINEMENTS} string refinements for {q}")
        finally:
            solver.pop()

    def _message_from(
        self, model: z3.ModelRef, vars_: dict[str, _Name], atoms_in_query: dict[str, set[tuple[str, str]]]
    ) -> tuple[Message, list[z3.BoolRef]]:
        attrs: dict[str, Attribute] = {}
        conflicts: list[z3.BoolRef] = []
        for name, var in vars_.items():
            tag = model.eval(var.tag, model_completion=True).as_long()
            if tag == ABSENT:
                continue
            type_ = TYPES[tag - 1]
            if type_ == INT:
                attrs[name] = Attribute(INT, model.eval(var.int, model_completion=True).as_long())
            elif type_ == FLOAT:
                ordinal = model.eval(var.ford, model_completion=True).as_long()
                attrs[name] = Attribute(FLOAT, float_of_order_key(ordinal))
            elif type_ == BOOL:
                attrs[name] = Attribute(BOOL, z3.is_true(model.eval(var.bool, model_completion=True)))
            else:
                literals = [
                    (key, var.atoms[key], z3.is_true(model.eval(var.atoms[key], model_completion=True)))
                    for key in sorted(atoms_in_query.get(name, ()))
                ]
                atoms = [(op, value, truth) for (op, value), _, truth in literals]
                witness = solve_string(atoms)
                if witness is None:
                    core = _minimal_core(literals)
                    conflicts.append(z3.Or(
                        var.tag != _tag(STRING),
                        *[z3.Not(b) if truth else b for _, b, truth in core],
                    ))
                    continue
                attrs[name] = Attribute(STRING, witness)
        return Message(attrs), conflicts


def _minimal_core(literals: list[tuple[tuple[str, str], z3.BoolRef, bool]]) -> list:
    """Drop literals while the rest stay contradictory (deletion-based)."""
    core = list(literals)
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if solve_string([(op, value, truth) for (op, value), _, truth in trial]) is None:
            core = trial
        else:
            i += 1
    return core


_local = threading.local()


def layer() -> Z3Layer:
    """This thread's z3 layer (z3 contexts are not thread-safe)."""
    current = getattr(_local, "layer", None)
    if current is None:
        current = _local.layer = Z3Layer()
    return current


def covering_counterexample(q: Filter, ps: Sequence[Filter]) -> Message | None:
    return layer().counterexample(q, ps)
