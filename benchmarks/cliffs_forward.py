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
* ``not-equal``: 20,000 interfaces, each ``s != v_i`` on one name, the
  general case: constants ``v0`` .. ``v19999`` as written (not zero-padded,
  so their sorted order is not their numeric one) and handed to the
  interfaces in a random order;
* ``not-equal-shuffled`` / ``not-equal-unpadded``: one of the two at a time
  (zero-padded constants in a random order; unpadded ones in interface
  order);
* ``not-equal-best-case``: zero-padded constants in interface order, so
  that sorting the constants by value also sorts their interfaces (the
  figure this table used to give for ``!=``);
* ``not-equal-crafted``: ``--crafted-interfaces`` interfaces (default
  20,000), constants handed out so that the interfaces, in the order their
  constants sort, are the input McIlroy's adversary ("A Killer Adversary for
  Quicksort", 1999) builds against numba's quicksort (median of three,
  nothing to fall back on), which sorts the interfaces a message goes to:
  quadratic in the interfaces matched;
* ``same-name-order``: 20,000 interfaces, each ``int x > k_i`` on one name;

each against a message whose string is 100,000 characters over {a, b} (the
substring, prefix and suffix families), or one value (the others: for the
``!=`` families, the constant of interface 42, so every interface but one
matches). The answer of both revisions is
checked against ``cb.matches`` per interface, and forward() is timed as the
median CPU time of ``--repeats`` calls after one warm call. The bound is 50 ms
a message. Prints a table and writes ``benchmarks/results/cliffs_forward.csv``.
Not a test: nothing is asserted, but the exit status is 1 if an answer is
wrong.

    .venv/bin/python benchmarks/cliffs_forward.py [--baseline REV] [--repeats 3] [--out DIR]
        [--families NAME,...]

``--families`` runs only those families and replaces their rows in the CSV,
keeping the others.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
from _harness import RESULTS, load_baseline_matcher, median_of, read_csv, write_csv

import cbalgebra as cb
from cbalgebra.matcher import ForwardingTable

BOUND_SECONDS = 0.05


def _ab(rng: np.random.Generator, n: int) -> str:
    return "".join(rng.choice(np.array(list("ab")), n))


#: numba's quicksort sorts a partition of fewer elements by insertion.
_NUMBA_SMALL_QUICKSORT = 15


@numba.njit(cache=False)
def _less(x, y, val, state):
    """The adversary's comparison: ``val`` is "gas" (``state[0]``) until a
    comparison forces a value; of two gas items the one that is not the
    pivot candidate (``state[2]``) is frozen to the next solid value (``state[1]``)."""
    gas = state[0]
    if val[x] == gas and val[y] == gas:
        frozen = y if x == state[2] else x
        val[frozen] = state[1]
        state[1] += 1
    if val[x] == gas:
        state[2] = x
    elif val[y] == gas:
        state[2] = y
    return val[x] < val[y]


@numba.njit(cache=False)
def quicksort_killer(n):
    """A permutation of 0 .. n-1 that numba's ``ndarray.sort()`` sorts in
    quadratic time: its quicksort (median of low, middle and high, the pivot
    kept at the end, the larger part pushed) run on gas-valued items with
    McIlroy's comparison, each item's value fixed when first needed."""
    val = np.full(n, n, dtype=np.int64)
    state = np.array([n, 0, 0], dtype=np.int64)
    a = np.arange(n, dtype=np.int64)
    stack = np.zeros((128, 2), dtype=np.int64)
    stack[0, 1] = n - 1
    depth = 1
    while depth > 0:
        depth -= 1
        low, high = stack[depth, 0], stack[depth, 1]
        while high - low >= _NUMBA_SMALL_QUICKSORT:
            mid = (low + high) >> 1
            if _less(a[mid], a[low], val, state):
                a[low], a[mid] = a[mid], a[low]
            if _less(a[high], a[mid], val, state):
                a[high], a[mid] = a[mid], a[high]
            if _less(a[mid], a[low], val, state):
                a[low], a[mid] = a[mid], a[low]
            pivot = a[mid]
            a[high], a[mid] = a[mid], a[high]
            i, j = low, high - 1
            while True:
                while i < high and _less(a[i], pivot, val, state):
                    i += 1
                while j >= low and _less(pivot, a[j], val, state):
                    j -= 1
                if i >= j:
                    break
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
            a[i], a[high] = a[high], a[i]
            if high - i > i - low:
                if high > i:
                    stack[depth, 0], stack[depth, 1] = i + 1, high
                    depth += 1
                high = i - 1
            else:
                if i > low:
                    stack[depth, 0], stack[depth, 1] = low, i - 1
                    depth += 1
                low = i + 1
        for k in range(low + 1, high + 1):  # the insertion sort of the small partition
            x = a[k]
            b = k
            while b > low and _less(x, a[b - 1], val, state):
                a[b] = a[b - 1]
                b -= 1
            a[b] = x
    for x in range(n):
        if val[x] == state[0]:
            val[x] = state[1]
            state[1] += 1
    return val


def crafted_not_equal(n: int) -> tuple[str, cb.Message]:
    """Interface ``killer[k]`` gets the k-th smallest constant: the kernel finds
    the interfaces in the order of their constants, so its output is the
    adversary's input; the message matches every interface."""
    constants = [""] * n
    for k, interface in enumerate(quicksort_killer(n).tolist()):
        constants[interface] = f"c{k:07d}"
    table = "\n".join(f'ifconfig {i} string s != "{c}";' for i, c in enumerate(constants))
    return table, cb.Message({"s": "none of them"})


def not_equal(constants: list[str]) -> tuple[str, cb.Message]:
    """Interface i gets ``s != constants[i]``; the message carries interface 42's constant."""
    table = "\n".join(f'ifconfig {i} string s != "{c}";' for i, c in enumerate(constants))
    return table, cb.Message({"s": constants[42]})


def families(seed: int, crafted_interfaces: int = 20_000) -> list[tuple[str, str, cb.Message]]:
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
        ("not-equal", *not_equal([f"v{k}" for k in rng.permutation(20_000)])),
        ("not-equal-shuffled", *not_equal([f"v{k:05d}" for k in rng.permutation(20_000)])),
        ("not-equal-unpadded", *not_equal([f"v{k}" for k in range(20_000)])),
        ("not-equal-best-case", *not_equal([f"v{k:05d}" for k in range(20_000)])),
        ("not-equal-crafted", *crafted_not_equal(crafted_interfaces)),
        ("same-name-order", "\n".join(f"ifconfig {i} int x > {i};" for i in range(20_000)),
         cb.Message({"x": 10_000})),
    ]
    return out


def reference(table_text: str, message: cb.Message) -> list[int]:
    """The interfaces of the driver file whose ifconfig predicate matches, by ``cb.matches``."""
    return sorted({item.interface for item in cb.parse_document(table_text)
                   if item.kind == "ifconfig" and cb.matches(item.value, message)})


def timed_forward(table, message, repeats: int) -> tuple[float, list[int]]:
    """(median CPU seconds of ``repeats`` forward() calls after one warm call, the interfaces it answers)."""
    answer = sorted(int(i) for i in table.forward(message))
    seconds, _ = median_of(repeats, lambda: table.forward(message), clock=time.process_time)
    return seconds, answer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="HEAD", help="git revision of the baseline matcher (default HEAD)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--crafted-interfaces", type=int, default=20_000, metavar="N",
                    help="interfaces of the not-equal-crafted family (default 20000)")
    ap.add_argument("--families", default=None, metavar="NAME,...",
                    help="run only these families; their rows replace those in the CSV")
    args = ap.parse_args(argv)
    every = families(args.seed, args.crafted_interfaces)
    names = [name for name, _, _ in every]
    chosen = every
    if args.families is not None:
        wanted = args.families.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            ap.error(f"unknown families {', '.join(unknown)}")
        chosen = [family for family in every if family[0] in wanted]

    rows, wrong = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        Base = load_baseline_matcher(args.baseline, Path(tmp)).ForwardingTable
        print(f"{'family':<22} {'baseline ms':>12} {'now ms':>10} {'ratio':>8}  within 50 ms  answers")
        for family, table_text, message in chosen:
            want = reference(table_text, message)
            t_base, a_base = timed_forward(Base.from_document(table_text), message, args.repeats)
            t_now, a_now = timed_forward(ForwardingTable.from_document(table_text), message, args.repeats)
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
    path = Path(args.out) / "cliffs_forward.csv"
    if args.families is not None:  # the other families' rows stay, in the order of families()
        fresh = {row["family"]: row for row in rows}
        kept = {row["family"]: row for row in read_csv(path) if row["family"] not in fresh}
        rows = [both[name] for name in names for both in (fresh, kept) if name in both]
    write_csv(path, rows)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
