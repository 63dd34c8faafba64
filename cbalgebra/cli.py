"""The ``cbalgebra`` command line: the registry of every command.

Core commands live here (parse, covers, overlaps, match, demo). The reducers,
the matcher, the studies and the poset add theirs through a
``register(subparsers)`` function in their ``cli`` module; this module
imports them, they never import it. Exit codes and the mapping of errors to
messages are in :mod:`cbalgebra.clibase`, the one policy for all commands:
0 yes / success, 1 no, 2 bad input or usage, 3 undecided, 69 a needed
program (Graphviz ``dot``, Java) is missing, 70 internal error. No
traceback reaches the user unless CBALGEBRA_DEBUG is set.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections.abc import Iterable
from typing import IO, Any

from cbalgebra import clibase, covering, demo, parse, semantics
from cbalgebra._docrender import rendered_document
from cbalgebra.clibase import EXIT_NO, EXIT_YES, UsageError, argument_text, read_text
from cbalgebra.matcher import cli as _matcher_cli
from cbalgebra.matchmaker import cli as _matchmaker_cli
from cbalgebra.network import cli as _network_cli
from cbalgebra.poset import cli as _poset_cli
from cbalgebra.reducers import cli as _reducers_cli
from cbalgebra.studies import cli as _studies_cli
from cbalgebra.cliforms import looks_like_document, to_json
from cbalgebra.values import Advertisement, Filter, Message, Predicate

#: The plug-ins, in the order of ``cbalgebra --help``.
PLUGINS = (_reducers_cli, _matcher_cli, _studies_cli, _poset_cli, _network_cli, _matchmaker_cli)

# --------------------------------------------------------------- commands
def _parse_kind(text: str, kind: str) -> Any:
    if kind == "auto":
        kind = "document" if looks_like_document(text) else "predicate"
    return parse.parse_any(text, kind)


def _json_item(item: Any) -> str:
    """One value as ``parse --json`` prints it in a document: on one line.
    (Python's indenting encoder is pure Python and took half the time of a
    50 MB document; this one is the C encoder.)"""
    return _ENCODE_ONE_LINE(to_json(item))


_ENCODE_ONE_LINE = json.JSONEncoder(ensure_ascii=False).encode

#: Statements printed per write: one write each cost about as much as
#: formatting a small statement.
_WRITE_BATCH = 256


def _write_lines(lines: Iterable[str], out: IO[str], as_json: bool) -> None:
    """Write ``lines`` (one printed statement each) as they come: a JSON
    array with one item per line, or one statement per line. A large
    document never sits whole in memory. When the source raises (a
    ParseError), what came before it is written first, as if each line had
    been written on its own; a batch is written once, even if that fails."""
    batch: list[str] = []
    first = True
    try:
        for line in lines:
            if as_json:
                batch.append(("[\n" if first else ",\n") + line)
                first = False
            else:
                batch.append(line + "\n")
            if len(batch) >= _WRITE_BATCH:
                chunk = "".join(batch)
                batch.clear()
                out.write(chunk)
    finally:
        if batch:
            out.write("".join(batch))
    if as_json:
        out.write("[]\n" if first else "\n]\n")


def cmd_parse(args: argparse.Namespace) -> int:
    text = read_text(args.file)
    kind = args.kind
    if kind == "auto":
        kind = "document" if looks_like_document(text) else "predicate"
    if kind == "document":
        # Stream: each statement is printed as soon as it is parsed; flat
        # ifconfig and select statements go straight from text to output.
        lines = rendered_document(text, args.json, _json_item if args.json else str)
        del text
        _write_lines(lines, sys.stdout, args.json)
        return EXIT_YES
    value = parse.parse_any(text, kind)
    if args.json:
        print(json.dumps(to_json(value), ensure_ascii=False, indent=2))
    elif isinstance(value, list):
        for item in value:
            print(item)
    else:
        print(value)
    return EXIT_YES


def _one_stdin(**arguments: str) -> None:
    """Standard input holds one value: two arguments cannot both read it."""
    readers = [name for name, arg in arguments.items() if arg in ("-", "@-")]
    if len(readers) > 1:
        raise UsageError(f"{' and '.join(readers)} both read standard input (-); give one of them as text or @FILE")


def _subscription_or_ad(arg: str, advertisement: bool, what: str) -> Advertisement | Filter | Predicate:
    text = argument_text(arg, what)
    if advertisement:
        return parse.parse_advertisement(text)
    p = parse.parse_predicate(text)
    return p.filters[0] if len(p) == 1 else p


def _answer(holds: bool, evidence: Message | None = None, name: str = "") -> int:
    """Print yes or no, then the message that shows it (``name: message``);
    the exit code is the answer (0 yes, 1 no)."""
    print("yes" if holds else "no")
    if evidence is not None:
        print(f"{name}: {evidence}")
    return EXIT_YES if holds else EXIT_NO


def cmd_covers(args: argparse.Namespace) -> int:
    _one_stdin(X=args.x, Y=args.y)
    x = _subscription_or_ad(args.x, args.advertisements, "X")
    y = _subscription_or_ad(args.y, args.advertisements, "Y")
    m = covering.counterexample(x, y)
    return _answer(m is None, m, "counterexample")


def cmd_overlaps(args: argparse.Namespace) -> int:
    _one_stdin(X=args.x, Y=args.y)
    x = _subscription_or_ad(args.x, args.x_advertisement, "X")
    y = _subscription_or_ad(args.y, args.y_advertisement, "Y")
    m = covering.witness(x, y)
    return _answer(m is not None, m, "witness")


def cmd_match(args: argparse.Namespace) -> int:
    _one_stdin(PREDICATE=args.predicate, MESSAGE=args.message)
    x = _subscription_or_ad(args.predicate, args.advertisement, "PREDICATE")
    m = parse.parse_message(argument_text(args.message, "MESSAGE"))
    return _answer(semantics.matches(x, m))


def cmd_demo(args: argparse.Namespace) -> int:
    return demo.run(clibase.check_output_folder(Path(args.out)), study=not args.no_study)


# ----------------------------------------------------------------- parser
_TEXT_ARGUMENTS = """X, Y, PREDICATE and MESSAGE are the text itself ('int x > 1'), @FILE to
read a file (the whole file is one value), or - to read standard input.
FILE arguments (parse, reduce, forward, poset) take a path, @FILE or -."""


def _question(sub: clibase.Subparsers, name: str, summary: str, description: str,
              *operands: tuple[str, str | None]) -> clibase.ArgumentParser:
    """A yes/no command over text arguments (covers, overlaps, match): each
    operand is (METAVAR, help); its attribute is the metavar in lower case."""
    p = sub.add_parser(name, help=summary, description=description, epilog=_TEXT_ARGUMENTS,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    for metavar, text in operands:
        p.add_argument(metavar.lower(), metavar=metavar, help=text)
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = clibase.ArgumentParser(
        prog="cbalgebra",
        description="The predicate algebra of content-based networking (Siena model).",
        epilog=_TEXT_ARGUMENTS + " Exit codes: 0 yes, 1 no, 2 bad input, 3 undecided, "
               "69 a needed program is missing, 70 internal error.",
    )
    parser.add_argument("--version", action=clibase.VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("parse", help="print the canonical form of a file")
    p.add_argument("file", metavar="FILE", help="a file, or - for standard input")
    p.add_argument("--kind", default="auto",
                   choices=["auto", "filter", "predicate", "advertisement", "message", "document", "constraint"],
                   help="what the file holds (auto: a document if it starts with a statement, else a predicate)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the canonical syntax")
    p.set_defaults(func=cmd_parse)

    p = _question(sub, "covers", "does X cover Y? (exit 0 yes, 1 no with a counterexample)",
                  "Does X cover Y, that is, does X match every message Y matches? "
                  "Prints yes, or no and a counterexample (exit 0 or 1).",
                  ("X", "a predicate (or an advertisement with -a)"),
                  ("Y", "a predicate (or an advertisement with -a)"))
    p.add_argument("-a", "--advertisements", action="store_true", help="X and Y are advertisements")
    p.set_defaults(func=cmd_covers)

    p = _question(sub, "overlaps", "does some message match both X and Y? (prints a witness)",
                  "Does some message match both X and Y? Prints yes and a witness (exit 0), or no (exit 1).",
                  ("X", "a predicate (or an advertisement with --x-advertisement)"),
                  ("Y", "a predicate (or an advertisement with --y-advertisement)"))
    p.add_argument("--x-advertisement", action="store_true", help="X is an advertisement")
    p.add_argument("--y-advertisement", action="store_true", help="Y is an advertisement")
    p.set_defaults(func=cmd_overlaps)

    p = _question(sub, "match", "does PREDICATE match MESSAGE? (exit 0 yes, 1 no)",
                  "Does PREDICATE match MESSAGE? Prints yes (exit 0) or no (exit 1).",
                  ("PREDICATE", None), ("MESSAGE", None))
    p.add_argument("-a", "--advertisement", action="store_true", help="PREDICATE is an advertisement")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("demo", help="a short tour on the embedded defaults",
                       description="A short tour on the embedded defaults. Needs no system package: "
                                   "without Graphviz it skips the SVG, without Java the Spark study, "
                                   "and says how to get them.")
    p.add_argument("--out", default="demo-out", help="folder for the demo's study and plot (default demo-out)")
    p.add_argument("--no-study", action="store_true", help="skip the Spark alpha study")
    p.set_defaults(func=cmd_demo)

    for plugin in PLUGINS:
        plugin.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    return clibase.parse_and_run(build_parser(), argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
