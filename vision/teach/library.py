"""The taught-face library: the faces a player taught, kept in the data folder."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.faces import FACE_SIZE, FaceSet
from vision.teach.find import CardBoxes, FoundFace, TeachError, check_slug, read_face

FACES_DIR = "faces"
_SLUG_FILE = re.compile(r"^(?P<slug>[a-z0-9-]+)__(?P<number>\d+)$")


class FaceNotFoundError(TeachError, LookupError):
    """No taught face of that name in the library."""



# --- the library --------------------------------------------------------------------------


@dataclass(frozen=True)
class TaughtFace:
    """One face in the library: ``<slug>__<number>.jpg`` and what is known of its making."""

    slug: str
    number: int
    source: str = ""  # the photo's file name, as the player gave it
    sharpness: float = 0.0
    quad: str = ""  # Quad text, in the source photo's pixels
    finder: str = ""
    taught: str = ""  # UTC time, ISO 8601

    @property
    def name(self) -> str:
        return f"{self.slug}__{self.number}"

    @property
    def filename(self) -> str:
        return f"{self.name}.jpg"

    @classmethod
    def parse_name(cls, name: str) -> tuple[str, int]:
        """``(slug, number)`` of a face name ``<slug>__<n>``.

        >>> TaughtFace.parse_name("bubble-tea-3__2")
        ('bubble-tea-3', 2)
        """
        match = _SLUG_FILE.match(name)
        if not match:
            raise FaceNotFoundError(f"{name!r} is not a taught face name (<card>__<number>)")
        return match["slug"], int(match["number"])

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> TaughtFace:
        data = json.loads(text)
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def _write_atomic(path: Path, data: bytes) -> None:
    partial = path.with_name(f".{path.name}.part")
    partial.write_bytes(data)
    os.replace(partial, path)


class FaceLibrary:
    """The faces a player taught, under ``<data>/faces``."""

    def __init__(self, data_dir: str | Path):
        self.root = Path(data_dir) / FACES_DIR

    def faces(self) -> list[TaughtFace]:
        """Every taught face whose image and sidecar are both there, by slug then number."""
        if not self.root.is_dir():
            return []
        found = []
        for meta in self.root.glob("*__*.json"):
            try:
                face = TaughtFace.from_json(meta.read_text(encoding="utf-8"))
            except (ValueError, TypeError, KeyError):
                continue  # a sidecar being written, or damaged: not a face
            if (self.root / face.filename).exists():
                found.append(face)
        return sorted(found, key=lambda f: (f.slug, f.number))

    def counts(self) -> dict[str, int]:
        """Taught faces per slug."""
        counts: dict[str, int] = {}
        for face in self.faces():
            counts[face.slug] = counts.get(face.slug, 0) + 1
        return counts

    def slugs(self) -> tuple[str, ...]:
        return tuple(sorted(self.counts()))

    def image(self, name: str) -> np.ndarray:
        slug, number = TaughtFace.parse_name(name)
        path = self.root / f"{slug}__{number}.jpg"
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise FaceNotFoundError(f"no taught face {name!r} in {self.root}")
        return image

    def image_path(self, name: str) -> Path:
        slug, number = TaughtFace.parse_name(name)
        path = self.root / f"{slug}__{number}.jpg"
        if not path.exists():
            raise FaceNotFoundError(f"no taught face {name!r} in {self.root}")
        return path

    def add(self, slug: str, found: FoundFace, source: str = "") -> TaughtFace:
        """Store a flat face under the next free number for ``slug``."""
        check_slug(slug)
        self.root.mkdir(parents=True, exist_ok=True)
        numbers = [int(m["number"]) for p in self.root.glob(f"{slug}__*.json")
                   if (m := _SLUG_FILE.match(p.stem)) and m["slug"] == slug]
        number = max(numbers, default=0) + 1
        while True:  # claim the number first: two uploads at once never share one
            try:
                fd = os.open(self.root / f"{slug}__{number}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
                os.close(fd)
                break
            except FileExistsError:
                number += 1
        face = TaughtFace(slug, number, Path(source).name, round(found.sharpness, 1), str(found.quad),
                          found.finder, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        ok, encoded = cv2.imencode(".jpg", found.face, [cv2.IMWRITE_JPEG_QUALITY, 95])
        if not ok:
            raise TeachError("could not encode the face as JPEG", fault="not-saved")
        _write_atomic(self.root / face.filename, encoded.tobytes())
        _write_atomic(self.root / f"{face.name}.json", face.to_json().encode("utf-8"))
        return face

    def remove(self, name: str) -> None:
        slug, number = TaughtFace.parse_name(name)
        stem = self.root / f"{slug}__{number}"
        if not stem.with_suffix(".json").exists():
            raise FaceNotFoundError(f"no taught face {name!r} in {self.root}")
        stem.with_suffix(".jpg").unlink(missing_ok=True)
        stem.with_suffix(".json").unlink(missing_ok=True)

    def turn(self, name: str) -> None:
        """Turn a face half a turn (the upright guess was wrong)."""
        path = self.image_path(name)
        ok, encoded = cv2.imencode(".jpg", cv2.rotate(self.image(name), cv2.ROTATE_180),
                                   [cv2.IMWRITE_JPEG_QUALITY, 95])
        if ok:
            _write_atomic(path, encoded.tobytes())

    def face_set(self, slugs: Sequence[str] | None = None) -> FaceSet:
        """The taught faces as a :class:`FaceSet` (several variants per slug where taught)."""
        faces: dict[str, list[np.ndarray]] = {}
        for face in self.faces():
            if slugs is not None and face.slug not in slugs:
                continue
            image = cv2.imread(str(self.root / face.filename), cv2.IMREAD_COLOR)
            if image is not None:
                faces.setdefault(face.slug, []).append(cv2.resize(image, FACE_SIZE, interpolation=cv2.INTER_AREA))
        return FaceSet("taught", {slug: tuple(images) for slug, images in faces.items()})


#: Faces kept from one batch of photos of a card: the sharpest, when more are sent (a few
#: views already teach a card; dozens of near-copies would only crowd the composed photos).
MAX_FACES_PER_BATCH = 10


@dataclass(frozen=True)
class Taught:
    """What one batch of photos taught: the faces kept, and each photo left out with why."""

    faces: list[TaughtFace]
    refused: list[tuple[str, TeachError]]  # (photo name, why it was left out)


def teach(library: FaceLibrary, slug: str, photos: Sequence[tuple[str, np.ndarray]],
          boxes: CardBoxes | None = None, keep: int = MAX_FACES_PER_BATCH) -> Taught:
    """Read one face from each ``(name, image)`` photo and add the good ones to the library.

    A photo with no card, several cards or a blurry card is refused alone (its reason is in
    :attr:`Taught.refused`); the rest are kept, the ``keep`` sharpest when more were read.
    Only when no photo gives a face is the :class:`TeachError` raised (naming each photo).
    """
    check_slug(slug)
    if not photos:
        raise TeachError("no photo given: take 1 to 3 photos of the card", fault="no-photo")
    found: list[tuple[str, FoundFace]] = []
    errors: list[tuple[str, TeachError]] = []
    for name, image in photos:
        try:
            found.append((name, read_face(image, boxes)))
        except TeachError as exc:
            errors.append((name, exc))
    refused = list(errors)
    if not found:
        first = errors[0][1] if len({type(e) for _, e in errors}) == 1 else None
        raise (type(first) if first else TeachError)("; ".join(f"{name}: {why}" for name, why in refused),
                                                   fault=first.fault if first else "no-face", photos=tuple(errors))
    ranked = sorted(range(len(found)), key=lambda i: -found[i][1].sharpness)
    kept = sorted(ranked[:keep])  # in the order given: faces are numbered as the photos came
    refused += [(found[i][0], TeachError(f"not kept: the {keep} sharpest photos of this batch are enough",
                                         fault="not-kept", kept=keep)) for i in sorted(ranked[keep:])]
    return Taught([library.add(slug, found[i][1], source=found[i][0]) for i in kept], refused)
