"""Monte Carlo studies of the disjunction advantage α on Spark.

The studies are those of Carzaniga, Rembert & Wolf, "Understanding
Content-Based Routing Schemes" (University of Lugano TR 2006/05), §4;
docs/design.md, "Studies", summarises how they run.


- ``cbalgebra.studies.general``: the general data model of §4.1 (Figure 5),
  its closed form in sympy and ``estimate_alpha_general``;
- ``cbalgebra.studies.dnf``: the DNF model of §4.2 (Figures 6 and 7) and
  ``alpha_dnf_cell``;
- ``cbalgebra.studies.runner``: one Spark task per cell, atomic resumable
  Parquet output, progress;
- ``cbalgebra.studies.plugin``: the one protocol every study implements
  (``StudyPlugin``) and their registry; ``cbalgebra.studies.alpha``: the two
  α studies as plugins; ``routing``, ``matchmaker`` and ``amsp``: the others;
- ``cbalgebra.studies.jobs``: any study end to end (summary.csv, figures,
  report.md); ``cbalgebra.studies.tables``: the pieces every report is made
  of; ``cbalgebra.studies.cli``: the ``study`` command.

Importing this package imports neither Spark nor matplotlib.
"""

from __future__ import annotations

if __name__ != "cbalgebra.studies":  # the folder is on sys.path from the repository's root: one name per module
    raise ImportError(f"{__name__} is cbalgebra.studies: import it under that name")

from pathlib import Path
from typing import TYPE_CHECKING

from cbalgebra.lazy import lazy_exports

if TYPE_CHECKING:
    from .dnf import alpha_dnf_cell, run_dnf_cell
    from .general import estimate_alpha_general, run_general_cell

__all__ = [
    "alpha_dnf_cell",
    "demo_study",
    "estimate_alpha_general",
    "run_dnf_cell",
    "run_general_cell",
]

# sympy, numpy and the reducers load with the models, on first use.
__getattr__, __dir__ = lazy_exports(__name__, {
    "general": ("estimate_alpha_general", "run_general_cell"),
    "dnf": ("alpha_dnf_cell", "run_dnf_cell"),
}, globals())


def demo_study(out_dir: str | Path, master: str = "local[*]", progress: bool = True) -> Path:
    """A small α study on the embedded Spark; returns the path of its plot (PNG).

    Runs the DNF study (Figures 6 and 7 in miniature, ``siena`` reducer).
    Takes well under a minute, Spark start-up included.
    """
    from cbalgebra.studies import jobs  # pandas and pyarrow: not on ``import cbalgebra.studies``
    from cbalgebra.studies.alpha import dnf_study

    study = dnf_study(max_n=150, points=5, replicates=4, quick=True)
    outputs = jobs.execute(study, Path(out_dir) / study.kind, master=master, progress=progress,
                           figures="overview")
    return outputs["figure:alpha_dnf"]
