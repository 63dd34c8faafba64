"""One progress meter (issue 25 §3): the reducers' and posets' stage reports
and the studies' cells-and-ETA line are shown by one class,
``cbalgebra.reducers.progress.Progress``: one delay, one throttle, one way of
rewriting a terminal line, and one pair of ``--progress``/``--quiet`` flags."""

from __future__ import annotations

import argparse
import functools
import io

import pytest

from cbalgebra.reducers.progress import Progress, add_progress_arguments, progress_for, reporting
from cbalgebra.studies import runner


class Tty(io.StringIO):
    def isatty(self):
        return True


def screen(text: str) -> str:
    """What a terminal shows of ``text`` on its last line: ``\\r`` returns to
    the first column, later characters overwrite earlier ones."""
    line: list[str] = []
    column = 0
    for ch in text.split("\n")[-1]:
        if ch == "\r":
            column = 0
            continue
        if column < len(line):
            line[column] = ch
        else:
            line.append(ch)
        column += 1
    return "".join(line).rstrip()


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _study_meter(stream, clock):
    meter = runner.Progress("alpha-dnf", total=10, done=0, total_cost=10.0, done_cost=0.0, stream=stream)
    meter.clock = clock
    meter.started = clock()
    return meter


def test_the_study_meter_is_the_one_meter():
    assert issubclass(runner.Progress, Progress)
    assert runner.Progress.write is Progress.write and runner.Progress.close is Progress.close


@pytest.mark.parametrize("kind", ["stages", "study"])
def test_a_log_gets_a_line_at_most_every_interval(kind):
    clock, log = Clock(), io.StringIO()
    if kind == "stages":
        meter = Progress(log, clock=clock, delay=0.0, every_log=2.0)
        show = functools.partial(meter, "insert", 1, 10)
    else:
        meter = _study_meter(log, clock)
        show = meter.show
    for t in (0.0, 0.5, 1.9, 2.0 if kind == "stages" else 5.0, 2.1 if kind == "stages" else 5.1):
        clock.now = t
        show()
    assert log.getvalue().count("\n") == 2 and "\r" not in log.getvalue()


def test_a_terminal_line_is_rewritten_in_place_by_both_meters():
    clock = Clock()
    for meter, lines in (
        (Progress(Tty(), clock=clock, delay=0.0, every_tty=0.0), ["insert: 1,000/2,000 (50%)", "insert: 5/9 (55%)"]),
        (_study_meter(Tty(), clock), None),
    ):
        if lines is not None:
            meter("insert", 1000, 2000)
            meter("insert", 5, 9)
            assert screen(meter.stream.getvalue()) == "insert: 5/9 (55%), 0 s"
        else:
            meter.committed(7, 7.0)
            meter.show(force=True)
            meter.committed(-6, -6.0)  # a shorter line after a longer one leaves nothing behind
            meter.show(force=True)
            assert screen(meter.stream.getvalue()) == meter.line()
            meter.finish()
            assert meter.stream.getvalue().endswith("\n")  # the study's last line stays


def test_close_clears_the_line_and_nothing_shows_before_the_delay():
    clock, tty = Clock(), Tty()
    meter = Progress(tty, clock=clock)  # default delay: 1 s
    meter("parse", 1, 4)
    assert tty.getvalue() == ""
    clock.now = 1.5
    with reporting(meter):
        meter("parse", 2, 4)
    meter.close()
    assert tty.getvalue().startswith("\rparse: 2/4 (50%), 2 s") and screen(tty.getvalue()) == ""


def test_one_pair_of_flags():
    parser = argparse.ArgumentParser()
    add_progress_arguments(parser)
    assert parser.parse_args([]).progress is None
    assert parser.parse_args(["--progress"]).progress is True
    assert parser.parse_args(["-q"]).progress is False
    with pytest.raises(SystemExit):
        parser.parse_args(["--progress", "--quiet"])
    assert progress_for(False) is None and isinstance(progress_for(True), Progress)
