"""A fresh machine, for the tests: programs missing from PATH, in process or in a subprocess.

This machine has Graphviz and Java; a fresh Debian has neither. In process,
:func:`without` replaces ``shutil.which``; for a subprocess, :func:`env_without`
gives an environment whose PATH holds every program of this one but the
hidden ones (links in one folder: ``/usr/bin`` holds both ``java`` and the
``bash`` that Spark's launcher scripts need) and no ``JAVA_HOME``.
"""

import os
import shutil
from pathlib import Path


def without(*programs):
    """``shutil.which`` on a machine without ``programs``."""
    real = shutil.which

    def which(name, *args, **kwargs):
        return None if name in programs else real(name, *args, **kwargs)

    return which


def path_without(folder: Path, *programs: str) -> str:
    """A PATH (one new ``folder`` of links) with every program of this one but ``programs``."""
    folder.mkdir(exist_ok=True)
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            link = folder / entry.name
            if entry.name not in programs and not link.exists() and not link.is_symlink():
                link.symlink_to(entry.path)
    return str(folder)


def env_without(tmp_path: Path, *programs: str) -> dict:
    """This environment on a machine without ``programs`` and with no JAVA_HOME."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "CBALGEBRA_DEBUG")}
    env["PATH"] = path_without(tmp_path / f"bin-without-{'-'.join(programs)}", *programs)
    for name in programs:
        assert shutil.which(name, path=env["PATH"]) is None, name
    return env
