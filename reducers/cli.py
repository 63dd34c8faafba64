"""``cbalgebra reduce FILE --reducer R [--explain] [--json]``.

FILE (``-`` for standard input) holds the predicates to combine:

- a *document* (its first statement is a word like ``subscribe``): every
  ``subscribe P`` line is one predicate, and so is every SFF ``ifconfig``
  statement (an interface's predicate); other statements are ignored;
- otherwise *one predicate per line*: every line that is not blank once its
  comments are removed is one predicate (write a long predicate on one line,
  its conjunctions joined by ``||``). Comments are the grammar's: ``# …`` and
  ``// …`` to the end of the line, ``/* … */`` anywhere, also across lines;
  inside a string literal they are text. Errors give the line and column in
  the file.

The command reduces the disjunction of all of them and prints the reduced
predicate, the sizes before (the predicates as given) and after, and
α = after / before. ``--explain`` lists every rule that fired: which
conjunction was dropped and which covered it, which were merged, which
constraints were dropped and why.

With ``--reducer minimal`` it also prints whether the result is proven
smallest, or the proven lower bound and the gap where a group ran out of
its ``--budget`` (seconds per group of conjunctions sharing attributes).

Progress of long runs goes to standard error when it is a terminal, or
with ``--progress``; ``--quiet`` turns it off.

FILE may also be ``@FILE``, as in the other commands.

Exit codes (the policy of :mod:`cbalgebra.clibase`): 0 done; 2 bad input
(unreadable file, parse error, nothing to reduce); 3 the reduction could not
be completed (z3 could not decide).
"""

from __future__ import annotations

import argparse
import json
import re

from cbalgebra.clibase import EXIT_OK, Subparsers, UsageError, number_argument, plugin_main, read_text
from cbalgebra.cliforms import looks_like_document, to_json
from cbalgebra.parse import ParseError, parse_document, parse_predicate
from cbalgebra.reducers import DEFAULT_BUDGET, REDUCERS, Minimized, Step, minimize, reduce
from cbalgebra.reducers.progress import Progress, Reporter, add_progress_arguments, progress_for
from cbalgebra.values import Predicate


def read_predicates(text: str, progress: Reporter | None = None) -> list[Predicate]:
    """The predicates of a document or of a one-predicate-per-line file
    (``progress(stage, done, total)`` is told how parsing goes)."""

    try:
        blanked = blank_comments(text)
    except ParseError:
        blanked = None  # an unclosed /*: an error, unless a document's parser reports it
    if looks_like_document(text if blanked is None else blanked):
        items = parse_document(text)
        preds = [item.value for item in items if item.kind in ("subscribe", "ifconfig")]
        if not preds:
            raise UsageError("the document has no subscribe or ifconfig statement to reduce")
        return preds
    if blanked is None:
        blanked = blank_comments(text)  # raises the located error
    preds = []
    originals = text.splitlines()
    lines = blanked.splitlines()
    for number, line in enumerate(lines, start=1):
        if progress is not None and not number & 4095:
            progress("parse", number, len(lines))
        if not line.strip():
            continue
        try:
            preds.append(parse_predicate(line))
        except ParseError as e:
            # Report the position in the file, not in the line, under the
            # line as written (comments included; blanking kept the columns).
            raise ParseError(e.reason, number, e.column, _caret(originals[number - 1], e.column)) from None
    if not preds:
        raise UsageError("no predicate to reduce (the input is empty)")
    return preds


def blank_comments(text: str) -> str:
    """``text`` with every comment replaced by spaces (newlines kept), so
    line and column numbers stay those of the file.

    The comment forms are the grammar's (``#`` and ``//`` to the end of the
    line, ``/* */`` possibly across lines); a string literal is skipped as a
    whole, so ``"a//b"`` is not cut. Raises ParseError for a block comment
    that is never closed.
    """
    if "#" not in text and "/" not in text:
        return text

    def blank(m: re.Match) -> str:
        piece = m.group(0)
        if piece[0] == '"':
            return piece
        if piece == "/*":  # the pattern's last resort: no closing */
            i = m.start()
            line = text.count("\n", 0, i) + 1
            column = i - (text.rfind("\n", 0, i) + 1) + 1
            raw = text.splitlines()[line - 1]
            raise ParseError("unterminated block comment (no closing */)", line, column, _caret(raw, column))
        return _NOT_NEWLINE.sub(" ", piece)

    return _COMMENT_OR_STRING.sub(blank, text)


# A string literal (to its closing quote, or to the end of its line when
# unclosed: the parser reports that), or a comment, or an unclosed ``/*``.
_COMMENT_OR_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|//[^\n]*|/\*.*?\*/|/\*', re.DOTALL)
_NOT_NEWLINE = re.compile(r"[^\n]")


def _caret(line: str, column: int) -> str:
    return f"{line}\n{' ' * (column - 1)}^"


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "reduce",
        help="reduce the disjunction of predicates and print its size and alpha",
        description="Reduce the disjunction of the predicates in FILE (one per line, or the subscribe "
                    "statements of a document) and print the result, both sizes and alpha.",
    )
    p.add_argument("file", metavar="FILE", help="a file (or @FILE), or - for standard input")
    p.add_argument("--reducer", "-r", default="siena", choices=list(REDUCERS),
                   help="siena (the paper's pairwise algorithm, default), exact, merge, cover or minimal")
    p.add_argument("--budget", type=number_argument(float, least=0, must="non-negative"), default=DEFAULT_BUDGET,
                   metavar="SECONDS",
                   help=f"minimal only: seconds per group of conjunctions sharing attributes (default "
                        f"{DEFAULT_BUDGET:g}); past it a group keeps its best cover and a proven lower bound")
    p.add_argument("--explain", action="store_true", help="list every rule that fired")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_progress_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    progress = progress_for(getattr(args, "progress", None))
    try:
        return _run(args, progress)
    finally:
        if progress is not None:
            progress.close()  # also before cbalgebra.clibase reports an error


def _run(args: argparse.Namespace, progress: Progress | None) -> int:
    # Errors (bad input 2, budget or undecided 3) are reported by cbalgebra.clibase.
    preds = read_predicates(read_text(args.file), progress)
    before = sum(p.size for p in preds)
    union = Predicate([f for p in preds for f in p.filters])
    steps: list[Step] = []
    minimality: Minimized | None = None
    if args.explain:
        explained = reduce(union, args.reducer, explain=True, progress=progress, budget=args.budget)
        result, steps, minimality = explained.result, explained.steps, explained.minimality
    elif args.reducer == "minimal":
        minimality = minimize(union, budget=args.budget, progress=progress)
        result = minimality.predicate
    else:
        result = reduce(union, args.reducer, progress=progress)
    if progress is not None:
        progress.close()  # before any output: the progress line is rewritten in place
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
        if minimality is not None:
            out["minimality"] = {"proven": minimality.proven, "lower_bound": minimality.lower_bound,
                                 "gap": minimality.gap, "groups": len(minimality.groups),
                                 "groups_proven": sum(g.proven for g in minimality.groups)}
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return EXIT_OK
    if args.explain:
        for s in steps:
            print(f"- {s}")
    print(result)
    print(f"predicates: {len(preds)}")
    print(f"size: {before} -> {after}")
    print(f"alpha: {alpha:.6g}" if alpha is not None else "alpha: undefined (no constraints)")
    if minimality is not None:
        print(certificate_line(minimality))
    return EXIT_OK


def certificate_line(m: Minimized) -> str:
    """What the minimal reducer proved, in one line."""
    if m.proven:
        return f"minimal: proven smallest (lower bound {m.lower_bound})"
    proven = sum(g.proven for g in m.groups)
    return (f"minimal: not proven: lower bound {m.lower_bound}, gap {100 * m.gap:.1f}% "
            f"({proven} of {len(m.groups)} groups proven; a larger --budget may close it)")


def main(argv: list[str] | None = None) -> int:
    return plugin_main(register, argv, "python -m cbalgebra.reducers")
