"""Peak memory of one /api/detect on a small PNG that claims many pixels (issue 14, item 9).

    PYTHONPATH=. python tests/bench/measure_detect_memory.py [SIDE]   # SIDE defaults to 7000

Makes a SIDE x SIDE single-colour PNG (about 48 KB at 7000) in a child process, then in this
process builds the app with a recogniser that finds nothing (the model's own memory is not what
is measured) and prints how much the peak resident memory (ru_maxrss) grew during the request.
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
    "import sys; from PIL import Image; "
    "Image.new('RGB', (int(sys.argv[1]),) * 2, (200, 120, 80)).save(sys.argv[2], format='PNG')"
)


class FindsNothing:
    def detect(self, image_bgr):
        return Detections.empty()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    side = int(sys.argv[1]) if len(sys.argv) > 1 else 7000
    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "big.png"
        subprocess.run([sys.executable, "-c", MAKE, str(side), str(png)], check=True)
        data = png.read_bytes()
        app = create_app({"TESTING": True, "DATA_DIR": str(Path(tmp) / "data"),
                          "SECRET_KEY": "measure", "RECOGNIZER_FACTORY": FindsNothing})
        client = app.test_client()
        client.post("/api/detect", data={"image": (io.BytesIO(b"x"), "warm.png")})  # imports
        before = peak_mb()
        response = client.post("/api/detect", data={"image": (io.BytesIO(data), "big.png")})
        after = peak_mb()
        body = response.get_json()
        print(f"/api/detect {side}x{side} PNG of {len(data) / 1000:.0f} KB -> {response.status_code} "
              f"{'' if response.status_code == 200 else body}")
        print(f"peak RSS {before:.0f} MB before the request, {after:.0f} MB after: +{after - before:.0f} MB")


if __name__ == "__main__":
    main()
