"""Stand-ins for the recogniser's models, for tests of what the recogniser does with their
outputs."""

import numpy as np


class Fixed:
    """A classifier that gives every crop the same probabilities and keeps the crops' sides."""

    def __init__(self, probabilities):
        self.probabilities = np.asarray(probabilities, np.float32)
        self.sides = []

    def __call__(self, crops):
        self.sides += [c.shape[:2] for c in crops]
        return np.tile(self.probabilities, (len(crops), 1))


def no_detector(image, conf=0.25):
    raise AssertionError("not called")
