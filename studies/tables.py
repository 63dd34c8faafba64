"""The pieces every study's report.md is made of: numbers, markdown tables, findings, verdicts, timing.

Each study's report module (:mod:`cbalgebra.studies.report` for the α studies,
``routing_report``, ``matchmaker_report``, ``amsp_report``) writes its own
sections and findings with these, so that a number, a table and a verdict
look the same in every report. All pure: no pandas, no files.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple


class Finding(NamedTuple):
    """One row of a report's "our numbers beside the paper's" table."""

    paper: str
    ours: str
    verdict: str


#: A number the paper gives as "about v" agrees when ours lies within ±APPROX_AGREE·v, and partly agrees
#: within a factor of APPROX_PARTLY (issue 24 §3: ±15 %, no longer ±30 %). Every study judges "≈ v" claims
#: with :func:`approx_verdict`.
APPROX_AGREE = 0.15
APPROX_PARTLY = 2.0
#: The verdict of a claim the run cannot test (a quick run, a figure left out, too few points).
NOT_TESTED = "not tested at this size"
#: How a missing number (None or NaN) is printed.
MISSING = "–"


def approx_verdict(value: float, target: float) -> str:
    """``"agree"``, ``"partly"`` or ``"disagree"`` for a measured ``value`` against the paper's "≈ target"."""
    if target == 0 or not math.isfinite(value):
        return "disagree"
    ratio = value / target
    if abs(ratio - 1) <= APPROX_AGREE + 1e-12:
        return "agree"
    return "partly" if 1 / APPROX_PARTLY <= ratio <= APPROX_PARTLY else "disagree"


def fixed(x: float | None, digits: int = 3) -> str:
    """``x`` with ``digits`` decimals; :data:`MISSING` for None or NaN (``fixed(2/3) == "0.667"``)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return MISSING
    return f"{x:.{digits}f}"


def markdown_table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub markdown table (no final newline); each cell is ``str()`` of its value with ``|`` escaped."""
    def cell(c: object) -> str:
        return str(c).replace("|", "\\|")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines)


def compose(sections: Sequence[str | None]) -> str:
    """A report from its sections: the present ones (not None), one per line, in order."""
    return "\n".join(s for s in sections if s is not None)


def findings_section(findings: Sequence[Finding], title: str = "## Our numbers beside the paper's") -> str:
    """The table of the paper's claims, our numbers and the verdicts."""
    return f"{title}\n\n" + markdown_table(("paper", "ours", "verdict"), findings) + "\n"


#: What the α studies call the three parts of a task's time (``timing_section``'s default ``phases``).
ALPHA_PHASES = ("Σ predicate generation (in tasks)", "Σ reduction (in tasks)", "Σ other work in tasks")


def timing_section(timing: dict | None, phases: Sequence[str] = ALPHA_PHASES, commits: bool = True) -> str:
    """Where the run's time went, from the runner's statistics (``timing.json``).

    ``phases`` names, in the study's words, the task time its rows record as
    ``gen_seconds``, as ``reduce_seconds`` and the rest; ``commits`` adds the
    Parquet writes.
    """
    if not timing:
        return "## Timing\n\nNo timing recorded (every cell was already done).\n"
    slots = timing.get("slots") or 1
    wall = timing.get("wall_seconds", 0.0)
    task = timing.get("task_seconds", 0.0)
    gen = timing.get("gen_seconds", 0.0)
    red = timing.get("reduce_seconds", 0.0)
    overhead = timing.get("overhead_seconds", 0.0)
    generation, reduction, other = phases
    rows = [
        ("Spark master", f"`{timing.get('master', '?')}` ({slots} task slots)"),
        ("cells run / skipped (already done)", f"{timing.get('cells_run', 0)} / {timing.get('cells_skipped', 0)}"),
        ("session start-up", f"{fixed(timing.get('startup_seconds', 0.0), 1)} s"),
        ("wall time of the jobs (first task to last commit)", f"{fixed(wall, 1)} s"),
        (generation, f"{fixed(gen, 1)} s"),
        (reduction, f"{fixed(red, 1)} s"),
        (other, f"{fixed(max(0.0, task - gen - red), 1)} s"),
        ("Spark overhead: slots × wall − Σ task time",
         f"{fixed(overhead, 1)} s ({fixed(100 * overhead / max(slots * wall, 1e-9), 1)} % of slot time)"),
    ]
    if commits:
        rows.append(("Σ commits (Parquet writes)",
                     f"{fixed(timing.get('commit_seconds', 0.0), 2)} s in {timing.get('batches', 0)} batches"))
    return "## Timing of the run that computed the cells\n\n" + markdown_table(("phase", "time"), rows) + "\n"
