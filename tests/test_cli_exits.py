"""Issue 23 §4, "Exit 70 on input we accept": each reproduction run as a user
runs it (a fresh ``python -m cbalgebra`` process) gives an answer, or exit 2
(bad input) or 3 (a budget exceeded) with one line on standard error, never
exit 70 or a traceback. One row per reproduction; the files a row needs are
written by its ``files`` entry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIGURE_4 = {"network": {"edges": [["A", "B"], ["B", "C"], ["B", "D"]]},
            "publishers": [["A", 2]], "subscribers": [["C", 1], ["D", 3]], "trees": "per-source"}


def _counts(publisher: int, subscriber: int) -> str:
    return json.dumps({**FIGURE_4, "publishers": [["A", publisher]],
                       "subscribers": [["C", subscriber], ["D", 1]]})


# (name, files written into the working folder, arguments, exit code, text on stderr (or stdout for 0))
CASES = [
    ("matchmaker: per-source CD counts >= 2^30 (were: use solver='networkx')",
     {"i.json": _counts(2**31, 5)}, ["matchmaker", "i.json", "--quiet"], 0, "MCM"),
    ("matchmaker: a subscriber count beyond int32 alone",
     {"i.json": _counts(3, 2**33)}, ["matchmaker", "i.json", "--quiet"], 0, "MCM"),
    ("matchmaker: a 401-digit count (was: OverflowError)",
     {"i.json": _counts(10**400, 1)}, ["matchmaker", "i.json"], 2, "at most 1.8e308"),
    ("matchmaker: a 5,000-digit count (beyond Python's int conversion)",
     {"i.json": _counts(7, 1).replace('"A", 7', '"A", ' + "9" * 5000)}, ["matchmaker", "i.json"], 2,
     "5000 digits is too long"),
    ("matchmaker: 100,000 nested [ (was: RecursionError)",
     {"i.json": "[" * 100_000}, ["matchmaker", "i.json"], 2, "nest more than 100 deep"),
    ("route: a generated network too large to build (was: OverflowError)",
     {}, ["route", "ring", "-n", str(10**23), "-k", "1", "--quiet"], 2, "more than the 10,000,000 processors"),
    ("matchmaker: a generated instance too large to build (was: hung)",
     {"i.json": '{"generate": {"seed": 3, "transit_domains": 1' + "0" * 400 + "}}"}, ["matchmaker", "i.json"], 2,
     "more than the 10,000,000 processors"),
]


@pytest.mark.parametrize(("files", "argv", "code", "needle"), [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_reproduction_exits_cleanly(tmp_path: Path, files, argv, code, needle):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "cbalgebra", *argv], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    if code == 0:
        assert needle in proc.stdout and proc.stderr == ""
    else:
        assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert needle in proc.stderr, proc.stderr
