"""``python -m cbalgebra.matcher forward TABLE_FILE [MESSAGES_FILE] ...``"""

import sys
from collections.abc import Sequence

from cbalgebra.clibase import plugin_main
from cbalgebra.matcher import cli


def main(argv: Sequence[str] | None = None) -> int:
    return plugin_main(cli.register, argv, "python -m cbalgebra.matcher")


if __name__ == "__main__":
    sys.exit(main())
