"""``cbalgebra study matchmaker``: the evaluation of Ge, Ji, Kurose & Towsley,
"Matchmaker: Signaling for Dynamic Publish/Subscribe Applications", §4.4
(Figures 7 and 8), with two sweeps the paper does not have.

A cell is one random instance (n nodes, |P| publishers, |S| subscribers,
sample number), solved on shared *and* on per-source trees with All-P,
All-S, MCM and TDM; the two tree kinds share the network, P, S and the CD
counts (:meth:`cbalgebra.matchmaker.Instance.generate`), so they are
compared on paired samples. The instance seed derives from the base seed
and (n, |P|, |S|, sample) only (:mod:`cbalgebra.studies.seeding`), so a
grid point that two sweeps share is computed once.

Grid points:

- the paper's: n = 100, |P| = |S| = 20, ``samples`` instances (1,000);
- asymmetry: n = 100, |P| = 20 with |S| in 5..50, and |S| = 20 with |P|
  in 5..50 (``sweep_samples`` each);
- size: n = 100..2,000 at |P| = |S| = 20 (``sweep_samples`` each) and with
  |P| = |S| = n/5, the paper's density (``dense_samples`` each).

Networks of n nodes are n/100 transit domains of the paper's shape (4
transit nodes, each with 3 stub domains of 8 nodes), the GT-ITM way to grow
a transit-stub network. On shared trees T_x is the paper's (§3.1: the links
on the paths from x to the subscribers) unless ``shared_tree="whole"``
(``--shared-tree whole``) takes the whole tree oriented away from x
(:meth:`cbalgebra.matchmaker.Instance.generate`). Nothing here imports
Spark; the cell function is pure (its result depends on the cell only).
"""

from __future__ import annotations

import argparse
import os
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from cbalgebra.clibase import UsageError
from cbalgebra.matchmaker.names import SHARED_TREES
from cbalgebra.studies import fingerprint
from cbalgebra.studies.flags import int_list, positive_int_type
from cbalgebra.studies.plugin import StudyPlugin
from cbalgebra.studies.seeding import cell_seed

if TYPE_CHECKING:
    import pyarrow as pa

    from cbalgebra.studies.runner import Study

KIND = "matchmaker"
#: Bump when a change alters the numbers a cell produces. (2: T_x on shared trees
#: pruned to the subscribers, as §3.1 defines it.)
MODEL_VERSION = 2
#: The version of the stream the instances are drawn from, part of each instance
#: seed. It stays when a change alters only how a drawn instance is routed or
#: solved, so that results before and after the change are paired samples.
SAMPLE_STREAM = 1
KEY_COLUMNS: tuple[str, ...] = ("n", "publishers", "subscribers", "sample", "seed")
TREES = ("shared", "per-source")
ALGORITHMS = ("all_p", "all_s", "mcm", "tdm")
PAPER_POINT = (100, 20, 20)
NODES_PER_DOMAIN = 100  # one transit domain of the paper's shape



@dataclass(frozen=True)
class Sizes:
    """How many samples where: the paper's point, each sweep point, each dense-size point."""

    samples: int
    sweep_samples: int
    dense_samples: int
    sizes: tuple[int, ...]
    asymmetry: tuple[int, ...]


FULL = Sizes(samples=1000, sweep_samples=200, dense_samples=20, sizes=(100, 200, 500, 1000, 2000),
             asymmetry=(5, 10, 20, 35, 50))
QUICK = Sizes(samples=60, sweep_samples=10, dense_samples=2, sizes=(100, 200, 500), asymmetry=(5, 20, 50))


def column(tree: str, what: str) -> str:
    """The result column of one tree kind: ``shared_mcm``, ``per_source_links``..."""
    return f"{tree.replace('-', '_')}_{what}"


def grid(sizes: Sequence[int], asymmetry: Sequence[int], samples: int, sweep_samples: int,
         dense_samples: int) -> dict[tuple[int, int, int], int]:
    """Samples per grid point (n, |P|, |S|); a point in several sweeps gets the most."""
    points: dict[tuple[int, int, int], int] = {}

    def add(point: tuple[int, int, int], count: int) -> None:
        if count > 0:
            points[point] = max(points.get(point, 0), count)

    add(PAPER_POINT, samples)
    for k in asymmetry:
        add((100, 20, k), sweep_samples)
        add((100, k, 20), sweep_samples)
    for n in sizes:
        add((n, 20, 20), sweep_samples)
        add((n, n // 5, n // 5), dense_samples)
    return points


def check_size(n: int) -> None:
    if n < NODES_PER_DOMAIN or n % NODES_PER_DOMAIN:
        raise ValueError(f"network sizes are multiples of {NODES_PER_DOMAIN} (n/100 transit domains), not {n}")


def cells(points: dict[tuple[int, int, int], int], seed: int, shared_tree: str = "pruned") -> list[dict]:
    out = []
    for (n, p, s), count in sorted(points.items()):
        check_size(n)
        for sample in range(count):
            out.append({"n": n, "publishers": p, "subscribers": s, "sample": sample, "seed": seed,
                        "shared_tree": shared_tree})
    return out


def instance_seed(seed: int, n: int, publishers: int, subscribers: int, sample: int) -> int:
    return cell_seed(seed, ("matchmaker", SAMPLE_STREAM, n, publishers, subscribers, sample))


def cell_cost(cell: dict) -> float:
    """Relative cost, for longest-first scheduling and the ETA (measured shape:
    linear in n, about quadratic in the members)."""
    members = (cell["publishers"] + cell["subscribers"]) / 40
    return cell["n"] / 100 * max(1.0, members) ** 2


def solve(n: int, publishers: int, subscribers: int, seed: int, shared_tree: str = "pruned") -> dict:
    """Every algorithm's cost on both tree kinds of one instance, and checks;
    ``shared_tree`` is T_x on the shared tree (see the module docstring)."""
    # deferred: networkx (this module loads at every `cbalgebra` start)
    import networkx as nx

    # deferred: the matchmaker modules load networkx
    from cbalgebra.matchmaker import Instance, all_p, all_s, cost, lower_bound, matchmaking_nodes, mcm, tdm, valid

    row: dict = {}
    for tree in TREES:
        t0 = time.perf_counter()
        inst = Instance.generate(seed, publishers, subscribers, trees=tree,
                                 shared_tree=shared_tree if tree == "shared" else "pruned",
                                 transit_domains=n // NODES_PER_DOMAIN)
        t1 = time.perf_counter()
        markings = {"all_p": all_p(inst), "all_s": all_s(inst), "mcm": mcm(inst), "tdm": tdm(inst)}
        t2 = time.perf_counter()
        for name, marking in markings.items():
            row[column(tree, name)] = int(cost(inst, marking))
        row[column(tree, "links")] = len(inst.links)
        row[column(tree, "lower_bound")] = int(lower_bound(inst))
        row[column(tree, "all_valid")] = all(valid(inst, m) for m in markings.values())
        row[column(tree, "mcm_s_links")] = sum(1 for v in markings["mcm"].values() if v == "s")
        row[column(tree, "matchmakers")] = len(matchmaking_nodes(inst, markings["mcm"]))
        union = nx.DiGraph((i, j) for i, below in enumerate(inst.multicast.downstream) for j in below)
        row[column(tree, "cyclic")] = not nx.is_directed_acyclic_graph(union)
        row[column(tree, "gen_seconds")] = t1 - t0
        row[column(tree, "solve_seconds")] = t2 - t1
        if tree == "shared":
            row["core"] = inst.core if isinstance(inst.core, int) else -1
            row["pcds"] = int(sum(inst.f.values()))
            row["scds"] = int(sum(inst.g.values()))
    return row


def run_cell(cell: dict) -> dict:
    """The body of one Spark task: one instance, one result row."""
    start = time.perf_counter()
    seed = instance_seed(cell["seed"], cell["n"], cell["publishers"], cell["subscribers"], cell["sample"])
    row: dict = {key: int(cell[key]) for key in KEY_COLUMNS}
    row["cell_seed"] = seed
    row.update(solve(cell["n"], cell["publishers"], cell["subscribers"], seed, cell["shared_tree"]))
    row["gen_seconds"] = sum(row[column(t, "gen_seconds")] for t in TREES)
    row["reduce_seconds"] = sum(row[column(t, "solve_seconds")] for t in TREES)
    row["task_seconds"] = time.perf_counter() - start
    row["host"] = socket.gethostname()
    row["pid"] = os.getpid()
    return row


def schema() -> pa.Schema:
    # deferred: pyarrow (this module loads at every `cbalgebra` start)
    import pyarrow as pa

    fields = [(k, pa.int64()) for k in KEY_COLUMNS] + [("cell_seed", pa.int64()), ("core", pa.int64()),
                                                       ("pcds", pa.int64()), ("scds", pa.int64())]
    for tree in TREES:
        fields += [(column(tree, a), pa.int64()) for a in ALGORITHMS]
        fields += [(column(tree, "links"), pa.int64()), (column(tree, "lower_bound"), pa.int64()),
                   (column(tree, "all_valid"), pa.bool_()), (column(tree, "mcm_s_links"), pa.int64()),
                   (column(tree, "matchmakers"), pa.int64()), (column(tree, "cyclic"), pa.bool_()),
                   (column(tree, "gen_seconds"), pa.float64()), (column(tree, "solve_seconds"), pa.float64())]
    fields += [("gen_seconds", pa.float64()), ("reduce_seconds", pa.float64()), ("task_seconds", pa.float64()),
               ("host", pa.string()), ("pid", pa.int64())]
    return pa.schema(fields)


def code_fingerprint(shared_tree: str = "pruned") -> str:
    """A short hash of what the code a cell's numbers depend on does: the
    matchmaker's model and algorithms, the transit-stub generator
    (``cbalgebra.studies.fingerprint``) and, when it is not the paper's, the
    shared-tree variant (so a rerun refuses to mix the two in one folder)."""
    modules = [f"cbalgebra.matchmaker.{name}" for name in ("instance", "trees", "costs", "algorithms", "pareto")]
    variant = "" if shared_tree == "pruned" else f"-shared-tree-{shared_tree}"
    return fingerprint.code_fingerprint(
        f"matchmaker-model-{MODEL_VERSION}{variant}", (*modules, "cbalgebra.network.topology"))


def matchmaker_config(samples: int = FULL.samples, sweep_samples: int = FULL.sweep_samples,
                      dense_samples: int = FULL.dense_samples, sizes: Sequence[int] = FULL.sizes,
                      asymmetry: Sequence[int] = FULL.asymmetry, seed: int = 2003, quick: bool = False,
                      shared_tree: str = "pruned") -> dict:
    """The design of a matchmaker study, with its grid points; ``ValueError`` for sizes it cannot have."""
    if shared_tree not in SHARED_TREES:
        raise ValueError(f"--shared-tree must be {' or '.join(SHARED_TREES)}, not {shared_tree!r}")
    for n in sizes:
        check_size(n)
    for k in asymmetry:
        if not 1 <= k <= 96:
            raise ValueError(f"--asymmetry: {k} members do not fit the 96 stub nodes of a 100-node network")
    points = grid(sizes, asymmetry, samples, sweep_samples, dense_samples)
    return {
        "samples": samples, "sweep_samples": sweep_samples, "dense_samples": dense_samples,
        "sizes": list(sizes), "asymmetry": list(asymmetry), "seed": seed, "quick": quick,
        "points": [[*p, c] for p, c in sorted(points.items())], "shared_tree": shared_tree,
    }


def matchmaker_study(**design: Any) -> Study:
    """The matchmaker study as the runner executes it; ``design`` as :func:`matchmaker_config` takes it."""
    return PLUGIN.study(matchmaker_config(**design))


def points_of(config: Mapping) -> dict[tuple[int, int, int], int]:
    """Samples per grid point (n, |P|, |S|) of a design (:func:`matchmaker_config`)."""
    return {(n, p, s): count for n, p, s, count in config["points"]}


# -------------------------------------------------------------------- command line
class MatchmakerPlugin(StudyPlugin):
    """The matchmaker study as every study is run (:class:`cbalgebra.studies.plugin.StudyPlugin`)."""

    name = KIND
    summary = "link marking on random instances (Ge, Ji, Kurose & Towsley, Matchmaker, §4.4, Figures 7-8)"
    help = "Figures 7 and 8 of Matchmaker (Ge, Ji, Kurose & Towsley): All-P, All-S, MCM, TDM costs"
    description = ("Ge, Ji, Kurose & Towsley, \"Matchmaker\", §4.4: random transit-stub instances "
                   "(100 nodes, |P| = |S| = 20, bounded-Pareto CD counts) solved on shared (CBT) and "
                   "per-source (DVMRP) trees by All-P, All-S, MCM and TDM; Figure 7 (Cost CDFs, shared "
                   "trees), Figure 8 (Cost-ratio CDFs, per-source trees), and sweeps of |P|/|S| and of the "
                   "network size the paper does not have. --replicates is the number of samples at the "
                   "paper's point; --points is not used.")
    shared_flags = MappingProxyType({
        "replicates": "samples (random instances) at the paper's point",
        "points": None,
    })
    key_columns = KEY_COLUMNS
    model_version = MODEL_VERSION
    outputs = "cbalgebra.studies.matchmaker_report"
    run_cell = staticmethod(run_cell)
    cell_cost = staticmethod(cell_cost)

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--sweep-samples", type=positive_int_type, metavar="N",
                       help=f"samples per sweep point (default {FULL.sweep_samples}; quick {QUICK.sweep_samples})")
        p.add_argument("--dense-samples", type=int, metavar="N",
                       help=f"samples per point of the |P| = |S| = n/5 size sweep, 0 to skip (default "
                            f"{FULL.dense_samples}; quick {QUICK.dense_samples})")
        p.add_argument("--sizes", metavar="LIST", help="network sizes, multiples of 100 (default "
                       f"{','.join(map(str, FULL.sizes))}; quick {','.join(map(str, QUICK.sizes))})")
        p.add_argument("--asymmetry", metavar="LIST", help="member counts of the |P|/|S| sweep (default "
                       f"{','.join(map(str, FULL.asymmetry))}; quick {','.join(map(str, QUICK.asymmetry))})")
        p.add_argument("--shared-tree", choices=SHARED_TREES, default="pruned",
                       help="T_x on the shared tree: pruned to the paths from x to the subscribers (the paper's, "
                            "§3.1; default) or the whole tree oriented away from x")

    def config_from_args(self, args: argparse.Namespace) -> dict:
        base = QUICK if args.quick else FULL
        samples = args.replicates if args.replicates is not None else base.samples
        sweep = args.sweep_samples if args.sweep_samples is not None else base.sweep_samples
        dense = args.dense_samples if args.dense_samples is not None else base.dense_samples
        if dense < 0:
            raise UsageError("--dense-samples must be >= 0")
        sizes = int_list(args.sizes, "--sizes", minimum=None) if args.sizes else base.sizes
        asymmetry = int_list(args.asymmetry, "--asymmetry", minimum=None) if args.asymmetry else base.asymmetry
        try:
            return matchmaker_config(samples=samples, sweep_samples=sweep, dense_samples=dense, sizes=sizes,
                                     asymmetry=asymmetry, seed=args.seed, quick=args.quick,
                                     shared_tree=args.shared_tree)
        except ValueError as e:
            raise UsageError(str(e)) from None

    def cells(self, config: Mapping) -> list[dict]:
        return cells(points_of(config), config["seed"], config.get("shared_tree", "pruned"))

    def schema(self) -> pa.Schema:
        return schema()

    def code_fingerprint(self, config: Mapping) -> str | None:
        return code_fingerprint(config.get("shared_tree", "pruned"))


PLUGIN = MatchmakerPlugin()
