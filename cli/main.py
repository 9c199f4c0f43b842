"""`shanghai` command line: one dispatcher; each area registers its own subcommands.

Every command reports bad input as one line on stderr with exit status 2, never a
traceback: the CLI is called by other tools and by people at a card table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from shanghai.engine.errors import ShanghaiError

from . import (
    data_commands,
    deck_commands,
    engine_commands,
    serve_command,
    train_commands,
    vision_commands,
)
from .errors import UsageError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with one line (its default prints the whole usage)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="shanghai", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    engine_commands.register(sub)
    data_commands.register(sub)
    serve_command.register(sub)
    train_commands.register(sub)
    vision_commands.register(sub)
    deck_commands.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        status: int = args.func(args)
    except (UsageError, ShanghaiError) as exc:
        print(
            f"shanghai: error: {exc}" if not str(exc).startswith("shanghai") else str(exc),
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("shanghai: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
