"""The pieces every study report is made of (cbalgebra.studies.tables), against literal expected text."""

from __future__ import annotations

import math

import pytest

from cbalgebra.studies.tables import (
    NOT_TESTED,
    Finding,
    compose,
    findings_section,
    fixed,
    markdown_table,
    timing_section,
)

TIMING = {
    "master": "local[2]", "slots": 2, "cells_run": 10, "cells_skipped": 4, "startup_seconds": 3.21,
    "wall_seconds": 50.0, "task_seconds": 80.0, "gen_seconds": 30.0, "reduce_seconds": 45.0,
    "overhead_seconds": 20.0, "commit_seconds": 1.234, "batches": 3,
}


@pytest.mark.parametrize(("value", "digits", "text"), [
    (2 / 3, 3, "0.667"), (2 / 3, 1, "0.7"), (3, 0, "3"), (-0.5, 2, "-0.50"), (None, 3, "–"), (math.nan, 1, "–"),
])
def test_fixed_prints_a_number_or_a_dash(value, digits, text):
    assert fixed(value, digits) == text


def test_markdown_table_escapes_pipes_and_prints_every_cell():
    assert markdown_table(("n", "|S|"), [(1, "a|b"), (2.5, None)]) == (
        "| n | \\|S\\| |\n"
        "|---|---|\n"
        "| 1 | a\\|b |\n"
        "| 2.5 | None |"
    )


def test_markdown_table_without_rows_is_its_header():
    assert markdown_table(["only"], []) == "| only |\n|---|"


def test_compose_leaves_out_the_missing_sections():
    assert compose(["# Title\n", None, "## A\n", None, "## B\n"]) == "# Title\n\n## A\n\n## B\n"


def test_findings_section():
    findings = [Finding("α ≈ 0.5", "0.48", "**agree**"), Finding("n < 100", "–", NOT_TESTED)]
    assert findings_section(findings, "## Claims") == (
        "## Claims\n\n"
        "| paper | ours | verdict |\n"
        "|---|---|---|\n"
        "| α ≈ 0.5 | 0.48 | **agree** |\n"
        "| n < 100 | – | not tested at this size |\n"
    )


def test_timing_section_of_the_alpha_studies():
    assert timing_section(TIMING) == (
        "## Timing of the run that computed the cells\n\n"
        "| phase | time |\n"
        "|---|---|\n"
        "| Spark master | `local[2]` (2 task slots) |\n"
        "| cells run / skipped (already done) | 10 / 4 |\n"
        "| session start-up | 3.2 s |\n"
        "| wall time of the jobs (first task to last commit) | 50.0 s |\n"
        "| Σ predicate generation (in tasks) | 30.0 s |\n"
        "| Σ reduction (in tasks) | 45.0 s |\n"
        "| Σ other work in tasks | 5.0 s |\n"
        "| Spark overhead: slots × wall − Σ task time | 20.0 s (20.0 % of slot time) |\n"
        "| Σ commits (Parquet writes) | 1.23 s in 3 batches |\n"
    )


def test_timing_section_in_a_studys_own_words_without_commits():
    text = timing_section({**TIMING, "task_seconds": 70.0}, ("Σ building", "Σ solving", "Σ checking"), commits=False)
    assert text.endswith(
        "| Σ building | 30.0 s |\n"
        "| Σ solving | 45.0 s |\n"
        "| Σ checking | 0.0 s |\n"
        "| Spark overhead: slots × wall − Σ task time | 20.0 s (20.0 % of slot time) |\n"
    )


def test_timing_section_without_a_run():
    assert timing_section(None) == "## Timing\n\nNo timing recorded (every cell was already done).\n"
