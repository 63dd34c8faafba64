"""``cbalgebra poset FILE``: draw the filters poset of a document.

Input: a document of ``subscribe P`` lines (each filter of P is one
element), or with ``--advertisements`` its ``advertise A`` lines. SFF lines
``ifconfig N P;`` count as subscriptions of interface N. ``publish`` and
driver statements are ignored.

Who subscribes: a statement's subscriber is, in order of precedence,

1. ``--subscriber NAME`` (one subscriber for the whole file, so a
   subscription covered by an earlier one of the same file adds nothing);
2. the statement's own subscriber: the interface of an ``ifconfig`` line,
   or the ``from NAME`` clause of a statement where the grammar has one
   (``DocumentItem.origin``);
3. otherwise its line number, ``L12``: every statement is its own
   subscriber.

Output: ``--format text`` (an indented outline, the default without ``-o``),
``dot``, ``svg`` and ``png`` (through Graphviz ``dot``), or ``html`` (one
interactive page, no network). The format defaults to the extension of
``-o``.

Exit codes (the policy of :mod:`cbalgebra.clibase`): 0 done, 2 bad input
or arguments, 3 a covering question was undecided, 69 Graphviz is not
installed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cbalgebra.clibase import (
    EXIT_OK,
    UsageError,
    in_file,
    plugin_main,
    read_text,
)
from cbalgebra.covering import UndecidedError
from cbalgebra.parse import ParseError, parse_document
from cbalgebra.poset.build import from_document
from cbalgebra.poset.core import ADVERTISEMENTS, Poset
from cbalgebra.poset.html import to_html
from cbalgebra.poset.render import to_dot, to_png, to_svg
from cbalgebra.poset.stats import shape
from cbalgebra.reducers.progress import add_progress_arguments, progress_for
from cbalgebra.values import InvalidValueError

__all__ = ["outline", "register", "run"]
FORMATS = ("text", "dot", "svg", "png", "html")
_EXTENSIONS = {
    ".dot": "dot", ".gv": "dot", ".svg": "svg", ".png": "png", ".html": "html", ".htm": "html", ".txt": "text",
}


def outline(poset: Poset, title: str | None = None) -> str:
    """The Hasse diagram as an indented outline, one element per line.

    An element with several predecessors is listed under each of them; after
    the first time, as ``(see above)`` without its successors.
    """
    kind = "Advertisements" if poset.kind == ADVERTISEMENTS else "Subscriptions"
    lines = [f"{title or kind + ' poset'}: {shape(poset)}"]
    shown: set = set()
    for root in poset.elements():
        if not root.is_root:
            continue
        stack = [(root, 0)]  # iterative: posets can be deeper than Python's recursion limit
        while stack:
            e, depth = stack.pop()
            mark = "" if e.satisfiable else "⊥ "
            if e in shown:
                lines.append(f"{'  ' * depth}{mark}{e.value}  (see above)")
                continue
            shown.add(e)
            subs = ", ".join(sorted(map(str, e.subscribers)))
            lines.append(f"{'  ' * depth}{mark}{e.value}  <- {subs}")
            stack.extend((s, depth + 1) for s in reversed(e.successors))
    return "\n".join(lines) + "\n"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "poset",
        help="draw the filters poset (Hasse diagram of covering) of a document",
        description=(
            "Build Siena's filters poset from a document's subscribe lines (or advertise lines) "
            "and draw it: roots on top, edges from covering to covered, each node with its "
            "filter and subscribers. A statement's subscriber is --subscriber (it overrides "
            "everything), else an ifconfig line's interface or the statement's 'from NAME', "
            "else its line number (L12)."
        ),
    )
    p.add_argument("file", metavar="FILE", help="a document (subscribe/advertise lines or SFF), @FILE, or - for stdin")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (default: standard output)")
    p.add_argument("-f", "--format", choices=FORMATS,
                   help="text, dot, svg, png or html (default: from OUT's extension, else text)")
    p.add_argument("-a", "--advertisements", action="store_true",
                   help="draw the advertisements poset (A^A) of the advertise lines")
    p.add_argument("--subscriber", metavar="NAME",
                   help="one subscriber for every statement, over any 'from NAME' or ifconfig interface")
    p.add_argument("--top-levels", type=int, metavar="K", help="draw only the top K levels")
    p.add_argument("--max-nodes", type=int, default=300, metavar="N",
                   help="above N elements draw only the N that cover the most others, "
                        "an upward-closed skeleton, with a note (default 300)")
    p.add_argument("--title", help="title of the picture")
    add_progress_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    fmt = args.format
    out = args.output
    if fmt is None:
        fmt = _EXTENSIONS.get(Path(out).suffix.lower()) if out else "text"
        if fmt is None:
            raise UsageError(f"cannot tell the format from {out!r}: give --format ({', '.join(FORMATS)})")
    if fmt == "png" and not out:
        raise UsageError("png output needs -o FILE")
    if args.top_levels is not None and args.top_levels < 1:
        raise UsageError("--top-levels must be at least 1")
    if args.max_nodes < 1:
        raise UsageError("--max-nodes must be at least 1")

    text = read_text(args.file)

    progress = progress_for(getattr(args, "progress", None))
    try:
        poset, used = from_document(text, advertisements=args.advertisements, subscriber=args.subscriber,
                                    progress=progress)
    except ParseError as e:
        raise in_file(e, args.file) from None
    except InvalidValueError as e:
        raise UsageError(f"{args.file}: {e}") from None
    except UndecidedError as e:  # still exit 3 and "undecided:", now naming the file
        raise UndecidedError(f"{args.file}: a covering question was undecided: {e}") from None
    finally:
        if progress is not None:
            progress.close()  # before any other output: the line is rewritten in place

    if used == 0:
        kinds = [item.kind for item in parse_document(text)]
        if not args.advertisements and "advertise" in kinds:
            raise UsageError(f"{args.file} has no subscriptions; it has {kinds.count('advertise')} "
                         "advertisements (use --advertisements)")
        if args.advertisements and ("subscribe" in kinds or "ifconfig" in kinds):
            raise UsageError(f"{args.file} has no advertise lines; drop --advertisements to draw its subscriptions")
        what = "advertise" if args.advertisements else "subscribe"
        raise UsageError(f"{args.file} has no {what} lines")

    options = {"max_nodes": args.max_nodes, "top_levels": args.top_levels, "title": args.title}
    # Graphviz missing or failing (svg, png) is exit 69 through the one policy.
    if fmt == "text":
        data: str | bytes = outline(poset, args.title)
    elif fmt == "dot":
        data = to_dot(poset, **options)
    elif fmt == "svg":
        data = to_svg(poset, **options)
    elif fmt == "png":
        data = to_png(poset, **options)
    else:
        data = to_html(poset, **options)

    if out:
        try:
            if isinstance(data, bytes):
                Path(out).write_bytes(data)
            else:
                Path(out).write_text(data, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"cannot write {out}: {e.strerror}") from None
        print(f"wrote {out}: {shape(poset)}")
    else:
        sys.stdout.write(data if isinstance(data, str) else data.decode("latin-1"))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    return plugin_main(register, argv, "python -m cbalgebra.poset", prefix=("poset",))
