"""Running ``cbalgebra`` commands in-process from the tests, and the check every usage error passes."""

from __future__ import annotations

from cbalgebra.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    """(exit code, standard output, standard error) of ``cbalgebra *argv``."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_usage_error(capsys, *argv) -> str:
    """The error of ``cbalgebra *argv``, after checking that it exits 2 with
    nothing on standard output and one line on standard error, no traceback
    and no "internal error" (exit 70)."""
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err
    return err


def usage_error_on_file(capsys, path, text: str, command: str, *options: str) -> str:
    """Write ``text`` to ``path`` and return the :func:`one_line_usage_error` of
    ``cbalgebra command PATH *options``."""
    path.write_text(text)
    return one_line_usage_error(capsys, command, str(path), *options)
