"""Retrain the card classifier from the taught faces and the players' corrections, safely.

``retrain(data_dir)`` builds a new model *version* beside the one in use:

1. **data**: synthetic table photos are composed from the bundled faces and the taught ones
   together (each photo also holds 1-4 taught cards), and their card regions cut out as
   classifier crops; the rounds players confirmed in the app (``<data>/training``, YOLO
   labels) add their own crops, except a correction the model in use confidently reads as
   another card, until the player vouches for it (``vision.teach.corrections``). A fifth of
   the confirmed photos and a separate set of composed photos are held out for evaluation.
2. **fine-tune** the active classifier (``vision.training.classifier``: torch and ultralytics,
   the ``[train]`` extra) rather than starting over. A card the
   model never knew (an anniversary card, a taught slug) is a new class: the classifier's last
   layer is widened, keeping every known class's weights.
3. **evaluate** the old and the new model the way the app uses them (detector, then
   classifier) on the held-out composed tables: the new one must run, read the tables at least
   as well (card F1 within ``tolerance``), name the cards the old one knew nearly as well
   (within ``max_known_drop``) and read the held-out *confirmed* photos, with their confirmed
   labels, at least as well (within ``real_tolerance``); only then does it become the active
   model. The count classifier is not retrained: where the player taught or confirmed maki
   or uramaki, the new version keeps it only if it counts them on those held-out tables and
   photos at least as well as the retrained classifier alone. A taught or new card it still
   reads badly (F1 < ``WEAK_F1``) is recorded as ``weak`` in its ``version.json``, and is
   not "known" on the teach page.
4. **the detector too**, when the plan asks (``detector_epochs``, ``sushicam retrain
   --detector``): the base's detector is fine-tuned on the composed photos and the confirmed
   ones (every box a player confirmed, a card the model missed and the player added
   included: the classifier alone never learns to *find* a card), its weights averaged with
   the base's, and the new version reads with it only where, with the new classifier, it
   reads the player's held-out confirmed photos at least as well as the base's detector
   does, and the held-out composed tables within ``tolerance``. Minutes more on two cores;
   off by default.

The run is five stages: :func:`prepare` (under the data folder's lock: the base model, the
taught faces, the confirmed rounds), :func:`train`, :func:`measure` (both models on the held-out
data), :func:`vision.teach.decision.decide` (pure: the figures to a kept-or-not
:class:`~vision.teach.decision.RetrainDecision` with its cause) and :func:`commit`
(``version.json``, the version named). The decision is stored as its cause and figures; the teach
page and the command line word it.

The versions and the active pointer are kept by :class:`vision.teach.models.ModelStore`.
Everything is written in ``<data>/models/.staging-*`` and renamed in place at the end; the
``active`` pointer is replaced atomically last. A run that crashes, is killed or is refused
leaves the active model as it was; ``rollback`` goes back to the version used before.

How taught faces reach the photo generator without changing it: ``compose_table`` takes a
:class:`~vision.faces.FaceSet` and validates tableau slugs against the bundled ones. A taught
face of a known slug is simply one more variant of it; a slug the bundled set lacks is drawn
*as* a bundled "carrier" slug kept out of that photo's tableau, whose face in that photo's
FaceSet is the taught face, and the truth labels are renamed back afterwards.
"""

from __future__ import annotations

import json
import resource
import shutil
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from vision.faces import SLUGS, FaceSet, digital_faces
from vision.recognizer import COUNT_FAMILIES, CROP_SIZE, NOT_A_CARD, square_crop
from vision.synth.dataset import write_detector_yaml, write_negative_crops, yolo_box_lines
from vision.teach.corrections import (
    ConfirmedPhoto,
    Doubt,
    find_doubts,
    read_confirmed,
    vouched,
    without,
)
from vision.teach.decision import (
    Change,
    CounterNote,
    DetectorNote,
    Limits,
    Measured,
    Notes,
    RetrainDecision,
    decide,
)
from vision.teach.library import FaceLibrary
from vision.teach.models import (
    REPO_MODELS,
    ModelStore,
    ModelStoreError,
    ModelVersion,
    NothingToLearnError,
)
from vision.training import require_training_stack
from vision.training.classifier import (
    Progress,
    _quiet,
    export_classifier,
    fine_tune_classifier,
    widen_classifier,
)
from vision.training.evaluate import card_f1, match_cards

#: Bundled slugs a composed photo may draw as stand-ins for taught-only slugs (plain cards:
#: never part of a stack rule, so the generator lays them like any other).
#: A taught or new card read with a card F1 under this after retraining is not yet "known".
WEAK_F1 = 0.5
#: the faces the count classifier decides among (``Recognizer.recount``)
COUNTED = {face for family in COUNT_FAMILIES for face in family}
CARRIERS = ("eel", "tofu", "edamame", "miso-soup", "tea", "soy-sauce", "temaki", "dumpling",
            "tempura", "sashimi", "green-tea-ice-cream", "menu")


# --- data ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetrainPlan:
    """Sizes of one retraining; the defaults fit in about ten minutes on two CPU cores."""

    photos: int = 360  # composed training photos
    val_photos: int = 80  # composed held-out photos
    epochs: int = 6
    imgsz: int | None = None  # classifier input side; None: the base model's (meta.json)
    #: the side crops are cut at; None: the base model's (``meta.json``'s ``classifier.crop``):
    #: the new version is read from crops cut as its base's are
    crop: int | None = None
    batch: int = 64
    size: tuple[int, int] = (1280, 960)
    seed: int = 0
    #: "not worse": card F1 on the held-out tables may drop this much (noise), and the share of
    #: the known cards named right ``max_known_drop`` (a new look-alike card costs a little)
    tolerance: float = 0.01
    max_known_drop: float = 0.03
    workers: int = 2
    #: bundled slugs the generator must not draw from the bundled faces (to measure teaching
    #: on cards whose digital faces exist: see ``vision.teach.evaluate``)
    hidden: tuple[str, ...] = ()
    lr0: float = 0.0005
    #: card F1 on the held-out confirmed photos (real ones) may drop this much
    real_tolerance: float = 0.01
    #: layers kept as they are: 8 leaves the last feature block and the output layer to learn,
    #: which kept the known cards' F1 (0.930 vs 0.928 before) at a third of the CPU time of
    #: fine-tuning everything at lr0 1e-4 (0.924), new cards alike (0.94-1.0); 0 tunes all
    freeze: int = 8
    #: epochs of fine-tuning the detector too (0: the new version reads with the base's); each
    #: epoch goes over ``detector_photos`` composed photos and three copies of each confirmed one
    detector_epochs: int = 0
    #: the composed photos the detector learns from (the first of the classifier's): few, so
    #: that the player's own rounds weigh (it knows our renderer's already), and each epoch
    #: takes about 80 s on two cores with 37 confirmed rounds (models/README.md)
    detector_photos: int = 120
    #: the side the detector learns at; None: the side the base's is fed at (``meta.json``)
    detector_imgsz: int | None = None
    detector_batch: int = 8
    #: AdamW's rate: the detector's own fine-tuning stages (models/README.md) used 2e-4
    detector_lr0: float = 0.0002
    #: the fine-tuned detector's share of the weights, the rest the base's (WiSE-FT, as the
    #: bundled detector's CPU stages: a few hundred photos must not make it forget the rest)
    detector_share: float = 0.5

    def __post_init__(self) -> None:
        for name in ("photos", "val_photos", "epochs", "batch", "workers", "detector_batch", "detector_photos"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of 1 or more, not {value!r}")
        if not isinstance(self.detector_epochs, int) or self.detector_epochs < 0:
            raise ValueError(f"detector_epochs must be a whole number of 0 or more, not {self.detector_epochs!r}")
        if not 0 < self.detector_share <= 1:
            raise ValueError(f"detector_share must be above 0 and at most 1, not {self.detector_share!r}")


@dataclass(frozen=True)
class Sources:
    """What a retraining learns from."""

    bundled: FaceSet
    taught: FaceSet
    corrections: Path | None

    @property
    def taught_only(self) -> tuple[str, ...]:
        """Taught slugs with no bundled face: they need a carrier in composed photos."""
        return tuple(s for s in self.taught.slugs() if s not in self.bundled)


def load_sources(data_dir: str | Path, cards_dir: str | Path | None = None,
                 hidden: Sequence[str] = ()) -> Sources:
    bundled = digital_faces(cards_dir)
    kept = {slug: faces for slug, faces in bundled.faces.items() if slug not in hidden}
    corrections = Path(data_dir) / "training"
    has_corrections = (corrections / "classes.txt").exists() and any((corrections / "labels").glob("*.txt"))
    return Sources(FaceSet(bundled.name, kept), FaceLibrary(data_dir).face_set(),
                   corrections if has_corrections else None)


def _jitter(rng: np.random.Generator, box: Sequence[float], amount: float = 0.08) -> list[float]:
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    d = rng.uniform(-amount, amount, 4) * [w, h, w, h]
    return [x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]]


def compose_with_taught(seed: int, sources: Sources, size: tuple[int, int],
                        taught_cards: tuple[int, int] = (1, 4)) -> tuple[np.ndarray, dict]:
    """A composed table photo holding bundled cards and 1-4 taught ones, with its truth.

    Taught faces of bundled slugs join their slug's variants (as often as the bundled ones);
    taught-only slugs are drawn as carriers (see the module's notes) and renamed in the truth.
    """
    from vision.synth.compose import compose_table, random_tableau

    rng = np.random.default_rng([seed, 77])
    taught = sources.taught.slugs()
    only = set(sources.taught_only)
    faces = dict(sources.bundled.faces)
    for slug in taught:
        if slug not in only:
            bundled = faces.get(slug, ())
            extra = sources.taught.faces[slug]
            # as many taught variants as bundled ones: the player's printing is seen half the time
            faces[slug] = tuple(bundled) + tuple(extra[i % len(extra)] for i in range(max(len(bundled), len(extra))))
    # the taught cards of this photo; each taught-only slug gets a carrier of its own
    picks = [str(s) for s in rng.choice(taught, size=int(rng.integers(taught_cards[0], taught_cards[1] + 1)))] \
        if taught else []
    free = [c for c in CARRIERS if c in sources.bundled]
    rng.shuffle(free)
    renamed: dict[str, str] = {}  # carrier -> taught slug
    placed: list[str] = []
    for slug in picks:
        if slug in only:
            carrier = next((c for c, s in renamed.items() if s == slug), None)
            if carrier is None:
                if len(renamed) >= len(free):
                    continue
                carrier = free[len(renamed)]
                renamed[carrier] = slug
                faces[carrier] = sources.taught.faces[slug]
            slug = carrier
        placed.append(slug)
    # no other card of the photo may be drawn as a carrier, nor as a face the set lacks
    weights = {s: 0.0 for s in SLUGS if s not in sources.bundled or s in renamed}
    n_seats = int(rng.choice([1, 2, 3], p=[0.5, 0.3, 0.2]))
    tableaux = [random_tableau(rng, int(rng.integers(3, 9)), weights=weights) for _ in range(n_seats)]
    # random_tableau adds wasabi+nigiri, special orders and card backs by its own rules: keep
    # only what the bundled faces can draw
    allowed = set(sources.bundled.slugs()) - set(renamed)
    tableaux = [[e for e in t if all(s in allowed for s in ([e] if isinstance(e, str) else e))]
                for t in tableaux]
    for slug in placed:
        seat = int(rng.integers(0, n_seats))
        repeat = 1 + int(rng.random() < 0.3)  # a column of two: the lower shows its top strip
        tableaux[seat].extend([slug] * repeat)
    for seat, tableau in enumerate(tableaux):
        if not tableau:
            tableau.append(str(rng.choice(sorted(allowed))))
        order = rng.permutation(len(tableau))
        tableaux[seat] = [tableau[i] for i in order]
    image, truth = compose_table(seed, tableaux, size=size, faces=FaceSet("retrain", faces))
    for card in truth["cards"]:
        card["label"] = renamed.get(card["label"], card["label"])
    return image, truth


_WORKER_SOURCES: Sources | None = None


def tables_dir(crops_root: Path) -> Path:
    """Where the held-out photos of a dataset are kept whole (beside its crops)."""
    return crops_root.parent / "val-tables"


def _init_worker(sources: Sources) -> None:
    global _WORKER_SOURCES
    _WORKER_SOURCES = sources


def _compose_crops(job: tuple[int, str, Path, tuple[int, int], int, Path | None]) -> int:
    """Compose one photo and write its card crops under ``root/<split>/<slug>/`` (and one
    crop of bare table or clutter under ``not-a-card``).

    A held-out photo is also kept whole with its truth (``tables_dir(root)``), for reading
    end to end with each model; with ``det_root``, every photo is also written whole with its
    card regions for the detector (:func:`detector_photo`).
    """
    seed, split, root, size, crop_size, det_root = job
    assert _WORKER_SOURCES is not None
    image, truth = compose_with_taught(seed, _WORKER_SOURCES, size)
    if det_root is not None:
        regions = [card["box"] for card in truth["cards"] if not card["hidden"]]
        detector_photo(det_root, split, f"s{seed}", image, regions)
    if split == "val":
        tables = tables_dir(root)
        tables.mkdir(parents=True, exist_ok=True)
        truth["image"] = f"s{seed}.jpg"
        cv2.imwrite(str(tables / truth["image"]), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (tables / f"s{seed}.json").write_text(json.dumps(truth))
    rng = np.random.default_rng([seed, 99])
    written = 0
    for k, card in enumerate(truth["cards"]):
        if card["hidden"]:
            continue
        folder = root / split / card["label"]
        folder.mkdir(parents=True, exist_ok=True)
        crop = square_crop(image, _jitter(rng, card["box"]), crop_size)
        cv2.imwrite(str(folder / f"s{seed}_{k:02d}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
        written += 1
    return written + write_negative_crops(image, truth, root / split / NOT_A_CARD, f"s{seed}",
                                          np.random.default_rng([seed, 98]), 1, crop_size)


def detector_photo(det_root: Path, split: str, name: str, image: np.ndarray | Path,
                   boxes: Sequence[Sequence[float]], size: tuple[int, int] | None = None) -> None:
    """One photo of the detector's data set (YOLO layout: ``det_root/images/<split>/<name>.jpg``
    and ``det_root/labels/<split>/<name>.txt``, one ``0 cx cy w h`` line per card region, in
    fractions of the photo). ``image`` is the photo's pixels or the path of its file (copied;
    ``size`` its width and height)."""
    images, labels = det_root / "images" / split, det_root / "labels" / split
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    if isinstance(image, Path):
        assert size is not None
        shutil.copyfile(image, images / f"{name}{image.suffix.lower()}")
        w, h = size
    else:
        cv2.imwrite(str(images / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        h, w = image.shape[:2]
    inside = []
    for x1, y1, x2, y2 in boxes:
        x1, x2 = max(0.0, min(x1, x2)), min(float(w), max(x1, x2))
        y1, y2 = max(0.0, min(y1, y2)), min(float(h), max(y1, y2))
        if x2 - x1 >= 1 and y2 - y1 >= 1:
            inside.append((x1, y1, x2, y2))
    (labels / f"{name}.txt").write_text("".join(line + "\n" for line in yolo_box_lines(inside, (w, h))))


def confirmed_detector_photos(photos: Sequence[ConfirmedPhoto], det_root: Path, copies: int = 3) -> dict[str, int]:
    """The confirmed photos in the detector's data set with every box the player confirmed
    (the training ones ``copies`` times over: a real photo is worth more than a composed one;
    a held-out one once, to ``val``). How many photos went to each split."""
    counts = {"train": 0, "val": 0}
    for photo in photos:
        if not all(photo.size):  # its size unread: its boxes cannot be put in fractions
            continue
        split = "val" if photo.held_out else "train"
        boxes = [card.box for card in photo.cards]
        for j in range(1 if photo.held_out else copies):
            detector_photo(det_root, split, f"c_{photo.name}_{j}", photo.image, boxes, photo.size)
        counts[split] += 1
    return counts


def correction_crops(photos: Sequence[ConfirmedPhoto], root: Path, seed: int = 0,
                     crop_size: int = CROP_SIZE) -> dict[str, int]:
    """Crops of every card of the confirmed photos -> ``root/{train,val}/<slug>/`` (a held-out
    photo's cards to ``val``)."""
    rng = np.random.default_rng([seed, 5])
    counts = {"train": 0, "val": 0}
    for photo in photos:
        image = cv2.imread(str(photo.image), cv2.IMREAD_COLOR) if photo.cards else None
        if image is None:
            continue
        split = "val" if photo.held_out else "train"
        for card in photo.cards:
            folder = root / split / card.label
            folder.mkdir(parents=True, exist_ok=True)
            # a real photo is worth more than a composed one: three jittered crops to train on
            for j in range(3 if split == "train" else 1):
                crop = square_crop(image, _jitter(rng, card.box) if j else list(card.box), crop_size)
                cv2.imwrite(str(folder / f"c_{photo.name}_{card.line:03d}_{j}.jpg"), crop)
                counts[split] += 1
    return counts


def _face_crops(face: np.ndarray, rng: np.random.Generator, n: int, crop_size: int = CROP_SIZE) -> list[np.ndarray]:
    """Crops of a lone face, slightly turned and tilted (for a class no photo showed)."""
    h, w = face.shape[:2]
    crops = []
    for _ in range(n):
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        dst = (src + rng.uniform(-0.06, 0.06, (4, 2)) * [w, h]).astype(np.float32)
        warped = cv2.warpPerspective(face, cv2.getPerspectiveTransform(src, dst), (w, h),
                                     borderMode=cv2.BORDER_REPLICATE)
        crops.append(cv2.resize(warped, (crop_size, crop_size), interpolation=cv2.INTER_AREA))
    return crops


def build_dataset(sources: Sources, root: Path, plan: RetrainPlan, classes: Sequence[str],
                  progress: Progress = _quiet, confirmed: Sequence[ConfirmedPhoto] = (),
                  det_root: Path | None = None) -> dict[str, Any]:
    """Write the classifier's crops for ``classes`` under ``root/{train,val}/<slug>/``, and
    with ``det_root`` the composed photos whole for the detector (:func:`detector_photo`).

    Every class gets a folder with at least a few crops in both splits: ultralytics numbers
    classes by their folders, which must match the widened classifier's rows.
    """
    crop_size = plan.crop or CROP_SIZE
    jobs = [(plan.seed * 1_000_003 + i, "train", root, plan.size, crop_size,
             det_root if i < plan.detector_photos else None) for i in range(plan.photos)]
    jobs += [(plan.seed * 1_000_003 + 700_000 + i, "val", root, plan.size, crop_size, det_root)
             for i in range(plan.val_photos)]
    done = 0
    bar = tqdm(total=len(jobs), desc="compose photos", unit="photo", disable=None)
    with ProcessPoolExecutor(max(1, plan.workers), initializer=_init_worker, initargs=(sources,)) as pool:
        for _ in pool.map(_compose_crops, jobs, chunksize=4):
            done += 1
            bar.update()
            if done % 10 == 0 or done == len(jobs):
                progress("compose", done / len(jobs), f"composed {done} of {len(jobs)} photos")
    bar.close()
    corrected = correction_crops(confirmed, root, plan.seed, crop_size) if confirmed else {}
    rng = np.random.default_rng([plan.seed, 11])
    for slug in classes:
        for split, least in (("train", 8), ("val", 2)):
            folder = root / split / slug
            folder.mkdir(parents=True, exist_ok=True)
            have = len(list(folder.glob("*.jpg")))
            if have >= least:
                continue
            faces = sources.taught.faces.get(slug) or sources.bundled.faces.get(slug)
            if faces:
                crops = _face_crops(faces[int(rng.integers(len(faces)))], rng, least - have, crop_size)
            else:  # a class known only from the other split's crops
                other = root / ("val" if split == "train" else "train") / slug
                crops = [cv2.imread(str(p)) for p in sorted(other.glob("*.jpg"))[: least - have]]
            for i, crop in enumerate(c for c in crops if c is not None):
                cv2.imwrite(str(folder / f"f_{i:03d}.jpg"), crop)
    counts = {split: {slug: len(list((root / split / slug).glob("*.jpg"))) for slug in classes}
              for split in ("train", "val")}
    return {"photos": plan.photos, "val_photos": plan.val_photos, "corrections": corrected,
            "crops": {split: sum(c.values()) for split, c in counts.items()}}


# --- evaluation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Scores:
    """Classifier scores on held-out crops whose truth is one of ``classes``."""

    f1: float  # macro F1 over the classes
    accuracy: float
    crops: int
    per_class: dict[str, float] = field(default_factory=dict)


def score_classifier(classifier_onnx: Path, crops_root: Path, classes: Sequence[str]) -> Scores:
    """Macro F1 of a classifier on ``crops_root/<slug>/*.jpg`` for the slugs in ``classes``.

    A crop named as a class the model knows but the truth is not counts against that class's
    precision; a class the model does not have scores 0.
    """
    from vision.runtime import OnnxClassifier

    classifier = OnnxClassifier(classifier_onnx, threads=2)
    names = list(classifier.names or [])
    truths: list[str] = []
    guesses: list[str] = []
    for slug in classes:
        paths = sorted((crops_root / slug).glob("*.jpg"))
        for start in range(0, len(paths), 64):
            crops = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths[start:start + 64]]
            probabilities = classifier([c for c in crops if c is not None])
            guesses += [names[i] for i in probabilities.argmax(1)]
            truths += [slug] * len(probabilities)
    per_class = {}
    for slug in classes:
        tp = sum(1 for t, g in zip(truths, guesses, strict=True) if t == slug and g == slug)
        fp = sum(1 for t, g in zip(truths, guesses, strict=True) if t != slug and g == slug)
        fn = sum(1 for t, g in zip(truths, guesses, strict=True) if t == slug and g != slug)
        per_class[slug] = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0
    f1 = float(np.mean(list(per_class.values()))) if per_class else 0.0
    accuracy = float(np.mean([t == g for t, g in zip(truths, guesses, strict=True)])) if truths else 0.0
    return Scores(round(f1, 4), round(accuracy, 4), len(truths), {k: round(v, 4) for k, v in per_class.items()})


@dataclass(frozen=True)
class TableScores:
    """How a model reads composed tables, for the cards whose truth is in a group of slugs.

    ``f1``: a card counts when a detection overlaps it (IoU >= 0.5) with its name; a
    detection named in the group but matching no such card is a false positive. ``named``:
    the share of the group's cards the detector found that were named right (the classifier
    alone).
    """

    f1: float
    precision: float
    recall: float
    named: float
    cards: int


def read_tables(model_dir: Path, folder: Path, truths: Sequence[dict],
                counting: bool = True) -> list[tuple[list[str], list[dict], list[tuple[int, int]]]]:
    """Each table read by the model: (predicted labels, visible truth cards, matched pairs);
    ``counting=False``: without its count classifier, the classifier naming the counts alone."""
    from vision.recognizer import Recognizer

    recognizer = Recognizer.load(model_dir)
    if not counting:
        recognizer = replace(recognizer, counter=None)
    read = []
    for truth in truths:
        pred = recognizer.detect(cv2.imread(str(folder / truth["image"]), cv2.IMREAD_COLOR))
        pairs, visible = match_cards(pred, truth["cards"])
        read.append((pred.labels, visible, pairs))
    return read


def score_tables(read: Sequence[tuple[list[str], list[dict], list[tuple[int, int]]]],
                 group: set[str] | None = None) -> TableScores:
    """:class:`TableScores` of tables read by :func:`read_tables`, for ``group`` (None: all)."""
    tp = fp = fn = found = 0
    inside = (lambda label: True) if group is None else (lambda label: label in group)  # noqa: E731
    for labels, visible, pairs in read:
        right = {(i, j) for i, j in pairs if labels[i] == visible[j]["label"]}
        right_truths = {j for _, j in right}
        right_preds = {i for i, _ in right}
        for j, card in enumerate(visible):
            if inside(card["label"]):
                if j in right_truths:
                    tp += 1
                else:
                    fn += 1
        found += sum(1 for _, j in pairs if inside(visible[j]["label"]))
        fp += sum(1 for i, label in enumerate(labels) if inside(label) and i not in right_preds)
    precision, recall, f1 = card_f1(tp, tp + fp, tp + fn)
    return TableScores(round(f1, 4), round(precision, 4), round(recall, 4),
                       round(tp / found, 4) if found else 0.0, tp + fn)


def real_tables(confirmed: Sequence[ConfirmedPhoto]) -> tuple[Path, list[dict]]:
    """The fixed set of real photos both models are judged on, as :func:`read_tables` reads them:
    the held-out confirmed photos (none of them trained on; all of them when none is held out,
    which favours the new model), each card with its confirmed label. ``confirmed`` comes
    without its doubted cards: a card read where one lies counts as a false reading for either
    model alike."""
    held = [p for p in confirmed if p.held_out] or list(confirmed)
    truths = [{"image": photo.image.name, "cards": [{"label": c.label, "box": list(c.box), "hidden": False}
                                                    for c in photo.cards]}
              for photo in held if photo.cards]
    return (held[0].image.parent if held else Path(".")), truths


def check_recognizer(model_dir: Path, sample: np.ndarray) -> None:
    """Load a model folder as the app would and read one photo; raises if it cannot."""
    from vision.recognizer import Recognizer

    recognizer = Recognizer.load(model_dir)
    recognizer.detect(sample)


# --- the whole run ------------------------------------------------------------------------


@dataclass(frozen=True)
class RetrainResult:
    """What a retraining did: the version it built, whether it is the one to use, and why."""

    version: str | None
    accepted: bool
    decision: RetrainDecision
    base: str
    added: tuple[str, ...]
    metrics: dict[str, Any]
    wall_s: float
    cpu_s: float

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "accepted": self.accepted, "decision": self.decision.to_json(),
                "base": self.base, "added": list(self.added), "metrics": self.metrics,
                "wall_s": self.wall_s, "cpu_s": self.cpu_s}


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


Trainer = Callable[[Path, Path, Path, RetrainPlan, Progress], Path]


def fine_tune(widened_pt: Path, data: Path, run_dir: Path, plan: RetrainPlan, progress: Progress = _quiet) -> Path:
    """The default :data:`Trainer`: the plan's settings, handed to the training code."""
    return fine_tune_classifier(widened_pt, data, run_dir, epochs=plan.epochs, imgsz=int(plan.imgsz or 64),
                                batch=plan.batch, lr0=plan.lr0, freeze=plan.freeze, progress=progress)


#: fine-tunes the detector: ``(base detector.pt, YOLO data.yaml, run folder, plan, input side,
#: progress) -> weights``
DetectorTrainer = Callable[[Path, Path, Path, RetrainPlan, int, Progress], Path]


def fine_tune_finder(base_pt: Path, data_yaml: Path, run_dir: Path, plan: RetrainPlan, imgsz: int,
                     progress: Progress = _quiet) -> Path:
    """The default :data:`DetectorTrainer`: the plan's settings, handed to the training code."""
    from vision.training.detector import fine_tune_detector

    return fine_tune_detector(base_pt, data_yaml, run_dir, epochs=plan.detector_epochs, imgsz=imgsz,
                              batch=plan.detector_batch, lr0=plan.detector_lr0, share=plan.detector_share,
                              progress=progress)


@dataclass(frozen=True)
class TunedDetector:
    """A fine-tuned detector: its weights, its ONNX export, and what it learnt from."""

    weights: Path
    onnx: Path
    learnt: dict[str, Any]


def tune_detector(base_dir: Path, meta: dict[str, Any], det_root: Path, confirmed: Sequence[ConfirmedPhoto],
                  work: Path, plan: RetrainPlan, trainer: DetectorTrainer,
                  progress: Progress = _quiet) -> TunedDetector:
    """The base's detector fine-tuned on the composed photos already in ``det_root`` and the
    confirmed ones (:func:`confirmed_detector_photos`)."""
    from vision.training.detector import export_detector

    counts = confirmed_detector_photos(confirmed, det_root)
    data_yaml = write_detector_yaml(det_root)
    fed = int(meta.get("detector", {}).get("imgsz") or 640)
    imgsz = plan.detector_imgsz or fed
    progress("detector", 0.0, "fine-tuning the detector")
    weights = trainer(base_dir / "detector.pt", data_yaml, work / "detector-run", plan, imgsz, progress)
    onnx = export_detector(weights, fed, work / "detector-tuned.onnx")
    learnt = {"epochs": plan.detector_epochs, "imgsz": imgsz, "share": plan.detector_share,
              "composed_photos": min(plan.photos, plan.detector_photos), "confirmed_photos": counts["train"],
              "confirmed_held_out": counts["val"]}
    return TunedDetector(weights, onnx, learnt)


# prepare: the lock is held; what the retraining learns from


@dataclass(frozen=True)
class Prepared:
    """What a retraining learns from, gathered before any work."""

    base: ModelVersion
    sources: Sources
    #: every confirmed photo (the detector learns all their boxes) and those without the doubted
    #: corrections (the classifier learns only these names)
    every_confirmed: list[ConfirmedPhoto]
    confirmed: list[ConfirmedPhoto]
    doubts: list[Doubt]
    #: the cards the confirmed photos show
    correction_classes: frozenset[str]
    #: the base's classes, the new version's, and the cards new to it
    known: tuple[str, ...]
    classes: list[str]
    added: tuple[str, ...]


def prepare(store: ModelStore, data_dir: str | Path, plan: RetrainPlan, base: str | None = None,
            cards_dir: str | Path | None = None) -> Prepared:
    """The base model (the active one, or ``base``), the taught faces and the confirmed rounds;
    raises where there is nothing to fine-tune or nothing to learn."""
    base_version = store.get(base) if base else store.active()
    if not (base_version.path / "classifier.pt").exists():
        raise ModelStoreError(f"model {base_version.name!r} has no classifier.pt to fine-tune")
    if plan.detector_epochs and not (base_version.path / "detector.pt").exists():
        raise ModelStoreError(f"model {base_version.name!r} has no detector.pt to fine-tune")
    sources = load_sources(data_dir, cards_dir, plan.hidden)
    if not sources.taught.faces and sources.corrections is None:
        raise NothingToLearnError(
            "nothing to learn: teach some cards (sushicam teach) or confirm some rounds first")
    every_confirmed = read_confirmed(sources.corrections) if sources.corrections else []
    # a correction that contradicts a confident reading is learnt only once vouched for
    doubts = find_doubts(every_confirmed, base_version.path, vouched(data_dir)) if every_confirmed else []
    confirmed = without(every_confirmed, {d.key for d in doubts})
    # the cards the confirmed photos show (classes.txt lists every card the app could name)
    correction_classes = frozenset(card.label for photo in confirmed for card in photo.cards)
    known = tuple(base_version.classes)
    # the photos composed below also give "not a card" crops (clutter, bare table)
    classes = sorted(set(known) | set(sources.taught.slugs()) | correction_classes | {NOT_A_CARD})
    added = tuple(c for c in classes if c not in known and c != NOT_A_CARD)
    return Prepared(base_version, sources, every_confirmed, confirmed, doubts, correction_classes, known,
                    classes, added)


# train: the new classifier (and detector) in the staging folder


@dataclass(frozen=True)
class Trained:
    """A new version's networks in the staging folder, before it is measured."""

    #: the plan with the base's input side and crop side filled in
    plan: RetrainPlan
    meta: dict[str, Any]
    work: Path
    #: the classifier's crops (``train``, ``val``) and what they were made of
    data: Path
    dataset: dict[str, Any]
    tuned: TunedDetector | None


def train(prepared: Prepared, staging: Path, plan: RetrainPlan, trainer: Trainer = fine_tune,
          detector_trainer: DetectorTrainer = fine_tune_finder, progress: Progress = _quiet) -> Trained:
    """Compose the data, fine-tune the widened classifier, export it beside the base's detector
    and count classifier (not retrained), and fine-tune the detector where the plan asks."""
    base = prepared.base
    progress("prepare", 0.0, f"fine-tuning {base.name} with {len(prepared.added)} new card(s)")
    work = staging / "work"
    data = work / "cls"
    meta = json.loads((base.path / "meta.json").read_text())
    base_classifier = meta.get("classifier", {})
    imgsz = plan.imgsz or int(base_classifier.get("imgsz", 64))
    plan = replace(plan, imgsz=imgsz, crop=plan.crop or int(base_classifier.get("crop", CROP_SIZE)))
    det_root = work / "det" if plan.detector_epochs else None
    dataset = build_dataset(prepared.sources, data, plan, prepared.classes, progress, prepared.confirmed, det_root)
    progress("train", 0.0, "training")
    widened = work / "widened.pt"
    widen_classifier(base.path / "classifier.pt", widened, prepared.classes)
    best = trainer(widened, data, work / "run", plan, progress)
    progress("export", 0.0, "exporting")
    shutil.copyfile(best, staging / "classifier.pt")
    export_classifier(staging / "classifier.pt", imgsz, staging / "classifier.onnx")
    for name in ("detector.onnx", "detector.pt", "counter.onnx", "counter.pt", "fruit.onnx", "fruit.pt"):
        if (base.path / name).exists():
            shutil.copyfile(base.path / name, staging / name)
    meta["detector"]["file"] = "detector.onnx"
    meta["classifier"] = {**base_classifier, "file": "classifier.onnx", "imgsz": imgsz, "crop": plan.crop}
    meta["classes"] = prepared.classes
    (staging / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    # a doubted card's name waits for the player, its box does not: the detector learns every box
    tuned = (tune_detector(base.path, meta, det_root, prepared.every_confirmed, work, plan, detector_trainer,
                           progress) if det_root is not None else None)
    return Trained(plan, meta, work, data, dataset, tuned)


# measure: both models read the held-out tables and confirmed photos


#: each table read by a model (:func:`read_tables`)
TableReads = list[tuple[list[str], list[dict[str, Any]], list[tuple[int, int]]]]


@dataclass(frozen=True)
class HeldOut:
    """What both models are judged on: the held-out composed tables and confirmed photos."""

    tables: Path
    truths: list[dict[str, Any]]
    real_folder: Path
    real_truths: list[dict[str, Any]]
    #: one photo to check that a model runs at all
    sample: np.ndarray


def held_out(data: Path, confirmed: Sequence[ConfirmedPhoto]) -> HeldOut:
    tables = tables_dir(data)
    truths = [json.loads(p.read_text()) for p in sorted(tables.glob("*.json"))]
    sample = cv2.imread(str(tables / truths[0]["image"])) if truths else None
    real_folder, real_truths = real_tables(confirmed)
    return HeldOut(tables, truths, real_folder, real_truths,
                   sample if sample is not None else np.zeros((64, 64, 3), np.uint8))


def run_error(model_dir: Path, sample: np.ndarray) -> str:
    """Why the model in ``model_dir`` cannot read a photo as the app would ("" where it can)."""
    try:
        check_recognizer(model_dir, sample)
    except Exception as exc:  # a broken export must never become the active model
        return str(exc) or type(exc).__name__
    return ""


@dataclass(frozen=True)
class Readings:
    """The held-out tables and confirmed photos read by the base model and the new one."""

    tables_before: TableReads
    tables_after: TableReads
    real_before: TableReads
    real_after: TableReads


@dataclass(frozen=True)
class Measurement:
    """A new version measured against its base: the figures it is decided on, the notes for
    the player, and every figure for ``version.json``."""

    measured: Measured
    notes: Notes
    metrics: dict[str, Any]


def measure(prepared: Prepared, trained: Trained, staging: Path, progress: Progress = _quiet) -> Measurement:
    """Read the held-out data with the base model and the new one. The new version keeps the
    retrained detector and the count classifier only where they read better (their files in
    ``staging`` are replaced or removed here)."""
    progress("evaluate", 0.0, "comparing with the model in use")
    base, plan = prepared.base.path, trained.plan
    held = held_out(trained.data, prepared.confirmed)
    old_classes = [c for c in prepared.known if c in prepared.classes]
    crops_before = score_classifier(base / "classifier.onnx", trained.data / "val", old_classes)
    crops_after = score_classifier(staging / "classifier.onnx", trained.data / "val", old_classes)
    error = run_error(staging, held.sample)
    reads = Readings(read_tables(base, held.tables, held.truths),
                     read_tables(staging, held.tables, held.truths) if not error else [],
                     read_tables(base, held.real_folder, held.real_truths),
                     read_tables(staging, held.real_folder, held.real_truths) if not error else [])
    detector_check: dict[str, Any] | None = None
    if trained.tuned is not None and not error:
        detector_check, reads = _weigh_detector(staging, base, trained.tuned, held, reads, plan)
    counted = sorted(COUNTED & (set(prepared.sources.taught.slugs()) | prepared.correction_classes))
    counter_check: dict[str, Any] | None = None
    if not error and counted and trained.meta.get("counter"):
        counter_check, reads = _weigh_counter(staging, trained.meta, held, reads, counted)
    return _figures(prepared, held, reads, error, {
        "crops_known_before": asdict(crops_before), "crops_known_after": asdict(crops_after),
        "data": trained.dataset, "real_photos": len(held.real_truths),
        "doubtful": [d.to_dict() for d in prepared.doubts], "counter": counter_check,
        "detector": detector_check})


def _figures(prepared: Prepared, held: HeldOut, reads: Readings, error: str,
             metrics: dict[str, Any]) -> Measurement:
    """The scores of the readings: the figures to decide on, the notes and every metric."""
    known, added = set(prepared.known), set(prepared.added)
    all_before, all_after = score_tables(reads.tables_before), score_tables(reads.tables_after)
    known_before, known_after = score_tables(reads.tables_before, known), score_tables(reads.tables_after, known)
    new_after = score_tables(reads.tables_after, added) if added else None
    real_before = score_tables(reads.real_before) if held.real_truths else None
    real_after = score_tables(reads.real_after) if held.real_truths else None
    scores = {"all_before": all_before, "all_after": all_after, "known_before": known_before,
              "known_after": known_after, "new_after": new_after, "real_before": real_before,
              "real_after": real_after}
    # taught or new cards the new model still cannot read: not "known" on the teach page
    learnt = sorted(added | set(prepared.sources.taught.slugs()))
    per_card = {slug: score_tables(reads.tables_after, {slug}) for slug in learnt}
    weak = [slug for slug, s in per_card.items() if s.cards and s.f1 < WEAK_F1]
    every: dict[str, Any] = {name: asdict(value) if value else None for name, value in scores.items()}
    every.update(metrics, learnt_f1={slug: s.f1 for slug, s in per_card.items()}, weak=weak)
    measured = Measured(
        runs=not error, error=error, tables=Change(all_before.f1, all_after.f1),
        known=Change(known_before.named, known_after.named),
        confirmed=Change(real_before.f1, real_after.f1) if real_before and real_after else None,
        confirmed_photos=len(held.real_truths), new_cards=new_after.f1 if new_after else None)
    counter, detector = metrics["counter"], metrics["detector"]
    notes = Notes(
        weak=tuple(weak), doubts=len(prepared.doubts),
        counter=(CounterNote(tuple(counter["faces"]), counter["f1_with"], counter["f1_without"])
                 if counter and not counter["kept"] else None),
        detector=_detector_note(detector) if detector else None)
    return Measurement(measured, notes, every)


def _detector_note(check: dict[str, Any]) -> DetectorNote:
    real = (Change(check["real_f1_without"], check["real_f1_with"])
            if check["real_f1_with"] is not None and check["real_f1_without"] is not None else None)
    return DetectorNote(bool(check["kept"]), not check["error"], Change(check["f1_without"], check["f1_with"]), real)


def _weigh_detector(staging: Path, base_dir: Path, tuned: TunedDetector, held: HeldOut, reads: Readings,
                    plan: RetrainPlan) -> tuple[dict[str, Any], Readings]:
    """Put the retrained detector in ``staging`` and read the held-out tables and confirmed
    photos with it; the base's detector (``base_dir``'s files) goes back where the retrained
    one does not run, reads the composed tables worse than the base's did (with the same
    classifier) by more than the plan's ``tolerance`` (the base knows our renderer; learning a
    player's table may cost a hair there), or reads the player's held-out confirmed photos
    worse at all: those are what it was retrained for. Returns what was measured, and the
    readings with the detector the version keeps."""
    shutil.copyfile(tuned.onnx, staging / "detector.onnx")
    shutil.copyfile(tuned.weights, staging / "detector.pt")
    error = run_error(staging, held.sample)
    tuned_read = read_tables(staging, held.tables, held.truths) if not error else []
    tuned_real = read_tables(staging, held.real_folder, held.real_truths) if not error else []
    with_, without_ = score_tables(tuned_read), score_tables(reads.tables_after)
    real_with = score_tables(tuned_real).f1 if held.real_truths and not error else None
    real_without = score_tables(reads.real_after).f1 if held.real_truths else None
    kept = (not error and with_.f1 >= without_.f1 - plan.tolerance
            and (real_with is None or real_without is None or real_with >= real_without))
    check = {**tuned.learnt, "kept": kept, "error": error, "f1_with": with_.f1, "f1_without": without_.f1,
             "recall_with": with_.recall, "recall_without": without_.recall,
             "real_f1_with": real_with, "real_f1_without": real_without, "real_photos": len(held.real_truths)}
    if not kept:  # the base's, as the version was given them before
        for name in ("detector.onnx", "detector.pt"):
            shutil.copyfile(base_dir / name, staging / name)
        return check, reads
    return check, replace(reads, tables_after=tuned_read, real_after=tuned_real)


def _weigh_counter(staging: Path, meta: dict[str, Any], held: HeldOut, reads: Readings,
                   counted: list[str]) -> tuple[dict[str, Any], Readings]:
    """The count classifier was not retrained: where the player taught or confirmed maki or
    uramaki, it stays only if it counts them (on the held-out tables and photos) at least as
    well as the retrained classifier alone; else it leaves ``staging`` and its ``meta.json``."""
    plain_after = read_tables(staging, held.tables, held.truths, counting=False)
    plain_real = read_tables(staging, held.real_folder, held.real_truths, counting=False)
    with_counter = score_tables([*reads.tables_after, *reads.real_after], COUNTED).f1
    without_counter = score_tables([*plain_after, *plain_real], COUNTED).f1
    kept = with_counter >= without_counter
    check = {"faces": counted, "kept": kept, "f1_with": with_counter, "f1_without": without_counter}
    if kept:
        return check, reads
    for name in (meta.pop("counter")["file"], "counter.pt"):
        (staging / name).unlink(missing_ok=True)
    (staging / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return check, replace(reads, tables_after=plain_after, real_after=plain_real)


# commit: version.json, and the version kept (never made active here)


def commit(store: ModelStore, staging: Path, prepared: Prepared, trained: Trained, decision: RetrainDecision,
           metrics: dict[str, Any], timing: tuple[float, float], data_dir: str | Path,
           keep_refused: bool = False) -> RetrainResult:
    """Write the version's ``version.json`` and give the staging folder its version name: a
    kept version always, a refused one only with ``keep_refused`` (else it is dropped)."""
    wall, cpu = round(timing[0]), round(timing[1])
    info = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "kind": "retrained",
        "parent": prepared.base.name, "classes": prepared.classes, "added": list(prepared.added),
        "weak": list(decision.notes.weak), "taught": FaceLibrary(data_dir).counts(), "accepted": decision.kept,
        "decision": decision.to_json(), "metrics": metrics, "plan": asdict(trained.plan),
        "wall_s": wall, "cpu_s": cpu,
    }
    (staging / "version.json").write_text(json.dumps(info, indent=1) + "\n")
    version = store.commit(staging).name if decision.kept or keep_refused else None
    return RetrainResult(version, decision.kept, decision, prepared.base.name, prepared.added, metrics, wall, cpu)


def limits(plan: RetrainPlan) -> Limits:
    """How much worse than its base a retrained model may read (the plan's tolerances)."""
    return Limits(tables=plan.tolerance, known=plan.max_known_drop, confirmed=plan.real_tolerance)


def retrain(data_dir: str | Path, plan: RetrainPlan = RetrainPlan(), *,
            bundled: str | Path = REPO_MODELS, cards_dir: str | Path | None = None,
            base: str | None = None, progress: Progress = _quiet, activate: bool = True,
            trainer: Trainer = fine_tune, keep_data: bool = False,
            keep_refused: bool = False, detector_trainer: DetectorTrainer = fine_tune_finder) -> RetrainResult:
    """Fine-tune the active (or ``base``) model on taught faces and corrections; see the module.

    Returns the result whether or not the new version was accepted; raises
    :class:`NothingToLearnError` when there is nothing new, :class:`RetrainBusyError` when
    another run holds the data folder, and lets a training crash through -- in every case the
    active model is left as it was. ``keep_refused`` keeps a refused version (never made
    active) for inspection; by default it is deleted.
    """
    require_training_stack()  # before any work: a player's install lacks the [train] extra
    started, cpu_started = time.time(), cpu_seconds()
    store = ModelStore(data_dir, bundled)
    with store.lock():
        prepared = prepare(store, data_dir, plan, base, cards_dir)
        with store.staging() as staging:
            trained = train(prepared, staging, plan, trainer, detector_trainer, progress)
            measurement = measure(prepared, trained, staging, progress)
            decision = decide(measurement.measured, limits(trained.plan), measurement.notes)
            if not keep_data:
                shutil.rmtree(trained.work, ignore_errors=True)
            result = commit(store, staging, prepared, trained, decision, measurement.metrics,
                            (time.time() - started, cpu_seconds() - cpu_started), data_dir, keep_refused)
    if result.accepted and result.version and activate:
        store.use(result.version)
    progress("done", 1.0, f"{decision.cause}: {result.version or prepared.base.name}")
    return result


def plan_with(plan: RetrainPlan, **changes: Any) -> RetrainPlan:
    return replace(plan, **{k: v for k, v in changes.items() if v is not None})
