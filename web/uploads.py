"""Reading uploaded photos safely, and keeping them in the data folder.

An upload is trusted by nothing but its content: the bytes are sniffed by Pillow (not by the file
name or the browser's content type), the pixel count is checked from the header before anything
is decoded (a 50 KB PNG can claim 100 000 x 100 000 pixels), and the photo is stored re-encoded as
JPEG under a generated name, upright (the phone's EXIF orientation applied), outside the static
folder.
"""

from __future__ import annotations

import io
import secrets
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

# The formats phones and browsers produce; others (TIFF, PSD, ICO...) widen the attack surface of
# the decoders for no gain.
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP")
MIN_SIDE = 32


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
            image = Image.open(io.BytesIO(data))
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
    try:
        image.load()
        upright = ImageOps.exif_transpose(image).convert("RGB")
    except (OSError, ValueError, SyntaxError) as exc:
        raise CorruptImageError(f"{name}: the {image.format} data is damaged ({exc})") from exc
    rgb = np.asarray(upright)
    return UploadedImage(pixels=np.ascontiguousarray(rgb[:, :, ::-1]), format=image.format)


def photos_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "photos"


def save_photo(image: UploadedImage, data_dir: str | Path, quality: int = 92) -> str:
    """Store the photo as a JPEG under a fresh random name; returns that name."""
    folder = photos_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    filename = f"{secrets.token_hex(12)}.jpg"
    rgb = Image.fromarray(np.ascontiguousarray(image.pixels[:, :, ::-1]))
    partial = folder / f".{filename}.part"
    rgb.save(partial, format="JPEG", quality=quality)
    partial.replace(folder / filename)  # never a half-written photo under the real name
    return filename


def remove_photos(data_dir: str | Path, filenames: list[str]) -> None:
    folder = photos_dir(data_dir)
    for name in filenames:
        (folder / name).unlink(missing_ok=True)
