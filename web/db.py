"""The SQLite connection of a request (flaskr style).

The database lives in the data folder (``DATA_DIR``) beside the uploaded photos. The schema is
created on first use, so ``sushicam serve --data NEW_DIR`` works without a setup step.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

import click
from flask import Flask, current_app, g


def database_path(app: Flask | None = None) -> Path:
    """Where the app keeps its SQLite file."""
    app = app or current_app
    return Path(app.config["DATA_DIR"]) / "sushicam.sqlite"


def connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; store.transaction() opens them explicitly,
    # so a confirmed round is written all at once or not at all.
    db = sqlite3.connect(path, isolation_level=None, timeout=15)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA foreign_keys = ON")
    return db


def get_db() -> sqlite3.Connection:
    """The request's connection, opened on first use."""
    if "db" not in g:
        g.db = connect(database_path())
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


class DatabaseUnusable(OSError):
    """The games database cannot be opened (a folder in its place, a damaged file): the CLI says
    so in one line (exit 2) instead of starting a server whose every page would fail."""


def init_db(app: Flask | None = None) -> None:
    """Create the tables that do not exist yet (idempotent); the file is readable by us only."""
    app = app or current_app
    path = database_path(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        raise DatabaseUnusable(f"{path} is a folder, not a games database: move it away")
    if not path.exists():
        # created empty first, so SQLite's own files (-wal, -shm) take its mode
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for own in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(OSError):  # one made by an older version: players' names are private
            own.chmod(0o600)
    try:
        db = connect(path)
        try:
            # WAL: readers never wait for the writer confirming a round.
            db.execute("PRAGMA journal_mode = WAL")
            with app.open_resource("schema.sql", "r", encoding="utf-8") as schema:
                db.executescript(schema.read())
            columns = {row["name"] for row in db.execute("PRAGMA table_info(game)")}
            if "imported" not in columns:  # a data folder from before imported games were marked
                db.execute("ALTER TABLE game ADD COLUMN imported TEXT")
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        name = getattr(exc, "sqlite_errorname", "") or ""
        if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
            raise DatabaseUnusable(
                f"{path} is not a games database or is damaged ({exc}): move it away or restore a backup"
            ) from None
        raise DatabaseUnusable(f"{path}: the games database cannot be opened ({exc})") from None


@click.command("init-db")
def init_db_command() -> None:
    """Create the database tables in the data folder."""
    init_db()
    click.echo(f"Initialised {database_path()}.")


def hold_open(app: Flask) -> None:
    """Keep one connection open while the app runs, so SQLite keeps its -wal and -shm files.

    When the last connection closes SQLite deletes them, and the next request has to create
    them again: on a full disk it cannot, and even reading a game would fail ("disk I/O
    error"). With them kept, the pages still show what is saved while the disk is full.
    """
    keeper = sqlite3.connect(database_path(app), isolation_level=None, check_same_thread=False)
    keeper.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the -wal and -shm
    app.extensions["sushicam.db_keeper"] = keeper


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
    init_db(app)
    hold_open(app)
