"""Did the cliff fixes slow the ordinary workloads? CPU time, interleaved A/B.

Runs the workloads of ``benchmarks/covering.py`` (filter pairs, cold and
warm, numbers only and all types; public ``cb.covers`` on the mixed
workload) and of ``benchmarks/strings.py`` (``solve_string`` on its three
workloads) in fresh interpreters, alternating a baseline package (``git
archive`` of ``--baseline``, default the merge base of HEAD and main; see
``_baseline.py``) with this checkout, ``--rounds`` times each. Rates are per
CPU second (``time.process_time``), because on a shared machine wall time
swings by 2x between runs of identical code. Prints best and median of each
side and their ratio (after / before; above 1 is faster). Not a test.

    .venv/bin/python benchmarks/cliffs_regression_ab.py [--rounds 5] [--baseline REV]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import covering as C
import strings as SB
from _baseline import default_ref, extracted, run_json

import cbalgebra as cb
from cbalgebra.covering import rules
from cbalgebra.covering import strings as S
from cbalgebra.values import Filter



def cpu_rate(fn, items) -> float:
    start = time.process_time()
    for x in items:
        fn(x)
    return len(items) / (time.process_time() - start)


def one_round() -> dict:
    out = {"package": cb.__file__}
    for label, with_strings in (("numbers", False), ("all types", True)):
        pairs = [(C.fresh(g), C.fresh(f)) for g, f in C.filter_pairs(4000, 2027, with_strings)]
        out[f"pairs {label} cold"] = cpu_rate(lambda p: rules.filter_covers(*p), pairs)
        out[f"pairs {label} warm"] = cpu_rate(lambda p: rules.filter_covers(*p), pairs)
    mixed = [tuple(C.fresh(x) if isinstance(x, Filter) else x for x in item)
             for item in C.mixed_workload(3000, 2028)]
    out["public cb.covers mixed"] = cpu_rate(lambda p: cb.covers(p[0], p[1]), mixed)
    rng = random.Random(7)
    for name, operators in SB.WORKLOADS.items():
        cases = SB.generate(rng, operators, 3000)
        S._solve_canonical.cache_clear()
        out[f"solve_string {name}"] = cpu_rate(S.solve_string, cases)
    return out


def run(package_root: Path | None) -> dict:
    """One round in a fresh interpreter importing the package at ``package_root`` (None: this checkout)."""
    result = run_json([sys.executable, str(Path(__file__).resolve()), "--round"], package_root)
    assert result is not None  # no timeout was set
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--round", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.round:
        print(json.dumps(one_round()))
        return 0
    baseline = args.baseline or default_ref()
    before, after = [], []
    with extracted(baseline) as package_root:
        for _ in range(args.rounds):
            before.append(run(package_root))
            after.append(run(None))
    print(f"baseline {baseline}, {args.rounds} interleaved rounds, decisions per CPU second")
    print(f"{'workload':<26} {'before best':>12} {'after best':>12} {'ratio':>6} "
          f"{'before med':>11} {'after med':>11} {'ratio':>6}")
    for key in before[0]:
        b, a = [r[key] for r in before], [r[key] for r in after]
        print(f"{key:<26} {max(b):>12,.0f} {max(a):>12,.0f} {max(a) / max(b):>6.2f} "
              f"{statistics.median(b):>11,.0f} {statistics.median(a):>11,.0f} "
              f"{statistics.median(a) / statistics.median(b):>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
