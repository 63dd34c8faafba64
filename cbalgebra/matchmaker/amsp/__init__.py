"""AMSP, the Active Matchmaker Signaling Protocol, simulated against broadcast publication and
broadcast subscription (Ge, Ji, Kurose & Towsley, "Matchmaker: Signaling for Dynamic
Publish/Subscribe Applications", §5-6).

- :mod:`.world`: the grid world of §6 (entities, arrivals, lifetimes, random waypoint motion);
- :mod:`.regions`: CDs as cbalgebra filters and the MCD of a PCD and an SCD;
- :mod:`.overlay`: the multicast trees (:mod:`cbalgebra.matchmaker.trees`) with each link's delay;
- :mod:`.config`: the protocol's parameters;
- :mod:`.transport`: the event loop: messages hop by hop, FIFO, every one counted by type and cause;
- :mod:`.signalling`: the engine the three protocols share (CD stores and propagation, matchmaking, MCDs);
- :mod:`.protocols`: BP, BS and AMSP, one class each;
- :mod:`.simulate`: one SimPy run; :mod:`.oracle`: the MCDs a run should have installed.

SimPy is imported only when a run starts.
"""

from __future__ import annotations

from cbalgebra.matchmaker.amsp.config import MCD_UPDATES, PROTOCOLS, ProtocolConfig
from cbalgebra.matchmaker.amsp.overlay import Overlay
from cbalgebra.matchmaker.amsp.protocols import AMSP, BP, BS, ENGINES
from cbalgebra.matchmaker.amsp.signalling import Signalling
from cbalgebra.matchmaker.amsp.transport import CAUSES, KINDS, MARKING_KINDS
from cbalgebra.matchmaker.amsp.regions import MatchCache, Square, SquareBook, intersection, square_filter
from cbalgebra.matchmaker.amsp.simulate import RunResult, simulate
from cbalgebra.matchmaker.amsp.world import SPEED_CLASSES, SpeedClass, World, WorldConfig

__all__ = [
    "AMSP",
    "BP",
    "BS",
    "CAUSES",
    "ENGINES",
    "KINDS",
    "MARKING_KINDS",
    "MCD_UPDATES",
    "PROTOCOLS",
    "SPEED_CLASSES",
    "MatchCache",
    "Overlay",
    "ProtocolConfig",
    "RunResult",
    "Signalling",
    "SpeedClass",
    "Square",
    "SquareBook",
    "World",
    "WorldConfig",
    "intersection",
    "simulate",
    "square_filter",
]
