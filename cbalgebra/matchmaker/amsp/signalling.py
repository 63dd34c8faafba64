"""The per-hop signalling engine BP, BS and AMSP share: CDs and MCDs between active nodes.

Ge, Ji, Kurose & Towsley, "Matchmaker: Signaling for Dynamic Publish/Subscribe
Applications", §5.4 places the state and §6 counts the messages; the three
protocols (:mod:`.protocols`) differ only in how links are marked: BP and BS
never change their marking, AMSP runs Figure 9. Everything below holds for
all three.

State, as §5.4 places it:

- each directed link t = (u, v) of the multicast trees has a marking, kept at
  both ends (``mark_u`` at the upstream node u, which decides it; ``mark_v``
  at the downstream node v) with an epoch counting u's changes;
- PCDs that crossed t are kept at v (``pstore[t]``), SCDs that crossed t at
  u (``sstore[t]``); the publisher's and the subscriber's own CDs are local;
- a CD carries its entity's id and a version (hard state: a newer version
  replaces the old, a version with no square withdraws it).

Propagation: a PCD of publisher x crosses t iff t is in x's tree and a
p-link; an SCD of subscriber y crosses t iff y receives data sent over t and
t is an s-link. A node forwards each SCD once per link, however many of its
downstream links brought it.

Matchmaking: for publisher x and receiver y, the node m of x's tree where
x's PCDs (arriving over p-links) meet y's SCDs (arriving over the s-link
towards y) computes the MCD of every overlapping PCD × SCD pair with the
cbalgebra algebra, installs it, and sends it hop by hop up to x and down to
y (CD_UPDATE carrying an MCD). An MCD's id is (PCD id, SCD id, matchmaker
node): when the meeting point moves, the old matchmaker withdraws its MCDs
and the new one installs its own.

MCD update policy (``ProtocolConfig.mcd_update``; §5.4 says only that the
matchmaker sends the MCD "along the multicast data dissemination path between
the source publisher and the requesting subscriber", not what happens when
the meeting point moves):

- ``"path"`` (the default): an MCD's id names its matchmaker, so when a marking
  change moves the meeting point of a pair, the old matchmaker withdraws the
  MCD over the whole path and the new one installs it over the whole path;
- ``"segment"``: an MCD's id is (PCD id, SCD id) alone. A matchmaker that loses
  a pair because of a marking change (not because a CD changed) hands it over
  silently, and an MCD update travels only as far as it changes something: a
  node that receives the MCD it already holds does not forward it, and a new
  matchmaker that already holds the MCD sends nothing. Only the segment whose
  installed MCD changes is re-signalled.

Messages travel and are counted by the event loop of :mod:`.transport`.
"""

from __future__ import annotations

from typing import Any

from cbalgebra.matchmaker.amsp.config import ProtocolConfig
from cbalgebra.matchmaker.amsp.overlay import Overlay
from cbalgebra.matchmaker.amsp.regions import MatchCache, Square, SquareBook
from cbalgebra.matchmaker.amsp.transport import CAUSE_CD, CAUSE_MARKING, K_MCD, K_PCD, K_SCD, Transport
from cbalgebra.matchmaker.costs import P_LINK, S_LINK
from cbalgebra.values import Filter

__all__ = ["Signalling"]

#: Bucket side (cells) of the spatial index that proposes candidate pairs; the algebra decides them.
BUCKET = 4


Entry = tuple[int, "Square | None"]  # (version, square); square None: withdrawn


class Signalling(Transport):
    """The active matchmakers of every node, and the links between them; each link keeps the marking
    :meth:`first_marking` gives it unless a subclass changes it (AMSP)."""

    def __init__(self, env: Any, overlay: Overlay, config: ProtocolConfig, book: SquareBook,
                 end: float, instant: bool = True, cache: MatchCache | None = None, trace: bool = False,
                 waves: bool = True) -> None:
        super().__init__(env, overlay.delay, end, instant)
        self.ov = overlay
        self.config = config
        self.book = book
        self.waves = waves and instant  # benchmarks/amsp.py compares against the queue for every hop
        self.cache = cache or MatchCache()
        n_links = len(overlay.links)
        initial = self.first_marking()
        self.mark_u = [initial] * n_links
        self.mark_v = [initial] * n_links
        self.epoch_u = [0] * n_links
        self.epoch_v = [0] * n_links
        self.pstore: list[dict[Any, dict[int, Entry]]] = [{} for _ in range(n_links)]
        self.sstore: list[dict[int, Entry]] = [{} for _ in range(n_links)]
        self.sfwd: list[dict[int, int]] = [{} for _ in range(n_links)]
        self.local_p: dict[Any, dict[int, Entry]] = {x: {} for x in overlay.publishers}
        self.local_s: dict[Any, dict[int, Entry]] = {y: {} for y in overlay.subscribers}
        self.pairs: dict[Any, dict[tuple[int, int], Filter]] = {n: {} for n in overlay.nodes}
        self.by_p: dict[Any, dict[int, set[int]]] = {n: {} for n in overlay.nodes}
        self.by_s: dict[Any, dict[int, set[int]]] = {n: {} for n in overlay.nodes}
        self.installed: dict[Any, dict[tuple[int, int, Any], Filter]] = {n: {} for n in overlay.nodes}
        self.p_owner: dict[int, Any] = {}
        self.s_owner: dict[int, Any] = {}
        self.version: dict[int, int] = {}
        # The spatial index of every live CD's current square, by kind: it only
        # proposes candidate pairs (a conservative superset); each node decides
        # a pair from its own stores with the algebra.
        self.p_index: dict[tuple[int, int], set[int]] = {}
        self.s_index: dict[tuple[int, int], set[int]] = {}
        self.p_square: dict[int, Square] = {}
        self.s_square: dict[int, Square] = {}
        self.marking_changes = 0  # links whose marking their upstream node changed (AMSP's Figure 9)
        self.segment = config.mcd_update == "segment"
        self.cd_events = 0
        self.changes_by_app: dict[tuple[str, Any], int] = {}  # CD changes per application
        #: With ``trace``: every CD's successive cells (None: withdrawn), for the checks.
        self.cell_trace: dict[int, list[tuple[int, int] | None]] | None = {} if trace else None
        self._near_keys: dict[Square, tuple[tuple[int, int], ...]] = {}
        # matchable[x][n]: n may be where x's PCDs meet SCDs (a receiver of x, or an s-link below it in T_x).
        self.matchable: dict[Any, dict[Any, bool]] = {x: {} for x in overlay.publishers}
        for x in overlay.publishers:
            for n in {x} | set(overlay.parent[x]):
                self._update_matchable(x, n)
        # s_matchable[n]: n may hold some publisher's PCDs (it is a publisher, or a p-link enters it).
        self.s_matchable: dict[Any, bool] = {}
        for n in overlay.nodes:
            self._update_s_matchable(n)

    def first_marking(self) -> str:
        """The marking every link starts with: ``P_LINK`` or ``S_LINK``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ sources
    def cd_changed(self, kind: str, node: Any, cd: int, cell: tuple[int, int] | None) -> None:
        """An application's entity ``cd`` now describes the square around ``cell`` (None: withdrawn)."""
        self.cd_events += 1
        self.cause = CAUSE_CD
        key = (kind, node)
        self.changes_by_app[key] = self.changes_by_app.get(key, 0) + 1
        if self.cell_trace is not None:
            self.cell_trace.setdefault(cd, []).append(cell)
        self._clock()
        ver = self.version.get(cd, -1) + 1
        self.version[cd] = ver
        sq = self.book.at(*cell) if cell is not None else None
        if kind == "P":
            self.p_owner[cd] = node
            self._reindex(self.p_index, self.p_square, cd, sq)
            store = self.local_p[node]
            if sq is None:
                store.pop(cd, None)
            else:
                store[cd] = (ver, sq)
            self._pcd_changed(node, node, cd, (ver, sq))
        else:
            self.s_owner[cd] = node
            self._reindex(self.s_index, self.s_square, cd, sq)
            self.local_s[node][cd] = (ver, sq)
            self._scd_changed(node, cd)
        if self.instant:
            self.pump()

    @staticmethod
    def _reindex(index: dict, where: dict, cd: int, sq: Square | None) -> None:
        old = where.pop(cd, None)
        if old is not None:
            bucket = index[(old.cx // BUCKET, old.cy // BUCKET)]
            bucket.discard(cd)
        if sq is not None:
            where[cd] = sq
            index.setdefault((sq.cx // BUCKET, sq.cy // BUCKET), set()).add(cd)

    def _near(self, index: dict, sq: Square) -> list[int]:
        """CDs whose square may overlap sq: centres within 2·half cells, bucket-rounded outwards."""
        keys = self._near_keys.get(sq)
        if keys is None:
            reach = 2 * self.book.half
            keys = self._near_keys[sq] = tuple(
                (bx, by)
                for bx in range((sq.cx - reach) // BUCKET, (sq.cx + reach) // BUCKET + 1)
                for by in range((sq.cy - reach) // BUCKET, (sq.cy + reach) // BUCKET + 1))
        found: list[int] = []
        for key in keys:
            bucket = index.get(key)
            if bucket:
                found.extend(bucket)
        return found

    # ------------------------------------------------------------------ views
    def _pcd_view(self, n: Any, x: Any, cd: int) -> Entry | None:
        if n == x:
            return self.local_p[x].get(cd)
        t = self.ov.parent[x].get(n)
        if t is None:
            return None
        group = self.pstore[t].get(x)
        return group.get(cd) if group else None

    def _scd_view(self, n: Any, x: Any, y: Any, cd: int) -> Entry | None:
        """y's SCD cd as node n sees it on the way from y in x's tree (None if it has not arrived)."""
        if y == n:
            return self.local_s[n].get(cd)
        t = self.ov.toward[x].get(n, {}).get(y)
        if t is None:
            return None
        return self.sstore[t].get(cd)

    def _scd_available(self, n: Any, cd: int) -> Entry | None:
        """The newest version of SCD cd that any source of node n holds (square None: withdrawn)."""
        y = self.s_owner[cd]
        best = self.local_s[n].get(cd) if y == n else None
        sstore = self.sstore
        for c in self.ov.down_to[y].get(n, ()):
            e = sstore[c].get(cd)
            if e is not None and (best is None or e[0] > best[0]):
                best = e
        return best

    def _update_s_matchable(self, n: Any) -> None:
        mark = self.mark_v
        self.s_matchable[n] = n in self.local_p or any(mark[j] == P_LINK for j in self.ov.in_links[n])

    def _update_matchable(self, x: Any, n: Any) -> None:
        mark = self.mark_u
        self.matchable[x][n] = n in self.ov.receivers[x] or any(
            mark[c] == S_LINK for c in self.ov.children[x].get(n, ()))

    # ------------------------------------------------------------------ matchmaking
    def _pair_region(self, n: Any, x: Any, p: int, s: int) -> Filter | None:
        pv = self._pcd_view(n, x, p)
        if pv is None or pv[1] is None:
            return None
        sv = self._scd_view(n, x, self.s_owner[s], s)
        if sv is None or sv[1] is None:
            return None
        return self.cache.mcd(pv[1], sv[1])

    def _set_pair(self, n: Any, p: int, s: int, x: Any, region: Filter | None) -> None:
        pairs = self.pairs[n]
        key = (p, s)
        old = pairs.get(key)
        if old == region:
            return
        if region is None:
            del pairs[key]
            self.by_p[n][p].discard(s)
            self.by_s[n][s].discard(p)
        else:
            pairs[key] = region
            if old is None:
                self.by_p[n].setdefault(p, set()).add(s)
                self.by_s[n].setdefault(s, set()).add(p)
        if not self.segment:
            self._send_mcd(n, x, self.s_owner[s], (p, s, n), region)
        elif region is not None or self.cause != CAUSE_MARKING:
            # A pair lost to a marking change lives on at the new meeting point: hand it over silently.
            self._send_mcd(n, x, self.s_owner[s], (p, s, None), region)

    def _match_p(self, n: Any, x: Any, p: int) -> None:
        candidates = set(self.by_p[n].get(p, ()))
        view = self._pcd_view(n, x, p)
        if view is not None and view[1] is not None and self.matchable[x].get(n, False):
            candidates.update(self._near(self.s_index, view[1]))
        for s in candidates:
            self._set_pair(n, p, s, x, self._pair_region(n, x, p, s))

    def _match_s(self, n: Any, s: int) -> None:
        candidates = set(self.by_s[n].get(s, ()))
        squares = set()
        if self.s_owner[s] == n:
            e = self.local_s[n].get(s)
            if e is not None and e[1] is not None:
                squares.add(e[1])
        for c in self.ov.out_links[n]:
            e = self.sstore[c].get(s)
            if e is not None and e[1] is not None:
                squares.add(e[1])
        for sq in squares:
            candidates.update(self._near(self.p_index, sq))
        p_owner = self.p_owner
        for p in candidates:
            x = p_owner[p]
            self._set_pair(n, p, s, x, self._pair_region(n, x, p, s))

    def _send_mcd(self, n: Any, x: Any, y: Any, key: tuple[int, int, Any], region: Filter | None) -> None:
        if self.segment and self.installed[n].get(key) == region:
            return  # the path holds this MCD already
        self._install(n, key, region)
        if n != x:
            t = self.ov.parent[x][n]
            self._send(K_MCD, t, self._on_mcd, (self.ov.head[t], x, y, key, region, True))
        if n != y:
            t = self.ov.toward[x][n][y]
            self._send(K_MCD, t, self._on_mcd, (self.ov.tail[t], x, y, key, region, False))

    def _install(self, n: Any, key: tuple[int, int, Any], region: Filter | None) -> None:
        if region is None:
            self.installed[n].pop(key, None)
        else:
            self.installed[n][key] = region

    def _on_mcd(self, n: Any, x: Any, y: Any, key: tuple[int, int, Any], region: Filter | None, up: bool) -> None:
        if self.segment and self.installed[n].get(key) == region:
            return  # the rest of the path holds it already
        self._install(n, key, region)
        if up and n != x:
            t = self.ov.parent[x][n]
            self._send(K_MCD, t, self._on_mcd, (self.ov.head[t], x, y, key, region, True))
        elif not up and n != y:
            t = self.ov.toward[x][n][y]
            self._send(K_MCD, t, self._on_mcd, (self.ov.tail[t], x, y, key, region, False))

    # ------------------------------------------------------------------ PCDs
    def _pcd_changed(self, n: Any, x: Any, cd: int, update: Entry | None) -> None:
        """PCD cd of x changed at n; ``update`` (version, square) is forwarded on n's p-links of x's tree.

        With instant transport, the update crosses settled links as a wave, hop by hop in
        depth-first order without the message queue: each hop is still one message sent and
        received, and the receiving node does exactly what ``_on_pcd`` does. (Nothing else
        queued on such a link can be overtaken in a way that matters: versions order PCD
        updates, and a pending CHANGE_MARKING makes the link unsettled.)
        """
        if cd in self.by_p[n] or self.matchable[x].get(n, False):
            self._match_p(n, x, cd)
        if update is None:
            return
        children_of = self.ov.children[x]
        if n not in children_of:
            return
        ver, sq = update
        mark_u, mark_v, epoch_u, epoch_v = self.mark_u, self.mark_v, self.epoch_u, self.epoch_v
        tail, by_p, matchable = self.ov.tail, self.by_p, self.matchable[x]
        wave = self.waves
        crossed = 0
        stack = [n]
        while stack:
            u = stack.pop()
            for c in children_of.get(u, ()):
                if mark_u[c] != P_LINK:
                    continue
                if not (wave and epoch_u[c] == epoch_v[c] and mark_v[c] == P_LINK):
                    self._send(K_PCD, c, self._on_pcd, (c, x, cd, ver, sq))
                    continue
                crossed += 1
                if not self._store_pcd(c, x, cd, update):
                    continue
                v = tail[c]
                if cd in by_p[v] or matchable.get(v, False):
                    self._match_p(v, x, cd)
                stack.append(v)
        if crossed:
            self._count(K_PCD, crossed)

    def _store_pcd(self, t: int, x: Any, cd: int, update: Entry) -> bool:
        """Apply a PCD update of x's at t's downstream node; whether it was newer than what t held."""
        store = self.pstore[t]
        group = store.get(x)
        if group is None:
            group = store[x] = {}
        old = group.get(cd)
        if old is not None and old[0] >= update[0]:
            return False
        if update[1] is None:
            group.pop(cd, None)
        else:
            group[cd] = update
        return True

    def _on_pcd(self, t: int, x: Any, cd: int, ver: int, sq: Square | None) -> None:
        if self.mark_v[t] != P_LINK:  # pragma: no cover - links are FIFO: CHANGE_MARKING comes after
            return
        if self._store_pcd(t, x, cd, (ver, sq)):
            self._pcd_changed(self.ov.tail[t], x, cd, (ver, sq))

    # ------------------------------------------------------------------ SCDs
    def _scd_changed(self, n: Any, cd: int) -> None:
        """SCD cd changed at n: rematch it, and bring each s-link above n up to date.

        As for PCDs, with instant transport the update climbs settled links as a wave.
        """
        y = self.s_owner[cd]
        ov, mark_v, mark_u, epoch_u, epoch_v = self.ov, self.mark_v, self.mark_u, self.epoch_u, self.epoch_v
        sfwd, by_s, s_matchable = self.sfwd, self.by_s, self.s_matchable
        wave = self.waves
        up_from = ov.up_from[y]
        crossed = 0
        stack = [n]
        while stack:
            v = stack.pop()
            if cd in by_s[v] or s_matchable[v]:
                self._match_s(v, cd)
            best = self._scd_available(v, cd)
            for t in up_from.get(v, ()):
                if mark_v[t] != S_LINK:
                    continue
                sent = sfwd[t].get(cd)
                if best is None:
                    if sent is None:
                        continue
                    del sfwd[t][cd]
                    message: tuple = (t, epoch_v[t], cd, sent, None, True)
                elif sent is None or best[0] > sent:
                    sfwd[t][cd] = best[0]
                    message = (t, epoch_v[t], cd, best[0], best[1], False)
                else:
                    continue
                if not (wave and epoch_u[t] == epoch_v[t] and mark_u[t] == S_LINK):
                    self._send(K_SCD, t, self._on_scd, message)
                    continue
                crossed += 1
                if self._store_scd(t, cd, message[3], message[4], message[5]):
                    stack.append(ov.head[t])
        if crossed:
            self._count(K_SCD, crossed)

    def _store_scd(self, t: int, cd: int, ver: int, sq: Square | None, drop: bool) -> bool:
        """Apply an SCD message at t's upstream node; whether its store changed."""
        store = self.sstore[t]
        old = store.get(cd)
        if drop:
            # t no longer carries this version of cd (the CD itself lives on).
            if old is None or old[0] > ver:
                return False
            del store[cd]
            return True
        if old is not None and old[0] >= ver:
            return False
        store[cd] = (ver, sq)
        return True

    def _on_scd(self, t: int, epoch: int, cd: int, ver: int, sq: Square | None, drop: bool) -> None:
        """An SCD update over t; ``drop``: t stops carrying cd's version ``ver``."""
        if self.mark_u[t] != S_LINK or epoch != self.epoch_u[t]:
            return  # sent before the other end learnt of a newer marking
        if self._store_scd(t, cd, ver, sq, drop):
            self._scd_changed(self.ov.head[t], cd)

    # ------------------------------------------------------------------ results
    def marking(self) -> dict[tuple[Any, Any], str]:
        """The marking as each link's upstream node holds it."""
        return {link: self.mark_u[i] for i, link in enumerate(self.ov.links)}

    def installed_mcds(self) -> dict[Any, set[tuple[int, int, Filter]]]:
        """Per node, the (PCD id, SCD id, MCD) installed in its forwarding plane."""
        return {n: {(p, s, region) for (p, s, _origin), region in inst.items()}
                for n, inst in self.installed.items()}
