"""``cbalgebra forward TABLE_FILE [MESSAGES_FILE]``: forward messages through a table.

TABLE_FILE is an SFF driver file (``ifconfig`` statements) or one of our
documents (``subscribe`` statements, the k-th being interface k). Messages
come from MESSAGES_FILE (``select`` or ``publish`` statements), or from
TABLE_FILE itself when MESSAGES_FILE is left out. ``-`` reads standard input.

Output: one line per message with the ids of the interfaces it goes to,
separated by spaces (an empty line when it goes nowhere); ``--json`` prints
one JSON document instead. ``--stats`` adds timings on standard error.
``--numbers sff`` matches ints against float constraints and integral floats
against int constraints as SFF 2.x does (default ``strict``).
``--write-sff FILE`` also writes the table and messages as an SFF 2.x driver
file that SFF's own parser accepts.

Exit codes (the policy of :mod:`cbalgebra.clibase`): 0 success, 2 bad
input (one line on standard error), 70 internal error. This module imports
neither numba nor numpy until the command runs.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time

from typing import TYPE_CHECKING

from cbalgebra.clibase import EXIT_OK, Subparsers, UsageError, in_file, int_list, number_argument, read_text
from cbalgebra.matcher.document import DocumentTable, compile_document, read_document
from cbalgebra.parse import INTERFACE_MAX, ParseError

if TYPE_CHECKING:
    from cbalgebra.values import Message


_DESCRIPTION = """\
Forward each message through a compiled forwarding table and print the
interfaces it goes to.

TABLE_FILE: an SFF driver file (ifconfig N f1 | f2 ... ;) or one of our
documents (subscribe statements; the k-th, counting from 0, is interface k). Several ifconfig
statements for one interface add up (disjunction); clear; forgets the table
so far; set preprocessing_limit = N; sets the pre-processing rounds.
Messages: the select/publish statements of MESSAGES_FILE, or of TABLE_FILE
when MESSAGES_FILE is left out. - reads standard input; @FILE is FILE.
--numbers sff: an int attribute also meets float constraints (as the nearest
double) and an integral float within the 32-bit range meets int constraints,
as Siena Fast Forwarding 2.x matches; the default, strict, keeps types apart.
--write-sff FILE: also write the table, the pre-processing limit and the
messages as an SFF 2.x driver file (ifconfig/select), in SFF's own syntax.

Output: one line per message, the interface ids separated by spaces (an
empty line when the message goes nowhere), or one JSON document (--json).
Exit codes: 0 success, 2 bad input, 70 internal error."""


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "forward",
        help="forward messages through a content-based forwarding table (Carzaniga & Wolf, SIGCOMM 2003, §4)",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("table", metavar="TABLE_FILE", help="SFF driver file or document (or @FILE); - for stdin")
    p.add_argument("messages", metavar="MESSAGES_FILE", nargs="?",
                   help="select/publish statements (default: those of TABLE_FILE); - for stdin")
    p.add_argument("--preprocessing-rounds", type=number_argument(int, least=0, must=">= 0"), default=None, metavar="N",
                   help="selectivity pre-processing rounds (default: the file's "
                        "'set preprocessing_limit', else 10; 0 turns it off)")
    p.add_argument("--broadcast", default=None, metavar="IDS",
                   help="comma-separated interface ids B: forward only to these")
    p.add_argument("--batch", action="store_true", help="forward all messages at once on all cores")
    p.add_argument("--numbers", choices=("strict", "sff"), default="strict",
                   help="how int and float meet: strict (default) keeps them apart; sff converts as SFF 2.x")
    p.add_argument("--write-sff", default=None, metavar="FILE",
                   help="also write the table and messages as an SFF 2.x driver file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--stats", action="store_true", help="print table size and timings on stderr")
    p.set_defaults(func=run)


def _read(source: str, stdin_used: list) -> str:
    if source in ("-", "@-"):
        if stdin_used:
            raise UsageError("standard input can be read only once")
        stdin_used.append(True)
    return read_text(source)


def _broadcast(text: str | None) -> list[int] | None:
    if text is None:
        return None
    ids = int_list(text, "--broadcast", "an interface id")
    for value in ids:
        if value < 0:
            raise UsageError(f"--broadcast: interface ids are >= 0, not {value}")
        if value > INTERFACE_MAX:  # no document names such an interface (nor can the table's int64 arrays)
            shown = str(value) if len(str(value)) <= 24 else str(value)[:21] + "..."
            raise UsageError(f"--broadcast: interface ids are at most {INTERFACE_MAX} (an ifconfig's range), "
                             f"not {shown}")
    return ids


def run(args: argparse.Namespace) -> int:
    stdin_used: list = []
    broadcast = _broadcast(args.broadcast)
    table_text = _read(args.table, stdin_used)
    return _forward(args, table_text, stdin_used, broadcast)


def _write_sff(path: str, doc: DocumentTable, messages: list[Message], rounds: int | None) -> None:
    """The table and messages as an SFF driver file, built whole before the
    file is opened (a value SFF cannot spell leaves no half-written file)."""
    # deferred: the forwarding workload loads numpy
    from cbalgebra.workloads import write_sff_document

    if path == "-":
        raise UsageError("--write-sff needs a file name (standard output carries the forwarding results)")
    buf = io.StringIO()
    limit = rounds if rounds is not None else doc.preprocessing_limit
    try:
        write_sff_document(buf, doc.predicates, messages, preprocessing_limit=limit,
                           comment="written by cbalgebra forward --write-sff")
    except ValueError as e:  # something SFF's language cannot say: bad input for this option, not a bug
        raise UsageError(f"--write-sff: {e}") from None
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(buf.getvalue())
    except OSError as e:
        raise UsageError(f"--write-sff: cannot write {path}: {e.strerror or e}") from None


def _forward(args: argparse.Namespace, table_text: str, stdin_used: list, broadcast: list[int] | None) -> int:
    # deferred: the forwarding table loads numba and scipy
    from cbalgebra.matcher.table import DEFAULT_ROUNDS, ForwardingTable, compile_times

    t0 = time.perf_counter()
    doc = None
    try:
        if args.write_sff is None:
            # the bulk reader: no Python object per constraint (the same table
            # and messages as read_document, tests/test_matcher_cli.py)
            loaded = compile_document(table_text, args.preprocessing_rounds, numbers=args.numbers)
            table, messages, lines = loaded.table, loaded.messages, loaded.message_lines
            t_parse = loaded.read_seconds
        else:  # --write-sff writes the predicates: their values are needed
            doc = read_document(table_text)
            rounds = args.preprocessing_rounds
            if rounds is None:
                rounds = DEFAULT_ROUNDS if doc.preprocessing_limit is None else doc.preprocessing_limit
            t_parse = time.perf_counter() - t0
            table = ForwardingTable.compile(doc.predicates, preprocessing_rounds=rounds, numbers=args.numbers)
            messages, lines = doc.messages, doc.message_lines
    except ParseError as e:
        raise in_file(e, args.table, caret=False) from None  # two inputs: one line naming the file
    if args.messages is not None:
        t1 = time.perf_counter()
        try:
            mdoc = read_document(_read(args.messages, stdin_used))
        except ParseError as e:
            raise in_file(e, args.messages, caret=False) from None
        messages, lines = mdoc.messages, mdoc.message_lines
        t_parse += time.perf_counter() - t1
    if doc is not None:
        _write_sff(args.write_sff, doc, messages, args.preprocessing_rounds)

    jit_before = sum(compile_times().values())
    t1 = time.perf_counter()
    if args.batch:
        results = table.forward_batch(messages, broadcast)
    else:
        results = [table.forward(m, broadcast) for m in messages]
    jit = sum(compile_times().values()) - jit_before
    t_forward = time.perf_counter() - t1 - jit

    if args.json:
        doc_out = {
            "interfaces": [int(i) for i in table.interfaces],
            "preprocessing_rounds": table.preprocessing_rounds,
            "numbers": table.numbers,
            "results": [
                {"message": k, "line": line, "interfaces": [int(i) for i in r]}
                for k, (line, r) in enumerate(zip(lines, results, strict=True))
            ],
        }
        sys.stdout.write(json.dumps(doc_out) + "\n")
    else:
        out = sys.stdout
        for r in results:
            out.write(" ".join(str(int(i)) for i in r) + "\n")
    if args.stats:
        st = table.stats()
        numba_s = sum(compile_times().values())
        n = max(1, len(messages))
        print(f"table: {st['interfaces']} interfaces, {st['filters']} filters, {st['constraints']} constraints "
              f"({st['distinct_constraints']} distinct), {st['nbytes']} bytes "
              f"({st['bytes_per_constraint']:.1f} per constraint), {table.preprocessing_rounds} pre-processing rounds",
              file=sys.stderr)
        print(f"time: parse {t_parse:.3f} s, compile {table.compile_seconds:.3f} s, numba kernels {numba_s:.2f} s, "
              f"forward {len(messages)} messages {t_forward:.3f} s ({1e6 * t_forward / n:.1f} us/message)",
              file=sys.stderr)
    return EXIT_OK
