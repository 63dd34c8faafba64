#!/usr/bin/env python3
"""Fill the measured numbers of the docs pages from the benchmarks' CSV files.

A number a page shows about performance is never typed: it is written between two markers that
say where it comes from, and this script rewrites what is between them from the CSV:

    parses <!-- bench covering.csv metric=parse_filters_per_s value ,.0f -->30,611<!-- /bench --> filters/s

The marker names a file of `benchmarks/results/` (a JSON file's column is a dotted path to a
number, one per item where the path crosses a list, whose fields the filters select), any number
of `column=value` filters (quote a value with spaces: `metric="I=20 F=250000: compile"`), the
column to show, and optionally a Python format spec (default `,.3g`). The column may be scaled
by a number (`seconds*1000`, `kernel_us/1000`) or by another column of the same row
(`psf_total_bits/drp_total_bits`, a ratio the CSV does not hold) and, when several rows match,
reduced with `@min`, `@max`, `@median`, `@count` or `@sum` (`seconds@max`); otherwise exactly
one row must match. A file under `studies/results/` (a committed
study's `summary.csv` or `timing.json`) is named by its path from the repository's root. A whole
table comes from a block marker, one row per matching CSV row:

    <!-- bench-table cliffs_forward.csv family,now_ms,bound_ms "table|ms|bound (ms)" -->
    ...generated rows...
    <!-- /bench-table -->

names the file, its filters, the columns (comma-separated, each scaled as above:
`psf_total_bits/8e6` shows megabytes) and, quoted, their headings (`|`-separated). Numbers
are shown with thousands separators and three significant digits below 100. Markers are HTML
comments, invisible on the site and on the repository's pages. Usage:

    tools/bench_numbers.py           rewrite the marked numbers of every page
    tools/bench_numbers.py --check   exit 1 if a page differs from what the CSV files say
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import shlex
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layout import REPO  # tools/ is not a package: its sibling is on sys.path

RESULTS = REPO / "benchmarks" / "results"
PAGES = (REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")))
# a marked number: one line, the number alone between the two comments
MARKED = re.compile(r"<!-- bench (?P<query>[^>\n]*?) -->(?P<shown>[^<\n]*)<!-- /bench -->")
TABLE = re.compile(r"<!-- bench-table (?P<query>[^>\n]*?) -->\n(?P<shown>.*?)<!-- /bench-table -->", re.S)
# a column, scaled by numbers or by other columns of its row (`a/b*100`), optionally reduced
COLUMN = re.compile(r"^(?P<name>[\w.]+)(?P<scale>(?:[*/](?:[\d.][\d.e+-]*|[a-zA-Z_]\w*))*)"
                    r"(?:@(?P<agg>min|max|median|count|sum))?$")
STEP = re.compile(r"(?P<op>[*/])(?:(?P<factor>[\d.][\d.e+-]*)|(?P<other>[a-zA-Z_]\w*))")
AGGREGATES: dict[str, Callable[[Sequence[float]], float]] = {
    "min": min, "max": max, "median": statistics.median, "count": len, "sum": math.fsum}


class MarkerError(ValueError):
    """A marker that names no file, no column, or not exactly one row."""


@dataclass(frozen=True)
class Query:
    file: str
    filters: tuple[tuple[str, str], ...]
    column: str
    format_spec: str

    @classmethod
    def parse(cls, text: str) -> Query:
        words = shlex.split(text)
        if len(words) < 2:
            raise MarkerError(f"'{text}': a marker names a CSV file and a column")
        filters = tuple((w.split("=", 1)[0], w.split("=", 1)[1]) for w in words[1:] if "=" in w)
        rest = [w for w in words[1:] if "=" not in w]
        if not 1 <= len(rest) <= 2 or not COLUMN.match(rest[0]):
            raise MarkerError(f"'{text}': after the filters, a column and an optional format spec")
        return cls(words[0], filters, rest[0], rest[1] if len(rest) == 2 else ",.3g")

    def value(self) -> float:
        column = COLUMN.match(self.column)
        assert column is not None  # checked by parse
        agg = column["agg"]
        if self.file.endswith(".json"):
            values = [scaled(v, column, {}, self.file) for v in json_numbers(self.file, column["name"], self.filters)]
        else:
            rows = [r for r in read_rows(self.file) if all(r.get(k) == v for k, v in self.filters)]
            values = [scaled(number(row, column["name"], self.file), column, row, self.file) for row in rows]
        if not values or (len(values) > 1 and agg is None):
            raise MarkerError(f"{self.file}: {len(values)} rows match {dict(self.filters)} (say @min, @max or @median)")
        return AGGREGATES[agg](values) if agg else values[0]

    def shown(self) -> str:
        return format(self.value(), self.format_spec)


@dataclass(frozen=True)
class TableQuery:
    file: str
    filters: tuple[tuple[str, str], ...]
    columns: tuple[str, ...]
    headings: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> TableQuery:
        words = shlex.split(text)
        rest = [w for w in words[1:] if "=" not in w]
        if len(words) < 3 or len(rest) != 2:
            raise MarkerError(f"'{text}': a table marker names a CSV file, filters, the columns and their headings")
        columns, headings = tuple(rest[0].split(",")), tuple(rest[1].split("|"))
        if len(columns) != len(headings):
            raise MarkerError(f"'{text}': {len(columns)} columns but {len(headings)} headings")
        filters = tuple((w.split("=", 1)[0], w.split("=", 1)[1]) for w in words[1:] if "=" in w)
        return cls(words[0], filters, columns, headings)

    def shown(self) -> str:
        rows = [r for r in read_rows(self.file) if all(r.get(k) == v for k, v in self.filters)]
        if not rows:
            raise MarkerError(f"{self.file}: no row matches {dict(self.filters)}")
        columns = [COLUMN.match(c) for c in self.columns]
        missing = [c for c, m in zip(self.columns, columns, strict=True)
                   if m is None or m["agg"] or not {m["name"], *others(m)} <= rows[0].keys()]
        if missing:
            raise MarkerError(f"{self.file}: no column {', '.join(missing)}")
        lines = ["| " + " | ".join(self.headings) + " |", "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(table_cell(r, m, self.file) for m in columns if m) + " |" for r in rows]
        # blank lines around the table: Markdown readers end a table, and start one, only there
        return "\n" + "\n".join(lines) + "\n\n"


def cell(text: str) -> str:
    """A CSV value as a table shows it: numbers grouped and rounded, other text escaped."""
    try:
        number = float(text)
    except ValueError:
        return text.replace("|", "\\|")
    if number != number:  # NaN: the engine has no such figure
        return "—"
    if number in (float("inf"), float("-inf")):
        return text
    if number == int(number) or abs(number) >= 100:
        return f"{number:,.0f}"
    return f"{number:.3g}"


def table_cell(row: dict[str, str], column: re.Match[str], file: str) -> str:
    """One cell of a generated table: the CSV's text, or its number once scaled."""
    if not column["scale"]:
        return cell(row[column["name"]])
    return cell(repr(scaled(number(row, column["name"], file), column, row, file)))


def others(column: re.Match[str]) -> list[str]:
    """The other columns a column is scaled by."""
    return [step["other"] for step in STEP.finditer(column["scale"]) if step["other"]]


def number(row: dict[str, str], name: str, file: str) -> float:
    try:
        return float(row[name])
    except (KeyError, ValueError) as e:
        raise MarkerError(f"{file}: column {name!r} is not a number in every matching row") from e


def scaled(value: float, column: re.Match[str], row: dict[str, str], file: str) -> float:
    """``value`` times or over each of the column's factors: numbers, or other columns of ``row``."""
    for step in STEP.finditer(column["scale"]):
        factor = float(step["factor"]) if step["factor"] else number(row, step["other"], file)
        value = value * factor if step["op"] == "*" else value / factor
    return value


def json_numbers(file: str, dotted: str, filters: tuple[tuple[str, str], ...]) -> list[float]:
    """A JSON file's numbers at a dotted path (`insert.stats.insert_checks`): one number, or one
    per item where the path crosses a list (`traffic.saved_percent`), keeping the items whose
    fields equal the filters (`topology="star (20)"`)."""
    nodes: list[object] = [json.loads(source(file).read_text(encoding="utf-8"))]
    for key in dotted.split("."):
        nodes = [item for node in nodes for item in (node if isinstance(node, list) else [node])
                 if not isinstance(item, dict) or all(str(item.get(k, v)) == v for k, v in filters)]
        if not all(isinstance(node, dict) and key in node for node in nodes):
            raise MarkerError(f"{file}: no {dotted!r}")
        nodes = [node[key] for node in nodes if isinstance(node, dict)]
    if not all(isinstance(node, (int, float)) and not isinstance(node, bool) for node in nodes):
        raise MarkerError(f"{file}: {dotted!r} is not a number")
    return [float(node) for node in nodes if isinstance(node, (int, float))]


def source(file: str) -> Path:
    """Where a marker's file is: a committed study's by its path from the root, else a benchmark's."""
    path = REPO / file if file.startswith("studies/results/") else RESULTS / file
    if not path.is_file():
        shown = file if file.startswith("studies/results/") else f"benchmarks/results/{file}"
        raise MarkerError(f"{shown} does not exist")
    return path


@cache
def read_rows(file: str) -> tuple[dict[str, str], ...]:
    with open(source(file), newline="", encoding="utf-8") as f:
        return tuple(csv.DictReader(f))


def filled(text: str) -> str:
    """``text`` with every marked number rewritten from its CSV file."""
    def refill(m: re.Match[str]) -> str:
        return f"<!-- bench {m['query']} -->{Query.parse(m['query']).shown()}<!-- /bench -->"

    def refill_table(m: re.Match[str]) -> str:
        return f"<!-- bench-table {m['query']} -->\n{TableQuery.parse(m['query']).shown()}<!-- /bench-table -->"

    return TABLE.sub(refill_table, MARKED.sub(refill, text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is out of date")
    args = parser.parse_args(argv)
    stale = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        try:
            new = filled(text)
        except MarkerError as e:
            print(f"{page.relative_to(REPO)}: {e}", file=sys.stderr)
            return 1
        if new != text:
            stale.append(page.relative_to(REPO))
            if not args.check:
                page.write_text(new, encoding="utf-8")
    if args.check and stale:
        names = ", ".join(map(str, stale))
        print(f"{names}: measured numbers out of date: run tools/bench_numbers.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
