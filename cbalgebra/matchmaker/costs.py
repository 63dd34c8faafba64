"""The cost of a link marking and its validity (Ge, Ji, Kurose & Towsley,
"Matchmaker: Signaling for Dynamic Publish/Subscribe Applications", §3.1).

The paper defers the exact sigma^t(M) and τ^t(M) of an arbitrary marking to a
technical report; we define them by how CDs travel (§2.1, §5.4), so that
Lemma 1 is something the tests check rather than something assumed:

- a PCD of publisher x crosses link t when t is in T_x and t and every link
  above it in T_x are p-links (publications travel down p-links only, from
  the publisher);
- an SCD of subscriber y crosses t when, in some tree T_x holding t with y
  below it, t and every link from t down to y are s-links (subscriptions
  travel up s-links only, from the subscriber). An SCD crosses a link at
  most once, however many trees route it there.

Cost(M) (equation 2) sums both over T. Under a valid marking (constraint 1:
below an s-link, in any tree, everything is an s-link) each link then costs
sigma^t(M^P) if it is a p-link and τ^t(M^S) if it is an s-link (Lemma 1), which
are §5.2's C_i^(p) = Σ f(x) over the publishers whose data cross i and
C_i^(s) = Σ g(y) over the subscribers that receive data through i.
"""

from __future__ import annotations

from collections.abc import Mapping

from .instance import Instance, InstanceError, Link, Marking

__all__ = ["P_LINK", "S_LINK", "as_marking", "check_marking", "cost", "link_costs", "lower_bound", "valid"]

P_LINK, S_LINK = "p", "s"


def check_marking(instance: Instance, marking: Mapping) -> list[bool]:
    """Whether each link (by index) is an s-link; InstanceError unless the
    marking maps exactly the links of T to "p" or "s"."""
    if not isinstance(marking, Mapping):
        raise InstanceError(f"a marking is a mapping from link to 'p' or 's', not {type(marking).__name__}")
    if len(marking) != len(instance.links):
        missing = [t for t in instance.links if t not in marking]
        if missing:
            raise InstanceError(f"the marking leaves link {missing[0]!r} unmarked")
    index = instance.multicast.index
    is_s = [False] * len(instance.links)
    for link, label in marking.items():
        try:
            i = index[link]
        except (KeyError, TypeError):
            raise InstanceError(f"the marking marks {link!r}, which is not a link of any tree") from None
        if label not in (P_LINK, S_LINK):
            raise InstanceError(f"link {link!r} is marked {label!r}; a mark is 'p' or 's'")
        is_s[i] = label == S_LINK
    return is_s


def _crossing(instance: Instance, is_s: list[bool]) -> tuple[list, list]:
    trees = instance.multicast
    pcds: list = [0] * len(instance.links)
    reach = [0] * len(instance.links)  # subscribers whose SCDs cross each link, as a bitmask
    for x in instance.publishers:
        order, parent = trees.tree_links[x], trees.above[x]
        carries: dict[int, bool] = {}
        for i in order:  # top-down: PCDs of x flow while the links stay p-links
            p = parent[i]
            carries[i] = not is_s[i] and (p < 0 or carries[p])
            if carries[i]:
                pcds[i] += instance.f[x]
        up: dict[int, int] = {}
        for i in reversed(order):  # bottom-up: SCDs climb while the links stay s-links
            if is_s[i]:
                mask = up.get(i, 0) | trees.bit.get(trees.tail[i], 0)
                reach[i] |= mask
                p = parent[i]
                if p >= 0:
                    up[p] = up.get(p, 0) | mask
    scds = [sum(instance.g[y] for y in instance.subscribers if r & trees.bit[y]) if r else 0 for r in reach]
    return pcds, scds


def link_costs(instance: Instance, marking: Mapping) -> dict[Link, tuple]:
    """Each link's (sigma^t(M), τ^t(M)): the PCDs and the SCDs that cross it under ``marking``."""
    pcds, scds = _crossing(instance, check_marking(instance, marking))
    return {t: (pcds[i], scds[i]) for i, t in enumerate(instance.links)}


def cost(instance: Instance, marking: Mapping) -> int | float:
    """Cost(M), equation (2): the CDs crossing every link of T under ``marking``."""
    pcds, scds = _crossing(instance, check_marking(instance, marking))
    return sum(pcds) + sum(scds)


def valid(instance: Instance, marking: Mapping) -> bool:
    """Constraint (1): no p-link lies below an s-link in any tree."""
    is_s = check_marking(instance, marking)
    return all(is_s[i] or not any(is_s[p] for p in parents) for i, parents in enumerate(instance.multicast.upstream))


def lower_bound(instance: Instance) -> int | float:
    """Σ_t min(sigma^t(M^P), τ^t(M^S)): no valid marking costs less (Lemma 1)."""
    return sum(min(s, t) for s, t in zip(instance.sigmas, instance.taus, strict=True))


def as_marking(instance: Instance, is_s: list[bool]) -> Marking:
    return {t: S_LINK if is_s[i] else P_LINK for i, t in enumerate(instance.links)}
