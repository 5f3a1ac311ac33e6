"""Peak memory of one /api/detect on a small photo that claims many pixels.

    PYTHONPATH=. python tests/bench/measure_detect_memory.py [SIDE [FORMAT [HEIGHT]]]
    PYTHONPATH=. python tests/bench/measure_detect_memory.py --table

SIDE defaults to 7000, FORMAT (a Pillow format: PNG, JPEG, WEBP, HEIF, or PJPEG for a
progressive JPEG) to PNG, HEIGHT to SIDE. Makes a single-colour photo that size (a 7000x7000
PNG is about 48 KB) in a child process, then in this process builds the app with a recogniser
that finds nothing (the model's own memory is not what is measured) and prints how much the
peak resident memory (ru_maxrss) grew during the request. ``--table`` runs that, each in a
fresh process (the peak is the process's), for every format at 50, 100 and 200 MP and prints
a table. The target: under 200 MB whatever the pixel count (a JPEG is decoded scaled down, a
PNG or WebP streamed through libvips' shrink, a progressive JPEG or a HEIC read up to the caps
in vision.photo and refused above them).
"""

from __future__ import annotations

import io
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from vision.detections import Detections
from web.app import create_app

MAKE = (
    "import sys, pillow_heif; from PIL import Image; pillow_heif.register_heif_opener(); "
    "Image.new('RGB', (int(sys.argv[1]), int(sys.argv[2])), (200, 120, 80))"
    ".save(sys.argv[3], format=sys.argv[4].replace('PJPEG', 'JPEG'), progressive=sys.argv[4] == 'PJPEG', "
    # a HEIC as an iPhone writes it, a grid of tiles; x265's fastest preset
    "**({'tile_size': 512, 'enc_params': {'preset': 'ultrafast'}} if sys.argv[4] == 'HEIF' else {}))"
)
#: (format, megapixels) of the table: a progressive JPEG is refused past 50 MP (4:2:0)
TABLE = [("PJPEG", 48)] + [(fmt, mp) for fmt in ("JPEG", "PJPEG", "PNG", "WEBP", "HEIF") for mp in (50, 100, 200)]


class FindsNothing:
    def detect(self, image_bgr):
        return Detections.empty()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def table() -> None:
    print("| format | megapixels | size | status | peak RSS growth |")
    print("|---|---|---|---|---|")
    for fmt, mp in TABLE:
        width, height = round((mp * 1e6 * 4 / 3) ** 0.5), round((mp * 1e6 * 3 / 4) ** 0.5)
        run = subprocess.run([sys.executable, __file__, str(width), fmt, str(height)],
                             capture_output=True, text=True)
        lines = run.stdout.splitlines()
        status = lines[0].split(" -> ")[1].split()[0] if lines else f"failed: {run.stderr[-200:]}"
        growth = lines[1].rsplit("+", 1)[1] if len(lines) > 1 else "?"
        print(f"| {fmt} | {mp} | {width}x{height} | {status} | +{growth} |", flush=True)


def main() -> None:
    if sys.argv[1:] == ["--table"]:
        table()
        return
    side = int(sys.argv[1]) if len(sys.argv) > 1 else 7000
    fmt = sys.argv[2].upper() if len(sys.argv) > 2 else "PNG"
    height = int(sys.argv[3]) if len(sys.argv) > 3 else side
    with tempfile.TemporaryDirectory() as tmp:
        photo = Path(tmp) / "big"
        subprocess.run([sys.executable, "-c", MAKE, str(side), str(height), str(photo), fmt], check=True)
        data = photo.read_bytes()
        app = create_app({"TESTING": True, "DATA_DIR": str(Path(tmp) / "data"),
                          "SECRET_KEY": "measure", "RECOGNIZER_FACTORY": FindsNothing})
        client = app.test_client()
        client.post("/api/detect", data={"image": (io.BytesIO(b"x"), "warm.png")})  # imports
        before = peak_mb()
        response = client.post("/api/detect", data={"image": (io.BytesIO(data), "big")})
        after = peak_mb()
        body = response.get_json()
        print(f"/api/detect {side}x{height} {fmt} of {len(data) / 1000:.0f} KB -> {response.status_code} "
              f"{'' if response.status_code == 200 else body}")
        print(f"peak RSS {before:.0f} MB before the request, {after:.0f} MB after: +{after - before:.0f} MB")


if __name__ == "__main__":
    main()
