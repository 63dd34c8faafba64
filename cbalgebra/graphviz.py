"""The one way the package runs Graphviz: finding ``dot``, running it, and the
one error when it is missing or fails.

The poset's, the network's and the Matchmaker's drawings and the demo all
come here, so a machine without Graphviz gets one message, which names the
Debian package and how to install it, and one exit code (69, through
:class:`GraphvizError`'s ``exit_code``).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from cbalgebra.errors import UnavailableError

__all__ = ["HOWTO", "MISSING", "GraphvizError", "available", "find_dot", "require", "run_dot"]

#: How to get Graphviz on a fresh Debian machine.
HOWTO = "to get it: apt-get install graphviz"
#: What every drawing command says when ``dot`` is not on PATH.
MISSING = f"Graphviz 'dot' is not installed (Debian package graphviz; {HOWTO})"


class GraphvizError(UnavailableError, RuntimeError):
    """Graphviz ``dot`` is missing or failed (exit code 69)."""


def find_dot() -> str | None:
    """The path of Graphviz's ``dot``, or None."""
    return shutil.which("dot")


def available() -> bool:
    return find_dot() is not None


def require(instead: str = "") -> str:
    """The path of ``dot``, or the one error: for a command that checks before
    it computes what it would draw. ``instead`` names what the caller can do
    without Graphviz (``draw to .html``), added to the message."""
    exe = find_dot()
    if exe is None:
        raise GraphvizError(MISSING if not instead else f"{MISSING[:-1]}; or {instead})")
    return exe


def run_dot(dot_text: str, fmt: str, *, options: Sequence[str] = (), timeout: float = 300.0,
            instead: str = "") -> bytes:
    """``dot -T<fmt> [options]`` over ``dot_text``: the picture's bytes.

    Raises :class:`GraphvizError` when ``dot`` is missing (see :func:`require`
    for ``instead``), fails or takes longer than ``timeout`` seconds.
    """
    import subprocess  # only a drawing runs a program: not on `import cbalgebra`

    exe = require(instead)
    try:
        done = subprocess.run([exe, *options, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise GraphvizError(f"Graphviz 'dot' took more than {timeout:.0f} s") from None
    if done.returncode != 0:
        msg = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GraphvizError("Graphviz 'dot' failed: " + (msg[-1] if msg else f"exit {done.returncode}"))
    return done.stdout
