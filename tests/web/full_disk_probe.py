"""Run by test_web_data_kept: a game played on a data folder whose disk fills up (a tmpfs).

Prints one JSON line of what the app answered; the test judges it. Takes the data folder.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from conftest import ScriptedRecognizer, jpeg_bytes  # noqa: E402

from web.app import create_app  # noqa: E402


def main() -> None:
    data = Path(sys.argv[1])
    cards = [("tempura", [10, 10, 60, 90], 0.9), ("tempura", [70, 10, 120, 90], 0.9)]
    app = create_app({"TESTING": True, "DATA_DIR": str(data / "data"), "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                      "RECOGNIZER_FACTORY": lambda: ScriptedRecognizer(cards), "MAX_IMAGE_PIXELS": 4_000_000})
    client = app.test_client()
    game = int(client.post("/games/new", data={"edition": "original", "player": ["Ann", "Ben"]})
               .headers["Location"].rsplit("/", 1)[1])
    photo = jpeg_bytes((np.random.default_rng(1).random((500, 700, 3)) * 255).astype(np.uint8))
    client.post(f"/games/{game}/rounds/1/capture", data={"mode": "table", "table": (io.BytesIO(photo), "t.jpg")})
    page = client.get(f"/games/{game}/rounds/1/review").data.decode()
    state = json.loads(re.search(r'id="review-state">(.*?)</script>', page, re.S).group(1))
    filler = data / "filler"
    with filler.open("wb", buffering=0) as handle:  # the disk fills up
        try:
            while True:
                handle.write(b"x" * 4096)
        except OSError:
            pass
    answers = {
        "capture": client.get(f"/games/{game}/rounds/1/capture").status_code,
        "review": client.get(f"/games/{game}/rounds/1/review").status_code,
    }
    full = client.post(f"/games/{game}/rounds/1/confirm", json={**state["review"], "version": state["version"]})
    answers["confirm"], answers["message"] = full.status_code, full.get_json()["error"]
    answers["game"] = client.get(f"/games/{game}").status_code
    answers["parts"] = [p.name for p in data.rglob("*.part")]
    filler.unlink()  # space freed: confirm again
    again = client.post(f"/games/{game}/rounds/1/confirm", json={**state["review"], "version": state["version"]})
    answers["again"] = again.status_code
    (image,) = (data / "data" / "training" / "images").iterdir()
    (kept,) = (data / "data" / "photos").iterdir()
    answers["copy_whole"] = image.read_bytes() == kept.read_bytes()
    answers["rounds"] = len(client.get(f"/games/{game}/record.json").get_json()["rounds"])
    print(json.dumps(answers))


if __name__ == "__main__":
    main()
