"""``sushicam score GAME.json [--explain] [--lang LANG]``: print a record's scores (``-``: stdin).

``--explain`` speaks the player's language: ``--lang``, else the one the environment names
(``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them), else English. The
JSON is the record contract and the same in every language.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import cast

from scorer.i18n import LANGUAGES, language_from_environment


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a game record (JSON) exactly, by its edition's rules",
        description="Score a game record (see spec/game-record.md) and print the scores as JSON.",
    )
    parser.add_argument("record", metavar="GAME.json", help="the game record; '-' reads stdin")
    parser.add_argument("--explain", action="store_true",
                        help="print a readable breakdown per player and category instead of JSON")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="language of --explain (default: from LANGUAGE, LC_ALL, LC_MESSAGES, "
                             "LANG; English when none of them names one of these)")
    parser.set_defaults(handler=run)


def read_record(path: str) -> object:
    """The parsed JSON of ``path`` (``-``: stdin); ``ValueError``/``OSError`` with one clear line."""
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()  # noqa: SIM115
    except FileNotFoundError:
        raise OSError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise OSError(f"{path}: is a directory, not a game record") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a UTF-8 text file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ValueError(f"{path}: the JSON is nested too deeply to be a game record") from None


def run(args: argparse.Namespace) -> int:
    from scorer import explain_record, score_record

    # anything but an object is refused by the scorer itself ("record: expected a JSON object")
    record = cast(dict, read_record(args.record))
    if args.explain:
        print(explain_record(record, args.lang or language_from_environment()))
    else:
        print(json.dumps(score_record(record), indent=2, ensure_ascii=False))
    return 0
