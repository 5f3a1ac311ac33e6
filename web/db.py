"""The SQLite connection of a request (flaskr style).

The database lives in the data folder (``DATA_DIR``) beside the uploaded photos. The schema is
created on first use, so ``sushicam serve --data NEW_DIR`` works without a setup step.
"""

from __future__ import annotations

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


def init_db(app: Flask | None = None) -> None:
    """Create the tables that do not exist yet (idempotent)."""
    app = app or current_app
    path = database_path(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = connect(path)
    try:
        # WAL: readers never wait for the writer confirming a round.
        db.execute("PRAGMA journal_mode = WAL")
        with app.open_resource("schema.sql", "r", encoding="utf-8") as schema:
            db.executescript(schema.read())
    finally:
        db.close()


@click.command("init-db")
def init_db_command() -> None:
    """Create the database tables in the data folder."""
    init_db()
    click.echo(f"Initialised {database_path()}.")


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
    init_db(app)
