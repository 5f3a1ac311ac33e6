"""Reading uploads safely: by content, upright, bounded, stored under fresh names."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pytest
from PIL import Image

from web.uploads import (
    CorruptImageError,
    ImageTooLargeError,
    UnsupportedImageError,
    read_image,
    remove_photos,
    save_photo,
)


def encode(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_phone_formats_are_read_as_bgr(fmt):
    red = Image.new("RGB", (48, 36), (250, 10, 10))
    image = read_image(encode(red, fmt), 10_000)
    assert image.format == fmt
    assert (image.width, image.height) == (48, 36)
    b, g, r = image.pixels[15, 20].astype(int)
    assert r > 200 and g < 60 and b < 60


def test_exif_orientation_is_applied():
    """A phone held upright saves landscape pixels and an EXIF turn: the page shows it upright."""
    landscape = Image.new("RGB", (60, 40), (0, 0, 0))
    landscape.paste((255, 255, 255), (0, 0, 30, 40))  # left half white
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    image = read_image(encode(landscape, "JPEG", exif=exif), 10_000)
    assert (image.width, image.height) == (40, 60)
    assert image.pixels[5, 20].mean() > 200  # the white half is now on top
    assert image.pixels[55, 20].mean() < 50


def test_transparency_is_flattened():
    image = read_image(encode(Image.new("RGBA", (40, 40), (0, 0, 255, 0)), "PNG"), 10_000)
    assert image.pixels.shape == (40, 40, 3)


def test_the_pixel_count_is_checked_before_decoding(monkeypatch):
    data = encode(Image.new("L", (500, 500)), "PNG")
    decoded = []
    monkeypatch.setattr(Image.Image, "load", lambda self: decoded.append(self) or None)
    with pytest.raises(ImageTooLargeError, match="more than 0 megapixels"):
        read_image(data, 200_000)
    assert decoded == []


def test_a_header_claiming_billions_of_pixels_is_refused():
    # a PNG header for 100000 x 100000 pixels followed by nothing: Pillow only reads the header
    data = encode(Image.new("L", (1, 1)), "PNG")
    header = (100000).to_bytes(4, "big") * 2 + data[24:29]
    crc = zlib.crc32(b"IHDR" + header).to_bytes(4, "big")
    forged = data[:16] + header + crc + data[33:]
    with pytest.raises(ImageTooLargeError):
        read_image(forged, 50_000_000)


def test_truncated_data_is_a_clear_error():
    data = encode(Image.new("RGB", (200, 200), (10, 200, 30)), "PNG")
    with pytest.raises((CorruptImageError, UnsupportedImageError), match="image"):
        read_image(data[: len(data) // 2], 1_000_000)


def test_tiny_images_are_refused():
    with pytest.raises(CorruptImageError, match="too small"):
        read_image(encode(Image.new("RGB", (8, 8)), "PNG"), 1_000_000)


def test_photos_are_stored_under_fresh_names_and_removed(tmp_path):
    image = read_image(encode(Image.new("RGB", (50, 50), (1, 2, 3)), "PNG"), 10_000)
    names = {save_photo(image, tmp_path) for _ in range(3)}
    assert len(names) == 3
    for name in names:
        assert name.endswith(".jpg") and len(name) == 28
        stored = Image.open(tmp_path / "photos" / name)
        assert stored.format == "JPEG" and stored.size == (50, 50)
    assert not list((tmp_path / "photos").glob(".*"))  # no partial files left
    remove_photos(tmp_path, sorted(names))
    assert not list((tmp_path / "photos").iterdir())


def test_saved_pixels_match_the_upload(tmp_path):
    y, x = np.mgrid[0:64, 0:96]
    smooth = np.dstack([x * 2, y * 3, 255 - x - y]).astype(np.uint8)
    image = read_image(encode(Image.fromarray(smooth), "PNG"), 10_000)
    name = save_photo(image, tmp_path)
    again = np.asarray(Image.open(tmp_path / "photos" / name).convert("RGB"))
    assert np.abs(again.astype(int) - smooth.astype(int)).mean() < 6
