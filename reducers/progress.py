"""Progress of long runs, on stderr, for the command line.

Library code calls :func:`report` (a no-op unless a caller installed a
reporter with :func:`reporting`); the CLI installs a :class:`Progress`, which
prints nothing for runs shorter than a second, rewrites one line on a
terminal, and prints a plain line every few seconds elsewhere (only when
asked with ``--progress``). Tests and pipes see nothing by default.
"""

from __future__ import annotations

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


class Progress:
    """A reporter that prints ``stage: done/total (p%), t s`` to ``stream``."""

    def __init__(self, stream: TextIO | None = None, *, delay: float = 1.0,
                 clock: Callable[[], float] = time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.start = clock()
        self.delay = delay
        self.tty = wanted(None, self.stream)
        self.every = 0.2 if self.tty else 2.0
        self.last = -1e9
        self.width = 0

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        now = self.clock()
        elapsed = now - self.start
        final = total is not None and done >= total
        if elapsed < self.delay or (now - self.last < self.every and not (final and self.width)):
            return
        self.last = now
        text = f"{stage}: {done:,}" + (f"/{total:,} ({100 * done // max(total, 1)}%)" if total else "")
        text += f", {elapsed:.0f} s"
        if self.tty:
            pad = max(0, self.width - len(text))
            self.stream.write("\r" + text + " " * pad)
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
