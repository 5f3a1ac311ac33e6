"""Write generated photos as datasets: YOLO detection, classification crops, truth JSON.

Layout under ``root`` (``datasets/build/<name>`` by default)::

    det/images/{train,val}/p000123.jpg   det/labels/{train,val}/p000123.txt   det/data.yaml
    truth/{train,val}/p000123.json       (cards, boxes, tableau per seat, stacks)
    cls/{train,val}/<slug>/p000123_04.jpg  (each visible region, jittered, stretched square)
    cls/{train,val}/not-a-card/n000123_n01.jpg  (clutter and bare table, ``negatives`` recipes)

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

from vision.boxes import coverage_matrix
from vision.faces import PRINTED_SLUGS, SLUGS
from vision.recognizer import COUNT_FAMILIES, CROP_SIZE, NOT_A_CARD, square_crop
from vision.synth import cropaug
from vision.synth.compose import SceneConditions, compose_table, printed_weights, random_tableau
from vision.synth.fruit import FRUIT_FACES, card_view, relaid_faces

DETECTOR_CLASSES = ("card",)


@dataclass(frozen=True)
class ConditionShares:
    """The share of a recipe's photos under each :class:`SceneConditions` condition, and of
    them rendered as a 640x480 webcam frame; each photo draws its own (:meth:`draw`)."""

    #: every card printed its own way (``SceneConditions.print_styles``)
    print_styles: float = 0.0
    #: taken from the table's near edge (``SceneConditions.far_camera``)
    far_cameras: float = 0.0
    #: rendered as a 640x480 webcam frame instead of the recipe's ``size``
    small_frames: float = 0.0
    #: the columns laid loosely (``SceneConditions.piles``)
    piles: float = 0.0
    #: the camera held at any angle to the table (``SceneConditions.turned``)
    turned: float = 0.0
    #: the camera tilted 15-45 degrees from straight down (``SceneConditions.tilted``)
    tilted: float = 0.0
    #: on a boldly checked, striped or gingham cloth (``SceneConditions.patterned``)
    patterned: float = 0.0

    def draw(self, seed: int) -> SceneConditions:
        """The conditions of photo ``seed``: each drawn from a stream of its own (the far
        camera's shared with the webcam frame's, drawn first), so a share of 0 draws the
        condition off and a recipe's photos keep their conditions when another share changes.

        >>> ConditionShares(tilted=1.0).draw(5)
        SceneConditions(print_styles=False, far_camera=False, piles=False, turned=False, tilted=True, patterned=False)
        """
        def drawn(share: float, stream: int) -> bool:
            return bool(share) and np.random.default_rng([seed, stream]).random() < share

        return SceneConditions(print_styles=drawn(self.print_styles, 95),
                               far_camera=bool(_camera_rolls(seed)[0] < self.far_cameras),
                               piles=drawn(self.piles, 92), turned=drawn(self.turned, 91),
                               tilted=drawn(self.tilted, 90), patterned=drawn(self.patterned, 89))

    def frame(self, seed: int, size: tuple[int, int]) -> tuple[int, int]:
        """The size photo ``seed`` is rendered at: a 640x480 webcam frame for the share
        ``small_frames`` of photos, else ``size``."""
        return (640, 480) if _camera_rolls(seed)[1] < self.small_frames else size


def _camera_rolls(seed: int) -> tuple[float, float]:
    """Photo ``seed``'s two camera draws: the far camera's, then the webcam frame's."""
    rng = np.random.default_rng([seed, 93])
    return float(rng.random()), float(rng.random())


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
    #: the side the crops are written at, square; a classifier stage trains at it, and a
    #: recogniser of that classifier cuts its crops at it (``meta.json``'s ``classifier.crop``)
    crop_size: int = CROP_SIZE
    size: tuple[int, int] = (1280, 960)
    print_weighted: bool = False
    #: crops only (more classifier data): no detection files, photos named ``<prefix>...``
    det: bool = True
    prefix: str = "p"
    boost: tuple[str, ...] = ()
    #: how much likelier a ``boost`` face is drawn than another
    boost_weight: float = 2.0
    #: crops of what is not a card, per photo: every clutter object's box (jittered) and
    #: this many card-shaped windows of bare table (``not-a-card`` class)
    negatives: int = 0
    #: crops of the cards themselves (off: a recipe for negatives only)
    card_crops: bool = True
    #: seats per photo, drawn evenly from these (empty: compose_table's own mix, half single)
    seats: tuple[int, ...] = ()
    #: the recipe whose folder these photos or crops join (they write no data.yaml or
    #: recipe.json of their own)
    adds_to: str = ""
    #: share of photos that are close-ups: one to three cards filling most of the frame
    closeups: float = 0.0
    #: how the photos' cards, table and camera vary: the share of them under each condition
    scene: ConditionShares = ConditionShares()
    #: share of card crops seen by a phone's camera (``cropaug.camera_crop``: small cards,
    #: white balance, glare, shake, JPEG), each drawn per crop
    crop_camera: float = 0.0
    #: share of card crops turned 12-45 degrees either way first (``cropaug.turned_box``), as
    #: the cards of a loose pile lie
    crop_turns: float = 0.0
    #: share of card crops then made harder still (``cropaug.hard_crop``: a print off its
    #: colours, a hard glare on the icon, a strong defocus), each drawn per crop
    crop_hard: float = 0.0
    #: share of card crops then seen under a glossy card's sheen (``cropaug.sheen_crop``: a
    #: band where the lamp's reflection fades the print), each drawn per crop
    crop_sheen: float = 0.0
    #: each photo's fruit faces replaced by this many re-laid versions of each
    #: (:func:`vision.synth.fruit.relaid_faces`: the two icons moved, resized, side by side,
    #: stacked or diagonal, recoloured, on a background of another hue), drawn per photo; 0:
    #: the faces as they are
    relaid_fruit: int = 0
    #: crops of one re-laid fruit card alone per photo index (``vision.synth.fruit.card_view``:
    #: legible, printed its own way, upright or upside down, a phone's camera for half),
    #: written beside the photos' crops as ``<name>_vNN.jpg``, each of a fruit face drawn
    #: in turn
    card_views: int = 0
    #: the share of those views turned to any angle (``card_view``'s ``turns``: a card at a
    #: seat on the table's side or corner, its upright box stretched square); the others
    #: upright or upside down, give or take 8 degrees
    view_turns: float = 0.0


#: the look-alikes the classifier's sheen and wide stages draw twice as often: count faces
#: and nigiri, and what the whole tables confuse (miso soup and spoon, temaki, menu)
SHEEN_LOOK_ALIKES = ("maki-1", "maki-2", "maki-3", "uramaki-4", "uramaki-5", "salmon-nigiri", "squid-nigiri",
                     "egg-nigiri", "wasabi", "tempura", "sashimi", "dumpling", "pudding", "takeout-box",
                     "miso-soup", "spoon", "temaki", "menu")

#: the faces told apart only by their count of rolls, the count classifier's classes in its
#: outputs' order (ultralytics numbers classes by their folders' sorted names)
COUNT_FACES = tuple(sorted(face for family in COUNT_FAMILIES for face in family))

#: the tables of the detector's and classifier's later stages: 1-8 seats (2 in 9 one tableau)
ANY_SEATS = (1, 1, 2, 3, 4, 5, 6, 7, 8)

RECIPES = {
    # the models' training data: digital faces only, the printed scans never appear
    "train": Recipe("train", train=1200, val=120, seed=1),
    # the evaluation sets: never trained on
    "test-print": Recipe("test-print", train=0, val=200, seed=7, faces="print", crops=False,
                         print_weighted=True),
    "test-digital": Recipe("test-digital", train=0, val=200, seed=8, crops=False),
    "tiny": Recipe("tiny", train=8, val=4, seed=3, size=(640, 480)),
    # crowded tables: 6-8 seats round the table, cards small; never trained on
    "test-crowded": Recipe("test-crowded", train=0, val=100, seed=10, faces="print", crops=False,
                           print_weighted=True, seats=(6, 7, 8)),
    # more classifier crops, written beside the train recipe's; the classes told apart by
    # small marks (icon counts, look-alike strips) drawn twice as often
    "train-crops": Recipe("train-crops", train=1000, val=0, seed=2, det=False, prefix="x", adds_to="train",
                          boost=("uramaki-3", "uramaki-4", "uramaki-5", "maki-1", "maki-2", "maki-3",
                                 "menu", "pudding", "fruit-pineapple-orange", "fruit-watermelon-orange",
                                 "fruit-orange-orange", "fruit-watermelon-pineapple", "onigiri-rectangle",
                                 "onigiri-square", "onigiri-circle", "spoon", "wasabi")),
    # whole-table photos only (2-5 seats): the detector's second fine-tuning, where the small
    # strips of covered cards are hardest; written beside train's photos as t*.jpg
    "train-tables": Recipe("train-tables", train=600, val=0, seed=5, prefix="t", crops=False, seats=(2, 3, 4, 5),
                           adds_to="train"),
    # 1800 more whole-table photos for the detector's 960-px stage (a GPU's work: about
    # 11 CPU hours here); written beside train's photos as u*.jpg
    "train-tables-hires": Recipe("train-tables-hires", train=1800, val=0, seed=6, prefix="u", crops=False,
                                 seats=(2, 3, 4, 5), adds_to="train"),
    # crops of those 2400 whole-table photos (the same photos: same seeds), for the classifier's
    # whole-table stage; no photo files (their truth goes to truth/train-<name>)
    "train-tables-crops": Recipe("train-tables-crops", train=600, val=0, seed=5, prefix="t", det=False,
                                 seats=(2, 3, 4, 5), adds_to="train"),
    "train-tables-hires-crops": Recipe("train-tables-hires-crops", train=1800, val=0, seed=6, prefix="u", det=False,
                                       seats=(2, 3, 4, 5), adds_to="train"),
    # "not a card" crops for the classifier: clutter and bare table, written beside the rest
    "train-negatives": Recipe("train-negatives", train=700, val=60, seed=4, det=False, prefix="n",
                              negatives=3, card_crops=False, adds_to="train"),
    # the classifier's camera stage: every card printed its own way in three photos of four,
    # 1-8 seats, one photo in six a close-up of one to three cards, bare table and clutter
    # too (so ``not-a-card`` is kept); half the card crops then seen by a phone (small, off
    # white balance, glare, shake, cheap JPEG; ``cropaug``), a quarter turned as in a loose
    # pile; the look-alikes drawn twice as often. Its own folder
    # (``datasets/build/camera-crops``), with a validation split
    "train-camera-crops": Recipe("train-camera-crops", train=600, val=40, seed=11, det=False, prefix="c",
                                 negatives=2, closeups=1 / 6, scene=ConditionShares(print_styles=0.75),
                                 seats=ANY_SEATS, crop_camera=0.5, crop_turns=0.25,
                                 boost=("maki-1", "maki-2", "maki-3", "uramaki-3", "uramaki-4", "uramaki-5",
                                        "salmon-nigiri", "squid-nigiri", "egg-nigiri", "wasabi",
                                        "onigiri-circle", "onigiri-rectangle", "takeout-box", "dumpling",
                                        "edamame", "sashimi", "pudding")),
    # the classifier's light stage, after the camera stage: other seeds, and besides the
    # phone, two card crops in five with a print off its colours, a hard glare on the icon or
    # a strong defocus (``cropaug.hard_crop``); the look-alikes drawn twice as often. Its own
    # folder (``datasets/build/light-crops``)
    "train-light-crops": Recipe("train-light-crops", train=400, val=30, seed=12, det=False, prefix="l",
                                negatives=2, closeups=1 / 6, scene=ConditionShares(print_styles=0.75),
                                seats=ANY_SEATS, crop_camera=0.4, crop_turns=0.25, crop_hard=0.4,
                                boost=("maki-1", "maki-2", "maki-3", "uramaki-4", "uramaki-5", "salmon-nigiri",
                                       "squid-nigiri", "egg-nigiri", "wasabi", "takeout-box", "dumpling")),
    # the classifier's sheen stage, after the light stage: other seeds, as the light stage's
    # crops, nine photos in ten printed their own way, and besides, half the card crops under
    # a glossy card's sheen (``cropaug.sheen_crop``); the look-alikes drawn twice as often.
    # Its own folder (``datasets/build/sheen-crops``)
    "train-sheen-crops": Recipe("train-sheen-crops", train=400, val=30, seed=17, det=False, prefix="g",
                                negatives=2, closeups=1 / 6, scene=ConditionShares(print_styles=0.9),
                                seats=ANY_SEATS, crop_camera=0.4, crop_turns=0.25, crop_hard=0.3,
                                crop_sheen=0.5, boost=SHEEN_LOOK_ALIKES),
    # the classifier's wide stage, after the sheen stage (a GPU's work): crops cut from every
    # table the detector's recipes lay, not only neat rows: columns laid loosely in four
    # photos of ten, the camera held at any angle in three, from the table's near edge (far
    # side small, out of focus, a lamp's colour) in four, webcam frames; on fewer crops than
    # the sheen stage the phone, the hard prints and the sheen (the far seats are small and
    # blurred already: the two together leave many crops past reading); seven times the sheen
    # stage's photos, so that it can train longer before it learns them by heart. Its own
    # folder (``datasets/build/wide-crops``)
    "train-wide-crops": Recipe("train-wide-crops", train=3000, val=80, seed=18, det=False, prefix="w",
                               negatives=2, closeups=1 / 6, seats=ANY_SEATS,
                               scene=ConditionShares(print_styles=0.9, far_cameras=0.4, small_frames=0.1,
                                                     piles=0.4, turned=0.3),
                               crop_camera=0.25, crop_turns=0.25, crop_hard=0.2, crop_sheen=0.25,
                               boost=SHEEN_LOOK_ALIKES),
    # the count classifier's crops, written at 128 px (a card's count of maki rolls or
    # uramaki is a row of icons a few pixels wide): the wide stage's tables, a camera tilted
    # 15-45 degrees in four photos of ten, laid mostly of maki and uramaki (each count ten
    # times as likely as another face), for :class:`vision.recognizer.Recognizer`'s second
    # look at a count card. Only its count crops are trained on (``datasets/build/count-crops``)
    "train-count-crops": Recipe("train-count-crops", train=1000, val=60, seed=23, det=False, prefix="c",
                                crop_size=128, closeups=1 / 6, seats=ANY_SEATS,
                                scene=ConditionShares(print_styles=0.9, far_cameras=0.4, small_frames=0.1,
                                                      piles=0.4, turned=0.3, tilted=0.4),
                                crop_camera=0.25, crop_turns=0.25, crop_hard=0.2, crop_sheen=0.25,
                                boost=COUNT_FACES, boost_weight=10.0),
    # the fruit reader's crops, written at 128 px: as the count classifier's tables, laid
    # mostly of fruit cards (each fruit face 16 times as likely as another face), each
    # photo's fruit faces re-laid three ways (``relaid_fruit``): the icons side by side,
    # stacked or diagonal, moved, resized and recoloured, on a background of another hue, so
    # the reader learns which fruit the icons are and not where they sit. Only its fruit
    # crops are trained on (``datasets/build/fruit-crops/fruit``), with 16 crops a photo of
    # one re-laid fruit card alone, legible (``card_views``): many of the tables' fruit
    # crops are small, far or glared past reading
    "train-fruit-crops": Recipe("train-fruit-crops", train=300, val=30, seed=25, det=False, prefix="f",
                                crop_size=128, closeups=1 / 6, seats=ANY_SEATS,
                                scene=ConditionShares(print_styles=0.9, far_cameras=0.4, small_frames=0.1,
                                                      piles=0.4, turned=0.3, tilted=0.4),
                                crop_camera=0.25, crop_turns=0.25, crop_hard=0.2, crop_sheen=0.25,
                                boost=FRUIT_FACES, boost_weight=16.0, relaid_fruit=3, card_views=16),
    # the fruit reader's second stage: as ``train-fruit-crops``, fewer tables and more card
    # views, three in five of them turned to any angle: a fruit card at a seat on the table's
    # side or corner is cut as an upright box holding the card turned, stretched square,
    # which the upright views never show. Its own folder (``datasets/build/fruit-turned-crops``)
    "train-fruit-turned-crops": Recipe("train-fruit-turned-crops", train=120, val=20, seed=26, det=False,
                                       prefix="e", crop_size=128, closeups=1 / 6, seats=ANY_SEATS,
                                       scene=ConditionShares(print_styles=0.9, far_cameras=0.4, small_frames=0.1,
                                                             piles=0.4, turned=0.3, tilted=0.4),
                                       crop_camera=0.25, crop_turns=0.25, crop_hard=0.2, crop_sheen=0.25,
                                       boost=FRUIT_FACES, boost_weight=16.0, relaid_fruit=3, card_views=40,
                                       view_turns=0.6),
    # the detector's camera stage: whole photos as phones and webcams take them across a real
    # table, 1-8 seats, cards printed their own way; six photos in ten from the table's near
    # edge (far side small and out of focus, glare, lamp colour, a hand's shadow), one in
    # seven a 640x480 webcam frame, a few close-ups. The other photos, as the detector's
    # earlier data, keep what it knew. Its own folder (``datasets/build/camera-tables``)
    "train-camera-tables": Recipe("train-camera-tables", train=700, val=40, seed=13, prefix="k", crops=False,
                                  seats=ANY_SEATS, closeups=0.08,
                                  scene=ConditionShares(print_styles=0.6, far_cameras=0.6, small_frames=0.15)),
    # the detector's pile stage: columns laid loosely, as hands lay them (thin and uneven
    # strips, cards turned and shifted), 1-5 seats, mostly one tableau seen close, half the
    # photos from the table's near edge. Trained together with ``train-camera-tables``
    # (``datasets/build/pile-tables``)
    "train-pile-tables": Recipe("train-pile-tables", train=500, val=40, seed=14, prefix="q", crops=False,
                                seats=(1, 1, 1, 2, 3, 4, 5), closeups=0.05,
                                scene=ConditionShares(print_styles=0.6, far_cameras=0.5, small_frames=0.1,
                                                      piles=0.7)),
    # the detector's turned-pile tables: as ``train-pile-tables``, but the camera held at any
    # angle to the table in seven photos of ten, so that columns run across the photo or
    # diagonally (without it every column runs along one of its seat's even angles), 1-8
    # seats; trained with the mixed tables (``datasets/build/turned-piles``)
    "train-turned-piles": Recipe("train-turned-piles", train=500, val=40, seed=15, prefix="r", crops=False,
                                 seats=(1, 1, 1, 2, 3, 4, 5, 6, 8), closeups=0.06,
                                 scene=ConditionShares(print_styles=0.6, far_cameras=0.5, small_frames=0.1,
                                                       piles=0.6, turned=0.7)),
    # the detector's mixed-table stage (a GPU's work): every table the three recipes above
    # lay, drawn together and four times as many: 1-8 seats, loose columns in half the
    # photos, the camera held at any angle in half, from the near edge in half, webcam
    # frames, close-ups. Trained together with those three (``datasets/build/mixed-tables``)
    "train-mixed-tables": Recipe("train-mixed-tables", train=2000, val=60, seed=16, prefix="m", crops=False,
                                 seats=ANY_SEATS, closeups=0.06,
                                 scene=ConditionShares(print_styles=0.6, far_cameras=0.5, small_frames=0.15,
                                                       piles=0.5, turned=0.5)),
    # the detector's tilted stage (a GPU's work): as ``train-mixed-tables``, but eight photos
    # in ten taken through a camera tilted 15-45 degrees from straight down, as phones are
    # held over a table: cards foreshortened along the view and strips thinner, where the
    # other recipes' keystone keeps a card's proportions (``datasets/build/tilted-tables``)
    "train-tilted-tables": Recipe("train-tilted-tables", train=2400, val=60, seed=19, prefix="v", crops=False,
                                  seats=ANY_SEATS, closeups=0.06,
                                  scene=ConditionShares(print_styles=0.6, far_cameras=0.4, small_frames=0.15,
                                                        piles=0.6, turned=0.5, tilted=0.8)),
    # the detector's patterned-cloth stage: the tilted tables, two in three on a boldly
    # checked, striped or gingham cloth seen through the camera, whose edges look like a
    # card's (``datasets/build/patterned-tables``)
    "train-patterned-tables": Recipe("train-patterned-tables", train=1200, val=60, seed=24, prefix="h",
                                     crops=False, seats=ANY_SEATS, closeups=0.06,
                                     scene=ConditionShares(print_styles=0.6, far_cameras=0.4, small_frames=0.15,
                                                           piles=0.6, turned=0.5, tilted=0.8, patterned=0.65)),
}


def photo_seed(recipe: Recipe, split: str, index: int) -> int:
    return recipe.seed * 1_000_003 + (500_000 if split == "val" else 0) + index


def yolo_label_lines(truth: dict) -> list[str]:
    """One ``0 cx cy w h`` line (normalised) per visible card region."""
    return yolo_box_lines([card["box"] for card in truth["cards"] if not card["hidden"]], truth["size"])


def yolo_box_lines(boxes, size: tuple[int, int]) -> list[str]:
    """One ``0 cx cy w h`` line per box (``x1, y1, x2, y2`` pixels of a ``size`` = (w, h)
    photo), in fractions of the photo: the one-class detector's labels.

    >>> yolo_box_lines([[10, 20, 30, 60]], (100, 200))
    ['0 0.200000 0.200000 0.200000 0.200000']
    """
    w, h = size
    return [f"0 {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"
            for x1, y1, x2, y2 in boxes]


def write_detector_yaml(det_root: Path, train: str = "images/train", val: str = "images/val") -> Path:
    """``det_root/data.yaml``: the one-class detector's data set under ``det_root`` (its
    ``train`` and ``val`` image folders, relative to it), as ultralytics reads it."""
    path = det_root / "data.yaml"
    path.write_text(f"path: {det_root.resolve()}\ntrain: {train}\nval: {val}\nnames:\n  0: card\n")
    return path


def _jitter(rng: np.random.Generator, box, amount: float) -> list[float]:
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    d = rng.uniform(-amount, amount, 4) * [bw, bh, bw, bh]
    return [x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]]


def negative_boxes(rng: np.random.Generator, truth: dict, windows: int) -> list[list[float]]:
    """Boxes that hold no card: each clutter object's box (jittered) and ``windows``
    card-shaped boxes of bare table (a whole card or a covered card's strip, at this
    photo's card size) that cover no visible card region by more than a tenth.

    >>> truth = {"size": [400, 300], "clutter": [[10, 10, 60, 50]],
    ...          "cards": [{"box": [200, 100, 260, 190], "hidden": False}]}
    >>> boxes = negative_boxes(np.random.default_rng(0), truth, 2)
    >>> len(boxes) <= 3 and all(_covered_share(b, truth) <= 0.1 for b in boxes[1:])
    True
    """
    w, h = truth["size"]
    cards = [c["box"] for c in truth["cards"] if not c["hidden"]]
    boxes = [_jitter(rng, box, 0.15) for box in truth.get("clutter", [])]
    boxes = [b for b in boxes if _covered_share(b, truth) <= 0.3]
    if not cards:
        return boxes
    widths = sorted(b[2] - b[0] for b in cards)
    card_w = widths[len(widths) // 2]
    for _ in range(windows * 30):
        if windows <= 0:
            break
        bw = card_w * rng.uniform(0.8, 1.2)
        bh = bw * (1.45 if rng.random() < 0.6 else rng.uniform(0.2, 0.4))
        if rng.random() < 0.5:
            bw, bh = bh, bw  # a seat turned a quarter
        x1, y1 = rng.uniform(0, max(w - bw, 1)), rng.uniform(0, max(h - bh, 1))
        box = [x1, y1, x1 + bw, y1 + bh]
        if _covered_share(box, truth) <= 0.1:
            boxes.append(box)
            windows -= 1
    return boxes


def _covered_share(box, truth: dict) -> float:
    """The largest share of ``box`` that one visible card region covers."""
    visible = [card["box"] for card in truth["cards"] if not card["hidden"]]
    return float(coverage_matrix([box], visible).max()) if visible else 0.0


def write_negative_crops(image: np.ndarray, truth: dict, folder: Path, name: str,
                         rng: np.random.Generator, windows: int, size: int = CROP_SIZE) -> int:
    """Write ``negative_boxes`` as square crops ``folder/<name>_nNN.jpg`` (``size`` on a side);
    returns how many."""
    folder.mkdir(parents=True, exist_ok=True)
    boxes = negative_boxes(rng, truth, windows)
    for k, box in enumerate(boxes):
        cv2.imwrite(str(folder / f"{name}_n{k:02d}.jpg"), square_crop(image, box, size))
    return len(boxes)


def card_crop(rng: np.random.Generator, image: np.ndarray, box, recipe: Recipe) -> np.ndarray:
    """The classifier's crop of one card's ``box``: turned, seen by a phone's camera, made
    harder and seen under a sheen for the recipe's shares of crops (``crop_turns``,
    ``crop_camera``, ``crop_hard``, ``crop_sheen``), else as it is."""
    if recipe.crop_turns and rng.random() < recipe.crop_turns:
        image, box = cropaug.turned_box(image, box, rng.uniform(12, 45) * rng.choice([-1, 1]))
    crop = square_crop(image, box, recipe.crop_size)
    if recipe.crop_camera and rng.random() < recipe.crop_camera:
        crop = cropaug.camera_crop(rng, crop, (box[2] - box[0], box[3] - box[1]))
    if recipe.crop_hard and rng.random() < recipe.crop_hard:
        crop = cropaug.hard_crop(rng, crop)
    if recipe.crop_sheen and rng.random() < recipe.crop_sheen:
        crop = cropaug.sheen_crop(rng, crop)
    return crop


def _truth_path(recipe: Recipe, root: Path, split: str, index: int) -> Path:
    folder = split if recipe.det else f"{split}-{recipe.name}"
    return root / "truth" / folder / f"{recipe.prefix}{index:06d}.json"


def _make_one(job) -> int:
    recipe, root, split, index = job
    seed = photo_seed(recipe, split, index)
    weights = printed_weights() if recipe.print_weighted else {s: recipe.boost_weight for s in recipe.boost} or None
    n_seats = None
    if recipe.seats:
        n_seats = recipe.seats[int(np.random.default_rng([seed, 97]).integers(len(recipe.seats)))]
    tableaux, fill = None, None
    if recipe.closeups:
        closeup_rng = np.random.default_rng([seed, 96])
        if closeup_rng.random() < recipe.closeups:
            tableaux = [random_tableau(closeup_rng, int(closeup_rng.integers(1, 4)), weights=weights)]
            fill = float(closeup_rng.uniform(0.8, 0.99))
    conditions = recipe.scene.draw(seed)
    faces = (relaid_faces(np.random.default_rng([seed, 88]), recipe.relaid_fruit) if recipe.relaid_fruit
             else recipe.faces)
    image, truth = compose_table(seed, tableaux, n_seats=None if tableaux else n_seats, faces=faces,
                                 size=recipe.scene.frame(seed, recipe.size), slug_weights=weights, fill=fill,
                                 conditions=conditions)
    name = f"{recipe.prefix}{index:06d}"
    if recipe.det:
        truth["image"] = f"det/images/{split}/{name}.jpg"
        cv2.imwrite(str(root / truth["image"]), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (root / "det" / "labels" / split / f"{name}.txt").write_text("\n".join(yolo_label_lines(truth)) + "\n")
    if recipe.crops and recipe.card_crops:
        rng = np.random.default_rng([seed, 99])
        camera_rng = np.random.default_rng([seed, 94])
        for k, card in enumerate(truth["cards"]):
            if card["hidden"]:
                continue
            folder = root / "cls" / split / card["label"]
            box = _jitter(rng, card["box"], recipe.crop_jitter)
            cv2.imwrite(str(folder / f"{name}_{k:02d}.jpg"), card_crop(camera_rng, image, box, recipe))
    if recipe.crops and recipe.negatives:
        write_negative_crops(image, truth, root / "cls" / split / NOT_A_CARD, name,
                             np.random.default_rng([seed, 98]), recipe.negatives, recipe.crop_size)
    _truth_path(recipe, root, split, index).write_text(json.dumps(truth))
    return len(truth["cards"])


def _view_path(recipe: Recipe, root: Path, split: str, index: int, k: int) -> Path:
    """Where the ``k``-th card view of photo index ``index`` is written, in its face's folder."""
    slug = FRUIT_FACES[(index * recipe.card_views + k) % len(FRUIT_FACES)]
    return root / "cls" / split / slug / f"{recipe.prefix}{index:06d}_v{k:02d}.jpg"


def _card_views(job) -> int:
    """Write the ``card_views`` crops of photo index ``index`` of a split not yet written."""
    recipe, root, split, index = job
    written = 0
    for k in range(recipe.card_views):
        path = _view_path(recipe, root, split, index, k)
        slug = path.parent.name
        if not path.exists():
            rng = np.random.default_rng([photo_seed(recipe, split, index), 87, k])
            cv2.imwrite(str(path), card_view(rng, slug, recipe.crop_size, recipe.view_turns))
            written += 1
    return written


def _run(jobs: list, work, workers: int, desc: str, progress: bool) -> None:
    """``work(job)`` for each of ``jobs``, on ``workers`` processes, with a progress bar."""
    bar = tqdm(total=len(jobs), desc=desc, unit="photo", disable=not progress)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            for _ in pool.map(work, jobs, chunksize=4):
                bar.update()
    else:
        for job in jobs:
            work(job)
            bar.update()
    bar.close()


def generate(recipe: Recipe, root: str | Path, workers: int = 2, progress: bool = True) -> Path:
    """Generate ``recipe`` under ``root``; photos already written are kept (resumable)."""
    root = Path(root)
    jobs = []
    views = []
    for split, count in (("train", recipe.train), ("val", recipe.val)):
        if not count:
            continue
        _truth_path(recipe, root, split, 0).parent.mkdir(parents=True, exist_ok=True)
        for sub in ("det/images", "det/labels") if recipe.det else ():
            (root / sub / split).mkdir(parents=True, exist_ok=True)
        if recipe.crops and recipe.card_crops:
            for slug in SLUGS:
                (root / "cls" / split / slug).mkdir(parents=True, exist_ok=True)
        for index in range(count):
            if not _truth_path(recipe, root, split, index).exists():
                jobs.append((recipe, root, split, index))
            if recipe.card_views and not _view_path(recipe, root, split, index, recipe.card_views - 1).exists():
                views.append((recipe, root, split, index))
    if jobs:
        _run(jobs, _make_one, workers, f"generate {recipe.name}", progress)
    if views:
        _run(views, _card_views, workers, f"card views {recipe.name}", progress)
    if not recipe.det or recipe.adds_to:
        return root
    write_detector_yaml(root / "det", train="images/train" if recipe.train else "images/val")
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
