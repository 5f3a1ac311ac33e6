"""vision.boxes: the one place box geometry is computed; its single-box and matrix forms agree."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from vision import boxes

coordinate = st.floats(-50, 50, allow_nan=False, width=32)
box = st.tuples(coordinate, coordinate, coordinate, coordinate)


@given(st.lists(box, min_size=1, max_size=5), st.lists(box, min_size=1, max_size=5))
def test_matrix_forms_agree_with_the_single_box_forms(a, b):
    inter = boxes.intersection_matrix(a, b)
    iou = boxes.iou_matrix(a, b)
    iou_again, inside = boxes.overlaps(a, b)
    for i, box_a in enumerate(a):
        assert boxes.areas(a)[i] == boxes.area(box_a)
        for j, box_b in enumerate(b):
            assert np.isclose(inter[i, j], boxes.intersection(box_a, box_b))
            assert np.isclose(iou[i, j], boxes.iou(box_a, box_b))
            smaller = min(boxes.area(box_a), boxes.area(box_b))
            share = inter[i, j] / smaller if inter[i, j] > 0 else 0.0
            assert np.isclose(inside[i, j], share)
    assert np.array_equal(iou, iou_again)
    assert ((iou >= 0) & (iou <= 1 + 1e-9) & (iou <= inside + 1e-9)).all()


def test_a_card_and_the_strip_left_of_it_when_covered():
    # a card 100 x 156 px; covered, only its top 40 px show: the strip is 40/156 of the card
    card, strip = [0, 0, 100, 156], [0, 0, 100, 40]
    assert boxes.iou(card, strip) == 4000 / 15600
    assert boxes.containment_matrix([card], [strip])[0, 0] == 1.0
    assert boxes.coverage_matrix([card], [strip])[0, 0] == 4000 / 15600


def test_greedy_matching_takes_the_best_pair_first():
    # row 1 prefers column 0 more than row 0 does: row 0 is left column 1
    score = np.array([[0.6, 0.5], [0.8, 0.1]])
    assert boxes.greedy_matching(score, 0.3) == [(1, 0), (0, 1)]
    assert boxes.greedy_matching(score, 0.55) == [(1, 0)]
    assert boxes.greedy_matching(np.zeros((0, 3)), 0.3) == []
