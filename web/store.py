"""Games, rounds and photos as typed values read from and written to the SQLite store.

Everything the pages need goes through here, so the SQL stays in one place. A game's record (the
JSON of ``../shared/spec/game-record.md``) is built from its confirmed rounds only: a round that
was photographed but not yet confirmed is a draft and never counts.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from vision.describe import DetectJSON

ROUNDS_PER_GAME = 3


class GameNotFound(LookupError):
    """No game has this id (``number``)."""

    def __init__(self, number: int):
        super().__init__(f"no game {number}")
        self.number = number


class PhotoNotFound(LookupError):
    """No photo has this id (``number``)."""

    def __init__(self, number: int):
        super().__init__(f"no photo {number}")
        self.number = number


class RoundOrderError(ValueError):
    """A round was asked for out of order (round 3 before round 2 is confirmed): ``number`` the
    round asked for, ``next`` the one to play (None when ``number`` is no round of a game)."""

    def __init__(self, number: int, next_round: int | None = None):
        super().__init__(f"a game has rounds 1 to {ROUNDS_PER_GAME}, not {number}" if next_round is None else
                         f"round {number} comes after round {next_round}, which is not confirmed yet")
        self.number = number
        self.next = next_round


class StaleReview(RuntimeError):
    """A review was confirmed from a version of the round that another edit has replaced since
    (two phones or two tabs on one round); ``current`` is the round's review as stored now."""

    def __init__(self, current: dict[str, Any]):
        super().__init__(
            "This round was changed on another phone or tab since this page opened, and confirming"
            " would replace that edit: look at their version, or confirm yours over it"
        )
        self.current = current


def review_version(review: dict[str, Any]) -> str:
    """A short fingerprint of a stored review: a browser's draft and a confirm name the one
    they started from."""
    text = json.dumps(review, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Everything inside is written at once or not at all.

    ``BEGIN IMMEDIATE`` takes the write lock up front, so two phones confirming the same round
    queue up instead of failing half-way.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        # SQLite has already rolled back after some errors (a full disk): rolling back again
        # would fail and hide the reason
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


@dataclass(frozen=True)
class Photo:
    """One uploaded photo of a round: the whole table (``seat is None``) or one player's cards."""

    id: int
    game_id: int
    round_number: int
    filename: str
    seat: int | None
    width: int
    height: int
    detection: DetectJSON

    def as_json(self) -> dict[str, Any]:
        """What the review page needs to draw it (the URL is added by the view)."""
        return {"id": self.id, "seat": self.seat, "width": self.width, "height": self.height}


@dataclass(frozen=True)
class Round:
    """A round of a game: its review state, and its record once confirmed."""

    number: int
    review: dict[str, Any]
    record: dict[str, Any] | None
    confirmed: str | None

    @property
    def is_confirmed(self) -> bool:
        return self.record is not None


@dataclass(frozen=True)
class Game:
    """A game as stored: its setup and its rounds (confirmed and draft), oldest first."""

    id: int
    created: str
    updated: str
    edition: str
    players: tuple[str, ...]
    menu: Any
    variants: Any
    seat_areas: tuple[tuple[float, float, float, float], ...] | None
    rounds: tuple[Round, ...]
    imported: str | None = None  # where its record came from, for a game imported, not played here

    @property
    def confirmed_rounds(self) -> tuple[Round, ...]:
        return tuple(r for r in self.rounds if r.is_confirmed)

    @property
    def next_round(self) -> int | None:
        """The number of the round to play next, or None once all three are confirmed."""
        played = len(self.confirmed_rounds)
        return played + 1 if played < ROUNDS_PER_GAME else None

    @property
    def is_finished(self) -> bool:
        return self.next_round is None

    def round(self, number: int) -> Round | None:
        return next((r for r in self.rounds if r.number == number), None)

    def record(self, replace: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
        """The game record of the confirmed rounds (``replace`` swaps rounds by number)."""
        replace = replace or {}
        # a confirmed round always has its record
        rounds = [replace[r.number] if r.number in replace else cast(dict[str, Any], r.record)
                  for r in self.confirmed_rounds]
        rounds += [replace[n] for n in sorted(replace) if n > len(rounds)]
        return setup_record(self.edition, self.players, self.menu, self.variants, rounds)


def setup_record(
    edition: str, players: Sequence[str], menu: Any, variants: Any, rounds: list[dict]
) -> dict[str, Any]:
    """A game record; ``menu`` and ``variants`` only when set, as the spec makes them optional."""
    record: dict[str, Any] = {"edition": edition, "players": list(players), "rounds": rounds}
    if menu is not None:
        record["menu"] = menu
    if variants:
        record["variants"] = variants
    return record


def _loads(text: str | None) -> Any:
    # NaN/Infinity stored before bodies were checked read back as null: the page that shows
    # them parses strict JSON
    return None if text is None else json.loads(text, parse_constant=lambda _name: None)


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), allow_nan=False)


def _game_from_row(row: sqlite3.Row, rounds: tuple[Round, ...]) -> Game:
    areas = _loads(row["seat_areas"])
    return Game(
        id=row["id"],
        created=row["created"],
        updated=row["updated"],
        edition=row["edition"],
        players=tuple(_loads(row["players"])),
        menu=_loads(row["menu"]),
        variants=_loads(row["variants"]),
        seat_areas=None if areas is None else tuple(tuple(a) for a in areas),
        rounds=rounds,
        imported=row["imported"],
    )


def _rounds(db: sqlite3.Connection, game_id: int) -> tuple[Round, ...]:
    rows = db.execute(
        "SELECT number, review, record, confirmed FROM round WHERE game_id = ? ORDER BY number",
        (game_id,),
    ).fetchall()
    return tuple(
        Round(r["number"], _loads(r["review"]), _loads(r["record"]), r["confirmed"])
        for r in rows
    )


def get_game(db: sqlite3.Connection, game_id: int) -> Game:
    row = db.execute("SELECT * FROM game WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise GameNotFound(game_id)
    return _game_from_row(row, _rounds(db, game_id))


def list_games(db: sqlite3.Connection) -> list[Game]:
    """Every game, the most recently played first."""
    rows = db.execute("SELECT * FROM game ORDER BY updated DESC, id DESC").fetchall()
    return [_game_from_row(row, _rounds(db, row["id"])) for row in rows]


def create_game(
    db: sqlite3.Connection,
    edition: str,
    players: Sequence[str],
    menu: Any = None,
    variants: Any = None,
    rounds: Sequence[tuple[dict[str, Any], dict[str, Any]]] = (),
    imported: str | None = None,
) -> int:
    """Store a new game; ``rounds`` are (review, record) pairs of confirmed rounds and
    ``imported`` where they came from (an import)."""
    with transaction(db):
        cursor = db.execute(
            "INSERT INTO game (edition, players, menu, variants, imported) VALUES (?, ?, ?, ?, ?)",
            (edition, _dumps(list(players)), _dumps(menu), _dumps(variants), imported),
        )
        game_id = cursor.lastrowid
        for number, (review, record) in enumerate(rounds, start=1):
            db.execute(
                "INSERT INTO round (game_id, number, review, record, confirmed)"
                " VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                (game_id, number, _dumps(review), _dumps(record)),
            )
    assert game_id is not None
    return game_id


def delete_game(db: sqlite3.Connection, game_id: int) -> list[str]:
    """Delete a game with its rounds and photos; returns the photo files to remove."""
    with transaction(db):
        filenames = [
            r["filename"]
            for r in db.execute("SELECT filename FROM photo WHERE game_id = ?", (game_id,))
        ]
        if db.execute("DELETE FROM game WHERE id = ?", (game_id,)).rowcount == 0:
            raise GameNotFound(game_id)
    return filenames


def set_seat_areas(
    db: sqlite3.Connection, game_id: int, areas: Sequence[Sequence[float]] | None
) -> None:
    with transaction(db):
        cursor = db.execute(
            "UPDATE game SET seat_areas = ? WHERE id = ?",
            (_dumps(None if areas is None else [list(a) for a in areas]), game_id),
        )
        if cursor.rowcount == 0:
            raise GameNotFound(game_id)


def check_round_number(game: Game, number: int) -> None:
    """A round can be played when the ones before it are confirmed."""
    if not 1 <= number <= ROUNDS_PER_GAME:
        raise RoundOrderError(number)
    played = len(game.confirmed_rounds)
    if number > played + 1:
        raise RoundOrderError(number, played + 1)


def _photo_from_row(row: sqlite3.Row) -> Photo:
    return Photo(
        id=row["id"],
        game_id=row["game_id"],
        round_number=row["round_number"],
        filename=row["filename"],
        seat=row["seat"],
        width=row["width"],
        height=row["height"],
        detection=_loads(row["detection"]),
    )


def photos_of_round(db: sqlite3.Connection, game_id: int, number: int) -> list[Photo]:
    rows = db.execute(
        "SELECT * FROM photo WHERE game_id = ? AND round_number = ? ORDER BY id",
        (game_id, number),
    ).fetchall()
    return [_photo_from_row(r) for r in rows]


def photo_filenames(db: sqlite3.Connection) -> set[str]:
    """The file of every photo any round refers to."""
    return {r["filename"] for r in db.execute("SELECT filename FROM photo")}


def get_photo(db: sqlite3.Connection, photo_id: int) -> Photo:
    row = db.execute("SELECT * FROM photo WHERE id = ?", (photo_id,)).fetchone()
    if row is None:
        raise PhotoNotFound(photo_id)
    return _photo_from_row(row)


@dataclass(frozen=True)
class NewPhoto:
    """A photo saved in the data folder, to be attached to a round."""

    filename: str
    seat: int | None
    width: int
    height: int
    detection: DetectJSON


def start_review(
    db: sqlite3.Connection,
    game_id: int,
    number: int,
    photos: Sequence[NewPhoto],
    review_for: Any,
    seats: Sequence[int] | None = None,
) -> list[str]:
    """Attach new photos to a round, replacing its earlier ones, and reset its review.

    ``seats``: replace only the photos of these players (a re-taken photo of one player keeps
    the others'); None replaces every photo. ``review_for(photos)`` builds the review from the
    round's stored photos (it needs their ids). A confirmed round keeps its record until the new
    review is confirmed. Returns the files of the replaced photos, to remove once committed.
    """
    which = "game_id = ? AND round_number = ?"
    params: tuple = (game_id, number)
    if seats is not None:
        which += f" AND seat IN ({', '.join('?' * len(seats))})"
        params += tuple(seats)
    with transaction(db):
        old = [r["filename"] for r in db.execute(f"SELECT filename FROM photo WHERE {which}", params)]
        db.execute(f"DELETE FROM photo WHERE {which}", params)
        for p in photos:
            db.execute(
                "INSERT INTO photo (game_id, round_number, filename, seat, width, height, detection)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, number, p.filename, p.seat, p.width, p.height, _dumps(p.detection)),
            )
        review = review_for(photos_of_round(db, game_id, number))
        db.execute(
            "INSERT INTO round (game_id, number, review) VALUES (?, ?, ?)"
            " ON CONFLICT (game_id, number) DO UPDATE SET review = excluded.review",
            (game_id, number, _dumps(review)),
        )
        _touch(db, game_id)
    return old


def check_fresh(
    db: sqlite3.Connection, game_id: int, number: int, version: str, review: dict[str, Any] | None = None
) -> None:
    """``StaleReview`` if the round's stored review is not the ``version`` an edit started from
    (an edit that ends as the stored review itself is not stale)."""
    row = db.execute(
        "SELECT review FROM round WHERE game_id = ? AND number = ?", (game_id, number)
    ).fetchone()
    current = _loads(row["review"]) if row is not None else None
    if current is not None and current != review and review_version(current) != version:
        raise StaleReview(current)


def confirm_round(
    db: sqlite3.Connection,
    game_id: int,
    number: int,
    review: dict[str, Any],
    record: dict[str, Any],
    version: str | None = None,
) -> None:
    """Store a reviewed round as confirmed, in one transaction.

    ``version``: the ``review_version`` of the stored review the edit was made from; if another
    edit has been stored since (and this one is not the same), ``StaleReview`` and nothing is
    written. The check runs under the write lock, so of two confirms racing one wins.
    """
    with transaction(db):
        if version is not None:
            check_fresh(db, game_id, number, version, review)
        db.execute(
            "INSERT INTO round (game_id, number, review, record, confirmed)"
            " VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))"
            " ON CONFLICT (game_id, number) DO UPDATE SET review = excluded.review,"
            " record = excluded.record, confirmed = excluded.confirmed",
            (game_id, number, _dumps(review), _dumps(record)),
        )
        _touch(db, game_id)


def _touch(db: sqlite3.Connection, game_id: int) -> None:
    db.execute(
        "UPDATE game SET updated = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?", (game_id,)
    )
