"""Outputs of ``cbalgebra study routing --design internet``: summary.csv, the
figures (SVG) and report.md, every number computed from the results.

The report answers three questions of issue 27 with numbers: which scheme of
Carzaniga, Rembert & Wolf (2006, §3) is smallest at Internet size (n =
75,000, the AS graph), how far each is from the paper's formulas there, and
how real networks differ from generated ones of the same size; and it gives
each scheme's scaling exponent in n with its confidence interval
(:mod:`cbalgebra.studies.scaling`, t-based) and the crossovers of the fitted
laws. Nothing here imports Spark.
"""

from __future__ import annotations

from collections.abc import Iterator
import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cbalgebra.studies.plots import pyplot, save_figure
from cbalgebra.studies.scaling import PowerLaw, crossover, fit_power_law, interpolate_loglog
from cbalgebra.studies.tables import MISSING, compose, fixed, markdown_table

SCHEMES = ("psf", "ips", "pif", "drp")
FAMILIES = ("power_law", "transit_stub", "gnp")
LEVEL = 0.95
#: measured/formula columns: (scheme measured, the formula's column, its title)
FORMULAS = (("psf", "psf_simple_formula", "PSF: s log n + s r M_p d (§3.1)"),
            ("ips", "ips_tree_formula", "iPS: n r M_p α (§3.2, trees)"),
            ("pif", "pif_formula", "PIF: n(s Δ log n + n r M_p α) (§3.3, as printed)"),
            ("pif", "pif_summed_formula", "PIF: its per-processor terms summed (§3.3)"),
            ("drp", "drp_formula", "DRP: n r log n + s r M_p (§3.4)"))
_COLORS = {"psf": "#1f77b4", "ips": "#2ca02c", "pif": "#d62728", "drp": "#9467bd"}
_KIND_MARKERS = {"power_law": "o", "transit_stub": "s", "gnp": "^"}
_COLLECTION_COLORS = {"topozoo": "#8c564b", "sndlib": "#e377c2", "caida": "#17becf", "backbone": "#bcbd22",
                      "gabriel": "#7f7f7f"}


def kind_of(topology: str) -> str:
    """A generated network's family, or a topohub network's collection."""
    return topology.removeprefix("topohub:").split("/")[0]


def is_generated(topology: str) -> bool:
    return not topology.startswith("topohub:")


def ratio_column(formula: str) -> str:
    return f"ratio_{formula.removesuffix('_formula')}"


# ---------------------------------------------------------------------------
# summary.csv

def summarise(results: pd.DataFrame, config: dict) -> pd.DataFrame:
    """One row per network (means over replicates): the counts, their kind, measured/formula ratios."""
    frame = results.copy()
    for scheme, formula, _ in FORMULAS:
        frame[ratio_column(formula)] = frame[f"{scheme}_total_bits"] / frame[formula]
    numeric = [c for c in frame.columns if c not in ("topology", "n") and pd.api.types.is_numeric_dtype(frame[c])
               and c not in ("seed", "replicate", "pid") and frame[c].dtype != bool and not c.endswith("_seconds")]
    grouped = frame.groupby(["topology", "n"], sort=True)
    summary = grouped[numeric].mean().reset_index()
    summary.insert(2, "replicates", grouped.size().to_numpy())
    summary.insert(1, "kind", summary["topology"].map(kind_of))
    summary.insert(2, "generated", summary["topology"].map(is_generated))
    for scheme in SCHEMES:
        summary[f"{scheme}_exact"] = grouped[f"{scheme}_exact"].all().to_numpy()
    totals = summary[[f"{s}_total_bits" for s in SCHEMES]]
    summary["smallest"] = totals.idxmin(axis=1, skipna=True).str.removesuffix("_total_bits")
    return summary.sort_values(["generated", "kind", "n_actual", "topology"], ascending=[False, True, True, True],
                               kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------
# The analysis: fits, crossovers, Internet size, real against generated

def family_rows(summary: pd.DataFrame, family: str) -> pd.DataFrame:
    return summary[summary["topology"] == family].sort_values("n_actual")


def fits(summary: pd.DataFrame, min_n: int) -> dict[tuple[str, str], PowerLaw]:
    """(family, scheme) → the power law fitted to its generated networks of at least ``min_n`` processors."""
    out: dict[tuple[str, str], PowerLaw] = {}
    for family in FAMILIES:
        rows = family_rows(summary, family)
        rows = rows[rows["n_actual"] >= min_n]
        for scheme in SCHEMES:
            fitted = fit_power_law(rows["n_actual"], rows[f"{scheme}_total_bits"], LEVEL)
            if fitted is not None:
                out[family, scheme] = fitted
    return out


def crossovers(fitted: dict[tuple[str, str], PowerLaw]) -> list[dict]:
    """Every pair of schemes of a family whose fitted laws cross at some n ≥ 1: who overtakes whom, where."""
    out = []
    for family in FAMILIES:
        for a, b in itertools.combinations(SCHEMES, 2):
            if (family, a) not in fitted or (family, b) not in fitted:
                continue
            fa, fb = fitted[family, a], fitted[family, b]
            at = crossover(fa, fb)
            if at is None or at < 1:
                continue
            steeper, flatter = (a, b) if fa.exponent > fb.exponent else (b, a)
            low, high = max(fa.n_low, fb.n_low), min(fa.n_high, fb.n_high)
            where = "below the sizes fitted" if at < low else "within the sizes fitted" if at <= high \
                else "beyond the sizes fitted"
            out.append({"family": family, "overtakes": steeper, "overtaken": flatter, "n": at, "where": where})
    return out


def family_cells_at(summary: pd.DataFrame, n: int) -> Iterator[tuple[str, pd.DataFrame, pd.DataFrame]]:
    """(family, its summary rows, its cell of target size n: empty if the design has none) for
    each generated family the summary has."""
    for family in FAMILIES:
        rows = family_rows(summary, family)
        if not rows.empty:
            yield family, rows, rows[rows["n"] == n]


def internet_size(summary: pd.DataFrame, fitted: dict[tuple[str, str], PowerLaw], n: int) -> list[dict]:
    """Per family: each scheme's total bits at n, measured (the cell of target size n, with its standard
    error) when the design has one, and fitted (with the interval of the fitted mean)."""
    out = []
    for family, _rows, cell in family_cells_at(summary, n):
        for scheme in SCHEMES:
            law = fitted.get((family, scheme))
            low, high = law.interval_at(n) if law else (math.nan, math.nan)
            measured = float(cell[f"{scheme}_total_bits"].iloc[0]) if len(cell) else math.nan
            out.append({"family": family, "scheme": scheme, "n_actual": int(cell["n_actual"].iloc[0]) if len(cell)
                        else n, "measured": measured,
                        "se": float(cell[f"{scheme}_total_se"].iloc[0]) if len(cell) else math.nan,
                        "fitted": law.at(n) if law else math.nan, "low": low, "high": high})
    return out


def smallest_at(rows: list[dict], family: str, column: str) -> str | None:
    values = {r["scheme"]: r[column] for r in rows if r["family"] == family and math.isfinite(r[column])}
    return min(values, key=lambda s: values[s]) if values else None


def formula_ratios_at(summary: pd.DataFrame, n: int, min_n: int) -> list[dict]:
    """measured/formula of each formula at n, per family: ``ratio`` at the generated cell of target size n
    (NaN without one) and ``fitted``, the power law fitted to the ratio over the family's sizes ≥ ``min_n``
    at n, with its interval (``low``, ``high``)."""
    out = []
    for family, rows, cell in family_cells_at(summary, n):
        grown = rows[rows["n_actual"] >= min_n]
        for scheme, formula, title in FORMULAS:
            column = ratio_column(formula)
            law = fit_power_law(grown["n_actual"], grown[column], LEVEL)
            low, high = law.interval_at(n) if law else (math.nan, math.nan)
            out.append({"family": family, "scheme": scheme, "formula": title,
                        "ratio": float(cell[column].iloc[0]) if len(cell) else math.nan,
                        "fitted": law.at(n) if law else math.nan, "low": low, "high": high})
    return out


def real_against_generated(summary: pd.DataFrame, min_n: int) -> pd.DataFrame:
    """Per real network of at least ``min_n`` processors within the generated sizes: its total bits
    (and d, mean degree) over those of each family at the same n (log–log interpolation between the
    family's measured sizes)."""
    real = summary[~summary["generated"] & (summary["n_actual"] >= min_n)]
    rows = []
    for _, net in real.iterrows():
        for family in FAMILIES:
            fam = family_rows(summary, family)
            if fam.empty:
                continue
            row = {"topology": net["topology"], "collection": net["kind"], "n_actual": int(net["n_actual"]),
                   "family": family}
            for column in (*(f"{s}_total_bits" for s in SCHEMES), "d", "mean_degree"):
                same_size = interpolate_loglog(fam["n_actual"], fam[column], float(net["n_actual"]))
                row[f"{column}_ratio"] = float(net[column]) / same_size if same_size else math.nan
            if math.isfinite(row["pif_total_bits_ratio"]):  # within the family's sizes
                rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# Figures (SVG)

def draw(summary: pd.DataFrame, out_dir: Path, config: dict, figures: str = "all") -> list[Path]:
    plt = pyplot()
    fitted = fits(summary, config["fit_min_n"])
    compared = real_against_generated(summary, config["compare_min_n"])
    makers = {"internet_memory_vs_n": lambda: _memory_figure(plt, summary, fitted, config),
              "internet_exponents": lambda: _exponent_figure(plt, fitted, config),
              "internet_formula_ratios": lambda: _ratio_figure(plt, summary),
              "internet_real_vs_generated": lambda: _real_figure(plt, compared)}
    paths: list[Path] = []
    for stem in figure_stems(summary, config):
        paths += _svg(makers[stem](), out_dir, stem)
    plt.close("all")
    return paths


def figure_stems(summary: pd.DataFrame, config: dict) -> list[str]:
    """The figures the results make: the exponents where a law was fitted, the comparison where a
    real network has generated ones of its size."""
    stems = ["internet_memory_vs_n"]
    if fits(summary, config["fit_min_n"]):
        stems.append("internet_exponents")
    stems.append("internet_formula_ratios")
    if not real_against_generated(summary, config["compare_min_n"]).empty:
        stems.append("internet_real_vs_generated")
    return stems


def _svg(fig: Any, out_dir: Path, stem: str) -> list[Path]:
    fig.tight_layout()
    return save_figure(fig, out_dir, stem)


def _memory_figure(plt: Any, summary: pd.DataFrame, fitted: dict[tuple[str, str], PowerLaw], config: dict) -> Any:
    fig, axes = plt.subplots(1, len(SCHEMES), figsize=(4.2 * len(SCHEMES), 3.8), squeeze=False)
    real = summary[~summary["generated"]]
    for ax, scheme in zip(axes[0], SCHEMES, strict=True):
        for collection, group in real.groupby("kind"):
            ax.plot(group["n_actual"], group[f"{scheme}_total_bits"], ".", ms=2.5, alpha=0.6,
                    color=_COLLECTION_COLORS.get(str(collection), "0.5"), label=f"topohub {collection}")
        for family in FAMILIES:
            rows = family_rows(summary, family)
            if rows.empty:
                continue
            ax.plot(rows["n_actual"], rows[f"{scheme}_total_bits"], _KIND_MARKERS[family], color="black", ms=4,
                    mfc="none", label=family)
            law = fitted.get((family, scheme))
            if law:
                xs = np.geomspace(law.n_low, max(law.n_high, config["target_n"]), 30)
                ax.plot(xs, [law.at(x) for x in xs], "--", color="black", lw=0.7)
        ax.axvline(config["target_n"], color="0.6", lw=0.8, ls=":")
        _log_log_panel(ax, scheme, "n (processors)")
    axes[0][0].set_ylabel("M(S), bits")
    axes[0][0].legend(fontsize=6)
    fig.suptitle("Memory of each scheme: topohub networks (dots), generated (markers), "
                 f"fits n ≥ {config['fit_min_n']:,} (dashed); dotted: n = {config['target_n']:,}", fontsize=9)
    return fig


def _log_log_panel(ax: Any, title: str, xlabel: str, title_size: float | None = None) -> None:
    """Log scales on both axes, the panel's title and x label, and a light grid."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(title, **({} if title_size is None else {"fontsize": title_size}))  # else the axes' own size
    ax.set_xlabel(xlabel)
    ax.grid(alpha=0.3, which="both")


def _exponent_figure(plt: Any, fitted: dict[tuple[str, str], PowerLaw], config: dict) -> Any:
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for i, family in enumerate(FAMILIES):
        for j, scheme in enumerate(SCHEMES):
            law = fitted.get((family, scheme))
            if law is None:
                continue
            x = j + (i - 1) * 0.2
            err = [[law.exponent - law.ci_low], [law.ci_high - law.exponent]] if math.isfinite(law.ci_low) else None
            ax.errorbar([x], [law.exponent], yerr=err, fmt=_KIND_MARKERS[family], color=_COLORS[scheme], capsize=3,
                        label=family if j == 0 else None, mfc="none")
    ax.set_xticks(range(len(SCHEMES)), SCHEMES)
    ax.set_ylabel("exponent e of M(S) ∝ n^e")
    ax.set_title(f"Fitted exponents, n ≥ {config['fit_min_n']:,}, {int(LEVEL * 100)} % t intervals", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def _ratio_figure(plt: Any, summary: pd.DataFrame) -> Any:
    fig, axes = plt.subplots(1, len(FORMULAS), figsize=(3.6 * len(FORMULAS), 3.4), squeeze=False)
    real = summary[~summary["generated"]]
    for ax, (_, formula, title) in zip(axes[0], FORMULAS, strict=True):
        column = ratio_column(formula)
        ax.plot(real["n_actual"], real[column], ".", ms=2.5, color="0.6", label="topohub")
        for family in FAMILIES:
            rows = family_rows(summary, family)
            ax.plot(rows["n_actual"], rows[column], _KIND_MARKERS[family] + "-", ms=3, label=family)
        ax.axhline(1.0, color="black", lw=0.6)
        _log_log_panel(ax, title, "n", title_size=7)
    axes[0][0].set_ylabel("measured / formula")
    axes[0][0].legend(fontsize=6)
    return fig


def _real_figure(plt: Any, compared: pd.DataFrame) -> Any:
    fig, axes = plt.subplots(1, len(SCHEMES), figsize=(3.8 * len(SCHEMES), 3.4), squeeze=False)
    for ax, scheme in zip(axes[0], SCHEMES, strict=True):
        for family in FAMILIES:
            rows = compared[compared["family"] == family]
            ax.plot(rows["n_actual"], rows[f"{scheme}_total_bits_ratio"], _KIND_MARKERS[family], ms=2.5,
                    alpha=0.6, mfc="none", label=f"over {family}")
        ax.axhline(1.0, color="black", lw=0.6)
        _log_log_panel(ax, scheme, "n of the real network")
    axes[0][0].set_ylabel("real / generated of the same n")
    axes[0][0].legend(fontsize=6)
    return fig


# ---------------------------------------------------------------------------
# report.md

def megabytes(bits: float) -> str:
    """Bits as megabytes with thousands separators (Internet-size tables run to millions of MB)."""
    return f"{bits / 8e6:,.1f}" if math.isfinite(bits) else MISSING


def ratio_text(x: float, digits: int = 3) -> str:
    """A measured/formula ratio: ``digits`` decimals, or 3 significant digits where those would show
    only zeros (the printed PIF formula is 10⁴–10⁵ times the count at 75,000 processors)."""
    return f"{x:.3g}" if math.isfinite(x) and 0 < abs(x) < 10 ** -digits * 5 else fixed(x, digits)


def _family_names(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["family"] for r in rows))


def internet_section(summary: pd.DataFrame, fitted: dict[tuple[str, str], PowerLaw], n: int) -> str:
    rows = internet_size(summary, fitted, n)
    table, answers = [], []
    for family in _family_names(rows):
        mine = [r for r in rows if r["family"] == family]
        measured = smallest_at(rows, family, "measured")
        by_fit = smallest_at(rows, family, "fitted")
        for r in mine:
            table.append((family, r["scheme"], r["n_actual"] if math.isfinite(r["measured"]) else MISSING,
                          megabytes(r["measured"]) + (f" ± {megabytes(r['se'])}" if r["se"] > 0 else ""),
                          f"{megabytes(r['fitted'])} [{megabytes(r['low'])}, {megabytes(r['high'])}]"))
        largest = int(family_rows(summary, family)["n_actual"].max())
        answers.append(f"- **{family}**: smallest measured at n ≈ {n:,}: **{measured or MISSING}**; "
                       f"smallest by the fitted laws: **{by_fit or MISSING}** (largest measured: n = {largest:,}"
                       + ("; the fitted value extrapolates)." if largest < n else ")."))
    return (f"## Which scheme is smallest at Internet size (n = {n:,}; the AS graph has about 75,000 nodes)\n\n"
            + "\n".join(answers) + "\n\n"
            + markdown_table(("family", "scheme", "n measured", "measured MB (± SE)",
                              f"fitted MB [{int(LEVEL * 100)} % interval]"), table) + "\n")


def formula_section(summary: pd.DataFrame, n: int, min_n: int) -> str:
    rows = formula_ratios_at(summary, n, min_n)
    if not rows:
        return "## The paper's formulas at Internet size\n\nNo generated network in this run.\n"
    families = _family_names(rows)
    table = []
    for _, _, title in FORMULAS:
        mine = {r["family"]: r for r in rows if r["formula"] == title}
        table.append((title, *(f"{ratio_text(mine[f]['ratio'])} (fit {ratio_text(mine[f]['fitted'])} "
                               f"[{ratio_text(mine[f]['low'])}, {ratio_text(mine[f]['high'])}])" for f in families)))
    return (f"## The paper's formulas at Internet size: measured / formula at n = {n:,}\n\n"
            f"Each entry: the ratio at the generated network of {n:,} processors (– where the design has none), "
            f"then the power law fitted to the ratio over n ≥ {min_n:,} at n = {n:,} with its "
            f"{int(LEVEL * 100)} % interval.\n\n"
            + markdown_table(("formula", *families), table) + "\n")


def exponent_section(fitted: dict[tuple[str, str], PowerLaw], min_n: int) -> str:
    table = []
    for (family, scheme), law in fitted.items():
        table.append((family, scheme, fixed(law.exponent, 3), f"[{fixed(law.ci_low, 3)}, {fixed(law.ci_high, 3)}]",
                      law.points, f"{int(law.n_low):,}–{int(law.n_high):,}", fixed(law.r_squared, 4)))
    return (f"## Scaling exponents: M(S) ∝ n^e, least squares on log–log, n ≥ {min_n:,}\n\n"
            f"Intervals: {int(LEVEL * 100)} %, t-based (t with k − 2 degrees of freedom times the slope's "
            "standard error from the residuals; `cbalgebra.studies.scaling`).\n\n"
            + markdown_table(("family", "scheme", "e", f"{int(LEVEL * 100)} % interval", "points", "n", "R²"),
                             table) + "\n")


def crossover_section(fitted: dict[tuple[str, str], PowerLaw]) -> str:
    found = crossovers(fitted)
    table = [(c["family"], c["overtakes"], c["overtaken"], f"{c['n']:.3g}", c["where"]) for c in found]
    text = ("## Crossovers of the fitted laws\n\nBeyond n the first scheme's fitted memory exceeds the second's "
            "(where c_a·n^e_a = c_b·n^e_b). A crossover outside the sizes fitted is an extrapolation of the laws.\n\n")
    return text + (markdown_table(("family", "overtakes", "overtaken", "n", "where"), table) if table
                   else "No two fitted laws cross.") + "\n"


def real_section(summary: pd.DataFrame, min_n: int) -> str:
    compared = real_against_generated(summary, min_n)
    if compared.empty:
        return "## Real networks against generated ones of the same size\n\nNo real network to compare.\n"
    table = []
    for (collection, family), group in compared.groupby(["collection", "family"], sort=True):
        table.append((collection, family, group["topology"].nunique(),
                      *(fixed(float(group[f"{s}_total_bits_ratio"].median()), 2) for s in SCHEMES),
                      fixed(float(group["d_ratio"].median()), 2), fixed(float(group["mean_degree_ratio"].median()), 2)))
    return ("## Real networks against generated ones of the same size\n\n"
            f"Median over the topohub networks of at least {min_n:,} processors of (real / generated at the "
            "same n), the generated value interpolated log–log between the family's measured sizes.\n\n"
            + markdown_table(("collection", "family", "networks", *(f"{s} memory" for s in SCHEMES), "d",
                              "mean degree"), table) + "\n")


def method_section(results: pd.DataFrame, config: dict) -> str:
    sampled = {s: int((~results[f"{s}_exact"] & (results[f"{s}_sampled"] > 0)).sum()) for s in SCHEMES}
    missed = {s: int((results[f"{s}_rse"] > config["rse_target"] + 1e-12).sum()) for s in SCHEMES}
    worst = {s: float(results[f"{s}_rse"].max()) for s in SCHEMES}
    empty = int(results["ips_total_bits"].isna().sum())
    real = int((results["n"] == 0).sum())
    collections = sorted({t.split(":")[1].split("/")[0] for t in results.loc[results["n"] == 0, "topology"]})
    # deferred: the design module is the plugin's (no cycle at import)
    from cbalgebra.studies.routing_internet import grid_of, internet_cells

    design = len(internet_cells(grid_of(config), config["seed"]))
    missing = "" if len(results) == design else f" (of the design's {design}: {design - len(results)} missing)"
    caps = ", ".join(f"{f} up to n = {n:,}" for f, n in config.get("family_max", []))
    return "\n".join([
        "## How each number was obtained",
        "",
        f"- {len(results)} cells{missing}: {real} topohub networks ({', '.join(collections) or 'none'}) and "
        f"{len(results) - real} generated networks ({', '.join(config['families'])}, "
        f"{f'capped: {caps}' if caps else 'each to its largest n'}; Chung–Lu and G(n, p) drawn in O(n + links) "
        "by `sampler=\"skip\"`). "
        f"Workload: r/n = {config['r_frac']}, s/n = {config['s_frac']}, k = {config['k']}, scenario "
        f"{config['scenario']}, no reducer (α = 1).",
        f"- Memory by `cbalgebra.network.table_memory`: exact where n ≤ {config['exact_max']:,} and for PIF and DRP "
        f"everywhere; above, PSF and iPS from a pilot of {config['pilot']} sampled units, then a fresh sample sized "
        f"for a relative standard error of {config['rse_target']:g} (at most {config['max_sample']:,} units). "
        "Sampled cells: " + ", ".join(f"{s} {sampled[s]}" for s in SCHEMES) + "; over the target: "
        + ", ".join(f"{s} {missed[s]} (worst RSE {fixed(worst[s], 4)})" for s in SCHEMES) + ".",
        "- PSF's exact formula (§3.1), s log n + Σ_v Σ_x M(pred x)·dist(v, x), is the count itself at α = 1 "
        "(`table_memory` sums size·hops over each sender's tree), so it is not compared; its simplified form is.",
        f"- iPS needs every processor's tree (n trees whatever the sample): left empty above n = "
        f"{config['ips_max']:,} ({empty} cells)"
        + ("; counted exactly below it (`ips_exact`: the trees cost the same whatever the sample)."
           if config.get("ips_exact") else "."),
        f"- d: mean hops of the shortest-path trees over ordered pairs (exact where n ≤ {config['d_sources']:,}, "
        f"else from {config['d_sources']} sampled sources). Formulas on each cell's own n, r, s, Δ, d, M_p, "
        "log n = ⌈log2 n⌉, α = 1.",
        "",
    ])


def headline_table(summary: pd.DataFrame, config: dict, family: str = "power_law") -> str:
    """The README's few lines: per scheme, the exponent with its interval, the memory at n = 75,000 and
    measured/formula there, on ``family``."""
    n = config["target_n"]
    fitted = fits(summary, config["fit_min_n"])
    at = {r["scheme"]: r for r in internet_size(summary, fitted, n) if r["family"] == family}
    ratios = {r["scheme"]: r["ratio"] if math.isfinite(r["ratio"]) else r["fitted"]
              for r in formula_ratios_at(summary, n, config["fit_min_n"]) if r["family"] == family
              and "summed" not in r["formula"]}
    rows = []
    for scheme in SCHEMES:
        law = fitted.get((family, scheme))
        r = at.get(scheme, {})
        measured = r.get("measured", math.nan)
        rows.append((scheme, f"{fixed(law.exponent, 2)} [{fixed(law.ci_low, 2)}, {fixed(law.ci_high, 2)}]" if law
                     else MISSING, megabytes(measured) if math.isfinite(measured) else
                     f"{megabytes(r.get('fitted', math.nan))} (fitted)", ratio_text(ratios.get(scheme, math.nan), 2)))
    return markdown_table(("scheme", f"exponent in n ({int(LEVEL * 100)} % CI)", f"MB at n = {n:,}",
                           "measured / paper's formula"), rows)


def report(summary: pd.DataFrame, results: pd.DataFrame, config: dict, timing: dict | None) -> str:
    fitted = fits(summary, config["fit_min_n"])
    n = config["target_n"]
    figures = "\n".join(f"![{stem}]({stem}.svg)" for stem in figure_stems(summary, config))
    head = ("# Routing schemes at Internet scale (Carzaniga, Rembert & Wolf 2006, §3)\n\n"
            "Generated from the results by `cbalgebra.studies.routing_internet_report`; every number below is "
            "recomputed from `results.parquet`.\n")
    return compose([
        head, internet_section(summary, fitted, n), formula_section(summary, n, config["fit_min_n"]),
        exponent_section(fitted, config["fit_min_n"]), crossover_section(fitted),
        real_section(summary, config["compare_min_n"]), method_section(results, config),
        "## Figures\n\n" + figures + "\n", timing_table(timing, results),
    ])


def timing_table(timing: dict | None, results: pd.DataFrame) -> str:
    """Where the run's time went: the runner's statistics (``timing.json``) and the cells' own clocks."""
    if not timing:
        return "## Timing\n\nNo timing recorded (every cell was already done).\n"
    slowest = results.loc[results["task_seconds"].idxmax()]
    rows = [
        ("Spark master", f"`{timing.get('master', '?')}` ({timing.get('slots', 1)} task slots)"),
        ("cells run / skipped (already done)", f"{timing.get('cells_run', 0)} / {timing.get('cells_skipped', 0)}"),
        ("wall time of the jobs (first task to last commit)", f"{fixed(timing.get('wall_seconds', 0.0), 1)} s"),
        ("Σ task time (wall, in the tasks)", f"{fixed(float(results['task_seconds'].sum()), 1)} s"),
        ("Σ CPU time of the tasks", f"{fixed(float(results['cpu_seconds'].sum()), 1)} s"),
        ("slowest cell (wall / CPU)", f"{slowest['topology']} n = {int(slowest['n_actual']):,}: "
                                      f"{fixed(float(slowest['task_seconds']), 1)} s / "
                                      f"{fixed(float(slowest['cpu_seconds']), 1)} s"),
    ]
    return ("## Timing of the run that computed the cells\n\nOn a machine shared with other work: CPU time is "
            "what the cells cost, wall time what the load let them have.\n\n"
            + markdown_table(("", ""), rows) + "\n")
