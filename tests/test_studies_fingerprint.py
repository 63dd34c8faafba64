"""The code fingerprint of a study: what the code does, not how it is written."""

import json
from pathlib import Path

import pytest

from cbalgebra.studies import amsp, dnf, matchmaker, routing, routing_internet
from cbalgebra.studies.fingerprint import behaviour

ORIGINAL = '''
"""Module docstring."""
from dataclasses import dataclass


@dataclass
class Cell:
    """A cell."""
    n: int
    k: int = 1


def size(cell: Cell, scale: float = 2.0) -> float:
    """The size."""
    total: float = cell.n * scale  # a comment
    return total + cell.k
'''

#: The same behaviour: other docstrings, comments, annotations and layout.
RESTYLED = '''
from dataclasses import dataclass

@dataclass
class Cell:
    n: "int | None"
    k: float = 1

def size(cell, scale=2.0):
    # another comment
    total: int = (cell.n
                  * scale)
    return total + cell.k
'''

#: Each changes what runs.
CHANGED = [
    ORIGINAL.replace("scale: float = 2.0", "scale: float = 3.0"),
    ORIGINAL.replace("total + cell.k", "total - cell.k"),
    ORIGINAL.replace("    k: int = 1\n", "    k: int = 1\n    m: int = 0\n"),
    ORIGINAL.replace("    n: int\n", ""),
]


def test_docstrings_comments_annotations_and_layout_do_not_count():
    assert behaviour(ORIGINAL) == behaviour(RESTYLED)


@pytest.mark.parametrize("changed", CHANGED)
def test_a_change_to_what_runs_counts(changed):
    assert behaviour(changed) != behaviour(ORIGINAL)


@pytest.mark.parametrize("folder, fingerprint", [
    ("alpha-dnf", dnf.code_fingerprint),
    ("matchmaker", matchmaker.code_fingerprint),
    ("routing", routing.code_fingerprint),
    ("amsp", amsp.code_fingerprint),
    ("routing-internet", routing_internet.code_fingerprint),
])
def test_committed_results_were_made_by_this_code(folder, fingerprint):
    """A rerun of the study into its committed folder resumes instead of refusing:
    the results there were computed by code that does what this code does."""
    manifest = Path(__file__).resolve().parent.parent / "studies" / "results" / folder / "study.json"
    assert json.loads(manifest.read_text())["config"]["code_fingerprint"] == fingerprint()
