"""The ``cbalgebra`` command line.

Core commands live here (parse, covers, overlaps, match, demo). The reducers,
the matcher, the studies and the poset add their own commands through a
``register(subparsers)`` function in their ``cli`` module.

Exit codes: 0 yes / success, 1 no, 2 bad input, 3 undecided, 69 a needed
external tool (Graphviz `dot`) is missing, 70 internal
error. No traceback reaches the user unless CBALGEBRA_DEBUG is set.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from cbalgebra.covering.errors import UndecidedError
from cbalgebra.parse import ParseError
from cbalgebra.values import Advertisement, Constraint, Filter, InvalidValueError, Message, Predicate

EXIT_YES, EXIT_NO, EXIT_BAD_INPUT, EXIT_UNDECIDED, EXIT_INTERNAL = 0, 1, 2, 3, 70

PLUGINS = (
    "cbalgebra.reducers.cli",
    "cbalgebra.matcher.cli",
    "cbalgebra.studies.cli",
    "cbalgebra.poset.cli",
    "cbalgebra.network.cli",
)

_STATEMENT_WORDS = ("subscribe", "advertise", "publish", "ifconfig", "select", "set", "consolidate",
                    "timer", "statistics", "clear", "output")


class UsageError(Exception):
    """Bad command-line input that is not a parse error (exit code 2)."""


# ----------------------------------------------------------------- inputs
def read_text(source: str) -> str:
    """``-`` reads stdin, a path reads the file."""
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"no such file: {source}") from None
    except IsADirectoryError:
        raise UsageError(f"{source} is a directory") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{source} is not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise UsageError(f"cannot read {source}: {e.strerror or e}") from None


def argument_text(arg: str) -> str:
    """An argument is literal text, or ``@path`` for a file's contents."""
    if arg.startswith("@"):
        return read_text(arg[1:])
    return arg


def looks_like_document(text: str) -> bool:
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "//", "/*")):
            continue
        return stripped.split(None, 1)[0].rstrip(";") in _STATEMENT_WORDS
    return False


# ----------------------------------------------------------------- output
def to_json(x: Any) -> Any:
    """A JSON-ready structure for any value of the package."""
    if isinstance(x, Constraint):
        return {"type": x.type, "name": x.name, "op": x.op, "value": x.value}
    if isinstance(x, Filter):
        return {"kind": "filter", "constraints": [to_json(c) for c in x]}
    if isinstance(x, Predicate):
        return {"kind": "predicate", "filters": [to_json(f)["constraints"] for f in x]}
    if isinstance(x, Advertisement):
        return {"kind": "advertisement", "constraints": [to_json(c) for c in x]}
    if isinstance(x, Message):
        return {"kind": "message", "attributes": {n: {"type": a.type, "value": a.value} for n, a in x.items()}}
    if isinstance(x, list):
        return [to_json(i) for i in x]
    if hasattr(x, "kind") and hasattr(x, "value"):  # DocumentItem
        item = {"kind": x.kind, "line": x.line, "value": to_json(x.value) if not isinstance(x.value, tuple)
                else list(x.value)}
        if x.interface is not None:
            item["interface"] = x.interface
        return item
    return x


# --------------------------------------------------------------- commands
def _parse_kind(text: str, kind: str):
    from cbalgebra import parse

    if kind == "auto":
        kind = "document" if looks_like_document(text) else "predicate"
    return parse.parse_any(text, kind)


def cmd_parse(args: argparse.Namespace) -> int:
    value = _parse_kind(read_text(args.file), args.kind)
    if args.json:
        print(json.dumps(to_json(value), ensure_ascii=False, indent=2))
    elif isinstance(value, list):
        for item in value:
            print(item)
    else:
        print(value)
    return EXIT_YES


def _subscription_or_ad(text: str, advertisement: bool):
    from cbalgebra import parse

    if advertisement:
        return parse.parse_advertisement(text)
    p = parse.parse_predicate(text)
    return p.filters[0] if len(p) == 1 else p


def cmd_covers(args: argparse.Namespace) -> int:
    from cbalgebra import covering

    x = _subscription_or_ad(argument_text(args.x), args.advertisements)
    y = _subscription_or_ad(argument_text(args.y), args.advertisements)
    m = covering.counterexample(x, y)
    if m is None:
        print("yes")
        return EXIT_YES
    print("no")
    print(f"counterexample: {m}")
    return EXIT_NO


def cmd_overlaps(args: argparse.Namespace) -> int:
    from cbalgebra import covering

    x = _subscription_or_ad(argument_text(args.x), args.x_advertisement)
    y = _subscription_or_ad(argument_text(args.y), args.y_advertisement)
    m = covering.witness(x, y)
    if m is None:
        print("no")
        return EXIT_NO
    print("yes")
    print(f"witness: {m}")
    return EXIT_YES


def cmd_match(args: argparse.Namespace) -> int:
    from cbalgebra import parse, semantics

    x = _subscription_or_ad(argument_text(args.predicate), args.advertisement)
    m = parse.parse_message(argument_text(args.message))
    if semantics.matches(x, m):
        print("yes")
        return EXIT_YES
    print("no")
    return EXIT_NO


def cmd_demo(args: argparse.Namespace) -> int:
    from cbalgebra import demo

    return demo.run(Path(args.out), study=not args.no_study)


# ----------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cbalgebra",
        description="The predicate algebra of content-based networking (Siena model).",
        epilog="Arguments X, Y, PREDICATE and MESSAGE are text, or @FILE to read a file.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("parse", help="print the canonical form of a file")
    p.add_argument("file", metavar="FILE", help="a file, or - for standard input")
    p.add_argument("--kind", default="auto",
                   choices=["auto", "filter", "predicate", "advertisement", "message", "document", "constraint"],
                   help="what the file holds (auto: a document if it starts with a statement, else a predicate)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the canonical syntax")
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("covers", help="does X cover Y? (exit 0 yes, 1 no with a counterexample)")
    p.add_argument("x", metavar="X")
    p.add_argument("y", metavar="Y")
    p.add_argument("-a", "--advertisements", action="store_true", help="X and Y are advertisements")
    p.set_defaults(func=cmd_covers)

    p = sub.add_parser("overlaps", help="does some message match both X and Y? (prints a witness)")
    p.add_argument("x", metavar="X")
    p.add_argument("y", metavar="Y")
    p.add_argument("--x-advertisement", action="store_true", help="X is an advertisement")
    p.add_argument("--y-advertisement", action="store_true", help="Y is an advertisement")
    p.set_defaults(func=cmd_overlaps)

    p = sub.add_parser("match", help="does PREDICATE match MESSAGE? (exit 0 yes, 1 no)")
    p.add_argument("predicate", metavar="PREDICATE")
    p.add_argument("message", metavar="MESSAGE")
    p.add_argument("-a", "--advertisement", action="store_true", help="PREDICATE is an advertisement")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("demo", help="a short tour on the embedded defaults")
    p.add_argument("--out", default="demo-out", help="folder for the demo's study and plot (default demo-out)")
    p.add_argument("--no-study", action="store_true", help="skip the Spark alpha study")
    p.set_defaults(func=cmd_demo)

    for name in PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and name.startswith(e.name):
                continue  # that part of the package is not installed
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return args.func(args)
    except ParseError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (UsageError, InvalidValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UndecidedError as e:
        print(f"undecided: {e}", file=sys.stderr)
        return EXIT_UNDECIDED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_YES
    except Exception as e:  # noqa: BLE001 - the user never sees a traceback
        if os.environ.get("CBALGEBRA_DEBUG"):
            raise
        print(f"internal error: {type(e).__name__}: {e} (set CBALGEBRA_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
