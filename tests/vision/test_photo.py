"""The one photo decoder (``vision.photo``) that ``sushicam detect``, the app's uploads and the
live page's frames share: what a phone sends comes out upright, bounded and named when bad."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
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
    (b"GIF89a" + b"\0" * 40, UnsupportedPhotoError, "not a JPEG, PNG, WebP or HEIC image"),
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


# --- issue 46: what phones send ---------------------------------------------------------------


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def test_an_mpo_from_a_phone_camera_is_read_as_its_first_image():
    """Many phones write a JPEG with a second (preview or depth) image in its MPF segment."""
    first, second = Image.new("RGB", (96, 64), (250, 10, 10)), Image.new("RGB", (48, 32), (10, 10, 250))
    data = encoded(first, "MPO", save_all=True, append_images=[second])
    assert Image.open(io.BytesIO(data)).format == "MPO"
    photo = decode_photo(data)
    assert (photo.width, photo.height, photo.format) == (96, 64, "JPEG")
    b, g, r = photo.pixels[30, 40].astype(int)
    assert r > 200 and b < 60


def test_a_heic_photo_from_an_iphone_is_read():
    pillow_heif = pytest.importorskip("pillow_heif")
    pixels = np.zeros((60, 80, 3), np.uint8)
    pixels[:30] = (250, 10, 10)  # top half red, bottom half blue (RGB)
    pixels[30:] = (10, 10, 250)
    buffer = io.BytesIO()
    pillow_heif.from_bytes("RGB", (80, 60), pixels.tobytes()).save(buffer, quality=95)
    data = buffer.getvalue()
    assert data[4:12] == b"ftypheic"
    photo = decode_photo(data)
    assert (photo.width, photo.height, photo.format) == (80, 60, "HEIF")
    top, bottom = photo.pixels[10, 40].astype(int), photo.pixels[50, 40].astype(int)
    assert top[2] > 200 and top[0] < 60  # BGR: red on top
    assert bottom[0] > 200 and bottom[2] < 60
    assert decode_photo(data, working_pixels=80 * 60 // 4).width == 40  # shrunk as a PNG is


def tiled_heic(image: Image.Image, tile: int = 256, orientation: int = 1) -> bytes:
    """A HEIC made as phone cameras make them: a grid of tiles, the turn in the container."""
    pytest.importorskip("pillow_heif")  # its opener, registered by vision.photo, saves HEIF
    exif = image.getexif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    image.save(buffer, format="HEIF", exif=exif.tobytes(), tile_size=tile, quality=30,
               enc_params={"preset": "ultrafast"})
    return buffer.getvalue()


@pytest.mark.parametrize("orientation", [1, 2, 3, 6, 8])
@pytest.mark.parametrize("size", [(1024, 768), (1200, 800)])  # whole tiles of 256, and part ones
def test_a_tiled_heic_shrunk_by_rows_is_the_whole_decode_shrunk(size, orientation):
    """Decoded a row of tiles at a time, a HEIC comes out as libheif's whole decode of it does
    (turned as the container says; a turned grid of part tiles starts part way into its first),
    at half size."""
    from vision.photo import heif_tile_pixels

    data = tiled_heic(sensor_shot(*size), orientation=orientation)
    assert heif_tile_pixels(data) == 256 * 256
    whole = decode_photo(data).pixels
    assert whole.shape[:2] == (size[::-1] if orientation in (1, 2, 3) else size)
    half = decode_photo(data, working_pixels=size[0] * size[1] // 4).pixels
    assert half.shape == (whole.shape[0] // 2, whole.shape[1] // 2, 3)
    expected = cv2.resize(whole, half.shape[1::-1], interpolation=cv2.INTER_AREA)
    assert np.abs(half.astype(int) - expected).mean() < 1.5


def test_a_48_megapixel_heic_from_a_phone_is_read_at_a_reduced_size():
    """An 8000x6000 HEIC in tiles of 512 (as a 48 MP iPhone writes), turned 90 degrees: past
    the 40 MP that libheif may decode whole, it is read a row of tiles at a time."""
    from vision.photo import MAX_HEIF_PIXELS

    width, height = 8000, 6000
    assert width * height > MAX_HEIF_PIXELS
    data = tiled_heic(sensor_shot(width, height), tile=512, orientation=6)
    photo = decode_photo(data)
    assert (photo.width, photo.height, photo.format) == (height // 2, width // 2, "HEIF")
    w, h = photo.width, photo.height  # the sensor's block at x in [3H/4, 7H/8), y in [W/8, W/4)
    block = photo.pixels[h // 8 + 4: h // 4 - 4, w * 3 // 4 + 4: w * 7 // 8 - 4].reshape(-1, 3)
    assert np.abs(block.astype(int) - [230, 40, 20]).max() <= 12
    assert np.abs(photo.pixels[h // 2, w // 2].astype(int) - [80, 120, 200]).max() <= 12


def test_a_16_bit_greyscale_png_keeps_its_tones():
    """Pillow reads it as "I;16" (0-65535); converted as if 0-255, every pixel was white."""
    grey = np.zeros((40, 60), np.uint16)
    grey[:, :30], grey[:, 30:] = 0x4000, 0xC000
    photo = decode_photo(encoded(Image.fromarray(grey), "PNG"))
    assert photo.pixels.shape == (40, 60, 3)
    assert photo.pixels[20, 10].tolist() == [64, 64, 64]
    assert photo.pixels[20, 50].tolist() == [192, 192, 192]


def test_a_16_bit_greyscale_png_over_the_working_size_keeps_its_tones():
    grey = np.full((40, 60), 0x8000, np.uint16)
    photo = decode_photo(encoded(Image.fromarray(grey), "PNG"), working_pixels=40 * 60 // 4)
    assert photo.width == 30 and abs(int(photo.pixels.mean()) - 128) <= 1


def test_a_photo_over_50_megapixels_is_read_at_a_reduced_size():
    """A 9000x6000 (54 MP) JPEG, as a 50+ MP phone camera writes, is decoded at half scale."""
    from vision.photo import WORKING_PIXELS

    pixels = np.zeros((6000, 9000, 3), np.uint8)
    pixels[:, :4500] = 255  # left half white
    ok, data = cv2.imencode(".jpg", pixels)
    del pixels
    assert ok
    photo = decode_photo(data.tobytes())
    assert photo.width * photo.height <= WORKING_PIXELS and (photo.width, photo.height) == (4500, 3000)
    assert photo.pixels[:, : photo.width // 2 - 8].mean() > 240
    assert photo.pixels[:, photo.width // 2 + 8:].mean() < 15


def sensor_shot(width: int, height: int) -> Image.Image:
    """Orange, with a blue block over x in [W/8, W/4), y in [H/8, H/4) of the sensor's pixels."""
    image = Image.new("RGB", (width, height), (200, 120, 80))
    image.paste((20, 40, 230), (width // 8, height // 8, width // 4, height // 4))
    return image


@pytest.mark.parametrize("fmt", ["PNG", "WEBP"])
def test_a_photo_of_70_megapixels_is_read_at_a_reduced_size_upright(fmt):
    """A 10000x7000 PNG or WebP (beyond what is decoded whole) is streamed through libvips'
    shrink; its EXIF turn (6: 90 degrees clockwise) is applied once: the sensor's block at
    x in [W/8, W/4), y in [H/8, H/4) lands at x in [3H/4, 7H/8), y in [W/8, W/4)."""
    from vision.photo import MAX_WHOLE_PIXELS, WORKING_PIXELS

    pytest.importorskip("pyvips")
    width, height = 10_000, 7_000
    assert width * height > MAX_WHOLE_PIXELS
    image = sensor_shot(width, height)
    exif = image.getexif()
    exif[0x0112] = 6
    data = encoded(image, fmt, exif=exif)
    del image
    photo = decode_photo(data)
    factor = 3  # the least whole shrink bringing 70 MP under the working 16 MP
    assert photo.width * photo.height <= WORKING_PIXELS and photo.format == fmt
    assert abs(photo.width - height // factor) <= 1 and abs(photo.height - width // factor) <= 1
    blue, orange = np.array([230, 40, 20]), np.array([80, 120, 200])  # BGR
    w, h = photo.width, photo.height
    block = photo.pixels[h // 8 + 4: h // 4 - 4, w * 3 // 4 + 4: w * 7 // 8 - 4].reshape(-1, 3)
    assert np.abs(block - blue).max() <= 8
    for y, x in [(h // 16, w * 13 // 16), (h * 3 // 16, w // 8), (h * 3 // 4, w * 13 // 16)]:
        assert np.abs(photo.pixels[y, x].astype(int) - orange).max() <= 8, (y, x)


def test_a_16_bit_rgba_png_streamed_keeps_its_colours():
    """libvips keeps 16 bits and the alpha band through its shrink: both are taken off."""
    pytest.importorskip("pyvips")
    rgba = np.zeros((60, 80, 4), np.uint16)
    rgba[..., 0], rgba[..., 2], rgba[..., 3] = 0xC000, 0x4000, 0xFFFF  # BGRA for OpenCV
    ok, data = cv2.imencode(".png", rgba)
    assert ok
    photo = decode_photo(data.tobytes(), working_pixels=80 * 60 // 4)
    assert photo.pixels.shape == (30, 40, 3) and photo.pixels.dtype == np.uint8
    assert np.abs(photo.pixels.reshape(-1, 3).astype(int) - [192, 0, 64]).max() <= 1


def test_without_pyvips_a_png_over_the_whole_decode_cap_is_refused_with_the_way_out(monkeypatch):
    """Without libvips a PNG or WebP can only be decoded whole: over the cap that keeps one
    upload's memory bounded it is refused before decoding, and the player told to send a JPEG."""
    import vision.photo

    image = Image.new("RGB", (400, 300), (10, 200, 10))
    monkeypatch.setattr(vision.photo, "pyvips", None)
    for fmt, words in [("PNG", "a PNG"), ("WEBP", "a WebP")]:
        with pytest.raises(PhotoTooLargeError, match=f"the most {words} is read at; send it smaller, or as a JPEG"):
            decode_photo(encoded(image, fmt), working_pixels=100_000, whole_pixels=100_000)
    assert decode_photo(encoded(image, "JPEG"), working_pixels=100_000, whole_pixels=100_000).width == 200


def test_with_pyvips_a_png_over_the_whole_decode_cap_is_read():
    pytest.importorskip("pyvips")
    image = Image.new("RGB", (400, 300), (10, 200, 10))
    for fmt in ("PNG", "WEBP"):
        photo = decode_photo(encoded(image, fmt), working_pixels=100_000, whole_pixels=100_000)
        assert (photo.width, photo.height) == (200, 150)


def test_an_interlaced_png_over_the_whole_decode_cap_is_refused():
    """Adam7's seven passes need the whole image in memory: libvips cannot stream one."""
    pyvips = pytest.importorskip("pyvips")
    data = pyvips.Image.black(400, 300, bands=3).pngsave_buffer(interlace=True)
    assert Image.open(io.BytesIO(data)).info.get("interlace")
    with pytest.raises(PhotoTooLargeError, match="the most an interlaced PNG is read at"):
        decode_photo(data, working_pixels=100_000, whole_pixels=100_000)
    assert decode_photo(data, working_pixels=100_000).width == 200  # under the cap: read


def test_a_progressive_jpeg_is_read_up_to_what_its_coefficients_cost():
    """libjpeg holds a progressive JPEG's every DCT coefficient, 2 bytes a sample of each plane,
    whatever the scale it decodes at: a 30 MP one holds 90 MB of them in 4:2:0 (read, at half
    size), 180 MB in 4:4:4 (refused: the cap is 150 MB, 25 MP in 4:4:4)."""
    image = Image.new("RGB", (6000, 5000), (10, 200, 10))
    with pytest.raises(PhotoTooLargeError,
                       match="6000x5000 is more than 25 megapixels, the most a progressive JPEG is read at; "
                             "send it smaller, or as a baseline JPEG"):
        decode_photo(encoded(image, "JPEG", progressive=True, subsampling=0))
    photo = decode_photo(encoded(image, "JPEG", progressive=True, subsampling=2))
    assert (photo.width, photo.height) == (3000, 2500)
    assert decode_photo(encoded(image, "JPEG", subsampling=0)).width == 3000  # baseline: no cap


def test_a_damaged_png_streamed_is_named_damaged():
    pytest.importorskip("pyvips")
    data = encoded(Image.effect_noise((400, 300), 60).convert("RGB"), "PNG")
    with pytest.raises(CorruptPhotoError, match="the PNG data is damaged"):
        decode_photo(data[: len(data) // 2], working_pixels=100_000)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
@pytest.mark.parametrize("size", [(32, 65000), (65000, 32)])
def test_an_extreme_aspect_ratio_is_read(fmt, size):
    photo = decode_photo(encoded(Image.new("RGB", size, (200, 120, 80)), fmt))
    assert (photo.width, photo.height) == size


def test_the_detector_reads_an_extreme_aspect_ratio(tmp_path, capsys):
    """The letterbox shrank a 32x65000 strip to 0 pixels wide: a traceback from sushicam detect."""
    import json

    from web.cli import main

    if not (Path(__file__).resolve().parents[2] / "models" / "meta.json").exists():
        pytest.skip("no trained model in models/")
    paths = []
    for size, fmt in [((32, 65000), "PNG"), ((65000, 32), "JPEG")]:
        path = tmp_path / f"strip-{size[0]}.{fmt.lower()}"
        path.write_bytes(encoded(Image.new("RGB", size, (200, 120, 80)), fmt))
        paths.append(str(path))
    assert main(["detect", *paths]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == paths and all(line["cards"] == [] for line in lines)
