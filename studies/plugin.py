"""The one protocol every study implements, and the registry of the studies.

A study (the α studies of Carzaniga, Rembert & Wolf 2006, §4, the routing
study of §3, the Matchmaker and AMSP studies of Ge, Ji, Kurose & Towsley) is
a :class:`StudyPlugin`: its name and command line, its cells, the pure
function that computes one cell, its outputs (summary, figures, report) and
the code its numbers depend on (the fingerprint). :data:`REGISTRY` lists
them; ``cbalgebra study`` (:mod:`cbalgebra.studies.cli`) offers exactly
these, and the runner, :func:`cbalgebra.studies.jobs.finalize` and
``tools/restamp_studies.py`` reach a study only through these members. Adding
a study is one module with one ``StudyPlugin`` and one line in ``REGISTRY``.

Importing this module imports neither pandas, pyarrow nor Spark: every study
module loads at each start of ``cbalgebra`` (to list its sub-command), so its
heavy imports are inside its methods.
"""

from __future__ import annotations

import functools
import importlib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    import pandas as pd
    import pyarrow as pa

    from cbalgebra.studies.runner import Study

#: The flags every study's command has, whose meaning differs by study (see ``StudyPlugin.shared_flags``).
SHARED_FLAG_NAMES: tuple[str, ...] = ("replicates", "points")


class StudyPlugin(ABC):
    """A study, as the command line, the runner and the outputs see it.

    The class attributes describe it; the methods build its cells from a
    configuration (the design the manifest ``study.json`` records), compute
    one cell, and turn the finished rows into ``summary.csv``, the figures
    and ``report.md``. :meth:`study` (the design the runner executes) and
    :meth:`study_from_args` are built from these members, once for every study.
    """

    #: The study's name: its sub-command (``cbalgebra study NAME``), the ``kind`` in its manifest
    #: (a rerun into a folder of another kind is refused) and its folder under ``studies/results``.
    name: ClassVar[str]
    #: What it reproduces, in one clause of ``cbalgebra study --help``.
    summary: ClassVar[str]
    #: The one line beside its name in ``cbalgebra study --help``.
    help: ClassVar[str]
    #: The text of ``cbalgebra study NAME --help``.
    description: ClassVar[str]
    #: What each of :data:`SHARED_FLAG_NAMES` means in this study; None: the flag does not apply and
    #: the command refuses it (exit 2) instead of ignoring it.
    shared_flags: ClassVar[Mapping[str, str | None]]
    #: The columns that identify a cell (and its result row); a rerun skips the cells whose keys are done.
    key_columns: ClassVar[tuple[str, ...]]
    #: Bump when a change alters the numbers a cell produces: part of the manifest, checked on resume.
    model_version: ClassVar[int]

    @property
    def default_out(self) -> str:
        """The output folder when ``--out`` is not given."""
        return f"out/{self.name}"

    # ---------------------------------------------------------------- the command line
    @abstractmethod
    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the study's own flags (the shared ones are added by ``cbalgebra.studies.cli``)."""

    @abstractmethod
    def config_from_args(self, args: argparse.Namespace) -> dict:
        """The configuration the flags ask for; ``UsageError`` or ``ValueError`` (one line) if they are bad."""

    # ---------------------------------------------------------------- the cells
    @abstractmethod
    def cells(self, config: Mapping) -> list[dict]:
        """Every cell of the design ``config``, each a plain dict holding its key columns and ``seed``."""

    @staticmethod
    @abstractmethod
    def run_cell(cell: dict) -> dict:
        """One cell's result row (a pure function of the cell; a module-level function, so that
        Spark pickles it by reference)."""

    @staticmethod
    @abstractmethod
    def cell_cost(cell: dict) -> float:
        """A cell's relative cost: the runner schedules the costliest first and weighs the ETA by it."""

    @abstractmethod
    def schema(self) -> pa.Schema:
        """The Arrow schema of the result rows (``results.parquet``)."""

    @abstractmethod
    def code_fingerprint(self, config: Mapping) -> str | None:
        """The fingerprint of the code the cells' numbers depend on (its scope: the modules the study
        names to :func:`cbalgebra.studies.fingerprint.code_fingerprint`); None when the study records none."""

    # ---------------------------------------------------------------- the outputs
    #: The module whose functions ``summarise``, ``draw`` and ``report`` (with the signatures of the three
    #: methods below) are the study's outputs; it loads pandas and matplotlib, so it is imported when the
    #: outputs are first made. A study without one overrides the three methods.
    outputs: ClassVar[str | None] = None

    def _outputs(self) -> ModuleType:
        if self.outputs is None:
            raise NotImplementedError(f"study {self.name!r} names no outputs module and makes no outputs")
        return importlib.import_module(self.outputs)

    def summarise(self, results: pd.DataFrame, config: dict) -> pd.DataFrame:
        """One row per grid point: ``summary.csv``."""
        frame: pd.DataFrame = self._outputs().summarise(results, config)
        return frame

    def draw(self, summary: pd.DataFrame, out_dir: Path, config: dict, figures: str) -> list[Path]:
        """Write the figures (PNG and SVG) into ``out_dir``; ``figures="overview"`` only the overview."""
        paths: list[Path] = self._outputs().draw(summary, out_dir, config, figures)
        return paths

    def report(self, summary: pd.DataFrame, results: pd.DataFrame, config: dict, timing: dict | None) -> str:
        """The text of ``report.md``: the paper's findings beside ours."""
        text: str = self._outputs().report(summary, results, config, timing)
        return text

    # ---------------------------------------------------------------- built from the members above
    def study(self, config: Mapping) -> Study:
        """The design ``config`` as the runner executes it, stamped with the model version and the
        code fingerprint of the code that runs now."""
        # deferred: the runner loads pandas and pyarrow
        from cbalgebra.studies.runner import Study

        stamped = {**config, "model_version": self.model_version}
        fingerprint = self.code_fingerprint(stamped)
        if fingerprint is not None:
            stamped["code_fingerprint"] = fingerprint
        return Study(
            kind=self.name, cells=self.cells(stamped), key_columns=self.key_columns, task=self.run_cell,
            cost=self.cell_cost, schema=self.schema(), config=stamped, summarise=self.summarise, draw=self.draw,
            report=self.report,
        )

    def study_from_args(self, args: argparse.Namespace) -> Study:
        """The design the command line asks for."""
        return self.study(self.config_from_args(args))


#: Every study, in the order ``cbalgebra study --help`` lists them: ``module:attribute`` of its plugin.
REGISTRY: tuple[str, ...] = (
    "cbalgebra.studies.alpha:ALPHA_GENERAL",
    "cbalgebra.studies.alpha:ALPHA_DNF",
    "cbalgebra.studies.routing:PLUGIN",
    "cbalgebra.studies.matchmaker:PLUGIN",
    "cbalgebra.studies.amsp:PLUGIN",
)


@functools.cache
def registered() -> tuple[StudyPlugin, ...]:
    """The plugins of :data:`REGISTRY`, in its order."""
    plugins = []
    for entry in REGISTRY:
        module, _, attribute = entry.partition(":")
        plugins.append(getattr(importlib.import_module(module), attribute))
    return tuple(plugins)


def plugin(name: str) -> StudyPlugin:
    """The registered study called ``name``; ``ValueError`` (one line) if there is none."""
    for candidate in registered():
        if candidate.name == name:
            return candidate
    raise ValueError(f"no study is called {name!r} (the studies: {', '.join(p.name for p in registered())})")
