"""Adversarial forwarding tables: one message against a table built to be
slow, a baseline revision's matcher beside this one's.

Families (every constraint on the string attribute ``s`` unless said):

* ``substring-long``: one substring pattern of 5,000 characters over {a, b};
* ``substring-lengths``: 2,000 substring patterns, of every length 1 .. 2,000;
* ``substring-same-length``: 5,000 distinct substring patterns of length 12;
* ``substring-16-lengths``: 4,000 substring patterns of lengths 1 .. 16, the
  most lengths a key is still probed with rather than given an automaton;
* ``prefix-lengths`` / ``suffix-lengths``: 2,000 prefix (suffix) patterns of
  every length 1 .. 2,000;
* ``prefix-long``: one prefix pattern of 50,000 characters;
* ``not-equal``: 20,000 interfaces, each ``s != v_i`` on one name;
* ``same-name-order``: 20,000 interfaces, each ``int x > k_i`` on one name;

each against a message whose string is 100,000 characters over {a, b} (the
first two), or one value (the last two). The answer of both revisions is
checked against ``cb.matches`` per interface, and forward() is timed as the
median CPU time of ``--repeats`` calls after one warm call. The bound is 50 ms
a message. Prints a table and writes ``benchmarks/results/cliffs_forward.csv``.
Not a test: nothing is asserted, but the exit status is 1 if an answer is
wrong.

    .venv/bin/python benchmarks/cliffs_forward.py [--baseline REV] [--repeats 3] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable

BOUND_SECONDS = 0.05


def _ab(rng: np.random.Generator, n: int) -> str:
    return "".join(rng.choice(np.array(list("ab")), n))


def families(seed: int) -> list[tuple[str, str, cb.Message]]:
    """(family, driver-file table, message)."""
    rng = np.random.default_rng(seed)
    text = _ab(rng, 100_000)
    long_message = cb.Message({"s": text})

    def patterns(op: str, pats: list[str]) -> str:
        return "\n".join(f'ifconfig {i} string s {op} "{p}";' for i, p in enumerate(pats))

    out = [
        ("substring-long", patterns("*", [_ab(rng, 5_000)]), long_message),
        ("substring-lengths", patterns("*", [_ab(rng, k) for k in range(1, 2_001)]), long_message),
        ("substring-same-length", patterns("*", sorted({_ab(rng, 12) for _ in range(5_000)})), long_message),
        ("substring-16-lengths", patterns("*", sorted({_ab(rng, 1 + k % 16) for k in range(4_000)})),
         long_message),
        ("prefix-lengths", patterns(">*", [text[:k] if k % 2 else _ab(rng, k) for k in range(1, 2_001)]),
         long_message),
        ("suffix-lengths", patterns("*<", [text[-k:] if k % 2 else _ab(rng, k) for k in range(1, 2_001)]),
         long_message),
        ("prefix-long", patterns(">*", [text[:50_000]]), long_message),
        ("not-equal", "\n".join(f'ifconfig {i} string s != "v{i:05d}";' for i in range(20_000)),
         cb.Message({"s": "v00042"})),
        ("same-name-order", "\n".join(f"ifconfig {i} int x > {i};" for i in range(20_000)),
         cb.Message({"x": 10_000})),
    ]
    return out


def reference(table_text: str, message: cb.Message) -> list[int]:
    """The interfaces of the driver file whose ifconfig predicate matches, by ``cb.matches``."""
    return sorted({item.interface for item in cb.parse_document(table_text)
                   if item.kind == "ifconfig" and cb.matches(item.value, message)})


def timed(table, message, repeats: int) -> tuple[float, list[int]]:
    answer = sorted(int(i) for i in table.forward(message))
    cpu = []
    for _ in range(repeats):
        t0 = time.process_time()
        table.forward(message)
        cpu.append(time.process_time() - t0)
    return float(np.median(cpu)), answer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="HEAD", help="git revision of the baseline matcher (default HEAD)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    args = ap.parse_args(argv)
    from forward import load_baseline_matcher, write_csv

    rows, wrong = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        Base = load_baseline_matcher(args.baseline, Path(tmp)).ForwardingTable
        print(f"{'family':<22} {'baseline ms':>12} {'now ms':>10} {'ratio':>8}  within 50 ms  answers")
        for family, table_text, message in families(args.seed):
            want = reference(table_text, message)
            t_base, a_base = timed(Base.from_document(table_text), message, args.repeats)
            t_now, a_now = timed(ForwardingTable.from_document(table_text), message, args.repeats)
            right = a_base == want and a_now == want
            wrong += not right
            ratio = t_now / t_base if t_base else float("nan")
            print(f"{family:<22} {1e3 * t_base:>12.2f} {1e3 * t_now:>10.2f} {ratio:>8.4f}  "
                  f"{'yes' if t_now <= BOUND_SECONDS else 'NO':>12}  {'right' if right else 'WRONG'} "
                  f"({len(want)} interfaces)", flush=True)
            rows.append({"family": family, "baseline": args.baseline, "baseline_ms": round(1e3 * t_base, 3),
                         "now_ms": round(1e3 * t_now, 3), "now_over_baseline": round(ratio, 5),
                         "bound_ms": 1e3 * BOUND_SECONDS, "within_bound": t_now <= BOUND_SECONDS,
                         "interfaces_matched": len(want), "answers_right": right})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "cliffs_forward.csv"
    write_csv(path, rows)
    print(f"wrote {path}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
