"""The count classifier: a region named as a maki or an uramaki is looked at again, closer, by a
classifier of the counts alone, which decides how many rolls the card shows. The classifier of
every face keeps its say on whether the region is a maki (or an uramaki) at all."""

import numpy as np
import pytest

from tests.vision.stubs import Fixed, no_detector
from vision.recognizer import CROP_ONLY, Recognizer
from vision.synth.dataset import COUNT_FACES

CLASSES = ("maki-1", "maki-2", "maki-3", "tempura", "uramaki-3", "uramaki-4", "uramaki-5")


def recognizer(main, counter):
    return Recognizer(no_detector, main, CLASSES, views=CROP_ONLY, counter=counter,
                      counter_classes=COUNT_FACES, counter_crop=128)


IMAGE = np.full((200, 300, 3), 120, np.uint8)
BOX = np.array([[40, 30, 100, 120]], np.float32)


def test_the_counter_decides_the_count_and_the_classifier_whether_it_is_a_maki():
    # the classifier: maki-3 0.6, maki-2 0.3, tempura 0.1 (a maki, 0.9 sure; which one it
    # reads wrong); the counter: maki-2, 0.9 of its maki share
    main = Fixed([0.0, 0.3, 0.6, 0.1, 0.0, 0.0, 0.0])
    counter = Fixed([0.04, 0.72, 0.04, 0.1, 0.05, 0.05])
    got = recognizer(main, counter).probabilities(IMAGE, BOX)[0]
    # the maki share 0.9 split 0.04 : 0.72 : 0.04 -> 0.045, 0.81, 0.045; tempura as it was
    assert got.tolist() == pytest.approx([0.045, 0.81, 0.045, 0.1, 0.0, 0.0, 0.0], abs=1e-6)
    naming = recognizer(main, counter).name(IMAGE, BOX)
    assert naming.labels.tolist() == ["maki-2"]
    # the counter is fed its own crop size, not the classifier's
    assert set(counter.sides) == {(128, 128)} and set(main.sides) == {(96, 96)}


def test_an_uramaki_is_counted_among_uramaki_only():
    main = Fixed([0.0, 0.0, 0.0, 0.0, 0.1, 0.2, 0.7])
    # the counter's likeliest is a maki-1: no uramaki's count, so the uramaki share is split
    # among the uramaki as the counter splits what it gives them
    counter = Fixed([0.6, 0.0, 0.0, 0.1, 0.3, 0.0])
    got = recognizer(main, counter).probabilities(IMAGE, BOX)[0]
    assert got.tolist() == pytest.approx([0.0, 0.0, 0.0, 0.0, 0.25, 0.75, 0.0], abs=1e-6)


def test_a_region_named_anything_else_is_not_counted():
    main = Fixed([0.2, 0.2, 0.1, 0.5, 0.0, 0.0, 0.0])  # tempura, though half the share is maki
    counter = Fixed([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    got = recognizer(main, counter).probabilities(IMAGE, BOX)[0]
    assert got.tolist() == pytest.approx(main.probabilities.tolist(), abs=1e-6)
    assert counter.sides == []


def test_a_maki_the_game_holds_taken_for_a_face_outside_it_is_counted_too():
    # a game without uramaki: the classifier's top face (uramaki-4) is outside it, so the card
    # is named by its likeliest allowed face, a maki, whose count the counter decides
    main = Fixed([0.0, 0.2, 0.3, 0.0, 0.0, 0.5, 0.0])
    counter = Fixed([0.0, 0.9, 0.1, 0.0, 0.0, 0.0])
    naming = recognizer(main, counter).name(IMAGE, BOX, allowed={"maki-1", "maki-2", "maki-3", "tempura"})
    assert (naming.labels.tolist(), naming.seen_as.tolist()) == (["maki-2"], ["uramaki-4"])
    assert naming.label_scores.tolist() == pytest.approx([0.45])  # the maki share 0.5, 0.9 of it


def test_without_a_counter_the_classifier_names_alone():
    main = Fixed([0.0, 0.3, 0.6, 0.1, 0.0, 0.0, 0.0])
    assert recognizer(main, None).name(IMAGE, BOX).labels.tolist() == ["maki-3"]


@pytest.fixture(scope="module")
def bundled():
    from pathlib import Path

    return Recognizer.load(Path(__file__).resolve().parents[2] / "models")


def test_the_bundled_models_count_with_their_own_count_classifier(bundled):
    assert bundled.counter is not None and bundled.counter_classes == COUNT_FACES
    assert bundled.counter_crop == 128


@pytest.mark.parametrize("photo_set, index", [("field-dev-table", 13), ("field-dev-tableau", 31)])
def test_the_count_of_each_maki_and_uramaki_on_an_independent_photo_is_read(bundled, faces, photo_set, index):
    """Photos of the independent renderer's development sets (a crowded table of cards 60-120
    px tall, one tableau): every count card the detector boxes is named with its own count.
    The classifier alone read three maki-2 of the first as maki-3, the uramaki-3 of the
    second as uramaki-4."""
    from vision.fieldtest.render import render_photo
    from vision.fieldtest.sets import FIELD_SETS
    from vision.training.evaluate import match_cards

    spec = FIELD_SETS[photo_set]
    kind, size = spec.shots[index % len(spec.shots)]
    image, truth = render_photo(spec.seed * 1_000_003 + index, kind, size)
    cards = bundled.detect(image)
    pairs, visible = match_cards(cards, truth["cards"])
    counted = [(visible[j]["label"], cards.labels[i]) for i, j in pairs if visible[j]["label"] in COUNT_FACES]
    assert counted and all(read == truth_label for truth_label, read in counted), counted
