"""The independent test renderer (``vision.fieldtest``): kept apart from training, exact truth.

Its photos are a test the models are never tuned to, so nothing that trains may draw from
it, and it draws nothing from the training renderer.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vision.detections import Detections
from vision.fieldtest.render import look_at, render_photo
from vision.fieldtest.sets import FAMILIES, FIELD_SETS

REPO = Path(__file__).resolve().parents[2]


def test_training_never_imports_the_independent_renderer():
    # each module's own imports are read by tests/test_layers.py; here, nothing reaches it
    # through what they import either
    code = ("import sys, vision.synth.dataset, vision.synth.compose, vision.synth.film, vision.training.yolo; "
            "print(any(m.startswith('vision.fieldtest') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_no_training_recipe_names_a_field_set():
    from vision.synth.dataset import RECIPES

    field = set(FIELD_SETS) | set(FAMILIES)
    assert not field & set(RECIPES)
    assert not any(name.startswith("field") for name in RECIPES)
    for path in (REPO / "vision" / "training" / "train.py", REPO / "vision" / "synth" / "dataset.py"):
        text = path.read_text()
        assert not any(name in text for name in field), path


def test_a_photo_is_the_same_for_the_same_seed_and_its_truth_holds_every_card_of_the_tableaux(faces):
    image, truth = render_photo(11, "table", (640, 480))
    again, truth_again = render_photo(11, "table", (640, 480))
    assert np.array_equal(image, again) and truth == truth_again
    assert image.shape == (480, 640, 3)
    assert 2 <= len(truth["seats"]) <= 5
    for seat in truth["seats"]:
        laid = Counter(c["label"] for c in truth["cards"] if c["seat"] == seat["seat"])
        written = Counter(card for entry in seat["tableau"] for card in (entry if isinstance(entry, list) else [entry]))
        assert laid == written
    for card in truth["cards"]:
        if not card["hidden"]:
            x1, y1, x2, y2 = card["box"]
            assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480


def test_seat_zero_is_the_tableau_at_the_bottom_of_the_photo(faces):
    for seed in range(3):
        _, truth = render_photo(seed, "table", (640, 480))
        boxes = np.array([c["box"] for c in truth["cards"] if not c["hidden"]], float)
        centre_y = (boxes[:, 1].min() + boxes[:, 3].max()) / 2
        mine = np.array([c["box"] for c in truth["cards"] if not c["hidden"] and c["seat"] == 0], float)
        assert ((mine[:, 1] + mine[:, 3]) / 2).mean() > centre_y


def test_the_camera_is_a_real_perspective():
    # looking straight down from 100 cm with a focal length of 1000 px, 10 cm is 100 px
    flat = look_at((0, 0), 0.0, 0.0, 100.0, 1000.0, (1000, 800), 0.0)
    p = flat.flat([[0, 0], [10, 0]])
    assert p[0].tolist() == pytest.approx([500, 400]) and np.linalg.norm(p[1] - p[0]) == pytest.approx(100)
    # tilted by 40 degrees, the far side of the table looks smaller than the near side
    tilted = look_at((0, 0), 0.0, math.radians(40), 100.0, 1000.0, (1000, 800), 0.0)
    near, far = tilted.flat([[-5, -20], [5, -20]]), tilted.flat([[-5, 20], [5, 20]])
    assert np.linalg.norm(far[1] - far[0]) < 0.8 * np.linalg.norm(near[1] - near[0])
    assert far[:, 1].mean() < near[:, 1].mean()  # and higher in the picture


class TruthReader:
    """A recogniser that reports the truth's own visible boxes, renaming ``wrong`` of them."""

    def __init__(self, truth, wrong=0):
        self.truth, self.wrong = truth, wrong

    def detect(self, image):
        visible = [c for c in self.truth["cards"] if not c["hidden"]]
        labels = [c["label"] for c in visible]
        for k in range(self.wrong):
            labels[k] = "eel" if labels[k] != "eel" else "tofu"
        return Detections(np.array([c["box"] for c in visible], float).reshape(-1, 4),
                          data={"label": np.array(labels)})


def test_eval_scores_a_close_up_by_the_metrics_code(tmp_path, faces):
    import cv2

    from vision.training.evaluate import evaluate_photos

    image, truth = render_photo(3, "closeup", (640, 480))
    truth["image"] = "p.jpg"
    cv2.imwrite(str(tmp_path / "p.jpg"), image)
    n = sum(not c["hidden"] for c in truth["cards"])
    right = evaluate_photos(TruthReader(truth), tmp_path, [truth], "t")
    assert right["card_f1"] == right["card_f1_seats"] == 1.0 and right["closeups_right"] == 1.0
    assert set(right["by_seats"]) == {"close-up"}
    wrong = evaluate_photos(TruthReader(truth, wrong=1), tmp_path, [truth], "t")
    # one of n cards misnamed: precision = recall = (n - 1) / n
    assert wrong["card_f1"] == pytest.approx((n - 1) / n, abs=1e-4)
    assert wrong["closeups_right"] == 0.0 and wrong["exact_photos"] == 0.0


def test_eval_counts_apart_the_seats_whose_every_card_shows(tmp_path):
    import cv2

    from vision.training.evaluate import evaluate_photos

    # two seats, a whole card apart; the near player's tempura lies wholly under her eel: no
    # photo shows it, so her tableau cannot be read exactly by anyone, the far one's can
    card = (60, 94)
    def at(x, y):
        return [x, y, x + card[0], y + card[1]]
    cards = [{"label": "eel", "box": at(200, 340), "seat": 0, "hidden": False},
             {"label": "tempura", "box": at(200, 340), "seat": 0, "hidden": True},
             {"label": "tofu", "box": at(300, 340), "seat": 0, "hidden": False},
             {"label": "dumpling", "box": at(200, 40), "seat": 1, "hidden": False},
             {"label": "sashimi", "box": at(300, 40), "seat": 1, "hidden": False}]
    truth = {"image": "p.jpg", "size": [640, 480], "cards": cards,
             "seats": [{"seat": 0, "tableau": ["eel", "tempura", "tofu"]},
                       {"seat": 1, "tableau": ["dumpling", "sashimi"]}]}
    cv2.imwrite(str(tmp_path / "p.jpg"), np.full((480, 640, 3), 128, np.uint8))
    report = evaluate_photos(TruthReader(truth), tmp_path, [truth], "t")
    assert report["card_f1"] == 1.0  # every card that shows is read
    assert report["exact_tableau"] == 0.5
    assert report["seats_all_shown"] == 1 and report["exact_tableau_all_shown"] == 1.0


def test_eval_knows_the_field_sets_and_refuses_an_unknown_one():
    from vision.training.evaluate import expand_sets

    assert expand_sets(["test-print", "field"]) == ["test-print", *FAMILIES["field"]]
    with pytest.raises(ValueError, match="unknown test set 'field-nowhere'"):
        expand_sets(["field-nowhere"])


def test_unsure_rates_count_marked_wrong_and_right_cards_apart():
    from vision.training.evaluate import unsure_rates

    readings = [{"right": False, "confidence": 0.4}, {"right": False, "confidence": 0.9},
                {"right": True, "confidence": 0.45}, {"right": True, "confidence": 0.95},
                {"right": True, "confidence": 0.99}, {"right": True, "confidence": 0.2}]
    rates = unsure_rates(readings, lambda r: r["confidence"] < 0.5)
    assert (rates["wrong_marked"], rates["wrong"], rates["right_marked"], rates["right"]) == (1, 2, 2, 4)
    assert rates["wrong_marked_rate"] == 0.5 and rates["right_marked_rate"] == 0.5


def test_a_confident_looking_guess_between_two_names_is_marked_unsure():
    """Half the wrong cards of the independent photos had a high confidence but two close
    names (maki-2 or maki-3, salmon or squid nigiri): the mark now flags those."""
    from vision.describe import cards_json

    detections = Detections(np.array([[0, 0, 10, 15], [20, 0, 30, 15], [40, 0, 50, 15]], float),
                            confidence=np.array([0.92, 0.92, 0.75]),
                            data={"label": np.array(["maki-3", "eel", "tofu"]),
                                  "label_margin": np.array([0.3, 0.97, 0.95])})
    assert [c["unsure"] for c in cards_json(detections)] == [True, False, False]
