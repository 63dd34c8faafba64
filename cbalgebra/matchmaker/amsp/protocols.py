"""Broadcast publication (BP), broadcast subscription (BS) and AMSP, one class each, on the shared engine.

Ge, Ji, Kurose & Towsley, "Matchmaker: Signaling for Dynamic Publish/Subscribe
Applications", §5 designs AMSP; §6 compares it with broadcast publication
(BP: every link a p-link) and broadcast subscription (BS: every link an
s-link). The engine they share (:class:`~cbalgebra.matchmaker.amsp.signalling.Signalling`:
transport, CD stores and propagation, matchmaking, MCDs) keeps each link's
marking; BP and BS never change it and send no COST_ANNOUNCE.

AMSP (§5.2-5.3): each application measures its CD update rate, smooths it
exponentially, and broadcasts it in a COST_ANNOUNCE when it changes
significantly (f_x down x's tree, g_y up towards every publisher y receives
from). Each node keeps the tables, computes C_i^(p) and C_i^(s) for its
outgoing links and runs the distributed top-down marking of Figure 9 with
hysteresis δ whenever they change or an upstream link's marking changes. (With
fixed rates and no motion the marking settles on ``tdm``'s when the upstream
relation is acyclic, as it is on shared trees and on every generated
instance; on a cycle of per-source links, Figure 9's "an upstream s-link
forces an s-link" keeps the whole cycle s-links once one of them is:
``Overlay.upstream_cycle``.) A change is a CHANGE_MARKING from u to v and
a CHANGE_MARKING_REPLY back, the first carrying u's PCDs when the link
becomes a p-link, the reply carrying v's SCDs when it becomes an s-link.
"""

from __future__ import annotations

from typing import Any

from cbalgebra.matchmaker.amsp.regions import Square
from cbalgebra.matchmaker.amsp.signalling import Signalling
from cbalgebra.matchmaker.amsp.transport import CAUSE_MARKING, K_CM, K_CMR, K_COST
from cbalgebra.matchmaker.costs import P_LINK, S_LINK

__all__ = ["AMSP", "BP", "BS", "ENGINES"]


class BP(Signalling):
    """Broadcast publication (§6): every link a p-link for good. Each PCD update floods its publisher's
    whole tree, and every receiver matches the PCDs it holds with its own SCDs, which never leave it."""

    def first_marking(self) -> str:
        return P_LINK


class BS(Signalling):
    """Broadcast subscription (§6): every link an s-link for good. Each SCD update climbs every link that
    carries data to its subscriber, and every publisher matches its own PCDs, which never leave it."""

    def first_marking(self) -> str:
        return S_LINK


class AMSP(Signalling):
    """The Active Matchmaker Signaling Protocol (§5.2-5.3): rate tables fed by COST_ANNOUNCEs, and each
    link's marking decided by its upstream node with Figure 9, changed by CHANGE_MARKING and its reply."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        nodes = self.ov.nodes
        # The announced rates each node has heard: f_x of the publishers above it, g_y of the subscribers below.
        self.f_table: dict[Any, dict[Any, float]] = {n: {} for n in nodes}
        self.g_table: dict[Any, dict[Any, float]] = {n: {} for n in nodes}
        self.g_seen: dict[Any, dict[Any, int]] = {n: {} for n in nodes}  # the newest announcement of each g_y

    def first_marking(self) -> str:
        return self.config.initial_marking

    # ------------------------------------------------------------------ AMSP: rates
    def announce(self, kind: str, node: Any, value: float, seq: int) -> None:
        """An application's COST_ANNOUNCE of its new rate estimate (f_x down its tree, g_y upwards)."""
        self._clock()
        self.cause = CAUSE_MARKING
        if kind == "P":
            self._on_cost_p(node, node, value)
        else:
            self._on_cost_s(node, node, value, seq)
        if self.instant:
            self.pump()

    def _on_cost_p(self, n: Any, x: Any, value: float) -> None:
        self.f_table[n][x] = value
        children = self.ov.children[x].get(n, ())
        for c in children:
            self._fig9(c)
        for c in children:
            self._send(K_COST, c, self._on_cost_p, (self.ov.tail[c], x, value))

    def _on_cost_s(self, n: Any, y: Any, value: float, seq: int) -> None:
        seen = self.g_seen[n]
        if seen.get(y, -1) >= seq:
            return  # this announcement already came by another downstream link
        seen[y] = seq
        self.g_table[n][y] = value
        ov = self.ov
        for c in ov.out_links[n]:
            if y in ov.subscribers_of[c]:
                self._fig9(c)
        for t in ov.in_links[n]:
            if y in ov.subscribers_of[t]:
                self._send(K_COST, t, self._on_cost_s, (ov.head[t], y, value, seq))

    def link_costs(self, i: int) -> tuple[float, float]:
        """(C_i^(p), C_i^(s)) as link i's upstream node estimates them (§5.2)."""
        u = self.ov.head[i]
        f, g = self.f_table[u], self.g_table[u]
        return (sum(f.get(x, 0.0) for x in self.ov.publishers_of[i]),
                sum(g.get(y, 0.0) for y in self.ov.subscribers_of[i]))

    # ------------------------------------------------------------------ AMSP: Figure 9
    def _fig9(self, i: int) -> None:
        """Figure 9 at link i's upstream node: an s-link below an s-link, else by the costs with hysteresis δ."""
        mark_v = self.mark_v
        if any(mark_v[j] == S_LINK for j in self.ov.upstream[i]):
            new = S_LINK
        else:
            cp, cs = self.link_costs(i)
            delta = self.config.delta
            if cs - cp > delta:
                new = P_LINK
            elif cp - cs > delta:
                new = S_LINK
            else:
                new = self.mark_u[i]
        if new != self.mark_u[i]:
            self._change_marking(i, new)

    def _change_marking(self, i: int, new: str) -> None:
        ov = self.ov
        u = ov.head[i]
        self.marking_changes += 1
        self.mark_u[i] = new
        for x in ov.publishers_of[i]:
            self._update_matchable(x, u)
        self.epoch_u[i] += 1
        epoch = self.epoch_u[i]
        if new == S_LINK:
            self._send(K_CM, i, self._on_cm, (i, new, epoch, ()))
            return
        payload: list[tuple[Any, int, int, Square | None]] = []
        for x in ov.publishers_of[i]:
            if u == x:
                have = self.local_p[x]
            else:
                group = self.pstore[ov.parent[x][u]].get(x)
                have = group if group else {}
            payload.extend((x, cd, ver, sq) for cd, (ver, sq) in have.items())
        self._send(K_CM, i, self._on_cm, (i, new, epoch, tuple(payload)))
        dropped = self.sstore[i]
        self.sstore[i] = {}
        for cd in dropped:
            self._scd_changed(u, cd)

    def _on_cm(self, i: int, new: str, epoch: int, payload: tuple) -> None:
        ov = self.ov
        v = ov.tail[i]
        self.mark_v[i] = new
        self.epoch_v[i] = epoch
        self._update_s_matchable(v)
        if new == S_LINK:
            # Every link below an s-link is an s-link: v's links fed by i turn first,
            # so the PCDs dropped here are not forwarded further.
            for c in ov.downstream[i]:
                self._fig9(c)
            dropped = self.pstore[i]
            self.pstore[i] = {}
            for x, group in dropped.items():
                for cd in group:
                    self._match_p(v, x, cd)
            reply = []
            candidates: set[int] = set(self.local_s[v]) if v in self.local_s else set()
            for c in ov.out_links[v]:
                candidates.update(self.sstore[c])
            below = ov.subscribers_of[i]
            forwarded = self.sfwd[i] = {}
            for cd in sorted(candidates):
                if self.s_owner[cd] not in below:
                    continue
                best = self._scd_available(v, cd)
                if best is not None and best[1] is not None:
                    reply.append((cd, best[0], best[1]))
                    forwarded[cd] = best[0]
            self._send(K_CMR, i, self._on_cmr, (i, new, epoch, tuple(reply)))
            return
        self.sfwd[i] = {}
        store = self.pstore[i] = {}
        for x, cd, ver, sq in payload:
            store.setdefault(x, {})[cd] = (ver, sq)
        for x, cd, ver, sq in payload:
            self._pcd_changed(v, x, cd, (ver, sq))
        for c in ov.downstream[i]:
            self._fig9(c)
        self._send(K_CMR, i, self._on_cmr, (i, new, epoch, ()))

    def _on_cmr(self, i: int, new: str, epoch: int, payload: tuple) -> None:
        if epoch != self.epoch_u[i] or new != self.mark_u[i]:
            return  # u has changed the marking again since
        if new == S_LINK:
            store = self.sstore[i]
            u = self.ov.head[i]
            for cd, ver, sq in payload:
                store[cd] = (ver, sq)
            for cd, _ver, _sq in payload:
                self._scd_changed(u, cd)


#: The engine of each protocol, by its name in ``ProtocolConfig.protocol``.
ENGINES: dict[str, type[Signalling]] = {"BP": BP, "BS": BS, "AMSP": AMSP}
