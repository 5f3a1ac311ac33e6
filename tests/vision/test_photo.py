"""The one photo decoder (``vision.photo``) that ``sushicam detect``, the app's uploads and the
live page's frames share: what a phone sends comes out upright, bounded and named when bad."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision.describe import ImageReadError, read_image
from vision.photo import (
    CorruptPhotoError,
    PhotoTooLargeError,
    UnsupportedPhotoError,
    decode_photo,
)


def jpeg(image: Image.Image, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", **options)
    return buffer.getvalue()


def portrait_shot(width=80, height=60) -> Image.Image:
    """A phone held upright saves landscape pixels with EXIF orientation 6 (turn 90 clockwise
    to show): the left half red, the right half blue, as the sensor saw it."""
    pixels = np.zeros((height, width, 3), np.uint8)
    pixels[:, : width // 2] = (250, 0, 0)
    pixels[:, width // 2:] = (0, 0, 250)
    return Image.fromarray(pixels)


def test_a_phone_photo_reads_upright_from_a_file_as_in_the_app(tmp_path):
    """Turned 90 degrees clockwise, the sensor's left (red) half becomes the top half."""
    image = portrait_shot()
    exif = image.getexif()
    exif[0x0112] = 6
    path = tmp_path / "phone.jpg"
    path.write_bytes(jpeg(image, exif=exif, quality=95))
    pixels = read_image(path)
    assert pixels.shape[:2] == (80, 60)
    top, bottom = pixels[5, 30].astype(int), pixels[75, 30].astype(int)
    assert top[2] > 200 and top[0] < 60  # BGR: red on top
    assert bottom[0] > 200 and bottom[2] < 60


def test_a_large_photo_is_shrunk_while_decoded_not_refused():
    """A photo over the working size comes out at half size (OpenCV's reduced decode), so a
    48 MP phone photo never sits whole in memory; the detector reads far less anyway."""
    image = Image.new("RGB", (400, 300), (10, 200, 10))
    photo = decode_photo(jpeg(image), working_pixels=400 * 300 // 3)
    assert (photo.width, photo.height) == (200, 150) and photo.format == "JPEG"


@pytest.mark.parametrize(("data", "error", "words"), [
    (b"\xff\xd8\xff\xe0 then nothing", CorruptPhotoError, "JPEG data is damaged"),
    (b"\x89PNG\r\n\x1a\n" + b"\0" * 40, CorruptPhotoError, "PNG data is damaged"),
    (b"GIF89a" + b"\0" * 40, UnsupportedPhotoError, "not a JPEG, PNG or WebP image"),
])
def test_bad_bytes_are_named_by_what_is_wrong_with_them(data, error, words):
    with pytest.raises(error, match=words):
        decode_photo(data, name="table.jpg")


def test_a_half_sent_jpeg_is_damaged_not_a_crash():
    data = jpeg(Image.new("RGB", (300, 200), (1, 2, 3)))
    with pytest.raises(CorruptPhotoError, match="damaged"):
        decode_photo(data[: len(data) // 3])


def test_only_the_formats_asked_for_are_taken():
    """The live page takes camera frames as JPEG only."""
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48)).save(buffer, format="PNG")
    with pytest.raises(UnsupportedPhotoError, match="PNG images are not accepted; use JPEG"):
        decode_photo(buffer.getvalue(), formats=("JPEG",))


def test_the_pixel_limit_is_checked_before_decoding(tmp_path):
    path = tmp_path / "big.jpg"
    path.write_bytes(jpeg(Image.new("RGB", (2000, 1000))))
    with pytest.raises(ImageReadError, match="2000x1000 is more than 1 megapixels; not decoded"):
        read_image(path, max_pixels=1_000_000)
    with pytest.raises(PhotoTooLargeError):
        decode_photo(path.read_bytes(), max_pixels=1_000_000)
