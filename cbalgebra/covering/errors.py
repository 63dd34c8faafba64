"""Errors of the covering layers."""

from cbalgebra.errors import EXIT_UNDECIDED, CbalgebraError


class UndecidedError(CbalgebraError, RuntimeError):
    """The solver could not decide (z3 said unknown or timed out).

    The covering layer never guesses: a question it cannot decide raises
    this instead of answering.
    """

    exit_code = EXIT_UNDECIDED
    label = "undecided"
