"""Reading uploaded photos safely, and keeping them in the data folder.

An upload is decoded by the recognition core's one decoder (``vision.photo``: by content, size
checked before decoding, upright) and stored re-encoded as JPEG under a generated name, outside
the static folder.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import numpy as np
from PIL import Image

from vision.photo import (
    CorruptPhotoError,
    EmptyPhotoError,
    Photo,
    PhotoError,
    PhotoTooLargeError,
    UnsupportedPhotoError,
    decode_photo,
)
from web.files import write_atomically
from web.training import remove_examples

__all__ = ["CorruptImageError", "ImageTooLargeError", "NoImageError", "UnsupportedImageError", "UploadError",
           "http_status", "read_image",
           "photos_dir", "remove_orphans", "remove_photos", "save_photo"]

# The app's names for the decoder's errors (vision.photo): the web answers each with its status.
UploadError = PhotoError
NoImageError = EmptyPhotoError
UnsupportedImageError = UnsupportedPhotoError
CorruptImageError = CorruptPhotoError
ImageTooLargeError = PhotoTooLargeError
_STATUS = ((UnsupportedPhotoError, 415), (PhotoTooLargeError, 413))


def http_status(exc: PhotoError) -> int:
    """The HTTP status an unreadable upload is answered with: 415 for a format we do not take,
    413 for too many pixels, else 400.

    >>> http_status(ImageTooLargeError("x")), http_status(NoImageError("x"))
    (413, 400)
    """
    return next((status for kind, status in _STATUS if isinstance(exc, kind)), 400)


def read_image(data: bytes, max_pixels: int, name: str = "image") -> Photo:
    """Uploaded bytes decoded into an upright BGR image (``vision.photo.decode_photo``).

    >>> read_image(b"GIF89a not really", 1000)
    Traceback (most recent call last):
    ...
    vision.photo.UnsupportedPhotoError: image: not a JPEG, PNG, WebP or HEIC image
    """
    return decode_photo(data, max_pixels, name)


def photos_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "photos"


def save_photo(image: Photo, data_dir: str | Path, quality: int = 92) -> str:
    """Store the photo as a JPEG under a fresh random name; returns that name."""
    folder = photos_dir(data_dir)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    filename = f"{secrets.token_hex(12)}.jpg"
    rgb = Image.fromarray(np.ascontiguousarray(image.pixels[:, :, ::-1]))
    # through a temporary file: never a half-written photo under the real name, and a full disk
    # leaves no part file behind
    write_atomically(folder / filename, lambda handle: rgb.save(handle, format="JPEG", quality=quality))
    return filename


def remove_photos(data_dir: str | Path, filenames: list[str]) -> None:
    """Remove photos with everything made from them: their training examples (image and labels)."""
    folder = photos_dir(data_dir)
    for name in filenames:
        (folder / name).unlink(missing_ok=True)
    remove_examples(data_dir, filenames)


ORPHAN_AGE_S = 60  # a photo another process is saving right now is younger than this


def remove_orphans(data_dir: str | Path, referenced: set[str], older_than: float = ORPHAN_AGE_S) -> list[str]:
    """Delete photo files no round refers to, and ``.part`` files a crash left; returns their names.

    A crash between saving a photo and committing its round (or while writing it) leaves such
    files behind. Only files older than ``older_than`` seconds are touched, so a photo another
    process is saving at this moment is safe; the ones the database names are never touched.
    """
    folder = photos_dir(data_dir)
    if not folder.is_dir():
        return []
    cutoff = time.time() - older_than
    removed = []
    for entry in os.scandir(folder):
        if entry.name in referenced or not entry.is_file(follow_symlinks=False):
            continue
        if not (entry.name.endswith(".part") or entry.name.endswith(".jpg")):
            continue  # not a name save_photo makes: someone else's file
        try:
            if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
                removed.append(entry.name)
        except FileNotFoundError:
            continue
    return removed
