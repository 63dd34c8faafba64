"""Errors of the covering layers."""


class UndecidedError(RuntimeError):
    """The solver could not decide (z3 said unknown or timed out).

    The covering layer never guesses: a question it cannot decide raises
    this instead of answering.
    """
