"""AMSP simulation speed (issue 14 §7): one 600 s simulated run of the Figure 11 scenario.

Ge, Ji, Kurose & Towsley, "Matchmaker", §6.1, Figure 11: 20 publishers, 20
subscribers, per-source trees, a 1000 × 1000 grid, on the Matchmaker
package's transit-stub instance. For each protocol, the run is timed twice:
with PCD and SCD updates crossing settled links as waves (the default) and,
as the baseline, with every hop through the message queue. Both must send
exactly the same messages (checked). The goal is ≤ 60 s of wall time per run.

    .venv/bin/python benchmarks/amsp.py                 # BP, BS, AMSP, 600 s each, both transports
    .venv/bin/python benchmarks/amsp.py --duration 120  # shorter

Events are messages delivered + CD changes + rate-measurement timers. Timings
depend on the machine's load: the 1-minute load average is written with
every row. CSV: benchmarks/results/amsp.csv.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _harness import RESULTS, load_average, write_csv

from cbalgebra.matchmaker import Instance
from cbalgebra.matchmaker.amsp import ProtocolConfig, WorldConfig, simulate

GOAL_SECONDS = 60.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600.0, help="simulated seconds (default 600)")
    parser.add_argument("--seed", type=int, default=1, help="instance and world seed (default 1)")
    parser.add_argument("--protocols", default="BP,BS,AMSP")
    parser.add_argument("--no-baseline", action="store_true", help="skip the every-hop-queued baseline")
    parser.add_argument("--out", type=Path, default=RESULTS / "amsp.csv")
    args = parser.parse_args(argv)
    instance = Instance.generate(args.seed, 20, 20, trees="per-source")
    rows = []
    print(f"Figure 11 scenario: {instance!r}, {args.duration:g} s simulated, load {load_average():.1f}")
    print(f"{'protocol':8} {'transport':9} {'wall s':>8} {'events':>10} {'events/s':>10} {'msgs/s sim':>10} "
          f"{'vs queue':>8}")
    for protocol in args.protocols.split(","):
        runs = {}
        for transport in ("waves",) + (() if args.no_baseline else ("queue",)):
            run = simulate(instance, WorldConfig(), ProtocolConfig(protocol), seed=args.seed,
                           duration=args.duration, waves=transport == "waves")
            runs[transport] = run
            ratio = ""
            if transport == "queue":
                if run.sent != runs["waves"].sent:
                    print(f"{protocol}: the two transports sent different messages", file=sys.stderr)
                    return 1
                ratio = f"{run.wall_seconds / runs['waves'].wall_seconds:.2f}x"
            rate = run.rate(60.0) if args.duration > 60 else run.rate(0.0)
            print(f"{protocol:8} {transport:9} {run.wall_seconds:8.1f} {run.events:10,} "
                  f"{run.events / run.wall_seconds:10,.0f} {rate:10.0f} {ratio:>8}", flush=True)
            rows.append({
                "protocol": protocol, "transport": transport, "duration": args.duration, "seed": args.seed,
                "wall_seconds": round(run.wall_seconds, 3), "events": run.events,
                "events_per_second": round(run.events / run.wall_seconds), "messages": run.total,
                "rate_after_60s": round(rate, 1), "goal_met": run.wall_seconds <= GOAL_SECONDS,
                "load_1min": load_average(),
            })
    write_csv(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
