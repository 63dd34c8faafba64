"""The one vocabulary of values.py: type and operator codes, spellings,
semantics, the grouped view of a filter and the float order key."""

import math
import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import advertisements, filters

from cbalgebra.lexicon import OPERATOR_OF_TERMINAL as OP_OF_TOKEN, TYPE_OF_TERMINAL as TYPE_OF_TOKEN, grammar_text
from cbalgebra.parse import parse_filter
from cbalgebra.values import (
    OPERATOR_OF,
    OPERATOR_SPECS,
    OPERATORS,
    OPERATORS_OF_TYPE,
    TYPE_SPECS,
    TYPES,
    Attribute,
    Constraint,
    InvalidValueError,
    Op,
    Type,
    float_of_order_key,
    float_order_key,
)



def test_codes_are_the_positions_of_the_tables():
    assert [spec.code for spec in TYPE_SPECS] == list(Type)
    assert [spec.code for spec in OPERATOR_SPECS] == list(Op)
    assert TYPES == ("string", "int", "float", "bool")
    assert OPERATORS == ("=", "!=", "<", ">", "<=", ">=", ">*", "*<", "*", "any")


def test_the_kernels_use_the_same_codes():
    from cbalgebra.matcher import _kernels as K  # compiles with numba: only for this test

    assert tuple(Type) == (K.T_STRING, K.T_INT, K.T_FLOAT, K.T_BOOL, K.T_ANY)
    assert tuple(Op) == (K.OP_EQ, K.OP_NE, K.OP_LT, K.OP_GT, K.OP_LE, K.OP_GE, K.OP_PREFIX, K.OP_SUFFIX,
            K.OP_SUBSTRING, K.OP_ANY)
    assert len(Op) == K.NOPS and len(Type) == K.NTYPES


def test_members_print_their_spelling_and_are_read_back():
    for t in Type:
        assert Type.of(str(t)) is t
    for op in Op:
        assert Op.of(str(op)) is op
    assert str(Type.INT) == "int" and str(Op.PREFIX) == ">*" and f"{Op.NE}" == "!="
    assert Type.of("long") is Type.INT and Type.of("double") is Type.FLOAT and Type.of("boolean") is Type.BOOL
    assert Op.of("contains") is Op.SUBSTRING and Op.of("=*") is Op.PREFIX and Op.of("suffix") is Op.SUFFIX
    with pytest.raises(InvalidValueError, match="unknown type"):
        Type.of("integers")
    with pytest.raises(InvalidValueError, match="unknown operator"):
        Op.of("=>")


def test_constructors_take_members_and_keep_spellings():
    spelled = Constraint("int", "x", ">=", 3)
    coded = Constraint(Type.INT, "x", Op.GE, 3)
    assert coded == spelled and hash(coded) == hash(spelled) and str(coded) == "int x >= 3"
    assert coded.type == "int" and coded.op == ">=" and type(coded.type) is str and type(coded.op) is str
    assert coded.type_code is Type.INT and coded.op_code is Op.GE and coded.operator.name == "greater-or-equal"
    assert Attribute(Type.FLOAT, 1.5) == Attribute("float", 1.5)
    with pytest.raises(InvalidValueError):
        Attribute(Type.ANY, 1)
    with pytest.raises(InvalidValueError, match="unknown operator"):
        Constraint("int", "x", "=>", 3)
    with pytest.raises(InvalidValueError, match="unknown type"):
        Constraint("integers", "x", "=", 3)


def test_operators_of_type_follow_the_table():
    assert OPERATORS_OF_TYPE["bool"] == {"=", "!=", "any"}
    assert OPERATORS_OF_TYPE["int"] == OPERATORS_OF_TYPE["float"] == {"=", "!=", "<", ">", "<=", ">=", "any"}
    assert OPERATORS_OF_TYPE["string"] == set(OPERATORS)
    assert OPERATORS_OF_TYPE["any"] == {"any"}


def _terminals() -> dict[str, str]:
    return dict(re.findall(r'^([A-Z_0-9]+): "([^"]*)"', grammar_text(), re.MULTILINE))


def test_token_maps_name_the_grammars_terminals():
    terminals = _terminals()
    for token, spelling in TYPE_OF_TOKEN.items():
        assert Type.of(terminals[token]) == Type.of(spelling)
    for token, symbol in OP_OF_TOKEN.items():
        assert Op.of(terminals[token]) == Op.of(symbol)
    # Every spelling of the tables is a terminal the grammar reads.
    assert {w for t in TYPE_SPECS for w in t.words} <= set(terminals.values())
    assert {s for o in OPERATOR_SPECS if o.code != Op.ANY for s in (o.symbol, o.sff, *o.words)} \
        <= set(terminals.values())


@pytest.mark.parametrize("spec", [o for o in OPERATOR_SPECS if o.code != Op.ANY], ids=lambda o: o.name)
def test_every_spelling_parses_to_the_operator(spec):
    for spelling in {spec.symbol, spec.sff, *spec.words}:
        f = parse_filter(f'[string s {spelling} "ab"]')
        assert f.constraints[0].op == spec.symbol


values_of_type = {
    "int": st.integers(-5, 5),
    "float": st.sampled_from([-1.5, 0.0, 2.0, 2.5]),
    "string": st.text(alphabet="ab", max_size=3),
    "bool": st.booleans(),
}


@given(st.data())
def test_complements_fail_exactly_where_the_operator_holds(data):
    spec = data.draw(st.sampled_from([o for o in OPERATOR_SPECS if o.complement is not None]))
    type_ = data.draw(st.sampled_from(sorted(t.spelling for t in TYPE_SPECS if t.code in spec.types)))
    value, operand = data.draw(values_of_type[type_]), data.draw(values_of_type[type_])
    complement = OPERATOR_SPECS[spec.complement]
    assert complement.complement == spec.code
    assert bool(spec.holds(value, operand)) != bool(complement.holds(value, operand))


def test_string_operators_mean_what_their_names_say():
    assert OPERATOR_OF[">*"].holds("abc", "ab") and not OPERATOR_OF[">*"].holds("abc", "bc")
    assert OPERATOR_OF["*<"].holds("abc", "bc") and not OPERATOR_OF["*<"].holds("abc", "ab")
    assert OPERATOR_OF["*"].holds("abc", "b") and not OPERATOR_OF["*"].holds("abc", "ba")
    assert OPERATOR_OF["any"].holds("abc", None)


@given(st.one_of(filters(), advertisements()))
def test_by_name_groups_the_constraints_in_canonical_order(x):
    naive: dict = {}
    for c in x.constraints:
        naive.setdefault(c.name, []).append(c)
    assert {name: list(cs) for name, cs in x.by_name.items()} == naive
    assert list(x.by_name) == list(naive)
    assert x.by_name is x.by_name  # computed once
    with pytest.raises(TypeError):
        x.by_name["new"] = ()  # type: ignore[index]  # the point: the view is read-only


finite_floats = st.floats(allow_nan=False, allow_infinity=False)


@given(finite_floats, finite_floats)
def test_float_order_key_orders_as_the_floats(a, b):
    ka, kb = float_order_key(a), float_order_key(b)
    assert (ka < kb) == (a < b) and (ka == kb) == (a == b)


@given(finite_floats)
def test_float_order_key_counts_doubles_and_round_trips(x):
    key = float_order_key(x)
    assert float_of_order_key(key) == x and str(float_of_order_key(key)) == str(x + 0.0)
    if x < sys.float_info.max:
        assert float_order_key(math.nextafter(x, math.inf)) == key + 1


def test_float_order_key_zero_and_ends():
    assert float_order_key(0.0) == float_order_key(-0.0) == 0
    assert float_order_key(5e-324) == 1 and float_order_key(-5e-324) == -1
    assert float_order_key(-sys.float_info.max) == -float_order_key(sys.float_info.max)
