"""``python -m cbalgebra.matcher forward TABLE_FILE [MESSAGES_FILE] ...``"""

import argparse
import sys

from cbalgebra.matcher import cli


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cbalgebra.matcher")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    cli.register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
