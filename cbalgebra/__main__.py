import sys

from cbalgebra.cli import main

sys.exit(main())
