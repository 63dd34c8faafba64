"""The application model of Ge, Ji, Kurose & Towsley, "Matchmaker", §6 (Figure 10).

A distributed game on a G × G grid of cells. Every publisher and every
subscriber runs an application holding simulation entities:

- an application starts with N_x ~ U[50, 150] entities;
- new entities arrive by a Poisson process of rate λ = 1/60 s⁻¹, and each
  lives an exponential time of mean 60·N_x s (so the population hovers
  around N_x);
- entities move by the random waypoint model (Broch et al., MobiCom 1998):
  pick a destination uniformly in the world and a speed from the entity's
  class, travel in a straight line, pause, repeat;
- three speed classes (high: aircraft, medium: ground vehicles, low: people
  on foot), whose speeds the paper does not give: :data:`SPEED_CLASSES`;
- an entity's CD is the 3 × 3 square of cells around it, and it sends a CD
  update each time it crosses a cell boundary (one update when it crosses
  a corner, i.e. two boundaries at once), at birth, and at death (a
  withdrawal).

The world is measured in cells of the 1000 × 1000 grid: speeds are in those
cells per second. A grid of G × G cells divides the same space more finely or
coarsely, so an entity crosses G/1000 times as many cells (Figure 13).

The world draws from its own random streams, so the three signalling
protocols, run with the same seed, see the same entities make the same moves.
Every application has a stream for its arrivals and every entity one for its
birth place, lifetime, waypoints, speeds and pauses, keyed by (seed,
application, the entity's rank in its application). Positions are drawn in
[0, 1) and scaled by G, speeds scaled by G/1000: the same seed gives the same
entities on the same paths, in the same continuous world, at every grid size
(common random numbers for Figure 13), and one entity's draws never depend on
when another one moved.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any

from cbalgebra.matchmaker.amsp.config import finite_number

__all__ = ["SPEED_CLASSES", "App", "SpeedClass", "World", "WorldConfig"]


#: The speeds a SpeedClass accepts, in cells/s of the 1000 × 1000 grid.
MIN_SPEED, MAX_SPEED = 1e-9, 1e9
#: At most this many new entities per second and application: more would not end in any useful time.
MAX_ARRIVAL_RATE = 1e3


@dataclass(frozen=True)
class SpeedClass:
    """Speeds are drawn uniformly from [low, high] cells/s of the 1000 × 1000 grid, for each leg."""

    name: str
    low: float
    high: float
    share: float  # the fraction of entities of this class

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ValueError(f"a speed class's name must be a string, not {self.name!r}")
        for field_name in ("low", "high", "share"):
            finite_number(f"speed class {self.name!r}: {field_name}", getattr(self, field_name))
        # Below MIN_SPEED a leg would take longer than a float can count (and speed × G/1000 could
        # round to 0); an entity that slow does not move: use WorldConfig(motion=False).
        if not MIN_SPEED <= self.low <= self.high <= MAX_SPEED:
            raise ValueError(f"speed class {self.name!r}: need {MIN_SPEED:g} <= low <= high <= {MAX_SPEED:g} "
                             f"cells/s, not {self.low}, {self.high}")
        if not 0 <= self.share <= 1:
            raise ValueError(f"speed class {self.name!r}: share must lie in [0, 1], not {self.share}")

    def scaled(self, factor: float) -> SpeedClass:
        """The same class with both speeds multiplied by ``factor`` (the sensitivity study's speed axis)."""
        return SpeedClass(self.name, self.low * factor, self.high * factor, self.share)


def _integer(what: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, not {value!r}")
    return value


#: The paper names the classes but gives no speeds or shares (§6). We read a
#: cell of the 1000 × 1000 grid as 1 km of a 1000 km theatre: an aircraft
#: flies 180-540 km/h, a ground vehicle drives 18-54 km/h, a person walks
#: 1.8-5.4 km/h; a third of the entities in each class.
SPEED_CLASSES: tuple[SpeedClass, ...] = (
    SpeedClass("high", 0.05, 0.15, 1 / 3),
    SpeedClass("medium", 0.005, 0.015, 1 / 3),
    SpeedClass("low", 0.0005, 0.0015, 1 / 3),
)


@dataclass(frozen=True)
class WorldConfig:
    """Every parameter of the application model; the defaults are §6's where it gives one."""

    grid: int = 1000  # G: the world is G × G cells
    initial: tuple[int, int] = (50, 150)  # N_x ~ U[low, high] (integers, inclusive)
    arrival_rate: float = 1 / 60  # λ, new entities per second per application
    lifetime_factor: float = 60.0  # mean lifetime = lifetime_factor · N_x seconds
    speed_classes: tuple[SpeedClass, ...] = SPEED_CLASSES
    pause: tuple[float, float] = (0.0, 60.0)  # random waypoint pause ~ U[low, high] s (unstated)
    motion: bool = True  # False: entities stay where they are born
    half: int = 1  # a CD is the (2·half + 1)² square around the entity: 3 × 3

    def __post_init__(self) -> None:
        """Every field checked, each with a one-line ValueError (issue 23: NaN and infinite values
        hung or crashed ``simulate``)."""
        if _integer("grid", self.grid) < 1:
            raise ValueError(f"grid must be at least 1, not {self.grid}")
        if not isinstance(self.initial, tuple) or len(self.initial) != 2:
            raise ValueError(f"initial must be a pair (low, high), not {self.initial!r}")
        lo, hi = (_integer("initial", v) for v in self.initial)
        if not 0 <= lo <= hi:
            raise ValueError(f"initial must be 0 <= low <= high, not {self.initial}")
        if not 0 <= finite_number("arrival_rate", self.arrival_rate) <= MAX_ARRIVAL_RATE:
            raise ValueError(f"arrival_rate must lie in [0, {MAX_ARRIVAL_RATE:g}], not {self.arrival_rate}")
        if not finite_number("lifetime_factor", self.lifetime_factor) > 0:
            raise ValueError(f"lifetime_factor must be > 0, not {self.lifetime_factor}")
        mean_life = self.lifetime_factor * max(hi, 1)
        if not (math.isfinite(mean_life) and 1.0 / mean_life > 0):
            raise ValueError(f"lifetime_factor {self.lifetime_factor} × {max(hi, 1)} entities overflows a float")
        if not isinstance(self.speed_classes, tuple) or not self.speed_classes or not all(
                isinstance(c, SpeedClass) for c in self.speed_classes):
            raise ValueError("speed_classes must be a non-empty tuple of SpeedClass")
        if abs(sum(c.share for c in self.speed_classes) - 1) > 1e-9:
            raise ValueError("the speed classes' shares must sum to 1")
        if not isinstance(self.pause, tuple) or len(self.pause) != 2:
            raise ValueError(f"pause must be a pair (low, high), not {self.pause!r}")
        p_lo, p_hi = (finite_number("pause", v) for v in self.pause)
        if not 0 <= p_lo <= p_hi:
            raise ValueError(f"pause must be 0 <= low <= high, not {self.pause}")
        if not isinstance(self.motion, bool):
            raise ValueError(f"motion must be True or False, not {self.motion!r}")
        if not 0 <= _integer("half", self.half) < self.grid:
            raise ValueError(f"half must lie in [0, grid), not {self.half}")


@dataclass
class App:
    """One publishing or subscribing application, at one network node."""

    kind: str  # "P" or "S"
    node: Any
    initial: int  # N_x
    measured: int = 0  # CD updates since the last rate measurement (read by AMSP)
    live: dict[int, tuple[int, int]] = field(default_factory=dict)  # entity id -> centre cell

    @property
    def key(self) -> tuple[str, Any]:
        return (self.kind, self.node)


#: ``emit(app, entity_id, cell or None)``: the entity's CD is now the square around ``cell``,
#: or None when the entity leaves the game.
Emit = Callable[[App, int, "tuple[int, int] | None"], None]


class World:
    """Entities of every application, as SimPy processes that call ``emit`` on every CD change."""

    def __init__(self, env: Any, config: WorldConfig, publishers: Iterable[Any], subscribers: Iterable[Any],
                 seed: int, emit: Emit, end: float, record_paths: bool = False) -> None:
        self.env = env
        self.config = config
        self.emit = emit
        self.end = end
        self.seed = seed
        self.rng = random.Random(f"amsp-world:{seed}")
        self.scale = config.grid / 1000.0
        self.next_id = 0
        self.births = 0
        self.deaths = 0
        self.moves = 0
        rng = self.rng
        self.apps: list[App] = [App("P", x, rng.randint(*config.initial)) for x in publishers]
        self.apps += [App("S", y, rng.randint(*config.initial)) for y in subscribers]
        self._spawned: dict[tuple[str, Any], int] = {}
        #: With ``record_paths``: per entity (application key, rank), its birth (time, x/G, y/G) and
        #: then every waypoint it heads for, in the unit square: the same at every grid size.
        self.paths: dict[tuple[tuple[str, Any], int], list[tuple[float, float, float]]] | None = (
            {} if record_paths else None)
        cumulative, total = [], 0.0
        for c in config.speed_classes:
            total += c.share
            cumulative.append(total)
        self._cumulative = cumulative

    def start(self) -> None:
        for app in self.apps:
            for _ in range(app.initial):
                self._spawn(app)
            if self.config.arrival_rate > 0:
                self.env.process(self._arrivals(app))

    # ------------------------------------------------------------------ entities
    def _spawn(self, app: App) -> None:
        g = self.config.grid
        eid = self.next_id
        self.next_id += 1
        rank = self._spawned.get(app.key, 0)
        self._spawned[app.key] = rank + 1
        rng = random.Random(f"amsp-entity:{self.seed}:{app.kind}:{app.node!r}:{rank}")
        u = rng.random()
        cls = next((c for c, edge in zip(self.config.speed_classes, self._cumulative, strict=True) if u < edge),
                   self.config.speed_classes[-1])
        x, y = rng.random() * g, rng.random() * g
        life = rng.expovariate(1.0 / (self.config.lifetime_factor * max(app.initial, 1)))
        trace = None
        if self.paths is not None:
            trace = self.paths[(app.key, rank)] = [(self.env.now, x / g, y / g)]
        self.env.process(self._entity(app, eid, x, y, cls, self.env.now + life, rng, trace))

    def _arrivals(self, app: App) -> Generator[Any, Any, None]:
        env, rate = self.env, self.config.arrival_rate
        arrivals = random.Random(f"amsp-arrivals:{self.seed}:{app.kind}:{app.node!r}")
        while True:
            gap = arrivals.expovariate(rate)
            if env.now + gap >= self.end:
                return
            yield env.timeout(gap)
            self._spawn(app)

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        top = self.config.grid - 1
        return (min(int(x), top), min(int(y), top))

    def _entity(self, app: App, eid: int, x: float, y: float, cls: SpeedClass, death: float,
                rng: random.Random, trace: list[tuple[float, float, float]] | None) -> Generator[Any, Any, None]:
        env, end, emit = self.env, self.end, self.emit
        g = self.config.grid
        cell = self._cell(x, y)
        self.births += 1
        app.live[eid] = cell
        emit(app, eid, cell)
        stop = min(death, end)
        if not self.config.motion:
            yield env.timeout(stop - env.now)
            if death < end:
                self._die(app, eid)
            return
        pause_lo, pause_hi = self.config.pause
        while True:
            # One leg of the random waypoint model.
            tx, ty = rng.random() * g, rng.random() * g
            speed = rng.uniform(cls.low, cls.high) * self.scale
            if trace is not None:
                trace.append((env.now, tx / g, ty / g))
            distance = math.hypot(tx - x, ty - y)
            t0 = env.now
            arrive = t0 + distance / speed
            if distance > 0:
                vx, vy = (tx - x) * speed / distance, (ty - y) * speed / distance
            else:
                vx = vy = 0.0
            cx, cy = cell
            while True:
                # The next cell boundary crossed on each axis, as an absolute time.
                nx = t0 + ((cx + 1 - x) / vx if vx > 0 else (cx - x) / vx if vx < 0 else math.inf)
                ny = t0 + ((cy + 1 - y) / vy if vy > 0 else (cy - y) / vy if vy < 0 else math.inf)
                t = min(nx, ny)
                if t >= arrive or t >= stop:
                    break
                if t > env.now:
                    yield env.timeout(t - env.now)
                if nx <= t:
                    cx += 1 if vx > 0 else -1
                if ny <= t:
                    cy += 1 if vy > 0 else -1
                cx, cy = min(max(cx, 0), g - 1), min(max(cy, 0), g - 1)
                if (cx, cy) != cell:
                    cell = (cx, cy)
                    self.moves += 1
                    app.live[eid] = cell
                    emit(app, eid, cell)
            if arrive >= stop:
                yield env.timeout(stop - env.now)
                break
            yield env.timeout(arrive - env.now)
            x, y = tx, ty
            landed = self._cell(x, y)
            if landed != cell:  # a crossing lost to rounding
                cell = landed
                self.moves += 1
                app.live[eid] = cell
                emit(app, eid, cell)
            rest = rng.uniform(pause_lo, pause_hi)
            if env.now + rest >= stop:
                yield env.timeout(stop - env.now)
                break
            yield env.timeout(rest)
        if death < end:
            self._die(app, eid)

    def _die(self, app: App, eid: int) -> None:
        self.deaths += 1
        del app.live[eid]
        self.emit(app, eid, None)
