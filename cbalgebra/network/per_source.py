"""The per-source schemes: PSF (§3.1) and iPS (§3.2) of Carzaniga, Rembert &
Wolf, "Understanding Content-Based Routing Schemes", 2006 (see
:mod:`cbalgebra.network.schemes` for their definitions), and iPS's structure:
the classes of indistinguishable sources and the header rewriting.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .paths import ShortestPaths
from .routing import Routing, id_bits

__all__ = ["IPS", "PSF", "ips_lookup_bits", "ips_structure", "source_classes"]


class _PerSource(Routing):
    """PSF and iPS tables: a row F_u(key, w) for each key (a source, or a
    class of sources) and each child w of u in T_key.

    Rows of different keys with the same neighbour and the same predicate
    (the same descendants T_v/w, which is common: the paper's
    indistinguishability, edge by edge) are compiled into ONE interface of
    u's table, listed in the broadcast set of each of those keys: the
    forwarding decisions are the same, the counting engine does the work
    once. ``shared_rows=False`` compiles one interface per row instead.
    Memory (§2.4) is counted per row either way, as the paper's model says;
    ``memory()["per_processor"][u]["compiled_constraints"]`` is what the
    table holds."""

    shared_rows = True

    def _tables_by_key(self, keys: dict[int, list[tuple[int, int]]]) -> None:
        """keys[u]: (key, representative source) pairs to build rows for."""
        paths = self.paths
        self._meta: dict[int, list[int]] = {}          # u -> neighbour of each interface id
        self._offers: dict[int, dict[int, np.ndarray]] = {}
        for u in range(self.n):
            rows: list[tuple[int, tuple[int, ...]]] = []
            table_rows: list[tuple[int, tuple[int, ...]]] = []
            meta: list[int] = []
            offers: dict[int, np.ndarray] = {}
            interface_of: dict[object, int] = {}
            for key, v in keys[u]:
                ids: list[int] = []
                for w in paths.children(v, u):
                    preds = self._combine.ids(paths.subtree(v, w))
                    if not preds:
                        continue
                    rows.append((len(rows), preds))
                    row_key: object = (w, preds) if self.shared_rows else len(rows)
                    iface = interface_of.get(row_key)
                    if iface is None:
                        iface = interface_of[row_key] = len(meta)
                        meta.append(w)
                        table_rows.append((iface, preds))
                    ids.append(iface)
                offers[key] = np.array(sorted(ids), dtype=np.int64)
            self._rows[u], self._table_rows[u] = rows, table_rows
            self._meta[u], self._offers[u] = meta, offers
        self._compile({u: range(len(self._meta[u])) for u in range(self.n)})


class PSF(_PerSource):
    """Per-Source Forwarding (§3.1)."""

    scheme = "psf"

    def _setup(self) -> None:
        if self.lazy:
            # u's rows F_u(v, ·) for one source v, built when v's first packet reaches u
            self._pool.freeze()
            self.tables = {}
            return
        senders = sorted(self.senders)
        self._tables_by_key({u: [(v, v) for v in senders] for u in range(self.n)})

    def _source_rows(self, u: int, v: int) -> dict[int, list[int]]:
        """u's rows F_u(v, w), each as its receivers' predicate ids, made
        when v's first packet reaches u."""
        at_u = self.tables.setdefault(u, {})
        found = at_u.get(v)
        if found is None:
            below = self._receivers_below(v)
            parent = self.paths.parent[v]
            found = at_u[v] = {w: below[w] for w in sorted(self.graph[u]) if parent[w] == u and w in below}
        return found

    def _forward(self, u, parent, header, message):
        if not self.lazy:
            return super()._forward(u, parent, header, message)
        rows = self._source_rows(u, header)
        if not rows:
            return []
        return [(w, header) for w in self._rows_matching(rows, rows, self._matching_predicates(message))]

    def _forward_many(self, u, items, messages):
        if not self.lazy:
            return super()._forward_many(u, items, messages)
        return [self._forward(u, parent, header, messages[i]) for i, _, parent, header, _ in items]

    def _offer(self, u, parent, header):
        return self._offers[u].get(header)

    def _decode(self, u, parent, header, interfaces):
        meta = self._meta[u]
        return [(meta[i], header) for i in interfaces]

    def _memory_of(self, u):
        return {"init": self.id_bits if u in self.senders else 0,
                "predicate_constraints": self._row_constraints(u)}


class IPS(_PerSource):
    """Improved Per-Source Forwarding (§3.2): sources grouped into classes of
    indistinguishable sources, headers rewritten where safe."""

    scheme = "ips"

    def _setup(self) -> None:
        n = self.n
        cls, rewrite, self.arriving = ips_structure(self.paths, self.senders)
        self.class_of = cls
        self.rewrite = rewrite
        # Python lists: per-packet lookups in numpy arrays cost microseconds each.
        self._class_rows = cls.tolist()
        self._rewrite_rows = rewrite.tolist()
        keys = {}
        for u in range(n):
            reps: dict[int, int] = {}
            for h in sorted(self.arriving[u]):
                reps.setdefault(int(cls[u, h]), h)       # a representative header of each class
            keys[u] = sorted(reps.items())
        self._tables_by_key(keys)

    def classes(self, u: int) -> list[frozenset[int]]:
        """The classes of indistinguishable sources at u, over all processors,
        by smallest member."""
        groups: dict[int, list[int]] = {}
        for v, c in enumerate(self.class_of[u].tolist()):
            groups.setdefault(c, []).append(v)
        return sorted((frozenset(g) for g in groups.values()), key=min)

    def _offer(self, u, parent, header):
        return self._offers[u].get(self._class_rows[u][header])

    def _decode(self, u, parent, header, interfaces):
        out_header = u if self._rewrite_rows[u][header] else header
        meta = self._meta[u]
        return [(meta[i], out_header) for i in interfaces]

    def _memory_of(self, u):
        i_bits, r_bits = ips_lookup_bits(self.class_of[u], self.rewrite[u], self.arriving[u])
        return {"init": self.id_bits if u in self.senders else 0, "I": i_bits, "R": r_bits,
                "predicate_constraints": self._row_constraints(u)}


def ips_lookup_bits(class_row: np.ndarray, rewrite_row: np.ndarray, headers: Iterable[int]) -> tuple[int, int]:
    """Bits of I_u and R_u at a processor u (§3.2) from its row of classes and
    of rewrite flags and the header values that can reach it: I_u costs
    |H_u|·⌈log2 |classes|⌉ bits, 0 when each class is reached by one header
    only (the identity, as on a tree); R_u one bit per class, 0 when constant."""
    headers = list(headers)
    classes = {int(class_row[h]) for h in headers}
    identity = len(classes) == len(headers)
    i_bits = 0 if identity else len(headers) * id_bits(max(2, len(classes)))
    r_values = {bool(rewrite_row[h]) for h in headers}
    r_bits = 0 if len(r_values) <= 1 else len(classes)
    return i_bits, r_bits


# ---------------------------------------------------------------------------
# iPS: indistinguishable sources

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a non-linear 64-bit mixer."""
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return x


def source_classes(paths: ShortestPaths) -> np.ndarray:
    """cls[u, v]: the class of source v among all sources at processor u,
    by the two conditions of §3.2 (same children in T_v, same T_v/w below each).

    Sets are compared through 128-bit hashes (two independent lanes): a
    subtree's hash is the sum of random per-node values, and a source's key at
    u the sum of mix(child, subtree hash) over its children, mix being
    non-linear so that different partitions of the same descendants get
    different keys. Two different keys collide with probability about 2^-128
    per pair; the tests check the classes against the sets themselves."""
    n = paths.n
    rng = np.random.Generator(np.random.PCG64(20060501))
    salt = rng.integers(0, 2**63, size=(2, n), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    leaf = rng.integers(0, 2**63, size=(2, n), dtype=np.uint64)
    keys = np.zeros((2, n, n), dtype=np.uint64)      # keys[lane, u, v]
    for v in range(n):
        parent = paths.parent[v]
        depth = _depths(paths, v)
        sub = leaf.copy()                             # sub[lane, x] = hash of T_v/x
        with np.errstate(over="ignore"):
            for d in range(int(depth.max()), 0, -1):
                level = np.flatnonzero(depth == d)
                for lane in range(2):
                    np.add.at(sub[lane], parent[level], sub[lane][level])
            others = np.flatnonzero(parent >= 0)
            for lane in range(2):
                contrib = _mix(sub[lane][others] ^ salt[lane][others]) * salt[lane][others]
                np.add.at(keys[lane, :, v], parent[others], contrib)
    cls = np.empty((n, n), dtype=np.int64)
    for u in range(n):
        pairs = np.stack([keys[0, u], keys[1, u]], axis=1)
        _, first, inverse = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
        # number classes by their smallest member, so ids are deterministic
        rank = np.argsort(np.argsort(first))
        cls[u] = rank[inverse.ravel()]
    return cls


def ips_structure(paths: ShortestPaths, senders: Iterable[int]
                  ) -> tuple[np.ndarray, np.ndarray, list[frozenset[int]]]:
    """iPS's state apart from its predicates (§3.2): ``cls[u, v]`` the class
    of source v at u (:func:`source_classes`), ``rewrite[u, v]`` = R_u(I_u(v))
    (u rewrites a header v to u: every source of v's class passes the
    condition of :func:`_rewrite_safe`), and ``arriving[u]`` the header values
    that can reach u from the ``senders`` (followed down each T_v)."""
    n = paths.n
    cls = source_classes(paths)
    ok = _rewrite_safe(paths, cls)          # ok[v, u]: condition of R for source v at u
    rewrite = np.ones_like(cls, dtype=bool)
    for u in range(n):
        classes = cls[u]
        bad = np.zeros(int(classes.max()) + 1, dtype=bool)
        np.logical_or.at(bad, classes, ~ok[:, u])
        rewrite[u] = ~bad[classes]
    arriving: list[set[int]] = [set() for _ in range(n)]
    for v in sorted(senders):
        header = np.full(n, -1, dtype=np.int64)
        header[v] = v
        order = paths.by_distance(v)
        parent = paths.parent[v]
        arriving[v].add(v)
        for y in order[1:].tolist():
            p = int(parent[y])
            h = int(header[p])
            header[y] = p if rewrite[p, h] else h
            arriving[y].add(int(header[y]))
    return cls, rewrite, [frozenset(a) for a in arriving]


def _depths(paths: ShortestPaths, v: int) -> np.ndarray:
    parent = paths.parent[v]
    depth = np.full(paths.n, -1, dtype=np.int64)
    depth[v] = 0
    for y in paths.by_distance(v).tolist():
        if y != v:
            depth[y] = depth[parent[y]] + 1
    return depth


def _rewrite_safe(paths: ShortestPaths, cls: np.ndarray) -> np.ndarray:
    """ok[v, u]: every processor y strictly below u in T_v sees u and v as
    indistinguishable (cls[y, u] == cls[y, v])."""
    n = paths.n
    ok = np.ones((n, n), dtype=bool)
    ys = np.arange(n)
    for v in range(n):
        parent = paths.parent[v]
        ancestor = parent.copy()
        bad = np.zeros(n, dtype=bool)
        while True:
            live = ancestor >= 0
            if not live.any():
                break
            y, a = ys[live], ancestor[live]
            mismatch = cls[y, a] != cls[y, v]
            bad[a[mismatch]] = True
            ancestor[live] = parent[a]
        ok[v] = ~bad
    return ok
