"""cbalgebra against the interval matchers researchers compare with today (issue 29):
REIN, TAMA, OpIndex, H-Tree and the counting "Siena" of the same C++ framework,
on that framework's workload (``cb.workloads.intervals``).

    .venv/bin/python benchmarks/state_of_the_art.py [--sizes 1000000,100000]
        [--distributions uniform,zipf] [--events 1000] [--rounds 3] [--check 100]
        [--seed 0] [--alpha 1.0] [--out DIR] [--no-cbalgebra] [--skip htree,...]
        [--htree-limit-gb 8]

Not a test: nothing is asserted. For every size and distribution it draws the
workload (1,000,000 or 100,000 subscriptions of 10 intervals ``low <= a_i <=
high`` on distinct attributes of 20, values in [0, 1,000,000), width 0.5;
events assigning all 20 attributes) and times, one after the other (the
machine is shared: one heavy thing at a time):

- **cbalgebra**, in a child process (this script with ``--child``): the build
  (``IntervalWorkload.table()``: the columns and ``ForwardingTable.from_arrays``,
  wall and CPU seconds), the table's size (``stats()["nbytes"]``), resident
  memory before the build and its peak (VmRSS and VmHWM of the child: the
  peak includes the workload's arrays and numba, which the row before the
  build shows), then ``forward()`` on every event, ``--rounds`` rounds, and the
  batch kernel on one thread (``forward_batch_csr(threads=1)``);
- each **external engine** whose binary an environment variable names:
  ``REIN_BINARY``, ``TAMA_BINARY``, ``OPINDEX_BINARY``, ``HTREE_BINARY``,
  ``SIENA_BINARY``. Each is a driver (``benchmarks/state_of_the_art_driver.cpp``)
  built against one engine's sources; it reads the very workload cbalgebra
  matches (``IntervalWorkload.write_engine_input``), so the subscriptions are
  identical. When none is set, the script says so and times cbalgebra alone.
  ``--skip`` leaves some out; H-Tree is left out where its index is estimated
  above ``--htree-limit-gb`` (:func:`htree_estimate_gb`: on the zipf workload
  nearly every subscription has intervals on all 8 indexed attributes and
  goes into 4**8 buckets).

Per event: the mean over the events of one round, the median of the rounds;
wall clock (as the framework times) and CPU time of the matching thread (the
clock to compare on a shared machine). Memory of an engine: resident memory
after its build minus before (the index), and its peak.

Every answer is checked against a brute-force evaluation
(``IntervalWorkload.matching``: every predicate evaluated with numpy) on
``--check`` events drawn with the seed: cbalgebra's sets must be equal, and
an engine's count (the framework's ``match()`` reports the number of matching
subscriptions, not the set) must equal the set's size. Over all events, the
engines' counts are also compared with cbalgebra's. TAMA as the framework
builds it (13 levels) is approximate: an interval that covers part of a leaf
cell is kept whole there, so it may count a few subscriptions too many.

Writes ``state_of_the_art.csv`` under DIR (default benchmarks/results) and
prints each workload's table with the ratio cbalgebra / engine.

Building the external engines (by hand, outside the repository: never commit
their code). Their sources are github.com/xizeroplus/matching-algorithm,
folders ``Rein``, ``Tama``, ``Siena``, ``opIndex``, ``Htree``::

    mkdir -p /tmp/sota-engines/src && cd /tmp/sota-engines
    git clone https://github.com/xizeroplus/matching-algorithm src/repo
    cp -r src/repo/Rein src/repo/Tama src/repo/Siena src/repo/opIndex src/repo/Htree src/
    # Siena and H-Tree size an array for 200,000 subscriptions: raise it
    sed -i 's/MAX_SUBS = 200000;/MAX_SUBS = 2000001;/' src/Siena/siena.h src/Htree/htree.h
    D=/path/to/checkout/benchmarks/state_of_the_art_driver.cpp
    for spec in rein:Rein:ENGINE_REIN:rein.cpp tama:Tama:ENGINE_TAMA:tama.cpp \\
                siena:Siena:ENGINE_SIENA:siena.cpp opindex:opIndex:ENGINE_OPINDEX:opIndex.cpp \\
                htree:Htree:ENGINE_HTREE:htree.cpp; do
      IFS=: read name dir macro src <<EOF
    $spec
    EOF
      g++ -O3 -std=c++11 -D$macro -Isrc/$dir $D src/$dir/$src src/$dir/generator.cpp \\
          src/$dir/util.cpp src/$dir/printer.cpp -o $name
    done
    export REIN_BINARY=/tmp/sota-engines/rein TAMA_BINARY=/tmp/sota-engines/tama \\
           SIENA_BINARY=/tmp/sota-engines/siena OPINDEX_BINARY=/tmp/sota-engines/opindex \\
           HTREE_BINARY=/tmp/sota-engines/htree

The driver keeps each engine's parameters from its ``main.cpp``/``paras.txt``
(TAMA: 13 levels; H-Tree: 8 levels of 8 cells; REIN: 500 buckets) and its
build as the framework times it (OpIndex: ``calcFrequency`` then the inserts).
The framework's own build uses no optimization flag; ``-O3`` here.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from _harness import cpus_and_load, load_average, output_folder, per_item, run_json, show_log, write_csv

import cbalgebra as cb

log = logging.getLogger("state-of-the-art")

#: engine -> the environment variable naming its driver binary
ENGINES = {"TAMA": "TAMA_BINARY", "REIN": "REIN_BINARY", '"Siena" counting': "SIENA_BINARY",
           "OpIndex": "OPINDEX_BINARY", "H-Tree": "HTREE_BINARY"}
CBALGEBRA = "cbalgebra"
#: H-Tree (Htree/paras.txt): the first 8 attributes indexed, 8 cells each; a
#: subscription goes into every bucket of the product of the cells its
#: intervals span (each of width 0.5 spans 4 cells), 8**8 buckets in all
HTREE_LEVELS, HTREE_CELLS = 8, 8


# ------------------------------------------------------------------ child
def status_mb(field: str) -> float:
    """A line of /proc/self/status (VmRSS, VmHWM) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load_workload(folder: Path) -> cb.workloads.IntervalWorkload:
    """The workload the parent saved in ``folder`` (arrays and parameters)."""
    arrays = np.load(folder / "workload.npz")
    params = json.loads((folder / "params.json").read_text())
    return cb.workloads.IntervalWorkload(params=params, names=[f"a{i}" for i in range(params["attributes"])],
                                         attribute=arrays["attribute"], low=arrays["low"], high=arrays["high"],
                                         event_values=arrays["event_values"])


def child(folder: Path, rounds: int, sample: list[int]) -> dict[str, Any]:
    """cbalgebra on the saved workload: build, memory, forward() rounds, kernel; the answers."""
    from cbalgebra.matcher import warm_up

    warm_up()  # the numba kernels (from the cache): not part of the build
    w = load_workload(folder)
    messages = w.messages
    rss_before = status_mb("VmRSS")
    wall, cpu = time.perf_counter(), time.thread_time()
    table = w.table()
    build_wall, build_cpu = time.perf_counter() - wall, time.thread_time() - cpu
    rss_after, peak = status_mb("VmRSS"), status_mb("VmHWM")
    table.forward(messages[0])
    per_round, answers = [], []
    for r in range(rounds):
        walls: list[float] = []
        cpus = per_item(partial(_timed_forward, table, walls=walls), messages, results=answers if r == 0 else None)
        per_round.append({"mean_ms": 1e3 * float(np.mean(walls)), "median_ms": 1e3 * float(np.median(walls)),
                          "cpu_mean_ms": 1e3 * float(np.mean(cpus))})
    batch = table.encode(messages)
    kernel_cpu = time.thread_time()
    offsets, _ = table.forward_batch_csr(batch, threads=1)
    kernel_cpu = time.thread_time() - kernel_cpu
    return {"engine": CBALGEBRA, "build_s": build_wall, "build_cpu_s": build_cpu, "rss_before_build_mb": rss_before,
            "rss_after_build_mb": rss_after, "peak_rss_mb": peak, "table_mb": table.stats()["nbytes"] / 1e6,
            "rounds": per_round, "kernel_cpu_ms": 1e3 * kernel_cpu / max(1, len(messages)),
            "counts": [len(a) for a in answers], "kernel_counts": np.diff(offsets).tolist(),
            "sets": {str(e): answers[e].tolist() for e in sample}, "package": cb.__file__}


def _timed_forward(table: Any, message: cb.Message, *, walls: list[float]) -> np.ndarray:
    start = time.perf_counter()
    answer = table.forward(message)
    walls.append(time.perf_counter() - start)
    return answer


# ------------------------------------------------------------------ parent
def save_workload(w: cb.workloads.IntervalWorkload, folder: Path) -> Path:
    """The workload for the cbalgebra child (npz) and for the engines (their input); returns the latter."""
    np.savez(folder / "workload.npz", attribute=w.attribute, low=w.low, high=w.high, event_values=w.event_values)
    (folder / "params.json").write_text(json.dumps(w.params))
    path = folder / "engines.bin"
    w.write_engine_input(path)
    return path


def run_cbalgebra(folder: Path, rounds: int, sample: list[int]) -> dict[str, Any]:
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(folder), "--rounds", str(rounds),
            "--sample", ",".join(map(str, sample))]
    result = run_json(argv, None)
    assert result is not None  # no timeout was set
    return result


def run_engine(binary: str, path: Path, rounds: int) -> dict[str, Any]:
    result = run_json([binary, str(path), str(rounds)], None)
    assert result is not None
    return result


def checked(result: dict[str, Any], truth: dict[int, np.ndarray], reference: list[int] | None) -> dict[str, Any]:
    """The answer checks of one side: against brute force on the sample (sets
    for cbalgebra, counts for an engine) and against cbalgebra's counts on every event."""
    counts = result["counts"]
    if "sets" in result:
        wrong = sum(result["sets"][str(e)] != ids.tolist() for e, ids in truth.items())
        what = "sets"
    else:
        wrong = sum(counts[e] != len(ids) for e, ids in truth.items())
        what = "counts"
    over = max((counts[e] - len(ids) for e, ids in truth.items()), default=0)
    check = f"{len(truth) - wrong}/{len(truth)} {what} equal" + (f" (up to +{over})" if wrong and over > 0 else "")
    agree = "" if reference is None else f"{sum(a == b for a, b in zip(counts, reference, strict=True))}/{len(counts)}"
    return {"brute_force_check": check, "counts_equal_cbalgebra": agree}


def row_of(workload: str, engine: str, result: dict[str, Any]) -> dict[str, Any]:
    rounds = result["rounds"]
    return {"workload": workload, "engine": engine,
            "per_event_ms": round(statistics.median(r["mean_ms"] for r in rounds), 3),
            "per_event_cpu_ms": round(statistics.median(r["cpu_mean_ms"] for r in rounds), 3),
            "median_event_ms": round(statistics.median(r["median_ms"] for r in rounds), 3),
            "rounds": len(rounds), "kernel_cpu_ms": round(result.get("kernel_cpu_ms", float("nan")), 3),
            "build_s": round(result["build_s"], 2), "build_cpu_s": round(result["build_cpu_s"], 2),
            "index_mb": round(result["rss_after_build_mb"] - result["rss_before_build_mb"], 1),
            "peak_rss_mb": round(result["peak_rss_mb"], 1), "table_mb": round(result.get("table_mb", float("nan")), 1),
            "matches_per_event": round(float(np.mean(result["counts"])), 1), "load": load_average()}


def htree_estimate_gb(w: cb.workloads.IntervalWorkload) -> float:
    """H-Tree's index for ``w``, estimated: 24-byte empty vectors for its
    8**8 buckets plus 4 bytes per bucket entry, times 1.7 for the vectors'
    spare capacity (fits 572 MB and 1,543 MB measured at 20,000 subscriptions,
    uniform and zipf)."""
    spans = np.ceil((w.high - w.low) / w.params["value_range"] * HTREE_CELLS - 1e-9)
    entries = np.where(w.attribute < HTREE_LEVELS, spans, 1.0).prod(axis=1).sum()
    return (24 * HTREE_CELLS ** HTREE_LEVELS + 1.7 * 4 * entries) / 1e9


def one_workload(size: int, distribution: str, args: argparse.Namespace, binaries: dict[str, str],
                 rows: list[dict]) -> None:
    """Every side on one workload, one after the other: its rows appended to
    ``rows``, and the CSV rewritten after each (an interrupted run keeps them)."""
    w = cb.workloads.intervals(size, distribution=distribution, alpha=args.alpha, events=args.events,
                               seed=args.seed)
    name = f"{size:,} subscriptions, {distribution}"
    sample = sorted(np.random.default_rng(args.seed).choice(w.n_events, min(args.check, w.n_events),
                                                            replace=False).tolist())
    truth = {e: w.matching(e) for e in sample}
    log.info("%s: %.1f matches per event (brute force, %d events)", name,
             np.mean([len(t) for t in truth.values()]), len(truth))
    reference = None
    binaries = dict(binaries)
    if "H-Tree" in binaries and htree_estimate_gb(w) > args.htree_limit_gb:
        log.info("%s: H-Tree skipped: its index would take about %.0f GB (--htree-limit-gb %.0f)", name,
                 htree_estimate_gb(w), args.htree_limit_gb)
        del binaries["H-Tree"]
    with tempfile.TemporaryDirectory(prefix="state-of-the-art-") as scratch:
        path = save_workload(w, Path(scratch))
        del w
        sides: dict[str, Any] = {} if args.no_cbalgebra else {CBALGEBRA: None}
        sides.update(binaries)
        for engine, binary in sides.items():
            log.info("%s: %s ...", name, engine)
            result = (run_cbalgebra(Path(scratch), args.rounds, sample) if binary is None
                      else run_engine(binary, path, args.rounds))
            if engine == CBALGEBRA:
                reference = result["counts"]
                if result["kernel_counts"] != reference:
                    log.warning("cbalgebra's kernel and forward() disagree on %d events",
                                sum(a != b for a, b in zip(result["kernel_counts"], reference, strict=True)))
            row = {**row_of(name, engine, result), **checked(result, truth, reference)}
            log.info("%s", row)
            rows.append(row)
            write_csv(output_folder(args.out) / "state_of_the_art.csv", rows, say=None)


def print_table(rows: list[dict]) -> None:
    """Each workload's table, with cbalgebra's time over each engine's (CPU and wall)."""
    for workload in dict.fromkeys(r["workload"] for r in rows):
        mine = [r for r in rows if r["workload"] == workload]
        ours = next((r for r in mine if r["engine"] == CBALGEBRA), None)
        print(f"\n{workload}")
        print("| engine | per event CPU (wall) ms | build s | index MB | peak MB | check | cbalgebra / engine |")
        print("|---|---|---|---|---|---|---|")
        for r in mine:
            ratio = ("" if ours is None or r is ours else
                     f"{ours['per_event_cpu_ms'] / r['per_event_cpu_ms']:.2f}x "
                     f"({ours['per_event_ms'] / r['per_event_ms']:.2f}x wall)")
            print(f"| {r['engine']} | {r['per_event_cpu_ms']} ({r['per_event_ms']}) | {r['build_s']} | "
                  f"{r['index_mb']} | {r['peak_rss_mb']} | {r['brute_force_check']} | {ratio} |")


def external_binaries(skip: str) -> dict[str, str]:
    """The engines whose variable is set and that ``skip`` does not name, saying which are not set."""
    skipped = {s.strip().lower() for s in skip.split(",") if s.strip()}
    binaries = {engine: os.environ[var] for engine, var in ENGINES.items()
                if os.environ.get(var) and var.removesuffix("_BINARY").lower() not in skipped}
    missing = [var for var in ENGINES.values() if not os.environ.get(var)]
    if not binaries:
        log.info("none of %s is set: no external engine is timed (see this script's docstring to build them)",
                 ", ".join(ENGINES.values()))
    elif missing:
        log.info("not set, so not timed: %s", ", ".join(missing))
    return binaries


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000000,100000", help="subscriptions, comma-separated")
    ap.add_argument("--distributions", default="uniform,zipf", help="uniform and/or zipf")
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3, help="every event matched once per round")
    ap.add_argument("--check", type=int, default=100, help="events checked against brute force")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--alpha", type=float, default=1.0, help="Zipf exponent of the attributes")
    ap.add_argument("--out", default=None)
    ap.add_argument("--skip", default="", help="engines not to time, e.g. htree,opindex (their variable's prefix)")
    ap.add_argument("--htree-limit-gb", type=float, default=8.0,
                    help="skip H-Tree where its index is estimated larger (zipf at 1,000,000: about 58 GB)")
    ap.add_argument("--no-cbalgebra", action="store_true", help="time the external engines only")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--sample", default="", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        sample = [int(e) for e in args.sample.split(",") if e]
        print(json.dumps(child(Path(args.child), args.rounds, sample)))
        return
    show_log()
    log.info("state of the art: %s", cpus_and_load())
    binaries = external_binaries(args.skip)
    rows: list[dict] = []
    for size in (int(s) for s in args.sizes.split(",")):
        for distribution in args.distributions.split(","):
            one_workload(size, distribution, args, binaries, rows)
    log.info("wrote %s", output_folder(args.out) / "state_of_the_art.csv")
    print_table(rows)


if __name__ == "__main__":
    main()
