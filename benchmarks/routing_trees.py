"""CPU seconds per shortest-path tree of ``table_memory``'s iPS and PSF counts,
this checkout beside a baseline revision (issue 27, item 3: iPS at n = 100,000
needs n + s trees, so the seconds per tree decide whether it runs).

    .venv/bin/python benchmarks/routing_trees.py --n 100000 --roots 1280 --trees 128 --rounds 3 [--baseline main]

Each round runs in a fresh interpreter (baseline and this checkout
alternating, :func:`_harness.ab_rounds`' layout) on the routing study's
workload over a Chung–Lu graph (exponent 2.5, mean degree 4,
``sampler="skip"``) of ``--n`` nodes; it times, in CPU seconds (the machine is
shared): iPS's branch sizes of ``--roots`` processors (pass 1, one tree per
processor; every processor when ``--roots`` is 0), then ``--trees`` trees of
iPS's classes at a sample of 400 processors (pass 2, one tree per sender,
given pass 1's branch sizes: with only some roots' sizes, which classes are
safe differs from the full count but the work per tree does not) and of
PSF's per-sender constraints. The kernels grow trees of equal lengths 64 at
a time, so the defaults time whole groups. The first call of each pass is
made once untimed (numba's compile or cache load). CSV:
benchmarks/results/routing_trees.csv (rows appended).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from _harness import RESULTS, append_csv, extracted, interleaved, load_average, run_json


def one_round(n: int, roots: int, trees: int, seed: int) -> dict:
    """Per-tree CPU seconds of each pass at ``n`` nodes (run in a child)."""
    import cbalgebra
    from cbalgebra.network import topology
    from cbalgebra.network.sizing import ips_branch_sizes, ips_classes, memory_problem, sample_units, unit_values
    from cbalgebra.network.workload import processor_predicates
    from cbalgebra.studies.routing import roles, scenario_parameters

    graph = topology("power_law", n, seed=seed, model="chung_lu", gamma=2.5, sampler="skip")
    receivers, senders = roles(n, 0.5, 0.5, seed, "trees", n, 0)
    names, distribution = scenario_parameters("zipf-500")
    predicates = processor_predicates(receivers, 10, names=names, distribution=distribution, seed=seed)
    problem = memory_problem(graph, predicates, senders=senders)
    units = sample_units(problem, "ips", 400, seed)
    probe = problem.senders[:trees].tolist()
    ips_branch_sizes(problem, [0])          # untimed: compile or load the kernels
    out = {"package": cbalgebra.__file__, "links": graph.number_of_edges()}
    roots = n if roots <= 0 else min(roots, n)
    t = time.process_time()
    branch = ips_branch_sizes(problem, range(roots))
    out["ips_branch_per_tree"] = (time.process_time() - t) / roots
    ips_classes(problem, units, branch, senders=probe[:1])
    unit_values(problem, "psf", probe[:1])
    t = time.process_time()
    ips_classes(problem, units, branch, senders=probe)
    out["ips_classes_per_tree"] = (time.process_time() - t) / len(probe)
    t = time.process_time()
    unit_values(problem, "psf", probe)
    out["psf_per_tree"] = (time.process_time() - t) / len(probe)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--roots", type=int, default=1280, help="processor trees timed in pass 1 (0: every processor)")
    ap.add_argument("--trees", type=int, default=128, help="sender trees timed (pass 2 and PSF)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of each side")
    ap.add_argument("--seed", type=int, default=2003)
    ap.add_argument("--baseline", default="main", help="git revision of the baseline (default main)")
    ap.add_argument("--round", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=RESULTS / "routing_trees.csv")
    args = ap.parse_args()
    if args.round:
        print(json.dumps(one_round(args.n, args.roots, args.trees, args.seed)))
        return
    argv = [sys.executable, str(Path(__file__).resolve()), "--round", "--n", str(args.n), "--roots",
            str(args.roots), "--trees", str(args.trees), "--seed", str(args.seed)]

    def run(package_root: Path | None) -> dict:
        result = run_json(argv, package_root)
        assert result is not None  # no timeout was set
        return result

    with extracted(args.baseline) as package_root:
        runs = interleaved(args.rounds, {"before": lambda: run(package_root), "after": lambda: run(None)})
    rows = []
    for key in ("ips_branch_per_tree", "ips_classes_per_tree", "psf_per_tree"):
        before = statistics.median(r[key] for r in runs["before"])
        after = statistics.median(r[key] for r in runs["after"])
        rows.append({"n": args.n, "links": runs["after"][0]["links"], "pass": key, "baseline": args.baseline,
                     "roots": args.roots, "trees": args.trees,
                     "before_cpu_seconds": round(before, 5), "after_cpu_seconds": round(after, 5),
                     "speedup": round(before / after, 1), "rounds": args.rounds, "load_avg": load_average()})
        append_csv(args.out, rows[-1])
        print(f"n = {args.n:,} {key:22s} {1000 * before:9.2f} ms -> {1000 * after:7.2f} ms CPU per tree "
              f"(x{before / after:.1f}, median of {args.rounds})", flush=True)


if __name__ == "__main__":
    main()
