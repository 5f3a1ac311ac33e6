"""Decoding a photo's bytes safely: the one decoder of ``sushicam detect``, the app's uploads
and the live page's frames.

A photo is trusted by nothing but its content: the bytes are sniffed by Pillow (not by a file
name or a browser's content type), the pixel count is checked from the header before anything
is decoded (a 50 KB PNG can claim 100 000 x 100 000 pixels), the phone's EXIF orientation is
applied so the photo is upright, and a photo larger than the recogniser needs is shrunk while
it is decoded.

>>> decode_photo(b"", 1000)
Traceback (most recent call last):
...
vision.photo.EmptyPhotoError: image: the file is empty
>>> decode_photo(b"GIF89a not really", 1000)
Traceback (most recent call last):
...
vision.photo.UnsupportedPhotoError: image: not a JPEG, PNG or WebP image
"""

from __future__ import annotations

import io
import math
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageOps

#: The formats phones and browsers produce; others (TIFF, PSD, ICO...) widen the attack surface
#: of the decoders for no gain.
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP")
MIN_SIDE = 32
#: The most pixels a photo may have (a 50 MP phone camera is 8160x6120); the app's default too.
MAX_PHOTO_PIXELS = 50_000_000
#: Photos larger than this are shrunk while decoding: 16 MP keeps a 4608x3456 phone photo whole,
#: far more than the recogniser needs, while a 48 MP one would cost ~600 MB in copies at full size.
WORKING_PIXELS = 16_000_000
EXIF_ORIENTATION = 0x0112


class PhotoError(ValueError):
    """Bytes that are not a photo we can read."""


class EmptyPhotoError(PhotoError):
    """No bytes at all (or, in the app, no file in the form)."""


class UnsupportedPhotoError(PhotoError):
    """The bytes are not a JPEG, PNG or WebP image."""


class CorruptPhotoError(PhotoError):
    """The bytes claim a supported format but cannot be decoded, or show too few pixels."""


class PhotoTooLargeError(PhotoError):
    """More pixels than the limit: refused before decoding."""


@dataclass(frozen=True)
class Photo:
    """A decoded photo: BGR pixels as OpenCV wants them, and the format it came in."""

    pixels: np.ndarray
    format: str

    @property
    def width(self) -> int:
        return int(self.pixels.shape[1])

    @property
    def height(self) -> int:
        return int(self.pixels.shape[0])


def decode_photo(data: bytes, max_pixels: int = MAX_PHOTO_PIXELS, name: str = "image",
                 formats: tuple[str, ...] = ACCEPTED_FORMATS,
                 working_pixels: int = WORKING_PIXELS) -> Photo:
    """``data`` decoded into an upright BGR image, or a ``PhotoError`` naming the problem in
    ``name``'s words: empty, not one of ``formats``, more than ``max_pixels``, damaged."""
    if not data:
        raise EmptyPhotoError(f"{name}: the file is empty")
    try:
        with warnings.catch_warnings():
            # the header's size is checked against max_pixels below; Pillow only refuses
            # past twice its own limit (179 MP)
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise PhotoTooLargeError(
            f"{name}: its size is more than {max_pixels // 1_000_000} megapixels; not decoded") from exc
    except (OSError, ValueError, SyntaxError) as exc:  # Pillow's "cannot identify image file"
        claimed = _claimed_format(data)
        if claimed in formats:  # the right signature, then nothing Pillow can read
            raise CorruptPhotoError(f"{name}: the {claimed} data is damaged and could not be decoded") from exc
        raise UnsupportedPhotoError(f"{name}: not a {_listed(formats)} image") from exc
    if image.format not in formats:
        raise UnsupportedPhotoError(
            f"{name}: {image.format or 'unknown'} images are not accepted; use {_listed(formats)}"
        )
    width, height = image.size
    if width * height > max_pixels:
        raise PhotoTooLargeError(
            f"{name}: {width}x{height} is more than {max_pixels // 1_000_000} megapixels; not decoded"
        )
    if min(width, height) < MIN_SIDE:
        raise CorruptPhotoError(f"{name}: {width}x{height} is too small to show any card")
    source_format = image.format
    factor = math.ceil(math.sqrt(width * height / working_pixels))
    if source_format == "JPEG" or factor > 1:
        # OpenCV decodes once, straight to BGR, applying the EXIF turn (four times faster than
        # Pillow's decode and copies for a live frame); a large photo at 1/2, 1/4 or 1/8 size,
        # so it is never whole in memory (a 48 MP PNG cost 650 MB through Pillow)
        return Photo(_decode_with_opencv(data, factor, name, source_format), source_format)
    try:
        image.load()
        if image.getexif().get(EXIF_ORIENTATION, 1) != 1:
            image = ImageOps.exif_transpose(image)
        if image.mode != "RGB":
            image = image.convert("RGB")
        rgb = np.asarray(image)
    except (OSError, ValueError, SyntaxError) as exc:
        raise CorruptPhotoError(f"{name}: the {source_format} data is damaged ({exc})") from exc
    del image
    return Photo(pixels=np.ascontiguousarray(rgb[:, :, ::-1]), format=source_format)


def _claimed_format(data: bytes) -> str | None:
    """The format ``data``'s first bytes claim (its signature), whether or not the rest is.

    >>> _claimed_format(b"\\xff\\xd8\\xff\\xe0broken"), _claimed_format(b"GIF89a")
    ('JPEG', None)
    """
    if data.startswith(b"\xff\xd8"):
        return "JPEG"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def _listed(formats: tuple[str, ...]) -> str:
    """The formats as a player reads them.

    >>> _listed(("JPEG", "PNG", "WEBP"))
    'JPEG, PNG or WebP'
    """
    shown = [{"WEBP": "WebP"}.get(f, f) for f in formats]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


REDUCED_FLAGS = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
                 8: cv2.IMREAD_REDUCED_COLOR_8}


def _decode_with_opencv(data: bytes, factor: int, name: str, source_format: str) -> np.ndarray:
    """``data`` decoded to BGR by OpenCV at the first of 1, 1/2, 1/4 or 1/8 size that brings it
    to ``1 / factor`` or below."""
    scale = next((s for s in sorted(REDUCED_FLAGS) if s >= factor), max(REDUCED_FLAGS))
    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), REDUCED_FLAGS[scale])
    if pixels is None:
        raise CorruptPhotoError(f"{name}: the {source_format} data is damaged")
    return pixels
