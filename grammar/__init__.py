"""The Siena language's grammar (``siena.lark``: rules only; the terminals are generated
from :mod:`cbalgebra.lexicon`)."""

if __name__ != "cbalgebra.grammar":  # the folder is on sys.path from the repository's root: one name per module
    raise ImportError(f"{__name__} is cbalgebra.grammar: import it under that name")
