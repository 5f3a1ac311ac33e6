"""``Recognizer``: finds every card region in a photo and names it.

Two stages, loaded once: a one-class detector of *visible card regions* (a whole card, or
the top strip of a covered card) at low resolution, then a classifier that names each
region from its full-resolution crop. See ``models/README.md`` for why.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol, overload

import cv2
import numpy as np

from vision.boxes import (
    Box,
    areas,
    column_neighbours,
    coverage_matrix,
    nms,
    overlaps,
    piece_mask,
    speck_mask,
)
from vision.cardsize import card_side, whole_card_boxes
from vision.detections import (
    LABEL,
    LABEL_MARGIN,
    LABEL_SCORE,
    REGION_SCORE,
    SEEN_AS,
    TILT,
    Detections,
)
from vision.exemplars import (
    CHECK_FILE,
    EXEMPLARS_DIR,
    ExemplarRule,
    Exemplars,
    ExemplarSet,
    blend,
    classes_with,
    fingerprint,
    impostor_levels,
    load_impostors,
    load_set,
    set_files,
    unit,
)
from vision.exemplars import (
    CROP as EXEMPLAR_CROP,
)
from vision.paths import MODELS_DIR
from vision.tilts import card_tilts

#: Side of the square crops the classifier learns from (and is fed at run time).
CROP_SIZE = 96
#: The classifier's one class that is no card: cups, hands, pens and bare table the
#: detector took for a card. The recogniser drops regions it names so.
NOT_A_CARD = "not-a-card"
#: faces told apart only by their count of rolls, a row of icons at the card's top: the count
#: classifier (``Recognizer.counter``) decides among a family's members
COUNT_FAMILIES = (("maki-1", "maki-2", "maki-3"), ("uramaki-3", "uramaki-4", "uramaki-5"))
#: the fruit cards, told apart only by their two fruit icons (a pair of watermelon,
#: pineapple or orange), which prints lay out side by side or stacked: the fruit reader
#: (``Recognizer.fruit``) decides among them, in its outputs' order (sorted)
FRUIT_FAMILY = ("fruit-orange-orange", "fruit-pineapple-orange", "fruit-pineapple-pineapple",
                "fruit-watermelon-orange", "fruit-watermelon-pineapple", "fruit-watermelon-watermelon")


def square_crop(image: np.ndarray, box: Box, size: int = CROP_SIZE) -> np.ndarray:
    """The box's pixels stretched to a square: what the classifier sees.

    Stretching (not centre-cropping) keeps a strip's corner icon in view.
    """
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    x1, y1 = max(0, min(x1, w - 1)), max(0, min(y1, h - 1))
    x2, y2 = max(x1 + 1, min(x2, w)), max(y1 + 1, min(y2, h))
    return np.asarray(cv2.resize(image[y1:y2, x1:x2], (size, size), interpolation=cv2.INTER_AREA))


class CropView(NamedTuple):
    """One view of a region the classifier names: its crop, ``turned`` 180 degrees (a card
    upside down is the same card) and its box grown by ``margin`` of its side on each side
    (below 0: cut closer)."""

    turned: bool = False
    margin: float = 0.0

    def crop(self, image: np.ndarray, box: Box, size: int = CROP_SIZE) -> np.ndarray:
        """This view's square crop of ``box`` in ``image``."""
        x1, y1, x2, y2 = (float(v) for v in box)
        dx, dy = self.margin * (x2 - x1), self.margin * (y2 - y1)
        return self.turn(square_crop(image, (x1 - dx, y1 - dy, x2 + dx, y2 + dy), size))

    def turn(self, crop: np.ndarray) -> np.ndarray:
        """``crop`` as this view sees it: turned 180 degrees if the view is ``turned``."""
        return np.ascontiguousarray(crop[::-1, ::-1]) if self.turned else crop


#: the crop as cut, alone: one view (what a recogniser given no views names from)
CROP_ONLY = (CropView(),)
#: what a photo's and a live frame's regions are named from, their probabilities averaged:
#: the crop, the crop turned 180 degrees, and both cut 4 % closer. Turned and unturned
#: alike, a card upside down gets the same probabilities as upright, and a box cut a little
#: loose or tight is named as the card it holds; the classifier's time is four times that of
#: one view, a few tens of ms a photo
PHOTO_VIEWS = (CropView(), CropView(turned=True), CropView(margin=-0.04), CropView(turned=True, margin=-0.04))


class CardRecognizer(Protocol):
    """What reads a photo's cards, for every caller (``sushicam detect``, live play, teaching,
    the web app): :class:`Recognizer`, or a test double that scripts what it sees."""

    def detect(self, image_bgr: np.ndarray, allowed: Collection[str] | None = None) -> Detections:
        """The card regions of a BGR photo, named (``data["label"]``), cards only; with
        ``allowed``, named only as those faces (``data["seen_as"]`` keeps a face outside them)."""
        ...


class RegionDetector(Protocol):
    """The first stage: every visible card region of a photo, ``(boxes xyxy (N, 4), scores (N,))``."""

    def __call__(self, image: np.ndarray, conf: float = ..., iou: float = ...
                 ) -> tuple[np.ndarray, np.ndarray]: ...


class RegionClassifier(Protocol):
    """The second stage: class probabilities (N, classes) for N square BGR crops."""

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray: ...


class TwoStageRecognizer(CardRecognizer, Protocol):
    """A :class:`CardRecognizer` whose two stages a caller may run itself (the live label cache
    re-reads only regions that changed): what :class:`Recognizer` offers."""

    @property
    def detector(self) -> RegionDetector: ...
    @property
    def classifier(self) -> RegionClassifier: ...
    @property
    def classes(self) -> tuple[str, ...]: ...
    @property
    def crop_size(self) -> int: ...
    @property
    def min_confidence(self) -> float: ...


class Naming(NamedTuple):
    """What the classifier says of each region (parallel arrays): the name, its probability,
    its lead over the runner-up, the face outside the game's deck it was taken for ("" when
    none), the probability the detection's confidence is built on and the probability that
    the region is no card at all (0 from a classifier without ``not-a-card``)."""

    labels: np.ndarray
    label_scores: np.ndarray
    margins: np.ndarray
    seen_as: np.ndarray
    sureness: np.ndarray
    no_card: np.ndarray


def merge_looks(first: np.ndarray, first_scores: np.ndarray, second: np.ndarray, second_scores: np.ndarray,
                trusted: np.ndarray, overlap: float = 0.5, agree: float = 0.9,
                size_ratio: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """The regions of two looks at one photo, the second closer: ``(boxes, scores)``.

    Where boxes of the two looks overlap (by ``overlap`` of the smaller box), one look's boxes
    of the card are kept, whatever the scores (scores at two input sizes do not compare):

    - the first look's where it is ``trusted`` (a card already large at the first look's size,
      which the closer look sees too close and cuts into parts), or where both looks drew the
      same box (IoU ``agree``) and the closer look nothing else there;
    - else the closer look's: the first look's box of a small card is the coarser (two strips
      of a column taken as one, a strip's box shifted by part of a strip).

    So no strip keeps two boxes (two boxes of one strip would read as two cards, a card
    found that is not there). A card only one look found is
    kept: from the first look always; from the closer look when its long side is within
    ``size_ratio`` of the median of the three first-look boxes nearest it (0: always), as a
    card among cards is (a tablecloth's squares and a score pad's lines, which the closer
    look takes for cards too, are not).
    """
    first, second = np.asarray(first, np.float32).reshape(-1, 4), np.asarray(second, np.float32).reshape(-1, 4)
    first_scores, second_scores = np.asarray(first_scores, np.float32), np.asarray(second_scores, np.float32)
    trusted = np.asarray(trusted, bool).reshape(-1)
    iou, inside = overlaps(first, second)  # (first, second)
    same = inside >= overlap
    trusted = trusted | ((iou >= agree).any(1) & (same.sum(1) == 1))
    new = ~same.any(0)
    second_kept = ~(same & trusted[:, None]).any(0)
    if size_ratio and new.any() and len(first):
        centres = (first[:, :2] + first[:, 2:]) / 2
        distance = np.linalg.norm((second[:, None, :2] + second[:, None, 2:]) / 2 - centres[None], axis=2)
        near = np.argsort(distance, 1)[:, :3]
        near_side = np.median((first[:, 2:] - first[:, :2]).max(1)[near], 1)
        ratio = (second[:, 2:] - second[:, :2]).max(1) / np.maximum(near_side, 1e-6)
        second_kept &= ~new | ((ratio <= size_ratio) & (ratio >= 1 / size_ratio))
    first_kept = ~(same[:, second_kept].any(1) & ~trusted)
    return (np.concatenate([first[first_kept], second[second_kept]]),
            np.concatenate([first_scores[first_kept], second_scores[second_kept]]))


def drop_pieces(detections: Detections, inside: float = 0.6, larger: float = 1.5) -> Detections:
    """``detections`` less the pieces of a card boxed beside the whole card: a box lying at
    least ``inside`` of its area within a box ``larger`` times its area that is named the same.

    A closer look at a small card sometimes cuts it into a top and a bottom part while the
    whole card is boxed too; the part is named as its card (models/README.md). A true card
    seldom lies that far within a card of its own name: a column's lower card shows a strip
    beside the card over it, and a nigiri on its wasabi or a special order on its card are
    other names. Seldom, not never: where the detector boxes two strips of a column as one,
    or the column lies askew, the strip of the card beneath lies within that box; so
    :meth:`Recognizer.detect` drops pieces only on photos that took a second look, the closer
    look at small cards or a close-up's shrunk look (on the independent renderer's single
    tableaux, dropping them everywhere lost a strip in five).

    >>> from vision.detections import Detections
    >>> cards = Detections(np.array([[0, 0, 60, 90], [5, 60, 55, 88], [0, 90, 60, 110], [70, 0, 130, 90]], float),
    ...                    data={"label": np.array(["tempura", "tempura", "tempura", "squid-nigiri"])})
    >>> drop_pieces(cards).labels  # the part inside the whole tempura goes; the strip below stays
    ['tempura', 'tempura', 'squid-nigiri']
    >>> len(drop_pieces(cards, inside=0))
    4
    """
    if not inside or len(detections) < 2:
        return detections
    return detections[~piece_mask(np.asarray(detections.xyxy, np.float64), detections.labels, inside, larger)]


#: a faint box whose short side is under this share of its long side is shaped as a strip
#: (a covered card's strip 0.2-0.45; a whole card 0.64, or up to 1 foreshortened)
FAINT_STRIP_ASPECT = 0.6


def _joined(first: Detections, second: Detections) -> Detections:
    """``first`` then ``second``, with a face seen outside a deck kept where either part
    names one (``Detections.merge`` keeps only the keys both parts have)."""
    parts = [first, second]
    if any(SEEN_AS in p.data for p in parts if len(p)):
        parts = [p if SEEN_AS in p.data or not len(p) else p.with_data(**{SEEN_AS: np.full(len(p), "", dtype="<U32")})
                 for p in parts]
    return Detections.merge(parts)


@dataclass(frozen=True)
class Recognizer:
    """The loaded models; ``detect(image_bgr)`` returns labelled ``Detections``.

    ``confidence`` of a detection is the detector's score times the classifier's. Regions
    the classifier names ``not-a-card`` (a cup, a hand, bare table), or doubts are cards
    (``not_a_card_doubt``), are dropped.
    """

    detector: RegionDetector
    classifier: RegionClassifier
    classes: tuple[str, ...]
    crop_size: int = CROP_SIZE
    #: regions the detector scores below ``region_threshold`` are not classified; a
    #: detection is kept when detector score x classifier probability reaches
    #: ``min_confidence`` (0.3 gave the best card F1 on the training recipe's validation
    #: photos: 0.858 against 0.832 for the detector score alone at 0.25)
    region_threshold: float = 0.25
    min_confidence: float = 0.3
    #: the long side live frames are fed to the detector at (``meta.json``'s
    #: ``detector.live_imgsz``): a webcam's frames come 10 a second, a photo comes alone
    live_imgsz: int | None = None
    #: the views of each region the classifier names, their probabilities averaged
    #: (test-time augmentation: see ``PHOTO_VIEWS``), on photos and live frames alike
    views: tuple[CropView, ...] = PHOTO_VIEWS

    #: with this many regions or fewer, none of them or one covering ``closeup_share`` of the
    #: photo, the photo may be a close-up (a card or three filling the frame, larger than any
    #: card the detector learnt): it looks again at the photo shrunk to ``closeup_scale`` in the
    #: middle of a grey canvas of the photo's size: shrunk, the card is as large as those the
    #: detector learnt, which boxes a card filling the frame in parts
    closeup_regions: int = 3
    closeup_scale: float = 0.4
    closeup_share: float = 0.25
    #: a largest region covering less than ``closeup_share`` but this much may be a part of
    #: a card filling the frame: the shrunk look then adds only the regions that hold one the
    #: first look found, 1.5 times its size or more (the whole card of that part). A card
    #: filling the frame whose first box is such a part is lost to the closer look meant for
    #: small cards; a shrunk look that added every region it found would box whatever else
    #: lies on the table (a hand over its corner) as cards, and one that added any region
    #: merely holding a first box could replace a good box with one reaching past the card
    closeup_part_share: float = 0.15
    #: the long side that second look is fed at (None: the detector's own). A detector fed
    #: below the size it trained at boxes the table round a close-up as cards, and at its
    #: own size it reads close-ups as well
    closeup_imgsz: int | None = None

    #: the second look at small cards (a whole table, an 8-player table's cards 40 px tall):
    #: when a quarter of the regions found (``fine_quantile``) are under ``fine_side`` px long
    #: on the detector's input, the detector looks again at the whole photo, in ``fine_bands``
    #: horizontal bands (a card's size follows its height in the photo), each enlarged so that
    #: the small cards found in it (the ``fine_quantile`` of their long sides) are
    #: ``fine_target`` px long, never beyond the photo's own pixels, and all bands together at
    #: most the pixels of a ``fine_max_imgsz`` x 3/4 input; a band where none were found (a
    #: far seat the first look missed entirely) is enlarged as the nearer band of the
    #: smallest cards below it. :func:`merge_looks` keeps the better box of each card. Tuned
    #: on development sets (``models/README.md``). 0: never (live frames).
    fine_side: float = 60.0
    fine_target: float = 96.0
    fine_quantile: float = 0.25
    fine_bands: int = 3
    fine_max_imgsz: int = 1600
    #: a box lying this share of its area within a larger box of the same name is a piece of
    #: that card (:func:`drop_pieces`), on photos that took a second look (the closer look or
    #: a close-up's; on the others such a box is the strip of a card under one of its name,
    #: which the first look boxed with the strip below it); 0: kept (live frames). Chosen
    #: on development sets, where 0.5 and 0.8 read fewer cards right
    piece_inside: float = 0.6
    #: a box lying within one this many times its area is a speck on that card
    #: (:func:`vision.boxes.speck_mask`: a mark of its art boxed), dropped before it is named;
    #: 0: kept (live frames, whose tracker weighs every box itself). A detector may box a
    #: small mark of a large card's art (a close-up's) as a card of its own
    speck_area: float = 16.0
    #: faint strips: a box the detector scores from ``faint_region`` to ``region_threshold``
    #: (or one named a card less surely than ``min_confidence`` asks), shaped as a strip,
    #: lying apart from every card read and as the next card of a column beside one of them
    #: (:func:`vision.boxes.column_neighbours`), is read as a card when it is named as that
    #: card is and scores ``faint_confidence`` (players lay like cards in columns; a covered
    #: card's thin strip is what the detector scores lowest). Photos of ``closeup_regions``
    #: cards or fewer take none. 0: none (live frames, whose tracker keeps what a column
    #: held)
    faint_region: float = 0.08
    faint_confidence: float = 0.12
    #: each card's tilt read from its outline (``data["tilt"]``, :func:`vision.tilts.card_tilts`),
    #: which the seat split weighs where a box cannot tell a card turned by t from one turned
    #: by -t; off for live frames, whose seats the
    #: tracker keeps
    read_tilts: bool = True
    #: a region the classifier gives ``not-a-card`` this probability or more is no card,
    #: whichever face it names likeliest, unless it lies as the next card of a column beside
    #: a card named without such doubt (:func:`vision.boxes.column_neighbours`): score
    #: pads, phones and plain-coloured objects the classifier never saw are named cards at
    #: 0.4-0.85 with not-a-card at 0.2-0.45, while the cards it doubts as much (about one in
    #: a thousand) are thin strips of a column. 0: only where not-a-card leads (live frames,
    #: whose tracker weighs a hand over a card itself)
    not_a_card_doubt: float = 0.2
    #: the count classifier (``meta.json``'s ``counter``; None: none): a region the classifier
    #: names as a count card (``COUNT_FAMILIES``) is looked at again at ``counter_crop`` px by a
    #: classifier of the counts alone, which shares out the family's probability among its
    #: members (:meth:`recount`). The classifier of every face at 96 px reads whole cards in
    #: plain view one roll off (maki-2 as maki-3 most of all: models/README.md)
    counter: RegionClassifier | None = None
    counter_classes: tuple[str, ...] = ()
    counter_crop: int = 128
    #: the fruit reader (``meta.json``'s ``fruit``; None: none): a region the classifier names
    #: as a fruit card (``FRUIT_FAMILY``) is looked at again at ``fruit_crop`` px by a
    #: classifier of the six fruit faces alone, trained on icons laid out every way, which
    #: shares out the family's probability among them (:meth:`refruit`). The classifier of
    #: every face learnt where the faces' icons sit, and names a print that lays a
    #: same-fruit pair side by side as the mixed pair laid so
    fruit: RegionClassifier | None = None
    fruit_classes: tuple[str, ...] = ()
    fruit_crop: int = 128
    #: the players' own labelled crops (``vision.exemplars``): a region whose embedding lies
    #: near theirs is named as they labelled it (:func:`vision.exemplars.blend`), kinds the
    #: classifier has no class for included (``classes`` then ends with them); None or empty:
    #: the classifier alone. Needs a classifier with an embedding output.
    exemplars: Exemplars | None = None
    exemplar_rule: ExemplarRule = ExemplarRule()
    #: labelled crops of known kinds the classifier's training faces do not show (the model
    #: folder's check sample, ``vision.exemplars.CHECK_FILE``; None: none for this classifier):
    #: with them, each exemplar kind's ``near`` is set by how near another kind comes to it
    #: (``exemplar_levels``, :func:`vision.exemplars.impostor_levels`)
    impostors: Exemplars | None = None
    exemplar_levels: Mapping[str, float] | None = None
    #: the kinds at the end of ``classes`` only the exemplars know (the classifier has no
    #: output for them)
    exemplar_kinds: tuple[str, ...] = ()

    @staticmethod
    def _share(boxes: np.ndarray, image: np.ndarray) -> float:
        """The share of the photo the largest box covers."""
        return float((boxes[:, 2:] - boxes[:, :2]).prod(1).max() / (image.shape[0] * image.shape[1]))

    def _closeup(self, image_bgr: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                 holding: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``boxes, scores`` with what the detector finds in the shrunk photo added (where a
        region is found twice, the better scored box is kept); ``holding``: only the regions
        that hold most of one of ``boxes``, 1.5 times its size or more, are added (a card the
        first look boxed in part)."""
        h, w = image_bgr.shape[:2]
        sw, sh = max(1, round(w * self.closeup_scale)), max(1, round(h * self.closeup_scale))
        left, top = (w - sw) // 2, (h - sh) // 2
        canvas = np.full_like(image_bgr, 114)
        canvas[top:top + sh, left:left + sw] = cv2.resize(image_bgr, (sw, sh), interpolation=cv2.INTER_AREA)
        detector = self.detector
        resized = getattr(detector, "resized", None)  # an ONNX detector can be; a double not
        if self.closeup_imgsz and resized is not None:
            detector = resized(min(self.closeup_imgsz, getattr(detector, "imgsz", self.closeup_imgsz)))
        more, more_scores = detector(canvas, conf=self.region_threshold)
        if not len(more):
            return boxes, scores
        more = (more - [left, top, left, top]) / [sw / w, sh / h, sw / w, sh / h]
        more = np.clip(more, 0, [w, h, w, h]).astype(np.float32)
        if holding:  # the whole of a part: holding most of a first-look region, 1.5 times its size
            first = boxes.reshape(-1, 4)
            larger = areas(more)[None, :] >= 1.5 * areas(first)[:, None]
            held = ((coverage_matrix(first, more) >= 0.7) & larger).any(0)
            more, more_scores = more[held], more_scores[held]
        every = np.concatenate([boxes.reshape(-1, 4), more])
        every_scores = np.concatenate([scores, more_scores]).astype(np.float32)
        kept = nms(every, every_scores, self.region_threshold, 0.5)
        every, every_scores = every[kept], every_scores[kept]
        # a card this large covers no other: a region mostly inside a better one is a part of it
        inside = coverage_matrix(every, every)
        better = every_scores[None, :] > every_scores[:, None]
        part = ((inside >= 0.7) & better).any(1)
        return every[~part], every_scores[~part]

    def _fine_bands(self, boxes: np.ndarray, h: int, w: int, to_input: float) -> list[tuple[int, int, float]]:
        """The horizontal bands of a ``h`` x ``w`` photo the closer look is fed, ``(top, bottom,
        zoom)``, each zoomed so that the cards in it are about ``fine_target`` px long.

        A card's size on the photo follows its distance from the camera, which follows its
        height in the photo: so each band's card size is that of the small cards the first
        look found in it, and a band where it found none (a far seat missed entirely: cards
        too small to find at the first look's size) is taken to hold cards as small as the
        smallest found below it, nearer the camera (farther cards are no larger). Bands
        overlap by the longest card found, so each card lies whole in one of them.
        """
        sides = (boxes[:, 2:] - boxes[:, :2]).max(1)  # photo pixels
        centres = (boxes[:, 1] + boxes[:, 3]) / 2
        edges = np.linspace(0, h, self.fine_bands + 1)
        band_side = np.full(self.fine_bands, np.nan)
        for i in range(self.fine_bands):
            inside = sides[(centres >= edges[i]) & (centres < edges[i + 1])]
            if len(inside):
                band_side[i] = np.quantile(inside, self.fine_quantile)
        nearer = np.inf
        for i in reversed(range(self.fine_bands)):  # from the bottom, nearest the camera, up
            if np.isnan(band_side[i]):
                band_side[i] = nearer
            nearer = min(nearer, band_side[i])
        # below the nearest cards found, none nearer to go by: as large as those
        band_side[np.isinf(band_side)] = band_side[np.isfinite(band_side)][-1]
        overlap = float(sides.max())
        bands = []
        for i in range(self.fine_bands):
            zoom = min(self.fine_target / max(band_side[i], 1.0), 1.0)
            if zoom > 1.15 * to_input:  # else hardly closer than the first look
                top, bottom = max(0, int(edges[i] - overlap)), min(h, int(np.ceil(edges[i + 1] + overlap)))
                bands.append((top, bottom, zoom))
        # join neighbours of one zoom: one run of the detector, and no edge between them
        joined: list[tuple[int, int, float]] = []
        for band in bands:
            if joined and joined[-1][2] == band[2] and joined[-1][1] >= band[0]:
                joined[-1] = (joined[-1][0], band[1], band[2])
            else:
                joined.append(band)
        # at most the pixels of one fine_max_imgsz x 3/4 input: a 4032x3024 photo's table is
        # looked at less closely than its cards' size asks, within the time a photo may take
        pixels = sum((bottom - top) * w * zoom ** 2 for top, bottom, zoom in joined)
        shrink = min(1.0, float(np.sqrt(self.fine_max_imgsz ** 2 * 0.75 / max(pixels, 1.0))))
        return [(top, bottom, zoom * shrink) for top, bottom, zoom in joined if zoom * shrink > 1.15 * to_input]

    def _faint_level(self) -> float:
        """The lowest region score a box is kept at, for the faint strips or as a card."""
        return min(self.faint_region, self.region_threshold) if self.faint_confidence else self.region_threshold

    def _fine(self, image_bgr: np.ndarray, boxes: np.ndarray,
              scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool, tuple[np.ndarray, np.ndarray]]:
        """``boxes, scores, looked, faint`` after the second look at small cards (as they are,
        and ``looked`` false, when the cards are large enough on the detector's input, or the
        detector is fed one size only); ``faint``: the closer look's boxes scored under
        ``region_threshold`` (``(boxes, scores)``, for the faint strips)."""
        none = (np.zeros((0, 4), np.float32), np.zeros(0, np.float32))
        resized = getattr(self.detector, "resized", None)  # an ONNX detector can be; a double not
        imgsz = getattr(self.detector, "imgsz", None)
        if not self.fine_side or resized is None or not imgsz or not len(boxes):
            return boxes, scores, False, none
        h, w = image_bgr.shape[:2]
        to_input = imgsz / max(h, w)
        sides = (boxes[:, 2:] - boxes[:, :2]).max(1) * to_input
        if np.quantile(sides, self.fine_quantile) >= self.fine_side:
            return boxes, scores, False, none
        # a card large at the first look's size is read there: the closer look would cut it up
        trusted = sides >= self.fine_side
        usable = (boxes[:, 2:] - boxes[:, :2]).min(1) >= 1  # not a box clipped to a point at the edge
        if not usable.any():
            return boxes, scores, False, none
        found, found_scores = [], []
        for top, bottom, zoom in self._fine_bands(boxes[usable], h, w, to_input):
            band = image_bgr[top:bottom]
            more, more_scores = resized(int(round(zoom * max(band.shape[:2]))))(band, conf=self._faint_level())
            more = (more + [0, top, 0, top]).astype(np.float32)
            # a box at the band's edge (not the photo's) is a card cut in two by it: the
            # band next to it holds the whole card
            cut = ((more[:, 1] <= top + 1) & (top > 0)) | ((more[:, 3] >= bottom - 1) & (bottom < h))
            found.append(more[~cut])
            found_scores.append(more_scores[~cut])
        if not found:
            return boxes, scores, False, none
        more, more_scores = np.concatenate(found), np.concatenate(found_scores).astype(np.float32)
        if len(found) > 1 and len(more):  # a card whole in two bands' overlap is found twice
            kept = nms(more, more_scores, self._faint_level(), 0.5)
            more, more_scores = more[kept], more_scores[kept]
        # the boxes scored as cards are those a look at region_threshold keeps: a box never
        # suppresses a better scored one
        sure = more_scores >= self.region_threshold
        return (*merge_looks(boxes, scores, more[sure], more_scores[sure], trusted), True,
                (more[~sure], more_scores[~sure]))

    @classmethod
    def load(cls, model_dir: str | Path = MODELS_DIR, threads: int = 2,
             data_dir: str | Path | None = None) -> Recognizer:
        """The models of ``model_dir``; photos are fed to the detector at ``meta.json``'s
        ``detector.imgsz`` on their long side, live frames at ``detector.live_imgsz``.

        Where the classifier has an embedding output, the recogniser reads by exemplars too:
        the set ``meta.json``'s ``exemplars`` names (a version learnt from confirmed rounds)
        and every set in ``<data_dir>/exemplars/`` (the players' taught cards), each kind's
        threshold set by the folder's check sample (``impostors``) where this classifier made it."""
        from vision.runtime import ModelFileError, OnnxClassifier, OnnxDetector

        model_dir = Path(model_dir)
        meta_path = model_dir / "meta.json"
        if not meta_path.exists():
            raise ModelFileError(f"no meta.json in {model_dir}: not a sushicam model folder")
        meta = json.loads(meta_path.read_text())
        detector = OnnxDetector(model_dir / meta["detector"]["file"], threads, meta["detector"].get("imgsz"))
        classifier = OnnxClassifier(model_dir / meta["classifier"]["file"], threads)
        classes = tuple(classifier.names or meta["classes"])
        counting: dict[str, Any] = {}
        for reader in ("counter", "fruit"):  # the readers of a family's mark, where meta.json names them
            if isinstance(meta.get(reader), dict):
                model = OnnxClassifier(model_dir / meta[reader]["file"], threads)
                counting |= {reader: model, f"{reader}_classes": tuple(model.names or meta[reader]["classes"]),
                             f"{reader}_crop": int(meta[reader].get("crop", 128))}
        recognizer = cls(detector, classifier, classes, int(meta["classifier"].get("crop", CROP_SIZE)),
                         live_imgsz=meta["detector"].get("live_imgsz"), **counting)
        if not getattr(classifier, "embeds", False):
            return recognizer  # a model folder without embeddings reads by its classifier alone
        files = [model_dir / meta["exemplars"]["file"]] if isinstance(meta.get("exemplars"), dict) else []
        if data_dir is not None:
            files += set_files(Path(data_dir) / EXEMPLARS_DIR)
        current = fingerprint(model_dir / meta["classifier"]["file"])
        try:
            impostors = load_impostors(model_dir / CHECK_FILE, current)
        except (OSError, ValueError, KeyError):  # a damaged sample: one near for every kind
            impostors = None
        recognizer = dataclasses.replace(recognizer, impostors=impostors)
        sets = recognizer.load_sets(files, current)
        return recognizer.with_exemplars(Exemplars.join(s.exemplars for s in sets))

    def load_sets(self, files: Collection[Path], current: str) -> list[ExemplarSet]:
        """The exemplar sets of ``files`` that can be read, embedded by this recogniser's
        classifier (again, from their crops, where another classifier made them)."""
        sets = []
        for path in files:
            try:
                sets.append(load_set(path, self.embed_crops, current))
            except (OSError, ValueError, KeyError) as exc:  # a damaged set: read without it
                import logging

                logging.getLogger(__name__).warning("exemplar set %s left out: %s", path, exc)
        return sets

    def with_exemplars(self, exemplars: Exemplars | None) -> Recognizer:
        """This recogniser reading by ``exemplars`` too (None: by its classifier alone)."""
        own = self.classes[:len(self.classes) - len(self.exemplar_kinds)]
        if exemplars is None or not len(exemplars):
            return dataclasses.replace(self, exemplars=None, classes=own, exemplar_kinds=(), exemplar_levels=None)
        classes = classes_with(own, exemplars)
        levels = impostor_levels(exemplars, self.impostors, self.exemplar_rule.k) if self.impostors is not None else None
        return dataclasses.replace(self, exemplars=exemplars, classes=classes, exemplar_kinds=classes[len(own):],
                                   exemplar_levels=levels)

    def embed_crops(self, crops: Collection[np.ndarray]) -> np.ndarray:
        """Unit embeddings (N, D) of square BGR crops, each seen as a region filling it (the
        same views a photo's regions are named from): what an exemplar is."""
        crops = list(crops)
        if not crops:
            return np.zeros((0, 0), np.float32)
        side = crops[0].shape[0]
        boxes = np.array([[0, 0, side, side]] * len(crops), np.float32)
        views = self.views or CROP_ONLY
        cut = [[view.crop(crop, boxes[0], self.crop_size) for crop in crops] for view in views]
        _, embeddings = self.classifier.embed([c for group in cut for c in group])  # type: ignore[attr-defined]
        return unit(np.asarray(embeddings, np.float32).reshape(len(views), len(crops), -1).mean(0))

    def exemplar_crops(self, image_bgr: np.ndarray, boxes: np.ndarray) -> list[list[np.ndarray]]:
        """For each of a photo's card ``boxes``, the square crops an exemplar set keeps of its
        card (``vision.exemplars.CROP`` px): the box's own, or, where the box is a part of a
        card cut short (``vision.cardsize.whole_card_boxes``), the whole card, reaching up
        from the box's bottom or down from its top, whichever way the pixels beyond the cut
        are not table (``vision.cardsize.card_side``; both, under one card, where that cannot
        be told). A crop of a part of a card lies far from every whole view of that card, so
        a card learnt from it would not be read the next time it lies whole."""
        boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
        held = [card_side(image_bgr, boxes, box, card)
                for box, card in zip(boxes, whole_card_boxes(boxes, image_bgr.shape), strict=True)]
        return [[square_crop(image_bgr, box, EXEMPLAR_CROP) for box in card] for card in held]

    def for_live(self) -> Recognizer:
        """This recogniser with its detector fed at ``live_imgsz`` (as it is when unset) and no
        second look at small cards: a webcam's frames come 10 a second. Regions are named from
        the same views as a photo's: a live table's far seats lie upside down in the frame, and
        on a still table only the cards that moved are named again (``LabelCache``), so the
        views cost little there (bench-live: 1.6 regions named a frame)."""
        live = dataclasses.replace(self, fine_side=0.0, piece_inside=0.0, speck_area=0.0, faint_confidence=0.0,
                                   read_tilts=False, not_a_card_doubt=0.0)
        resized = getattr(self.detector, "resized", None)  # an ONNX detector can be; a double not
        if not self.live_imgsz or resized is None:
            return live
        return dataclasses.replace(live, detector=resized(self.live_imgsz))

    def detect(self, image_bgr: np.ndarray, allowed: Collection[str] | None = None) -> Detections:
        """Every card region of ``image_bgr``, named.

        ``allowed`` (the faces a game's deck holds, ``vision.deck.Deck.allowed``) limits the
        names to those faces. Whether a region is a card at all is still decided over every
        class; where the classifier's most likely face lies outside ``allowed``, the region
        keeps the likeliest allowed name and ``data["seen_as"]`` that outside face, so the
        card can be flagged for the player rather than silently renamed or dropped.
        """
        if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError("expected a colour image (H, W, 3) in BGR order")
        boxes, scores = self.detector(image_bgr, conf=self._faint_level())
        sure = scores >= self.region_threshold  # as a look at region_threshold keeps them
        faint = [(boxes[~sure], scores[~sure])]
        boxes, scores = boxes[sure], scores[sure]
        # the share is looked at only for the few regions a close-up shows, not for every table
        few = len(boxes) <= self.closeup_regions
        share = (self._share(boxes, image_bgr) if len(boxes) else 1.0) if few else 0.0
        if few and share >= min(self.closeup_share, self.closeup_part_share):
            boxes, scores = self._closeup(image_bgr, boxes, scores, holding=share < self.closeup_share)
            looked_again = True
            faint = []  # a close-up's cards lie whole in view
        else:
            boxes, scores, looked_again, closer = self._fine(image_bgr, boxes, scores)
            faint.append(closer)
        if self.speck_area and len(boxes) > 1:
            card = ~speck_mask(boxes, larger=self.speck_area)
            boxes, scores = boxes[card], scores[card]
        if not len(boxes):
            return Detections.empty()
        naming = self._doubted(boxes, scores, self.name(image_bgr, boxes, allowed))
        # pieces come from a second look (closer at small cards, or farther at a close-up);
        # where the first look alone read the photo, a box within a same-named one is a
        # strip of its column (drop_pieces)
        cards = drop_pieces(self.named_regions(boxes, scores, naming.labels, naming.label_scores, naming),
                            self.piece_inside if looked_again else 0.0)
        if faint:
            # a region named a card less surely than min_confidence is as faint
            unsure = (naming.labels != NOT_A_CARD) & (scores * naming.sureness < self.min_confidence)
            faint.append((boxes[unsure], scores[unsure]))
            cards = self._faint_strips(image_bgr, cards, np.concatenate([b for b, _ in faint]),
                                       np.concatenate([f for _, f in faint]), allowed)
        if self.read_tilts and len(cards):
            cards = cards.with_data(**{TILT: card_tilts(image_bgr, cards.xyxy)})
        return cards

    def _doubted(self, boxes: np.ndarray, scores: np.ndarray, naming: Naming) -> Naming:
        """``naming`` with each region the classifier doubts is a card named ``not-a-card``
        (see ``not_a_card_doubt``), but for those lying as the next card of a column beside a
        card named without doubt."""
        if not self.not_a_card_doubt:
            return naming
        doubted = (naming.labels != NOT_A_CARD) & (naming.no_card >= self.not_a_card_doubt)
        if not doubted.any():
            return naming
        sure = (naming.labels != NOT_A_CARD) & ~doubted & (scores * naming.sureness >= self.min_confidence)
        no_card = doubted.copy()
        no_card[doubted] = ~column_neighbours(boxes[doubted], boxes[sure]).any(1)
        return naming._replace(labels=np.where(no_card, NOT_A_CARD, naming.labels))

    def _faint_strips(self, image_bgr: np.ndarray, cards: Detections, boxes: np.ndarray, scores: np.ndarray,
                      allowed: Collection[str] | None = None) -> Detections:
        """``cards`` with the faint strips among ``boxes`` added (see ``faint_confidence``)."""
        if not self.faint_confidence or len(cards) <= self.closeup_regions or not len(boxes):
            return cards
        boxes, scores = np.asarray(boxes, np.float32).reshape(-1, 4), np.asarray(scores, np.float32)
        kept = nms(boxes, scores, 0.0, 0.5)  # the first and the closer look's boxes of one strip
        boxes, scores = boxes[kept], scores[kept]
        iou, within = overlaps(boxes, cards.xyxy)
        sides = boxes[:, 2:] - boxes[:, :2]
        strip = sides.min(1) < FAINT_STRIP_ASPECT * sides.max(1)
        beside = column_neighbours(boxes, cards.xyxy)
        apart = (iou.max(1) < 0.3) & (within.max(1) < 0.5)
        ask = apart & strip & beside.any(1)
        if not ask.any():
            return cards
        boxes, scores, beside = boxes[ask], scores[ask], beside[ask]
        naming = self.name(image_bgr, boxes, allowed)
        # named as a card of its column is: players lay like cards in columns
        column_labels = np.asarray(cards.labels, dtype=object)
        like = np.array([(column_labels[near] == label).any() for near, label in zip(beside, naming.labels, strict=True)],
                        bool)
        if not like.any():
            return cards
        faint = dataclasses.replace(self, min_confidence=self.faint_confidence).named_regions(
            boxes[like], scores[like], naming.labels[like], naming.label_scores[like],
            Naming(*(field[like] for field in naming)))
        if not len(faint):
            return cards
        faint = faint[nms(faint.xyxy, faint.confidence, 0.0, 0.3)]
        return _joined(cards, faint)

    def name(self, image_bgr: np.ndarray, boxes: np.ndarray,
             allowed: Collection[str] | None = None) -> Naming:
        """The classifier's name for each region of ``boxes`` (only faces of ``allowed`` when
        given: see :meth:`detect`), its probability and its lead over the runner-up."""
        if not len(boxes):
            empty = np.zeros(0, np.float32)
            return Naming(np.array([], dtype="<U32"), empty, empty, np.array([], dtype="<U32"), empty, empty)
        probabilities = self.probabilities(image_bgr, boxes, allowed)
        rows = np.arange(len(boxes))
        best = probabilities.argmax(1)
        card = np.array([self.classes[i] != NOT_A_CARD for i in best])
        seen_as = np.array([""] * len(boxes), dtype="<U32")
        named = probabilities
        if allowed is not None:
            names = np.array(self.classes)
            kept = np.isin(names, list(allowed)) & (names != NOT_A_CARD)
            outside = ~kept[best] & card
            seen_as[outside] = names[best[outside]]
            if kept.any():
                # a region that is no card stays no card: only a card's face is limited to the deck
                best = np.where(card, np.where(kept[None, :], probabilities, -1.0).argmax(1), best)
                named = np.where(kept[None, :], probabilities, 0.0)
        label_scores = probabilities[rows, best]
        # how far the best name leads the runner-up (among the allowed names): a small lead is a
        # guess between two
        margins = (label_scores - np.sort(named, 1)[:, -2]) if probabilities.shape[1] > 1 else label_scores
        # a card is as sure as its likeliest face, allowed or not: a card seen outside the
        # deck must reach the player flagged, not fall under min_confidence
        sureness = np.where(seen_as != "", probabilities[rows, probabilities.argmax(1)], label_scores)
        no_card = (probabilities[:, self.classes.index(NOT_A_CARD)] if NOT_A_CARD in self.classes
                   else np.zeros(len(boxes), np.float32))
        return Naming(np.array([self.classes[i] for i in best]), label_scores, margins, seen_as, sureness, no_card)

    def probabilities(self, image_bgr: np.ndarray, boxes: np.ndarray,
                      allowed: Collection[str] | None = None) -> np.ndarray:
        """The classifier's class probabilities (N, classes) for each region of ``boxes``: the
        mean over ``views`` (all of them in one batch; a photo's pixels are cut and shrunk
        once per margin, which at 4032x3024 costs as much as the classifier), the count of a
        region named as a maki or an uramaki (among ``allowed``, when given) as the count
        classifier decides it (:meth:`recount`), and the fruit of a fruit card as the fruit
        reader does (:meth:`refruit`)."""
        if self.exemplars is None or not len(self.exemplars):
            named = self._looked_at(self.classifier, image_bgr, boxes, self.crop_size)
            return self.refruit(image_bgr, boxes, self.recount(image_bgr, boxes, named, allowed), allowed)
        probabilities, embeddings = self._looked_at(self.classifier, image_bgr, boxes, self.crop_size, embed=True)
        width = len(self.classes)
        padded = np.zeros((len(probabilities), width), np.float32)
        padded[:, :probabilities.shape[1]] = probabilities
        # the mark readers first: a player's exemplars of a count or fruit card have the last word
        counted = self.refruit(image_bgr, boxes, self.recount(image_bgr, boxes, padded, allowed), allowed)
        return blend(counted, self.classes, embeddings, self.exemplars, self.exemplar_rule, self.exemplar_levels,
                     self.impostors)

    @overload
    def _looked_at(self, classifier: RegionClassifier, image_bgr: np.ndarray, boxes: np.ndarray,
                   size: int) -> np.ndarray: ...
    @overload
    def _looked_at(self, classifier: RegionClassifier, image_bgr: np.ndarray, boxes: np.ndarray,
                   size: int, embed: Literal[True]) -> tuple[np.ndarray, np.ndarray]: ...

    def _looked_at(self, classifier: RegionClassifier, image_bgr: np.ndarray, boxes: np.ndarray,
                   size: int, embed: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """``classifier``'s probabilities for ``boxes``, averaged over ``views`` of ``size`` px;
        with ``embed``, and the regions' unit embeddings (the views' mean), from the same run."""
        views = self.views or CROP_ONLY
        cut: dict[float, list[np.ndarray]] = {}  # each margin's crops, cut once: a turned view flips them
        crops = []
        for view in views:
            if view.margin not in cut:
                cut[view.margin] = [CropView(margin=view.margin).crop(image_bgr, box, size) for box in boxes]
            crops += [view.turn(c) for c in cut[view.margin]]
        if embed:
            probabilities, embeddings = classifier.embed(crops)  # type: ignore[attr-defined]
            return (np.asarray(probabilities, np.float32).reshape(len(views), len(boxes), -1).mean(0),
                    unit(np.asarray(embeddings, np.float32).reshape(len(views), len(boxes), -1).mean(0)))
        probabilities = np.asarray(classifier(crops), np.float32)
        return np.asarray(probabilities.reshape(len(views), len(boxes), -1).mean(0))

    def recount(self, image_bgr: np.ndarray, boxes: np.ndarray, probabilities: np.ndarray,
                allowed: Collection[str] | None = None) -> np.ndarray:
        """``probabilities`` with the count of each region named as a count card decided by
        ``counter``: its family's summed probability (that it is a maki, an uramaki) is kept and
        shared out as the counter shares it among the family's members. Unchanged without a
        counter, or for regions named anything else. With ``allowed``, a card is named by its
        likeliest allowed face, as :meth:`name` names it: a maki the game holds, taken for a
        face outside it, is counted too."""
        return self._reread(image_bgr, boxes, probabilities, allowed, self.counter, self.counter_classes,
                            self.counter_crop, COUNT_FAMILIES)

    def refruit(self, image_bgr: np.ndarray, boxes: np.ndarray, probabilities: np.ndarray,
                allowed: Collection[str] | None = None) -> np.ndarray:
        """``probabilities`` with the fruit of each region named as a fruit card decided by
        ``fruit``, as :meth:`recount` decides a count: the family's summed probability (that
        it is a fruit card) is kept and shared out as the fruit reader shares it among the
        six fruit faces. A reading split between two pairs leaves the card's two best names
        close, so the card is marked unsure (``vision.unsure``). Unchanged without a fruit
        reader, or for regions named anything else."""
        return self._reread(image_bgr, boxes, probabilities, allowed, self.fruit, self.fruit_classes,
                            self.fruit_crop, (FRUIT_FAMILY,))

    def _reread(self, image_bgr: np.ndarray, boxes: np.ndarray, probabilities: np.ndarray,
                allowed: Collection[str] | None, reader: RegionClassifier | None, reader_classes: tuple[str, ...],
                crop: int, families: tuple[tuple[str, ...], ...]) -> np.ndarray:
        """``probabilities`` with the kind within ``families`` of each region named as one of
        their members decided by ``reader`` (of ``reader_classes``, fed ``crop`` px crops): the
        family's summed probability kept, shared out as the reader shares it among the family's
        members. Only the regions so named are read again."""
        if reader is None or not len(boxes):
            return probabilities
        index = {c: i for i, c in enumerate(self.classes)}
        reader_index = {c: i for i, c in enumerate(reader_classes)}
        family_of = {face: family for family in families
                     if all(c in index and c in reader_index for c in family) for face in family}
        named = [self.classes[i] for i in probabilities.argmax(1)]
        kept = np.isin(np.array(self.classes), list(allowed)) if allowed is not None else None
        if kept is not None and kept.any():
            allowed_best = np.where(kept[None, :], probabilities, -1.0).argmax(1)
            named = [face if face == NOT_A_CARD else self.classes[b] for face, b in zip(named, allowed_best, strict=True)]
        rows = [r for r, face in enumerate(named) if face in family_of]
        if not rows:
            return probabilities
        read = self._looked_at(reader, image_bgr, np.asarray(boxes)[rows], crop)
        out = probabilities.copy()
        for row, shares in zip(rows, read, strict=True):
            family = family_of[named[row]]
            members = [index[c] for c in family]
            share = shares[[reader_index[c] for c in family]]
            out[row, members] = probabilities[row, members].sum() * share / max(float(share.sum()), 1e-9)
        return out

    def named_regions(self, boxes: np.ndarray, scores: np.ndarray, labels: np.ndarray,
                      label_scores: np.ndarray, naming: Naming | None = None) -> Detections:
        """The cards among named regions: ``not-a-card`` dropped, and a detection kept when
        region score x name probability reaches ``min_confidence`` (a live reader that names
        only some regions itself goes through here too, so both keep the same cards).
        ``naming`` (from :meth:`name`) adds the margins and the faces seen outside a deck."""
        if not len(boxes):
            return Detections.empty()
        labels = np.asarray(labels).astype(str)
        label_scores = np.asarray(label_scores, np.float32)
        index = {c: i for i, c in enumerate(self.classes)}
        # class_id: the classifier's own output index, self.classes[class_id]
        class_id = np.array([index.get(c, -1) for c in labels])
        data = {LABEL: labels, REGION_SCORE: np.asarray(scores), LABEL_SCORE: label_scores}
        sureness = label_scores
        if naming is not None:
            data[LABEL_MARGIN] = naming.margins
            sureness = naming.sureness
            if (naming.seen_as != "").any():
                data[SEEN_AS] = naming.seen_as
        detections = Detections(xyxy=boxes, class_id=class_id, confidence=np.asarray(scores) * sureness,
                                data=data)
        detections = detections[labels != NOT_A_CARD]
        return detections[detections.confidence >= self.min_confidence]
