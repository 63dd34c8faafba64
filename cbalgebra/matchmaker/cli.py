"""``cbalgebra matchmaker INSTANCE.json``: solve one Min-Cost Matchmaker
instance (Ge, Ji, Kurose & Towsley, "Matchmaker: Signaling for Dynamic
Publish/Subscribe Applications", §3-4) with All-P, All-S, MCM and TDM.

Exit codes (the policy of :mod:`cbalgebra.clibase`): 0 success, 2 a
malformed instance or bad usage (one line on standard error), 69 Graphviz
missing for an .svg/.png drawing, 70 internal error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cbalgebra import graphviz
from cbalgebra.clibase import Subparsers, UsageError, read_text

from .names import SHARED_TREES

ALGORITHM_NAMES = ("all-p", "all-s", "mcm", "tdm")
_TITLES = {"all-p": "All-P", "all-s": "All-S", "mcm": "MCM", "tdm": "TDM"}

_DESCRIPTION = """\
Mark every directed link of the multicast trees a p-link (publication CDs
cross it) or an s-link (subscription CDs cross it) so that below an s-link
everything is an s-link, and count the CDs crossing links (Cost, equation 2
of Ge, Ji, Kurose & Towsley, "Matchmaker", §3). Prints each algorithm's cost
and its marking: All-P (broadcast publication), All-S (broadcast
subscription), MCM (the optimum: Figure 5 on shared trees, a minimum cut on
per-source trees, §4.2) and TDM (top-down marking, Figure 6).

INSTANCE: a JSON file (- for standard input):
  {"network": {"edges": [[0, 1, 10], [1, 2], ...]},      # [u, v, weight?]
   "publishers": [[node, PCDs], ...], "subscribers": [[node, SCDs], ...],
   "trees": "shared" | "per-source" | [{"publisher": x, "edges": [[u, v], ...]}],
   "core": node,                                          # shared trees only
   "shared_tree": "pruned" | "whole"}                     # shared trees only
or {"generate": {"seed": 7, "publishers": 20, "subscribers": 20,
"trees": "per-source"}} for the paper's random 100-node transit-stub
instance. --write-instance saves any instance in the explicit form.

On a shared tree T_x is, by default, the paper's (§3.1): the links on the
paths from x to the subscribers; --shared-tree whole (or "shared_tree":
"whole") takes the whole tree oriented away from x.

--draw OUT draws one marking (--draw-algorithm, default mcm): .svg or .png
through Graphviz's dot, or .dot (needs nothing)."""


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "matchmaker", help="mark p-links and s-links: All-P, All-S, MCM, TDM (Ge, Ji, Kurose & Towsley)",
        description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("instance", metavar="INSTANCE", help="instance JSON file, - for standard input")
    p.add_argument("--algorithms", default=",".join(ALGORITHM_NAMES), metavar="LIST",
                   help=f"comma-separated, from {', '.join(ALGORITHM_NAMES)} (default: all)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--quiet", action="store_true", help="costs only, not the markings")
    p.add_argument("--draw", default=None, metavar="OUT", help="draw a marking: .svg, .png or .dot")
    p.add_argument("--draw-algorithm", default="mcm", choices=ALGORITHM_NAMES,
                   help="the marking to draw (default mcm)")
    p.add_argument("--write-instance", default=None, metavar="FILE",
                   help="also write the instance as explicit JSON (network, counts, trees)")
    p.add_argument("--shared-tree", default=None, choices=SHARED_TREES,
                   help="T_x on a shared tree routed from the instance: pruned (the paper's; default) or whole")
    p.set_defaults(func=run)


def _algorithms(text: str) -> list[str]:
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    for name in names:
        if name not in ALGORITHM_NAMES:
            raise UsageError(f"--algorithms: unknown algorithm {name!r} (valid: {', '.join(ALGORITHM_NAMES)})")
    if not names:
        raise UsageError("--algorithms: give at least one algorithm")
    return list(dict.fromkeys(names))


def _link(link: tuple) -> str:
    return f"{link[0]}->{link[1]}"


def run(args: argparse.Namespace) -> int:
    # deferred: the matchmaker modules load networkx, kept out of `cbalgebra --help`
    from . import InstanceError, all_p, all_s, cost, mcm, tdm, valid
    from .jsonio import instance_to_json, loads, marking_to_json

    names = _algorithms(args.algorithms)
    draw = Path(args.draw) if args.draw else None
    if draw is not None and draw.suffix.lower() not in (".svg", ".png", ".dot"):
        raise UsageError(f"--draw {args.draw}: the file name must end in .svg, .png or .dot")
    where = "standard input" if args.instance == "-" else args.instance
    try:
        instance = loads(read_text(args.instance), where, shared_tree=args.shared_tree)
    except InstanceError as e:
        raise UsageError(f"{where}: {e}" if not str(e).startswith(where) else str(e)) from None
    if draw is not None and draw.suffix.lower() != ".dot":
        graphviz.require(instead="draw to a .dot file")  # before the solvers run
    solvers = {"all-p": all_p, "all-s": all_s, "mcm": mcm, "tdm": tdm}
    wanted = list(dict.fromkeys([*names, *([args.draw_algorithm] if draw else [])]))
    markings = {name: solvers[name](instance) for name in wanted}
    costs = {name: cost(instance, markings[name]) for name in wanted}
    if args.write_instance:
        Path(args.write_instance).write_text(json.dumps(instance_to_json(instance)) + "\n", encoding="utf-8")
    if draw is not None:
        # deferred: the drawing module loads networkx
        from .draw import render, to_dot
        name = args.draw_algorithm
        text = to_dot(instance, markings[name], f"{_TITLES[name]}: Cost {costs[name]}")
        if draw.suffix.lower() == ".dot":
            draw.write_text(text, encoding="utf-8")
        else:
            render(text, draw)
    if args.json:
        doc = {"kind": instance.kind, "core": instance.core, "publishers": len(instance.publishers),
               "subscribers": len(instance.subscribers), "links": len(instance.links),
               "algorithms": {name: {"cost": costs[name], "valid": valid(instance, markings[name]),
                                     **({} if args.quiet else {"marking": marking_to_json(markings[name])})}
                              for name in names}}
        print(json.dumps(doc, indent=1))
        return 0
    out = sys.stdout
    core = "" if instance.core is None else f", core {instance.core}"
    out.write(f"{instance.kind} trees, {len(instance.publishers)} publishers, {len(instance.subscribers)} "
              f"subscribers, {len(instance.links)} links{core}\n")
    out.write(f"{'algorithm':<10} {'cost':>10} {'p-links':>8} {'s-links':>8}  valid\n")
    for name in names:
        m = markings[name]
        s_links = sum(1 for v in m.values() if v == "s")
        out.write(f"{_TITLES[name]:<10} {costs[name]:>10} {len(m) - s_links:>8} {s_links:>8}  "
                  f"{'yes' if valid(instance, m) else 'NO'}\n")
    if draw is not None:
        out.write(f"drew the {_TITLES[args.draw_algorithm]} marking to {draw}\n")
    if args.quiet or not instance.links:
        return 0
    width = max(len(_link(t)) for t in instance.links)
    out.write(f"\n{'link':<{width}} {'sigma':>7} {'tau':>7}  " + " ".join(f"{_TITLES[n]:>5}" for n in names) + "\n")
    for t in instance.links:
        out.write(f"{_link(t):<{width}} {instance.sigma(t):>7} {instance.tau(t):>7}  "
                  + " ".join(f"{markings[n][t]:>5}" for n in names) + "\n")
    return 0
