#!/usr/bin/env python3
"""Write the README's table of routing memory at Internet scale from the committed study.

The table (per scheme: the exponent of its memory in n with its 95 % interval,
its memory at n = 75,000 and measured/formula there, on Chung–Lu power-law
graphs) is :func:`cbalgebra.studies.routing_internet_report.headline_table` of
``studies/results/routing-internet``; it sits in README.md between two marker
comments, so that no number of it is typed. ``--check`` writes nothing and
exits 1 when the README's table differs (the test suite runs it).

    python tools/internet_headline.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cbalgebra.studies import jobs
from cbalgebra.studies.routing_internet_report import headline_table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layout import REPO, write_generated  # tools/ is not a package: its sibling is on sys.path

RESULTS = REPO / "studies" / "results" / "routing-internet"
BEGIN = ("<!-- routing-internet headline: written by tools/internet_headline.py "
         "from studies/results/routing-internet -->")
END = "<!-- end of the routing-internet headline -->"


def readme_with_table(readme: str, table: str) -> str:
    """``readme`` with the text between the markers replaced by ``table``; ``ValueError`` without the markers."""
    head, begin, rest = readme.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"README.md lacks the markers {BEGIN!r} … {END!r}")
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def headline(results: Path = RESULTS) -> str:
    """The table, from the study's rows as its manifest defines them."""
    study = jobs.study_in(results)
    rows = jobs.load_results(study, results)
    assert study.summarise is not None  # the routing plugin's designs all summarise
    return headline_table(study.summarise(rows, study.config), study.config)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if README.md is out of date")
    args = parser.parse_args(argv)
    readme = REPO / "README.md"
    text = readme_with_table(readme.read_text(encoding="utf-8"), headline())
    return write_generated(readme, text, check=args.check, command="python tools/internet_headline.py")


if __name__ == "__main__":
    sys.exit(main())
