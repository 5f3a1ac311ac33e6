import numpy as np
import pytest

from vision.detections import Detections
from vision.seats import SeatAreaError, split_seats


def cards_at(points, label="eel", size=40):
    boxes = [[x - size / 2, y - size / 2, x + size / 2, y + size / 2] for x, y in points]
    return Detections(np.array(boxes, np.float32), data={"label": np.array([label] * len(points))})


def seat_of(parts):
    return {tuple(box): int(part.data["seat"][k]) for part in parts for k, box in enumerate(part.xyxy.tolist())}


@pytest.mark.parametrize("n, groups, turns", [
    # seat 0 at the bottom, then clockwise: left, top, right
    (2, [[(500, 800), (600, 800)], [(500, 200), (600, 200)]], [0, 180]),
    (4, [[(500, 850), (560, 850)], [(150, 500), (150, 560)], [(500, 150), (560, 150)],
         [(850, 500), (850, 560)]], [0, 90, 180, 270]),
])
def test_split_by_position_numbers_seats_clockwise_from_the_bottom(n, groups, turns):
    points = [p for g in groups for p in g]
    parts = split_seats(cards_at(points), n_seats=n)
    assert [len(p) for p in parts] == [len(g) for g in groups]
    for seat, (part, group) in enumerate(zip(parts, groups, strict=True)):
        assert sorted(part.centres.round().tolist()) == sorted([list(map(float, p)) for p in group])
        assert part.data["seat_angle"][0] == pytest.approx(turns[seat], abs=5)


def test_one_seat_keeps_every_card_upright():
    parts = split_seats(cards_at([(10, 10), (900, 900)]), n_seats=1)
    assert len(parts) == 1 and len(parts[0]) == 2 and parts[0].data["seat_angle"][0] == 0


def test_seat_areas_assign_by_centre_and_drop_cards_outside():
    dets = cards_at([(100, 700), (900, 100), (500, 500)])
    areas = [[0.0, 0.5, 0.4, 1.0], {"polygon": [[0.6, 0.0], [1.0, 0.0], [1.0, 0.3], [0.6, 0.3]], "angle": 180}]
    parts = split_seats(dets, seat_areas=areas, image_shape=(1000, 1000, 3))
    assert [p.centres.tolist() for p in parts] == [[[100.0, 700.0]], [[900.0, 100.0]]]
    assert parts[1].data["seat_angle"][0] == 180


@pytest.mark.parametrize("area", [[0.1, 0.2], "left", [[0, 0], [2, 2], [0, 2]]])
def test_bad_seat_areas_name_the_problem(area):
    with pytest.raises(SeatAreaError):
        split_seats(cards_at([(1, 1)]), seat_areas=[area], image_shape=(10, 10, 3))


def test_zero_seats_is_an_error():
    with pytest.raises(ValueError):
        split_seats(cards_at([(1, 1)]), n_seats=0)
