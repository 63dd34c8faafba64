"""``python -m cbalgebra.studies study alpha-general|alpha-dnf ...``: the study command alone."""

import sys

from cbalgebra.studies.cli import main

if __name__ == "__main__":
    sys.exit(main())
