"""The ``field-*`` test sets: photos from this renderer, rendered once under ``datasets/build``.

Layout like the training renderer's test sets, so ``load_truths`` reads them:
``<root>/images/p000007.jpg`` and ``<root>/truth/val/p000007.json`` (the truth names its
image). Photo ``i`` of a set is ``render_photo(seed * 1_000_003 + i, kind, size)``.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2

from vision.fieldtest.render import render_photo


@dataclass(frozen=True)
class FieldSet:
    name: str
    #: (kind, size) of each photo in turn, cycled over ``photos``
    shots: tuple[tuple[str, tuple[int, int]], ...]
    photos: int
    seed: int


FIELD_SETS = {s.name: s for s in (
    FieldSet("field-tableau", (("tableau", (1280, 960)),), 40, 101),
    FieldSet("field-table", (("table", (2016, 1512)),), 40, 102),
    FieldSet("field-crowd", (("crowd", (2016, 1512)),), 12, 103),
    FieldSet("field-rect", (("rect", (2016, 1512)),), 12, 104),
    FieldSet("field-closeup", (("closeup", (1280, 960)), ("closeup", (2016, 1512))), 15, 105),
    # the extremes of size: a phone's full resolution, and a webcam
    FieldSet("field-sizes", (("table", (4032, 3024)), ("tableau", (640, 480)), ("tableau", (4032, 3024)),
                             ("table", (640, 480))), 8, 106),
    # photos the "unsure" rule is calibrated on (never reported as a test)
    FieldSet("field-calib", (("tableau", (1280, 960)), ("table", (2016, 1512)), ("crowd", (2016, 1512)),
                             ("closeup", (1280, 960)), ("rect", (2016, 1512))), 40, 199),
    # more photos to develop on (never reported as a test): single tableaux, whole tables of
    # 2-5 seats, 6-8 seats and rectangular ones in turn, close-ups, and the extremes of size
    FieldSet("field-dev-tableau", (("tableau", (1280, 960)),), 60, 301),
    FieldSet("field-dev-table", (("table", (2016, 1512)), ("crowd", (2016, 1512)), ("rect", (2016, 1512))), 45, 302),
    FieldSet("field-dev-closeup", (("closeup", (1280, 960)), ("closeup", (2016, 1512))), 40, 306),
    FieldSet("field-dev-sizes", (("table", (4032, 3024)), ("tableau", (640, 480)), ("tableau", (4032, 3024)),
                                 ("table", (640, 480))), 24, 307),
)}
#: ``--sets field`` means these
FAMILIES = {"field": ("field-tableau", "field-table", "field-crowd", "field-rect", "field-closeup", "field-sizes")}


def _one(job) -> None:
    spec, root, index = job
    kind, size = spec.shots[index % len(spec.shots)]
    image, truth = render_photo(spec.seed * 1_000_003 + index, kind, size)
    name = f"p{index:06d}"
    truth["image"] = f"images/{name}.jpg"
    cv2.imwrite(str(root / truth["image"]), image, [cv2.IMWRITE_JPEG_QUALITY, 97])
    (root / "truth" / "val" / f"{name}.json").write_text(json.dumps(truth))


def build(name: str, root: str | Path, workers: int = 2) -> Path:
    """Render the set ``name`` under ``root`` (photos already there are kept)."""
    spec = FIELD_SETS[name]
    root = Path(root)
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "truth" / "val").mkdir(parents=True, exist_ok=True)
    jobs = [(spec, root, i) for i in range(spec.photos) if not (root / "truth" / "val" / f"p{i:06d}.json").exists()]
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(_one, jobs))
    else:
        for job in jobs:
            _one(job)
    return root
