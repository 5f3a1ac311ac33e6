import json
from dataclasses import fields, replace

import numpy as np
import pytest

from vision.recognizer import NOT_A_CARD
from vision.stacks import canonical
from vision.synth import SceneConditions, compose_table
from vision.synth.dataset import (
    RECIPES,
    ConditionShares,
    generate,
    negative_boxes,
    yolo_label_lines,
)

SMALL = (480, 360)


def _on_cards(truth: dict) -> np.ndarray:
    """A mask of a ``SMALL`` photo's pixels that lie within a visible card's box."""
    on_cards = np.zeros(SMALL[::-1], bool)
    for card in truth["cards"]:
        if not card["hidden"]:
            x1, y1, x2, y2 = card["box"]
            on_cards[y1:y2, x1:x2] = True
    return on_cards


def test_same_seed_same_photo_and_truth(faces):
    a_img, a_truth = compose_table(5, size=SMALL)
    b_img, b_truth = compose_table(5, size=SMALL)
    assert np.array_equal(a_img, b_img) and a_truth == b_truth
    c_img, _ = compose_table(6, size=SMALL)
    assert not np.array_equal(a_img, c_img)


def test_asked_tableaux_are_laid_out_and_labelled(faces):
    tableaux = [[["wasabi", "squid-nigiri"], "tempura", "tempura", ["eel", "special-order"]],
                ["card-back", "pudding"]]
    image, truth = compose_table(3, tableaux, layout="columns", size=(960, 720))
    assert image.shape == (720, 960, 3)
    assert [canonical(s["tableau"]) for s in truth["seats"]] == [canonical(t) for t in tableaux]
    labels = sorted(c["label"] for c in truth["cards"])
    assert labels == sorted(["wasabi", "squid-nigiri", "tempura", "tempura", "eel", "special-order",
                             "card-back", "pudding"])
    by_label = {c["label"]: c for c in truth["cards"]}
    wasabi, nigiri = by_label["wasabi"], by_label["squid-nigiri"]
    assert wasabi["covered"] and truth["cards"][wasabi["covered_by"]]["label"] == "squid-nigiri"
    assert not nigiri["covered"]


def test_visible_boxes_are_strips_for_covered_cards_and_inside_the_photo(faces):
    _, truth = compose_table(11, [["maki-2", "maki-2", "maki-2"]], layout="columns", size=(960, 720),
                             effects=False, clutter=False, fill=0.8)
    for card in truth["cards"]:
        x1, y1, x2, y2 = card["box"]
        assert 0 <= x1 < x2 <= 960 and 0 <= y1 < y2 <= 720
        ratio = (y2 - y1) / (x2 - x1)
        assert ratio < 0.6 if card["covered"] else ratio > 1.2
    assert sum(c["covered"] for c in truth["cards"]) == 2


def test_unknown_slug_and_layout_are_refused():
    with pytest.raises(ValueError, match="unknown card slug"):
        compose_table(1, [["sushi-pizza"]])
    with pytest.raises(ValueError, match="unknown layout"):
        compose_table(1, layout="spiral")


def test_print_faces_are_used_on_request(faces):
    digital, _ = compose_table(2, [["tempura"]], faces="digital", effects=False, clutter=False, size=SMALL)
    printed, truth = compose_table(2, [["tempura"]], faces="print", effects=False, clutter=False, size=SMALL)
    assert truth["faces"].startswith("print")
    assert not np.array_equal(digital, printed)


def test_tiny_dataset_is_written_in_yolo_format_with_truth(tmp_path, faces):
    root = generate(RECIPES["tiny"], tmp_path / "tiny", workers=1, progress=False)
    images = sorted((root / "det/images/train").glob("*.jpg"))
    assert len(images) == RECIPES["tiny"].train
    assert "names:\n  0: card" in (root / "det/data.yaml").read_text()
    for image in images:
        truth = json.loads((root / "truth/train" / f"{image.stem}.json").read_text())
        lines = (root / "det/labels/train" / f"{image.stem}.txt").read_text().split()
        assert len(lines) == 5 * sum(not c["hidden"] for c in truth["cards"])
        assert lines[:5] == yolo_label_lines(truth)[0].split() if lines else True
        values = np.array(lines, float).reshape(-1, 5)
        assert ((values[:, 1:] > 0) & (values[:, 1:] <= 1)).all()
    crops = list((root / "cls/train").glob("*/*.jpg"))
    assert crops, "classifier crops are written per slug"
    # a second run finds everything done and writes nothing new
    before = {p: p.stat().st_mtime_ns for p in images}
    generate(RECIPES["tiny"], root, workers=1, progress=False)
    assert {p: p.stat().st_mtime_ns for p in images} == before


def test_clutter_is_recorded_and_negative_crops_hold_no_card(tmp_path, faces):
    # a photo's clutter boxes enclose what was drawn there: the table changed inside them
    seed = next(s for s in range(100) if compose_table(s, size=SMALL)[1]["clutter"])
    photo, truth = compose_table(seed, size=SMALL)
    bare, _ = compose_table(seed, size=SMALL, clutter=False)
    for x1, y1, x2, y2 in truth["clutter"]:
        assert 0 <= x1 < x2 <= SMALL[0] and 0 <= y1 < y2 <= SMALL[1]
        inside = np.abs(photo[y1:y2, x1:x2].astype(int) - bare[y1:y2, x1:x2]).mean()
        assert inside > 10
    recipe = replace(RECIPES["train-negatives"], train=6, val=2)
    root = generate(recipe, tmp_path / "neg", workers=1, progress=False)
    negatives = sorted((root / "cls/train" / NOT_A_CARD).glob("*.jpg"))
    assert len(negatives) >= 6 * recipe.negatives
    assert [p.name for p in (root / "cls/train").iterdir()] == [NOT_A_CARD]  # no card crops
    for index in range(recipe.train):
        truth = json.loads((root / "truth/train-train-negatives" / f"n{index:06d}.json").read_text())
        boxes = negative_boxes(np.random.default_rng(0), truth, 3)
        cards = [c["box"] for c in truth["cards"] if not c["hidden"]]
        for box in boxes:  # clutter may touch a card's edge, never cover much of it
            for card in cards:
                overlap = max(0, min(box[2], card[2]) - max(box[0], card[0])) * \
                    max(0, min(box[3], card[3]) - max(box[1], card[1]))
                assert overlap <= 0.3 * (box[2] - box[0]) * (box[3] - box[1]) + 1e-6


def test_print_styles_change_each_cards_print_but_not_the_truth(faces):
    plain, truth = compose_table(9, size=SMALL, effects=False, clutter=False)
    styled, styled_truth = compose_table(9, size=SMALL, effects=False, clutter=False,
                                         conditions=SceneConditions(print_styles=True))
    assert styled_truth == truth  # the same cards in the same places
    on_cards = _on_cards(truth)
    difference = np.abs(plain.astype(int) - styled.astype(int)).mean(2)
    assert difference[on_cards].mean() > 5 and difference[~on_cards].mean() < 1


def test_print_style_gives_each_copy_its_own_look(faces):
    from vision.synth.textures import print_style

    face = faces.faces["tempura"][0]
    copies = [print_style(np.random.default_rng(seed), face) for seed in range(6)]
    assert all(c.shape == face.shape and c.dtype == np.uint8 for c in copies)
    means = {tuple(np.round(c.reshape(-1, 3).mean(0))) for c in copies}
    assert len(means) == 6 and np.array_equal(copies[0], print_style(np.random.default_rng(0), face))


def test_closeups_fill_the_frame_with_one_to_three_cards(tmp_path, faces):
    recipe = replace(RECIPES["train-camera-crops"], train=12, val=0, closeups=1.0, negatives=0, crop_camera=0.0,
                     crop_turns=0.0)
    generate(recipe, tmp_path, workers=1, progress=False)
    truths = [json.loads(p.read_text()) for p in (tmp_path / "truth" / "train-train-camera-crops").glob("*.json")]
    assert len(truths) == 12
    for truth in truths:
        w, h = truth["size"]
        boxes = [c["box"] for c in truth["cards"] if not c["hidden"]]
        assert 1 <= len(truth["cards"]) <= 3
        tallest = max(y2 - y1 for _, y1, _, y2 in boxes)
        assert tallest > 0.4 * h


def _sharpness(image: np.ndarray) -> float:
    import cv2

    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var())


def test_far_side_is_out_of_focus_where_the_near_side_stays_sharp():
    from vision.synth.textures import far_side

    # a fine checkerboard: any blur of a pixel or more flattens it
    yy, xx = np.mgrid[0:960, 0:1280]
    board = np.where(((yy // 3) + (xx // 3)) % 2, 200.0, 60.0).astype(np.float32)
    board = np.repeat(board[..., None], 3, 2)
    for seed in range(6):
        seen = np.clip(far_side(np.random.default_rng(seed), board.copy()), 0, 255).astype(np.uint8)
        far, near = seen[:48], seen[-48:]
        assert _sharpness(far) < 0.5 * _sharpness(near), seed


def test_far_camera_shows_the_far_seats_smaller_and_every_card_still_in_the_photo(faces):
    # four seats round the table: the seats at the top of the photo are the far ones
    tableaux = [["tempura", "sashimi", "dumpling"]] * 4
    plain, plain_truth = compose_table(21, tableaux, size=SMALL, effects=False, clutter=False)
    far, far_truth = compose_table(21, tableaux, size=SMALL, effects=False, clutter=False,
                                   conditions=SceneConditions(far_camera=True))
    w, h = SMALL

    def widths(truth, top):
        boxes = [c["box"] for c in truth["cards"] if not c["hidden"] and c["visible"] > 0.9]
        middle = np.median([(b[1] + b[3]) / 2 for b in boxes])
        return np.mean([b[2] - b[0] for b in boxes if ((b[1] + b[3]) / 2 < middle) == top])

    # in the plain photo far and near cards are alike; seen across the table the far ones shrink
    assert widths(far_truth, top=True) / widths(far_truth, top=False) < \
        widths(plain_truth, top=True) / widths(plain_truth, top=False) - 0.05
    assert sum(not c["hidden"] for c in far_truth["cards"]) == sum(not c["hidden"] for c in plain_truth["cards"])
    for card in far_truth["cards"]:
        x1, y1, x2, y2 = card["box"]
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h


def test_camera_tables_recipe_writes_webcam_frames_with_their_labels(tmp_path, faces):
    tables = RECIPES["train-camera-tables"]
    recipe = replace(tables, train=3, val=0, scene=replace(tables.scene, small_frames=1.0), closeups=0.0)
    generate(recipe, tmp_path, workers=1, progress=False)
    import cv2

    for index in range(3):
        image = cv2.imread(str(tmp_path / "det" / "images" / "train" / f"k{index:06d}.jpg"))
        truth = json.loads((tmp_path / "truth" / "train" / f"k{index:06d}.json").read_text())
        assert image.shape[:2] == (480, 640) and truth["size"] == [640, 480]
        lines = (tmp_path / "det" / "labels" / "train" / f"k{index:06d}.txt").read_text().split()
        assert len(lines) == 5 * sum(not c["hidden"] for c in truth["cards"])


def test_piles_leave_thinner_and_uneven_strips_as_hands_lay_them(faces):
    # the independent test's loose piles leave strips down to an eighth of a card; straight
    # columns never go below a fifth: the detector's pile stage must see both
    column = [["tempura"] * 5]

    def strips(piles: bool) -> list[float]:
        shares = []
        for seed in range(6):
            _, truth = compose_table(seed, column, layout="columns", size=(960, 720), effects=False,
                                     clutter=False, fill=0.8, conditions=SceneConditions(piles=piles))
            assert all(not c["hidden"] for c in truth["cards"])
            shares += [c["visible"] for c in truth["cards"] if c["covered"]]
        return shares

    straight, loose = strips(False), strips(True)
    assert min(straight) > 0.16
    assert min(loose) < 0.14
    assert np.std(loose) > 1.5 * np.std(straight)


def test_a_turned_camera_lays_columns_across_the_photo_or_diagonally(faces):
    # the independent test's photos are taken from any seat, so a column may run across the
    # photo or diagonally (its strips boxed askew); held the usual way, our camera keeps seat
    # 0's cards upright within a few degrees. A card lying across shows a box wider than tall,
    # a diagonal one a box near square: an upright card's box is about 1.5 times taller
    column = [["tempura"] * 3]

    def box_shapes(turned: bool) -> list[float]:
        shapes = []
        for seed in range(8):
            _, truth = compose_table(seed, column, layout="columns", size=(960, 720), effects=False,
                                     clutter=False, fill=0.6, conditions=SceneConditions(turned=turned))
            whole = [c["box"] for c in truth["cards"] if not c["covered"]]
            assert len(whole) == 1
            x1, y1, x2, y2 = whole[0]
            shapes.append((y2 - y1) / (x2 - x1))
        return shapes

    upright, turned = box_shapes(False), box_shapes(True)
    assert min(upright) > 1.25
    assert sum(shape < 1.2 for shape in turned) >= 3


def test_a_tilted_camera_foreshortens_the_cards_and_keeps_them_in_the_photo(faces):
    # a phone held over a table looks 15-45 degrees off straight down (the independent test's
    # camera too): a card lying toward the camera is foreshortened along the view by about
    # cos(tilt), 0.97-0.71, so an upright card's box, about 1.5 times taller than wide from
    # straight above, comes out squatter, and its column's strips thinner
    column = [["tempura"] * 3]
    w, h = 960, 720

    def shapes(tilted: bool) -> tuple[list[float], list[float]]:
        whole_shapes, strip_shapes = [], []
        for seed in range(8):
            _, truth = compose_table(seed, column, layout="columns", size=(w, h), effects=False,
                                     clutter=False, fill=0.6, conditions=SceneConditions(tilted=tilted))
            assert all(not c["hidden"] for c in truth["cards"])
            for card in truth["cards"]:
                x1, y1, x2, y2 = card["box"]
                assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
                (strip_shapes if card["covered"] else whole_shapes).append((y2 - y1) / (x2 - x1))
        return whole_shapes, strip_shapes

    (upright, upright_strips), (tilted, tilted_strips) = shapes(False), shapes(True)
    # (a tilt near 15 degrees, rolled a little, may leave one card's box as it was)
    assert sum(t < 0.95 * u for t, u in zip(tilted, upright, strict=True)) >= 6
    assert np.mean(tilted) < 0.9 * np.mean(upright)
    assert np.mean(tilted_strips) < 0.9 * np.mean(upright_strips)


def test_a_tilted_camera_shows_the_far_side_smaller(faces):
    # two seats face to face: seen from the near edge through a tilted camera the far seat's
    # cards are narrower than the near seat's; from straight above they are alike
    tableaux = [["tempura", "sashimi"]] * 2

    def far_over_near(tilted: bool) -> float:
        ratios = []
        for seed in range(4):
            _, truth = compose_table(seed, tableaux, size=SMALL, effects=False, clutter=False,
                                     conditions=SceneConditions(tilted=tilted))
            width = {s: np.mean([c["box"][2] - c["box"][0] for c in truth["cards"] if c["seat"] == s])
                     for s in (0, 1)}
            ratios.append(width[1] / width[0])
        return float(np.mean(ratios))

    assert far_over_near(True) < far_over_near(False) - 0.05


def test_a_patterned_cloth_changes_the_table_but_not_the_cards(faces):
    plain, truth = compose_table(9, size=SMALL, effects=False, clutter=False, conditions=SceneConditions(tilted=True))
    cloth, cloth_truth = compose_table(9, size=SMALL, effects=False, clutter=False,
                                       conditions=SceneConditions(tilted=True, patterned=True))
    assert cloth_truth == truth  # the same cards in the same places
    on_cards = _on_cards(truth)
    difference = np.abs(plain.astype(int) - cloth.astype(int)).mean(2)
    assert difference[~on_cards].mean() > 10

def test_a_patterned_cloth_is_seen_through_the_camera_its_squares_smaller_far_off():
    # a camera looking across the table: the photo's top row spans twice the table its bottom
    # row does, so a row of the far side crosses more squares or stripes; seen from straight
    # above (the same spans top and bottom), as many
    import cv2

    from vision.synth.textures import patterned_cloth

    w, h = 1600, 400
    photo = np.float32([[0, 0], [w, 0], [w, h], [0, h]])

    def flips(row: np.ndarray) -> int:
        """Changes of tone along ``row``, each past a dead band (noise is no change)."""
        lo, hi = np.percentile(row, 25), np.percentile(row, 75)
        tone = np.where(row > (lo + hi) / 2 + (hi - lo) / 4, 1, np.where(row < (lo + hi) / 2 - (hi - lo) / 4, 0, -1))
        tone = tone[tone >= 0]
        return int(np.count_nonzero(tone[1:] != tone[:-1]))

    def far_over_near(table: np.ndarray) -> float:
        to_table = cv2.getPerspectiveTransform(photo, table).astype(np.float64)
        far = near = 0
        for seed in range(12):
            cloth = cv2.GaussianBlur(patterned_cloth(np.random.default_rng(seed), (w, h), to_table), (0, 0), 1.0)
            pixels = cloth.reshape(-1, 3) - cloth.reshape(-1, 3).mean(0)
            axis = np.linalg.svd(pixels[::97], full_matrices=False)[2][0]  # the two tones apart
            tones = (pixels @ axis).reshape(h, w)
            far += sum(flips(tones[y]) for y in range(10, 40, 3))
            near += sum(flips(tones[y]) for y in range(h - 40, h - 10, 3))
        return far / max(near, 1)

    across = far_over_near(np.float32([[-6, 0], [18, 0], [12, 4], [0, 4]]))  # in card widths
    above = far_over_near(np.float32([[0, 0], [18, 0], [18, 4], [0, 4]]))
    assert across > 1.3 and 0.8 < above < 1.2


#: each share of a recipe's photos and the condition it draws (``None``: the frame size)
SHARE_CONDITIONS = {"print_styles": "print_styles", "far_cameras": "far_camera", "small_frames": None,
                    "piles": "piles", "turned": "turned", "tilted": "tilted", "patterned": "patterned"}


def _drawn(shares: ConditionShares, seed: int) -> dict[str, bool]:
    """What photo ``seed`` of ``shares`` draws, one entry per share."""
    conditions = shares.draw(seed)
    return {share: (shares.frame(seed, (1280, 960)) == (640, 480)) if condition is None
            else getattr(conditions, condition) for share, condition in SHARE_CONDITIONS.items()}


def test_the_shares_name_every_condition_a_photo_can_be_under():
    assert set(SHARE_CONDITIONS) == {f.name for f in fields(ConditionShares)}
    assert {c for c in SHARE_CONDITIONS.values() if c} == {f.name for f in fields(SceneConditions)}


@pytest.mark.parametrize("name", ["train-wide-crops", "train-count-crops", "train-patterned-tables"])
def test_each_condition_is_drawn_for_its_share_of_a_recipes_photos(name):
    # 2000 photos: a share p is drawn within 4 binomial deviations of p
    shares = RECIPES[name].scene
    photos = [_drawn(shares, seed) for seed in range(2000)]
    for share in SHARE_CONDITIONS:
        p = getattr(shares, share)
        drawn = np.mean([photo[share] for photo in photos])
        assert abs(drawn - p) <= 4 * np.sqrt(p * (1 - p) / len(photos)) + 1e-9, (share, p, drawn)


def test_changing_one_share_leaves_every_photos_other_conditions_as_they_were():
    # a recipe's photos keep their tables when another recipe (or a test) changes a share:
    # each condition has its own draw, and a photo under it with share p is under it with any
    # larger share
    base = RECIPES["train-patterned-tables"].scene
    before = [_drawn(base, seed) for seed in range(300)]
    for share in SHARE_CONDITIONS:
        for value in (0.0, 1.0, (1 + getattr(base, share)) / 2):
            changed = replace(base, **{share: value})
            for seed, was in enumerate(before):
                now = _drawn(changed, seed)
                assert {k: v for k, v in now.items() if k != share} == \
                    {k: v for k, v in was.items() if k != share}, (share, value, seed)
                if value >= getattr(base, share):
                    assert now[share] or not was[share]
                else:
                    assert not now[share]

