"""The classifier's crops as a phone sees them (``vision.synth.cropaug``), issue 12."""

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.recognizer import square_crop
from vision.synth import cropaug
from vision.synth.dataset import RECIPES, card_crop, generate


def _checkerboard(size: int = 96) -> np.ndarray:
    board = ((np.indices((size, size)).sum(0) % 2) * 255).astype(np.uint8)
    return cv2.merge([board] * 3)


def test_a_card_seen_small_loses_the_detail_it_had():
    # a one-pixel checkerboard (the finest print detail) seen 30 px tall is no more than its
    # average grey: far below the sampling limit, its squares cannot be told apart
    crop = _checkerboard()
    small = cropaug.seen_small(crop, (200, 300), 30)
    assert small.shape == crop.shape and small.dtype == np.uint8
    assert small.std() < 0.15 * crop.std()
    assert abs(float(small.mean()) - float(crop.mean())) < 10


def test_a_card_already_small_is_not_made_sharper_or_softer():
    crop = _checkerboard()
    assert cropaug.seen_small(crop, (20, 28), 30) is crop


def test_a_turned_card_fills_the_share_of_its_box_that_geometry_says():
    # a white 60 x 90 card on a black table turned 45 degrees: its upright box is
    # (60 + 90) / sqrt 2 = 106.07 px square, the card covers 5400 / 106.07^2 = 0.48 of it
    photo = np.zeros((400, 400, 3), np.uint8)
    photo[100:190, 100:160] = 255
    window, box = cropaug.turned_box(photo, [100, 100, 160, 190], 45)
    side = (60 + 90) / math.sqrt(2)
    assert box[2] - box[0] == pytest.approx(side, abs=0.5) and box[3] - box[1] == pytest.approx(side, abs=0.5)
    crop = square_crop(window, box, 96)
    assert (crop[..., 0] > 127).mean() == pytest.approx(5400 / side ** 2, abs=0.03)
    # not turned: the very card, all white
    window, box = cropaug.turned_box(photo, [100, 100, 160, 190], 0)
    assert (square_crop(window, box, 96) > 127).all()


def test_a_card_at_the_photo_edge_turns_without_failing():
    photo = np.full((120, 160, 3), 40, np.uint8)
    photo[0:50, 0:35] = 255  # a card in the corner
    window, box = cropaug.turned_box(photo, [0, 0, 35, 50], -30)
    crop = square_crop(window, box, 96)
    assert crop.shape == (96, 96, 3) and (crop[40:56, 40:56] > 200).all()  # its middle is still card


def test_glare_only_adds_light():
    rng = np.random.default_rng(3)
    crop = np.random.default_rng(0).uniform(0, 200, (96, 96, 3)).astype(np.float32)
    for _ in range(10):
        lit = cropaug.glare(rng, crop)
        assert (lit >= crop - 1e-3).all() and (lit - crop).max() > 50


def test_warm_light_reddens_a_grey_card_and_cold_light_blues_it():
    grey = np.full((8, 8, 3), 128, np.float32)
    casts = [cropaug.white_balance(np.random.default_rng(seed), grey)[0, 0] for seed in range(40)]
    blue_minus_red = [b - r for b, _, r in casts]
    assert min(blue_minus_red) < -20 and max(blue_minus_red) > 20  # both ways, strongly


def test_ordinary_recipes_crop_exactly_as_before(faces):
    # the committed models' recipes must keep writing the very crops they were trained on
    photo = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    box = [50.3, 60.0, 130.0, 180.7]
    for name in ("train", "train-crops", "train-tables-crops"):
        got = card_crop(np.random.default_rng(0), photo, box, RECIPES[name])
        assert np.array_equal(got, square_crop(photo, box))


def test_camera_recipe_crops_differ_from_the_plain_crop_and_repeat_with_the_seed():
    photo = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    box = [50.0, 60.0, 130.0, 180.0]
    recipe = replace(RECIPES["train-camera-crops"], crop_camera=1.0, crop_turns=1.0)
    a = card_crop(np.random.default_rng(5), photo, box, recipe)
    b = card_crop(np.random.default_rng(5), photo, box, recipe)
    assert a.shape == (96, 96, 3) and np.array_equal(a, b)
    assert np.abs(a.astype(int) - square_crop(photo, box)).mean() > 5


def test_camera_crops_recipe_writes_a_crop_for_each_visible_card(tmp_path, faces):
    import json

    recipe = replace(RECIPES["train-camera-crops"], train=2, val=0)
    generate(recipe, tmp_path, workers=1, progress=False)
    truths = sorted((tmp_path / "truth" / "train-train-camera-crops").glob("*.json"))
    visible = sum(1 for t in truths for c in json.loads(t.read_text())["cards"] if not c["hidden"])
    crops = [p for p in (tmp_path / "cls" / "train").rglob("c*.jpg") if p.parent.name != "not-a-card"]
    assert len(truths) == 2 and len(crops) == visible > 0


def test_a_cast_print_turns_a_red_ink_by_at_most_25_degrees_of_hue():
    red = np.zeros((32, 32, 3), np.float32)
    red[..., 2] = 200  # BGR: a pure red ink, hue 0
    turns = []
    for seed in range(30):
        cast = cropaug.print_cast(np.random.default_rng(seed), red)
        hue = cv2.cvtColor(np.clip(cast, 0, 255).astype(np.float32) / 255, cv2.COLOR_BGR2HSV)[..., 0].mean()
        turns.append(min(hue, 360 - hue))  # degrees away from red, either way
    assert max(turns) <= 25.5
    assert np.median(turns) > 3  # a cast most often shows


def test_a_glare_on_the_icon_burns_out_a_patch_and_never_darkens():
    grey = np.full((96, 96, 3), 128, np.float32)
    for seed in range(10):
        lit = cropaug.icon_glare(np.random.default_rng(seed), grey)
        assert (lit >= grey).all()
        burnt = (np.clip(lit, 0, 255) >= 250).all(2)
        # a patch burnt to white, not the whole card: an ellipse at most 0.22 of the side
        # across its radii, bright out to 1.41 radii (at most 0.30 of the crop)
        assert 0 < burnt.mean() < 0.31


def test_defocus_spreads_a_sharp_edge_over_its_radius_and_keeps_the_light():
    edge = np.zeros((64, 64, 3), np.float32)
    edge[:, 32:] = 255
    blurred = cropaug.defocus(np.random.default_rng(0), edge)
    row = blurred[32, :, 0]
    assert 0 < row[30] < row[31] < row[32] < row[33] < 255  # 2 px and more either side of the edge
    assert abs(float(blurred.mean()) - float(edge.mean())) < 1


def test_a_hard_crop_differs_from_the_crop_and_repeats_with_the_seed():
    crop = _checkerboard()
    a = cropaug.hard_crop(np.random.default_rng(5), crop)
    b = cropaug.hard_crop(np.random.default_rng(5), crop)
    assert a.dtype == np.uint8 and a.shape == crop.shape
    assert np.array_equal(a, b)
    assert np.abs(a.astype(int) - crop).mean() > 5


def test_the_light_recipe_makes_its_share_of_crops_hard_and_the_rest_plain():
    photo = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    box = [50.0, 60.0, 130.0, 180.0]
    plain = replace(RECIPES["train-light-crops"], crop_camera=0.0, crop_turns=0.0, crop_hard=0.0)
    assert np.array_equal(card_crop(np.random.default_rng(5), photo, box, plain), square_crop(photo, box))
    hard = replace(plain, crop_hard=1.0)
    a = card_crop(np.random.default_rng(5), photo, box, hard)
    assert np.array_equal(a, card_crop(np.random.default_rng(5), photo, box, hard))
    assert np.abs(a.astype(int) - square_crop(photo, box)).mean() > 5
    assert RECIPES["train-camera-crops"].crop_hard == 0  # the camera stage's crops are unchanged


def ink_and_paper() -> np.ndarray:
    """A float crop of ink 40 and paper 200 in alternate columns (their contrast: 160)."""
    ink = np.zeros((96, 96, 3), np.float32)
    ink[:, ::2] = 40
    ink[:, 1::2] = 200
    return ink


def contrast_of(crop: np.ndarray) -> np.ndarray:
    """Ink against paper, per pixel pair of an ``ink_and_paper`` crop."""
    return np.abs(crop[:, ::2, 0] - crop[:, 1::2, 0])


def test_a_sheen_fades_the_print_toward_the_lamp_in_a_band_and_leaves_the_rest():
    # ink and paper side by side: under the sheen the two come closer (the lamp's
    # reflection replaces part of both), most where the band lies; away from it, untouched
    ink = ink_and_paper()
    for seed in range(10):
        lit = cropaug.sheen(np.random.default_rng(seed), ink)
        contrast = contrast_of(lit)
        assert contrast.min() < 0.75 * 160  # where the band is, 0.3 of the print or more is gone
        assert contrast.max() > 0.95 * 160  # a band, not the whole card washed
        assert (lit[:, ::2] >= ink[:, ::2] - 1e-3).all()  # dark ink never darker than it was


def test_the_sheen_recipe_puts_its_share_of_crops_under_a_sheen_and_repeats_with_the_seed():
    photo = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    box = [50.0, 60.0, 130.0, 180.0]
    plain = replace(RECIPES["train-sheen-crops"], crop_camera=0.0, crop_turns=0.0, crop_hard=0.0, crop_sheen=0.0)
    assert np.array_equal(card_crop(np.random.default_rng(5), photo, box, plain), square_crop(photo, box))
    shone = replace(plain, crop_sheen=1.0)
    a = card_crop(np.random.default_rng(5), photo, box, shone)
    assert np.array_equal(a, card_crop(np.random.default_rng(5), photo, box, shone))
    assert np.abs(a.astype(int) - square_crop(photo, box)).mean() > 3
    # the stages before keep their crops: only the sheen stage, the wide stage after it and the
    # mark readers' crops (the count classifier's, the fruit reader's) draw a sheen
    assert {name for name, r in RECIPES.items() if r.crop_sheen} == {"train-sheen-crops", "train-wide-crops",
                                                                  "train-count-crops", "train-fruit-crops",
                                                                  "train-fruit-turned-crops"}
