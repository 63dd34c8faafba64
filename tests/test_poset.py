"""The filters poset: the three insert cases of §3.5, unsubscription (§2.4.3),
and a hypothesis state machine checking the Hasse diagram against the
transitive reduction of covering computed independently."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import cbalgebra as cb
from cbalgebra.poset import COVERED, INSERTED, MERGED, Poset
from cbalgebra.poset.build import insert_predicate
from cbalgebra.poset.queries import match
from cbalgebra.poset.stats import levels, shape
from cbalgebra.values import Advertisement, Constraint, Filter, Message

F = cb.parse_filter


def poset_of(*subscriptions: tuple[object, object], poset: Poset | None = None) -> Poset:
    """``poset`` (by default a new poset of filters) after inserting each (value, subscriber) in order."""
    p = Poset() if poset is None else poset
    for value, subscriber in subscriptions:
        p.insert(value, subscriber)
    return p


def edges_of(p: Poset) -> set[tuple[str, str]]:
    return {(str(a), str(b)) for a, b in p.edges()}


# ---------------------------------------------------------------- the three cases
def test_three_cases_of_insert():
    p = Poset()
    r = p.insert("[string airline any]", 3)
    assert r.case == INSERTED and p.roots() == [F("[string airline any]")]
    r = p.insert('[airline = "UA", dest = "ARN"]', 2)
    assert r.case == INSERTED
    assert p.predecessors('[airline = "UA", dest = "ARN"]') == [F("[string airline any]")]
    # Case 2: an equal element gains the subscriber.
    r = p.insert("[string airline any]", "a")
    assert r.case == MERGED and p.element("[string airline any]").subscribers == {3, "a"}
    # Case 1: a covering element already holds the subscriber.
    r = p.insert('[airline = "UA"]', "a")
    assert r.case == COVERED and r.element.value == F("[string airline any]")
    assert len(p) == 2
    p.check_invariants()


def test_insert_between_predecessors_and_successors():
    p = poset_of(("[int x > 0]", "u"), ("[int x > 10]", "v"), ("[int x > 5]", "w"))
    assert p.successors("[int x > 0]") == [F("[int x > 5]")]
    assert p.successors("[int x > 5]") == [F("[int x > 10]")]
    assert p.predecessors("[int x > 10]") == [F("[int x > 5]")]
    assert edges_of(p) == {("[int x > 0]", "[int x > 5]"), ("[int x > 5]", "[int x > 10]")}


def test_merge_and_cancel_covered_subscriptions_of_the_subscriber():
    p = Poset()
    p.insert("[int x > 10]", "u")
    p.insert("[int x > 20]", "v")
    p.insert("[int x > 30]", "u")  # covered by u's [x > 10]: no change
    assert len(p) == 2
    r = p.insert("[int x > 0]", "v")  # covers both; v leaves [x > 20], which is dropped
    assert r.case == INSERTED
    assert r.cancelled == (F("[int x > 20]"),) and r.dropped == (F("[int x > 20]"),)
    assert p.subscriptions("v") == [F("[int x > 0]")]
    assert edges_of(p) == {("[int x > 0]", "[int x > 10]")}
    p.check_invariants()


def test_equivalent_filters_are_one_element():
    p = Poset()
    p.insert("[int x > 1]", "u")
    r = p.insert("[int x >= 2]", "v")
    assert r.case == MERGED and len(p) == 1
    assert p.element("[int x >= 2]").subscribers == {"u", "v"}
    assert p.element("[int x >= 2]").equivalents == (F("[int x >= 2]"),)
    assert F("[int x > 1, int x any]") in p
    p.remove("[int x >= 2]", "u")
    assert p.element("[int x > 1]").subscribers == {"v"}


def test_unsatisfiable_filters_are_one_least_element():
    p = Poset()
    p.insert("[int x > 0]", "u")
    p.insert("[string y any]", "v")
    r = p.insert("[int x > 5, int x < 3]", "w")
    assert r.case == INSERTED and not r.element.satisfiable
    assert set(p.predecessors("[int x > 5, int x < 3]")) == {F("[int x > 0]"), F("[string y any]")}
    assert p.insert('[string y = "a", string y = "b"]', "z").case == MERGED
    # Anyone holding a subscription already covers an unsatisfiable one.
    assert p.insert("[int q < -9223372036854775808]", "u").case == COVERED
    p.check_invariants()


def test_remove_cancels_what_it_covers():
    p = poset_of(("[int x > 10]", "u"), ("[string s any]", "u"), ("[int x > 20]", "v"))
    r = p.remove("[int x > 0]", "u")  # covers u's [x > 10], not [s any]
    assert r.cancelled == (F("[int x > 10]"),) and r.dropped == (F("[int x > 10]"),)
    assert p.subscriptions("u") == [F("[string s any]")]
    assert set(p.roots()) == {F("[int x > 20]"), F("[string s any]")}
    r = p.remove("[int x > 50]", "v")  # covers nothing of v
    assert not r.changed and len(p) == 2
    p.check_invariants()


def test_match_prunes_below_non_matching_elements():
    p = poset_of(("[int x > 0]", "a"), ("[int x > 10]", "b"), ('[string s >* "ab"]', "c"))
    m = cb.parse_message("[int x = 5]")
    assert match(p, m) == {"a"}
    assert match(p, cb.parse_message('[int x = 50, string s = "abc"]')) == {"a", "b", "c"}


def test_iteration_len_levels_and_shape():
    p = Poset()
    for i, text in enumerate(["[int x > 0]", "[int x > 5]", "[int x > 9]", "[string s any]", '[string s = "q"]']):
        p.insert(text, f"s{i}")
    assert len(p) == 5
    assert list(p)[:2] == [F("[int x > 0]"), F("[string s any]")]
    assert levels(p) == [
        [F("[int x > 0]"), F("[string s any]")],
        [F("[int x > 5]"), F('[string s = "q"]')],
        [F("[int x > 9]")],
    ]
    s = shape(p)
    assert (s.elements, s.roots, s.depth, s.width, s.widest_level) == (5, 2, 3, 2, 0)
    assert "5 elements, 2 roots" in str(s)
    assert repr(p) == f"<Poset subscriptions: {s}>"


def test_insert_predicate_and_text_values():
    p = Poset()
    results = insert_predicate(p, '[int x > 1] || [int x > 3] || [string s *< "z"]', "u")
    # A predicate keeps its filters in canonical order: [s *< "z"], [x > 1], [x > 3].
    assert [r.case for r in results] == [INSERTED, INSERTED, COVERED]
    assert len(p) == 2


def test_kinds_do_not_mix():
    p = Poset()
    p.insert("[int x > 1]", "u")
    with pytest.raises(TypeError):
        p.insert(Advertisement([Constraint("int", "x", ">", 1)]), "u")
    with pytest.raises(TypeError):
        p.insert(cb.parse_predicate("[int x > 1] || [int y > 1]"), "u")
    with pytest.raises(KeyError):
        p.element("[int x > 100]")


def test_advertisement_poset():
    p = poset_of(('[string what = "alarm", string what = "login", string user any]', "s1"),
                 ('[string what = "login", string user any]', "s2"), ('[string what = "login"]', "s3"),
                 ("[int load < 10]", "s4"), poset=Poset("advertisements"))
    assert p.roots() == [cb.parse_advertisement('[string what = "alarm", string what = "login", string user any]'),
                         cb.parse_advertisement("[int load < 10]")]
    login = cb.parse_advertisement('[string what = "login"]')
    assert p.successors('[string what = "login", string user any]') == [login]
    assert match(p, cb.parse_message('[string what = "login", string user = "ingmar"]')) == {"s1", "s2"}


# ------------------------------------------------------- regression: known bugs
def test_regression_successor_search_checks_covering():
    """An earlier implementation took all successors of the new element's
    predecessors as its successors, without checking covering."""
    p = poset_of(("[string a any]", "r"), ('[string a = "x"]', "u"), ('[string a = "y"]', "v"),
                 ('[string a >* "x"]', "w"))
    assert p.successors('[string a >* "x"]') == [F('[string a = "x"]')]
    assert p.successors("[string a any]") == [F('[string a = "y"]'), F('[string a >* "x"]')]
    # A successor that is not below any predecessor of the new element.
    p.insert('[string a = "x", int b = 1]', "z")
    p.insert("[int b = 1]", "q")
    assert p.successors("[int b = 1]") == [F('[string a = "x", int b = 1]')]
    assert set(p.predecessors('[string a = "x", int b = 1]')) == {F('[string a = "x"]'), F("[int b = 1]")}
    p.check_invariants()


def test_regression_removal_leaves_no_stale_roots():
    p = poset_of(("[string a any]", "r1"), ("[int b any]", "r2"), ('[string a = "x", int b = 1]', "c"),
                 ("[string a any]", "r1b"))
    p.remove("[string a any]", "r1")
    assert p.roots() == [F("[string a any]"), F("[int b any]")]
    p.remove("[string a any]", "r1b")
    assert p.roots() == [F("[int b any]")]
    assert p.predecessors('[string a = "x", int b = 1]') == [F("[int b any]")]
    p.remove("[int b any]", "r2")
    assert p.roots() == [F('[string a = "x", int b = 1]')]
    assert p.element('[string a = "x", int b = 1]').is_root
    p.check_invariants()


def test_regression_removal_adds_no_shortcut_edges():
    p = poset_of(("[int x > 0]", "a"), ("[int x > 5]", "b"), ("[int x > 0, int y any]", "c"),
                 ("[int x > 9, int y any]", "d"))
    assert edges_of(p) == {
        ("[int x > 0]", "[int x > 5]"),
        ("[int x > 0]", "[int x > 0, int y any]"),
        ("[int x > 5]", "[int x > 9, int y any]"),
        ("[int x > 0, int y any]", "[int x > 9, int y any]"),
    }
    # [x > 0] still reaches [x > 9, y any] through [x > 5]: no direct edge.
    p.remove("[int x > 0, int y any]", "c")
    assert edges_of(p) == {("[int x > 0]", "[int x > 5]"), ("[int x > 5]", "[int x > 9, int y any]")}
    # Without [x > 5] the edge is needed.
    p.remove("[int x > 5]", "b")
    assert edges_of(p) == {("[int x > 0]", "[int x > 9, int y any]")}
    p.check_invariants()


# ------------------------------------------------------------- state machine
NAMES = ("a", "b", "c")
INT_OPS = ("=", "!=", "<", ">", "<=", ">=", "any")
STR_OPS = ("=", "!=", "<", ">", ">*", "*<", "*", "any")
STRINGS = ("", "a", "ab", "b", "ba")


@st.composite
def constraints(draw):
    name = draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        op = draw(st.sampled_from(INT_OPS))
        return Constraint("int", name, op, None if op == "any" else draw(st.integers(-2, 2)))
    op = draw(st.sampled_from(STR_OPS))
    return Constraint("string", name, op, None if op == "any" else draw(st.sampled_from(STRINGS)))


filters = st.lists(constraints(), min_size=0, max_size=3).map(Filter)
advertisements = st.lists(constraints(), min_size=0, max_size=4).map(Advertisement)
SUBSCRIBERS = st.sampled_from(("u1", "u2", "u3", "u4"))


def reference_reduction(values: list) -> tuple[set, set]:
    """Edges and roots of the Hasse diagram of covering over ``values``, by
    brute force: decide cb.covers for every ordered pair, then keep a → b
    when a strictly covers b and no third value lies strictly between them
    (the transitive reduction of the strict order)."""
    n = len(values)
    above = [[i != j and cb.covers(values[i], values[j]) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            assert not (above[i][j] and above[j][i]), f"equivalent elements stored twice: {values[i]}, {values[j]}"
    edges = {
        (str(values[i]), str(values[j]))
        for i in range(n) for j in range(n)
        if above[i][j] and not any(above[i][k] and above[k][j] for k in range(n))
    }
    roots = {str(values[i]) for i in range(n) if not any(above[j][i] for j in range(n))}
    return edges, roots


class PosetMachine(RuleBasedStateMachine):
    kind = "subscriptions"
    values = filters

    def __init__(self):
        super().__init__()
        self.poset = Poset(self.kind)
        self.model: dict[str, list] = {}  # subscriber → its active subscriptions (Siena semantics)
        self.seen: list = []

    def _subscribe(self, x, u):
        held = self.model.setdefault(u, [])
        if any(cb.covers(f, x) for f in held):
            return COVERED
        self.model[u] = [f for f in held if not cb.covers(x, f)] + [x]
        return None

    @rule(x=st.data(), u=SUBSCRIBERS)
    def insert(self, x, u):
        value = x.draw(self.values)
        expect = self._subscribe(value, u)
        result = self.poset.insert(value, u)
        assert (result.case == COVERED) == (expect == COVERED)
        assert cb.covers(result.element.value, value)
        self.seen.append(value)

    @precondition(lambda self: self.seen)
    @rule(data=st.data(), u=SUBSCRIBERS)
    def reinsert_seen(self, data, u):
        value = data.draw(st.sampled_from(self.seen))
        expect = self._subscribe(value, u)
        assert (self.poset.insert(value, u).case == COVERED) == (expect == COVERED)

    @rule(data=st.data(), u=SUBSCRIBERS)
    def remove(self, data, u):
        if self.seen and data.draw(st.booleans()):
            value = data.draw(st.sampled_from(self.seen))
        else:
            value = data.draw(self.values)
        self.model[u] = [f for f in self.model.get(u, []) if not cb.covers(value, f)]
        result = self.poset.remove(value, u)
        assert all(cb.covers(value, c) for c in result.cancelled)

    @invariant()
    def structure_matches_reference(self):
        p = self.poset
        p.check_invariants()
        values = list(p)
        assert len(values) == len(p) == len(set(values))
        edges, roots = reference_reduction(values)
        assert edges_of(p) == edges
        assert {str(r) for r in p.roots()} == roots
        assert {str(e.value) for e in p.elements() if not e.predecessors} == roots

    @invariant()
    def subscribers_match_model(self):
        p = self.poset
        expected: dict[str, set] = {}
        for u, held in self.model.items():
            for f in held:
                e = p.element(f)  # KeyError: a subscription was lost
                assert u in e.subscribers
                expected.setdefault(str(e.value), set()).add(u)
            # One element per active subscription: none lost, none duplicated.
            assert len({p.element(f) for f in held}) == len(held)
            assert len(p.subscriptions(u)) == len(held)
        assert {str(e.value): set(e.subscribers) for e in p.elements()} == expected


class AdvertisementMachine(PosetMachine):
    kind = "advertisements"
    values = advertisements


def machine_test(machine: type[PosetMachine], max_examples: int, steps: int) -> type:
    """``machine``'s unittest case, ``max_examples`` runs of up to ``steps`` steps
    (too_slow is expected: every step checks the whole structure against the reference)."""
    case = machine.TestCase
    case.settings = settings(max_examples=max_examples, stateful_step_count=steps, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow])
    return case


def assert_matches_reference(p: Poset) -> None:
    """The poset is the transitive reduction of covering decided for every pair of its values."""
    p.check_invariants()
    edges, roots = reference_reduction(list(p))
    assert edges_of(p) == edges
    assert {str(r) for r in p.roots()} == roots


TestPosetMachine = machine_test(PosetMachine, 150, 30)
TestAdvertisementMachine = machine_test(AdvertisementMachine, 60, 25)


def random_filter(rng) -> Filter:
    """Filters over a few names with small constants: many covering pairs,
    some equivalences and some unsatisfiable conjunctions."""
    cs = []
    for _ in range(rng.choice((1, 1, 2, 2, 2, 3))):
        name = rng.choice("abcdefgh"[: rng.choice((3, 8))])
        if name in "abcd":
            op = rng.choice(("=", "!=", "<", ">", "<=", ">=", "any"))
            cs.append(Constraint("int", name, op, None if op == "any" else rng.randint(-4, 4)))
        else:
            op = rng.choice(("=", "!=", ">*", "*<", "*", "<", "any"))
            cs.append(Constraint("string", name, op, None if op == "any" else rng.choice(("", "a", "ab", "abc", "b"))))
    return Filter(cs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_larger_random_poset_matches_reference(seed):
    import random

    rng = random.Random(seed)
    p = Poset()
    if seed == 3:
        p._seed_above = 0
    inserted = []
    for i in range(700):
        f = random_filter(rng)
        p.insert(f, f"s{rng.randrange(250)}")
        inserted.append(f)
        if i % 7 == 6:
            p.remove(rng.choice(inserted), f"s{rng.randrange(250)}")
    assert len(p) > 250
    assert_matches_reference(p)
    assert p.stats.insert_checks < p.stats.naive_checks / 4


def test_custom_covering_relation_equality_gives_a_flat_poset():
    equality = Poset(covers=lambda a, b: a == b)
    p = poset_of(("[int x > 0]", "u"), ("[int x > 5]", "v"), ("[int x > 0]", "v"), poset=equality)
    assert len(p) == 2 and shape(p).edges == 0
    assert p.element("[int x > 0]").subscribers == {"u", "v"}


def test_stats_count_fewer_checks_than_naive():
    p = Poset()
    for i in range(60):
        p.insert(Filter([Constraint("int", f"n{i % 12}", ">", i)]), f"s{i}")
    assert p.stats.inserts == 60
    assert 0 < p.stats.insert_checks < p.stats.naive_checks
    assert p.stats.avoided > 0.5
    m = Message({"n3": 100})
    assert match(p, m) == {f"s{i}" for i in range(60) if i % 12 == 3}


# ------------------------------------------------ same-name-heavy subscriptions
# Every filter constrains the same names (a: int bounds, b: string prefixes
# and bounds), so the signature index cannot separate them: chains, long
# antichains and equivalences (x > 1 ≡ x >= 2) are the common case.
@st.composite
def same_name_filters(draw):
    cs = []
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(("<", ">", "<=", ">=", "=", "!=")))
        cs.append(Constraint("int", "a", op, draw(st.integers(-3, 3))))
    if draw(st.integers(0, 3)):
        op = draw(st.sampled_from((">*", ">*", "<", ">=", "=", "*<")))
        cs.append(Constraint("string", "b", op, draw(st.sampled_from((*STRINGS, "abc", "aa")))))
    return Filter(cs)


class Seeded(PosetMachine):
    """The search up from a covered element whenever one is found (by default above 64 elements only)."""

    def __init__(self):
        super().__init__()
        self.poset._seed_above = 0


class FromLeaves(PosetMachine):
    """The search up from the leaves tried whenever an element just above the
    new filter covers it, whatever the leaf count."""

    def __init__(self):
        super().__init__()
        self.poset._leaves_limit = 1 << 30


class SameNameMachine(Seeded):
    values = same_name_filters()


class SeededMachine(Seeded):
    """The general machine with the search from below on at every size."""


class FromLeavesMachine(FromLeaves, SameNameMachine):
    """Same names, searching up from the leaves too."""


class SeededFromLeavesMachine(FromLeaves, SeededMachine):
    """The general machine with both searches from below."""


TestSeededMachine = machine_test(SeededMachine, 120, 30)
TestSameNameMachine = machine_test(SameNameMachine, 120, 35)
TestFromLeavesMachine = machine_test(FromLeavesMachine, 120, 35)
TestSeededFromLeavesMachine = machine_test(SeededFromLeavesMachine, 80, 30)


def _interleaved(n: int) -> list[int]:
    """0, n-1, 1, n-2, …: each insert alternately below and above all others."""
    lo, hi, out = 0, n - 1, []
    while lo <= hi:
        out.append(lo)
        if lo != hi:
            out.append(hi)
        lo, hi = lo + 1, hi - 1
    return out


@pytest.mark.parametrize("leaves_limit", [16, 1 << 30])
@pytest.mark.parametrize("order", ["ascending", "descending", "shuffled", "two-chains", "interleaved",
                                   "ascending-runs"])
def test_same_name_chains_match_reference(order, leaves_limit):
    import random

    rng = random.Random(order)
    bounds = list(range(120))
    if order == "descending":
        bounds.reverse()
    elif order == "interleaved":
        bounds = _interleaved(120)
    elif order == "ascending-runs":
        # Ascending runs started at random places: mixed order, mostly each
        # new filter below the ones of its run.
        starts = rng.sample(range(0, 120, 10), 12)
        bounds = [b + k for b in starts for k in range(10)]
    elif order != "ascending":
        rng.shuffle(bounds)
    p = Poset()
    p._seed_above = 0
    p._leaves_limit = leaves_limit
    for k, r in enumerate(bounds):
        prefix = "XY" if order != "two-chains" else ("XY" if k % 2 else "XYZ")
        p.insert(f'[int x > {r}, string s >* "{prefix}"]', f"u{k}")
        if order == "two-chains" and k % 9 == 4:
            p.insert(f"[int x > {r}, int x < {r + 40}, string s >* \"X\"]", f"v{k}")
    assert_matches_reference(p)


def test_poset_cli_progress_only_when_asked(tmp_path, capsys, monkeypatch):
    from cbalgebra.poset.cli import main
    from cbalgebra.reducers import progress as P

    doc = tmp_path / "subs.txt"
    doc.write_text("".join(f'subscribe [int x > {k}, string s >* "XY"]\n' for k in range(600)))
    assert main([str(doc), "--format", "text"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "L1" in out  # not a terminal: no progress
    init = P.Progress.__init__

    def eager(self, stream=None, **kw):
        init(self, stream, delay=0.0)
        self.every = 0.0

    monkeypatch.setattr(P.Progress, "__init__", eager)
    assert main([str(doc), "--format", "text", "--progress"]) == 0
    out2, err = capsys.readouterr()
    assert "poset: insert: 256/600" in err and out2 == out
    assert main([str(doc), "--format", "text", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("op", [">", "<"])
def test_ascending_chain_finds_predecessor_in_few_checks(op):
    """Each new filter below all the others: the search starts at the one
    leaf (the last filter), not at the root of the chain. Counted checks,
    not time; the structure is compared with the reference."""
    n = 300
    p = Poset()
    p._seed_above = 0  # the searches from below at every size (default: above 64 elements)
    bounds = range(n) if op == ">" else range(n, 0, -1)
    for k, r in enumerate(bounds):
        p.insert(Filter([Constraint("int", "x", op, r), Constraint("string", "s", ">*", "XY")]), f"u{k}")
    assert len(p) == n and len(p.roots()) == 1
    assert p.stats.checks_per_insert < 8  # the search from the roots: about n/2
    assert_matches_reference(p)


# ------------------------------------------------------ adversarial families
# The cliffs of covering (same names, many `!=`, substrings, chains, equal
# spellings) as insert/remove sequences, against the same reference: the
# transitive reduction of covering decided for every pair.
INT_BOUNDS = ("<", ">", "<=", ">=")
PIECES = ("", "a", "b", "ab", "ba", "aba", "bab")


@st.composite
def adversarial_filters(draw):
    family = draw(st.sampled_from(("int-ne", "string-ne", "substring", "chain", "equal")))
    cs: list[Constraint] = []
    if family == "int-ne":
        # Many `!=` on one name: [a != S] covers [a != T] iff S ⊆ T (within a bound).
        for v in draw(st.sets(st.integers(-3, 3), min_size=1, max_size=6)):
            cs.append(Constraint("int", "a", "!=", v))
        if draw(st.booleans()):
            cs.append(Constraint("int", "a", draw(st.sampled_from(INT_BOUNDS)), draw(st.integers(-3, 3))))
    elif family == "string-ne":
        for v in draw(st.sets(st.sampled_from(PIECES), min_size=1, max_size=5)):
            cs.append(Constraint("string", "s", "!=", v))
        if draw(st.booleans()):
            op = draw(st.sampled_from((">*", "*<", "*")))
            cs.append(Constraint("string", "s", op, draw(st.sampled_from(PIECES))))
    elif family == "substring":
        for _ in range(draw(st.integers(1, 3))):
            op = draw(st.sampled_from(("*", ">*", "*<", "=", "!=")))
            cs.append(Constraint("string", "s", op, draw(st.sampled_from(PIECES))))
    elif family == "chain":
        cs.append(Constraint("int", "a", draw(st.sampled_from(INT_BOUNDS)), draw(st.integers(-6, 6))))
        if draw(st.booleans()):
            cs.append(Constraint("string", "s", ">*", draw(st.sampled_from(("a", "ab")))))
    else:
        # Different spellings of a few message sets: equivalent filters are one element.
        return draw(st.sampled_from(EQUAL_SPELLINGS))
    return Filter(cs)


EQUAL_SPELLINGS = tuple(F(text) for text in (
    "[int a > 1]", "[int a >= 2]", "[int a > 1, int a any]", "[int a >= 2, int a > 0]",
    "[int a > 1, int a != 1]", "[int a < 0]", "[int a <= -1]", "[int a < 0, int a != 3]",
    '[string s >* "ab"]', '[string s >* "ab", string s >* "a"]', '[string s >* "ab", string s * "b"]',
    '[string s = "ab"]', '[string s = "ab", string s >* "a", string s *< "b"]',
    "[int a > 2, int a < 1]", '[string s = "a", string s = "b"]',
))


class AdversarialMachine(PosetMachine):
    values = adversarial_filters()


class AdversarialFromBelowMachine(FromLeaves, Seeded, AdversarialMachine):
    """The same families with the searches from below (nearest bounds, leaves) at every size."""


TestAdversarialMachine = machine_test(AdversarialMachine, 120, 35)
TestAdversarialFromBelowMachine = machine_test(AdversarialFromBelowMachine, 100, 35)
