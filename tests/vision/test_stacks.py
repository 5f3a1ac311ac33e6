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
