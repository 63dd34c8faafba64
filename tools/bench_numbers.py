#!/usr/bin/env python3
"""Fill the measured numbers of the docs pages from the benchmarks' CSV files.

A number a page shows about performance is never typed: it is written between two markers that
say where it comes from, and this script rewrites what is between them from the CSV:

    parses <!-- bench covering.csv metric=parse_filters_per_s value ,.0f -->30,611<!-- /bench --> filters/s

The marker names a file of `benchmarks/results/` (a JSON file's column is a dotted path to a
number), any number of `column=value` filters (quote a
value with spaces: `metric="I=20 F=250000: compile"`), the column to show, and optionally a Python
format spec (default `,.3g`). The column may be scaled (`seconds*1000`, `kernel_us/1000`) and, when
several rows match, reduced with `@min`, `@max`, `@median` or `@count` (`seconds@max`); otherwise exactly one
row must match. A whole table comes from a block marker, one row per matching CSV row:

    <!-- bench-table cliffs_forward.csv family,now_ms,bound_ms "table|ms|bound (ms)" -->
    ...generated rows...
    <!-- /bench-table -->

names the file, its filters, the columns (comma-separated) and, quoted, their headings
(`|`-separated). Numbers are shown with thousands separators and three significant digits
below 100. Markers are HTML comments, invisible on the site and on the repository's pages.
Usage:

    tools/bench_numbers.py           rewrite the marked numbers of every page
    tools/bench_numbers.py --check   exit 1 if a page differs from what the CSV files say
"""

from __future__ import annotations

import argparse
import csv
import json
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
COLUMN = re.compile(r"^(?P<name>[\w.]+)(?:(?P<op>[*/])(?P<factor>[\d.e+-]+))?(?:@(?P<agg>min|max|median|count))?$")
AGGREGATES: dict[str, Callable[[Sequence[float]], float]] = {
    "min": min, "max": max, "median": statistics.median, "count": len}


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
        if self.file.endswith(".json"):
            return self._json_value()
        rows = [r for r in read_rows(self.file) if all(r.get(k) == v for k, v in self.filters)]
        column = COLUMN.match(self.column)
        assert column is not None  # checked by parse
        name, agg = column["name"], column["agg"]
        if not rows or (len(rows) > 1 and agg is None):
            raise MarkerError(f"{self.file}: {len(rows)} rows match {dict(self.filters)} (say @min, @max or @median)")
        try:
            values = [float(r[name]) for r in rows]
        except (KeyError, ValueError) as e:
            raise MarkerError(f"{self.file}: column {name!r} is not a number in every matching row") from e
        value = AGGREGATES[agg](values) if agg else values[0]
        if column["op"] == "*":
            value *= float(column["factor"])
        elif column["op"] == "/":
            value /= float(column["factor"])
        return value

    def _json_value(self) -> float:
        """A JSON file's number: the column is its dotted path (`insert.stats.insert_checks`)."""
        node: object = json.loads((RESULTS / self.file).read_text(encoding="utf-8"))
        column = COLUMN.match(self.column)
        assert column is not None  # checked by parse
        for key in column["name"].split("."):
            if not isinstance(node, dict) or key not in node:
                raise MarkerError(f"{self.file}: no {column['name']!r}")
            node = node[key]
        if not isinstance(node, (int, float)):
            raise MarkerError(f"{self.file}: {column['name']!r} is not a number")
        value = float(node)
        return value * float(column["factor"]) if column["op"] == "*" else (
            value / float(column["factor"]) if column["op"] == "/" else value)

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
        missing = [c for c in self.columns if c not in rows[0]]
        if missing:
            raise MarkerError(f"{self.file}: no column {', '.join(missing)}")
        lines = ["| " + " | ".join(self.headings) + " |", "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(cell(r[c]) for c in self.columns) + " |" for r in rows]
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


@cache
def read_rows(file: str) -> tuple[dict[str, str], ...]:
    path = RESULTS / file
    if not path.is_file():
        raise MarkerError(f"benchmarks/results/{file} does not exist")
    with open(path, newline="", encoding="utf-8") as f:
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
