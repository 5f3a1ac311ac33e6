"""The ``sushicam`` console command.

Each package contributes its own subcommands through a ``register(subparsers)``
function; this module only assembles them and turns known errors into the
CLI contract: one line on stderr and exit status 2. Heavy libraries (torch,
ultralytics) are imported by the subcommands that need them, never here, so
``sushicam score`` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that define ``register(subparsers)``. Order is the order of --help.
COMMAND_MODULES = (
    "scorer.cli",
    "vision.cli",
    "vision.training.cli",
    "vision.live.cli",
    "vision.fieldtest.cli",
    "web.live_cli",  # adds --serve to vision.live.cli's live command
    "vision.teach.cli",
    "web.serve",
)


class CommandError(Exception):
    """A user error a subcommand reports as one line on stderr (exit status 2)."""


class OneLineArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2), as for every other error."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(
        prog="sushicam",
        description="Camera companion for Sushi Go!: read the cards on the table and score the game.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.handler(args)
    except (CommandError, ValueError, OSError) as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"sushicam {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return int(status or 0)


if __name__ == "__main__":  # pragma: no cover
    # Run as ``python -m web.cli``, this file is ``__main__`` and ``web.cli`` is a second copy;
    # go through the package module so its CommandError is the one the handlers raise.
    from web.cli import main as package_main

    sys.exit(package_main())
