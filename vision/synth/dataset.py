"""Write generated photos as datasets: YOLO detection, classification crops, truth JSON.

Layout under ``root`` (``datasets/build/<name>`` by default)::

    det/images/{train,val}/p000123.jpg   det/labels/{train,val}/p000123.txt   det/data.yaml
    truth/{train,val}/p000123.json       (cards, boxes, tableau per seat, stacks)
    cls/{train,val}/<slug>/p000123_04.jpg  (each visible region, jittered, stretched square)

Photo ``i`` of a dataset with seed ``s`` is ``compose_table(s * 1_000_003 + i)``, so any
photo can be rebuilt alone and two runs with one seed write identical files.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.faces import PRINTED_SLUGS, SLUGS
from vision.synth.compose import compose_table, printed_weights

#: Side of the square crops the classifier learns from (and is fed at run time).
CROP_SIZE = 96
DETECTOR_CLASSES = ("card",)


@dataclass(frozen=True)
class Recipe:
    """What to generate: photos per split, a seed, which faces, options for compose_table."""

    name: str
    train: int
    val: int
    seed: int
    faces: str = "digital"
    crops: bool = True
    crop_jitter: float = 0.08
    size: tuple[int, int] = (1280, 960)
    print_weighted: bool = False
    #: crops only (more classifier data): no detection files, photos named ``<prefix>...``
    det: bool = True
    prefix: str = "p"
    boost: tuple[str, ...] = ()


RECIPES = {
    # the models' training data: digital faces only, the printed scans never appear
    "train": Recipe("train", train=1200, val=120, seed=1),
    # the evaluation sets: never trained on
    "test-print": Recipe("test-print", train=0, val=200, seed=7, faces="print", crops=False,
                         print_weighted=True),
    "test-digital": Recipe("test-digital", train=0, val=200, seed=8, crops=False),
    "tiny": Recipe("tiny", train=8, val=4, seed=3, size=(640, 480)),
    # more classifier crops, written beside the train recipe's; the classes the first
    # classifier confused most (icon counts, look-alike strips) are drawn twice as often
    "train-crops": Recipe("train-crops", train=1000, val=0, seed=2, det=False, prefix="x",
                          boost=("uramaki-3", "uramaki-4", "uramaki-5", "maki-1", "maki-2", "maki-3",
                                 "menu", "pudding", "fruit-pineapple-orange", "fruit-watermelon-orange",
                                 "fruit-orange-orange", "fruit-watermelon-pineapple", "onigiri-rectangle",
                                 "onigiri-square", "onigiri-circle", "spoon", "wasabi")),
}


def photo_seed(recipe: Recipe, split: str, index: int) -> int:
    return recipe.seed * 1_000_003 + (500_000 if split == "val" else 0) + index


def yolo_label_lines(truth: dict) -> list[str]:
    """One ``0 cx cy w h`` line (normalised) per visible card region."""
    w, h = truth["size"]
    lines = []
    for card in truth["cards"]:
        if card["hidden"]:
            continue
        x1, y1, x2, y2 = card["box"]
        lines.append(f"0 {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return lines


def square_crop(image: np.ndarray, box, size: int = CROP_SIZE) -> np.ndarray:
    """The box's pixels stretched to a square: what the classifier sees.

    Stretching (not centre-cropping) keeps a strip's corner icon in view.
    """
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    x1, y1 = max(0, min(x1, w - 1)), max(0, min(y1, h - 1))
    x2, y2 = max(x1 + 1, min(x2, w)), max(y1 + 1, min(y2, h))
    return cv2.resize(image[y1:y2, x1:x2], (size, size), interpolation=cv2.INTER_AREA)


def _jitter(rng: np.random.Generator, box, amount: float) -> list[float]:
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    d = rng.uniform(-amount, amount, 4) * [bw, bh, bw, bh]
    return [x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]]


def _truth_path(recipe: Recipe, root: Path, split: str, index: int) -> Path:
    folder = split if recipe.det else f"{split}-{recipe.name}"
    return root / "truth" / folder / f"{recipe.prefix}{index:06d}.json"


def _make_one(job) -> int:
    recipe, root, split, index = job
    seed = photo_seed(recipe, split, index)
    weights = printed_weights() if recipe.print_weighted else {s: 2.0 for s in recipe.boost} or None
    image, truth = compose_table(seed, faces=recipe.faces, size=recipe.size, slug_weights=weights)
    name = f"{recipe.prefix}{index:06d}"
    if recipe.det:
        truth["image"] = f"det/images/{split}/{name}.jpg"
        cv2.imwrite(str(root / truth["image"]), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (root / "det" / "labels" / split / f"{name}.txt").write_text("\n".join(yolo_label_lines(truth)) + "\n")
    if recipe.crops:
        rng = np.random.default_rng([seed, 99])
        for k, card in enumerate(truth["cards"]):
            if card["hidden"]:
                continue
            folder = root / "cls" / split / card["label"]
            box = _jitter(rng, card["box"], recipe.crop_jitter)
            cv2.imwrite(str(folder / f"{name}_{k:02d}.jpg"), square_crop(image, box))
    _truth_path(recipe, root, split, index).write_text(json.dumps(truth))
    return len(truth["cards"])


def generate(recipe: Recipe, root: str | Path, workers: int = 2, progress: bool = True) -> Path:
    """Generate ``recipe`` under ``root``; photos already written are kept (resumable)."""
    root = Path(root)
    jobs = []
    for split, count in (("train", recipe.train), ("val", recipe.val)):
        if not count:
            continue
        _truth_path(recipe, root, split, 0).parent.mkdir(parents=True, exist_ok=True)
        for sub in ("det/images", "det/labels") if recipe.det else ():
            (root / sub / split).mkdir(parents=True, exist_ok=True)
        if recipe.crops:
            for slug in SLUGS:
                (root / "cls" / split / slug).mkdir(parents=True, exist_ok=True)
        for index in range(count):
            if not _truth_path(recipe, root, split, index).exists():
                jobs.append((recipe, root, split, index))
    if jobs:
        bar = tqdm(total=len(jobs), desc=f"generate {recipe.name}", unit="photo", disable=not progress)
        if workers > 1:
            with ProcessPoolExecutor(workers) as pool:
                for _ in pool.map(_make_one, jobs, chunksize=4):
                    bar.update()
        else:
            for job in jobs:
                _make_one(job)
                bar.update()
        bar.close()
    if not recipe.det:
        return root
    splits = {"train": "images/train" if recipe.train else "images/val", "val": "images/val"}
    data_yaml = (f"path: {(root / 'det').resolve()}\ntrain: {splits['train']}\nval: {splits['val']}\n"
                 f"names:\n  0: card\n")
    (root / "det" / "data.yaml").write_text(data_yaml)
    (root / "recipe.json").write_text(json.dumps({
        "name": recipe.name, "train": recipe.train, "val": recipe.val, "seed": recipe.seed,
        "faces": recipe.faces, "printed_slugs_held_out": list(PRINTED_SLUGS)
        if recipe.faces == "digital" else [],
    }, indent=1))
    return root


def load_truths(root: str | Path, split: str = "val") -> list[dict]:
    """Every truth JSON of a split, in photo order."""
    folder = Path(root) / "truth" / split
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
