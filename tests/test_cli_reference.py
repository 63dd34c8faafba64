"""docs/guide/cli-reference.md is what the argparse parser prints (issue 28 item 2: the CLI page
generated from argparse): regenerate it with tools/cli_reference.py after changing the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cbalgebra.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "guide" / "cli-reference.md"


def test_cli_reference_is_up_to_date() -> None:
    checked = subprocess.run([sys.executable, str(ROOT / "tools" / "cli_reference.py"), "--check"],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr


def test_cli_reference_has_every_command_and_its_options() -> None:
    page = PAGE.read_text(encoding="utf-8")
    parser = build_parser()
    subcommands = next(action for action in parser._actions if action.dest == "command")
    assert subcommands.choices
    for name, subparser in subcommands.choices.items():
        assert f"## `cbalgebra {name}`" in page
        for action in subparser._actions:
            for flag in action.option_strings:
                assert flag in page, f"cbalgebra {name} {flag}"
