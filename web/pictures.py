"""A picture of each kind of card, from the players' own photos: for the review page's picker.

The app ships no card art. What it has of the cards is what the players gave it: the faces they
taught (``<data>/faces``, flat and upright) and the photos of rounds they confirmed, where every
box carries the name a person checked. One picture per card is served: a taught face if there is
one, else the crop of the largest confirmed box of that card (the least covered one).
"""

from __future__ import annotations

import io
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, abort, current_app, send_file, url_for
from PIL import Image, UnidentifiedImageError

from scorer.cards import CARDS
from web.db import get_db
from web.uploads import photos_dir

bp = Blueprint("pictures", __name__)

PICTURE_HEIGHT = 160  # pixels: the picker shows them at 40-60 CSS pixels, 2-3x on a phone


@dataclass(frozen=True)
class Source:
    """Where a card's picture comes from: an image file, and the box to cut from it (or None)."""

    path: Path
    box: tuple[float, float, float, float] | None


def _taught(data_dir: Path) -> dict[str, Source]:
    from vision.teach.library import FaceLibrary  # the teaching extra is imported only when used

    found: dict[str, Source] = {}
    library = FaceLibrary(data_dir)
    for face in library.faces():  # by slug then number: the first taught face of each card
        found.setdefault(face.slug, Source(library.root / face.filename, None))
    return found


def _confirmed(db: sqlite3.Connection, data_dir: Path) -> dict[str, Source]:
    folder = photos_dir(data_dir)
    files = {row["id"]: row["filename"] for row in db.execute("SELECT id, filename FROM photo")
             if (folder / row["filename"]).is_file()}  # a photo file gone from disk gives no picture
    best: dict[str, tuple[float, Source]] = {}
    rows = db.execute("SELECT review FROM round WHERE record IS NOT NULL ORDER BY confirmed DESC")
    for row in rows:
        try:
            cards = json.loads(row["review"]).get("cards", [])
        except (ValueError, AttributeError):
            continue
        for card in cards:
            box, photo = card.get("box"), card.get("photo")
            if not box or photo not in files or card.get("label") not in CARDS:
                continue
            x1, y1, x2, y2 = (float(v) for v in box)
            area = (x2 - x1) * (y2 - y1)
            if area > best.get(card["label"], (0.0, None))[0]:
                best[card["label"]] = (area, Source(folder / files[photo], (x1, y1, x2, y2)))
    return {slug: source for slug, (_, source) in best.items()}


def sources(db: sqlite3.Connection, data_dir: str | Path) -> dict[str, Source]:
    """The picture of each card that has one: a taught face first, else a confirmed crop."""
    data_dir = Path(data_dir)
    return {**_confirmed(db, data_dir), **_taught(data_dir)}


def picture_urls() -> dict[str, str]:
    """slug -> URL of its picture, for the cards that have one (the review page's state)."""
    return {slug: url_for("pictures.card_picture", slug=slug)
            for slug in sorted(sources(get_db(), current_app.config["DATA_DIR"]))}


def render(source: Source) -> bytes:
    """The picture as a JPEG, ``PICTURE_HEIGHT`` pixels tall at most."""
    with Image.open(source.path) as image:
        picture = image.convert("RGB")
    if source.box is not None:
        x1, y1, x2, y2 = source.box
        picture = picture.crop((max(0, int(x1)), max(0, int(y1)),
                                min(picture.width, int(round(x2))), min(picture.height, int(round(y2)))))
    if picture.height > PICTURE_HEIGHT:
        picture = picture.resize((max(1, round(picture.width * PICTURE_HEIGHT / picture.height)), PICTURE_HEIGHT),
                                 Image.Resampling.LANCZOS)
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=85)
    return out.getvalue()


@bp.get("/cards/<slug>/picture.jpg")
def card_picture(slug: str):
    """One picture of a card from the players' photos; 404 while they have none."""
    if slug not in CARDS:
        abort(404, f"there is no card {slug!r}")
    source = sources(get_db(), current_app.config["DATA_DIR"]).get(slug)
    if source is None:
        abort(404, f"no photo of {CARDS[slug].name} yet: confirm a round with one, or teach it")
    try:
        data = render(source)
    except (OSError, UnidentifiedImageError, ValueError):
        abort(404, f"the photo of {CARDS[slug].name} cannot be read")
    return send_file(io.BytesIO(data), mimetype="image/jpeg", max_age=0)
