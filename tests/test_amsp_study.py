"""``cbalgebra study amsp`` without Spark: its cells and seeds, one task run directly, and the
summary, figures and report built from task rows (Ge, Ji, Kurose & Towsley, "Matchmaker", §6)."""

from __future__ import annotations

import argparse

import pandas as pd
import pytest

from cbalgebra.cli import main as cli_main
from cbalgebra.studies import amsp, amsp_report

pytest.importorskip("simpy")


def _config(**overrides) -> dict:
    config = dict(amsp.QUICK)
    config.update({"seed": 7, "quick": True, "figures": list(amsp.FIGURES), "protocols": list(amsp.PROTOCOLS),
                   "trees": "per-source", "model_version": amsp.MODEL_VERSION})
    config.update(overrides)
    return config


def test_cells_share_a_seed_across_protocols_and_differ_across_replicates():
    cells = amsp.cells(_config())
    q = amsp.QUICK
    runs = 1 + len(q["fig12_subscribers"]) * q["fig12_replicates"] + len(q["fig13_grids"]) * q["fig13_replicates"]
    assert len(cells) == 3 * runs
    keys = [tuple(c[k] for k in amsp.KEY_COLUMNS) for c in cells]
    assert len(set(keys)) == len(keys)
    by_run: dict[tuple, set[int]] = {}
    for c in cells:
        by_run.setdefault((c["figure"], c["x"], c["replicate"]), set()).add(c["run_seed"])
    assert all(len(seeds) == 1 for seeds in by_run.values())  # BP, BS and AMSP see the same world
    assert len({next(iter(s)) for s in by_run.values()}) == len(by_run)
    assert {c["grid"] for c in cells if c["figure"] == "fig13"} == set(q["fig13_grids"])
    assert amsp.cells(_config()) == cells
    assert amsp.cells(_config(seed=8)) != cells


def test_a_task_row_and_the_outputs_built_from_rows(tmp_path):
    config = _config(duration=40.0, warmup=10.0, fig12_subscribers=[2, 4], fig12_replicates=2,
                     fig12_duration=30.0, fig13_grids=[100, 300], fig13_replicates=2, fig13_duration=30.0,
                     publishers=3, fig11_subscribers=3)
    rows = [amsp.run_cell(cell) for cell in amsp.cells(config)]
    for row in rows:
        assert row["conserved"]
        assert set(amsp.schema().names) == set(row)
        assert len(row["series_total"]) == int(row["duration"])
    results = pd.DataFrame(rows)
    same = results.groupby(["figure", "x", "replicate"])["cd_events"].nunique()
    assert (same == 1).all()
    summary = amsp_report.summarise(results, config)
    assert set(summary["figure"]) == {"fig11", "fig11-series", "fig12", "fig13"}
    series = summary[summary["figure"] == "fig11-series"]
    assert len(series) == 3 * 40
    paths = amsp_report.draw(summary, tmp_path, config)
    assert {p.name for p in paths} >= {"fig11_rate_over_time.png", "fig12_rate_vs_subscribers.svg",
                                        "fig13_rate_vs_grid.png"}
    text = amsp_report.report(summary, results, config, None)
    assert "## Our numbers beside the paper's" in text
    assert "What the paper leaves unstated" in text
    rows = [line for line in text.splitlines() if line.startswith(("| Fig. ", "| §1"))]
    assert len(rows) >= 8
    for line in rows:
        assert line.rstrip(" |").rsplit("|", 1)[1].strip().split(" ")[0] in ("agree", "disagree", "partly")


def test_smoothing_is_a_trailing_window():
    values = amsp_report.smoothed([30] * 10 + [0] * 40, window=30)
    assert values[0] == 30 and values[9] == 30
    assert values[29] == pytest.approx(10.0)
    assert values[39] == pytest.approx(0.0)


@pytest.mark.parametrize("argv", [
    ["study", "amsp", "--points", "3", "--out", "OUT"],
    ["study", "amsp", "--subscribers", "0,5", "--out", "OUT"],
    ["study", "amsp", "--protocols", "BP,XX", "--out", "OUT"],
    ["study", "amsp", "--duration", "30", "--out", "OUT"],
])
def test_bad_arguments_exit_2(argv, tmp_path, capsys):
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(cli_main(argv))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err


def test_study_from_args_defaults_are_the_full_sizes():
    args = argparse.Namespace(quick=False, subscribers=None, grids=None, replicates=None, duration=None,
                              sweep_duration=None, points=None, seed=2003, figures=amsp.FIGURES,
                              protocols=amsp.PROTOCOLS, trees="per-source")
    study = amsp.study_from_args(args)
    assert study.kind == "amsp"
    assert study.config["fig12_replicates"] == 10
    assert study.config["fig12_subscribers"] == [5, 10, 20, 30, 40, 50]
    assert len(study.cells) == 3 * (1 + 6 * 10 + 5 * study.config["fig13_replicates"])
