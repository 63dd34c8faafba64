"""The Siena language's grammar (``siena.lark``: rules only; the terminals are generated
from :mod:`cbalgebra.lexicon`)."""

# The folder sits beside cbalgebra/ in the repository, so from its root it is also
# importable as a top-level package; one module must have one name (two would be two
# copies of every class and cache), so only the installed name is accepted.
if __name__ != "cbalgebra.grammar":
    raise ImportError(f"{__name__} is cbalgebra.grammar: import it under that name")
