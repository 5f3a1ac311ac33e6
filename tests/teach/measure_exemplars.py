"""Card F1 on the independent renderer's photos of the scanned print before and after the
players' crops of that print are exemplars, and the time a photo takes with them.

    PYTHONPATH=. python tests/teach/measure_exemplars.py [TEACH_PHOTOS] [TEST_PHOTOS]

The photos are single tableaux (``vision.fieldtest``, 1280x960) whose faces are all the
scanned print where it has the card; the first TEACH_PHOTOS give the exemplars (their cards
at their true boxes, as a confirmed round gives them), the next TEST_PHOTOS are read.
"""

from __future__ import annotations

import sys
import time
from unittest import mock

import numpy as np

from vision.exemplars import Exemplars
from vision.fieldtest import cards as fcards
from vision.fieldtest.render import render_photo
from vision.recognizer import Recognizer
from vision.training.evaluate import card_f1, match_cards


def printed_only(self, rng, slug, printed_share):
    return ORIGINAL(self, rng, slug, 1.0)


ORIGINAL = fcards.FaceBank.face


def f1(recognizer, photos):
    right = predicted = truth = 0
    seconds = []
    for image, cards in photos:
        started = time.perf_counter()
        found = recognizer.detect(image)
        seconds.append(time.perf_counter() - started)
        pairs, visible = match_cards(found, cards)
        right += sum(found.labels[i] == visible[j]["label"] for i, j in pairs)
        predicted, truth = predicted + len(found), truth + len(visible)
    return card_f1(right, predicted, truth)[2], float(np.median(seconds))


def main(teach: int = 3, test: int = 12) -> None:
    base = Recognizer.load("models")
    with mock.patch.object(fcards.FaceBank, "face", printed_only):
        photos = [render_photo(seed, "tableau", (1280, 960)) for seed in range(9000, 9000 + teach + test)]
    photos = [(image, truth["cards"]) for image, truth in photos]
    crops, labels = [], []
    for image, cards in photos[:teach]:
        visible = [c for c in cards if not c["hidden"]]
        crops += base.exemplar_crops(image, np.array([c["box"] for c in visible], np.float32))
        labels += [c["label"] for c in visible]
    taught = base.with_exemplars(Exemplars.of(base.embed_crops(crops), labels))
    held_out = photos[teach:]
    before, t_before = f1(base, held_out)
    after, t_after = f1(taught, held_out)
    print(f"{teach} photos taught ({len(labels)} cards), {test} held out: card F1 {before:.3f} -> {after:.3f}; "
          f"median read {t_before * 1000:.0f} -> {t_after * 1000:.0f} ms")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
