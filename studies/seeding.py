"""Seeds of Monte Carlo cells.

Every cell of a study draws its random numbers from a seed derived only from
the study's base seed and the cell's key. The partitioning of the job, the
order in which Spark runs its tasks, the number of executors and a retry
after a lost worker therefore cannot change any result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np


def _word(part: object) -> int:
    """Map one key part to a non-negative int, stably across processes.

    ``hash()`` of a str is salted per process, so strings go through SHA-256.
    """
    if isinstance(part, bool):
        return int(part)
    if isinstance(part, (int, np.integer)):
        value = int(part)
        if value < 0:
            raise ValueError(f"seed key parts must be non-negative, not {value}")
        return value
    if isinstance(part, str):
        return int.from_bytes(hashlib.sha256(part.encode("utf-8")).digest()[:8], "little")
    raise TypeError(f"cannot derive a seed from {type(part).__name__} {part!r}")


def seed_sequence(base_seed: int, key: Iterable[object]) -> np.random.SeedSequence:
    """The ``SeedSequence`` of a cell: ``(base_seed, *key)`` as entropy."""
    return np.random.SeedSequence([_word(base_seed), *(_word(p) for p in key)])


def cell_seed(base_seed: int, key: Iterable[object]) -> int:
    """A 63-bit integer seed for a cell, for APIs that take an ``int`` seed."""
    state = seed_sequence(base_seed, key).generate_state(2, dtype=np.uint32)
    return (int(state[0]) << 31) ^ int(state[1])


def cell_rng(base_seed: int, key: Iterable[object]) -> np.random.Generator:
    """A numpy ``Generator`` for a cell."""
    return np.random.default_rng(seed_sequence(base_seed, key))
