"""``cbalgebra reduce FILE --reducer R [--explain] [--json]``.

FILE (``-`` for standard input) holds the predicates to combine:

- a *document* (its first statement is a word like ``subscribe``): every
  ``subscribe P`` line is one predicate, and so is every SFF ``ifconfig``
  statement (an interface's predicate); other statements are ignored;
- otherwise *one predicate per line*: every non-blank line that does not
  start with ``#`` is one predicate (write a long predicate on one line, its
  conjunctions joined by ``||``).

The command reduces the disjunction of all of them and prints the reduced
predicate, the sizes before (the predicates as given) and after, and
α = after / before. ``--explain`` lists every rule that fired: which
conjunction was dropped and which covered it, which were merged, which
constraints were dropped and why.

FILE may also be ``@FILE``, as in the other commands.

Exit codes (the policy of :mod:`cbalgebra.clibase`): 0 done; 2 bad input
(unreadable file, parse error, nothing to reduce); 3 the reduction could not
be completed (the minimal reducer's budget, or z3 could not decide).
"""

from __future__ import annotations

import argparse
import json

from cbalgebra.clibase import EXIT_OK, UsageError, plugin_main, read_text
from cbalgebra.values import Predicate


def read_predicates(text: str) -> list[Predicate]:
    """The predicates of a document or of a one-predicate-per-line file."""
    from cbalgebra.cli import looks_like_document
    from cbalgebra.parse import ParseError, parse_document, parse_predicate

    if looks_like_document(text):
        items = parse_document(text)
        preds = [item.value for item in items if item.kind in ("subscribe", "ifconfig")]
        if not preds:
            raise UsageError("the document has no subscribe or ifconfig statement to reduce")
        return preds
    preds = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            preds.append(parse_predicate(line))
        except ParseError as e:
            # Report the position in the file, not in the line.
            raise ParseError(e.reason, number, e.column, e.context) from None
    if not preds:
        raise UsageError("no predicate to reduce (the input is empty)")
    return preds


def register(subparsers) -> None:
    from cbalgebra.reducers import REDUCERS

    p = subparsers.add_parser(
        "reduce",
        help="reduce the disjunction of predicates and print its size and alpha",
        description="Reduce the disjunction of the predicates in FILE (one per line, or the subscribe "
                    "statements of a document) and print the result, both sizes and alpha.",
    )
    p.add_argument("file", metavar="FILE", help="a file (or @FILE), or - for standard input")
    p.add_argument("--reducer", "-r", default="siena", choices=list(REDUCERS),
                   help="siena (the paper's pairwise algorithm, default), exact, merge, cover or minimal")
    p.add_argument("--explain", action="store_true", help="list every rule that fired")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cbalgebra.cli import to_json
    from cbalgebra.reducers import reduce

    # Errors (bad input 2, budget or undecided 3) are reported by cbalgebra.clibase.
    preds = read_predicates(read_text(args.file))
    before = sum(p.size for p in preds)
    union = Predicate([f for p in preds for f in p.filters])
    result, steps = reduce(union, args.reducer, explain=True)
    after = result.size
    alpha = after / before if before else None
    if args.json:
        out = {
            "reducer": args.reducer,
            "predicates": len(preds),
            "size_before": before,
            "size_after": after,
            "alpha": alpha,
            "result": str(result),
            "result_value": to_json(result),
        }
        if args.explain:
            out["steps"] = [s.to_json() for s in steps]
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return EXIT_OK
    if args.explain:
        for s in steps:
            print(f"- {s}")
    print(result)
    print(f"predicates: {len(preds)}")
    print(f"size: {before} -> {after}")
    print(f"alpha: {alpha:.6g}" if alpha is not None else "alpha: undefined (no constraints)")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    return plugin_main(register, argv, "python -m cbalgebra.reducers")
