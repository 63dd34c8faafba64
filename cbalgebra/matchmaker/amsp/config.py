"""The signalling protocol's parameters (Ge, Ji, Kurose & Towsley, "Matchmaker", §5.2-5.4 and §6),
and the number check both configurations (this one and :class:`~cbalgebra.matchmaker.amsp.WorldConfig`) use."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cbalgebra.matchmaker.costs import P_LINK, S_LINK

__all__ = ["MCD_UPDATES", "PROTOCOLS", "ProtocolConfig", "finite_number"]

#: Broadcast publication, broadcast subscription, and the Active Matchmaker Signaling Protocol (§6).
PROTOCOLS = ("BP", "BS", "AMSP")
#: ``ProtocolConfig.mcd_update``: re-signal a moved or changed MCD over the whole path, or only where it changes.
MCD_UPDATES = ("path", "segment")


def finite_number(what: str, value: object) -> float:
    """``value`` as a float, or a one-line ValueError: not a number, NaN or infinite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a number, not {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{what} must be finite, not {value}")
    return float(value)


@dataclass(frozen=True)
class ProtocolConfig:
    """The protocol and AMSP's parameters (§5.2-5.3 leave all their values unstated)."""

    protocol: str = "AMSP"
    interval: float = 10.0  # rate measurement interval (s)
    jitter: float = 1.0  # plus U[0, jitter] s, against synchronised measurements
    alpha: float = 0.25  # exponential smoothing weight of the newest measurement
    significance: float = 0.1  # announce when |estimate − announced| > significance · announced
    floor: float = 0.01  # ... and > floor (CD updates/s), so that rates near zero stay quiet
    delta: float = 0.5  # Figure 9's hysteresis δ (CD updates/s)
    initial_marking: str = P_LINK  # AMSP's links start as p-links (§5.3's example)
    #: Tests: fixed rates {("P", x): f_x, ("S", y): g_y} announced once at time 0, no measurement.
    static_rates: Mapping[tuple[str, Any], float] | None = None
    mcd_update: str = "path"  # one of MCD_UPDATES (see :mod:`.signalling`); §5.4 leaves it open

    def __post_init__(self) -> None:
        """Every field checked, each with a one-line ValueError (issue 23: a NaN interval hung ``simulate``)."""
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {self.protocol!r} (one of {', '.join(PROTOCOLS)})")
        if self.initial_marking not in (P_LINK, S_LINK):
            raise ValueError(f"initial_marking must be 'p' or 's', not {self.initial_marking!r}")
        if self.mcd_update not in MCD_UPDATES:
            raise ValueError(f"mcd_update must be one of {', '.join(MCD_UPDATES)}, not {self.mcd_update!r}")
        # A measurement interval below a millisecond would spin the clock without advancing it.
        bounds = (("interval", 1e-3), ("jitter", 0.0), ("significance", 0.0), ("floor", 0.0), ("delta", 0.0))
        for name, low in bounds:
            value = finite_number(name, getattr(self, name))
            if value < low:
                raise ValueError(f"{name} must be >= {low:g}, not {value}")
        if not 0 < finite_number("alpha", self.alpha) <= 1:
            raise ValueError(f"alpha must lie in (0, 1], not {self.alpha}")
        if self.static_rates is not None:
            if not isinstance(self.static_rates, Mapping):
                raise ValueError(f"static_rates must be a mapping, not {type(self.static_rates).__name__}")
            for key, rate in self.static_rates.items():
                if finite_number(f"static rate of {key!r}", rate) < 0:
                    raise ValueError(f"static rate of {key!r} must be >= 0, not {rate}")

