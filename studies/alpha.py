"""The two α studies as :class:`~cbalgebra.studies.plugin.StudyPlugin`: ``alpha-general`` (Figure 5)
and ``alpha-dnf`` (Figures 6 and 7) of Carzaniga, Rembert & Wolf, "Understanding Content-Based Routing
Schemes" (TR 2006/05), §4.

The models are :mod:`cbalgebra.studies.general` and :mod:`cbalgebra.studies.dnf`; the summaries
:mod:`~cbalgebra.studies.summary`, the figures :mod:`~cbalgebra.studies.plots` and the reports
:mod:`~cbalgebra.studies.report`. This module loads at every start of ``cbalgebra`` (to list the
sub-commands), so it imports pandas, pyarrow, matplotlib and sympy inside its functions only.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from cbalgebra.errors import UsageError
from cbalgebra.reducers import REDUCERS
from cbalgebra.studies import dnf, general
from cbalgebra.studies.flags import name_list, positive_float_type, positive_int_type, whole_number
from cbalgebra.studies.plugin import StudyPlugin

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from cbalgebra.studies.runner import Study

#: Columns that depend on where and when a cell ran, not on what it computed.
VOLATILE_COLUMNS = ("gen_seconds", "reduce_seconds", "task_seconds", "host", "pid")
#: The columns every α result row ends with: the task's times and where it ran.
_TIMES = (("gen_seconds", "f"), ("reduce_seconds", "f"), ("task_seconds", "f"), ("host", "s"), ("pid", "i"))

#: Full sizes and --quick sizes.
GENERAL_FULL = {"universes": "10000,100000,1000000", "points": 25, "replicates": 10}
GENERAL_QUICK = {"universes": "10000", "points": 7, "replicates": 4}
DNF_FULL = {"max_n": 10_000, "points": 17, "replicates": 30}
DNF_QUICK = {"max_n": 200, "points": 6, "replicates": 5}


def _schema(fields: Sequence[tuple[str, str]], added_later: Sequence[tuple[str, str]] = ()) -> pa.Schema:
    """The result schema: ``fields``, then the columns ``added_later`` (which rows committed before they
    existed lack: :func:`cbalgebra.studies.runner.column_added_later`), then the task's times."""
    # deferred: pyarrow and the runner (this module loads at every `cbalgebra` start)
    import pyarrow as pa

    from cbalgebra.studies.runner import column_added_later

    types = {"s": pa.string(), "i": pa.int64(), "f": pa.float64(), "b": pa.bool_()}
    return pa.schema([
        *(pa.field(name, types[t]) for name, t in fields),
        *(column_added_later(name, types[t]) for name, t in added_later),
        *(pa.field(name, types[t]) for name, t in _TIMES),
    ])


def sizes_from_args(args: argparse.Namespace, full: dict, quick: dict) -> dict:
    """The sizes of ``full`` (or ``quick`` with ``--quick``), each replaced by its flag where given."""
    base = quick if args.quick else full
    return {key: (getattr(args, key, None) if getattr(args, key, None) is not None else value)
            for key, value in base.items()}


# --------------------------------------------------------------------------
# alpha-general: Figure 5


def general_config(
    universes: Sequence[int] | None = None,
    points: int = 25,
    replicates: int = 10,
    seed: int = 2003,
    distributions: Sequence[str] | None = None,
    selectivity: float | None = None,
    min_ratio: float | None = None,
    max_ratio: float | None = None,
    zoom: bool = True,
    quick: bool = False,
) -> dict:
    """The design of a Figure 5 study (the defaults: the paper's three universes, both distributions)."""
    return {
        "universes": list(universes if universes is not None else general.DEFAULT_UNIVERSES), "points": points,
        "replicates": replicates, "seed": seed,
        "distributions": list(distributions if distributions is not None else general.DISTRIBUTIONS),
        "selectivity": selectivity if selectivity is not None else general.DEFAULT_SELECTIVITY,
        "min_ratio": min_ratio if min_ratio is not None else general.MIN_RATIO,
        "max_ratio": max_ratio if max_ratio is not None else general.MAX_RATIO,
        "zoom": zoom, "zoom_selectivity": general.ZOOM_SELECTIVITY, "quick": quick,
    }


def general_study(**design: Any) -> Study:
    """A Figure 5 study; ``design`` as :func:`general_config` takes it."""
    return ALPHA_GENERAL.study(general_config(**design))


class AlphaGeneral(StudyPlugin):
    """α in the general data model (§4.1, Figure 5): predicates are k-subsets of |M| messages."""

    name = "alpha-general"
    summary = "the disjunction advantage alpha in the general data model (Carzaniga, Rembert & Wolf 2006, §4.1, " \
              "Figure 5)"
    help = "Figure 5: alpha in the general data model (sets of messages)"
    description = ("Figure 5 of Carzaniga, Rembert & Wolf 2006 (§4.1): predicates are k-subsets of a universe of "
                   "|M| messages, uniform or Zipf; alpha = |union| / nk, beside the closed form.")
    shared_flags = MappingProxyType({
        "replicates": "predicate sets per grid point",
        "points": "points of the log grid of nk/|M|",
    })
    key_columns = ("distribution", "universe", "k", "n", "replicate", "seed")
    model_version = general.MODEL_VERSION

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--universes", metavar="LIST",
                            help=f"universe sizes |M| (default: {GENERAL_FULL['universes']}; "
                                 f"quick: {GENERAL_QUICK['universes']})")
        parser.add_argument("--distributions", default="uniform,zipf", metavar="LIST",
                            help="uniform and/or zipf (default: both)")
        parser.add_argument("--selectivity", type=positive_float_type, metavar="F",
                            help="k/|M| of the sweep (default: 0.001, so the smallest ratio is one predicate)")
        parser.add_argument("--min-ratio", type=positive_float_type, default=0.001, metavar="X",
                            help="default 0.001")
        parser.add_argument("--max-ratio", type=positive_float_type, default=10.0, metavar="X", help="default 10")
        parser.add_argument("--no-zoom", action="store_true",
                            help="skip the series of 1%% predicates (n = 1..10) of the zoomed Zipf panel")

    def config_from_args(self, args: argparse.Namespace) -> dict:
        sizes = sizes_from_args(args, GENERAL_FULL, GENERAL_QUICK)
        universes = [whole_number(u, "--universes") for u in name_list(sizes["universes"], "--universes",
                                                                          required=True)]
        if any(u < 1 for u in universes):
            raise UsageError("--universes: every universe must hold at least one message")
        distributions = name_list(args.distributions, "--distributions", general.DISTRIBUTIONS, "distribution ",
                                  required=True)
        if args.min_ratio > args.max_ratio:
            raise UsageError("--min-ratio must not exceed --max-ratio")
        selectivity = args.selectivity if args.selectivity is not None else general.DEFAULT_SELECTIVITY
        if selectivity > 1:
            raise UsageError("--selectivity is k/|M| and must be at most 1")
        return general_config(
            universes=universes, points=sizes["points"], replicates=sizes["replicates"], seed=args.seed,
            distributions=distributions, selectivity=selectivity, min_ratio=args.min_ratio,
            max_ratio=args.max_ratio, zoom=not args.no_zoom, quick=args.quick,
        )

    def cells(self, config: Mapping) -> list[dict]:
        grid = general.general_grid(config["universes"], config["points"], config["distributions"],
                                    config["selectivity"], config["min_ratio"], config["max_ratio"], config["zoom"],
                                    config["zoom_selectivity"])
        return general.general_cells(grid, config["replicates"], config["seed"])

    run_cell = staticmethod(general.run_general_cell)
    cell_cost = staticmethod(general.general_cell_cost)

    def schema(self) -> pa.Schema:
        return _schema((("distribution", "s"), ("universe", "i"), ("k", "i"), ("n", "i"), ("replicate", "i"),
                        ("seed", "i"), ("series", "s"), ("cell_seed", "i"), ("ratio", "f"), ("union", "i"),
                        ("alpha", "f")))

    def code_fingerprint(self, config: Mapping) -> str | None:
        return None  # a numpy model of sets, versioned by model_version alone

    def summarise(self, results: pd.DataFrame, config: dict) -> pd.DataFrame:
        # deferred: pandas
        from cbalgebra.studies.summary import general_summary

        return general_summary(results)

    def draw(self, summary: pd.DataFrame, out_dir: Path, config: dict, figures: str) -> list[Path]:
        # deferred: matplotlib
        from cbalgebra.studies.plots import plot_general

        return plot_general(summary, out_dir, config.get("selectivity"))

    def report(self, summary: pd.DataFrame, results: pd.DataFrame, config: dict, timing: dict | None) -> str:
        # deferred: pandas and sympy
        from cbalgebra.studies.report import general_report

        return general_report(summary, results, config, timing)


ALPHA_GENERAL = AlphaGeneral()


# --------------------------------------------------------------------------
# alpha-dnf: Figures 6 and 7


def dnf_config(
    scenarios: Sequence[str] | None = None,
    max_n: int = 10_000,
    points: int = 17,
    min_n: int = 1,
    replicates: int = 30,
    reducers: Sequence[str] | None = None,
    seed: int = 2003,
    quick: bool = False,
    budget: float = dnf.DEFAULT_BUDGET,
    reducer_max_n: Mapping[str, int] | None = None,
) -> dict:
    """The design of a Figures 6 and 7 study (the defaults: the paper's four scenarios, ``siena``).

    ``budget``: seconds ``minimal`` may spend per independent group of a cell (``minimize``'s budget);
    ``reducer_max_n``: the largest n each reducer named there runs on (the others run on every n).
    """
    return {
        "scenarios": list(scenarios if scenarios is not None else dnf.SCENARIOS), "max_n": max_n, "min_n": min_n,
        "points": points, "ns": dnf.dnf_grid(max_n, points, min_n), "replicates": replicates,
        "reducers": list(reducers if reducers is not None else (dnf.DEFAULT_REDUCER,)), "seed": seed,
        "quick": quick, "budget": float(budget), "reducer_max_n": dict(reducer_max_n or {}),
    }


def reducer_limits(text: str, reducers: Sequence[str]) -> dict[str, int]:
    """``--reducer-max-n``: ``REDUCER=N`` pairs, each reducer among ``reducers`` and N at least 1."""
    limits: dict[str, int] = {}
    for item in name_list(text, "--reducer-max-n"):
        reducer, equals, bound = item.partition("=")
        reducer = reducer.strip()
        if not equals:
            raise UsageError(f"--reducer-max-n: {item!r} is not REDUCER=N")
        if reducer not in reducers:
            raise UsageError(f"--reducer-max-n: {reducer!r} is not among --reducers ({', '.join(reducers)})")
        n = whole_number(bound.strip(), "--reducer-max-n")
        if n < 1:
            raise UsageError(f"--reducer-max-n: {item!r}: N must be at least 1")
        limits[reducer] = n
    return limits


def dnf_study(**design: Any) -> Study:
    """A Figures 6 and 7 study; ``design`` as :func:`dnf_config` takes it."""
    return ALPHA_DNF.study(dnf_config(**design))


class AlphaDnf(StudyPlugin):
    """α of random DNF predicates under a reducer (§4.2, Figures 6 and 7)."""

    name = "alpha-dnf"
    summary = "alpha of random DNF predicates under a reducer (the same paper, §4.2, Figures 6 and 7)"
    help = "Figures 6 and 7: alpha of random DNF predicates under a reducer"
    description = ("Figures 6 and 7 of Carzaniga, Rembert & Wolf 2006 (§4.2): random one-conjunction predicates "
                   "over Zipf or uniform attribute names, reduced; alpha = reduced size / total size.")
    shared_flags = MappingProxyType({
        "replicates": "predicate sets per grid point",
        "points": "points of the log grid of n",
    })
    key_columns = ("scenario", "n", "replicate", "reducer", "seed")
    model_version = dnf.MODEL_VERSION

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--max-n", type=positive_int_type, metavar="N",
                            help=f"largest number of predicates (default: {DNF_FULL['max_n']}; "
                                 f"quick: {DNF_QUICK['max_n']})")
        parser.add_argument("--min-n", type=positive_int_type, default=1, metavar="N",
                            help="smallest number of predicates (default: 1)")
        parser.add_argument("--scenarios", default="zipf-500,zipf-5000,uniform-50,uniform-500", metavar="LIST",
                            help="of zipf-500, zipf-5000, uniform-50, uniform-500 (default: all four)")
        parser.add_argument("--reducers", default="siena", metavar="LIST",
                            help="reducers run side by side on the same predicate sets, of siena, exact, merge, "
                                 "cover, minimal (default: siena, the paper's simple reducer); minimal also "
                                 "records a proven lower bound and whether its size is proven optimal")
        parser.add_argument("--budget", type=positive_float_type, default=dnf.DEFAULT_BUDGET, metavar="SECONDS",
                            help="seconds minimal may spend on each independent group of a cell before it "
                                 f"returns its best cover and a proven lower bound (default: {dnf.DEFAULT_BUDGET:g})")
        parser.add_argument("--reducer-max-n", default="", metavar="LIST",
                            help="REDUCER=N,...: the largest number of predicates a reducer runs on "
                                 "(default: every reducer on every n)")

    def config_from_args(self, args: argparse.Namespace) -> dict:
        sizes = sizes_from_args(args, DNF_FULL, DNF_QUICK)
        scenarios = name_list(args.scenarios, "--scenarios", tuple(dnf.SCENARIOS), "scenario ", required=True)
        reducers = name_list(args.reducers, "--reducers", tuple(REDUCERS), "reducer ", required=True)
        if args.min_n > sizes["max_n"]:
            raise UsageError("--min-n must not exceed --max-n")
        return dnf_config(scenarios=scenarios, max_n=sizes["max_n"], points=sizes["points"], min_n=args.min_n,
                          replicates=sizes["replicates"], reducers=reducers, seed=args.seed, quick=args.quick,
                          budget=args.budget, reducer_max_n=reducer_limits(args.reducer_max_n, reducers))

    def cells(self, config: Mapping) -> list[dict]:
        # Manifests written before --budget and --reducer-max-n existed hold neither: the defaults.
        return dnf.dnf_cells(config["scenarios"], config["ns"], config["replicates"], config["reducers"],
                             config["seed"], config.get("budget", dnf.DEFAULT_BUDGET),
                             config.get("reducer_max_n"))

    run_cell = staticmethod(dnf.run_dnf_cell)
    cell_cost = staticmethod(dnf.dnf_cell_cost)

    def schema(self) -> pa.Schema:
        return _schema((("scenario", "s"), ("n", "i"), ("replicate", "i"), ("reducer", "s"), ("seed", "i"),
                        ("distribution", "s"), ("names", "i"), ("cell_seed", "i"), ("size", "i"),
                        ("reduced_size", "i"), ("alpha", "f")),
                       added_later=(("alpha_lower", "f"), ("proven", "b")))

    def code_fingerprint(self, config: Mapping) -> str | None:
        return dnf.code_fingerprint()

    def summarise(self, results: pd.DataFrame, config: dict) -> pd.DataFrame:
        # deferred: pandas
        from cbalgebra.studies.summary import dnf_summary

        return dnf_summary(results, tuple(dnf.SCENARIOS), config.get("reducers", ()))

    def draw(self, summary: pd.DataFrame, out_dir: Path, config: dict, figures: str) -> list[Path]:
        # deferred: matplotlib
        from cbalgebra.studies.plots import plot_dnf

        which = ("overview",) if figures == "overview" else ("fig6", "fig7", "overview")
        return [p for paths in plot_dnf(summary, out_dir, which).values() for p in paths]

    def report(self, summary: pd.DataFrame, results: pd.DataFrame, config: dict, timing: dict | None) -> str:
        # deferred: pandas
        from cbalgebra.studies.report import dnf_report

        return dnf_report(summary, results, config, timing)


ALPHA_DNF = AlphaDnf()
