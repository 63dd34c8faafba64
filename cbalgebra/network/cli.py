"""``cbalgebra route TOPOLOGY``: run a content-based routing scheme over a
network and check every delivery (Carzaniga, Rembert & Wolf 2006, §2-§3).

Exit codes (the policy of :mod:`cbalgebra.clibase`): 0 success (even when
a check fails: the checks are printed), 2 bad input or usage (one line on
standard error; a parse error also shows the line and a caret), 69 Graphviz
missing for an .svg/.png drawing, 70 internal error. (``--reducer minimal``
never fails on time: past its budget it keeps its best cover.) No traceback reaches the user
unless CBALGEBRA_DEBUG is set.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from cbalgebra.clibase import EXIT_OK, UsageError, in_file, int_list, read_text
from cbalgebra.network.names import SCHEMES
from cbalgebra.parse import ParseError, parse_message, parse_predicate

_DESCRIPTION = """\
Build one routing scheme of Carzaniga, Rembert & Wolf, "Understanding
Content-Based Routing Schemes" (2006, §3) over a network, deliver messages
with it, and check each delivery tree: correct (every interested processor
reached), latency-minimal (each over a shortest path), its size |D| beside
the smallest latency-minimal tree (exact on small networks, else a bound),
duplicates. A summary gives the scheme's memory by component (§2.4).

TOPOLOGY: a generator (tree, ring, grid, gnp, power_law, waxman,
transit_stub; give -n), topohub:<network> (a real network), or a file
(GraphML or an edge list "u v [weight]").

Predicates (pred(x) of processor x): --predicates FILE, one line per
receiver, "x: predicate" (e.g. 3: [int x > 1] || [string s >* "a"]);
otherwise the DNF generator of Carzaniga, Rembert & Wolf 2006 (§4.2) gives every processor -k conjunctions.
Messages: --messages FILE, one per line, "[v:] message" (v: the source;
default: --source, else senders in turn); otherwise --count random messages
over the generator's names, each made to match one random conjunction of
one random receiver (--random-messages: no such aim).

--draw OUT draws the first delivery (--draw-index picks another): .svg or
.png through Graphviz's dot, .html (self-contained, needs nothing) or .dot."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "route", help="run a routing scheme (PSF, iPS, PIF, DRP, Siena) over a network",
        description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("topology", metavar="TOPOLOGY")
    p.add_argument("--scheme", default="psf", metavar="|".join(SCHEMES),
                   help=f"the routing scheme: {', '.join(SCHEMES)} (default psf)")
    p.add_argument("-n", type=int, default=None, help="processors, for generators")
    p.add_argument("--seed", type=int, default=0, help="topology seed (default 0)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a generator or loader parameter, e.g. model=chung_lu, weight_range=1,10 (repeatable)")
    p.add_argument("--reducer", default="none", help="reducer for combined predicates: none (default), "
                   "siena, exact, merge, cover, minimal")
    p.add_argument("--senders", default=None, metavar="IDS", help="comma-separated senders (default: all)")
    p.add_argument("--predicates", default=None, metavar="FILE", help='"x: predicate" lines; - for stdin')
    p.add_argument("-k", type=int, default=10, help="generated conjunctions per processor (default 10)")
    p.add_argument("--names", type=int, default=500, help="generator: attribute names (default 500)")
    p.add_argument("--distribution", default="zipf", choices=("zipf", "uniform"),
                   help="generator: zipf (default) or uniform")
    p.add_argument("--workload-seed", type=int, default=0, help="seed of predicates and messages (default 0)")
    p.add_argument("--messages", default=None, metavar="FILE", help='"[v:] message" lines; - for stdin')
    p.add_argument("--count", type=int, default=5, help="generated messages (default 5)")
    p.add_argument("--attributes", type=int, default=10, help="generator: attributes per message (default 10)")
    p.add_argument("--random-messages", action="store_true",
                   help="generated messages are purely random (default: each also matches one random "
                        "conjunction of one random receiver)")
    p.add_argument("--source", type=int, default=None, help="inject every message here")
    p.add_argument("--unicast", default=None, help="drp only: tree (default) or ecmp")
    p.add_argument("--draw", default=None, metavar="OUT", help="draw a delivery: .svg, .png, .html or .dot")
    p.add_argument("--draw-index", type=int, default=0, metavar="I", help="which delivery to draw (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--quiet", action="store_true", help="print the summary only")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The command; its errors go to the one policy of :mod:`cbalgebra.clibase`
    (bad input exit 2, Graphviz missing 69)."""
    # deferred: networkx and numpy load only when a route is computed
    from cbalgebra.network import topology
    from cbalgebra.network.schemes import build
    from cbalgebra.network.workload import messages, processor_predicates

    _check_arguments(args)
    stdin_used: list = []
    t0 = time.perf_counter()
    graph = topology(args.topology, args.n, args.seed, **_params(args.param))
    n = graph.number_of_nodes()
    if args.predicates is not None:
        preds = read_predicates(_read(args.predicates, stdin_used), args.predicates)
        where = "read from standard input" if args.predicates == "-" else f"read from {args.predicates}"
    else:
        preds = processor_predicates(n, args.k, names=args.names, distribution=args.distribution,
                                     seed=args.workload_seed)
        where = f"DNF generator of Carzaniga, Rembert & Wolf 2006, k={args.k}"
    senders = _ids(args.senders, "--senders")
    t_topology = time.perf_counter() - t0
    routing = build(args.scheme, graph, preds, reducer=args.reducer, senders=senders,
                    unicast=args.unicast)
    t_build = time.perf_counter() - t0 - t_topology
    if args.messages is not None:
        items = read_messages(_read(args.messages, stdin_used), args.messages)
    else:
        items = [(None, m) for m in messages(args.count, names=args.names, distribution=args.distribution,
                                             seed=args.workload_seed, attributes=min(args.attributes, args.names),
                                             aim_at=None if args.random_messages else preds)]
    items = _sources(items, args, sorted(routing.senders), n)
    t1 = time.perf_counter()
    deliveries = [routing.deliver(m, v) for v, m in items]
    t_deliver = time.perf_counter() - t1
    records = [_record(i, d) for i, d in enumerate(deliveries)]
    drawn = None if args.draw is None else _draw(deliveries[args.draw_index], args.draw)
    summary = _summary(args, graph, routing, where, records, drawn)
    summary["seconds"] = {"topology": round(t_topology, 4), "build": round(t_build, 4),
                          "deliver": round(t_deliver, 4)}
    if args.json:
        sys.stdout.write(json.dumps({"summary": summary, "deliveries": [] if args.quiet else records}) + "\n")
        return EXIT_OK
    out = sys.stdout
    if not args.quiet:
        for r in records:
            _print_record(r, out)
    _print_summary(summary, out)
    return EXIT_OK


def _check_arguments(args: argparse.Namespace) -> None:
    if args.scheme not in SCHEMES:
        raise UsageError(f"unknown scheme {args.scheme!r}; choose one of {', '.join(SCHEMES)}")
    for flag, value, low in (("-k", args.k, 1), ("--count", args.count, 0), ("--names", args.names, 1),
                             ("--attributes", args.attributes, 1)):
        if value < low:
            raise UsageError(f"{flag} must be >= {low}, not {value}")


def _sources(items: list, args: argparse.Namespace, sender_list: list[int], n: int) -> list:
    """Each message with the processor it is sent from: its own, --source, else the senders in turn."""
    if args.source is not None:
        items = [(args.source if v is None else v, m) for v, m in items]
    if not sender_list and items:
        raise UsageError("no senders: nothing can be delivered")
    items = [(sender_list[i % len(sender_list)] if v is None else v, m) for i, (v, m) in enumerate(items)]
    for v, _ in items:
        # the library's own message names build(..., senders=...); here the flag is the way in
        if 0 <= v < n and v not in sender_list:
            raise UsageError(f"processor {v} is not a sender: list it in --senders (given: {args.senders})")
    if args.draw is not None and not 0 <= args.draw_index < max(1, len(items)):
        raise UsageError(f"--draw-index {args.draw_index}: there are {len(items)} deliveries")
    if args.draw is not None and not items:
        raise UsageError("--draw: there is no delivery to draw")
    return items


def _draw(delivery: Any, out: str) -> str:
    # deferred: the drawing module loads networkx
    from cbalgebra.network.draw import render

    try:
        return str(render(delivery, out))
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None


def _value(text: str) -> Any:
    if "," in text:
        return tuple(_value(t) for t in text.split(","))
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _params(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--param expects KEY=VALUE, not {item!r}")
        out[key.strip()] = _value(value.strip())
    return out


def _ids(text: str | None, what: str) -> list[int] | None:
    return None if text is None else int_list(text, what, "a processor id")


def _read(path: str, stdin_used: list) -> str:
    if path == "-":
        if stdin_used:
            raise UsageError("standard input can be read only once")
        stdin_used.append(True)
    return read_text(path)


def _numbered_lines(text: str) -> Any:
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "//")):
            yield number, line


def _split_id(line: str, number: int, path: str, required: bool) -> Any:
    """'x: rest' -> (x, rest, column of rest); without a prefix (x None)."""
    head, sep, rest = line.partition(":")
    if sep and head.strip().lstrip("-").isdigit():
        return int(head.strip()), rest, len(head) + 1
    if required:
        raise UsageError(f"{path}: line {number}: expected 'processor: predicate'")
    return None, line, 0


def _located(e: ParseError, path: str, number: int, offset: int) -> UsageError:
    """The error of the text after ``x:`` on line ``number`` of ``path``, at its place in the file."""
    if e.line == 1:
        e.column += offset
    e.line += number - 1
    return in_file(e, path)


def read_predicates(text: str, path: str) -> dict:
    out = {}
    for number, line in _numbered_lines(text):
        x, rest, offset = _split_id(line, number, path, required=True)
        if x in out:
            raise UsageError(f"{path}: line {number}: a second predicate for processor {x}")
        try:
            out[x] = parse_predicate(rest)
        except ParseError as e:
            raise _located(e, path, number, offset) from None
    return out


def read_messages(text: str, path: str) -> list:
    out = []
    for number, line in _numbered_lines(text):
        v, rest, offset = _split_id(line, number, path, required=False)
        try:
            out.append((v, parse_message(rest)))
        except ParseError as e:
            raise _located(e, path, number, offset) from None
    return out


def _summary(args: argparse.Namespace, graph: Any, routing: Any, where: str, records: list[dict],
             drawn: str | None) -> dict:
    summary = {
        "topology": graph.graph.get("name"), "n": graph.number_of_nodes(), "links": graph.number_of_edges(),
        "scheme": args.scheme, "reducer": args.reducer, "predicates": where,
        "senders": len(routing.senders), "receivers": len(routing.receivers),
        "deliveries": len(records), "correct": sum(r["correct"] for r in records),
        "latency_minimal": sum(r["latency_minimal"] for r in records),
        "with_duplicates": sum(bool(r["duplicates"]) for r in records),
        "packets": sum(r["packets"] for r in records),
        "seconds": {},
        "memory": {k: v for k, v in routing.memory().items() if k != "per_processor"},
        "drawn": drawn,
    }
    tree_root = getattr(routing, "tree_root", None)
    if tree_root is not None:
        summary["siena_tree"] = f"shortest-path tree of the centre, processor {tree_root}"
    return summary


def _record(i: int, d: Any) -> dict:
    best = d.optimum
    return {
        "delivery": i, "source": d.source, "message": str(d.message),
        "interested": sorted(d.interested), "receivers": sorted(d.receivers),
        "packets": d.size, "smallest": best.size, "smallest_exact": best.exact,
        "ideal": d.ideal, "correct": d.correct, "latency_minimal": d.latency_minimal,
        "missed": sorted(d.report.missed), "late": [list(x) for x in d.report.late],
        "duplicates": {str(k): v for k, v in sorted(d.duplicates.items())},
        "header_bits": d.header_bits,
        "tree": [[p.parent, p.processor] for p in d.packets if p.parent is not None],
    }


def _yes(b: Any) -> str:
    return "unknown" if b is None else ("yes" if b else "NO")


def _print_record(r: dict, out: Any) -> None:
    best = f"{r['smallest']}" + ("" if r["smallest_exact"] else " (bound)")
    dups = ", ".join(f"{k}×{v}" for k, v in r["duplicates"].items()) or "none"
    print(f"delivery {r['delivery']}: from {r['source']}: {r['message']}", file=out)
    print(f"  interested {_set(r['interested'])}; reached {_set(r['receivers'])}", file=out)
    print(f"  packets |D| = {r['packets']} (smallest latency-minimal {best}); duplicates {dups}; "
          f"header bits {r['header_bits']}", file=out)
    line = (f"  correct {_yes(r['correct'])}, latency-minimal {_yes(r['latency_minimal'])}, "
            f"ideal {_yes(r['ideal'])}")
    if r["missed"]:
        line += f"; missed {_set(r['missed'])}"
    if r["late"]:
        line += "; late " + ", ".join(f"{x} at {a:g} > {b:g}" for x, a, b in r["late"])
    print(line, file=out)


def _set(xs: Any) -> str:
    xs = list(xs)
    if len(xs) > 30:
        return "{" + ", ".join(map(str, xs[:30])) + f", … ({len(xs)} in all)}}"
    return "{" + ", ".join(map(str, xs)) + "}"


def _print_summary(s: dict, out: Any) -> None:
    m = s["memory"]
    print(f"summary: {s['scheme']} on {s['topology']} (n={s['n']}, {s['links']} links), "
          f"reducer {s['reducer']}, predicates {s['predicates']}", file=out)
    if "siena_tree" in s:
        print(f"  siena runs over the {s['siena_tree']}", file=out)
    print(f"  {s['deliveries']} deliveries: {s['correct']} correct, {s['latency_minimal']} latency-minimal, "
          f"{s['with_duplicates']} with duplicates, {s['packets']} packets", file=out)
    print(f"  memory: {m['total_bits']} bits = {m['id_bits']} id bits + {m['predicate_constraints']} constraints "
          f"× {m['bits_per_constraint']} bits ({m['senders']} senders, {m['receivers']} receivers, "
          f"{m['bits_per_id']} bits per id)", file=out)
    print("  by component: " + ", ".join(f"{k} {v}" for k, v in m["components"].items()), file=out)
    t = s["seconds"]
    print(f"  time: topology {t['topology']:.3f} s, build {t['build']:.3f} s, deliver {t['deliver']:.3f} s",
          file=out)
    if s["drawn"]:
        print(f"  drew delivery to {s['drawn']}", file=out)
