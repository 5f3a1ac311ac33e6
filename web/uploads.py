"""Reading uploaded photos safely, and keeping them in the data folder.

An upload is trusted by nothing but its content: the bytes are sniffed by Pillow (not by the file
name or the browser's content type), the pixel count is checked from the header before anything
is decoded (a 50 KB PNG can claim 100 000 x 100 000 pixels), and the photo is stored re-encoded as
JPEG under a generated name, upright (the phone's EXIF orientation applied), outside the static
folder.
"""

from __future__ import annotations

import io
import math
import os
import secrets
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps

# The formats phones and browsers produce; others (TIFF, PSD, ICO...) widen the attack surface of
# the decoders for no gain.
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP")
MIN_SIDE = 32
# Photos larger than this are shrunk while decoding: 16 MP keeps a 4608x3456 phone photo whole,
# far more than the recogniser needs, while a 48 MP one would cost ~600 MB in copies at full size.
WORKING_PIXELS = 16_000_000
EXIF_ORIENTATION = 0x0112


class UploadError(ValueError):
    """An upload that is not a photo we can read (HTTP 400)."""

    status = 400


class NoImageError(UploadError):
    """The form had no file in the expected field, or an empty one."""


class UnsupportedImageError(UploadError):
    """The bytes are not a JPEG, PNG or WebP image (HTTP 415)."""

    status = 415


class CorruptImageError(UploadError):
    """The file claims a supported format but cannot be decoded."""


class ImageTooLargeError(UploadError):
    """More pixels than the configured limit: refused before decoding (HTTP 413)."""

    status = 413


@dataclass(frozen=True)
class UploadedImage:
    """A decoded photo: BGR pixels as OpenCV wants them, and the format it came in."""

    pixels: np.ndarray
    format: str

    @property
    def width(self) -> int:
        return int(self.pixels.shape[1])

    @property
    def height(self) -> int:
        return int(self.pixels.shape[0])


def read_image(data: bytes, max_pixels: int, name: str = "image") -> UploadedImage:
    """Decode uploaded bytes into an upright BGR image, refusing what is not a sane photo.

    >>> read_image(b"", 1000)
    Traceback (most recent call last):
    ...
    web.uploads.NoImageError: image: the file is empty
    >>> read_image(b"GIF89a not really", 1000)
    Traceback (most recent call last):
    ...
    web.uploads.UnsupportedImageError: image: not a JPEG, PNG or WebP image
    """
    if not data:
        raise NoImageError(f"{name}: the file is empty")
    try:
        with warnings.catch_warnings():
            # Pillow only warns between its limit and twice it; make that an error too.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageTooLargeError(f"{name}: too many pixels to decode safely") from exc
    except (OSError, ValueError, SyntaxError) as exc:  # Pillow's "cannot identify image file"
        raise UnsupportedImageError(f"{name}: not a JPEG, PNG or WebP image") from exc
    if image.format not in ACCEPTED_FORMATS:
        raise UnsupportedImageError(
            f"{name}: {image.format or 'unknown'} images are not accepted; use JPEG, PNG or WebP"
        )
    width, height = image.size
    if width * height > max_pixels:
        raise ImageTooLargeError(
            f"{name}: {width}x{height} is more than {max_pixels // 1_000_000} megapixels"
        )
    if min(width, height) < MIN_SIDE:
        raise CorruptImageError(f"{name}: {width}x{height} is too small to show any card")
    source_format = image.format
    factor = math.ceil(math.sqrt(width * height / WORKING_PIXELS))
    if factor > 1 and source_format != "JPEG":
        return UploadedImage(_decode_reduced(data, factor, name, source_format), source_format)
    try:
        if factor > 1:  # libjpeg decodes at 1/2, 1/4 or 1/8 scale: the photo is never whole in memory
            image.draft("RGB", (width // factor, height // factor))
        image.load()
        if image.getexif().get(EXIF_ORIENTATION, 1) != 1:
            image = ImageOps.exif_transpose(image)
        if image.mode != "RGB":
            image = image.convert("RGB")
        rgb = np.asarray(image)
    except (OSError, ValueError, SyntaxError) as exc:
        raise CorruptImageError(f"{name}: the {source_format} data is damaged ({exc})") from exc
    del image
    return UploadedImage(pixels=np.ascontiguousarray(rgb[:, :, ::-1]), format=source_format)


REDUCED_FLAGS = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


def _decode_reduced(data: bytes, factor: int, name: str, source_format: str) -> np.ndarray:
    """A large PNG or WebP decoded straight to BGR at 1/2, 1/4 or 1/8 size by OpenCV.

    Pillow holds a PNG as 4 bytes a pixel and copies it for every step (RGB, rotation, BGR): a
    48 MP one cost 650 MB. OpenCV decodes it once, 3 bytes a pixel, shrinks it and lets go.
    """
    scale = next((s for s in sorted(REDUCED_FLAGS) if s >= factor), max(REDUCED_FLAGS))
    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), REDUCED_FLAGS[scale])
    if pixels is None:
        raise CorruptImageError(f"{name}: the {source_format} data is damaged")
    return pixels


def photos_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "photos"


def save_photo(image: UploadedImage, data_dir: str | Path, quality: int = 92) -> str:
    """Store the photo as a JPEG under a fresh random name; returns that name."""
    folder = photos_dir(data_dir)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    filename = f"{secrets.token_hex(12)}.jpg"
    rgb = Image.fromarray(np.ascontiguousarray(image.pixels[:, :, ::-1]))
    partial = folder / f".{filename}.part"
    # readable by us only: photos of a family's table are private
    try:
        with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
            rgb.save(handle, format="JPEG", quality=quality)
        partial.replace(folder / filename)  # never a half-written photo under the real name
    except BaseException:
        partial.unlink(missing_ok=True)  # a full disk leaves no half photo behind
        raise
    return filename


def remove_photos(data_dir: str | Path, filenames: list[str]) -> None:
    folder = photos_dir(data_dir)
    for name in filenames:
        (folder / name).unlink(missing_ok=True)


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
