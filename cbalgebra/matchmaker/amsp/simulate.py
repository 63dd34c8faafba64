"""One simulation run: a network, an application world, one signalling protocol, in SimPy.

``simulate(instance, world, protocol, seed, duration)`` runs the grid world of
§6 (``world.py``) over the instance's trees with BP, BS or AMSP
(``protocols.py``) for ``duration`` simulated seconds and returns every
message count. After ``duration`` the world stops (no entity moves, is born
or dies, no rate is measured) and the messages still in flight are
delivered, so that the final state can be checked against the static oracle
(``oracle.py``) and every message sent is seen received.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cbalgebra.matchmaker.amsp.config import ProtocolConfig
from cbalgebra.matchmaker.amsp.overlay import Overlay
from cbalgebra.matchmaker.amsp.protocols import AMSP, ENGINES
from cbalgebra.matchmaker.amsp.signalling import Signalling
from cbalgebra.matchmaker.amsp.transport import CAUSES, KINDS
from cbalgebra.matchmaker.amsp.regions import MatchCache, SquareBook
from cbalgebra.matchmaker.amsp.world import App, World, WorldConfig

__all__ = ["RunResult", "simulate"]


@dataclass
class RunResult:
    """What one run measured. ``series[kind][k]`` counts the messages of ``kind`` sent in second k."""

    protocol: str
    duration: float
    sent: dict[str, int]
    received: dict[str, int]
    series: dict[str, list[int]]
    cd_events: int  # CD changes the applications made (births, cell crossings, deaths)
    events: int  # SimPy events processed plus messages delivered
    wall_seconds: float
    marking_changes: int
    final_marking: dict
    entities: dict[str, int] = field(default_factory=dict)
    algebra_decisions: int = 0  # PCD × SCD square pairs decided by the algebra (match-cache misses)
    checkpoints: list = field(default_factory=list)
    #: ``sent_by_cause[cause][kind]``: messages descending from a CD change ("cd") or from AMSP's rate
    #: announcements and marking changes ("marking").
    sent_by_cause: dict[str, dict[str, int]] = field(default_factory=dict)
    #: ``marking_series[kind][k]``: the messages of ``kind`` sent in second k that descend from AMSP's
    #: rate announcements and marking changes (the rest of ``series`` descends from CD changes).
    marking_series: dict[str, list[int]] = field(default_factory=dict)
    signalling: Signalling | None = None
    world: World | None = None

    @property
    def total(self) -> int:
        return sum(self.sent.values())

    def rate(self, start: float = 0.0, end: float | None = None, kinds: tuple[str, ...] = KINDS,
             cause: str | None = None) -> float:
        """Messages per second sent in [start, end) (whole seconds); with ``cause`` "marking" only those
        that descend from AMSP's announcements and marking changes, with "cd" only the others."""
        stop = int(self.duration if end is None else end)
        first = int(start)
        if stop <= first:
            raise ValueError("empty window")
        if cause not in (None, *CAUSES):
            raise ValueError(f"cause must be one of {', '.join(CAUSES)}, not {cause!r}")
        total = sum(sum(self.series[k][first:stop]) for k in kinds)
        if cause is not None:
            marking = sum(sum(self.marking_series[k][first:stop]) for k in kinds)
            total = marking if cause == "marking" else total - marking
        return total / (stop - first)


def simulate(
    instance: Any,
    world: WorldConfig | None = None,
    protocol: ProtocolConfig | None = None,
    seed: int = 0,
    duration: float = 600.0,
    hop_delay: float = 0.0,
    checkpoints: tuple[float, ...] = (),
    on_checkpoint: Callable[[float, Signalling, World], Any] | None = None,
    overlay: Overlay | None = None,
    keep_state: bool = False,
    waves: bool = True,
) -> RunResult:
    """Run one protocol on one instance for ``duration`` simulated seconds.

    ``hop_delay`` is the per-hop delay per unit of edge weight (seconds); 0
    delivers each message within the instant it is sent, in FIFO order.
    ``on_checkpoint(t, signalling, world)`` runs at each checkpoint time (with
    ``hop_delay`` 0 no message is in flight then) and its results are kept in
    ``RunResult.checkpoints``. ``keep_state`` keeps the engine and world on
    the result for inspection (and the world records every entity's waypoints in
    ``World.paths``). ``waves=False`` sends every hop of a PCD or SCD
    update through the message queue (the same messages, slower).
    """
    # deferred: simpy loads only when a simulation runs
    import simpy

    world = world or WorldConfig()
    protocol = protocol or ProtocolConfig()
    if not isinstance(world, WorldConfig) or not isinstance(protocol, ProtocolConfig):
        raise ValueError("world must be a WorldConfig and protocol a ProtocolConfig")
    for name, value in (("duration", duration), ("hop_delay", hop_delay)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, not {value!r}")
    if duration <= 0:
        raise ValueError(f"duration must be positive, not {duration}")
    if hop_delay < 0:
        raise ValueError(f"hop_delay must be >= 0, not {hop_delay}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, not {seed!r}")
    if hop_delay > 0 and protocol.mcd_update == "segment":
        # Two matchmakers of one pair can then update the same MCD concurrently, and stopping an update
        # where the MCD is already installed needs versioned MCDs to settle that race (not implemented).
        raise ValueError("mcd_update='segment' runs with instant transport only (hop_delay 0)")
    overlay = overlay or Overlay.from_instance(instance, delay_per_weight=hop_delay)
    if hop_delay > 0 and not any(overlay.delay):
        raise ValueError("hop_delay needs the instance's graph for the link weights")
    env = simpy.Environment()
    book = SquareBook(world.grid, world.half)
    engine = ENGINES[protocol.protocol](env, overlay, protocol, book, end=duration, instant=hop_delay <= 0,
                                        cache=MatchCache(), trace=keep_state, waves=waves)

    def emit(app: App, eid: int, cell: tuple[int, int] | None) -> None:
        app.measured += 1
        engine.cd_changed(app.kind, app.node, eid, cell)

    sim_world = World(env, world, overlay.publishers, overlay.subscribers, seed, emit, end=duration,
                      record_paths=keep_state)
    timer_events = [0]
    if isinstance(engine, AMSP):
        rng = random.Random(f"amsp-protocol:{seed}")
        if protocol.static_rates is not None:
            rates = protocol.static_rates

            def announce_static() -> Any:
                for app in sim_world.apps:
                    if app.key in rates:
                        engine.announce(app.kind, app.node, float(rates[app.key]), 1)
                yield env.timeout(0)

            env.process(announce_static())
        else:
            for app in sim_world.apps:
                env.process(_measure(env, engine, app, protocol, rng, duration, timer_events))
    results: list = []
    if on_checkpoint is not None:
        def checker() -> Any:
            for t in sorted(checkpoints):
                if t > env.now:
                    yield env.timeout(t - env.now)
                results.append((t, on_checkpoint(env.now, engine, sim_world)))

        env.process(checker())
    started = time.perf_counter()
    sim_world.start()
    env.run(until=duration)
    env.run()  # the world has stopped: deliver what is in flight
    if engine.instant:
        engine.pump()
    wall = time.perf_counter() - started
    events = sum(engine.received) + engine.cd_events + timer_events[0]
    return RunResult(
        protocol=protocol.protocol,
        duration=duration,
        sent=dict(zip(KINDS, engine.sent, strict=True)),
        received=dict(zip(KINDS, engine.received, strict=True)),
        series={k: engine.series[i][: int(duration)] for i, k in enumerate(KINDS)},
        marking_series={k: engine.marking_series[i][: int(duration)] for i, k in enumerate(KINDS)},
        cd_events=engine.cd_events,
        events=events,
        wall_seconds=wall,
        marking_changes=engine.marking_changes,
        final_marking=engine.marking(),
        entities={"births": sim_world.births, "moves": sim_world.moves, "deaths": sim_world.deaths,
                  "alive": sum(len(a.live) for a in sim_world.apps)},
        algebra_decisions=engine.cache.decided,
        checkpoints=results,
        sent_by_cause={cause: dict(zip(KINDS, counts, strict=True))
                       for cause, counts in zip(CAUSES, engine.sent_by_cause, strict=True)},
        signalling=engine if keep_state else None,
        world=sim_world if keep_state else None,
    )


def _measure(env: Any, engine: AMSP, app: App, config: ProtocolConfig, rng: random.Random,
             end: float, ticks: list[int]) -> Any:
    """§5.2: measure the application's CD update rate every interval (plus jitter), smooth it
    exponentially, and announce it when it moved by more than the significance threshold."""
    estimate: float | None = None
    announced: float | None = None
    seq = 0
    app.measured = 0
    while True:
        gap = config.interval + rng.uniform(0.0, config.jitter)
        if env.now + gap >= end:
            return
        yield env.timeout(gap)
        ticks[0] += 1
        rate = app.measured / gap
        app.measured = 0
        estimate = rate if estimate is None else (1 - config.alpha) * estimate + config.alpha * rate
        if announced is None or abs(estimate - announced) > max(config.significance * announced, config.floor):
            announced = estimate
            seq += 1
            engine.announce(app.kind, app.node, estimate, seq)
