"""The reading of columns and stacks from hand-made boxes (the player's frame)."""

import numpy as np
import pytest

from vision.detections import Detections
from vision.stacks import canonical, entries_of_column, read_tableau, rotate_boxes

W, H, STRIP = 100, 156, 36  # card width, height, visible strip of a covered card


def column(x, labels, y=0):
    """Boxes of a column at x: every card but the last shows only its strip."""
    boxes = []
    for k, _ in enumerate(labels):
        top = y + k * STRIP
        bottom = top + (STRIP if k < len(labels) - 1 else H)
        boxes.append([x, top, x + W, bottom])
    return boxes, list(labels)


def detections(*columns_):
    boxes, labels = [], []
    for b, lab in columns_:
        boxes += b
        labels += lab
    return Detections(np.array(boxes, np.float32), data={"label": np.array(labels)})


@pytest.mark.parametrize("cols, expected", [
    ([column(0, ["wasabi", "squid-nigiri"])], [["wasabi", "squid-nigiri"]]),
    ([column(0, ["tempura", "tempura", "special-order"])], ["tempura", ["tempura", "special-order"]]),
    ([column(0, ["wasabi", "wasabi", "egg-nigiri"])], ["wasabi", ["wasabi", "egg-nigiri"]]),
    ([column(0, ["maki-2", "maki-2", "maki-3"]), column(120, ["eel"])], ["maki-2", "maki-2", "maki-3", "eel"]),
    # a nigiri beside a wasabi (not on it) is no stack
    ([column(0, ["wasabi"]), column(120, ["salmon-nigiri"])], ["wasabi", "salmon-nigiri"]),
    # a loose second row under a first row: whole cards are never "covered"
    ([column(0, ["tofu"]), column(0, ["tea"], y=H + 10)], ["tofu", "tea"]),
    ([column(0, ["card-back", "card-back"]), column(110, ["pudding", "special-order"])],
     ["card-back", "card-back", ["pudding", "special-order"]]),
])
def test_columns_read_as_game_record_entries(cols, expected):
    assert canonical(read_tableau(detections(*cols))) == canonical(expected)


@pytest.mark.parametrize("turn", [90, 180, 270])
def test_a_turned_seat_is_read_in_its_own_frame(turn):
    upright = detections(column(0, ["wasabi", "egg-nigiri"]), column(120, ["tea", "tea"]))
    centre = np.array([300, 300])
    a = np.radians(turn)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    turned = []
    for x1, y1, x2, y2 in upright.xyxy:
        corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) @ rot.T + centre
        turned.append([*corners.min(0), *corners.max(0)])
    seat = Detections(np.array(turned), data={"label": upright.data["label"]})
    expected = [["wasabi", "egg-nigiri"], "tea", "tea"]
    assert canonical(read_tableau(seat, angle=turn)) == canonical(expected)
    if turn == 180:  # read upright, the same boxes mean something else
        assert canonical(read_tableau(seat, angle=0)) != canonical(expected)


def test_rotate_boxes_keeps_sizes_of_right_angle_turns():
    box = np.array([[10, 20, 110, 56]])
    turned = rotate_boxes(box, 90)
    assert (turned[0, 2:] - turned[0, :2]).round(3).tolist() == [36.0, 100.0]


def test_special_order_alone_and_on_special_order_are_single_cards():
    assert entries_of_column(["special-order", "special-order"]) == ["special-order", "special-order"]
    assert entries_of_column(["special-order"]) == ["special-order"]


@pytest.mark.parametrize("squash", [1.0, 0.8, 0.6])
@pytest.mark.parametrize("turn", [90, 270])
def test_a_seat_at_the_side_of_a_tilted_photo_is_read_in_its_own_frame(turn, squash):
    # a phone tilted from straight down squashes the table's depth (the photo's height): a
    # seat at the left or right has its columns running across the photo, unsquashed, and
    # its cards' widths squashed; a card covering a strip still lies one card along
    upright = detections(column(0, ["wasabi", "egg-nigiri"]), column(120, ["tempura", "tempura", "special-order"]),
                         column(240, ["maki-2", "maki-3"]))
    a = np.radians(turn)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    turned = []
    for x1, y1, x2, y2 in upright.xyxy:
        corners = (np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) @ rot.T) * [1, squash] + 500
        turned.append([*corners.min(0), *corners.max(0)])
    seat = Detections(np.array(turned), data={"label": upright.data["label"]})
    expected = [["wasabi", "egg-nigiri"], "tempura", ["tempura", "special-order"], "maki-2", "maki-3"]
    assert canonical(read_tableau(seat, angle=turn)) == canonical(expected)


def test_a_nigiri_on_its_wasabi_is_read_on_it_in_seats_turned_off_a_right_angle(faces):
    """An independent render (``vision.fieldtest``, the development set ``field-dev-table``,
    photo 24: four players round a table photographed at a tilt, three of them with an egg
    nigiri on a wasabi). Read from the truth's own boxes, each seat holds its stacks: in a
    seat turned 70 degrees from the photo's axes the nigiri's box, turned back into the seat's
    frame, is taller than a card, so its centre lies further below the wasabi's strip than
    one card's length, though its top meets the strip."""
    from vision.fieldtest.render import render_photo
    from vision.fieldtest.sets import FIELD_SETS
    from vision.seats import split_seats

    spec = FIELD_SETS["field-dev-table"]
    kind, size = spec.shots[24 % len(spec.shots)]
    _, truth = render_photo(spec.seed * 1_000_003 + 24, kind, size)
    visible = [c for c in truth["cards"] if not c["hidden"]]
    cards = Detections(np.array([c["box"] for c in visible], np.float32),
                       data={"label": np.array([c["label"] for c in visible])})
    read = [canonical(read_tableau(seat)) for seat in split_seats(cards, n_seats=len(truth["seats"]))]
    assert read == [canonical(seat["tableau"]) for seat in truth["seats"]]
    assert sum(["wasabi", "egg-nigiri"] in seat for seat in read) == 3
