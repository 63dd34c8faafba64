"""``cbalgebra study amsp``: Figures 11, 12 and 13 of Ge, Ji, Kurose & Towsley, "Matchmaker:
Signaling for Dynamic Publish/Subscribe Applications", §6.

One Spark task is one simulation run: one network (a transit-stub instance of
the Matchmaker package), one application world, one protocol (BP, BS or
AMSP) for ``duration`` simulated seconds. The three protocols of a point and
replicate share the seed, hence the network, the trees, the publishers and
subscribers and every entity's moves (§6.1: "the same network and
application settings, and the same initial value for the pseudo-random
seed").

- Figure 11: the signalling rate over time (30 s smoothing), 20 publishers,
  20 subscribers, per-source trees, a 1000 × 1000 grid.
- Figure 12: the mean rate against 5 to 50 subscribers with 20 publishers,
  per-source trees, ``replicates`` runs per point, 90 % confidence intervals.
- Figure 13: the mean rate against the grid, 200 × 200 to 2000 × 2000, with
  common random numbers: replicate r uses the same network, members and
  entity paths at every grid size (its seed depends on r, not on the grid), so
  the grid effect is not confounded with the network.
- The sensitivity study: the choices §5-6 leave open that move the results
  most, one axis at a time from the baseline (Figure 13's replicates at
  G = 1000, whose cells it shares): the MCD update policy (at every grid of
  Figure 13), the entity speeds, Figure 9's δ and the COST_ANNOUNCE
  threshold. BP and BS do not read AMSP's parameters, so only the speed axis
  reruns them.

The pure parts (cells, the task, the seeds) are here; the summary, figures and
report are in :mod:`cbalgebra.studies.amsp_report`. Nothing here imports
Spark, SimPy or pandas at module load.
"""

from __future__ import annotations

import argparse
import functools
import os
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from cbalgebra.studies import fingerprint
from cbalgebra.studies.flags import argument_type, int_list, name_list, seconds_type
from cbalgebra.studies.plugin import StudyPlugin
from cbalgebra.studies.seeding import cell_seed

if TYPE_CHECKING:
    import pyarrow as pa

    from cbalgebra.studies.runner import Study

KIND = "amsp"
#: Bump when a change alters the numbers a cell produces.
MODEL_VERSION = 2  # 2: per-entity random streams (CRN across grids), Figure 13 seeded by replicate, sensitivity
KEY_COLUMNS: tuple[str, ...] = ("figure", "x", "replicate", "protocol", "variant")
PROTOCOLS: tuple[str, ...] = ("BP", "BS", "AMSP")
FIGURES: tuple[str, ...] = ("fig11", "fig12", "fig13")
SENSITIVITY = "sensitivity"
BASELINE = "baseline"
#: The baseline of every axis, as the model's defaults set it (ProtocolConfig, SPEED_CLASSES).
SENSITIVITY_BASELINE: dict[str, Any] = {"mcd_update": "path", "speed_factor": 1.0, "delta": 0.5,
                                        "significance": 0.1}
#: The values tried on each axis; the other axes stay at the baseline.
SENSITIVITY_AXES: dict[str, tuple[Any, ...]] = {
    "mcd_update": ("segment",),  # re-signal only where an MCD changes (ProtocolConfig.mcd_update)
    "speed_factor": (0.5, 2.0),  # every speed class's speeds times this
    "delta": (0.1, 2.0),  # Figure 9's hysteresis δ, CD updates/s
    "significance": (0.02, 0.5),  # COST_ANNOUNCE when the estimate moved by more than this share
}
#: Axes whose BP and BS runs differ from the baseline's (the others change AMSP only).
BROADCAST_AXES = ("speed_factor",)

#: The study's sizes; ``--quick`` runs the same code on the second set.
FULL: dict[str, Any] = {
    "duration": 600.0, "warmup": 60.0, "publishers": 20,
    "fig11_subscribers": 20, "fig11_replicates": 1,
    "fig12_subscribers": (5, 10, 20, 30, 40, 50), "fig12_replicates": 10, "fig12_duration": 200.0,
    "fig13_grids": (200, 500, 1000, 1500, 2000), "fig13_replicates": 3, "fig13_duration": 200.0,
    "sensitivity_grid": 1000,
}
QUICK: dict[str, Any] = {
    "duration": 120.0, "warmup": 30.0, "publishers": 6,
    "fig11_subscribers": 6, "fig11_replicates": 1,
    "fig12_subscribers": (3, 6, 9), "fig12_replicates": 2, "fig12_duration": 90.0,
    "fig13_grids": (200, 1000), "fig13_replicates": 2, "fig13_duration": 90.0,
    "sensitivity_grid": 1000,
}


def variant_name(axis: str, value: Any) -> str:
    return f"{axis}={value}"


def parse_variant(name: str) -> dict[str, Any]:
    """The model parameters of a variant: the baseline with at most one axis changed."""
    params = dict(SENSITIVITY_BASELINE)
    if name != BASELINE:
        axis, value = name.split("=", 1)
        params[axis] = value if axis == "mcd_update" else float(value)
    return params


def replicate_seed(base: int, figure: str, x: int, replicate: int) -> int:
    """The seed of one run's network and world. Figure 13 and the sensitivity study seed by replicate
    alone (common random numbers: the grid and the variant change nothing else); Figures 11 and 12
    by (figure, x, replicate), as before (the number of subscribers changes the instance anyway)."""
    if figure in ("fig13", SENSITIVITY):
        return cell_seed(base, ("fig13", replicate))
    return cell_seed(base, (figure, x, replicate))


def cells(config: Mapping) -> list[dict]:
    """Every (figure, x, replicate, protocol, variant) run of the study, with its seed."""
    out: list[dict] = []
    base = config["seed"]

    def add(figure: str, x: int, replicates: int, subscribers: int, grid: int, duration: float,
            variant: str = BASELINE, protocols: Sequence[str] | None = None) -> None:
        params = parse_variant(variant)
        for r in range(replicates):
            seed = replicate_seed(base, figure, x, r)
            for protocol in protocols if protocols is not None else config["protocols"]:
                out.append({
                    "figure": figure, "x": int(x), "replicate": r, "protocol": protocol, "variant": variant,
                    "seed": base, "run_seed": seed, "publishers": config["publishers"],
                    "subscribers": int(subscribers), "grid": int(grid), "duration": float(duration),
                    "warmup": config["warmup"], "trees": config["trees"], "model_version": MODEL_VERSION,
                    **params,
                })

    if "fig11" in config["figures"]:
        add("fig11", config["fig11_subscribers"], config["fig11_replicates"], config["fig11_subscribers"], 1000,
            config["duration"])
    if "fig12" in config["figures"]:
        for s in config["fig12_subscribers"]:
            add("fig12", s, config["fig12_replicates"], s, 1000, config["fig12_duration"])
    if "fig13" in config["figures"]:
        for g in config["fig13_grids"]:
            add("fig13", g, config["fig13_replicates"], config["fig11_subscribers"], g, config["fig13_duration"])
    if config.get("sensitivity"):
        for axis, values in SENSITIVITY_AXES.items():
            broadcast = axis in BROADCAST_AXES
            protocols = [p for p in config["protocols"] if broadcast or p == "AMSP"]
            grids = config["fig13_grids"] if axis == "mcd_update" else [config["sensitivity_grid"]]
            for value in values:
                for g in grids:
                    add(SENSITIVITY, g, config["fig13_replicates"], config["fig11_subscribers"], g,
                        config["fig13_duration"], variant_name(axis, value), protocols)
    return out


def baseline_of(row: dict) -> tuple:
    """The key of the Figure 13 cell a sensitivity cell varies (same replicate, grid and protocol)."""
    return ("fig13", row["x"], row["replicate"], row["protocol"], BASELINE)


def cell_cost(cell: dict) -> float:
    """Relative cost: messages grow with the members, the grid (crossings) and the time; BP/BS cost most."""
    weight = {"BP": 3.0, "BS": 3.0, "AMSP": 1.5}.get(cell["protocol"], 1.0)
    speed = cell.get("speed_factor", 1.0)
    return weight * (cell["publishers"] + cell["subscribers"]) * cell["duration"] * (0.3 + speed * cell["grid"] / 1000)


def run_cell(cell: dict) -> dict:
    """The body of one Spark task: one simulation run, one result row."""
    # deferred: the matchmaker and its simulation load networkx (this module loads at every `cbalgebra` start)
    from cbalgebra.matchmaker import Instance
    from cbalgebra.matchmaker.amsp import (
        KINDS,
        MARKING_KINDS,
        SPEED_CLASSES,
        ProtocolConfig,
        WorldConfig,
        simulate,
    )

    start = time.perf_counter()
    instance_seed = int(cell["run_seed"] % (2**31 - 1))
    instance = Instance.generate(instance_seed, cell["publishers"], cell["subscribers"], trees=cell["trees"])
    built = time.perf_counter()
    params = {**SENSITIVITY_BASELINE, **{k: cell[k] for k in SENSITIVITY_BASELINE if k in cell}}
    world = WorldConfig(grid=cell["grid"],
                        speed_classes=tuple(c.scaled(params["speed_factor"]) for c in SPEED_CLASSES))
    protocol = ProtocolConfig(cell["protocol"], delta=params["delta"], significance=params["significance"],
                              mcd_update=params["mcd_update"])
    run = simulate(instance, world, protocol, seed=instance_seed, duration=cell["duration"])
    total_series = [sum(run.series[k][i] for k in KINDS) for i in range(int(cell["duration"]))]
    marking_series = [sum(run.series[k][i] for k in MARKING_KINDS) for i in range(int(cell["duration"]))]
    warm = float(cell["warmup"])
    rate = run.rate(warm)
    marking_rate = run.rate(warm, kinds=MARKING_KINDS)
    row: dict[str, Any] = {
        key: cell[key] for key in ("figure", "x", "replicate", "protocol", "seed", "run_seed", "publishers",
                                   "subscribers", "grid", "duration", "warmup", "trees")
    }
    row["variant"] = cell.get("variant", BASELINE)
    row.update(params)
    row.update({
        "instance_seed": instance_seed,
        "links": len(instance.links),
        "rate": rate,
        "rate_all": run.rate(0.0),
        "marking_rate": marking_rate,
        "marking_share": marking_rate / rate if rate > 0 else 0.0,
        "marking_changes": run.marking_changes,
        "conserved": run.sent == run.received,
        "cd_events": run.cd_events,
        "events": run.events,
        "births": run.entities["births"],
        "moves": run.entities["moves"],
        "deaths": run.entities["deaths"],
        "algebra_decisions": run.algebra_decisions,
        "series_total": total_series,
        "series_marking": marking_series,
        "build_seconds": built - start,
        "sim_seconds": run.wall_seconds,
        "events_per_second": run.events / run.wall_seconds if run.wall_seconds > 0 else 0.0,
        "task_seconds": time.perf_counter() - start,
        "host": socket.gethostname(),
        "pid": os.getpid(),
    })
    for kind in KINDS:
        row[_column(kind)] = run.sent[kind]
        row[rate_column(kind)] = run.rate(warm, kinds=(kind,))
        row[rate_column(kind, "marking")] = run.rate(warm, kinds=(kind,), cause="marking")
    return row


def _column(kind: str) -> str:
    return "sent_" + kind.lower().replace("/", "_")


def rate_column(kind: str, cause: str | None = None) -> str:
    """The column of the rate (after the warm-up) of the messages of ``kind``; with ``cause`` "marking",
    of those that descend from AMSP's rate announcements and marking changes rather than from a CD
    change (``RunResult.rate(cause=...)``)."""
    return ("rate_" if cause is None else f"rate_{cause}_") + kind.lower().replace("/", "_")


def schema() -> pa.Schema:
    # deferred: pyarrow (this module loads at every `cbalgebra` start)
    import pyarrow as pa

    # deferred: the simulation package loads networkx
    from cbalgebra.matchmaker.amsp import KINDS

    fields = [
        ("figure", pa.string()), ("x", pa.int64()), ("replicate", pa.int64()), ("protocol", pa.string()),
        ("variant", pa.string()), ("mcd_update", pa.string()), ("speed_factor", pa.float64()),
        ("delta", pa.float64()), ("significance", pa.float64()),
        ("seed", pa.int64()), ("run_seed", pa.int64()), ("publishers", pa.int64()), ("subscribers", pa.int64()),
        ("grid", pa.int64()), ("duration", pa.float64()), ("warmup", pa.float64()), ("trees", pa.string()),
        ("instance_seed", pa.int64()), ("links", pa.int64()), ("rate", pa.float64()), ("rate_all", pa.float64()),
        ("marking_rate", pa.float64()), ("marking_share", pa.float64()), ("marking_changes", pa.int64()),
        ("conserved", pa.bool_()), ("cd_events", pa.int64()), ("events", pa.int64()), ("births", pa.int64()),
        ("moves", pa.int64()), ("deaths", pa.int64()), ("algebra_decisions", pa.int64()),
        ("series_total", pa.list_(pa.int64())), ("series_marking", pa.list_(pa.int64())),
        ("build_seconds", pa.float64()), ("sim_seconds", pa.float64()), ("events_per_second", pa.float64()),
        ("task_seconds", pa.float64()), ("host", pa.string()), ("pid", pa.int64()),
    ]
    fields += [(_column(kind), pa.int64()) for kind in KINDS]
    fields += [(rate_column(kind), pa.float64()) for kind in KINDS]
    fields += [(rate_column(kind, "marking"), pa.float64()) for kind in KINDS]
    return pa.schema(fields)


def code_fingerprint() -> str:
    """A short hash of what the code a run's counts depend on does: the
    simulation, the Matchmaker instances and TDM, the transit-stub generator,
    and the covering algebra that decides MCDs (``cbalgebra.studies.fingerprint``)."""
    return fingerprint.code_fingerprint(
        f"amsp-model-{MODEL_VERSION}",
        ("cbalgebra.matchmaker", "cbalgebra.network.topology", "cbalgebra.covering", "cbalgebra.values"),
    )


def study(config: dict) -> Study:
    """The AMSP study of ``config`` (the sizes of :data:`FULL` or :data:`QUICK`, the figures, protocols,
    trees and seed) as the runner executes it."""
    return PLUGIN.study(config)


# --------------------------------------------------------------------------
# Command line


def config_from_args(args: argparse.Namespace) -> dict:
    """The configuration the command line asks for."""
    base = QUICK if args.quick else FULL
    config: dict[str, Any] = dict(base)
    config["fig12_subscribers"] = list(args.subscribers or base["fig12_subscribers"])
    config["fig13_grids"] = list(args.grids or base["fig13_grids"])
    if args.replicates is not None:
        config["fig12_replicates"] = config["fig13_replicates"] = args.replicates
    if args.duration is not None:
        config["duration"] = args.duration
    if args.sweep_duration is not None:
        config["fig12_duration"] = config["fig13_duration"] = args.sweep_duration
    for key in ("duration", "fig12_duration", "fig13_duration"):
        if config[key] <= config["warmup"]:
            raise ValueError(f"every run must outlast the {config['warmup']:g} s warm-up")
    if max(config["fig12_subscribers"] + [config["fig11_subscribers"], config["publishers"]]) > 96:
        raise ValueError("at most 96 publishers or subscribers: the network has 96 stub nodes")
    config.update({
        "seed": args.seed, "quick": bool(args.quick), "figures": list(args.figures),
        "protocols": list(args.protocols), "trees": args.trees,
        "sensitivity": not getattr(args, "no_sensitivity", False) and "fig13" in args.figures,
    })
    return config


class AmspPlugin(StudyPlugin):
    """The AMSP study as every study is run (:class:`cbalgebra.studies.plugin.StudyPlugin`)."""

    name = KIND
    summary = "BP, BS and AMSP signalling rates by simulation (the same paper, §6, Figures 11-13)"
    help = "Figures 11-13 of Matchmaker (Ge, Ji, Kurose & Towsley): BP, BS and AMSP signalling rates"
    description = ("Discrete-event simulation (SimPy) of broadcast publication, broadcast subscription and "
                   "AMSP (Ge, Ji, Kurose & Towsley, Matchmaker, §5-6) on transit-stub networks: Figure 11 "
                   "(rate over time), Figure 12 (rate against the number of subscribers) and Figure 13 (rate "
                   "against the grid). One Spark task per simulation run.")
    shared_flags = MappingProxyType({
        "replicates": "runs per point of Figures 12 and 13 and of the sensitivity study",
        "points": None,
    })
    key_columns = (*KEY_COLUMNS, "seed")
    model_version = MODEL_VERSION
    outputs = "cbalgebra.studies.amsp_report"
    run_cell = staticmethod(run_cell)
    cell_cost = staticmethod(cell_cost)

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--figures", type=_choices(FIGURES), default=FIGURES, metavar="LIST",
                       help="of fig11, fig12, fig13 (default: all)")
        p.add_argument("--protocols", type=_choices(PROTOCOLS), default=PROTOCOLS, metavar="LIST",
                       help="of BP, BS, AMSP (default: all)")
        p.add_argument("--duration", type=seconds_type, metavar="S",
                       help=f"simulated seconds of a Figure 11 run (default: {FULL['duration']:g}; "
                            f"quick: {QUICK['duration']:g})")
        p.add_argument("--sweep-duration", type=seconds_type, metavar="S",
                       help=f"simulated seconds of a Figure 12 or 13 run (default: {FULL['fig12_duration']:g}; "
                            f"quick: {QUICK['fig12_duration']:g})")
        p.add_argument("--subscribers", type=_counts, metavar="LIST",
                       help="Figure 12's numbers of subscribers (default: 5,10,20,30,40,50)")
        p.add_argument("--grids", type=_counts, metavar="LIST",
                       help="Figure 13's grid sizes G (a G × G world; default: 200,500,1000,1500,2000)")
        p.add_argument("--trees", choices=("per-source", "shared"), default="per-source",
                       help="multicast trees (default: per-source, as in §6.1)")
        p.add_argument("--no-sensitivity", action="store_true",
                       help="skip the sensitivity study (the MCD update policy, speeds, δ and the announce "
                            "threshold, one at a time)")

    def config_from_args(self, args: argparse.Namespace) -> dict:
        return config_from_args(args)

    def cells(self, config: Mapping) -> list[dict]:
        return cells(config)

    def schema(self) -> pa.Schema:
        return schema()

    def code_fingerprint(self, config: Mapping) -> str | None:
        return code_fingerprint()


#: An argparse type: a comma-separated list of distinct counts, each at least 1.
_counts = argument_type(functools.partial(int_list, what=None))


def _choices(allowed: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    """An argparse type: a non-empty comma-separated list of distinct names among ``allowed``."""
    return argument_type(functools.partial(name_list, what=None, allowed=allowed, required=True))


PLUGIN = AmspPlugin()
