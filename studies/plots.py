"""matplotlib figures mirroring Figures 5, 6 and 7 of Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes" (TR 2006/05), §4 (Agg backend).

Each figure is written as PNG and SVG, atomically (temporary name, rename).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cbalgebra.studies.dnf import SCENARIOS
from cbalgebra.studies.general import approximate_alpha, expected_alpha
from cbalgebra.studies.runner import atomic_write_bytes

if TYPE_CHECKING:  # matplotlib loads only when a figure is drawn
    from matplotlib.figure import Figure

_REDUCER_COLORS = {
    "siena": "#1f77b4", "exact": "#d62728", "merge": "#2ca02c", "cover": "#9467bd", "minimal": "#ff7f0e",
}
_UNIVERSE_COLORS = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the Agg backend (no display needed), imported on first use:
    matplotlib takes about a second to import, so only when a figure is drawn."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


#: The one format of every study figure: SVG scales, renders in the docs site, on the web and
#: in notebooks, and diffs as text. A raster (PNG) copy would only duplicate it.
FIGURE_FORMAT = "svg"


def save_figure(fig: Figure, out_dir: Path, stem: str) -> list[Path]:
    """Write ``stem.svg`` atomically, with no date in it (the same data gives the same bytes);
    return its path in a list (a figure is one file)."""
    import matplotlib

    buf = io.BytesIO()
    # a fixed salt for the SVG's element ids, which matplotlib otherwise draws at random
    with matplotlib.rc_context({"svg.hashsalt": "cbalgebra"}):
        fig.savefig(buf, format=FIGURE_FORMAT, metadata=_metadata(FIGURE_FORMAT))
    path = Path(out_dir) / f"{stem}.{FIGURE_FORMAT}"
    atomic_write_bytes(path, buf.getvalue())
    return [path]


def finish_figure(fig: Figure, out_dir: Path, stem: str) -> list[Path]:
    """Lay the figure out, write it (:func:`save_figure`) and close it; return its paths."""
    fig.tight_layout()
    paths = save_figure(fig, out_dir, stem)
    pyplot().close(fig)
    return paths


def _metadata(fmt: str) -> dict:
    # Reproducible files: no creation date in the output.
    return {"Date": None} if fmt == "svg" else {}


def _universe_label(universe: int) -> str:
    exponent = round(np.log10(universe))
    if 10**exponent == universe:
        return f"$|M|=10^{{{exponent}}}$"
    return f"$|M|={universe:,}$"


# --------------------------------------------------------------------------
# Figure 5


def plot_general(summary: pd.DataFrame, out_dir: Path, selectivity: float | None = None,
                 stem: str = "fig5_general") -> list[Path]:
    """Figure 5: α against nk/|M| for uniform and Zipf, and the zoomed Zipf panel."""
    plt = pyplot()
    fig, (ax, zoom) = plt.subplots(1, 2, figsize=(12, 4.8))
    universes = sorted(summary["universe"].unique())
    colors = {u: _UNIVERSE_COLORS[i % len(_UNIVERSE_COLORS)] for i, u in enumerate(universes)}

    # Left: the whole range, the sweep series (k = selectivity |M|).
    if selectivity is None:
        sweep_k = summary.groupby("universe")["k"].min().to_dict()
    else:
        sweep_k = {u: max(1, round(selectivity * u)) for u in universes}
    sweep = summary[summary.apply(lambda r: r["k"] == sweep_k[r["universe"]], axis=1)]
    for (dist, universe), g in sweep.groupby(["distribution", "universe"]):
        g = g.sort_values("ratio")
        marker = "o" if dist == "uniform" else "^"
        ax.errorbar(g["ratio"], g["alpha_mean"], yerr=g["alpha_std"].fillna(0.0), fmt=marker,
                    ms=4.5, mfc="none" if dist == "uniform" else colors[universe],
                    color=colors[universe], lw=0.8, capsize=2,
                    label=f"{dist.capitalize()}, {_universe_label(universe)}, k={sweep_k[universe]:,}")
    if not sweep.empty:
        x = np.geomspace(sweep["ratio"].min(), sweep["ratio"].max(), 400)
        for universe in universes:
            k = sweep_k[universe]
            n = x * universe / k
            ax.plot(x, expected_alpha(n, k, universe), "-", color=colors[universe], lw=0.9, alpha=0.7)
        ax.plot(x, approximate_alpha(x), "k:", lw=1.4, label=r"$(1-e^{-x})/x$ (paper's approximation)")
        ax.plot([], [], "-", color="gray", lw=0.9, label=r"closed form $E(\alpha)$")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(r"$x = nk/|M|$")
    ax.set_ylabel(r"disjunction advantage $\alpha$")
    ax.set_title("General data model: uniform and Zipf predicates")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")

    # Right: Zipf, 0 < x <= 0.1, both series.
    zipf = summary[(summary["distribution"] == "zipf") & (summary["ratio"] <= 0.1 + 1e-12)]
    for (universe, k), g in zipf.groupby(["universe", "k"]):
        g = g.sort_values("ratio")
        frac = k / universe
        style = "-^" if k == sweep_k.get(universe) else "--s"
        zoom.plot(g["ratio"], g["alpha_mean"], style, color=colors[universe], ms=4, lw=1,
                  label=f"Zipf, {_universe_label(universe)}, k/|M|={frac:g}")
    xs = np.linspace(1e-4, 0.1, 200)
    zoom.plot(xs, approximate_alpha(xs), "k:", lw=1.2, label="uniform (closed form)")
    remark = zipf[(zipf["n"] == 5) & np.isclose(zipf["k"] / zipf["universe"], 0.01)]
    if not remark.empty:
        mean = remark["alpha_mean"].mean()
        zoom.annotate(f"5 predicates of 1%:\nα = {mean:.2f} (saving {100 * (1 - mean):.0f}%)",
                      xy=(0.05, mean), xytext=(0.055, mean + 0.12), fontsize=8,
                      arrowprops={"arrowstyle": "->", "lw": 0.8})
    zoom.set_xlim(0, 0.1)
    zoom.set_ylim(0, 1.05)
    zoom.set_xlabel(r"$x = nk/|M|$")
    zoom.set_ylabel(r"$\alpha$")
    zoom.set_title(r"Zipf, zoomed: $0 < nk/|M| \leq 0.1$")
    zoom.grid(True, alpha=0.3)
    zoom.legend(fontsize=7, loc="lower left")
    return finish_figure(fig, out_dir, stem)


# --------------------------------------------------------------------------
# Figures 6 and 7


def _scenario_title(name: str) -> str:
    dist, names = name.split("-", 1)
    return f"{dist.capitalize()} distribution, {int(names):,} attribute names"


def plot_dnf_panels(summary: pd.DataFrame, scenarios: Sequence[str], out_dir: Path, stem: str,
                    title: str | None = None) -> list[Path]:
    """One panel per scenario: percentile bands of α against the number of predicates."""
    plt = pyplot()
    scenarios = [s for s in scenarios if s in set(summary["scenario"])]
    if not scenarios:
        return []
    fig, axes = plt.subplots(1, len(scenarios), figsize=(5.6 * len(scenarios), 4.4), squeeze=False)
    reducers = list(dict.fromkeys(summary["reducer"]))
    for ax, scenario in zip(axes[0], scenarios, strict=True):
        data = summary[summary["scenario"] == scenario]
        for reducer in reducers:
            g = data[data["reducer"] == reducer].sort_values("n")
            if g.empty:
                continue
            color = _REDUCER_COLORS.get(reducer, "#333333")
            if "proven" in g.columns and g["proven"].notna().all():
                plot_optimum(ax, g, scenario, color)
                continue
            ax.fill_between(g["n"], g["alpha_min"], g["alpha_max"], color=color, alpha=0.12, lw=0)
            ax.fill_between(g["n"], g["alpha_p05"], g["alpha_p95"], color=color, alpha=0.28, lw=0)
            ax.plot(g["n"], g["alpha_median"], "-o", color=color, ms=3, lw=1.4,
                    label=f"{reducer}: median" if len(reducers) > 1 else "median")
            ax.plot(g["n"], g["alpha_min"], ":", color=color, lw=0.8)
            ax.plot(g["n"], g["alpha_max"], ":", color=color, lw=0.8)
        ax.axhline(0.5, color="gray", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("number of predicates")
        ax.set_ylabel(r"disjunction advantage $\alpha$")
        ax.set_title(_scenario_title(scenario), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        # Legend entries for the bands.
        ax.fill_between([], [], [], color="gray", alpha=0.28, lw=0, label="5th–95th percentile")
        ax.fill_between([], [], [], color="gray", alpha=0.12, lw=0, label="min–max")
        ax.legend(fontsize=7, loc="lower left")
    if title:
        fig.suptitle(title, fontsize=11)
    return finish_figure(fig, out_dir, stem)


def optimum_gid(scenario: str, kind: str) -> str:
    """The SVG id of a scenario's optimum series: ``kind`` is ``proven`` (every set proven optimal),
    ``bounded`` (some set only bounded) or ``bound`` (the bars from the lower bound to the size found)."""
    return f"alpha-optimum-{kind}-{scenario}"


def plot_optimum(ax: Any, g: pd.DataFrame, scenario: str, color: str) -> None:
    """The median α of a certifying reducer (``minimal``): a filled marker where every set of the point is
    proven optimal (the median optimum α itself); a hollow one where some set is only bounded, with a bar
    down to the median lower bound (the median optimum lies on the bar, :func:`~cbalgebra.studies.summary.
    dnf_summary`)."""
    proven = g[g["proven"] == g["sets"]]
    bounded = g[g["proven"] < g["sets"]]
    ax.plot(g["n"], g["alpha_median"], "-", color=color, lw=1.4)
    ax.plot(proven["n"], proven["alpha_median"], "o", color=color, ms=4.5, ls="none",
            label=r"$\alpha_{min}$: median, proven optimal", gid=optimum_gid(scenario, "proven"))
    if not bounded.empty:
        ax.plot(bounded["n"], bounded["alpha_median"], "o", color=color, mfc="none", ms=5, ls="none",
                label=r"$\alpha_{min}$: median, bounded (bar: median lower bound)",
                gid=optimum_gid(scenario, "bounded"))
        ax.vlines(bounded["n"], bounded["lower_median"], bounded["alpha_median"], color=color, lw=1.0,
                  gid=optimum_gid(scenario, "bound"))


def plot_dnf(summary: pd.DataFrame, out_dir: Path,
             which: tuple[str, ...] = ("fig6", "fig7", "overview")) -> dict[str, list[Path]]:
    """Figure 6 (Zipf scenarios), Figure 7 (uniform scenarios) and an overview of all."""
    present = [s for s in dict.fromkeys(summary["scenario"])]
    known = [s for s in SCENARIOS if s in present] + [s for s in present if s not in SCENARIOS]
    out = {}
    fig6 = [s for s in known if s.startswith("zipf-")]
    fig7 = [s for s in known if s.startswith("uniform-")]
    if fig6 and "fig6" in which:
        out["fig6"] = plot_dnf_panels(summary, fig6, out_dir, "fig6_zipf",
                                      "Disjunction advantage, Zipf distribution of attribute names")
    if fig7 and "fig7" in which:
        out["fig7"] = plot_dnf_panels(summary, fig7, out_dir, "fig7_uniform",
                                      "Disjunction advantage, uniform distribution of attribute names")
    if "overview" in which:
        out["overview"] = plot_dnf_panels(summary, known, out_dir, "alpha_dnf",
                                          "Disjunction advantage of random DNF predicates")
    return out
