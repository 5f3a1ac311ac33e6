"""``python -m vision.training.seatcheck``: why seats are read wrong from a set's own boxes."""

import copy
import json

import pytest

from vision.training.seatcheck import main, seat_failures


def card(label, box, seat, hidden=False):
    return {"label": label, "box": box, "seat": seat, "hidden": hidden}


# two players across a table, each with two cards side by side, read from their own boxes
TRUTH = {
    "cards": [card("eel", [100, 700, 160, 794], 0), card("tofu", [180, 700, 240, 794], 0),
              card("tempura", [100, 100, 160, 194], 1), card("sashimi", [180, 100, 240, 194], 1)],
    "seats": [{"seat": 0, "tableau": ["eel", "tofu"], "angle": 0},
              {"seat": 1, "tableau": ["tempura", "sashimi"], "angle": 180}],
}


def test_a_table_read_right_has_no_failures():
    assert seat_failures(TRUTH) == []


def test_a_card_of_another_seat_is_a_grouping_failure():
    truth = copy.deepcopy(TRUTH)
    # the truth says the top player's sashimi is the bottom player's, yet it lies at the top
    truth["cards"][3]["seat"] = 0
    truth["seats"][0]["tableau"].append("sashimi")
    truth["seats"][1]["tableau"].remove("sashimi")
    assert [(s, cause) for s, cause, _ in seat_failures(truth)] == [(0, "group"), (1, "group")]


@pytest.mark.parametrize("wasabi, cause", [
    # the truth stacks the tofu on a wasabi that lies beside it in the photo: a misreading
    (card("wasabi", [260, 700, 320, 794], 0), "read"),
    # ... or on a wasabi hidden under it: no reading of the boxes can find it
    (card("wasabi", None, 0, hidden=True), "hidden"),
])
def test_a_stack_the_boxes_do_not_show_is_a_reading_failure_or_a_hidden_card(wasabi, cause):
    truth = copy.deepcopy(TRUTH)
    truth["seats"][0]["tableau"] = ["eel", ["wasabi", "tofu"]]
    truth["cards"].append(wasabi)
    assert [(s, c) for s, c, _ in seat_failures(truth)] == [(0, cause)]


def test_the_command_prints_each_failing_photo_and_the_totals(tmp_path, capsys):
    (tmp_path / "truth" / "val").mkdir(parents=True)
    truth = copy.deepcopy(TRUTH)
    truth["seats"][1]["tableau"] = ["tempura", "tempura"]
    (tmp_path / "truth" / "val" / "p000000.json").write_text(json.dumps(TRUTH))
    (tmp_path / "truth" / "val" / "p000001.json").write_text(json.dumps(truth))
    main([str(tmp_path)])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{tmp_path.name} 1: 2 seats: seat 1 read")
    assert out[1] == f"{tmp_path.name}: 3 of 4 seats exact (0.750); wrong: group 0, turn 0, hidden 0, read 1"
