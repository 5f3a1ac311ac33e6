"""Peak memory of one /api/detect on a small photo that claims many pixels.

    PYTHONPATH=. python tests/bench/measure_detect_memory.py [SIDE [FORMAT [HEIGHT]]]

SIDE defaults to 7000, FORMAT (a Pillow format: PNG, JPEG, WEBP, HEIF) to PNG, HEIGHT to
SIDE. Makes a single-colour photo that size (a 7000x7000 PNG is about 48 KB) in a child
process, then in this process builds the app with a recogniser that finds nothing (the model's
own memory is not what is measured) and prints how much the peak resident memory (ru_maxrss)
grew during the request. The target: under 200 MB whatever the pixel count (a JPEG is decoded
scaled down, any other format up to vision.photo.MAX_WHOLE_PIXELS, a larger one refused).
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
    ".save(sys.argv[3], format=sys.argv[4])"
)


class FindsNothing:
    def detect(self, image_bgr):
        return Detections.empty()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
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
