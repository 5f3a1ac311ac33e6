"""When the app marks a card "unsure": the one rule the review page and ``sushicam detect`` use.

A card is unsure when the recogniser's confidence (region score x label probability) is low,
or when its best name leads the runner-up by little (a guess between two look-alikes: miso
soup or spoon, two fruit cards). The thresholds were calibrated on independently rendered
photos (``sushicam eval --sets field-calib --unsure-report``, never a test set): see
``UNSURE_CONFIDENCE`` and ``UNSURE_MARGIN``.
"""

from __future__ import annotations

#: below this confidence a card is unsure. The recogniser keeps nothing under 0.3, and on the
#: calibration photos any higher floor marked more right cards than it caught wrong ones: the
#: margin below does the work (the rule before, confidence < 0.5, marked 41 % of the wrong
#: cards and 5.6 % of the right ones there; this one 66 % and 9.8 %)
UNSURE_CONFIDENCE = 0.3
#: below this lead of the best name's probability over the second's a card is unsure: the
#: most wrong cards marked while marking at most 10 % of the right ones (``field-calib``)
UNSURE_MARGIN = 0.875


def is_unsure(confidence: float, label_margin: float | None = None, *,
              min_confidence: float = UNSURE_CONFIDENCE, min_margin: float = UNSURE_MARGIN) -> bool:
    """Whether a reading should be checked by the player.

    >>> is_unsure(0.2), is_unsure(0.95, 0.9), is_unsure(0.95, 0.4)
    (True, False, True)
    """
    if confidence < min_confidence:
        return True
    return label_margin is not None and label_margin < min_margin
