"""Seats and tableaux at a webcam's and a phone's size (not a test: a measuring script).

    PYTHONPATH=$PWD python tests/vision/measure_seat_sizes.py OUT [--photos 30] [--sizes 640x480,4032x3024]
        [--kinds table,tableau] [--models]

Renders the same scenes (``vision.fieldtest``, seed 5001: in no field set) at each size under
``OUT/<kind>-<w>x<h>`` (the field sets' layout; photos already there are kept) and prints, per folder, the seats read
exactly from the truth's own boxes, whether the truth's boxes scaled from a tenth to six times
their size split and read alike (they must: everything is measured in card sizes), and with
``--models`` what the bundled models read (run once per photo, kept in ``pred/``): card F1, F1
with each card in its seat, matched cards in their seat, exact seats, and why the others are
not exact (the first cause found: a card the photo hides, a card missed, a wrong name, a card
in another seat, the reading).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from vision.detections import Detections
from vision.fieldtest.render import render_photo
from vision.seats import split_seats
from vision.stacks import canonical, read_tableau
from vision.training.evaluate import match_cards

SEED = 5001
SCALES = (0.1, 0.3175, 0.5, 2.0, 6.3)


def render(root: Path, kind: str, size: tuple[int, int], photos: int) -> None:
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "truth" / "val").mkdir(parents=True, exist_ok=True)
    for i in range(photos):
        out = root / "truth" / "val" / f"p{i:06d}.json"
        if out.exists():
            continue
        image, truth = render_photo(SEED * 1_000_003 + i + (0 if kind == "table" else 500), kind, size)
        truth["image"] = f"images/p{i:06d}.jpg"
        cv2.imwrite(str(root / truth["image"]), image, [cv2.IMWRITE_JPEG_QUALITY, 97])
        out.write_text(json.dumps(truth))


def split(boxes, labels, n_seats: int):
    detections = Detections(np.asarray(boxes, np.float32).reshape(-1, 4),
                            data={"label": np.array(labels), "index": np.arange(len(labels))})
    parts = split_seats(detections, n_seats=n_seats)
    seat_of = np.full(len(labels), -1)
    for s, part in enumerate(parts):
        seat_of[part.data.get("index", np.zeros(0)).astype(int)] = s
    return [canonical(read_tableau(p)) for p in parts], seat_of


def measure(root: Path, models) -> None:
    counts: Counter[str] = Counter()
    why: Counter[str] = Counter()
    for path in sorted((root / "truth" / "val").glob("*.json")):
        truth = json.loads(path.read_text())
        visible = [c for c in truth["cards"] if not c["hidden"]]
        wanted = [canonical(s["tableau"]) for s in truth["seats"]]
        n = len(wanted)
        boxes, labels = np.array([c["box"] for c in visible], float), [c["label"] for c in visible]
        read, _ = split(boxes, labels, n)
        counts["seats"] += n
        counts["exact from truth boxes"] += sum(r == w for r, w in zip(read, wanted, strict=True))
        counts["photos read otherwise when rescaled"] += any(split(boxes * f, labels, n)[0] != read for f in SCALES)
        if models is None:
            continue
        cached = root / "pred" / path.name
        if not cached.exists():
            cached.parent.mkdir(exist_ok=True)
            found = models.detect(cv2.imread(str(root / truth["image"])))
            cached.write_text(json.dumps({"boxes": found.xyxy.tolist(), "labels": [str(x) for x in found.labels]}))
        pred = json.loads(cached.read_text())
        got, seat_of = split(pred["boxes"], pred["labels"], n)
        pairs, _ = match_cards(Detections(np.array(pred["boxes"], np.float32).reshape(-1, 4)), truth["cards"])
        named = {i: pred["labels"][i] == visible[j]["label"] for i, j in pairs}
        counts["boxes"] += len(pred["boxes"])
        counts["cards"] += len(visible)
        counts["named right"] += sum(named.values())
        counts["named right in seat"] += sum(named[i] and seat_of[i] == visible[j]["seat"] for i, j in pairs)
        counts["matched"] += len(pairs)
        counts["matched in seat"] += sum(seat_of[i] == visible[j]["seat"] for i, j in pairs)
        hidden = Counter(c["seat"] for c in truth["cards"] if c["hidden"])
        box_of = {j: i for i, j in pairs}
        for k in range(n):
            mine = [j for j, c in enumerate(visible) if c["seat"] == k]
            if got[k] == wanted[k]:
                why["exact"] += 1
            elif hidden[k]:
                why["a card the photo hides"] += 1
            elif any(j not in box_of for j in mine):
                why["a card missed"] += 1
            elif not all(named[box_of[j]] for j in mine):
                why["a wrong name"] += 1
            elif any(seat_of[box_of[j]] != k for j in mine) or sorted(np.flatnonzero(seat_of == k)) != sorted(
                    box_of[j] for j in mine):
                why["a card in another seat, or a box of no card"] += 1
            else:
                why["the reading"] += 1
    line = (f"{root.name:20s} seats {counts['seats']:3d}  exact from truth boxes "
            f"{counts['exact from truth boxes'] / max(counts['seats'], 1):.3f}  photos read otherwise when rescaled "
            f"{counts['photos read otherwise when rescaled']}")
    if models is not None:
        f1 = lambda right: 2 * right / max(counts["boxes"] + counts["cards"], 1)  # noqa: E731
        line += (f"\n{'':20s} models: card F1 {f1(counts['named right']):.3f}  in seat {f1(counts['named right in seat']):.3f}"
                 f"  matched cards in their seat {counts['matched in seat'] / max(counts['matched'], 1):.3f}"
                 f"  exact seats {why['exact']}/{counts['seats']}\n{'':20s} not exact: {dict(why.most_common())}")
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--photos", type=int, default=30)
    parser.add_argument("--sizes", default="640x480,4032x3024")
    parser.add_argument("--kinds", default="table,tableau")
    parser.add_argument("--models", action="store_true")
    args = parser.parse_args()
    models = None
    if args.models:
        from vision.recognizer import Recognizer
        models = Recognizer.load()
    for kind in args.kinds.split(","):
        for size in args.sizes.split(","):
            w, h = map(int, size.split("x"))
            root = args.out / f"{kind}-{w}x{h}"
            render(root, kind, (w, h), args.photos)
            measure(root, models)


if __name__ == "__main__":
    main()
