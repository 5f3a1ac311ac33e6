"""A card's width and tilt from its box, and the whole card behind a box cut short, against
cards drawn with OpenCV's rotated rectangles (``cv2.boxPoints``, ``cv2.boundingRect``)."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.cardsize import card_side, card_width_and_tilt, whole_card_boxes
from vision.recognizer import square_crop
from vision.stacks import CARD_ASPECT


def drawn_box(centre: tuple[float, float], width: float, angle: float) -> tuple[float, float, float, float]:
    """The axis-aligned box of a card ``width`` wide turned by ``angle`` degrees, as OpenCV
    traces the corners of the rotated rectangle."""
    corners = cv2.boxPoints((centre, (width, CARD_ASPECT * width), angle))
    x1, y1 = corners.min(0)
    x2, y2 = corners.max(0)
    return float(x1), float(y1), float(x2), float(y2)


@settings(max_examples=60, deadline=None)
@given(st.floats(40, 400), st.floats(0, 45), st.booleans())
def test_a_whole_cards_box_gives_its_width_and_tilt_back(width, angle, sideways):
    box = drawn_box((500.0, 500.0), width, angle + (90 if sideways else 0))
    found_width, found_tilt = card_width_and_tilt(box)
    assert abs(found_width - width) < 0.01 * width
    assert abs(found_tilt - angle) < 0.5


def test_a_strip_of_a_column_is_no_whole_card():
    assert np.isnan(card_width_and_tilt((0, 0, 120, 40))[0])


def table_of_cards(cut: float) -> tuple[np.ndarray, np.ndarray, tuple[float, ...]]:
    """A photo of six cards 100 px wide, each slightly turned and drawn in its own colour,
    and their boxes with the last card's box cut ``cut`` of its height short at the top."""
    photo = np.full((900, 1200, 3), 60, np.uint8)
    boxes = []
    for i, (cx, cy, angle) in enumerate([(150, 200, 3), (400, 200, -5), (650, 200, 0), (150, 600, 6),
                                         (400, 600, -2), (650, 600, 4)]):
        corners = cv2.boxPoints(((cx, cy), (100, CARD_ASPECT * 100), angle)).astype(np.int32)
        colour = tuple(int(v) for v in (40 * i % 255, 200 - 30 * i, 90 + 25 * i))
        cv2.fillPoly(photo, [corners], colour)
        cv2.circle(photo, (cx, cy - 40), 15, (255, 255, 255), -1)  # a mark near the card's top
        boxes.append(drawn_box((cx, cy), 100, angle))
    whole = boxes[-1]
    x1, y1, x2, y2 = whole
    boxes[-1] = (x1, y1 + cut * (y2 - y1), x2, y2)
    return photo, np.array(boxes), whole


def test_a_box_cut_short_at_its_top_is_learnt_as_the_whole_card():
    photo, boxes, whole = table_of_cards(cut=0.2)
    held = whole_card_boxes(boxes, photo.shape)
    assert all(len(card) == 1 and np.allclose(card[0], box) for card, box in zip(held[:-1], boxes[:-1], strict=True))
    assert len(held[-1]) == 2
    truth = square_crop(photo, whole, 64).astype(np.float32)
    cut = square_crop(photo, boxes[-1], 64).astype(np.float32)
    errors = [np.abs(square_crop(photo, box, 64).astype(np.float32) - truth).mean() for box in held[-1]]
    assert min(errors) < 0.25 * np.abs(cut - truth).mean()  # one of the two is the whole card


def test_a_card_under_another_keeps_the_part_that_shows():
    photo, boxes, _ = table_of_cards(cut=0.0)
    x1, y1, x2, y2 = boxes[0]
    covered = np.array([x1, y1, x2, y1 + 0.7 * (y2 - y1)])
    over = np.array([x1 + 5, y1 + 0.65 * (y2 - y1), x2 + 5, y2 + 0.65 * (y2 - y1)])  # laid over its lower part
    boxes = np.vstack([covered, over, boxes[1:]])
    held = whole_card_boxes(boxes, photo.shape)
    assert len(held[0]) == 1 and np.allclose(held[0][0], covered)


def test_a_lone_card_is_left_as_boxed():
    held = whole_card_boxes(np.array([[0, 0, 100, 120.0]]), (900, 1200, 3))
    assert held == [[(0.0, 0.0, 100.0, 120.0)]]


def test_of_the_two_whole_cards_the_one_that_goes_on_over_the_card_is_kept():
    photo, boxes, whole = table_of_cards(cut=0.2)
    kept = card_side(photo, boxes, boxes[-1], whole_card_boxes(boxes, photo.shape)[-1])
    assert len(kept) == 1 and np.abs(np.array(kept[0]) - whole).max() < 2.0
    photo, boxes, whole = table_of_cards(cut=0.0)
    x1, y1, x2, y2 = whole
    boxes[-1] = (x1, y1, x2, y2 - 0.2 * (y2 - y1))  # cut at its bottom instead
    kept = card_side(photo, boxes, boxes[-1], whole_card_boxes(boxes, photo.shape)[-1])
    assert len(kept) == 1 and np.abs(np.array(kept[0]) - whole).max() < 2.0
