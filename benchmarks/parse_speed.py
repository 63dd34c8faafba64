"""The object parser on SFF driver files: ``parse_document`` and
``iter_document``, baseline and this checkout side by side (issue 15 item 1).

The files are the ones benchmarks/forward.py times the forwarding table on:
the paper's workload (``cbalgebra.workloads.forwarding``, 20 interfaces,
Zipf names) as a table of ``--filters`` filters (250,000 by default) in
``ifconfig`` statements of 1,000 filters, and as 2,000 ``select``
statements; and the mixed workload (every type and operator, ``!=``,
prefix, suffix, substring, ``any``, bools, floats) as a 10,000-filter table
and 2,000 selects.

Each reader runs in a child process that imports either this checkout or
the baseline's package (a git ref, by default where this branch left
``main``, extracted by benchmarks/_harness.py), and reports the median CPU
time of ``--repeats`` parses (the baseline's default is one repeat: its
grammar reads a 250,000-filter file in about a minute) and a digest of the
printed items, which must be the same on both sides.

Rows "cliff_*" are 20,000-filter tables (``--cliffs``) in the spellings an
average hides: every constraint distinct, quoted names, typed constraints,
tabs, escapes, keywords as names, and a comment in each statement.

Rows "values only" say where the time goes: the Constraints, Filters and
Predicates of a table built again from their decoded parts, with no text to
read, once as the fast reader puts them together ("checked") and once
through the public constructors ("public"): the first is the floor of any
reader in Python that returns these values.

    .venv/bin/python benchmarks/parse_speed.py
    .venv/bin/python benchmarks/parse_speed.py --filters 50000 --repeats 3 --ref main
    .venv/bin/python benchmarks/parse_speed.py --no-baseline

Writes benchmarks/results/parse_speed.csv. On a shared machine compare CPU
times; the load average is recorded with each run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _harness import (  # noqa: E402 - a sibling of this script, found through sys.path
    RESULTS,
    default_ref,
    extracted,
    load_average,
    median_of,
    run_json,
    write_csv,
)

FIELDS = ["file", "reader", "side", "statements", "filters", "messages", "cpu_s", "rate", "unit",
          "speedup", "digest", "load_average"]


def write_files(folder: Path, filters: int, seed: int) -> dict[str, Path]:
    """The four driver files, written once for both sides."""
    import cbalgebra as cb
    from forward import driver_file, mixed_workload

    paper = cb.workloads.forwarding(interfaces=20, filters_per_interface=filters // 20, messages=2000,
                                    attributes_per_message=10, seed=seed)
    mixed = mixed_workload(seed, 10_000)
    texts = {
        f"paper_table_{filters}": driver_file(paper, messages=False, per_statement=1000),
        "paper_selects_2000": driver_file(paper, table=False, messages=True),
        "mixed_table_10000": driver_file(mixed, messages=False, per_statement=1000),
        "mixed_selects_2000": driver_file(mixed, table=False, messages=True),
    }
    paths = {}
    for name, text in texts.items():
        paths[name] = folder / f"{name}.sff"
        paths[name].write_text(text, encoding="utf-8")
    return paths


def child(path: str, reader: str, repeats: int) -> None:
    """Parse ``path`` ``repeats`` times with ``reader``; print one JSON line."""
    import cbalgebra
    from cbalgebra import parse

    text = Path(path).read_text(encoding="utf-8")
    read = parse.parse_document if reader == "parse_document" else (lambda t: list(parse.iter_document(t)))
    seconds, items = median_of(repeats, lambda: read(text), clock=time.process_time)
    digest = hashlib.sha256("\n".join(str(i) for i in items).encode()).hexdigest()[:16]
    print(json.dumps({
        "package": cbalgebra.__file__, "cpu_s": seconds, "statements": len(items),
        "filters": sum(len(i.value) for i in items if i.kind == "ifconfig"),
        "messages": sum(i.kind == "select" for i in items), "digest": digest,
    }))


def floor_child(path: str, repeats: int) -> None:
    """Where the time goes: the values of ``path``'s ifconfig statements
    built again from their decoded parts, with no text to read, as the fast
    reader builds them and through the public constructors; one JSON line."""
    import cbalgebra
    from cbalgebra import _fastparse, parse
    from cbalgebra.values import Constraint, Filter, Predicate

    predicates = [i.value for i in parse.parse_document(Path(path).read_text(encoding="utf-8"))
                  if i.kind == "ifconfig"]
    index: dict = {}
    for p in predicates:
        for f in p:
            for c in f:
                index.setdefault(c, len(index))
    parts = [(c.type, c.name, c.op, c.value) for c in index]
    shapes = [[[index[c] for c in f] for f in p] for p in predicates]
    runs = [["," * (len(f) - 1) for f in p] for p in shapes]

    def checked() -> None:
        built = [_fastparse._checked_constraint(*q) for q in parts]
        for shape, run in zip(shapes, runs, strict=True):
            _fastparse._predicate_of_runs([built[i] for f in shape for i in f], run)

    def public() -> None:
        built = [Constraint(*q) for q in parts]
        for shape in shapes:
            Predicate([Filter([built[i] for i in f]) for f in shape])

    result: dict = {"package": cbalgebra.__file__, "constraints": len(parts),
                    "filters": sum(len(p) for p in predicates)}
    for name, build in (("checked", checked), ("public", public)):
        times = []
        for _ in range(repeats):
            with parse._collector_paused():
                start = time.process_time()
                build()
                times.append(time.process_time() - start)
        result[name] = statistics.median(times)
    print(json.dumps(result))


def cliff_texts(filters: int, seed: int) -> dict[str, str]:
    """Driver tables of ``filters`` filters that the average hides: every
    constraint distinct (no memo hit), every name quoted, typed, tab-spaced,
    strings with escapes, keywords as names, and a comment in each
    statement (which the fast reader leaves to the grammar)."""
    import re

    import cbalgebra as cb
    from forward import driver_file

    w = cb.workloads.forwarding(interfaces=20, filters_per_interface=filters // 20, messages=1,
                                attributes_per_message=10, seed=seed)
    plain = driver_file(w, messages=False, per_statement=1000)
    counter = iter(range(10**9))
    constraint = re.compile(r'(?<=[ |,] )([A-Za-z_][A-Za-z0-9_]*|"[^"]*") (=|!=|<|>|=\*|\*=|\*\*) ([0-9]+|"[^"]*")')
    return {
        "plain": plain,
        "all_distinct": constraint.sub(lambda m: f"{m[1]} {m[2]} {next(counter)}" if m[3][0] != '"'
                                       else f'{m[1]} {m[2]} "{m[3][1:-1]}{next(counter)}"', plain),
        "quoted_names": constraint.sub(lambda m: f'"{m[1].strip(chr(34))}" {m[2]} {m[3]}', plain),
        "typed": constraint.sub(lambda m: f"{'string' if m[3][0] == chr(34) else 'int'} {m[1]} {m[2]} {m[3]}", plain),
        "tab_spaced": constraint.sub(lambda m: f"{m[1]}\t{m[2]}\t{m[3]}", plain),
        "string_escapes": constraint.sub(lambda m: f'{m[1]} {m[2]} "{m[3][1:-1]}\\n"' if m[3][0] == '"'
                                         else m[0], plain),
        "keyword_names": constraint.sub(lambda m: f"on {m[2]} {m[3]}" if len(m[1]) % 3 == 0 else m[0], plain),
        "comment_per_statement": plain.replace(";\n", " /* c */;\n"),
    }


def cliffs(folder: Path, filters: int, seed: int, repeats: int, package_root: Path | None) -> list[dict]:
    paths = {}
    for name, text in cliff_texts(filters, seed).items():
        paths[f"cliff_{name}"] = folder / f"cliff_{name}.sff"
        paths[f"cliff_{name}"].write_text(text, encoding="utf-8")
    return measure(paths, package_root, ["parse_document"], repeats)


def measure(paths: dict[str, Path], package_root: Path | None, readers: list[str], repeats: int) -> list[dict]:
    rows = []
    for name, path in paths.items():
        for reader in readers:
            result = run_json([sys.executable, str(Path(__file__).resolve()), "--child", str(path), reader,
                               str(repeats)], package_root)
            assert result is not None, "no timeout was set"
            tables = result["filters"] > 0
            count = result["filters"] if tables else result["messages"]
            rows.append({
                "file": name, "reader": reader, "side": "baseline" if package_root is not None else "this checkout",
                "statements": result["statements"], "filters": result["filters"], "messages": result["messages"],
                "cpu_s": round(result["cpu_s"], 3), "rate": round(count / result["cpu_s"]),
                "unit": "filters/s" if tables else "messages/s", "speedup": "", "digest": result["digest"],
                "load_average": load_average(),
            })
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filters", type=int, default=250_000, help="filters in the paper-workload table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="parses per file and reader (median)")
    parser.add_argument("--baseline-repeats", type=int, default=1)
    parser.add_argument("--ref", default=None, help="baseline git ref (default: merge base with main)")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--cliffs", type=int, default=20_000, metavar="FILTERS",
                        help="filters in each cliff table (0: no cliffs)")
    parser.add_argument("--out", type=Path, default=RESULTS / "parse_speed.csv")
    parser.add_argument("--child", nargs=3, metavar=("FILE", "READER", "REPEATS"), help=argparse.SUPPRESS)
    parser.add_argument("--floor-child", nargs=2, metavar=("FILE", "REPEATS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return 0
    if args.floor_child:
        floor_child(args.floor_child[0], int(args.floor_child[1]))
        return 0

    with tempfile.TemporaryDirectory(prefix="parse-speed-") as scratch:
        paths = write_files(Path(scratch), args.filters, args.seed)
        rows = measure(paths, None, ["parse_document", "iter_document"], args.repeats)
        for name in (n for n in paths if "table" in n):
            floor = run_json([sys.executable, str(Path(__file__).resolve()), "--floor-child", str(paths[name]),
                              str(args.repeats)], None)
            assert floor is not None, "no timeout was set"
            for how in ("checked", "public"):
                rows.append({
                    "file": name, "reader": f"values only, {how}", "side": "this checkout", "statements": "",
                    "filters": floor["filters"], "messages": 0, "cpu_s": round(floor[how], 3),
                    "rate": round(floor["filters"] / floor[how]), "unit": "filters/s", "speedup": "",
                    "digest": f"{floor['constraints']} distinct constraints",
                    "load_average": load_average()})
        if args.cliffs:
            rows += cliffs(Path(scratch), args.cliffs, args.seed, args.repeats, None)
        if not args.no_baseline:
            ref = args.ref or default_ref()
            with extracted(ref) as package_root:
                baseline = measure(paths, package_root, ["parse_document"], args.baseline_repeats)
                if args.cliffs:
                    baseline += cliffs(Path(scratch), args.cliffs, args.seed, args.baseline_repeats, package_root)
            for b in baseline:
                b["side"] = f"baseline {ref[:10]}"
                now = next(r for r in rows if r["file"] == b["file"] and r["reader"] == "parse_document")
                if b["digest"] != now["digest"]:
                    raise SystemExit(f"{b['file']}: the baseline and this checkout read different items")
                now["speedup"] = round(b["cpu_s"] / now["cpu_s"], 1)
            rows += baseline

    print(f"{'file':<28} {'reader':<24} {'side':<22} {'CPU s':>8} {'rate':>12} {'unit':<11} {'speedup':>7}")
    for r in rows:
        print(f"{r['file']:<28} {r['reader']:<24} {r['side']:<22} {r['cpu_s']:>8.3f} {r['rate']:>12,} "
              f"{r['unit']:<11} {r['speedup']!s:>7}")
    write_csv(args.out, rows, FIELDS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
