"""``python -m cbalgebra.poset FILE ...``: the same as ``cbalgebra poset FILE ...``."""

import sys

from cbalgebra.poset.cli import main

sys.exit(main())
