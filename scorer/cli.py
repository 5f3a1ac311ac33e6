"""``sushicam score GAME.json [--explain] [--lang LANG]``: print a record's scores (``-``: stdin).

``--explain`` speaks the player's language: ``--lang``, else the one the environment names
(``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them), else English. The
JSON is the record contract and the same in every language.
"""

from __future__ import annotations

import argparse
import json
import sys

from scorer.i18n import LANGUAGES, language_from_environment

#: The largest record read, as the app's import takes: a game of 8 players and 3 rounds with
#: turn logs is tens of KB, and ``/dev/zero`` or an endless pipe must end in an error, not in
#: all the memory there is.
MAX_RECORD_BYTES = 1_000_000


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        if path == "-":
            data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise OSError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise OSError(f"{path}: is a directory, not a game record") from None
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(f"{path}: more than {MAX_RECORD_BYTES // 1_000_000} MB, too large to be a game record")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a UTF-8 text file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ValueError(f"{path}: the JSON is nested too deeply to be a game record") from None
    except ValueError as exc:  # Python's "Exceeds the limit (4300 digits) for integer string conversion"
        if "digits" not in str(exc):
            raise
        raise ValueError(f"{path}: a number in the record has thousands of digits; "
                         "no game record holds one") from None


def run(args: argparse.Namespace) -> int:
    from scorer import explain_record, score_record

    # anything but an object is refused by the scorer itself ("record: expected a JSON object")
    record = read_record(args.record)
    if args.explain:
        print(explain_record(record, args.lang or language_from_environment()))
    else:
        print(json.dumps(score_record(record), indent=2, ensure_ascii=False))
    return 0
