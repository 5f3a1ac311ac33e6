"""The fruit reader: a region named as a fruit card is looked at again by a classifier of the
six fruit faces alone, trained on icons laid out every way, which decides which two fruit
the card shows. The classifier of every face keeps its say on whether it is a fruit card."""

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.stubs import Fixed, no_detector
from vision.fieldtest.cards import FRUIT_ICON_BOXES, fruit_print_face, load_faces
from vision.recognizer import CROP_ONLY, FRUIT_FAMILY, Recognizer
from vision.unsure import is_unsure

CLASSES = ("eel", *FRUIT_FAMILY, "pudding")


def recognizer(main, fruit):
    return Recognizer(no_detector, main, CLASSES, views=CROP_ONLY, fruit=fruit,
                      fruit_classes=tuple(sorted(FRUIT_FAMILY)), fruit_crop=128)


IMAGE = np.full((200, 300, 3), 120, np.uint8)
BOX = np.array([[40, 30, 100, 120]], np.float32)


def test_the_fruit_reader_decides_the_pair_and_the_classifier_that_it_is_a_fruit_card():
    # the classifier: watermelon-pineapple 0.6 (where a pair side by side sits), two
    # watermelons 0.3, pudding 0.1: a fruit card, 0.9 sure. The fruit reader: two watermelons
    main = Fixed([0.0, 0.0, 0.0, 0.0, 0.0, 0.6, 0.3, 0.1])
    fruit = Fixed([0.0, 0.0, 0.0, 0.0, 0.1, 0.9])
    got = recognizer(main, fruit).probabilities(IMAGE, BOX)[0]
    # the fruit share 0.9 split 0.1 : 0.9; eel and pudding as they were
    assert got.tolist() == pytest.approx([0.0, 0.0, 0.0, 0.0, 0.0, 0.09, 0.81, 0.1], abs=1e-6)
    naming = recognizer(main, fruit).name(IMAGE, BOX)
    assert naming.labels.tolist() == ["fruit-watermelon-watermelon"]
    # the reader is fed its own crop size, not the classifier's
    assert set(fruit.sides) == {(128, 128)} and set(main.sides) == {(96, 96)}


def test_a_fruit_reading_split_between_two_pairs_leaves_the_card_unsure():
    main = Fixed([0.0, 0.97, 0.0, 0.0, 0.0, 0.0, 0.0, 0.03])  # two oranges, surely
    fruit = Fixed([0.48, 0.0, 0.0, 0.52, 0.0, 0.0])  # oranges or watermelon-orange: a toss-up
    naming = recognizer(main, fruit).name(IMAGE, BOX)
    assert naming.labels.tolist() == ["fruit-watermelon-orange"]
    assert is_unsure(float(naming.sureness[0]), float(naming.margins[0]))
    # the same card read surely by the fruit reader is not
    sure = recognizer(main, Fixed([0.98, 0.0, 0.0, 0.02, 0.0, 0.0])).name(IMAGE, BOX)
    assert sure.labels.tolist() == ["fruit-orange-orange"]
    assert not is_unsure(float(sure.sureness[0]), float(sure.margins[0]))


def test_a_region_named_anything_else_is_not_read_by_the_fruit_reader():
    main = Fixed([0.0, 0.1, 0.1, 0.1, 0.0, 0.0, 0.0, 0.7])  # pudding, though 0.3 is fruit
    fruit = Fixed([1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    got = recognizer(main, fruit).probabilities(IMAGE, BOX)[0]
    assert got.tolist() == pytest.approx(main.probabilities.tolist(), abs=1e-6)
    assert fruit.sides == []


def test_without_a_fruit_reader_the_classifier_names_alone():
    main = Fixed([0.0, 0.0, 0.0, 0.0, 0.0, 0.6, 0.3, 0.1])
    assert recognizer(main, None).name(IMAGE, BOX).labels.tolist() == ["fruit-watermelon-pineapple"]


def test_the_training_faces_icons_are_cut_where_the_independent_renderer_measured_them(faces):
    """Two measurements made apart: the training generator finds the icons by segmentation,
    the independent renderer names fixed rectangles measured once; each icon found lies on
    its rectangle (IoU at least 0.6)."""
    from vision.boxes import iou_matrix
    from vision.synth.fruit import ICON_BAND, cut_icons, icon_mask

    for slug, rectangles in FRUIT_ICON_BOXES.items():
        face = faces.faces[slug][0]
        h, w = face.shape[:2]
        found = cut_icons(face, slug)
        assert [icon.fruit for icon in found] == slug.split("-")[1:3]
        mask = icon_mask(face)
        assert mask.shape[0] == int(ICON_BAND * h)
        for icon, (x1, y1, x2, y2) in zip(found, rectangles, strict=True):
            assert iou_matrix([icon.box], [[x1 * w, y1 * h, x2 * w, y2 * h]])[0, 0] >= 0.6, slug


@pytest.mark.parametrize("layout", ["side", "stacked"])
def test_a_relaid_face_shows_its_two_icons_in_the_layout_asked(faces, layout):
    from vision.synth.fruit import icon_mask, relaid_face

    rng = np.random.default_rng(5)
    for slug in FRUIT_FAMILY:
        face = relaid_face(rng, slug, layout=layout)
        assert face.shape == faces.faces[slug][0].shape
        count, _, stats, centres = cv2.connectedComponentsWithStats(icon_mask(face))
        big = [c for c, s in zip(centres[1:], stats[1:], strict=True) if s[cv2.CC_STAT_AREA] > 0.01 * face[:200].size / 3]
        assert len(big) in (1, 2), slug  # two icons, or two touching
        if len(big) == 2:
            dx, dy = abs(big[0][0] - big[1][0]), abs(big[0][1] - big[1][1])
            assert (dx > dy) == (layout == "side"), slug


def test_the_independent_renderer_lays_a_same_fruit_pair_side_by_side_in_its_side_by_side_print():
    bank = load_faces()
    face = bank.digital["fruit-orange-orange"][0]
    relaid = fruit_print_face(np.random.default_rng(0), face, "fruit-orange-orange", "side-by-side")
    paper = np.median(face[4:16, 24:60].reshape(-1, 3).astype(np.float32), 0)
    ink = np.linalg.norm(relaid[:200].astype(np.float32) - paper, axis=2) > 40
    rows, cols = np.nonzero(ink)
    # two oranges side by side: the icons' ink spans about twice as wide as tall
    assert (cols.max() - cols.min()) > 1.6 * (rows.max() - rows.min())
    # and the faces' own print of it is left as it is
    assert fruit_print_face(np.random.default_rng(0), face, "fruit-orange-orange", "stacked") is face


# --- the committed fruit reader -------------------------------------------------------------


@pytest.fixture(scope="module")
def bundled():
    return Recognizer.load(Path(__file__).resolve().parents[2] / "models")


def test_the_bundled_models_read_fruit_with_their_own_fruit_reader(bundled):
    assert bundled.fruit is not None and bundled.fruit_classes == tuple(sorted(FRUIT_FAMILY))
    assert bundled.fruit_crop == 128


def _one_card_photo(slug: str, fruit_print: str, seed: int):
    """A close-up of one card of ``slug`` on a table, from the independent renderer, in
    ``fruit_print``, and the card's visible box: the first render from ``seed`` on where the
    card lies wholly in view (a cup or a hand may stand over it)."""
    from vision.fieldtest.render import render_table
    from vision.fieldtest.table import Card, Seat, Table

    for attempt in range(seed * 10, seed * 10 + 10):
        table = Table("round", (90.0, 90.0), [Seat(0.0, -40.0, 0.0, [slug])], [Card(slug, 0, 0.0, -25.0, 0.0)])
        image, truth = render_table(np.random.default_rng([attempt, 7]), table, "closeup", (1280, 960),
                                    fruit_print=fruit_print, fruit_rng=np.random.default_rng(attempt))
        card = truth["cards"][0]
        if card["visible"] >= 0.95:
            return image, np.array([card["box"]], np.float32), card["layout"]
    raise AssertionError(f"no render of {slug} shows the card whole")


@pytest.mark.slow
def test_the_bundled_reader_names_each_fruit_pair_in_either_layout_or_marks_it_unsure(bundled):
    """Each fruit card, drawn by the independent renderer with its icons side by side and
    stacked: named as its pair, or marked unsure, never a sure wrong pair; most of them
    named right; and the fruit family's probability stays the classifier's."""
    read = []
    for fruit_print in ("side-by-side", "stacked"):
        for k, slug in enumerate(FRUIT_FAMILY):
            image, box, layout = _one_card_photo(slug, fruit_print, seed=k)
            assert layout == ("side" if fruit_print == "side-by-side" else "stacked")
            naming = bundled.name(image, box)
            unsure = is_unsure(float(naming.sureness[0]), float(naming.margins[0]))
            read.append((slug, fruit_print, str(naming.labels[0]), unsure))
            plain = bundled.probabilities(image, box)[0]
            alone = dataclasses.replace(bundled, fruit=None).probabilities(image, box)[0]
            index = [bundled.classes.index(c) for c in FRUIT_FAMILY]
            assert float(plain[index].sum()) == pytest.approx(float(alone[index].sum()), abs=1e-5)
    assert all(label == slug or unsure for slug, _, label, unsure in read), read
    assert sum(label == slug for slug, _, label, _ in read) >= 10, read


def test_the_field_fruit_set_lays_half_its_photos_side_by_side_and_says_so_in_the_truth():
    from vision.fieldtest.render import render_photo
    from vision.fieldtest.sets import FAMILIES, FIELD_SETS

    spec = FIELD_SETS["field-fruit"]
    assert "field-fruit" in FAMILIES["field"]
    prints = [spec.fruit_prints[i % len(spec.fruit_prints)] for i in range(spec.photos)]
    assert prints.count("side-by-side") == spec.photos // 2
    kind, size = spec.shots[0]
    _, truth = render_photo(spec.seed * 1_000_003, kind, size, fruit_print="side-by-side")
    fruit = [c for c in truth["cards"] if c["label"].startswith("fruit-")]
    assert fruit and all(c["layout"] == "side" for c in fruit)
    assert truth["fruit_print"] == "side-by-side"


def test_eval_reports_fruit_cards_named_right_by_pair_and_layout():
    from collections import Counter

    from vision.training.evaluate import _fruit_counts, fruit_accuracy

    visible = [{"label": "fruit-orange-orange", "layout": "side"}, {"label": "fruit-orange-orange"},
               {"label": "fruit-pineapple-orange", "layout": "stacked"}, {"label": "eel"}]
    labels = ["fruit-pineapple-orange", "fruit-orange-orange", "fruit-pineapple-orange", "eel"]
    counts: Counter = Counter()
    _fruit_counts(labels, [(0, 0), (1, 1), (2, 2), (3, 3)], visible, counts)
    report = fruit_accuracy(counts)
    assert report["same, side"] == {"found": 1, "right": 0, "accuracy": 0.0}
    assert report["same, stacked"]["right"] == report["mixed, stacked"]["right"] == 1
    assert report["all"] == {"found": 3, "right": 2, "accuracy": 0.6667}


def test_eval_reports_each_family_told_by_a_mark_apart():
    from collections import Counter

    from vision.training.evaluate import _family_counts, family_accuracy

    # the rulebook's families of one kind in several faces, each with its own share: a fruit
    # card read as another fruit pair and an onigiri as another shape count against their own
    # family alone; a card of no such family (eel) is in none
    visible = [{"label": "fruit-orange-orange"}, {"label": "fruit-watermelon-orange"},
               {"label": "onigiri-square"}, {"label": "maki-2"}, {"label": "uramaki-5"},
               {"label": "salmon-nigiri"}, {"label": "eel"}]
    labels = ["fruit-pineapple-orange", "fruit-watermelon-orange", "onigiri-rectangle", "maki-2", "uramaki-5",
              "salmon-nigiri", "eel"]
    counts: Counter = Counter()
    _family_counts(labels, [(k, k) for k in range(len(visible))], visible, counts)
    report = family_accuracy(counts)
    assert report == {"nigiri": {"found": 1, "right": 1, "accuracy": 1.0},
                      "fruit": {"found": 2, "right": 1, "accuracy": 0.5},
                      "maki": {"found": 1, "right": 1, "accuracy": 1.0},
                      "onigiri": {"found": 1, "right": 0, "accuracy": 0.0},
                      "uramaki": {"found": 1, "right": 1, "accuracy": 1.0}}
