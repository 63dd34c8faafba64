"""Did the cliff fixes slow the ordinary workloads? CPU time, interleaved A/B.

Runs the workloads of ``benchmarks/covering.py`` (filter pairs, cold and
warm, numbers only and all types; public ``cb.covers`` on the mixed
workload) and of ``benchmarks/strings.py`` (``solve_string`` on its three
workloads) in fresh interpreters, alternating a baseline package (``git
archive`` of ``--baseline``, default the merge base of HEAD and main; see
``_harness.py``) with this checkout, ``--rounds`` times each. Rates are per
CPU second (``time.process_time``), because on a shared machine wall time
swings by 2x between runs of identical code. Prints best and median of each
side and their ratio (after / before; above 1 is faster). Not a test.

    .venv/bin/python benchmarks/cliffs_regression_ab.py [--rounds 5] [--baseline REV]
"""

from __future__ import annotations

import random
import sys

import covering as C
import strings as SB
from _harness import ab_parser, ab_script, ab_table, rate

import cbalgebra as cb
from cbalgebra.covering import rules
from cbalgebra.covering import strings as S
from cbalgebra.values import Filter


def one_round() -> dict:
    out = {"package": cb.__file__}
    for label, with_strings in (("numbers", False), ("all types", True)):
        pairs = [(C.fresh(g), C.fresh(f)) for g, f in C.filter_pairs(4000, 2027, with_strings)]
        out[f"pairs {label} cold"] = rate(lambda p: rules.filter_covers(*p), pairs)
        out[f"pairs {label} warm"] = rate(lambda p: rules.filter_covers(*p), pairs)
    mixed = [tuple(C.fresh(x) if isinstance(x, Filter) else x for x in item)
             for item in C.mixed_workload(3000, 2028)]
    out["public cb.covers mixed"] = rate(lambda p: cb.covers(p[0], p[1]), mixed)
    rng = random.Random(7)
    for name, operators in SB.WORKLOADS.items():
        cases = SB.generate(rng, operators, 3000)
        S._solve_canonical.cache_clear()
        out[f"solve_string {name}"] = rate(S.solve_string, cases)
    return out


def main(argv: list[str] | None = None) -> int:
    args = ab_parser(__doc__.splitlines()[0]).parse_args(argv)
    sides = ab_script(args, __file__, one_round)
    if sides is None:
        return 0
    baseline, before, after = sides
    print(f"baseline {baseline}, {args.rounds} interleaved rounds, decisions per CPU second")
    ab_table(before, after, width=26)
    return 0


if __name__ == "__main__":
    sys.exit(main())
