#!/usr/bin/env python3
"""Keep the committed study results honest when the code they depend on changes.

Each committed study folder (``studies/results/<kind>/study.json``) records the
code fingerprint of the code that computed it (``cbalgebra.studies.fingerprint``),
and a rerun into that folder refuses to mix results of code that does something
else. When a change touches that code without changing the numbers (a refactor,
a fix on inputs the study never makes), this script shows it and re-stamps:

    tools/restamp_studies.py routing --cells 40          recompute 40 sampled cells, compare
    tools/restamp_studies.py routing --cells 40 --write  ... and re-stamp the manifest if all equal
    tools/restamp_studies.py all --cells 30 --write

The sample is drawn (seeded) from the study's own cell list as its committed
design defines it, preferring cheap cells up to ``--max-cost`` (the study's own
cost estimate), and each recomputed row is compared, column by column and
exactly (NaN equal to NaN), with the committed row of the same key; columns of
time and place (``*_seconds``, ``*_per_second``, ``host``, ``pid``) do not count. Any difference
is printed and nothing is written: such a study must be recomputed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "studies" / "results"
VOLATILE = re.compile(r"(_seconds|_per_second|^host|^pid)$")


def _kinds() -> list[str]:
    """The committed study folders whose manifests record a code fingerprint (a registered study
    may have several, one per design: ``routing`` and ``routing-internet``)."""
    return sorted(p.parent.name for p in RESULTS.glob("*/study.json")
                  if "code_fingerprint" in json.loads(p.read_text())["config"])


def _missing(value) -> bool:
    """None or NaN: a null of the Parquet file reads back as either, by the column's type."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def _same(a, b) -> bool:
    if _missing(a) and _missing(b):
        return True
    if hasattr(a, "tolist"):
        a = a.tolist()
    if hasattr(b, "tolist"):
        b = b.tolist()
    return bool(a == b)


def check(kind: str, cells: int, max_cost: float, seed: int, write: bool) -> bool:
    import pandas as pd

    folder = RESULTS / kind
    manifest_path = folder / "study.json"
    manifest = json.loads(manifest_path.read_text())
    committed_config = manifest["config"]
    from cbalgebra.studies.plugin import plugin

    study = plugin(manifest["kind"]).study(committed_config)
    new_fingerprint = study.config["code_fingerprint"]
    other = {k for k in set(study.config) | set(committed_config) if k != "code_fingerprint"
             and _normal(study.config.get(k)) != _normal(committed_config.get(k))}
    if other:
        print(f"{kind}: the rebuilt design differs from the committed one in {sorted(other)}: recompute the study")
        return False
    if new_fingerprint == committed_config["code_fingerprint"]:
        print(f"{kind}: fingerprint {new_fingerprint} unchanged")
        return True
    results = pd.read_parquet(folder / "results.parquet")
    keyed = {tuple(_normal(v) for v in row): i
             for i, row in enumerate(results[list(study.key_columns)].itertuples(index=False, name=None))}
    pool = [c for c in study.cells if study.cost(c) <= max_cost] or list(study.cells)
    chosen = random.Random(seed).sample(pool, min(cells, len(pool)))
    differ = 0
    for number, cell in enumerate(chosen, 1):
        key = tuple(_normal(v) for v in study.key(cell))
        if key not in keyed:
            print(f"{kind}: cell {key} is not in the committed results: recompute the study")
            return False
        row = results.iloc[keyed[key]]
        got = study.task(cell)
        compared = [c for c in results.columns if not VOLATILE.search(c)]
        missing = [c for c in compared if c not in got]
        if missing:
            print(f"{kind}: the task no longer returns {missing[:5]}: recompute the study")
            return False
        bad = [c for c in compared if not _same(got[c], row[c])]
        differ += bool(bad)
        for c in bad[:5]:
            print(f"{kind}: cell {key}: {c} = {got[c]!r}, committed {row[c]!r}")
        if number % 10 == 0:
            print(f"{kind}: {number}/{len(chosen)} cells recomputed, {differ} differ", file=sys.stderr)
    print(f"{kind}: {len(chosen)} sampled cells recomputed, {len(compared)} columns each ({len(pool)} of "
          f"{len(study.cells)} within the cost bound), {differ} differ; "
          f"fingerprint {committed_config['code_fingerprint']} -> {new_fingerprint}")
    if differ or not write:
        return not differ
    manifest["config"] = {**committed_config, "code_fingerprint": new_fingerprint}
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".study.json.")
    with os.fdopen(fd, "w") as out:
        out.write(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, manifest_path)
    print(f"{kind}: manifest re-stamped")
    return True


def _normal(value):
    """Lists and tuples alike, numpy scalars as Python ones: the manifest is JSON."""
    if isinstance(value, (list, tuple)):
        return tuple(_normal(v) for v in value)
    if hasattr(value, "item"):
        return value.item()
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=[*_kinds(), "all"])
    parser.add_argument("--cells", type=int, default=30, help="how many cells to recompute (default 30)")
    parser.add_argument("--max-cost", type=float, default=float("inf"),
                        help="sample only cells the study estimates at most this cost")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true", help="re-stamp the manifest when every cell is equal")
    args = parser.parse_args()
    kinds = _kinds() if args.kind == "all" else [args.kind]
    ok = [check(k, args.cells, args.max_cost, args.seed, args.write) for k in kinds]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
