"""The event loop the signalling protocols run on: messages between the nodes of the overlay, each
counted by kind, by cause and by second (Ge, Ji, Kurose & Towsley, "Matchmaker", §6.1 counts them so).

Every message also carries its cause: ``"cd"`` when it descends from an
application's CD change, ``"marking"`` when it descends from a COST_ANNOUNCE
(the link marking and what a marking change re-sends). ``sent_by_cause``
counts them (the study's breakdown of AMSP's messages).

Transport: with ``hop_delay`` 0, a message is delivered after every message
sent before it (a FIFO queue drained within the same simulated instant: the
limit of equal, vanishing per-hop delays); otherwise each hop takes its
link's delay as a SimPy timeout. Links are FIFO either way.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["CAUSES", "KINDS", "MARKING_KINDS", "Transport"]

#: Message types, as §6.1 counts them (a CD_UPDATE by the CD it carries).
KINDS = ("CD_UPDATE/PCD", "CD_UPDATE/SCD", "CD_UPDATE/MCD", "COST_ANNOUNCE", "CHANGE_MARKING",
         "CHANGE_MARKING_REPLY")
K_PCD, K_SCD, K_MCD, K_COST, K_CM, K_CMR = range(6)
#: The messages spent on link marking (the paper's "3 %").
MARKING_KINDS = ("COST_ANNOUNCE", "CHANGE_MARKING", "CHANGE_MARKING_REPLY")
#: What a message descends from: an application's CD change, or AMSP's rate announcements and marking.
CAUSES = ("cd", "marking")
CAUSE_CD, CAUSE_MARKING = range(2)


class Transport:
    """Delivers messages (a handler and its arguments) hop by hop, FIFO, and counts them.

    ``env`` is the SimPy environment, ``delay[i]`` link i's delay in seconds (used unless
    ``instant``), ``end`` the simulated second after which sends are no longer binned by second.
    """

    def __init__(self, env: Any, delay: Sequence[float], end: float, instant: bool) -> None:
        self.env = env
        self.delay = delay
        self.end = end
        self.instant = instant
        self.sent = [0] * len(KINDS)
        self.received = [0] * len(KINDS)
        self.cause = CAUSE_CD  # the cause of what is being handled now; the messages it sends inherit it
        self.sent_by_cause = [[0] * len(KINDS) for _ in CAUSES]
        self.series = [[0] * (int(end) + 1) for _ in KINDS]  # messages sent per second, by kind
        #: Per second, the messages of each kind that descend from AMSP's announcements and marking.
        self.marking_series = [[0] * (int(end) + 1) for _ in KINDS]
        self.queue: deque[tuple[int, int, Callable[..., None], tuple]] = deque()
        self.bin = 0  # the second of the series that sends count in (-1: after the end)

    def _send(self, kind: int, link: int, handler: Callable[..., None], args: tuple) -> None:
        self.sent[kind] += 1
        cause = self.cause
        self.sent_by_cause[cause][kind] += 1
        if self.bin >= 0:
            self.series[kind][self.bin] += 1
            if cause == CAUSE_MARKING:
                self.marking_series[kind][self.bin] += 1
        if self.instant:
            self.queue.append((kind, cause, handler, args))
            return
        event = self.env.timeout(self.delay[link])
        event.callbacks.append(lambda _event: self._deliver(kind, cause, handler, args))

    def _clock(self) -> None:
        """Read the simulated time once per entry point: every send until the next one shares it."""
        now = self.env.now
        self.bin = int(now) if now < self.end else -1

    def _deliver(self, kind: int, cause: int, handler: Callable[..., None], args: tuple) -> None:
        self._clock()
        self.cause = cause
        self.received[kind] += 1
        handler(*args)

    def pump(self) -> None:
        """Deliver every queued message (instant transport), and those they cause, in FIFO order."""
        queue, received = self.queue, self.received
        while queue:
            kind, cause, handler, args = queue.popleft()
            self.cause = cause
            received[kind] += 1
            handler(*args)

    def in_flight(self) -> int:
        return sum(self.sent) - sum(self.received)

    def _count(self, kind: int, hops: int) -> None:
        """``hops`` messages of ``kind`` sent and received within this instant (a wave)."""
        self.sent[kind] += hops
        self.received[kind] += hops
        self.sent_by_cause[self.cause][kind] += hops
        if self.bin >= 0:
            self.series[kind][self.bin] += hops
            if self.cause == CAUSE_MARKING:
                self.marking_series[kind][self.bin] += hops
