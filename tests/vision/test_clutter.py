"""What lies on the table beside the cards (a score pad, a phone, a plain-coloured object) is
read as no card, while every card stays read.

The photos are the independent renderer's (``vision.fieldtest``: its own clutter, which no
training recipe draws), development tableaux in no test set; the oracle is where the renderer
laid its cards.
"""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from vision.boxes import overlaps
from vision.fieldtest.render import render_photo
from vision.recognizer import CROP_ONLY, NOT_A_CARD, Recognizer
from vision.training.evaluate import match_cards

ROOT = Path(__file__).resolve().parents[2]
#: ``field-dev-tableau``'s seed (``vision.fieldtest.sets``)
DEV_TABLEAU = 301


@pytest.fixture(scope="module")
def bundled():
    return Recognizer.load(ROOT / "models")


def test_an_object_beside_the_cards_is_read_as_no_card(bundled, faces):
    # photo 53: a score pad at the photo's edge, named a menu while the classifier gave
    # not-a-card 0.36
    image, truth = render_photo(DEV_TABLEAU * 1_000_003 + 53, "tableau", (1280, 960))
    cards = [c for c in truth["cards"] if not c["hidden"]]
    read = bundled.detect(image)
    # nothing read where no card lies
    _, within = overlaps(read.xyxy, np.array([c["box"] for c in cards], float))
    assert (within.max(1) > 0.3).all(), read.xyxy[within.max(1) <= 0.3].tolist()
    # and every card that was read before the rule still is
    before = dataclasses.replace(bundled, not_a_card_doubt=0.0).detect(image)
    pairs_before, _ = match_cards(before, truth["cards"])
    pairs_now, visible = match_cards(read, truth["cards"])
    right = {j for i, j in pairs_now if read.labels[i] == visible[j]["label"]}
    assert right >= {j for i, j in pairs_before if before.labels[i] == visible[j]["label"]}


def scripted(probabilities):
    """A recogniser whose detector finds one region per row of ``probabilities`` and whose
    classifier names them so (classes: not-a-card, tempura, eel); the regions lie apart."""
    boxes = np.array([[10 + 100 * i, 10, 60 + 100 * i, 80] for i in range(len(probabilities))], np.float32)

    def detector(image, conf=0.25):
        return boxes, np.full(len(boxes), 0.9, np.float32)

    def classifier(crops):
        return np.array(probabilities, np.float32)[: len(crops)]

    return Recognizer(detector, classifier, (NOT_A_CARD, "tempura", "eel"), views=CROP_ONLY)


def test_a_region_the_classifier_doubts_is_a_card_is_none():
    # a card named surely; an object named a tempura while not-a-card keeps a fair chance
    recognizer = scripted([[0.01, 0.99, 0.0], [0.3, 0.7, 0.0]])
    found = recognizer.detect(np.zeros((100, 300, 3), np.uint8))
    assert found.labels == ["tempura"] and found.xyxy[:, 0].tolist() == [10]
    # a live frame's tracker weighs a hand over a card itself: there, only where not-a-card leads
    assert recognizer.for_live().detect(np.zeros((100, 300, 3), np.uint8)).labels == ["tempura", "tempura"]


def test_a_region_that_is_no_card_stays_none_when_the_deck_is_known():
    # not-a-card likeliest, the deck's one face second: the deck limits a card's name, it does
    # not make a card of what is none
    # (where not-a-card leads: without the doubt above, as a live frame reads it)
    recognizer = dataclasses.replace(scripted([[0.55, 0.0, 0.45], [0.0, 0.1, 0.9]]), not_a_card_doubt=0.0)
    found = recognizer.detect(np.zeros((100, 300, 3), np.uint8), allowed={"eel"})
    assert found.labels == ["eel"] and found.xyxy[:, 0].tolist() == [110]


def test_a_strip_of_a_column_stays_a_card_however_the_classifier_doubts_it():
    # a card, the strip of the card under it (a thin strip the classifier doubts is a card at
    # all) and a box of the same size lying apart from every card
    boxes = np.array([[100, 60, 160, 150], [100, 36, 160, 60], [300, 36, 360, 60]], np.float32)

    def detector(image, conf=0.25):
        return boxes, np.full(len(boxes), 0.9, np.float32)

    def classifier(crops):
        return np.array([[0.0, 1.0, 0.0], [0.35, 0.65, 0.0], [0.35, 0.65, 0.0]], np.float32)[: len(crops)]

    recognizer = Recognizer(detector, classifier, (NOT_A_CARD, "tempura", "eel"), views=CROP_ONLY)
    found = recognizer.detect(np.zeros((200, 400, 3), np.uint8))
    assert found.labels == ["tempura", "tempura"] and found.xyxy[:, 1].tolist() == [60, 36]
