"""M(S) of the routing schemes on Spark: :func:`spark_table_memory`, the
distributed form of :func:`cbalgebra.network.table_memory` (Carzaniga,
Rembert & Wolf, "Understanding Content-Based Routing Schemes", 2006, §3).

The counted units (senders for PSF, processors for PIF, iPS and DRP; a
seeded sample of them, or all) are split into chunks, one Spark task per
chunk; each task computes its units' values with
:func:`cbalgebra.network.sizing.unit_values` on the broadcast problem, and
the driver combines them (:func:`cbalgebra.network.sizing.combine_units`),
so the result is the local ``table_memory(..., sample, seed)``'s, number
for number. iPS needs every sender's tree for any processor: its tasks are
chunks of processors (branch sizes) and then chunks of senders (the classes
they bring to the sampled processors, and their candidates for the
priority sample of classes that estimates iPS's constraints), merged on
the driver.

Importing this module imports neither Spark nor networkx.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from pyspark.sql import SparkSession

    from cbalgebra.network.sizing import MemoryProblem, TableMemory

__all__ = ["spark_table_memory"]


def _chunks(units: Sequence[int], parts: int) -> list[list[int]]:
    """``units`` in ``parts`` interleaved chunks (hubs and leaves spread evenly)."""
    parts = max(1, min(parts, len(units)))
    return [list(units[i::parts]) for i in range(parts)]


def spark_table_memory(session: SparkSession, scheme: str, problem: MemoryProblem, *, sample: int | None = None,
                       seed: int = 0, tasks: int | None = None, class_sample: int | None = None) -> TableMemory:
    """:func:`cbalgebra.network.table_memory` of ``scheme`` on ``problem``
    (:func:`cbalgebra.network.sizing.memory_problem`), its units counted in
    ``tasks`` Spark tasks (default: 4 per task slot); ``class_sample`` as
    there (iPS's priority sample of classes)."""
    # deferred: numpy and the network modules load with the first count
    import numpy as np

    from cbalgebra.network import sizing

    from .spark import slots

    units = sizing.sample_units(problem, scheme, sample, seed)
    tasks = tasks if tasks is not None else 4 * slots(session)
    context = session.sparkContext
    shared = context.broadcast(problem)
    classes = None
    if scheme == "ips":
        k = sizing.ips_class_sample(problem, scheme, units, class_sample)
        values, classes = _ips_values(context, shared, problem, units, tasks, k, seed)
    else:
        chunks = _chunks(units.tolist(), tasks)
        parts = (context.parallelize(chunks, len(chunks))
                 .map(lambda chunk: _unit_values(shared.value, scheme, chunk)).collect())
        values = sizing.UnitValues(np.concatenate([p.units for p in parts]),
                                   np.concatenate([p.constraints for p in parts]),
                                   np.concatenate([p.id_bits for p in parts]))
    shared.unpersist()
    return sizing.combine_units(problem, scheme, values, classes)


def _unit_values(problem: MemoryProblem, scheme: str, chunk: list[int]) -> Any:
    from cbalgebra.network.sizing import unit_values
    return unit_values(problem, scheme, chunk)


def _branch_part(problem: MemoryProblem, roots: list[int]) -> Any:
    from cbalgebra.network.sizing import ips_branch_sizes
    return ips_branch_sizes(problem, roots)


def _class_part(problem: MemoryProblem, pass_inputs: tuple[Any, Any, Any, int], senders: list[int]) -> Any:
    from cbalgebra.network.sizing import ips_classes
    units, branch, class_sample, seed = pass_inputs
    return ips_classes(problem, units, branch, senders, class_sample=class_sample, seed=seed)


def _ips_values(context: Any, shared: Any, problem: MemoryProblem, units: np.ndarray, tasks: int,
                class_sample: int | None, seed: int) -> tuple[Any, Any]:
    """iPS: branch sizes over processor chunks, then classes (and the
    priority sample of ``class_sample`` classes) over sender chunks
    (contiguous and in order, so the merge keeps the smallest sender)."""
    from cbalgebra.network import sizing

    roots = _chunks(list(range(problem.n)), tasks)
    branch = sum(context.parallelize(roots, len(roots)).map(lambda chunk: _branch_part(shared.value, chunk))
                 .collect())
    shared_branch = context.broadcast((units, branch, class_sample, seed))
    senders = problem.senders.tolist()
    step = max(1, -(-len(senders) // max(1, tasks)))
    blocks = [senders[i:i + step] for i in range(0, len(senders), step)]
    parts = (context.parallelize(blocks, max(1, len(blocks)))
             .map(lambda block: _class_part(shared.value, shared_branch.value, block)).collect())
    shared_branch.unpersist()
    classes = sizing.merge_ips_classes(parts)
    return sizing.ips_unit_values(problem, units, classes), classes.sample
