"""A card's tilt read from its outline (``vision.tilts.card_tilts``), against the corners the
independent renderer (``vision.fieldtest``) drew each card at: its top edge's angle in the
photo, modulo 90 (an oracle apart from the code under test)."""

import math

import cv2
import numpy as np
import pytest

import vision.fieldtest.render as render
from vision.boxes import iou_matrix
from vision.detections import TILT
from vision.recognizer import Recognizer
from vision.tilts import card_tilts


@pytest.fixture
def drawn(monkeypatch, faces):
    """Whole-table photos of the renderer's development seeds (in no field test set), with
    each card's corners as the renderer placed it: ``[(image, truth, quads)]``."""
    photos = []
    for photo in range(3):
        quads = []
        place = render._roi

        def kept(quad, size, quads=quads, place=place):
            quads.append(np.array(quad, float))
            return place(quad, size)

        monkeypatch.setattr(render, "_roi", kept)
        image, truth = render.render_photo(322 * 1_000_003 + photo, "table", (2016, 1512))
        photos.append((image, truth, quads))
    return photos


def test_a_whole_cards_tilt_is_read_from_its_outline_with_its_sign(drawn):
    errors, signs = [], []
    for image, truth, quads in drawn:
        whole = [c for c in truth["cards"] if not c["hidden"] and c["visible"] > 0.6]
        boxes = np.array([c["box"] for c in whole], float)
        drawn_boxes = np.array([[*q.min(0), *q.max(0)] for q in quads])
        tilts = card_tilts(image, boxes)
        for tilt, quad in zip(tilts, (quads[j] for j in iou_matrix(boxes, drawn_boxes).argmax(1)), strict=True):
            dx, dy = quad[1] - quad[0]
            true = (math.degrees(math.atan2(dy, dx)) + 45) % 90 - 45
            if np.isnan(tilt):
                continue
            errors.append(abs((tilt - true + 45) % 90 - 45))
            if 8 < abs(true) < 37:  # turned clearly one way (near 45 both ways look alike)
                signs.append(np.sign(tilt) == np.sign(true))
    assert len(errors) > 40 and len(signs) > 15
    assert np.median(errors) < 5
    assert np.mean(signs) >= 0.9  # the box alone tells the sign of none of them


def test_the_recogniser_reads_each_cards_tilt_for_photos_not_live_frames():
    # a card turned 25 degrees the other way, drawn on a bare table
    photo = np.full((600, 800, 3), 40, np.uint8)
    corners = cv2.boxPoints(((400.0, 300.0), (150.0, 234.0), -25.0)).astype(np.int32)
    cv2.fillPoly(photo, [corners], (230, 230, 230))
    x, y, w, h = cv2.boundingRect(corners)

    def detector(image, conf=0.25, iou=0.5):
        return np.array([[x, y, x + w, y + h]], np.float32), np.array([0.9], np.float32)

    def classifier(crops):
        return np.tile([[0.0, 1.0]], (len(crops), 1)).astype(np.float32)

    recognizer = Recognizer(detector, classifier, ("not-a-card", "tempura"))
    assert recognizer.detect(photo).data[TILT][0] == pytest.approx(-25, abs=2)
    assert TILT not in recognizer.for_live().detect(photo).data
