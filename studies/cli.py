"""``cbalgebra study``: every study's command line (alpha-general and alpha-dnf here; routing,
matchmaker and amsp in their own modules, through ``common_arguments`` and ``run_command``).

One rule for the flags every study shares (``--replicates``, ``--points``): :data:`SHARED_FLAGS`
gives what each means in each study, and a flag that does not apply to a study is refused with
one line and exit 2 (never silently ignored); ``--help`` of ``study`` and of each study says what
the flags mean there.

``register(subparsers)`` adds the ``study`` command to the top-level parser;
each sub-command's ``func(args)`` returns the exit code. Expected failures
print one line on stderr, with the exit codes of :mod:`cbalgebra.clibase`:
2 for bad arguments (an ``--out`` that is a file or holds another study),
69 when Java is missing or a Spark job fails, 130 when interrupted (the
finished batches are kept; rerun to resume).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cbalgebra.clibase import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNAVAILABLE,
    SPARK_FAILURES,
    Subparsers,
    UsageError,
    check_output_folder,
    number_argument,
    plugin_main,
    require_java,
    spark_failure_line,
)
from cbalgebra.reducers import REDUCERS
from cbalgebra.studies.spark import DEFAULT_MASTER, check_master

if TYPE_CHECKING:
    from cbalgebra.studies.runner import Study

DEFAULT_SEED = 2003

#: Studies that live in their own modules. Each module has ``add_command(subparsers)``,
#: which adds its sub-command with ``common_arguments`` and sets ``func`` to a function
#: that calls ``run_command(args, build)``. Adding a study adds one line here and
#: touches no other study. The modules load at every ``cbalgebra`` start, so they
#: must import pandas, Spark and the heavy packages inside functions only.
STUDY_MODULES: tuple[str, ...] = (
    "cbalgebra.studies.routing", "cbalgebra.studies.matchmaker", "cbalgebra.studies.amsp",
)

#: What the shared flags mean in each study (None: the flag does not apply there and is refused).
SHARED_FLAGS: dict[str, dict[str, str | None]] = {
    "alpha-general": {"replicates": "predicate sets per grid point",
                      "points": "points of the log grid of nk/|M|"},
    "alpha-dnf": {"replicates": "predicate sets per grid point", "points": "points of the log grid of n"},
    "routing": {"replicates": "replicates (graph, roles, predicates, messages) per point",
                "points": "points of the log grid of n between --min-n and --max-n"},
    "matchmaker": {"replicates": "samples (random instances) at the paper's point", "points": None},
    "amsp": {"replicates": "runs per point of Figures 12 and 13 and of the sensitivity study", "points": None},
}
#: The studies, as ``cbalgebra study --help`` lists them.
STUDY_SUMMARY = (
    "alpha-general and alpha-dnf: the disjunction advantage alpha (Carzaniga, Rembert & Wolf 2006, §4, "
    "Figures 5-7); routing: the memory of PSF, iPS, PIF and DRP (the same paper, §3); matchmaker: link "
    "marking on random instances (Ge, Ji, Kurose & Towsley, Matchmaker, §4.4, Figures 7-8); amsp: BP, BS and "
    "AMSP signalling rates by simulation (the same paper, §6, Figures 11-13)"
)

#: Full sizes and --quick sizes.
GENERAL_FULL = {"universes": "10000,100000,1000000", "points": 25, "replicates": 10}
GENERAL_QUICK = {"universes": "10000", "points": 7, "replicates": 4}
DNF_FULL = {"max_n": 10_000, "points": 17, "replicates": 30}
DNF_QUICK = {"max_n": 200, "points": 6, "replicates": 5}


def _list(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise UsageError(f"empty list {text!r}")
    return items


def _int_value(text: str, what: str) -> int:
    try:
        value = float(text) if any(c in text.lower() for c in ".e") else int(text)
    except ValueError:
        raise UsageError(f"{what}: {text!r} is not a number") from None
    if value != int(value):
        raise UsageError(f"{what}: {text!r} is not an integer")
    return int(value)


def _positive_int(text: str) -> int:
    try:
        value = _int_value(text, "value")
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e).split(": ", 1)[1]) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


_positive_float = number_argument(float, above=0, must="a positive number")


def _conf(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    key, value = text.split("=", 1)
    if not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key.strip(), value


def study_name(p: argparse.ArgumentParser) -> str:
    """The study a sub-command parser is for: the last word of its ``prog`` ("cbalgebra study amsp")."""
    return p.prog.rsplit(" ", 1)[-1]


def common_arguments(p: argparse.ArgumentParser, default_out: str) -> None:
    meanings = SHARED_FLAGS[study_name(p)]
    p.add_argument("--out", type=Path, default=Path(default_out), metavar="DIR",
                   help=f"output directory; a rerun into it resumes (default: {default_out})")
    p.add_argument("--seed", type=number_argument(int, least=0, must="non-negative"), default=DEFAULT_SEED, metavar="N",
                   help=f"base seed; each cell's seed derives from it and the cell key (default: {DEFAULT_SEED})")
    for flag, metavar in (("replicates", "R"), ("points", "P")):
        meaning = meanings[flag]
        # A flag that does not apply is still parsed, so that run_command can refuse it in one line.
        p.add_argument(f"--{flag}", type=_positive_int, metavar=metavar,
                       help=meaning if meaning is not None else argparse.SUPPRESS)
    p.add_argument("--master", default=DEFAULT_MASTER, metavar="URL",
                   help="Spark master: local[*] (default), local[N] or spark://HOST:PORT")
    p.add_argument("--conf", type=_conf, action="append", default=[], metavar="KEY=VALUE",
                   help="extra Spark configuration (repeatable)")
    p.add_argument("--quick", action="store_true", help="the same code at a size that takes seconds")
    p.add_argument("--batch-size", type=_positive_int, metavar="N",
                   help="cells per committed batch (default: by estimated cost)")
    p.add_argument("--no-progress", action="store_true", help="do not print progress on stderr")


def register(subparsers: Subparsers) -> argparse.ArgumentParser:
    """Add ``study`` with ``alpha-general``, ``alpha-dnf`` and the STUDY_MODULES to a subparsers object."""
    study = subparsers.add_parser(
        "study", help="the papers' studies on Spark (alpha, routing, Matchmaker, AMSP)",
        description=f"The studies that reproduce the papers' figures, run as Spark jobs: locally by default, on "
                    f"a standalone cluster with --master. {STUDY_SUMMARY}.",
        epilog="The flags every study shares: "
               + "; ".join(f"{name}: " + ", ".join(
                   f"--{flag} {meaning}" if meaning is not None else f"no --{flag}"
                   for flag, meaning in flags.items()) for name, flags in SHARED_FLAGS.items())
               + ". A flag that does not apply to a study is an error (exit 2).")
    sub = study.add_subparsers(dest="study_command", metavar="STUDY")
    sub.required = True

    g = sub.add_parser(
        "alpha-general", help="Figure 5: alpha in the general data model (sets of messages)",
        description="Figure 5 of Carzaniga, Rembert & Wolf 2006 (§4.1): predicates are k-subsets of a "
                    "universe of |M| messages, uniform or Zipf; alpha = |union| / nk, beside the closed form.")
    common_arguments(g, "out/alpha-general")
    g.add_argument("--universes", metavar="LIST",
                   help=f"universe sizes |M| (default: {GENERAL_FULL['universes']}; "
                        f"quick: {GENERAL_QUICK['universes']})")
    g.add_argument("--distributions", default="uniform,zipf", metavar="LIST",
                   help="uniform and/or zipf (default: both)")
    g.add_argument("--selectivity", type=_positive_float, metavar="F",
                   help="k/|M| of the sweep (default: 0.001, so the smallest ratio is one predicate)")
    g.add_argument("--min-ratio", type=_positive_float, default=0.001, metavar="X", help="default 0.001")
    g.add_argument("--max-ratio", type=_positive_float, default=10.0, metavar="X", help="default 10")
    g.add_argument("--no-zoom", action="store_true",
                   help="skip the series of 1%% predicates (n = 1..10) of the zoomed Zipf panel")
    g.set_defaults(func=run_general)

    d = sub.add_parser(
        "alpha-dnf", help="Figures 6 and 7: alpha of random DNF predicates under a reducer",
        description="Figures 6 and 7 of Carzaniga, Rembert & Wolf 2006 (§4.2): random one-conjunction "
                    "predicates over Zipf or uniform attribute names, reduced; alpha = reduced size / total size.")
    common_arguments(d, "out/alpha-dnf")
    d.add_argument("--max-n", type=_positive_int, metavar="N",
                   help=f"largest number of predicates (default: {DNF_FULL['max_n']}; quick: {DNF_QUICK['max_n']})")
    d.add_argument("--min-n", type=_positive_int, default=1, metavar="N",
                   help="smallest number of predicates (default: 1)")
    d.add_argument("--scenarios", default="zipf-500,zipf-5000,uniform-50,uniform-500", metavar="LIST",
                   help="of zipf-500, zipf-5000, uniform-50, uniform-500 (default: all four)")
    d.add_argument("--reducers", default="siena", metavar="LIST",
                   help="reducers run side by side on the same predicate sets, of siena, exact, merge, "
                        "cover, minimal (default: siena)")
    d.set_defaults(func=run_dnf)
    for module in STUDY_MODULES:
        importlib.import_module(module).add_command(sub)
    return study


# --------------------------------------------------------------------------


def sizes_from_args(args: argparse.Namespace, full: dict, quick: dict) -> dict:
    base = quick if args.quick else full
    return {key: (getattr(args, key, None) if getattr(args, key, None) is not None else value)
            for key, value in base.items()}


def _fail(prog: str, message: str, code: int) -> int:
    sys.stderr.write(f"{prog}: error: {message}\n")
    return code


def general_study_from_args(args: argparse.Namespace) -> Study:
    # numpy, pandas and pyarrow load when a study runs, not at every start of the CLI.
    from cbalgebra.studies import general
    # deferred: the jobs load pandas and pyarrow, kept out of `cbalgebra --help`
    from cbalgebra.studies.jobs import general_study

    sizes = sizes_from_args(args, GENERAL_FULL, GENERAL_QUICK)
    universes = [_int_value(u, "--universes") for u in _list(sizes["universes"])]
    if any(u < 1 for u in universes):
        raise UsageError("--universes: every universe must hold at least one message")
    distributions = _list(args.distributions)
    for dist in distributions:
        if dist not in general.DISTRIBUTIONS:
            raise UsageError(f"--distributions: unknown distribution {dist!r} (uniform, zipf)")
    if args.min_ratio > args.max_ratio:
        raise UsageError("--min-ratio must not exceed --max-ratio")
    selectivity = args.selectivity if args.selectivity is not None else general.DEFAULT_SELECTIVITY
    if selectivity > 1:
        raise UsageError("--selectivity is k/|M| and must be at most 1")
    return general_study(
        universes=universes, points=sizes["points"], replicates=sizes["replicates"], seed=args.seed,
        distributions=distributions, selectivity=selectivity, min_ratio=args.min_ratio,
        max_ratio=args.max_ratio, zoom=not args.no_zoom, quick=args.quick,
    )


def dnf_study_from_args(args: argparse.Namespace) -> Study:
    # numpy, pandas and pyarrow load when a study runs, not at every start of the CLI.
    from cbalgebra.studies import dnf
    # deferred: the jobs load pandas and pyarrow, kept out of `cbalgebra --help`
    from cbalgebra.studies.jobs import dnf_study

    sizes = sizes_from_args(args, DNF_FULL, DNF_QUICK)
    scenarios = list(dict.fromkeys(_list(args.scenarios)))
    for name in scenarios:
        if name not in dnf.SCENARIOS:
            raise UsageError(f"--scenarios: unknown scenario {name!r} ({', '.join(dnf.SCENARIOS)})")
    reducers = list(dict.fromkeys(_list(args.reducers)))
    for name in reducers:
        if name not in REDUCERS:
            raise UsageError(f"--reducers: unknown reducer {name!r} ({', '.join(REDUCERS)})")
    if args.min_n > sizes["max_n"]:
        raise UsageError("--min-n must not exceed --max-n")
    return dnf_study(
        scenarios=scenarios, max_n=sizes["max_n"], points=sizes["points"], min_n=args.min_n,
        replicates=sizes["replicates"], reducers=reducers, seed=args.seed, quick=args.quick,
    )


def run_command(args: argparse.Namespace, build: Callable[[argparse.Namespace], Study]) -> int:
    # pandas and pyarrow load when a study runs, not at every start of the CLI.
    from cbalgebra.studies import jobs
    # deferred: the runner loads pandas and pyarrow, kept out of `cbalgebra --help`
    from cbalgebra.studies.runner import StudyError

    prog = f"cbalgebra study {args.study_command}"
    for flag, meaning in SHARED_FLAGS.get(args.study_command, {}).items():
        if meaning is None and getattr(args, flag, None) is not None:
            return _fail(prog, f"--{flag} does not apply to this study (see cbalgebra study "
                               f"{args.study_command} --help)", EXIT_BAD_INPUT)
    try:
        check_master(args.master)
        check_output_folder(args.out)
        study = build(args)
    except (UsageError, ValueError, StudyError) as e:
        return _fail(prog, str(e), EXIT_BAD_INPUT)
    require_java()  # before Spark starts, rather than its launcher's "JAVA_HOME is not set"
    try:
        outputs = jobs.execute(
            study, args.out, master=args.master, conf=dict(args.conf), batch_size=args.batch_size,
            progress=not args.no_progress,
        )
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted; finished batches are saved in {args.out}; "
                         "rerun the same command to resume\n")
        return EXIT_INTERRUPTED
    except StudyError as e:  # --out holds another study, or results of other code
        return _fail(prog, str(e), EXIT_BAD_INPUT)
    except OSError as e:  # cannot write the output directory
        return _fail(prog, f"{e.strerror or e}: {e.filename or args.out}", EXIT_BAD_INPUT)
    except Exception as e:  # a Spark job that failed: one line, not a JVM trace
        if any(cls.__name__ in SPARK_FAILURES for cls in type(e).__mro__):
            return _fail(prog, f"Spark job failed: {spark_failure_line(e)}", EXIT_UNAVAILABLE)
        raise  # a bug: cbalgebra.clibase reports it (exit 70)
    for kind, path in outputs.items():
        print(f"{kind}: {path}")
    return EXIT_OK


def run_general(args: argparse.Namespace) -> int:
    return run_command(args, general_study_from_args)


def run_dnf(args: argparse.Namespace) -> int:
    return run_command(args, dnf_study_from_args)


def main(argv: Sequence[str] | None = None) -> int:
    return plugin_main(register, argv, "python -m cbalgebra.studies")
