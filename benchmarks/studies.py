"""Wall time of the α studies on local[1] against local[2], with phase times.

Runs ``cbalgebra study <study> ...`` once per master, each in a fresh output
directory and a fresh process (Spark start-up included), then prints and
saves a table: total wall time, session start-up, the jobs' wall time, the
time spent generating predicates and reducing them (summed over tasks),
the Spark overhead (task slots × jobs' wall time − Σ task time) and the
speed-up of each master over the first.

    .venv/bin/python benchmarks/studies.py dnf                  # full Figure 6+7 sweep
    .venv/bin/python benchmarks/studies.py general              # full Figure 5 sweep
    .venv/bin/python benchmarks/studies.py dnf --quick          # seconds
    .venv/bin/python benchmarks/studies.py dnf --masters 'local[2]' -- --replicates 5

Arguments after ``--`` go to the study command unchanged.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _harness import load_average, timed


def run_once(study: str, master: str, out: Path, extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "cbalgebra.cli", "study", f"alpha-{study}", "--out", str(out),
           "--master", master, *extra]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    wall, done = timed(lambda: subprocess.run(cmd, env=env, capture_output=True, text=True), clock=time.monotonic)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    timing = json.loads((out / "timing.json").read_text())
    return {
        "study": study,
        "master": master,
        "slots": timing["slots"],
        "cells": timing["cells_run"],
        "command_wall_s": round(wall, 2),
        "startup_s": round(timing["startup_seconds"], 2),
        "jobs_wall_s": round(timing["wall_seconds"], 2),
        "generation_s": round(timing["gen_seconds"], 2),
        "reduction_s": round(timing["reduce_seconds"], 2),
        "task_s": round(timing["task_seconds"], 2),
        "spark_overhead_slot_s": round(timing["overhead_seconds"], 2),
        "load_before": load_average(None),
        "args": extra,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("study", choices=("dnf", "general"))
    parser.add_argument("--masters", default="local[1],local[2]", help="comma-separated masters")
    parser.add_argument("--quick", action="store_true", help="pass --quick to the study")
    parser.add_argument("--keep", type=Path, help="keep the output directories under this folder")
    parser.add_argument("--json", type=Path, help="append the rows to this JSON-lines file")
    parser.add_argument("extra", nargs="*", help="arguments for the study command (after --)")
    args = parser.parse_args(argv)
    extra = (["--quick"] if args.quick else []) + ["--no-progress", *args.extra]
    rows = []
    base = args.keep or Path(tempfile.mkdtemp(prefix="cbalgebra-bench-"))
    try:
        for master in [m.strip() for m in args.masters.split(",") if m.strip()]:
            out = base / f"{args.study}-{master.replace('[', '').replace(']', '').replace('*', 'all')}"
            if out.exists():
                shutil.rmtree(out)
            row = run_once(args.study, master, out, extra)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    first = rows[0]["command_wall_s"]
    print()
    header = ("master", "cells", "command wall", "start-up", "jobs wall", "generation", "reduction",
              "Spark overhead (slot-s)", "speed-up")
    print(" | ".join(header))
    for r in rows:
        print(" | ".join(str(x) for x in (
            r["master"], r["cells"], f"{r['command_wall_s']:.1f} s", f"{r['startup_s']:.1f} s",
            f"{r['jobs_wall_s']:.1f} s", f"{r['generation_s']:.1f} s", f"{r['reduction_s']:.1f} s",
            f"{r['spark_overhead_slot_s']:.1f}", f"{first / r['command_wall_s']:.2f}×")))
    if args.json:
        with open(args.json, "a", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
