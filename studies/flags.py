"""The parsers of the studies' flag values: numbers with a bound, comma-separated lists, Spark settings.

Two kinds, for the two places argparse lets a value fail: the ``*_type``
values and :func:`argument_type` are argparse ``type=`` functions (a bad
value is argparse's one-line error, exit 2); the ``*_list`` functions take
the text of a flag and its name and raise :class:`cbalgebra.clibase.UsageError`
naming the flag, for values checked once the whole command line is known.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TypeVar

from cbalgebra.clibase import UsageError, number_argument

T = TypeVar("T")


def whole_number(text: str, what: str) -> int:
    """An integer, also written as a float (``1e4``, ``2000.0``); ``UsageError`` naming ``what`` otherwise."""
    try:
        value = float(text) if any(c in text.lower() for c in ".e") else int(text)
    except ValueError:
        raise UsageError(f"{what}: {text!r} is not a number") from None
    if value != int(value):
        raise UsageError(f"{what}: {text!r} is not an integer")
    return int(value)


def _whole(text: str) -> int:
    try:
        return whole_number(text, "value")
    except UsageError as e:
        raise ValueError(str(e).split(": ", 1)[1]) from None


def bounded_type(convert: Callable[[str], T], accept: Callable[[T], bool], requirement: str) -> Callable[[str], T]:
    """An argparse type: ``convert`` the text (its ``ValueError`` says why not), then demand ``accept``,
    else "must be ``requirement``"."""
    def parse(text: str) -> T:
        try:
            value = convert(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be {requirement}")
        return value

    return parse


#: An integer ≥ 1 (also written as ``1e4``).
positive_int_type = bounded_type(_whole, lambda v: v >= 1, "at least 1")
#: A base seed: an integer ≥ 0.
seed_type = number_argument(int, least=0, must="non-negative")
#: A finite number > 0.
positive_float_type = number_argument(float, above=0, must="a positive number")
#: A simulated duration: at least one second, finite.
seconds_type = number_argument(float, least=1, must="at least 1 second")


def conf_type(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` (a Spark setting) as a pair; the key is stripped and not empty."""
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key.strip(), value


def argument_type(parse: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse type from a function that raises ``UsageError``."""
    def checked(text: str) -> T:
        try:
            return parse(text)
        except UsageError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return checked


def listed(text: str) -> list[str]:
    """The items of a comma-separated list, stripped, empty ones left out."""
    return [t.strip() for t in text.split(",") if t.strip()]


def _named(what: str | None, message: str) -> str:
    return f"{what}: {message}" if what else message


def number_list(text: str, what: str | None, convert: Callable[[str], T], noun: str,
                accept: Callable[[T], bool] = lambda v: True, requirement: str = "") -> tuple[T, ...]:
    """The distinct values of a comma-separated list, in order: each ``convert``-ed (else "is not
    ``noun``") and ``accept``-ed (else "must be ``requirement``"); an empty list is refused. Errors are
    ``UsageError`` prefixed by ``what`` (the flag)."""
    out = []
    for item in listed(text):
        try:
            value = convert(item)
        except ValueError:
            raise UsageError(_named(what, f"{item!r} is not {noun}")) from None
        if not accept(value):
            raise UsageError(_named(what, f"{item!r} must be {requirement}"))
        out.append(value)
    if not out:
        raise UsageError(_named(what, "empty list"))
    return tuple(dict.fromkeys(out))


def int_list(text: str, what: str | None, minimum: int | None = 1) -> tuple[int, ...]:
    """Distinct integers, each at least ``minimum`` (None: any)."""
    if minimum is None:
        return number_list(text, what, int, "an integer")
    return number_list(text, what, int, "an integer", lambda v: v >= minimum, f"at least {minimum}")


def fraction_list(text: str, what: str | None) -> tuple[float, ...]:
    """Distinct numbers in (0, 1]."""
    return number_list(text, what, float, "a number", lambda v: 0 < v <= 1, "in (0, 1]")


def name_list(text: str, what: str | None, allowed: Sequence[str] | None = None, noun: str = "",
              required: bool = False) -> tuple[str, ...]:
    """The distinct names of a comma-separated list, in order, each among ``allowed`` (None: any name)
    else "unknown ``noun`` 'x' (the allowed ones)"; with ``required``, an empty list is refused."""
    names = tuple(dict.fromkeys(listed(text)))
    if required and not names:
        raise UsageError(_named(what, f"empty list {text!r}"))
    for name in names:
        if allowed is not None and name not in allowed:
            raise UsageError(_named(what, f"unknown {noun}{name!r} ({', '.join(allowed)})"))
    return names
