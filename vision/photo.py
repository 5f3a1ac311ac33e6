"""Decoding a photo's bytes safely: the one decoder of ``sushicam detect``, the app's uploads
and the live page's frames.

A photo is trusted by nothing but its content: the bytes are sniffed by Pillow (not by a file
name or a browser's content type), the pixel count is checked from the header before anything
is decoded (a 50 KB PNG can claim 100 000 x 100 000 pixels), the phone's EXIF orientation is
applied so the photo is upright, and a photo larger than the recogniser needs is shrunk while
it is decoded.

What phones send is read: JPEG (and MPO, the JPEG with a second image in its MPF segment that
many phone cameras write: its first image), PNG (16-bit too), WebP and HEIC/HEIF (the
iPhone's default, through pillow-heif). Every photo larger than the recogniser needs is read
at a reduced size, so one upload stays under 200 MB of memory whatever its pixel count, up to
:data:`MAX_PHOTO_PIXELS`:

- a JPEG is decoded at 1/2, 1/4 or 1/8 scale straight from its DCT (libjpeg's scaled decode),
  so a 200 MP phone photo costs what a 12 MP one does. A progressive JPEG is decoded the same
  way, but libjpeg holds every DCT coefficient of it (2 bytes a sample) until its last scan,
  so it is read up to :data:`MAX_COEFFICIENT_BYTES` of those (50 MP in 4:2:0);
- a PNG or WebP is streamed through libvips (pyvips), which shrinks it a few rows at a time
  (a 100 MP PNG costs about 90 MB), except an interlaced PNG, whose passes need the whole
  image: that, and every PNG or WebP when pyvips is missing, is decoded whole up to
  :data:`MAX_WHOLE_PIXELS`;
- a HEIC made of a grid of tiles (as phone cameras write it) is decoded a row of tiles at a
  time through libheif's tile API and shrunk as it comes (a 48 MP one costs about 105 MB);
  one not tiled is decoded whole by libheif, which holds its YCbCr planes beside the RGB it
  makes of them, up to :data:`MAX_HEIF_PIXELS`.

>>> decode_photo(b"", 1000)
Traceback (most recent call last):
...
vision.photo.EmptyPhotoError: image: the file is empty
>>> decode_photo(b"GIF89a not really", 1000)
Traceback (most recent call last):
...
vision.photo.UnsupportedPhotoError: image: not a JPEG, PNG, WebP or HEIC image
"""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import pillow_heif
from PIL import Image, ImageOps

try:  # libvips streams a large PNG or WebP through its shrink; without it they are read whole
    import pyvips
except (ImportError, OSError):  # no wheel for this platform, or libvips itself missing
    pyvips = None

#: The formats phones and browsers produce; others (TIFF, PSD, ICO...) widen the attack surface
#: of the decoders for no gain. An MPO is taken as the JPEG it starts with.
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP", "HEIF")
MIN_SIDE = 32
#: The most pixels a photo may have: only a decompression bomb has more (a 200 MP phone
#: camera is 16320x12240). A JPEG this large is decoded at 1/8 scale: 16 MP, about 50 MB.
MAX_PHOTO_PIXELS = 1_000_000_000
#: The most pixels of a photo decoded whole (an interlaced PNG; a PNG or WebP when pyvips is
#: missing): 3 bytes a pixel while decoded, 150 MB here, with the upload and the shrunk copy
#: under 200 MB. 8160x6120 (a 50 MP phone camera) fits.
MAX_WHOLE_PIXELS = 50_000_000
#: The same for a HEIC decoded whole (one not tiled, or one tile of it): libheif holds its
#: YCbCr planes beside the RGB it makes of them (about 4.5 bytes a pixel at the peak: a 48 MP
#: HEIC measured +210 MB). The libvips of pyvips-binary has no HEVC decoder to stream it.
MAX_HEIF_PIXELS = 40_000_000
#: The most DCT coefficients (2 bytes each, one a sample of each colour plane) a progressive
#: JPEG may hold while decoded: 150 MB, 50 MP in 4:2:0 (1.5 samples a pixel), 25 MP in 4:4:4.
MAX_COEFFICIENT_BYTES = 150_000_000
#: Photos larger than this are shrunk while decoding: 16 MP keeps a 4608x3456 phone photo whole,
#: far more than the recogniser needs, while a 48 MP one would cost ~600 MB in copies at full size.
WORKING_PIXELS = 16_000_000
EXIF_ORIENTATION = 0x0112

pillow_heif.register_heif_opener()
if pyvips is not None:
    # the operation cache would keep the last uploads' images (and their pixels) alive
    pyvips.cache_set_max(0)
# Pillow refuses past twice this (and warns past it) on open, before decode_photo can read the
# size from the header and refuse itself; a JPEG up to MAX_PHOTO_PIXELS is read scaled down.
Image.MAX_IMAGE_PIXELS = max(Image.MAX_IMAGE_PIXELS or 0, MAX_PHOTO_PIXELS // 2)


#: what is wrong with a photo, for the app to word (the message is the command line's English):
#: no bytes; no file at all (the app's form: its message is already in the player's words); bytes of no image format; an image format not accepted; damaged data; too few
#: pixels to show a card; more pixels than any photo has; more than a progressive JPEG, or a
#: photo decoded whole, is read at
PhotoFault = Literal["empty", "no-file", "not-an-image", "not-accepted", "damaged", "too-small", "too-many-pixels",
                     "progressive-too-large", "whole-too-large"]


class PhotoError(ValueError):
    """Bytes that are not a photo we can read: the message, and the fault with its facts (the
    photo's ``size`` in pixels, the ``limit`` it passed in megapixels, the ``found`` format and
    the ``accepted`` ones)."""

    fault: PhotoFault = "damaged"

    def __init__(self, message: str, *, fault: PhotoFault | None = None, size: tuple[int, int] | None = None,
                 limit: int | None = None, found: str | None = None,
                 accepted: tuple[str, ...] = ACCEPTED_FORMATS) -> None:
        super().__init__(message)
        if fault is not None:
            self.fault = fault
        self.size, self.limit, self.found, self.accepted = size, limit, found, accepted


class EmptyPhotoError(PhotoError):
    """No bytes at all (or, in the app, no file in the form)."""

    fault: PhotoFault = "empty"


class UnsupportedPhotoError(PhotoError):
    """The bytes are not a JPEG, PNG, WebP or HEIC image."""

    fault: PhotoFault = "not-an-image"


class CorruptPhotoError(PhotoError):
    """The bytes claim a supported format but cannot be decoded, or show too few pixels."""


class PhotoTooLargeError(PhotoError):
    """More pixels than the limit: refused before decoding."""

    fault: PhotoFault = "too-many-pixels"


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
                 working_pixels: int = WORKING_PIXELS, whole_pixels: int = MAX_WHOLE_PIXELS) -> Photo:
    """``data`` decoded into an upright BGR image of at most about ``working_pixels``, or a
    ``PhotoError`` naming the problem in ``name``'s words: empty, not one of ``formats``, more
    than ``max_pixels`` (or ``whole_pixels`` for a photo only decoded whole), damaged."""
    if not data:
        raise EmptyPhotoError(f"{name}: the file is empty")
    image = _open_header(data, max_pixels, name, formats)
    source_format = _source_format(image, name, formats)
    width, height = image.size
    _check_pixel_count((width, height), max_pixels, name, source_format, formats)
    factor = math.ceil(math.sqrt(width * height / working_pixels))
    _check_progressive(image, name, source_format, formats)
    streamed = _is_streamed(image, data, source_format, factor)
    _check_whole_pixels(image, streamed, whole_pixels, name, source_format, formats)
    if source_format == "HEIF":
        del image
        return Photo(_decode_heif(data, factor, name), source_format)
    if streamed:
        del image
        return Photo(_decode_with_vips(data, factor, name, source_format, (width, height)), source_format)
    if source_format == "JPEG" or factor > 1:
        # OpenCV decodes once, straight to BGR, applying the EXIF turn (four times faster than
        # Pillow's decode and copies for a live frame; 16-bit PNGs to 8 bits); a JPEG at 1/2,
        # 1/4 or 1/8 size from its DCT, so it is never whole in memory; a large PNG or WebP
        # (without pyvips) whole at 3 bytes a pixel (Pillow's RGB takes 4), then shrunk
        del image
        return Photo(_decode_with_opencv(data, factor, name, source_format), source_format)
    # a small PNG or WebP through Pillow, here rather than in a helper so that each image the
    # turn and the conversion replace is freed at once (a caller's reference would keep it)
    try:
        image.load()
        if image.getexif().get(EXIF_ORIENTATION, 1) != 1:
            image = ImageOps.exif_transpose(image)
        if image.mode.startswith("I"):  # 16-bit greyscale ("I;16") or 32-bit: 0-65535, not 0-255
            grey = np.asarray(image)
            grey = (np.clip(grey, 0, 65535) >> 8).astype(np.uint8)
            return Photo(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), source_format)
        if image.mode != "RGB":
            image = image.convert("RGB")
        rgb = np.asarray(image)
    except (OSError, ValueError, SyntaxError) as exc:
        raise CorruptPhotoError(f"{name}: the {source_format} data is damaged ({exc})") from exc
    del image
    return Photo(pixels=np.ascontiguousarray(rgb[:, :, ::-1]), format=source_format)


def _open_header(data: bytes, max_pixels: int, name: str, formats: tuple[str, ...]) -> Image.Image:
    """The photo opened by Pillow, which reads its header and decodes nothing yet, so the size
    can be checked first. What Pillow cannot open is told apart: a size past Pillow's own bomb
    limit, the signature of an accepted format with damaged data after it, or no image at all."""
    try:
        with warnings.catch_warnings():
            # the header's size is checked against max_pixels by the caller
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise PhotoTooLargeError(
            f"{name}: its size is more than {_megapixels(max_pixels)} megapixels; not decoded",
            limit=int(_megapixels(max_pixels)), accepted=formats) from exc
    except (OSError, ValueError, SyntaxError) as exc:  # Pillow's "cannot identify image file"
        claimed = _claimed_format(data)
        if claimed in formats:  # the right signature, then nothing Pillow can read
            raise CorruptPhotoError(f"{name}: the {_listed((claimed,))} data is damaged and could not be decoded",
                                    found=claimed, accepted=formats) from exc
        raise UnsupportedPhotoError(f"{name}: not a {_listed(formats)} image", accepted=formats) from exc
    return image


def _source_format(image: Image.Image, name: str, formats: tuple[str, ...]) -> str:
    """The format the photo is read as (an MPO as the JPEG of its first image), refused when it
    is not one of ``formats``."""
    source_format = "JPEG" if image.format == "MPO" else image.format  # MPO: its first image
    if source_format not in formats:
        raise UnsupportedPhotoError(
            f"{name}: {image.format or 'unknown'} images are not accepted; use {_listed(formats)}",
            fault="not-accepted", found=image.format, accepted=formats)
    return source_format


def _check_pixel_count(size: tuple[int, int], max_pixels: int, name: str, source_format: str,
                       formats: tuple[str, ...]) -> None:
    """Refuse, from the header's size alone, a photo of more pixels than any photo has (a
    decompression bomb) or too few to show a card."""
    width, height = size
    if width * height > max_pixels:
        raise PhotoTooLargeError(
            f"{name}: {width}x{height} is more than {_megapixels(max_pixels)} megapixels; not decoded",
            size=(width, height), limit=int(_megapixels(max_pixels)), found=source_format, accepted=formats)
    if min(width, height) < MIN_SIDE:
        raise CorruptPhotoError(f"{name}: {width}x{height} is too small to show any card", fault="too-small",
                                size=(width, height), found=source_format, accepted=formats)


def _check_progressive(image: Image.Image, name: str, source_format: str, formats: tuple[str, ...]) -> None:
    """Refuse a progressive JPEG whose DCT coefficients, which libjpeg holds until the last scan
    even when decoding scaled down, would take more than :data:`MAX_COEFFICIENT_BYTES`."""
    progressive = source_format == "JPEG" and bool(image.info.get("progressive"))
    if progressive and _coefficient_bytes(image) > MAX_COEFFICIENT_BYTES:
        width, height = image.size
        cap = int(width * height * MAX_COEFFICIENT_BYTES / _coefficient_bytes(image))
        raise PhotoTooLargeError(
            f"{name}: {width}x{height} is more than {_megapixels(cap)} megapixels, the most a "
            "progressive JPEG is read at; send it smaller, or as a baseline JPEG", fault="progressive-too-large",
            size=(width, height), limit=int(_megapixels(cap)), found=source_format, accepted=formats)


def _is_streamed(image: Image.Image, data: bytes, source_format: str, factor: int) -> bool:
    """Whether a photo to be shrunk is decoded a part at a time rather than whole: a PNG (not
    interlaced) or WebP through libvips when pyvips is there, a HEIC when it is a grid of tiles
    each smaller than the photo and small enough for libheif to decode."""
    streamed = (source_format in ("PNG", "WEBP") and factor > 1 and pyvips is not None
                and not image.info.get("interlace"))
    if source_format == "HEIF" and factor > 1:  # a grid of tiles small enough is decoded by rows
        width, height = image.size
        tile_pixels = heif_tile_pixels(data)
        streamed = tile_pixels is not None and tile_pixels < width * height and tile_pixels <= MAX_HEIF_PIXELS
    return streamed


def _check_whole_pixels(image: Image.Image, streamed: bool, whole_pixels: int, name: str, source_format: str,
                        formats: tuple[str, ...]) -> None:
    """Refuse a photo other than a JPEG that would be decoded whole with more than
    ``whole_pixels`` (at most :data:`MAX_HEIF_PIXELS` for a HEIC, whose decoder holds more a
    pixel), since the whole image would sit in memory."""
    if source_format == "HEIF" and not streamed:
        whole_pixels = min(whole_pixels, MAX_HEIF_PIXELS)
    width, height = image.size
    if source_format != "JPEG" and not streamed and width * height > whole_pixels:
        kind = "an interlaced PNG" if image.info.get("interlace") else f"a {_listed((source_format,))}"
        raise PhotoTooLargeError(
            f"{name}: {width}x{height} is more than {_megapixels(whole_pixels)} megapixels, the most "
            f"{kind} is read at; send it smaller, or as a JPEG", fault="whole-too-large",
            size=(width, height), limit=int(_megapixels(whole_pixels)), found=source_format, accepted=formats)


def _megapixels(pixels: int) -> str:
    """
    >>> _megapixels(50_000_000), _megapixels(1_000_000_000), _megapixels(1000)
    ('50', '1000', '0')
    """
    return f"{pixels // 1_000_000}"


def _coefficient_bytes(image: Image.Image) -> int:
    """The bytes libjpeg holds for a progressive JPEG's DCT coefficients: 2 a sample of each
    colour plane, each plane padded to whole 8x8 blocks of its own sampling.

    >>> _coefficient_bytes(Image.open(io.BytesIO(_sample_jpeg(subsampling=2))))  # 4:2:0
    1536
    >>> _coefficient_bytes(Image.open(io.BytesIO(_sample_jpeg(subsampling=0))))  # 4:4:4
    3072
    """
    width, height = image.size
    layers = getattr(image, "layer", None) or [("?", 1, 1, 0)] * 3
    most_h, most_v = max(layer[1] for layer in layers), max(layer[2] for layer in layers)
    samples = 0
    for _, h, v, _ in layers:
        plane_w, plane_h = math.ceil(width * h / most_h), math.ceil(height * v / most_v)
        samples += math.ceil(plane_w / 8) * 8 * math.ceil(plane_h / 8) * 8
    return 2 * samples


def _sample_jpeg(**options: object) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 16)).save(buffer, format="JPEG", progressive=True, **options)
    return buffer.getvalue()


def _decode_with_vips(data: bytes, factor: int, name: str, source_format: str,
                      size: tuple[int, int]) -> np.ndarray:
    """A PNG or WebP streamed through libvips' shrink to about ``1 / factor`` of ``size`` a
    side, as BGR: only the rows being shrunk are ever decoded at full size.

    libvips applies the EXIF orientation (the photo comes out upright, turned once: nothing
    else turns it); the box is square so it fits the long side however the photo turns.
    """
    assert pyvips is not None
    side = max(1, max(size) // factor)
    try:
        image = pyvips.Image.thumbnail_buffer(data, side, height=side, size="down",
                                              option_string="fail_on=error")
        if image.format != "uchar" or image.interpretation not in ("srgb", "b-w"):
            image = image.colourspace("srgb" if image.bands >= 3 else "b-w")  # 16-bit to 8
        if image.hasalpha():
            image = image.extract_band(0, n=image.bands - 1)  # dropped, as Pillow's RGB does
        if image.bands == 1:
            image = image.bandjoin([image, image])
        image = image[2].bandjoin([image[1], image[0]])  # BGR, made in the same pass
        pixels = np.frombuffer(image.write_to_memory(), np.uint8)
    except pyvips.Error as exc:
        raise CorruptPhotoError(f"{name}: the {_listed((source_format,))} data is damaged") from exc
    return pixels.reshape(image.height, image.width, 3)


def _decode_heif(data: bytes, factor: int, name: str) -> np.ndarray:
    """A HEIC/HEIF photo's primary image as BGR, shrunk by ``factor`` when over the working size.

    libheif applies the container's turn and mirror (the photo comes out upright; its EXIF
    orientation describes the stored pixels and is not applied again). A photo made of a grid
    of tiles (as phone cameras write them) shrunk is decoded one tile at a time
    (:func:`_decode_heif_tiles`); otherwise libheif decodes it whole and its 8-bit RGB buffer
    is read in place.
    """
    if factor > 1 and _LIBHEIF is not None:
        try:
            tiled = _decode_heif_tiles(_LIBHEIF, data, factor)
        except RuntimeError as exc:
            raise CorruptPhotoError(f"{name}: the HEIC data is damaged ({exc})") from exc
        if tiled is not None:
            return tiled
    try:
        heif = pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True)
        pixels = np.asarray(heif)
    except (OSError, ValueError, RuntimeError) as exc:
        raise CorruptPhotoError(f"{name}: the HEIC data is damaged ({exc})") from exc
    if factor > 1:
        height, width = pixels.shape[:2]
        pixels = cv2.resize(pixels, (max(1, width // factor), max(1, height // factor)),
                            interpolation=cv2.INTER_AREA)
    channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    return np.asarray(cv2.cvtColor(pixels, {1: cv2.COLOR_GRAY2BGR, 3: cv2.COLOR_RGB2BGR, 4: cv2.COLOR_RGBA2BGR}[channels]))


def heif_tile_pixels(data: bytes) -> int | None:
    """The pixels of one tile of a HEIC's primary image (all of them for an untiled one), or
    None when libheif's tile API is not at hand (the image is then decoded whole)."""
    if _LIBHEIF is None:
        return None
    try:
        with _LIBHEIF.primary(data) as (_, tiling):
            return int(tiling.tile_width * tiling.tile_height)
    except RuntimeError:
        return None  # damaged: named so when decoded


def _decode_heif_tiles(lib: _Libheif, data: bytes, factor: int) -> np.ndarray | None:
    """The image shrunk by ``factor`` a side (to ``size // factor``), decoded a row of tiles at a
    time and shrunk by whole boxes of ``factor`` x ``factor`` pixels as it comes, so the photo
    is never whole in memory at full size; None for an image of one tile."""
    with lib.primary(data) as (handle, tiling):
        columns, rows = tiling.num_columns, tiling.num_rows
        if columns * rows == 1:
            return None
        width, height = tiling.image_width, tiling.image_height
        tile_w, tile_h = tiling.tile_width, tiling.tile_height
        out_w, out_h = width // factor, height // factor
        used_w = out_w * factor  # the last columns short of a whole box are left out
        out = np.empty((out_h, out_w, 3), np.uint8)
        pending = np.empty((0, used_w, 3), np.uint8)  # rows short of a whole box, for the next
        done = 0
        # A turned grid starts part way into its first tile when its padding (the coded tiles
        # past the image's size) comes first. The padding sits all on one side, so a non-zero
        # offset means all of it: libheif 1.23 reports the tile's remaining part instead.
        left = columns * tile_w - width if tiling.left_offset else 0
        top = rows * tile_h - height if tiling.top_offset else 0
        for row in range(rows):
            y0, y1 = max(0, row * tile_h - top), min(height, (row + 1) * tile_h - top)
            if y1 <= y0:
                continue
            band = np.empty((y1 - y0, used_w, 3), np.uint8)
            for column in range(columns):
                x0, x1 = max(0, column * tile_w - left), min(used_w, (column + 1) * tile_w - left)
                if x1 <= x0:
                    continue
                with lib.tile(handle, column, row) as tile:
                    tx, ty = x0 - (column * tile_w - left), y0 - (row * tile_h - top)
                    band[:, x0:x1] = tile[ty: ty + y1 - y0, tx: tx + x1 - x0]
            pixels = np.concatenate([pending, band]) if len(pending) else band
            whole = min(len(pixels) // factor, out_h - done)
            if whole:
                out[done: done + whole] = cv2.resize(pixels[: whole * factor], (out_w, whole),
                                                     interpolation=cv2.INTER_AREA)
                done += whole
            pending = pixels[whole * factor:].copy()
        return np.asarray(cv2.cvtColor(out[:done], cv2.COLOR_RGB2BGR, dst=out[:done]))


class _HeifError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("subcode", ctypes.c_int), ("message", ctypes.c_char_p)]


class _HeifTiling(ctypes.Structure):
    """libheif's ``heif_image_tiling`` (heif_tiling.h), with room for fields a later version adds."""

    _fields_ = [("version", ctypes.c_int), ("num_columns", ctypes.c_uint32), ("num_rows", ctypes.c_uint32),
                ("tile_width", ctypes.c_uint32), ("tile_height", ctypes.c_uint32),
                ("image_width", ctypes.c_uint32), ("image_height", ctypes.c_uint32),
                ("top_offset", ctypes.c_uint32), ("left_offset", ctypes.c_uint32),
                ("number_of_extra_dimensions", ctypes.c_uint8), ("extra_dimensions", ctypes.c_uint32 * 8),
                ("reserved", ctypes.c_uint8 * 256)]


class _Libheif:
    """The tile API of the libheif that pillow-heif loads (1.19 and later), which pillow-heif
    does not expose: ``heif_image_handle_decode_image_tile`` decodes one tile of a grid image,
    turned as the container says."""

    RGB, INTERLEAVED_RGB, INTERLEAVED = 1, 10, 10  # heif_colorspace, heif_chroma, heif_channel

    def __init__(self, lib: ctypes.CDLL):
        p = ctypes.c_void_p
        self.lib = lib
        lib.heif_context_alloc.restype = p
        lib.heif_context_free.argtypes = [p]
        lib.heif_context_read_from_memory_without_copy.restype = _HeifError
        lib.heif_context_read_from_memory_without_copy.argtypes = [p, ctypes.c_char_p, ctypes.c_size_t, p]
        lib.heif_context_get_primary_image_handle.restype = _HeifError
        lib.heif_context_get_primary_image_handle.argtypes = [p, ctypes.POINTER(p)]
        lib.heif_image_handle_release.argtypes = [p]
        lib.heif_image_handle_get_image_tiling.restype = _HeifError
        lib.heif_image_handle_get_image_tiling.argtypes = [p, ctypes.c_int, ctypes.POINTER(_HeifTiling)]
        lib.heif_image_handle_decode_image_tile.restype = _HeifError
        lib.heif_image_handle_decode_image_tile.argtypes = [p, ctypes.POINTER(p), ctypes.c_int, ctypes.c_int, p,
                                                            ctypes.c_uint32, ctypes.c_uint32]
        lib.heif_image_get_plane_readonly.restype = ctypes.POINTER(ctypes.c_uint8)
        lib.heif_image_get_plane_readonly.argtypes = [p, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        for size in (lib.heif_image_get_width, lib.heif_image_get_height):
            size.restype, size.argtypes = ctypes.c_int, [p, ctypes.c_int]
        lib.heif_image_release.argtypes = [p]

    @staticmethod
    def _check(error: _HeifError) -> None:
        if error.code:
            raise RuntimeError((error.message or b"libheif error").decode(errors="replace"))

    @contextmanager
    def primary(self, data: bytes) -> Iterator[tuple[ctypes.c_void_p, _HeifTiling]]:
        """The primary image's handle and its tiling after the container's turn and mirror."""
        lib = self.lib
        context = lib.heif_context_alloc()
        handle = ctypes.c_void_p()
        try:
            self._check(lib.heif_context_read_from_memory_without_copy(context, data, len(data), None))
            self._check(lib.heif_context_get_primary_image_handle(context, ctypes.byref(handle)))
            tiling = _HeifTiling(version=1)
            self._check(lib.heif_image_handle_get_image_tiling(handle, 1, ctypes.byref(tiling)))
            yield handle, tiling
        finally:
            if handle:
                lib.heif_image_handle_release(handle)
            lib.heif_context_free(context)

    @contextmanager
    def tile(self, handle: ctypes.c_void_p, column: int, row: int) -> Iterator[np.ndarray]:
        """One tile as 8-bit RGB, a view of libheif's buffer while the block lasts."""
        lib = self.lib
        image = ctypes.c_void_p()
        self._check(lib.heif_image_handle_decode_image_tile(handle, ctypes.byref(image), self.RGB,
                                                            self.INTERLEAVED_RGB, None, column, row))
        try:
            stride = ctypes.c_int()
            plane = lib.heif_image_get_plane_readonly(image, self.INTERLEAVED, ctypes.byref(stride))
            width = lib.heif_image_get_width(image, self.INTERLEAVED)
            height = lib.heif_image_get_height(image, self.INTERLEAVED)
            if not plane or width <= 0 or height <= 0:
                raise RuntimeError("a tile decoded to no pixels")
            rows = np.ctypeslib.as_array(plane, shape=(height, stride.value))
            yield rows[:, : width * 3].reshape(height, width, 3)
        finally:
            lib.heif_image_release(image)


def _load_libheif() -> _Libheif | None:
    """The libheif pillow-heif's wheel carries (or the system's), if it has the tile API."""
    folder = Path(pillow_heif.__file__).resolve().parent.parent / "pillow_heif.libs"
    candidates = [str(path) for path in sorted(folder.glob("libheif*.so*"))] + [ctypes.util.find_library("heif")]
    for candidate in filter(None, candidates):
        try:
            lib = ctypes.CDLL(candidate)
            lib.heif_image_handle_decode_image_tile  # noqa: B018 - 1.19 and later
            return _Libheif(lib)
        except (OSError, AttributeError):
            continue
    return None


_LIBHEIF = _load_libheif()


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
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"heim", b"heis"):
        return "HEIF"
    return None


def _listed(formats: tuple[str, ...]) -> str:
    """The formats as a player reads them.

    >>> _listed(("JPEG", "PNG", "WEBP", "HEIF"))
    'JPEG, PNG, WebP or HEIC'
    """
    shown = [{"WEBP": "WebP", "HEIF": "HEIC"}.get(f, f) for f in formats]
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
    return np.asarray(pixels)
