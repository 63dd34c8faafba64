"""Progress of long runs, on stderr, for the command line.

Library code calls :func:`report` (a no-op unless a caller installed a
reporter with :func:`reporting`); the CLI installs a :class:`Progress`, which
prints nothing for runs shorter than a second, rewrites one line on a
terminal, and prints a plain line every few seconds elsewhere (only when
asked with ``--progress``). Tests and pipes see nothing by default.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

Reporter = Callable[[str, int, "int | None"], None]

_REPORTER: ContextVar[Reporter | None] = ContextVar("cbalgebra_progress", default=None)


def report(stage: str, done: int, total: int | None = None) -> None:
    """Tell the installed reporter (if any) that ``done`` of ``total`` items of ``stage`` are done."""
    r = _REPORTER.get()
    if r is not None:
        r(stage, done, total)


def active() -> bool:
    return _REPORTER.get() is not None


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Install ``reporter`` for the calls inside the block (None: leave as is)."""
    if reporter is None:
        yield
        return
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def wanted(flag: bool | None, stream: TextIO | None = None) -> bool:
    """``--progress`` (True), ``--quiet`` (False) or, by default (None), whether stderr is a terminal."""
    if flag is not None:
        return flag
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def add_progress_arguments(parser: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--quiet`` (``-q``) of a command: ``args.progress`` is True, False or None."""
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--progress", dest="progress", action="store_const", const=True, default=None,
                       help="report progress on stderr (default: only when stderr is a terminal)")
    shown.add_argument("--quiet", "-q", dest="progress", action="store_const", const=False,
                       help="no progress report")


def progress_for(flag: bool | None) -> Progress | None:
    """The meter a command shows on stderr, or None: see :func:`wanted`."""
    return Progress(sys.stderr) if wanted(flag) else None


class Progress:
    """The one progress meter of the command line: a status line on ``stream``.

    As a :data:`Reporter` it prints ``stage: done/total (p%), t s``; any other
    line goes through :meth:`write` (the studies' cells and ETA,
    :class:`cbalgebra.studies.runner.Progress`). Nothing is printed before
    ``delay`` seconds; then at most one line every ``every_tty`` seconds on a
    terminal, where the line is rewritten in place, or every ``every_log``
    seconds elsewhere, one line each.
    """

    def __init__(self, stream: TextIO | None = None, *, delay: float = 1.0,
                 clock: Callable[[], float] = time.monotonic, every_tty: float = 0.2, every_log: float = 2.0):
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.started = clock()
        self.delay = delay
        self.tty = wanted(None, self.stream)
        self.every = every_tty if self.tty else every_log
        self.last = -1e9
        self.width = 0

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        text = f"{stage}: {done:,}" + (f"/{total:,} ({100 * done // max(total, 1)}%)" if total else "")
        final = total is not None and done >= total
        # the last report of a stage replaces a line already on the terminal, however soon
        self.write(text, elapsed=True, force=final and self.width > 0)

    def write(self, text: str, *, elapsed: bool = False, force: bool = False) -> None:
        """Show ``text`` (with the seconds since the start if ``elapsed``),
        unless it is too early or too soon after the last line; ``force``
        shows it anyway."""
        now = self.clock()
        if not force and (now - self.started < self.delay or now - self.last < self.every):
            return
        self.last = now
        if elapsed:
            text += f", {now - self.started:.0f} s"
        if self.tty:
            self.stream.write("\r" + text + " " * max(0, self.width - len(text)))
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Clear the progress line (terminal) so the next output starts clean."""
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

    def end(self) -> None:
        """Keep the last line (terminal): the next output starts below it."""
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()
            self.width = 0
