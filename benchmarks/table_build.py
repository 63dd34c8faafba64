"""Building forwarding tables and the routing schemes' memory: a baseline
revision against this checkout, interleaved.

    .venv/bin/python benchmarks/table_build.py [--baseline REV] [--rounds N] [--out DIR]

What is timed (CPU time of one process, ``time.process_time``: the machine
is shared, and all of this is single-threaded Python and numpy; the numba
kernels are warmed up before):

- ``compile``: ``ForwardingTable.compile`` of the §5.1 workload's
  predicates (20 interfaces, 1–2,000 filters each: Predicate values encoded
  into columns, then compiled);
- ``document``: ``compile_document`` of the same table as an SFF driver
  file (the bulk reader);
- ``from_arrays``: ``ForwardingWorkload.table()`` (columns straight to the compiler);
- ``routing/<scheme>``: ``build(scheme, graph, predicates).memory()`` on a
  Chung–Lu power-law network of 100 processors with Carzaniga, Rembert &
  Wolf's DNF predicates (k = 10); ``exact_memory``: ``network.memory.exact_memory``
  of all four schemes on 200 processors (no tables).

Each round runs one fresh subprocess per side, the baseline's and this
checkout's alternating; each subprocess keeps the best of 3 repetitions of
every item. The medians over the rounds and their ratio (now / baseline)
are printed and written to ``DIR/table_build.csv`` (default
benchmarks/results). The baseline is ``git archive REV`` (default main)
laid out as the installed package (``matcher/`` etc. inside ``cbalgebra/``)
in a temporary folder, so its numba cache is its own. Not a test: nothing
is asserted.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPED = ("grammar", "reducers", "matcher", "studies")

# Runs in the subprocess; argv[1] is a package layout to import (empty: the installed package).
_CHILD = r"""
import json, sys, time
if sys.argv[1]:
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f)]
    sys.path.insert(0, sys.argv[1])
import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable, compile_document
from cbalgebra.network import topology
from cbalgebra.network.memory import exact_memory
from cbalgebra.network.paths import ShortestPaths
from cbalgebra.network.schemes import build
from cbalgebra.network.workload import processor_predicates

assert cb.__file__.startswith(sys.argv[1] or ""), cb.__file__
w = cb.workloads.forwarding(interfaces=20, filters_per_interface=(1, 2001), messages=0, seed=7)
predicates = w.predicates()
text = w.sff(messages=False)
g100 = topology("power_law", 100, seed=12, model="chung_lu", gamma=2.5)
p100 = processor_predicates(100, 10, seed=12)
paths100 = ShortestPaths(g100)
g200 = topology("power_law", 200, seed=12, model="chung_lu", gamma=2.5)
p200 = processor_predicates(200, 10, seed=12)
paths200 = ShortestPaths(g200)
items = {
    "compile": lambda: ForwardingTable.compile(predicates),
    "document": lambda: compile_document(text),
    "from_arrays": lambda: w.table(),
    **{f"routing/{s}": (lambda s=s: build(s, g100, p100, paths=paths100).memory())
       for s in ("psf", "ips", "pif", "drp")},
    "exact_memory": lambda: exact_memory(paths200, p200, range(200)),
}
for f in items.values():
    f()  # warm: numba kernels, caches of values
best = {}
for name, f in items.items():
    times = []
    for _ in range(3):
        t0 = time.process_time()
        f()
        times.append(time.process_time() - t0)
    best[name] = min(times)
print(json.dumps(best))
"""


def baseline_layout(rev: str, folder: Path) -> Path:
    """``rev``'s sources laid out as the installed package under ``folder``."""
    source = folder / "src"
    source.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    archive_path = folder / "rev.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(source, filter="data")
    layout = folder / "layout"
    package = layout / "cbalgebra"
    package.mkdir(parents=True)
    for entry in (source / "cbalgebra").iterdir():
        (package / entry.name).symlink_to(entry)
    for name in MAPPED:
        (package / name).symlink_to(source / name)
    return layout


def run(layout: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", _CHILD, layout], check=True, capture_output=True, text=True,
                         env=env, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        layout = str(baseline_layout(args.baseline, Path(tmp)))
        runs: dict[str, list[dict[str, float]]] = {"baseline": [], "now": []}
        for r in range(args.rounds):
            runs["baseline"].append(run(layout))
            runs["now"].append(run(""))
            print(f"round {r + 1}/{args.rounds}: baseline {runs['baseline'][-1]}", flush=True)
            print(f"{'now':>20s} {runs['now'][-1]}", flush=True)
    rows = []
    for item in runs["now"][0]:
        base = statistics.median(x[item] for x in runs["baseline"])
        now = statistics.median(x[item] for x in runs["now"])
        rows.append({"item": item, "baseline_s": round(base, 4), "now_s": round(now, 4),
                     "ratio": round(now / base, 3), "rounds": args.rounds, "baseline_rev": args.baseline,
                     "load": round(os.getloadavg()[0], 2)})
        print(f"{item:16s} baseline {base:8.4f} s   now {now:8.4f} s   now/baseline {now / base:6.3f}")
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "table_build.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out / 'table_build.csv'}")


if __name__ == "__main__":
    main()
