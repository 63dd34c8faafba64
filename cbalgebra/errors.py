"""The root of every exception the package raises, and the exit codes.

Every public exception class of ``cbalgebra`` derives from
:class:`CbalgebraError` (and, where callers catch those, also from
``ValueError`` or ``RuntimeError``). Each class says what it means for a
command's exit status through two class attributes, so the command line maps
an error by ``isinstance`` and what the class says, never by its module or
name: moving or renaming a class cannot change its exit code.

- ``exit_code``: 2 bad input or usage, 3 undecided or a budget exceeded, 69 a
  needed program missing (the table in :mod:`cbalgebra.clibase`);
- ``label``: the word the one-line message starts with (``error``,
  ``undecided``).

This module imports nothing: the core modules and the command line's policy
module (:mod:`cbalgebra.clibase`) all import it.
"""

from __future__ import annotations

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_INCOMPLETE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_NO",
    "EXIT_OK",
    "EXIT_UNAVAILABLE",
    "EXIT_UNDECIDED",
    "EXIT_USAGE",
    "EXIT_YES",
    "CbalgebraError",
    "UnavailableError",
    "UsageError",
]

EXIT_YES = EXIT_OK = 0
EXIT_NO = 1
EXIT_USAGE = EXIT_BAD_INPUT = 2
EXIT_UNDECIDED = EXIT_INCOMPLETE = 3
EXIT_UNAVAILABLE = 69
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130


class CbalgebraError(Exception):
    """An error a caller can cause (bad input, an undecided question, a
    missing program), as opposed to a bug.

    A subclass overrides ``exit_code`` (and ``label``) when it is not bad
    input; one that does not is bad input, exit 2.
    """

    exit_code: int = EXIT_USAGE
    label: str = "error"


class UsageError(CbalgebraError):
    """Bad command-line input that is not a parse error (exit code 2)."""


class UnavailableError(CbalgebraError):
    """A program the command needs is missing or failed (exit code 69); the
    message says how to install it."""

    exit_code = EXIT_UNAVAILABLE
