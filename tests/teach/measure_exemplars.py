"""How well the players' own print is read once its cards are exemplars (issue 47's "a deck
taught with <= 3 photos a card ... then read >= 97 % exact" and "a card taught from one round
read right in the next photo"), on the player's install: no torch, only the bundled models.

    PYTHONPATH=. python tests/teach/measure_exemplars.py [TEACH_PHOTOS] [TEST_PHOTOS]

The photos are single tableaux of the independent renderer (``vision.fieldtest``, 1280x960)
whose faces are the scanned classic print (``../shared/cards/classic-scan``, its ten cards)
wherever it has the card. The first TEACH_PHOTOS (default 3) are the rounds the players
confirmed: their cards, at their true boxes, become exemplars, so no card is taught from more
than TEACH_PHOTOS photos. The next TEST_PHOTOS (default 20) are read before and after:

- card F1 (all cards, and the scanned print's cards alone), the share of photos whose
  tableau is read exactly (its cards and stacks, as ``sushicam eval``'s "exact tableau": what
  the players see scored), and the stricter share of photos exact box by box (every card's
  region found at the truth's box and named right, nothing extra);
- one round: taught from the first photo alone, the cards of the next photo whose kind that
  round taught, and how many of them are read right;
- the median time to read a photo without and with the exemplars.
"""

from __future__ import annotations

import sys
import time
from unittest import mock

import numpy as np

from vision.exemplars import Exemplars
from vision.faces import PRINTED_SLUGS
from vision.fieldtest import cards as fcards
from vision.fieldtest.render import render_photo
from vision.recognizer import Recognizer
from vision.stacks import canonical, read_tableau
from vision.training.evaluate import card_f1, match_cards

ORIGINAL = fcards.FaceBank.face


def printed_only(self, rng, slug, printed_share):
    return ORIGINAL(self, rng, slug, 1.0)


def read(recognizer, photos, printed: frozenset[str]):
    """Card F1 (all cards, printed cards), the share of photos whose tableau is read exactly, the
    share of photos exact box by box, the median seconds."""
    counts = np.zeros((2, 3), int)  # rows: all, printed; columns: right, predicted, truth
    exact, tableaux, seconds = 0, 0, []
    for image, cards, tableau in photos:
        started = time.perf_counter()
        found = recognizer.detect(image)
        seconds.append(time.perf_counter() - started)
        pairs, visible = match_cards(found, cards)
        right = [found.labels[i] == visible[j]["label"] for i, j in pairs]
        counts[0] += (sum(right), len(found), len(visible))
        counts[1] += (sum(r for r, (_, j) in zip(right, pairs, strict=True) if visible[j]["label"] in printed),
                      sum(1 for label in found.labels if label in printed),
                      sum(1 for card in visible if card["label"] in printed))
        exact += sum(right) == len(found) == len(visible)
        tableaux += canonical(read_tableau(found)) == canonical(tableau)
    n = max(len(photos), 1)
    return (card_f1(*counts[0])[2], card_f1(*counts[1])[2], tableaux / n, exact / n, float(np.median(seconds)))


def exemplars_of(recognizer, photos) -> Exemplars:
    crops, labels, sources = [], [], []
    for p, (image, cards, _) in enumerate(photos):
        visible = [c for c in cards if not c["hidden"]]
        per_card = recognizer.exemplar_crops(image, np.array([c["box"] for c in visible], np.float32))
        for k, (card, its_crops) in enumerate(zip(visible, per_card, strict=True)):
            crops += its_crops
            labels += [card["label"]] * len(its_crops)
            sources += [f"{p}-{k}"] * len(its_crops)
    return Exemplars.of(recognizer.embed_crops(crops), labels, sources)


def main(teach: int = 3, test: int = 20) -> None:
    base = Recognizer.load("models")
    # the scan's ten cards (``vision.faces.PRINTED_SLUGS``: the print training never saw)
    printed = frozenset(PRINTED_SLUGS)
    with mock.patch.object(fcards.FaceBank, "face", printed_only):
        photos = [render_photo(seed, "tableau", (1280, 960)) for seed in range(9000, 9000 + teach + test)]
    photos = [(image, truth["cards"], truth["tableau"]) for image, truth in photos]
    taught = base.with_exemplars(exemplars_of(base, photos[:teach]))
    held_out = photos[teach:]
    per_card = max(sum(any(c["label"] == slug and not c["hidden"] for c in cards) for _, cards, _ in photos[:teach])
                   for slug in printed)
    print(f"taught from {teach} photos ({len(taught.exemplars)} cards; a card from at most {per_card} photos), "
          f"{test} held-out photos read:")
    for name, recognizer in (("before", base), ("after", taught)):
        f1_all, f1_printed, tableaux, exact, seconds = read(recognizer, held_out, printed)
        print(f"  {name:>6}: card F1 {f1_all:.3f} (scanned print's cards {f1_printed:.3f}), "
              f"{tableaux:.0%} of tableaux read exactly, {exact:.0%} of photos exact box by box, "
              f"median read {seconds * 1000:.0f} ms")
    # one round: the cards of the next photo of a kind the first photo taught
    one = base.with_exemplars(exemplars_of(base, photos[:1]))
    kinds = {c["label"] for c in photos[0][1] if not c["hidden"]}
    right = total = 0
    for image, cards, _ in photos[1:]:
        found = one.detect(image)
        pairs, visible = match_cards(found, cards)
        named = {j: found.labels[i] for i, j in pairs}
        for j, card in enumerate(visible):
            if card["label"] in kinds:
                total += 1
                right += named.get(j) == card["label"]
    print(f"  one round taught ({len(kinds)} kinds): {right} of {total} of their cards in the next "
          f"{len(photos) - 1} photos read right")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
