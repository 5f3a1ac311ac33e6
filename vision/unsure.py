"""When the app marks a card "unsure": the one rule the review page and ``sushicam detect`` use.

A card is unsure when the recogniser's confidence (region score x label probability) is low,
or when its best name leads the runner-up by little (a guess between two look-alikes: miso
soup or spoon, two fruit cards). The thresholds were calibrated on independently rendered
photos (``sushicam eval --sets field-calib --unsure-report``, never a test set): see
``UNSURE_CONFIDENCE`` and ``UNSURE_MARGIN``.
"""

from __future__ import annotations

#: below this confidence a card is unsure: with the margin below, the pair that marks the
#: most wrong cards while marking at most 10 % of the right ones on the calibration photos
#: (refit it when the models change: ``--unsure-report`` prints the best pair)
UNSURE_CONFIDENCE = 0.7
#: below this lead of the best name's probability over the second's a card is unsure
#: (fitted with the floor above)
UNSURE_MARGIN = 0.725


def is_unsure(confidence: float, label_margin: float | None = None, *,
              min_confidence: float = UNSURE_CONFIDENCE, min_margin: float = UNSURE_MARGIN) -> bool:
    """Whether a reading should be checked by the player.

    >>> is_unsure(0.2), is_unsure(0.95, 0.9), is_unsure(0.95, 0.4)
    (True, False, True)
    """
    if confidence < min_confidence:
        return True
    return label_margin is not None and label_margin < min_margin
