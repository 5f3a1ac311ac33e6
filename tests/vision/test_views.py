"""Naming a region from several views of it (test-time augmentation): the crop and the crop
turned 180 degrees (a card upside down is the same card), each also cut closer; their
probabilities averaged, on photos and live frames alike."""

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.recognizer import CROP_ONLY, PHOTO_VIEWS, CropView, Recognizer
from vision.synth import compose_table

ROOT = Path(__file__).resolve().parents[2]
CLASSES = ("not-a-card", "tempura")


class TopHalfBrightness:
    """A classifier that calls a crop tempura as sure as the top half of it is bright (0 for
    black, 1 for white), and counts the crops it is asked about."""

    def __init__(self):
        self.crops = 0

    def __call__(self, crops):
        self.crops += len(crops)
        bright = np.array([c[: c.shape[0] // 2].mean() / 255 for c in crops], np.float32)
        return np.stack([1 - bright, bright], 1)


def one_region(box):
    def detector(image, conf=0.25):
        return np.array([box], np.float32), np.array([0.9], np.float32)
    return detector


def white_over_black():
    """A 200x100 photo: a 40x60 region at (60, 20), white above its middle and black below."""
    image = np.full((100, 200, 3), 90, np.uint8)
    image[20:50, 60:100] = 255
    image[50:80, 60:100] = 0
    return image, [60, 20, 100, 80]


def test_the_probabilities_are_the_mean_over_the_views():
    image, box = white_over_black()
    classifier = TopHalfBrightness()
    upright = Recognizer(one_region(box), classifier, CLASSES, views=CROP_ONLY)
    both = dataclasses.replace(upright, views=(CropView(), CropView(turned=True)))
    # upright: the top half is white, tempura for sure; turned: the black half is on top,
    # no card for sure; the mean of the two is an even guess
    assert upright.probabilities(image, np.array([box]))[0].tolist() == pytest.approx([0.0, 1.0], abs=1e-6)
    assert both.probabilities(image, np.array([box]))[0].tolist() == pytest.approx([0.5, 0.5], abs=1e-6)
    assert classifier.crops == 1 + 2


def test_a_view_cut_closer_sees_only_the_middle_of_its_box():
    # a white card with a black frame a quarter of its side wide: cut 25 % closer on each
    # side, the view sees the white card alone; as cut, the frame too
    image = np.zeros((100, 100, 3), np.uint8)
    image[25:75, 25:75] = 255
    box = [0, 0, 100, 100]
    assert (CropView(margin=-0.25).crop(image, box) == 255).all()
    assert CropView().crop(image, box).min() == 0


def test_live_frames_name_a_card_upside_down_as_they_name_it_upright():
    """A live table's far seats lie upside down in the frame: a live frame's region is named
    from the photo's views, so the card across the table is named as the one in front."""
    image, box = white_over_black()
    turned_image = cv2.rotate(image, cv2.ROTATE_180)
    h, w = image.shape[:2]
    turned_box = [w - box[2], h - box[3], w - box[0], h - box[1]]
    classifier = TopHalfBrightness()
    live = Recognizer(one_region(box), classifier, CLASSES).for_live()
    live_turned = Recognizer(one_region(turned_box), classifier, CLASSES).for_live()
    upright = live.probabilities(image, np.array([box]))
    assert np.allclose(upright, live_turned.probabilities(turned_image, np.array([turned_box])), atol=1e-6)
    # from the crop alone, the one upside down shows its black half on top: no card at all
    alone = dataclasses.replace(live, views=CROP_ONLY)
    assert alone.probabilities(turned_image, np.array([turned_box]))[0, 1] < 0.5 < alone.probabilities(image, np.array([box]))[0, 1]
    live.detect(image)
    # the two live readings above, the two from the crop alone, then the region found
    assert classifier.crops == 2 * len(PHOTO_VIEWS) + 2 + len(PHOTO_VIEWS)


@pytest.fixture(scope="module")
def recognizer():
    return Recognizer.load(ROOT / "models")


def test_a_tableau_turned_upside_down_is_named_alike(recognizer, faces):
    tableau = ["maki-2", "salmon-nigiri", "uramaki-4", "dumpling", "wasabi", "squid-nigiri"]
    image, truth = compose_table(31, [tableau], layout="columns", size=(1280, 960), fill=0.8, clutter=False)
    cards = [c for c in truth["cards"] if not c["hidden"]]
    boxes = np.round([c["box"] for c in cards]).astype(np.float32)
    h, w = image.shape[:2]
    turned_image = cv2.rotate(image, cv2.ROTATE_180)
    turned_boxes = np.stack([w - boxes[:, 2], h - boxes[:, 3], w - boxes[:, 0], h - boxes[:, 1]], 1)
    # each view comes with its turned twin: a region and the same region of the photo turned
    # 180 degrees have the same views, so the same probabilities; from one view they differ
    assert np.allclose(recognizer.probabilities(image, boxes), recognizer.probabilities(turned_image, turned_boxes),
                       atol=1e-5)
    alone = dataclasses.replace(recognizer, views=CROP_ONLY)
    assert not np.allclose(alone.probabilities(image, boxes), alone.probabilities(turned_image, turned_boxes),
                           atol=1e-5)
    truth_labels = [c["label"] for c in cards]
    assert recognizer.name(image, boxes).labels.tolist() == truth_labels
    assert recognizer.name(turned_image, turned_boxes).labels.tolist() == truth_labels
