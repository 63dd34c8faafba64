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

The world draws from its own random stream, so the three signalling
protocols, run with the same seed, see the same entities make the same moves.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SPEED_CLASSES", "App", "SpeedClass", "World", "WorldConfig"]


@dataclass(frozen=True)
class SpeedClass:
    """Speeds are drawn uniformly from [low, high] cells/s of the 1000 × 1000 grid, for each leg."""

    name: str
    low: float
    high: float
    share: float  # the fraction of entities of this class


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
        if self.grid < 1:
            raise ValueError(f"grid must be at least 1, not {self.grid}")
        lo, hi = self.initial
        if not 0 <= lo <= hi:
            raise ValueError(f"initial must be 0 <= low <= high, not {self.initial}")
        if self.arrival_rate < 0 or self.lifetime_factor <= 0:
            raise ValueError("arrival_rate must be >= 0 and lifetime_factor > 0")
        if not self.speed_classes or abs(sum(c.share for c in self.speed_classes) - 1) > 1e-9:
            raise ValueError("the speed classes' shares must sum to 1")
        for c in self.speed_classes:
            if not 0 < c.low <= c.high:
                raise ValueError(f"speed class {c.name}: need 0 < low <= high")


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
                 seed: int, emit: Emit, end: float) -> None:
        self.env = env
        self.config = config
        self.emit = emit
        self.end = end
        self.rng = random.Random(f"amsp-world:{seed}")
        self.scale = config.grid / 1000.0
        self.next_id = 0
        self.births = 0
        self.deaths = 0
        self.moves = 0
        rng = self.rng
        self.apps: list[App] = [App("P", x, rng.randint(*config.initial)) for x in publishers]
        self.apps += [App("S", y, rng.randint(*config.initial)) for y in subscribers]
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
        rng, g = self.rng, self.config.grid
        eid = self.next_id
        self.next_id += 1
        u = rng.random()
        cls = next((c for c, edge in zip(self.config.speed_classes, self._cumulative, strict=True) if u < edge),
                   self.config.speed_classes[-1])
        x, y = rng.random() * g, rng.random() * g
        life = rng.expovariate(1.0 / (self.config.lifetime_factor * max(app.initial, 1)))
        self.env.process(self._entity(app, eid, x, y, cls, self.env.now + life))

    def _arrivals(self, app: App) -> Generator[Any, Any, None]:
        env, rate = self.env, self.config.arrival_rate
        while True:
            gap = self.rng.expovariate(rate)
            if env.now + gap >= self.end:
                return
            yield env.timeout(gap)
            self._spawn(app)

    def _cell(self, x: float, y: float) -> tuple[int, int]:
        top = self.config.grid - 1
        return (min(int(x), top), min(int(y), top))

    def _entity(self, app: App, eid: int, x: float, y: float, cls: SpeedClass,
                death: float) -> Generator[Any, Any, None]:
        env, rng, end, emit = self.env, self.rng, self.end, self.emit
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
