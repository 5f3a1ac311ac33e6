"""Stacks and seats read from the generator's own truth boxes give back its tableaux.

This checks the reading logic (columns, stacks, seat split, turned seats) on realistic
layouts, apart from the models.
"""

import numpy as np
import pytest

from vision.detections import Detections
from vision.seats import split_seats
from vision.stacks import canonical, read_tableau
from vision.synth import compose_table


@pytest.mark.parametrize("seed, n_seats", [(s, 1 + s % 5) for s in range(100, 115)])
def test_truth_boxes_read_back_as_the_truth_tableaux(seed, n_seats, faces):
    _, truth = compose_table(seed, n_seats=n_seats, size=(960, 720), effects=False, clutter=False)
    cards = [c for c in truth["cards"] if not c["hidden"]]
    assert len(cards) == len(truth["cards"])
    detections = Detections(np.array([c["box"] for c in cards]), data={"label": np.array([c["label"] for c in cards])})
    seats = split_seats(detections, n_seats=n_seats)
    for seat in truth["seats"]:
        assert canonical(read_tableau(seats[seat["seat"]])) == canonical(seat["tableau"]), seat
