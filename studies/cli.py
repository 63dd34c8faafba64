"""``cbalgebra study``: every registered study's command line (:data:`cbalgebra.studies.plugin.REGISTRY`).

Each study is a sub-command with the flags every study shares (``--out``,
``--seed``, ``--master``, ``--quick``, ...; :func:`common_arguments`) and its
own (``StudyPlugin.add_arguments``). One rule for the shared flags whose
meaning differs by study (``--replicates``, ``--points``): :data:`SHARED_FLAGS`
gives what each means in each study, and a flag that does not apply to a study
is refused with one line and exit 2 (never silently ignored); ``--help`` of
``study`` and of each study says what the flags mean there.

``register(subparsers)`` adds the ``study`` command to the top-level parser;
each sub-command's ``func(args)`` returns the exit code. Expected failures
print one line on stderr, with the exit codes of :mod:`cbalgebra.clibase`:
2 for bad arguments (an ``--out`` that is a file or holds another study),
69 when Java is missing or a Spark job fails, 130 when interrupted (the
finished batches are kept; rerun to resume).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

from cbalgebra.clibase import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    Subparsers,
    UsageError,
    check_output_folder,
    describe,
    plugin_main,
    require_java,
)
from cbalgebra.studies.flags import conf_type, positive_int_type, seed_type
from cbalgebra.studies.plugin import SHARED_FLAG_NAMES, StudyPlugin, registered
from cbalgebra.studies.spark import DEFAULT_MASTER, check_master

DEFAULT_SEED = 2003

#: What the shared flags mean in each study (None: the flag does not apply there and is refused).
SHARED_FLAGS: dict[str, dict[str, str | None]] = {p.name: dict(p.shared_flags) for p in registered()}
#: The studies, as ``cbalgebra study --help`` lists them.
STUDY_SUMMARY = "; ".join(f"{p.name}: {p.summary}" for p in registered())


def common_arguments(p: argparse.ArgumentParser, study: StudyPlugin) -> None:
    """The flags every study has, with what ``--replicates`` and ``--points`` mean in ``study``."""
    default_out = study.default_out
    p.add_argument("--out", type=Path, default=Path(default_out), metavar="DIR",
                   help=f"output directory; a rerun into it resumes (default: {default_out})")
    p.add_argument("--seed", type=seed_type, default=DEFAULT_SEED, metavar="N",
                   help=f"base seed; each cell's seed derives from it and the cell key (default: {DEFAULT_SEED})")
    for flag, metavar in zip(SHARED_FLAG_NAMES, ("R", "P"), strict=True):
        meaning = study.shared_flags[flag]
        # A flag that does not apply is still parsed, so that run_command can refuse it in one line.
        p.add_argument(f"--{flag}", type=positive_int_type, metavar=metavar,
                       help=meaning if meaning is not None else argparse.SUPPRESS)
    p.add_argument("--master", default=DEFAULT_MASTER, metavar="URL",
                   help="Spark master: local[*] (default), local[N] or spark://HOST:PORT")
    p.add_argument("--conf", type=conf_type, action="append", default=[], metavar="KEY=VALUE",
                   help="extra Spark configuration (repeatable)")
    p.add_argument("--quick", action="store_true", help="the same code at a size that takes seconds")
    p.add_argument("--batch-size", type=positive_int_type, metavar="N",
                   help="cells per committed batch (default: by estimated cost)")
    p.add_argument("--no-progress", action="store_true", help="do not print progress on stderr")


def add_study_command(sub: Subparsers, study: StudyPlugin) -> argparse.ArgumentParser:
    """Add ``study``'s sub-command: the shared flags, its own, and :func:`run_command` as ``func``."""
    p = sub.add_parser(study.name, help=study.help, description=study.description)
    common_arguments(p, study)
    study.add_arguments(p)
    p.set_defaults(func=functools.partial(run_command, study=study))
    return p


def register(subparsers: Subparsers) -> argparse.ArgumentParser:
    """Add ``study`` with a sub-command per registered study to a subparsers object."""
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
    for plugin in registered():
        add_study_command(sub, plugin)
    return study


# --------------------------------------------------------------------------


def _report(prog: str, error: Exception) -> int:
    """The one error policy of the command line (:func:`cbalgebra.clibase.describe`: a
    :class:`cbalgebra.CbalgebraError` by its ``exit_code``, a failed Spark job, a file that
    cannot be written), the line prefixed by the study's command; anything else is a bug."""
    found = describe(error)
    if found is None:
        raise error  # cbalgebra.clibase reports it (exit 70)
    line, code = found
    sys.stderr.write(f"{prog}: {line}\n")
    return code


def run_command(args: argparse.Namespace, study: StudyPlugin) -> int:
    """Run (or resume) the design the flags ask for, then write its outputs; the exit code."""
    # pandas and pyarrow load when a study runs, not at every start of the CLI.
    from cbalgebra.studies import jobs

    prog = f"cbalgebra study {study.name}"
    try:
        for flag, meaning in study.shared_flags.items():
            if meaning is None and getattr(args, flag, None) is not None:
                raise UsageError(f"--{flag} does not apply to this study (see cbalgebra study {study.name} --help)")
        try:
            check_master(args.master)
            check_output_folder(args.out)
            design = study.study_from_args(args)
        except ValueError as e:  # the master URL and a design check their own parameters: bad flags
            raise UsageError(str(e)) from None
        require_java()  # before Spark starts, rather than its launcher's "JAVA_HOME is not set"
        outputs = jobs.execute(
            design, args.out, master=args.master, conf=dict(args.conf), batch_size=args.batch_size,
            progress=not args.no_progress,
        )
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted; finished batches are saved in {args.out}; "
                         "rerun the same command to resume\n")
        return EXIT_INTERRUPTED
    except Exception as e:  # broad on purpose: _report applies the one policy and re-raises a bug
        return _report(prog, e)
    for kind, path in outputs.items():
        print(f"{kind}: {path}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    return plugin_main(register, argv, "python -m cbalgebra.studies")
