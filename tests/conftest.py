import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The tests import their helpers (strategies, oracles) as plain modules.
sys.path.insert(0, str(Path(__file__).parent))

# Deadlines measure the machine, not the code: timing never decides a test.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def cluster(tmp_path):
    """A standalone Spark cluster on this machine (``test_studies_spark.Cluster``:
    a master and workers in their own process groups), stopped afterwards;
    the studies' tests of a killed worker use it."""
    from test_studies_spark import Cluster  # deferred: it imports pyspark, which few tests need

    c = Cluster(tmp_path)
    try:
        c.start()
        yield c
    finally:
        c.stop()
