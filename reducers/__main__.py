"""``python -m cbalgebra.reducers reduce FILE ...`` (the same as ``cbalgebra reduce``)."""

import sys

from cbalgebra.reducers.cli import main

sys.exit(main())
