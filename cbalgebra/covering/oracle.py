"""An independent, plain z3 encoding of covering: the oracle of the tests.

It shares nothing with the production layers but the value types (read as
``values.X`` below, so that every borrowed name shows). Strings
use z3's string theory (PrefixOf, SuffixOf, Contains, lexicographic order),
floats z3's IEEE double theory, ints bounded Ints. It is slow on strings with
order constraints and may answer unknown; then it raises ``UndecidedError``
and the test skips that case. Its character set stops below U+10FFFF, so
callers keep such strings away from it.
"""

from __future__ import annotations

import z3

from cbalgebra import values
from cbalgebra.covering.errors import UndecidedError

_TYPES = (values.STRING, values.INT, values.FLOAT, values.BOOL)


class _Encoder:
    def __init__(self) -> None:
        self.present: dict[tuple[str, str], z3.BoolRef] = {}
        self.values: dict[tuple[str, str], z3.ExprRef] = {}
        self.names: set[str] = set()

    def _vars(self, name: str, type_: str) -> tuple[z3.BoolRef, z3.ExprRef]:
        key = (name, type_)
        if key not in self.present:
            self.names.add(name)
            self.present[key] = z3.Bool(f"has:{type_}:{name}")
            if type_ == values.STRING:
                self.values[key] = z3.String(f"val:{type_}:{name}")
            elif type_ == values.INT:
                self.values[key] = z3.Int(f"val:{type_}:{name}")
            elif type_ == values.FLOAT:
                self.values[key] = z3.FP(f"val:{type_}:{name}", z3.Float64())
            else:
                self.values[key] = z3.Bool(f"val:{type_}:{name}")
        return self.present[key], self.values[key]

    def constraint(self, c: values.Constraint) -> z3.BoolRef:
        if c.type == values.ANYTYPE:
            return z3.Or([self._vars(c.name, t)[0] for t in _TYPES])
        has, x = self._vars(c.name, c.type)
        if c.op == values.ANY:
            return has
        if c.type == values.STRING:
            v = z3.StringVal(c.value)
            cond = {
                values.EQ: lambda: x == v, values.NE: lambda: x != v,
                values.LT: lambda: z3.StrLT(x, v) if hasattr(z3, "StrLT") else x < v,
                values.LE: lambda: z3.StrLE(x, v) if hasattr(z3, "StrLE") else x <= v,
                values.GT: lambda: z3.StrLT(v, x) if hasattr(z3, "StrLT") else v < x,
                values.GE: lambda: z3.StrLE(v, x) if hasattr(z3, "StrLE") else v <= x,
                values.PREFIX: lambda: z3.PrefixOf(v, x),
                values.SUFFIX: lambda: z3.SuffixOf(v, x),
                values.SUBSTRING: lambda: z3.Contains(x, v),
            }[c.op]()
        elif c.type == values.FLOAT:
            v = z3.FPVal(c.value, z3.Float64())
            cond = {
                values.EQ: lambda: z3.fpEQ(x, v), values.NE: lambda: z3.Not(z3.fpEQ(x, v)),
                values.LT: lambda: z3.fpLT(x, v), values.LE: lambda: z3.fpLEQ(x, v),
                values.GT: lambda: z3.fpGT(x, v), values.GE: lambda: z3.fpGEQ(x, v),
            }[c.op]()
        elif c.type == values.BOOL:
            v = z3.BoolVal(c.value)
            cond = x == v if c.op == values.EQ else x != v
        else:
            cond = {
                values.EQ: lambda: x == c.value, values.NE: lambda: x != c.value,
                values.LT: lambda: x < c.value, values.LE: lambda: x <= c.value,
                values.GT: lambda: x > c.value, values.GE: lambda: x >= c.value,
            }[c.op]()
        return z3.And(has, cond)

    def predicate(self, p: values.Predicate) -> z3.BoolRef:
        return z3.Or([z3.And([self.constraint(c) for c in f]) for f in p.filters])

    def domain(self) -> z3.BoolRef:
        facts = []
        for name in self.names:
            flags = [self.present[(name, t)] for t in _TYPES if (name, t) in self.present]
            # One attribute per name: at most one type present.
            facts.append(z3.AtMost(*flags, 1) if len(flags) > 1 else z3.BoolVal(True))
        for (_name, t), x in self.values.items():
            if t == values.INT:
                facts += [x >= values.INT_MIN, x <= values.INT_MAX]
            elif t == values.FLOAT:
                facts += [z3.Not(z3.fpIsNaN(x)), z3.Not(z3.fpIsInf(x))]
        return z3.And(facts)


def _as_predicate(x: object) -> values.Predicate:
    if isinstance(x, values.Filter):
        return values.Predicate((x,))
    if isinstance(x, values.Predicate):
        return x
    raise TypeError(f"the oracle decides filters and predicates, not {type(x).__name__}")


def oracle_covers(
    x: values.Filter | values.Predicate, y: values.Filter | values.Predicate, timeout_ms: int = 5_000
) -> bool:
    """x covers y, decided by z3's own theories; raises UndecidedError on unknown."""
    px, py = _as_predicate(x), _as_predicate(y)
    enc = _Encoder()
    formula = z3.And(enc.predicate(py), z3.Not(enc.predicate(px)))
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(enc.domain(), formula)
    result = solver.check()
    if result == z3.unknown:
        raise UndecidedError(f"oracle: z3 unknown ({solver.reason_unknown()})")
    return result == z3.unsat
