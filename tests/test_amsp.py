"""The AMSP simulation (Ge, Ji, Kurose & Towsley, "Matchmaker", §5-6): CDs and MCDs by the algebra,
the overlay against the Matchmaker instance, and the checks of issue 14 on small runs:
installed MCDs against the static oracle, determinism, TDM with motion off, message conservation."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbalgebra.covering import equivalent, overlaps
from cbalgebra.matchmaker import Instance, cost, tdm, valid
from cbalgebra.matchmaker.amsp import (
    ENGINES,
    KINDS,
    PROTOCOLS,
    Overlay,
    ProtocolConfig,
    Signalling,
    SpeedClass,
    WorldConfig,
    intersection,
    simulate,
    square_filter,
)
from cbalgebra.matchmaker.amsp.oracle import cd_filter, expected_mcds
from cbalgebra.semantics import matches
from cbalgebra.values import INT, Attribute, Filter, Message

pytest.importorskip("simpy")

FAST = (SpeedClass("high", 25.0, 75.0, 0.5), SpeedClass("low", 2.5, 5.0, 0.5))  # cells/s at G = 1000
#: A small, busy world: few cells, quick entities, short lives, so that every
#: kind of event (births, crossings, deaths, MCD changes) happens often.
SMALL = WorldConfig(grid=20, initial=(2, 5), arrival_rate=0.05, lifetime_factor=10, speed_classes=FAST,
                    pause=(0, 5))


def _cells(f: Filter, grid: int) -> set[tuple[int, int]]:
    """Brute force: the cells of the grid whose message [x, y] the filter matches."""
    return {(x, y) for x in range(grid) for y in range(grid)
            if matches(f, Message({"x": Attribute(INT, x), "y": Attribute(INT, y)}))}


# ---------------------------------------------------------------- regions
squares = st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 9), st.integers(0, 9)).map(
    lambda t: (min(t[0], t[1]), max(t[0], t[1]), min(t[2], t[3]), max(t[2], t[3])))


@settings(max_examples=60, deadline=None)
@given(squares, squares)
def test_intersection_is_the_common_cells(a, b):
    f, g = square_filter(*a), square_filter(*b)
    mcd = intersection(f, g)
    common = _cells(f, 10) & _cells(g, 10)
    if not common:
        assert mcd is None
        assert not overlaps(f, g)
        return
    assert mcd is not None
    assert _cells(mcd, 10) == common
    assert equivalent(mcd, Filter(f.constraints + g.constraints))
    # Implied constraints are dropped: what is left is the tightest square.
    assert mcd == square_filter(max(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), min(a[3], b[3]))


def test_square_cd_is_clipped_to_the_grid():
    assert cd_filter((0, 5), 10) == square_filter(0, 1, 4, 6)
    assert cd_filter((9, 9), 10) == square_filter(8, 9, 8, 9)
    assert _cells(cd_filter((4, 4), 10), 10) == {(x, y) for x in (3, 4, 5) for y in (3, 4, 5)}


# ---------------------------------------------------------------- overlay
@pytest.mark.parametrize("trees", ["shared", "per-source"])
def test_overlay_relations_agree_with_the_instance(trees):
    inst = Instance.generate(3, 10, 12, trees=trees)
    ov = Overlay.from_instance(inst)
    assert set(ov.links) == set(inst.links)
    for i, link in enumerate(ov.links):
        # C_i^(p) and C_i^(s) with f and g as the rates are sigma and tau of §3 (Lemma 1's link costs).
        assert sum(inst.f[x] for x in ov.publishers_of[i]) == inst.sigma(link)
        assert sum(inst.g[y] for y in ov.subscribers_of[i]) == inst.tau(link)
        ups = {ov.links[j] for j in ov.upstream[i]}
        assert ups <= inst.upstream(link)
    for x in inst.publishers:
        assert set(ov.receivers[x]) == set(inst.receivers(x))
        for y in ov.receivers[x]:
            path = ov.path(x, y)
            assert [ov.head[i] for i in path] + [y] == ov.path_nodes(x, y)
            assert all(ov.links[i] in inst.trees[x] for i in path)


# ---------------------------------------------------------------- runs
def _mismatches(ov, world_config):
    def check(_t, engine, world):
        want = expected_mcds(ov, world.apps, world_config.grid, world_config.half)
        got = engine.installed_mcds()
        return (sum(len(v) for v in want.values()), [n for n in ov.nodes if want[n] != got[n]])

    return check


@pytest.mark.parametrize("trees", ["per-source", "shared"])
@pytest.mark.parametrize("protocol", ["BP", "BS", "AMSP"])
def test_installed_mcds_equal_the_static_oracle_at_checkpoints(trees, protocol):
    for seed in (0, 1):
        inst = Instance.generate(seed, 6, 6, trees=trees)
        ov = Overlay.from_instance(inst)
        check = _mismatches(ov, SMALL)
        run = simulate(inst, SMALL, ProtocolConfig(protocol, interval=5, delta=0.05), seed=seed, duration=120,
                       checkpoints=(20, 45, 70, 95), on_checkpoint=check, overlay=ov, keep_state=True)
        assert [t for t, _ in run.checkpoints] == [20, 45, 70, 95]
        assert sum(found for _, (found, _) in run.checkpoints) > 0  # the check has MCDs to compare
        for t, (_found, bad) in run.checkpoints:
            assert bad == [], f"seed {seed}, t={t}: nodes {bad} disagree with the oracle"
        assert run.signalling is not None and run.world is not None
        assert check(None, run.signalling, run.world)[1] == []
        if protocol == "AMSP":
            assert run.marking_changes > 0


@pytest.mark.parametrize("protocol", ["BP", "BS", "AMSP"])
def test_with_link_delays_the_drained_run_matches_the_oracle_and_conserves_messages(protocol):
    inst = Instance.generate(2, 6, 6, trees="per-source")
    ov = Overlay.from_instance(inst, delay_per_weight=0.002)
    run = simulate(inst, SMALL, ProtocolConfig(protocol, interval=5, delta=0.05), seed=2, duration=100,
                   hop_delay=0.002, overlay=ov, keep_state=True)
    assert run.signalling is not None and run.world is not None
    assert _mismatches(ov, SMALL)(None, run.signalling, run.world)[1] == []
    assert run.sent == run.received
    assert run.signalling.in_flight() == 0


@pytest.mark.parametrize("hop_delay", [0.0, 0.001])
def test_same_seed_same_run_and_same_world_for_every_protocol(hop_delay):
    inst = Instance.generate(4, 5, 7, trees="per-source")
    worlds = set()
    for protocol in ("BP", "BS", "AMSP"):
        a = simulate(inst, SMALL, ProtocolConfig(protocol, interval=5), seed=9, duration=60, hop_delay=hop_delay)
        b = simulate(inst, SMALL, ProtocolConfig(protocol, interval=5), seed=9, duration=60, hop_delay=hop_delay)
        assert a.sent == b.sent and a.series == b.series and a.final_marking == b.final_marking
        assert a.entities == b.entities and a.marking_changes == b.marking_changes
        worlds.add((a.cd_events, tuple(sorted(a.entities.items()))))
        c = simulate(inst, SMALL, ProtocolConfig(protocol, interval=5), seed=10, duration=60, hop_delay=hop_delay)
        assert c.series != a.series
    assert len(worlds) == 1  # the protocol does not change what the entities do


@pytest.mark.parametrize("trees", ["per-source", "shared"])
@pytest.mark.parametrize("hop_delay", [0.0, 0.001])
def test_without_motion_amsp_converges_to_tdm(trees, hop_delay):
    for seed in range(6):
        base = Instance.generate(seed, 8, 8, trees=trees)
        rng = random.Random(seed)
        # Real-valued rates: no link has sigma = tau, where Figure 9 keeps its marking and Figure 6 picks s.
        f = {x: rng.uniform(0.1, 10) for x in base.publishers}
        g = {y: rng.uniform(0.1, 10) for y in base.subscribers}
        inst = Instance.from_trees(base.trees, f, g, graph=base.graph)
        rates = {**{("P", x): v for x, v in f.items()}, **{("S", y): v for y, v in g.items()}}
        world = WorldConfig(grid=30, initial=(1, 3), motion=False)
        run = simulate(inst, world, ProtocolConfig("AMSP", delta=0.0, static_rates=rates), seed=seed,
                       duration=5, hop_delay=hop_delay)
        assert valid(inst, run.final_marking)
        assert run.final_marking == tdm(inst)
        assert run.sent == run.received


def test_broadcast_message_counts_follow_the_trees():
    """BP floods each PCD change over its publisher's whole tree and BS each SCD change over every link
    above its subscriber, so their CD_UPDATE counts are exact sums over the CD changes."""
    inst = Instance.generate(5, 6, 6, trees="per-source")
    ov = Overlay.from_instance(inst)
    bp = simulate(inst, SMALL, ProtocolConfig("BP"), seed=5, duration=60, overlay=ov, keep_state=True)
    bs = simulate(inst, SMALL, ProtocolConfig("BS"), seed=5, duration=60, overlay=ov, keep_state=True)
    assert bp.signalling is not None and bs.signalling is not None
    changes = bp.signalling.changes_by_app
    assert changes == bs.signalling.changes_by_app
    want_p = sum(n * len(ov.tree_links[x]) for (kind, x), n in changes.items() if kind == "P")
    want_s = sum(n * len(ov.links_of_subscriber[y]) for (kind, y), n in changes.items() if kind == "S")
    assert bp.sent["CD_UPDATE/PCD"] == want_p
    assert bs.sent["CD_UPDATE/SCD"] == want_s
    for run in (bp, bs):
        assert run.sent["COST_ANNOUNCE"] == run.sent["CHANGE_MARKING"] == run.sent["CHANGE_MARKING_REPLY"] == 0
    assert bp.sent["CD_UPDATE/SCD"] == bs.sent["CD_UPDATE/PCD"] == 0
    # The same MCDs are installed along the same paths whichever end matches them.
    assert bp.sent["CD_UPDATE/MCD"] == bs.sent["CD_UPDATE/MCD"]
    assert set(KINDS) == set(bp.sent)


def test_entities_move_one_cell_at_a_time():
    inst = Instance.generate(6, 3, 3, trees="per-source")
    run = simulate(inst, SMALL, ProtocolConfig("BP"), seed=6, duration=80, keep_state=True)
    assert run.signalling is not None
    steps = []
    for cells in run.signalling.cell_trace.values():
        assert cells[-1] is None or cells.count(None) == 0  # a withdrawal is the last word
        alive = [c for c in cells if c is not None]
        steps += [(abs(a[0] - b[0]), abs(a[1] - b[1])) for a, b in itertools.pairwise(alive)]
    assert len(steps) > 100 and all(max(step) == 1 for step in steps)
    assert run.entities["moves"] == len(steps)


# ---------------------------------------------------------------- common random numbers (issue 24 §3)
def test_the_same_seed_moves_the_same_entities_on_the_same_paths_at_every_grid():
    """Figure 13 compares grids on one world: positions are drawn in the unit square and scaled by G,
    speeds by G/1000, and every entity has its own stream, so the waypoints (in the unit square) and
    their times are the same at every grid size, whatever the cells crossed in between."""
    inst = Instance.generate(3, 4, 4, trees="per-source")
    paths = {}
    for grid in (20, 55, 200):
        world = WorldConfig(grid=grid, initial=(2, 5), arrival_rate=0.05, lifetime_factor=10, speed_classes=FAST,
                            pause=(0, 5))
        run = simulate(inst, world, ProtocolConfig("AMSP", interval=5), seed=11, duration=60, keep_state=True)
        assert run.world is not None and run.world.paths is not None
        paths[grid] = run.world.paths
    assert sum(len(p) for p in paths[20].values()) > 50
    for grid in (55, 200):
        assert paths[grid].keys() == paths[20].keys()
        for key, legs in paths[20].items():
            flat = [v for leg in paths[grid][key] for v in leg]
            assert flat == pytest.approx([v for leg in legs for v in leg], rel=1e-9, abs=1e-9)


def test_every_protocol_sees_the_same_entity_paths():
    small = Instance.generate(3, 3, 3, trees="per-source")
    runs = [simulate(small, SMALL, ProtocolConfig(p, interval=5), seed=4, duration=40, keep_state=True)
            for p in ("BP", "AMSP")]
    a, b = (r.world.paths for r in runs if r.world is not None)
    assert a == b and len(a) > 10


# ---------------------------------------------------------------- MCD update policy (issue 24 §3)
@pytest.mark.parametrize("trees", ["per-source", "shared"])
def test_segment_policy_installs_what_the_oracle_says_with_fewer_mcd_messages(trees):
    for seed in (0, 3, 5):
        inst = Instance.generate(seed, 6, 6, trees=trees)
        ov = Overlay.from_instance(inst)
        check = _mismatches(ov, SMALL)
        sent = {}
        for policy in ("path", "segment"):
            run = simulate(inst, SMALL, ProtocolConfig("AMSP", interval=5, delta=0.05, mcd_update=policy),
                           seed=seed, duration=120, checkpoints=(20, 45, 70, 95), on_checkpoint=check, overlay=ov,
                           keep_state=True)
            assert all(bad == [] for _, (_, bad) in run.checkpoints)
            assert run.signalling is not None and run.world is not None
            assert check(None, run.signalling, run.world)[1] == []
            assert run.sent == run.received
            sent[policy] = run
        path, segment = sent["path"], sent["segment"]
        # The same world and the same marking decisions; only the re-signalled MCDs differ.
        assert path.marking_changes == segment.marking_changes and path.final_marking == segment.final_marking
        assert segment.sent_by_cause["marking"]["CD_UPDATE/MCD"] == 0
        assert path.sent_by_cause["marking"]["CD_UPDATE/MCD"] > 0
        assert segment.sent["CD_UPDATE/MCD"] < path.sent["CD_UPDATE/MCD"]
        for kind in KINDS:
            if kind != "CD_UPDATE/MCD":
                assert segment.sent[kind] == path.sent[kind]


def test_messages_by_cause_add_up_and_broadcast_has_no_marking_cause():
    inst = Instance.generate(1, 5, 5, trees="per-source")
    for protocol in ("BP", "BS", "AMSP"):
        run = simulate(inst, SMALL, ProtocolConfig(protocol, interval=5, delta=0.05), seed=1, duration=60)
        for kind in KINDS:
            assert run.sent_by_cause["cd"][kind] + run.sent_by_cause["marking"][kind] == run.sent[kind]
            assert sum(run.marking_series[kind]) <= run.sent_by_cause["marking"][kind]
        assert run.rate(10, cause="cd") + run.rate(10, cause="marking") == pytest.approx(run.rate(10))
        if protocol != "AMSP":
            assert sum(run.sent_by_cause["marking"].values()) == 0


def test_broadcast_runs_do_not_read_amsp_parameters():
    """The sensitivity study reruns BP and BS only on the speed axis: the others cannot change them."""
    inst = Instance.generate(2, 4, 4, trees="per-source")
    for protocol in ("BP", "BS"):
        base = simulate(inst, SMALL, ProtocolConfig(protocol), seed=2, duration=40)
        other = simulate(inst, SMALL, ProtocolConfig(protocol, delta=3.0, significance=0.5, interval=2,
                                                     mcd_update="segment"), seed=2, duration=40)
        assert base.sent == other.sent and base.series == other.series


# ---------------------------------------------------------------- Figure 9 on cyclic relations (issue 23 §5)
def test_generated_instances_have_an_acyclic_upstream_relation():
    for trees in ("per-source", "shared"):
        for seed in range(5):
            assert Overlay.from_instance(Instance.generate(seed, 20, 20, trees=trees)).upstream_cycle() is None


def test_on_a_cyclic_upstream_relation_amsp_locks_into_s_links_above_tdm():
    """Three per-source trees around a triangle (a→b→c, b→c→a, c→a→b): each link is upstream of the next.
    Figure 9 makes a link an s-link when an upstream link is one, so one s-link decided while the
    announcements are still arriving turns the whole cycle into s-links for good; AMSP then stays at
    all-s, twice the cost of tdm's all-p. Convergence to tdm holds on acyclic relations only."""
    trees = {"a": [("a", "b"), ("b", "c")], "b": [("b", "c"), ("c", "a")], "c": [("c", "a"), ("a", "b")]}
    f = {"a": 1, "b": 1, "c": 1}
    g = {"a": 2, "b": 2, "c": 2}
    inst = Instance.from_trees(trees, f, g)
    ov = Overlay.from_instance(inst)
    assert ov.upstream_cycle() is not None and sorted(ov.upstream_cycle()) == [0, 1, 2]
    rates = {**{("P", x): float(v) for x, v in f.items()}, **{("S", y): float(v) for y, v in g.items()}}
    world = WorldConfig(grid=10, initial=(0, 0), arrival_rate=0, motion=False)
    run = simulate(inst, world, ProtocolConfig("AMSP", delta=0.0, static_rates=rates), duration=5)
    assert valid(inst, run.final_marking)
    assert set(run.final_marking.values()) == {"s"}
    assert set(tdm(inst).values()) == {"p"}
    assert cost(inst, run.final_marking) == 2 * cost(inst, tdm(inst))


# ---------------------------------------------------------------- one engine class per protocol (issue 25)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_each_protocol_runs_on_its_own_class_of_the_shared_engine(protocol):
    """BP, BS and AMSP are one class each on the shared Signalling engine; only AMSP announces rates
    and changes markings, and BP and BS keep the marking they start with."""
    inst = Instance.generate(1, 4, 4, trees="per-source")
    run = simulate(inst, SMALL, ProtocolConfig(protocol, interval=5, delta=0.05), seed=1, duration=40,
                   keep_state=True)
    engine = run.signalling
    assert type(engine) is ENGINES[protocol] and type(engine).__name__ == protocol
    assert isinstance(engine, Signalling)
    assert hasattr(engine, "announce") == hasattr(engine, "f_table") == (protocol == "AMSP")
    if protocol == "AMSP":
        assert run.marking_changes > 0
    else:
        assert run.marking_changes == 0
        assert set(run.final_marking.values()) == {"p" if protocol == "BP" else "s"}
