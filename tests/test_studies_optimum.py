"""The optimum α beyond the paper (issue 26): ``minimal`` cells of the alpha-dnf study record α_min,
α_lower and ``proven``; a rerun skips them; Figures 6 and 7 draw the optimum series; the report's
finding is computed from the rows."""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from xml.etree import ElementTree

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cbalgebra.cli import main as cli_main
from cbalgebra.clibase import UsageError
from cbalgebra.studies import alpha, dnf, jobs
from cbalgebra.studies.optimum import optimum_gaps, optimum_section
from cbalgebra.studies.plots import optimum_gid, plot_dnf
from cbalgebra.studies.runner import ResultStore, StudyError, check_manifest, pending_cells, run_study, write_manifest
from cbalgebra.studies.summary import dnf_summary

#: Small enough that minimal proves most cells at once; still a budget so that a slow one cannot hang.
BUDGET = 5.0


def cell(scenario: str, n: int, replicate: int, reducer: str, seed: int) -> dict:
    out = {"scenario": scenario, "n": n, "replicate": replicate, "reducer": reducer, "seed": seed}
    if reducer in dnf.CERTIFYING_REDUCERS:
        out["budget"] = BUDGET
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=st.sampled_from(tuple(dnf.SCENARIOS)), n=st.integers(1, 8), replicate=st.integers(0, 3),
       seed=st.integers(0, 2**31))
def test_minimal_rows_bound_the_optimum_below_cover_and_siena(scenario, n, replicate, seed):
    rows = {r: dnf.run_dnf_cell(cell(scenario, n, replicate, r, seed)) for r in ("siena", "cover", "minimal")}
    schema = alpha.ALPHA_DNF.schema()
    table = pa.Table.from_pylist(list(rows.values()), schema=schema)  # the rows fit the study's schema
    assert table.num_rows == 3
    optimum = rows["minimal"]
    assert isinstance(optimum["proven"], bool) and isinstance(optimum["alpha_lower"], float)
    assert optimum["alpha_lower"] <= optimum["alpha"] <= rows["cover"]["alpha"] <= rows["siena"]["alpha"]
    if optimum["proven"]:
        assert optimum["alpha_lower"] == optimum["alpha"]
    assert optimum["reduced_size"] == round(optimum["alpha"] * optimum["size"])
    for reducer in ("siena", "cover"):  # they prove nothing: no bound, no certificate
        assert rows[reducer]["alpha_lower"] is None and rows[reducer]["proven"] is None
    assert len({r["cell_seed"] for r in rows.values()}) == 1  # one predicate set for all three


def small_minimal_study(**kw) -> jobs.Study:
    design = {"scenarios": ("zipf-500", "uniform-50"), "max_n": 6, "points": 3, "replicates": 2,
              "reducers": ("siena", "minimal"), "seed": 7, "budget": BUDGET}
    design.update(kw)
    return alpha.dnf_study(**design)


def no_session():
    raise AssertionError("Spark must not start: every cell is done")


def test_rerun_skips_finished_minimal_cells(tmp_path):
    study = small_minimal_study()
    write_manifest(tmp_path, study.kind, study.config)
    store = ResultStore(tmp_path, study.schema, study.key_columns)
    minimal = [c for c in study.cells if c["reducer"] == "minimal"]
    store.commit([dnf.run_dnf_cell(c) for c in minimal])
    pending, done = pending_cells(study, tmp_path)
    assert done == len(minimal) and all(c["reducer"] == "siena" for c in pending)
    store.commit([dnf.run_dnf_cell(c) for c in pending])
    stats = run_study(study, tmp_path, session_factory=no_session, progress=False)
    assert stats.completed and stats.cells_run == 0 and stats.cells_skipped == len(study.cells)


def test_parts_written_before_the_certificate_columns_still_count(tmp_path):
    """The committed alpha-dnf results predate ``alpha_lower`` and ``proven``: their cells stay done and
    read as null there, and a bigger design with ``minimal`` runs only the new cells."""
    siena = small_minimal_study(reducers=("siena",))
    rows = [dnf.run_dnf_cell(c) for c in siena.cells]
    old_schema = pa.schema([f for f in siena.schema if f.name not in ("alpha_lower", "proven")])
    (tmp_path / "results.parquet").mkdir()
    pq.write_table(pa.Table.from_pylist(rows, schema=old_schema), tmp_path / "results.parquet" / "part-old.parquet")
    write_manifest(tmp_path, siena.kind, siena.config)
    both = small_minimal_study()
    pending, done = pending_cells(both, tmp_path)
    assert done == len(siena.cells) and {c["reducer"] for c in pending} == {"minimal"}
    loaded = ResultStore(tmp_path, both.schema, both.key_columns).load()
    assert loaded["alpha_lower"].isna().all() and loaded["proven"].isna().all()


def test_another_budget_is_refused_in_the_same_folder(tmp_path):
    study = small_minimal_study()
    write_manifest(tmp_path, study.kind, study.config)
    with pytest.raises(StudyError, match="budget"):
        check_manifest(tmp_path, study.kind, small_minimal_study(budget=BUDGET * 2).config)


def test_reducer_max_n_leaves_the_reducer_out_above_it():
    study = small_minimal_study(max_n=10, points=3, reducer_max_n={"minimal": 3})
    assert {c["n"] for c in study.cells if c["reducer"] == "siena"} == {1, 3, 10}
    assert {c["n"] for c in study.cells if c["reducer"] == "minimal"} == {1, 3}
    assert all(c["budget"] == BUDGET for c in study.cells if c["reducer"] == "minimal")


@pytest.mark.parametrize("text, message", [
    ("minimal", "is not REDUCER=N"), ("cover=5", "not among --reducers"), ("minimal=0", "at least 1"),
    ("minimal=x", "not a number"),
])
def test_bad_reducer_max_n_is_a_usage_error(text, message):
    with pytest.raises(UsageError, match=message):
        alpha.reducer_limits(text, ("siena", "minimal"))


@pytest.mark.parametrize("args, message", [
    (["--reducer-max-n", "cover=3"], "--reducer-max-n: 'cover' is not among --reducers"),
    (["--budget", "0"], "--budget"),
    (["--budget", "nan"], "--budget"),
])
def test_bad_minimal_flags_are_one_line_exit_2(args, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        raise SystemExit(cli_main(["study", "alpha-dnf", "--out", str(tmp_path / "out"),
                                   "--reducers", "siena,minimal", *args]))
    lines = capsys.readouterr().err.strip().splitlines()
    assert info.value.code == 2 and message in lines[-1] and not any("Traceback" in line for line in lines)
    if "reducer-max-n" in message:  # checked with the whole design: the study's one line, no usage
        assert len(lines) == 1
    assert not (tmp_path / "out" / "results.parquet").exists()


# ---------------------------------------------------------------- figure and finding from rows


def synthetic_rows() -> pd.DataFrame:
    """Rows of two reducers on the same sets, with proven and bounded minimal cells (sizes, not α, drawn
    so that every ratio is exact)."""
    rows = []
    plan = {  # (scenario, n) -> per set: (siena size, minimal size, lower bound)
        ("zipf-500", 1): [(4, 4, 4), (6, 6, 6), (3, 3, 3)],
        ("zipf-500", 10): [(20, 16, 16), (18, 18, 18), (25, 20, 20)],
        ("zipf-500", 100): [(200, 150, 140), (180, 160, 160), (220, 170, 120)],
        ("uniform-50", 1): [(5, 5, 5), (2, 0, 0), (0, 0, 0)],
        ("uniform-50", 10): [(30, 27, 27), (33, 30, 29), (31, 31, 31)],
    }
    for (scenario, n), sets in plan.items():
        for replicate, (simple, optimal, lower) in enumerate(sets):
            size = 10 * n
            base = {"scenario": scenario, "n": n, "replicate": replicate, "seed": 1, "size": size}
            rows.append({**base, "reducer": "siena", "alpha": simple / size, "alpha_lower": None, "proven": None})
            rows.append({**base, "reducer": "minimal", "alpha": optimal / size, "alpha_lower": lower / size,
                         "proven": optimal == lower})
    return pd.DataFrame(rows)


def recomputed(rows: pd.DataFrame) -> dict[tuple[str, int], dict]:
    """The finding's numbers, recomputed from the rows with plain Python."""
    out: dict[tuple[str, int], dict] = {}
    for (scenario, n), g in rows.groupby(["scenario", "n"]):
        s = g[g["reducer"] == "siena"].set_index("replicate")["alpha"]
        m = g[g["reducer"] == "minimal"].set_index("replicate")
        ratios, bounds = [], []
        for r in s.index:
            a, b, low = s[r], m.loc[r, "alpha"], m.loc[r, "alpha_lower"]
            ratios.append(1.0 if a == b == 0 else (float("inf") if b == 0 else a / b))
            bounds.append(1.0 if a == low == 0 else (float("inf") if low == 0 else a / low))
        out[(scenario, int(n))] = {
            "proven": int(m["proven"].sum()), "sets": len(s), "median": statistics.median(ratios),
            "bound": statistics.median(bounds), "max": max(ratios),
            "already": sum(1 for r, p in zip(ratios, m.loc[s.index, "proven"], strict=True) if p and r == 1),
        }
    return out


def test_the_finding_equals_a_recomputation_from_the_rows():
    rows = synthetic_rows()
    expected = recomputed(rows)
    gaps = optimum_gaps(rows)
    assert len(gaps) == len(expected)
    for _, g in gaps.iterrows():
        e = expected[(g["scenario"], g["n"])]
        assert (g["proven"], g["sets"], g["simple_optimal"]) == (e["proven"], e["sets"], e["already"])
        assert g["ratio_median"] == pytest.approx(e["median"]) and g["ratio_max"] == pytest.approx(e["max"])
        assert g["ratio_bound_median"] == pytest.approx(e["bound"])
    text = optimum_section(rows)
    assert text is not None
    table = [line for line in text.splitlines() if re.match(r"\| (zipf|uniform)-", line)]
    assert len(table) == len(expected)
    for line in table:
        cells = [c.strip() for c in line.strip("|").split("|")]
        e = expected[(cells[0], int(cells[1].replace(",", "")))]
        assert cells[2] == f"{e['proven']} of {e['sets']}"
        printed = [float(x) for x in re.findall(r"\d+\.\d+", cells[5])]
        wanted = [e["median"]] if e["proven"] == e["sets"] else [e["median"], e["bound"]]
        assert printed == pytest.approx([round(w, 3) for w in wanted], abs=5e-4)
        assert float(cells[6].replace("∞", "inf")) == pytest.approx(e["max"], abs=5e-4)
    # The headline: at the points where every set is proven, how often the median ratio is 1 and its largest
    # value; at the others, the widest interval.
    complete = [e for e in expected.values() if e["proven"] == e["sets"]]
    partial = [e for e in expected.values() if e["proven"] < e["sets"]]
    finding = next(line for line in text.splitlines() if "where every set is proven optimal" in line)
    ones, high = re.findall(r"is 1\.000 at (\d+) and at most (\d+\.\d+) ", finding)[0]
    assert int(ones) == sum(1 for e in complete if e["median"] == 1.0)
    assert float(high) == pytest.approx(max(e["median"] for e in complete), abs=5e-4)
    worst = max(partial, key=lambda e: e["bound"])
    low, up = re.findall(r"at most \[(\d+\.\d+), (\d+\.\d+)\]", finding)[0]
    assert (float(low), float(up)) == pytest.approx((worst["median"], worst["bound"]), abs=5e-4)
    proven_sets = sum(e["proven"] for e in expected.values())
    assert f"{proven_sets} of {sum(e['sets'] for e in expected.values())} sets proven optimal" in finding
    assert f"already optimal in {sum(e['already'] for e in expected.values())}" in finding


def test_no_finding_without_both_reducers():
    rows = synthetic_rows()
    assert optimum_section(rows[rows["reducer"] == "siena"]) is None


SVG = "{http://www.w3.org/2000/svg}"


def svg_groups(path: Path) -> dict[str, ElementTree.Element]:
    """The SVG's groups by id (matplotlib writes an artist's ``gid`` as its group's id)."""
    return {g.get("id", ""): g for g in ElementTree.parse(path).iter(f"{SVG}g")}


def markers(group: ElementTree.Element) -> list[ElementTree.Element]:
    return list(group.iter(f"{SVG}use"))


def test_figures_draw_the_optimum_proven_and_bounded(tmp_path):
    rows = synthetic_rows()
    summary = dnf_summary(rows, tuple(dnf.SCENARIOS), ("siena", "minimal"))
    paths = plot_dnf(summary, tmp_path, ("fig6", "fig7"))
    svg = {p.stem: svg_groups(p) for ps in paths.values() for p in ps if p.suffix == ".svg"}
    m = summary[summary["reducer"] == "minimal"]
    for stem, scenario in (("fig6_zipf", "zipf-500"), ("fig7_uniform", "uniform-50")):
        points = m[m["scenario"] == scenario]
        proven = points[points["proven"] == points["sets"]]
        bounded = points[points["proven"] < points["sets"]]
        groups = svg[stem]
        assert len(markers(groups[optimum_gid(scenario, "proven")])) == len(proven)
        hollow = markers(groups[optimum_gid(scenario, "bounded")])
        assert len(hollow) == len(bounded) >= 1
        assert all("fill-opacity: 0" in u.get("style", "") for u in hollow)
        bars = list(groups[optimum_gid(scenario, "bound")].iter(f"{SVG}path"))
        assert len(bars) == len(bounded)
    assert len(m[m["proven"] < m["sets"]]) == 2  # the synthetic rows hold bounded points in both figures


def test_summary_counts_proven_sets_and_the_median_lower_bound():
    rows = synthetic_rows()
    summary = dnf_summary(rows).set_index(["scenario", "reducer", "n"])
    point = summary.loc[("zipf-500", "minimal", 100)]
    assert point["proven"] == 1 and point["lower_median"] == pytest.approx(140 / 1000)
    assert summary.loc[("zipf-500", "siena", 100)][["proven", "lower_median"]].isna().all()

