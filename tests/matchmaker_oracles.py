"""Independent oracles and instance strategies for the Matchmaker tests.

- :func:`brute_force`: the cheapest valid marking by enumerating all 2^|T|
  markings, priced by :func:`propagated_cost`, which follows CDs hop by hop
  (not the library's bitmask pass) and uses neither Lemma 1 nor sigma/τ.
- :func:`z3_optimum`: the same problem as a 0/1 integer program for z3's
  Optimize: one integer s_t in {0, 1} per link, s_parent <= s_child along
  every tree, minimise Σ (1 - s_t) sigma_t + s_t τ_t where sigma_t, τ_t are
  recomputed here from the trees.
- :func:`sigma_tau`: sigma^t(M^P) and τ^t(M^S) of every link, recomputed from
  the trees.
- :func:`pruned_edges`: the links of an undirected tree on the paths from x
  to the subscribers (networkx's paths, not the code under test).
- hypothesis strategies: shared trees (one random undirected tree, each T_x
  the paper's, §3.1, pruned to the paths from x to the subscribers, or the
  whole tree oriented from x) and per-source trees (an independent random
  arborescence per publisher, which may make ∪R_x cyclic).
"""

from __future__ import annotations

import itertools

import networkx as nx

from hypothesis import strategies as st

from cbalgebra.matchmaker import Instance


def tree_relations(instance: Instance):
    """Per publisher: parent link of each link, and the subscribers below each link."""
    out = {}
    for x, edges in instance.trees.items():
        parent = {v: (u, v) for u, v in edges}
        up = {(u, v): parent.get(u) for u, v in edges}
        children: dict = {}
        for u, v in edges:
            children.setdefault(u, []).append(v)

        def below(v, children=children):
            nodes, stack = set(), [v]
            while stack:
                w = stack.pop()
                nodes.add(w)
                stack.extend(children.get(w, ()))
            return nodes

        out[x] = (up, {(u, v): below(v) for u, v in edges})
    return out


def propagated_cost(instance: Instance, marking) -> int:
    """Cost by following each CD: PCDs down the p-links from their publisher,
    SCDs up the s-links from their subscriber (once per link)."""
    relations = tree_relations(instance)
    total = 0
    for x, (up, _) in relations.items():
        for link in instance.trees[x]:
            path_ok, q = True, link
            while q is not None:
                if marking[q] != "p":
                    path_ok = False
                    break
                q = up[q]
            if path_ok:
                total += instance.f[x]
    for y in instance.subscribers:
        crossed = set()
        for edges in instance.trees.values():
            into = {v: (u, v) for u, v in edges}
            if y not in into:
                continue
            link = into[y]
            while link is not None and marking[link] == "s":
                crossed.add(link)
                link = into.get(link[0])
        total += instance.g[y] * len(crossed)
    return total


def is_valid(instance: Instance, marking) -> bool:
    for edges in instance.trees.values():
        parent = {v: (u, v) for u, v in edges}
        for u, v in edges:
            if u in parent and marking[parent[u]] == "s" and marking[(u, v)] == "p":
                return False
    return True


def brute_force(instance: Instance) -> int:
    links = instance.links
    assert len(links) <= 16
    best = None
    for bits in itertools.product("ps", repeat=len(links)):
        marking = dict(zip(links, bits, strict=True))
        if is_valid(instance, marking):
            c = propagated_cost(instance, marking)
            best = c if best is None else min(best, c)
    assert best is not None
    return best


def sigma_tau(instance: Instance) -> tuple[dict, dict]:
    """sigma^t(M^P) = Σ f(x) over the trees holding t; τ^t(M^S) = Σ g(y) over
    the subscribers below t in some tree (§3.1), from :func:`tree_relations`."""
    relations = tree_relations(instance)
    sigma = dict.fromkeys(instance.links, 0)
    below_subs: dict = {t: set() for t in instance.links}
    for x, (_, below) in relations.items():
        for t, nodes in below.items():
            sigma[t] += instance.f[x]
            below_subs[t] |= nodes & set(instance.subscribers)
    return sigma, {t: sum(instance.g[y] for y in below_subs[t]) for t in instance.links}


def pruned_edges(edges, root, subscribers) -> set:
    """The links of the undirected tree ``edges`` on the paths from ``root`` to
    the subscribers it reaches, directed away from ``root`` (networkx's paths)."""
    tree = nx.Graph(edges)
    tree.add_node(root)
    out = set()
    for y in subscribers:
        if y in tree and nx.has_path(tree, root, y):
            path = nx.shortest_path(tree, root, y)
            out |= set(itertools.pairwise(path))
    return out


def z3_optimum(instance: Instance) -> int:
    import z3

    relations = tree_relations(instance)
    sigma, tau = sigma_tau(instance)
    s = {t: z3.Int(f"s{i}") for i, t in enumerate(instance.links)}
    opt = z3.Optimize()
    for v in s.values():
        opt.add(v >= 0, v <= 1)
    for up, _ in relations.values():
        for t, p in up.items():
            if p is not None:
                opt.add(s[p] <= s[t])
    objective = z3.Sum([(1 - s[t]) * sigma[t] + s[t] * tau[t] for t in instance.links]) if s else z3.IntVal(0)
    handle = opt.minimize(objective)
    assert opt.check() == z3.sat
    return opt.lower(handle).as_long()


# ---------------------------------------------------------------- strategies
counts = st.integers(min_value=0, max_value=12)


@st.composite
def random_tree_edges(draw, nodes: list[int]):
    """Undirected edges of a random tree on ``nodes`` (each node after the first
    hangs from an earlier one)."""
    order = draw(st.permutations(nodes))
    return [(order[draw(st.integers(0, i - 1))], order[i]) for i in range(1, len(order))]


def _oriented(edges, root):
    """The tree's edges directed away from ``root``, by breadth-first search (edges
    not connected to the root dropped): networkx, not the code under test."""
    tree = nx.Graph(edges)
    tree.add_node(root)
    return list(nx.bfs_edges(tree, root))


@st.composite
def shared_instance_pairs(draw, max_nodes: int = 8) -> tuple[Instance, Instance]:
    """One random undirected tree, publishers, subscribers and counts, as two
    instances: T_x pruned to the paths from x to the subscribers (the paper's,
    §3.1), and T_x the whole tree oriented from x."""
    n = draw(st.integers(2, max_nodes))
    nodes = list(range(n))
    edges = draw(random_tree_edges(nodes))
    pubs = draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=n, unique=True))
    subs = draw(st.lists(st.sampled_from(nodes), min_size=0, max_size=n, unique=True))
    f = {x: draw(counts) for x in pubs}
    g = {y: draw(counts) for y in subs}
    pruned = {x: sorted(pruned_edges(edges, x, subs)) for x in pubs}
    whole = {x: _oriented(edges, x) for x in pubs}
    return (Instance.from_trees(pruned, f, g, kind="shared"), Instance.from_trees(whole, f, g, kind="shared"))


@st.composite
def shared_instances(draw, max_nodes: int = 8, shared_tree: str | None = None):
    """One random shared tree; T_x ``shared_tree`` "pruned" (the paper's) or
    "whole", drawn when None."""
    pruned, whole = draw(shared_instance_pairs(max_nodes))
    variant = shared_tree or draw(st.sampled_from(["pruned", "whole"]))
    return pruned if variant == "pruned" else whole


@st.composite
def per_source_instances(draw, max_nodes: int = 7, max_links: int | None = None,
                          count_values=counts):
    n = draw(st.integers(2, max_nodes))
    nodes = list(range(n))
    pubs = draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=3, unique=True))
    subs = draw(st.lists(st.sampled_from(nodes), min_size=0, max_size=n, unique=True))
    trees = {}
    for x in pubs:
        others = draw(st.lists(st.sampled_from([v for v in nodes if v != x]), unique=True))
        members = [x, *others]
        edges = draw(random_tree_edges(members))
        trees[x] = _oriented(edges, x)
    if max_links is not None:
        links = {link for edges in trees.values() for link in edges}
        if len(links) > max_links:
            from hypothesis import reject
            reject()
    f = {x: draw(count_values) for x in pubs}
    g = {y: draw(count_values) for y in subs}
    return Instance.from_trees(trees, f, g, kind="per-source")
