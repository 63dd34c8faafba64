"""benchmarks/state_of_the_art.py end to end on a small workload: cbalgebra in
its child process and a stand-in external engine (a script reading the
engines' input file, like the C++ driver) are timed, and their answers are
checked against brute force — a wrong engine is caught. No time is asserted."""

from __future__ import annotations

import csv
import logging
import os
import stat
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import state_of_the_art as S

#: An engine driver in Python: reads IntervalWorkload.write_engine_input's file,
#: answers every event with the brute-force count (plus WRONG on event 0) and
#: prints the driver's JSON.
FAKE_ENGINE = """#!{python}
import json, sys
import numpy as np
data = np.fromfile(sys.argv[1], dtype="<i4")
magic, subs, atts, cons, dom, pubs = data[:6].tolist()
triples = data[6:6 + subs * cons * 3].reshape(subs, cons, 3)
events = data[6 + subs * cons * 3:].reshape(pubs, atts)
counts = []
for e in range(pubs):
    v = events[e][triples[:, :, 0]]
    counts.append(int(((triples[:, :, 1] <= v) & (v <= triples[:, :, 2])).all(axis=1).sum()))
counts[0] += {wrong}
rounds = [dict(mean_ms=1.0, median_ms=1.0, cpu_mean_ms=1.0)] * int(sys.argv[2])
print(json.dumps(dict(engine="fake", build_s=0.5, build_cpu_s=0.5, rss_before_build_mb=10.0,
                      rss_after_build_mb=12.0, peak_rss_mb=13.0, rounds=rounds, counts=counts)))
"""


def fake_engine(folder: Path, wrong: int) -> str:
    path = folder / f"engine{wrong}"
    path.write_text(FAKE_ENGINE.format(python=sys.executable, wrong=wrong))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_cbalgebra_and_engines_are_checked_against_brute_force(tmp_path, monkeypatch):
    for var in S.ENGINES.values():
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("REIN_BINARY", fake_engine(tmp_path, 0))
    monkeypatch.setenv("TAMA_BINARY", fake_engine(tmp_path, 2))
    S.main(["--sizes", "400", "--distributions", "zipf", "--events", "30", "--rounds", "2", "--check",
            "30", "--seed", "3", "--out", str(tmp_path)])
    with open(tmp_path / "state_of_the_art.csv", newline="") as fh:
        rows = {(r["workload"], r["engine"]): r for r in csv.DictReader(fh)}
    assert {workload for workload, _ in rows} == {"400 subscriptions, zipf"}
    ours, right, wrong = (rows["400 subscriptions, zipf", engine] for engine in ("cbalgebra", "REIN", "TAMA"))
    assert ours["brute_force_check"] == "30/30 sets equal" and ours["rounds"] == "2"
    assert right["brute_force_check"] == "30/30 counts equal" and right["counts_equal_cbalgebra"] == "30/30"
    assert wrong["brute_force_check"] == "29/30 counts equal (up to +2)"
    assert wrong["counts_equal_cbalgebra"] == "29/30"
    assert float(right["index_mb"]) == 2.0 and float(ours["table_mb"]) > 0
    assert float(ours["peak_rss_mb"]) >= float(ours["index_mb"]) > 0


def test_without_engines_it_says_so(caplog):
    caplog.set_level(logging.INFO, logger="state-of-the-art")
    saved = {var: os.environ.pop(var) for var in S.ENGINES.values() if var in os.environ}
    try:
        assert S.external_binaries("") == {}
    finally:
        os.environ.update(saved)
    assert "none of TAMA_BINARY, REIN_BINARY" in caplog.text and "no external engine is timed" in caplog.text


def test_skip_names_an_engine_by_its_variable(monkeypatch):
    monkeypatch.setenv("HTREE_BINARY", "/bin/h")
    monkeypatch.setenv("REIN_BINARY", "/bin/r")
    assert "H-Tree" not in S.external_binaries("htree") and S.external_binaries("htree")["REIN"] == "/bin/r"


def test_htree_estimate_grows_with_the_indexed_attributes():
    import cbalgebra as cb

    uniform = S.htree_estimate_gb(cb.workloads.intervals(20_000, events=0))
    zipf = S.htree_estimate_gb(cb.workloads.intervals(20_000, distribution="zipf", events=0))
    # 8**8 empty buckets alone are 0.4 GB; zipf puts almost every subscription on all 8 indexed attributes
    assert 0.4 < uniform < zipf
