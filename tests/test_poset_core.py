"""The poset as a small core and functions over it: the core never loads
the drawing modules, and the functions (queries, stats, build) answer what
the core's methods used to."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cbalgebra as cb
from cbalgebra import covering
from cbalgebra.poset import Poset, build, queries, search, stats
from cbalgebra.poset.core import COVERED, INSERTED
from cbalgebra.values import Constraint, Filter

F = cb.parse_filter
DRAWING = ("cbalgebra.poset.render", "cbalgebra.poset.layout", "cbalgebra.poset.html", "cbalgebra.poset.cli",
           "matplotlib", "graphviz")


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    program = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_core_never_loads_the_drawing_modules():
    # Importing the core, and using it with its functions, loads no drawing.
    used = (
        "import cbalgebra.poset.core as core\n"
        "from cbalgebra.poset import queries, stats\n"
        "p = core.Poset()\n"
        "p.insert('[int x > 1]', 'u'); p.insert('[int x > 2, string s >* \"a\"]', 'v')\n"
        "queries.match(p, __import__('cbalgebra').parse_message('[int x = 5]')); stats.shape(p); repr(p)\n"
    )
    for code in ("import cbalgebra.poset.core", used):
        loaded = loaded_after(code)
        assert "cbalgebra.poset.core" in loaded
        assert not loaded & set(DRAWING), sorted(loaded & set(DRAWING))
    # The check can fail: the command line does load them.
    assert {"cbalgebra.poset.render", "cbalgebra.poset.html"} <= loaded_after("import cbalgebra.poset.cli")


def flights() -> Poset:
    p = Poset()
    for who, text in [("a", "[string airline any]"), ("b", '[airline = "UA"]'), ("c", '[airline >* "U"]'),
                      ("d", '[airline = "UA", dest = "ARN"]'), ("e", "[int price < 500]")]:
        p.insert(text, who)
    return p


def test_queries_walk_the_diagram():
    p = flights()
    root = p.element("[string airline any]")
    below = {str(v) for v in queries.covered(p, "[string airline any]")}
    assert below == {'[string airline = "UA"]', '[string airline >* "U"]',
                     '[string airline = "UA", string dest = "ARN"]'}
    assert {str(e.value) for e in queries.descendants(root)} == below
    assert {str(v) for v in queries.covering(p, '[airline = "UA", dest = "ARN"]')} == {
        '[string airline = "UA"]', '[string airline >* "U"]', "[string airline any]"}
    assert queries.ancestors(root) == []
    # Breadth first: the immediate successor comes before what lies below it.
    order = [str(e.value) for e in queries.descendants(root)]
    assert order.index('[string airline >* "U"]') < order.index('[string airline = "UA"]')
    assert queries.descendants_within(root, 3) == set(queries.descendants(root))
    assert queries.descendants_within(root, 2) is None
    assert queries.match(p, cb.parse_message('[string airline = "UA", int price = 100]')) == {"a", "b", "c", "e"}
    assert queries.match(p, cb.parse_message('[string airline = "AZ"]')) == {"a"}


def test_stats_and_core_agree():
    p = flights()
    s = stats.shape(p)
    assert (s.elements, s.roots, s.edges, s.depth) == (len(p), len(p.roots()), len(p.edges()), 4)
    assert s.level_sizes == tuple(len(level) for level in stats.levels(p))
    assert [v for level in stats.levels(p) for v in level] == list(p)
    assert all(stats.level_of(p, e) == i for i, level in enumerate(stats.levels(p))
               for e in (p.element(v) for v in level))
    assert s.subscribers == len(p.all_subscribers()) == 5
    assert repr(p) == f"<Poset subscriptions: {s}>"
    assert str(stats.shape(Poset())) == "empty poset"


def test_build_inserts_and_removes_each_filter_of_a_predicate():
    p = Poset()
    results = build.insert_predicate(p, '[int x > 1] || [int x > 3] || [string s *< "z"]', "u")
    assert [r.case for r in results] == [INSERTED, INSERTED, COVERED]
    removed = build.remove_predicate(p, cb.parse_predicate("[int x > 0] || [string s any]"), "u")
    # A predicate keeps its filters in canonical order: [s any] before [x > 0].
    assert [r.cancelled for r in removed] == [(F('[string s *< "z"]'),), (F("[int x > 1]"),)]
    assert len(p) == 0
    with pytest.raises(TypeError, match="insert_predicate"):
        p.insert(cb.parse_predicate("[int x > 1] || [int y > 1]"), "u")


def test_core_methods_that_moved_are_gone():
    # Queries and drawings are functions now; the core keeps its small surface.
    for name in ("shape", "levels", "match", "covered", "descendants", "to_dot", "to_html", "insert_predicate"):
        assert not hasattr(Poset, name), name


# The poset's insert decides "g covers x" one constraint of g at a time,
# through covering's public constraint_covers_filter: it must agree with
# filter covering of the one-constraint filter, and their conjunction with
# filter covering of g.
NAMES = ("a", "s")
PIECES = ("", "a", "b", "ab", "ba")


@st.composite
def constraints(draw):
    name = draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        op = draw(st.sampled_from(("=", "!=", "<", ">", "<=", ">=", "any")))
        return Constraint("int", name, op, None if op == "any" else draw(st.integers(-3, 3)))
    op = draw(st.sampled_from(("=", "!=", "<", ">", ">*", "*<", "*", "any")))
    return Constraint("string", name, op, None if op == "any" else draw(st.sampled_from(PIECES)))


filters = st.lists(constraints(), max_size=4).map(Filter)


@settings(max_examples=400, deadline=None)
@given(g=filters, x=filters)
def test_constraint_covers_filter_composes_filter_covering(g, x):
    per_constraint = [covering.constraint_covers_filter(c, x) for c in g.constraints]
    assert per_constraint == [covering.filter_covers(Filter([c]), x) for c in g.constraints]
    assert all(per_constraint) == covering.filter_covers(g, x) == search.implied_by(x)(g, x)
