"""spark_table_memory (cbalgebra.studies.sizing): table_memory with the
counted units as Spark tasks gives the local answer, number for number."""

from __future__ import annotations

import pytest

from cbalgebra.network import table_memory, topology
from cbalgebra.network.sizing import memory_problem
from cbalgebra.network.workload import processor_predicates

pytestmark = pytest.mark.spark


def test_spark_counts_equal_the_local_counts():
    from cbalgebra.studies.sizing import spark_table_memory
    from cbalgebra.studies.spark import spark_session

    session = spark_session("local[2]")
    graph = topology("power_law", 40, seed=3, model="chung_lu")
    predicates = processor_predicates(range(0, 40, 2), 3, seed=3)
    for reducer in (None, "siena"):
        problem = memory_problem(graph, predicates, senders=range(0, 40, 3), reducer=reducer)
        for scheme in ("psf", "ips", "pif", "drp"):
            for sample in (None, 8):
                distributed = spark_table_memory(session, scheme, problem, sample=sample, seed=4, tasks=3)
                assert distributed == table_memory(scheme, problem, sample=sample, seed=4), (scheme, reducer, sample)
        # a priority sample smaller than the classes: the tasks' samples merge to the local one
        distributed = spark_table_memory(session, "ips", problem, sample=8, seed=4, tasks=3, class_sample=7)
        local = table_memory("ips", problem, sample=8, seed=4, class_sample=7)
        assert distributed == local and local.sampled_classes == 7 and local.standard_error > 0, reducer
