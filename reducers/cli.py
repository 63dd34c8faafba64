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

Exit codes: 0 done; 2 bad input (unreadable file, parse error, nothing to
reduce); 3 the reduction could not be completed (the minimal reducer's
budget, or z3 could not decide). Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from cbalgebra.values import Predicate

EXIT_OK, EXIT_BAD_INPUT, EXIT_INCOMPLETE = 0, 2, 3


def read_predicates(text: str) -> list[Predicate]:
    """The predicates of a document or of a one-predicate-per-line file."""
    from cbalgebra.cli import UsageError, looks_like_document
    from cbalgebra.parse import ParseError, parse_document, parse_predicate

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
        blank_comments(text)  # raises the located error
    preds = []
    originals = text.splitlines()
    for number, line in enumerate(blanked.splitlines(), start=1):
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
    from cbalgebra.parse import ParseError

    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            # A string literal runs to the next unescaped quote on its line.
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n) if j < n and text[j] == '"' else j
            out.append(text[i:j])
            i = j
        elif ch == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                line = text.count("\n", 0, i) + 1
                column = i - (text.rfind("\n", 0, i) + 1) + 1
                raw = text.splitlines()[line - 1]
                raise ParseError("unterminated block comment (no closing */)", line, column, _caret(raw, column))
            j += 2
            out.append("".join(c if c == "\n" else " " for c in text[i:j]))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _caret(line: str, column: int) -> str:
    return f"{line}\n{' ' * (column - 1)}^"


def register(subparsers) -> None:
    from cbalgebra.reducers import REDUCERS

    p = subparsers.add_parser(
        "reduce",
        help="reduce the disjunction of predicates and print its size and alpha",
        description="Reduce the disjunction of the predicates in FILE (one per line, or the subscribe "
                    "statements of a document) and print the result, both sizes and alpha.",
    )
    p.add_argument("file", metavar="FILE", help="a file, or - for standard input")
    p.add_argument("--reducer", "-r", default="siena", choices=list(REDUCERS),
                   help="siena (the paper's pairwise algorithm, default), exact, merge, cover or minimal")
    p.add_argument("--explain", action="store_true", help="list every rule that fired")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cbalgebra.cli import UsageError, read_text, to_json
    from cbalgebra.covering import UndecidedError
    from cbalgebra.parse import ParseError
    from cbalgebra.reducers import ReductionBudgetError, reduce
    from cbalgebra.values import InvalidValueError

    try:
        preds = read_predicates(read_text(args.file))
    except (ParseError, UsageError, InvalidValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    before = sum(p.size for p in preds)
    union = Predicate([f for p in preds for f in p.filters])
    try:
        result, steps = reduce(union, args.reducer, explain=True)
    except ReductionBudgetError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INCOMPLETE
    except UndecidedError as e:
        print(f"undecided: {e}", file=sys.stderr)
        return EXIT_INCOMPLETE
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
    parser = argparse.ArgumentParser(prog="python -m cbalgebra.reducers")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    register(sub)
    args = parser.parse_args(argv)
    return args.func(args)
