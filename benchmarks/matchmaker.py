"""The Matchmaker's performance limits (issue 13 §7): the max-flow MCM on a
2,000-node instance, and 1,000 samples of the paper's setting on Spark.

    .venv/bin/python benchmarks/matchmaker.py [--repeats 3] [--samples 1000]
        [--master local[2]] [--skip-spark] [--out benchmarks/results]

1. Solvers on 2,000-node transit-stub instances (20 transit domains of the
   paper's shape), per-source trees, |P| = |S| = 20 and = 400: the time to
   generate the instance, MCM by scipy's Dinic max-flow (the library's
   solver) beside networkx's preflow-push (the baseline), TDM, and pricing a
   marking. Median of ``repeats`` runs.
2. The study's paper point, ``samples`` instances (n = 100, |P| = |S| = 20,
   both tree kinds, All-P, All-S, MCM and TDM, priced and checked): in one
   process (the baseline) and as ``cbalgebra study matchmaker`` cells on
   ``master``: session start-up and the jobs' wall time.

Printed and written to ``matchmaker.csv`` with the machine's load (the
limits are for an idle 2-core machine). Not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from _harness import RESULTS, cpus_and_load, each, load_average, median_of, timed, write_csv

from cbalgebra.matchmaker import Instance, closure, cost, tdm


def solver_rows(repeats: int) -> list[dict]:
    rows = []
    for members in (20, 400):
        t_gen, inst = median_of(repeats, lambda members=members: Instance.generate(
            1, members, members, trees="per-source", transit_domains=20))
        assert isinstance(inst, Instance)
        t_scipy, m_scipy = median_of(repeats, lambda inst=inst: closure(inst, "scipy"))
        t_nx, m_nx = median_of(repeats, lambda inst=inst: closure(inst, "networkx"))
        t_tdm, m_tdm = median_of(repeats, lambda inst=inst: tdm(inst))
        t_cost, c = median_of(repeats, lambda inst=inst, m=m_scipy: cost(inst, m))
        assert c == cost(inst, m_nx)
        row = {"part": "solver", "what": f"n=2000 per-source |P|=|S|={members}",
               "links": len(inst.links), "tree_links": sum(len(t) for t in inst.trees.values()),
               "generate_s": t_gen, "mcm_scipy_s": t_scipy, "mcm_networkx_s": t_nx,
               "networkx_over_scipy": t_nx / max(t_scipy, 1e-9), "tdm_s": t_tdm, "cost_s": t_cost,
               "mcm_cost": c, "tdm_cost": cost(inst, m_tdm)}
        rows.append(row)
        print(f"{row['what']:32} |T|={row['links']:5}  generate {t_gen:6.2f} s  MCM scipy {t_scipy:6.3f} s  "
              f"networkx {t_nx:6.3f} s ({row['networkx_over_scipy']:.0f}x)  TDM {t_tdm:6.3f} s  "
              f"cost {t_cost:6.3f} s", flush=True)
    return rows


def study_rows(samples: int, master: str, skip_spark: bool) -> list[dict]:
    from cbalgebra.studies import jobs
    from cbalgebra.studies.matchmaker import matchmaker_study, run_cell

    study = matchmaker_study(samples=samples, sweep_samples=0, dense_samples=0, sizes=(100,), asymmetry=())
    serial, _ = timed(lambda: each(run_cell, study.cells))
    rows = [{"part": "study", "what": f"{samples} samples in one process", "wall_s": serial,
             "samples": samples}]
    print(f"{samples} samples (both trees, 4 algorithms) in one process: {serial:.1f} s", flush=True)
    if skip_spark:
        return rows
    with tempfile.TemporaryDirectory(prefix="mm-bench-") as tmp:
        total, _ = timed(lambda: jobs.execute(study, Path(tmp), master=master, progress=False))
        timing = jobs.read_timing(Path(tmp)) or {}
    wall = float(timing.get("wall_seconds", float("nan")))
    rows.append({"part": "study", "what": f"{samples} samples on {master}", "samples": samples,
                 "wall_s": wall, "startup_s": timing.get("startup_seconds"), "end_to_end_s": total,
                 "serial_over_spark": serial / wall if wall else float("nan")})
    print(f"{samples} samples on {master}: jobs {wall:.1f} s (session start-up "
          f"{timing.get('startup_seconds', float('nan')):.1f} s, end to end {total:.1f} s); "
          f"one process / Spark = {serial / wall:.2f}", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--skip-spark", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    load = load_average(None)
    print(cpus_and_load(), flush=True)
    rows = solver_rows(args.repeats) + study_rows(args.samples, args.master, args.skip_spark)
    fields = sorted({k for row in rows for k in row} | {"load", "cpus"})
    write_csv(args.out / "matchmaker.csv", [{**row, "load": f"{load:.1f}", "cpus": os.cpu_count()} for row in rows],
              ["part", "what", *(k for k in fields if k not in ("part", "what"))])
    return 0


if __name__ == "__main__":
    sys.exit(main())
