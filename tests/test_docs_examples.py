"""Every example of the README and of docs/**/*.md runs (issue 28 item 3).

Per page, in order, in one namespace and one scratch working folder: each ```python block is
executed, and each line of a ```sh block is run with the venv's `cbalgebra` (its exit code must be
0, or the N its comment states as "(exit N)"). The scratch folder links `docs/` so examples can
read the committed example files.

A block preceded by `<!-- spark: REASON -->` starts Spark: it runs in its own test, marked slow and
spark, in a fresh scratch folder. A block that must not run (a long study, a cluster, `make`, a
command that needs a file the reader supplies) is preceded by the comment `<!-- not run: REASON -->`;
those are the only blocks skipped, and `test_blocks_not_run_say_why` lists them.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->\s*$")
SPARK = re.compile(r"<!--\s*spark:\s*(.*?)\s*-->\s*$")
EXIT = re.compile(r"\(exit (\d+)\)")


@dataclass(frozen=True)
class Block:
    page: str
    number: int  # 1-based among the page's fenced blocks
    lang: str
    code: str
    not_run: str | None  # the reason, when marked
    spark: bool = False  # runs in test_spark_examples_run only


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def label(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for number, match in enumerate(FENCE.finditer(text), 1):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        reason = NOT_RUN.search(before)
        found.append(Block(label(page), number, match.group(1), match.group(2),
                           reason.group(1) if reason else None, SPARK.search(before) is not None))
    return found


def shell_commands(code: str) -> list[tuple[str, int]]:
    """Each command line of a shell block with the exit code its comment promises (0 if none)."""
    commands = []
    for line in code.splitlines():
        command, _, comment = line.partition("  #")
        if command.strip().startswith("#") or not command.strip():
            continue
        expected = EXIT.search(comment)
        commands.append((command.strip(), int(expected.group(1)) if expected else 0))
    return commands


def run_shell(block: Block, cwd: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command, expected in shell_commands(block.code):
        argv = shlex.split(command)
        assert argv[0] == "cbalgebra", (
            f"{block.page}, block {block.number}: `{command}` is not a cbalgebra command; "
            "mark the block <!-- not run: REASON --> if it must not run")
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == expected, (
            f"{block.page}, block {block.number}: `{command}` exited {proc.returncode}, "
            f"expected {expected}\n{proc.stderr}")


def run_page(page: Path, cwd: Path) -> int:
    namespace: dict[str, object] = {"__name__": "__docs__"}
    ran = 0
    for block in blocks(page):
        if block.not_run is not None or block.spark or block.lang not in ("python", "sh"):
            continue
        if block.lang == "python":
            try:
                exec(compile(block.code, f"{block.page}#block{block.number}", "exec"), namespace)
            except Exception:
                pytest.fail(f"{block.page}, block {block.number} (python) failed:\n{traceback.format_exc()}")
        else:
            run_shell(block, cwd)
        ran += 1
    return ran


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples_run(page, tmp_path, monkeypatch, capsys):
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    monkeypatch.chdir(tmp_path)
    ran = run_page(page, tmp_path)
    with capsys.disabled():
        print(f"\n{page.relative_to(ROOT)}: {ran} blocks executed", end="")


SPARK_BLOCKS = [b for p in pages() for b in blocks(p) if b.spark and b.not_run is None]


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.parametrize("block", SPARK_BLOCKS, ids=lambda b: f"{b.page}#{b.number}")
def test_spark_examples_run(block, tmp_path):
    assert block.lang == "sh", f"{block.page}, block {block.number}: a spark block is a shell block"
    run_shell(block, tmp_path)


def test_blocks_not_run_say_why(capsys):
    skipped = [b for p in pages() for b in blocks(p) if b.not_run is not None]
    assert all(b.not_run for b in skipped)
    with capsys.disabled():
        for b in skipped:
            print(f"\nnot run: {b.page}, block {b.number}: {b.not_run}", end="")


def test_every_block_is_python_or_sh_or_marked():
    """A block in another language would be silently ignored: it must be a known kind or text."""
    kinds = {b.lang for p in pages() for b in blocks(p) if b.not_run is None}
    assert kinds <= {"python", "sh", "text", "json", "mermaid", ""}, kinds


def test_a_failing_block_names_its_page_number_and_error(tmp_path):
    """Today's README stops at `messages`, undefined: the failure must say where and why."""
    page = tmp_path / "page.md"
    page.write_text("```python\nx = 1\n```\n\n```python\nprint(messages)\n```\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match=r"page.md, block 2 \(python\) failed:(.|\n)*NameError"):
        run_page(page, tmp_path)
