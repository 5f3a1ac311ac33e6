import numpy as np
import pytest

from vision.boxes import iou_matrix as box_iou
from vision.detections import Detections


def make(n=3):
    xyxy = np.array([[i * 10, 0, i * 10 + 8, 12] for i in range(n)], np.float32)
    return Detections(xyxy, confidence=np.linspace(0.2, 0.9, n),
                      data={"label": np.array(["eel", "tofu", "tea"][:n])})


def test_boolean_mask_filters_every_array_together():
    d = make()
    kept = d[d.confidence > 0.5]
    assert kept.labels == ["tofu", "tea"]
    assert kept.xyxy[:, 0].tolist() == [10, 20]
    assert kept.class_id.shape == (2,)


def test_index_array_and_single_index():
    d = make()
    assert d[np.array([2, 0])].labels == ["tea", "eel"]
    assert d[1].labels == ["tofu"] and len(d[1]) == 1


def test_merge_concatenates_and_empty_is_neutral():
    d = make()
    merged = Detections.merge([d, Detections.empty(), d[:1]])
    assert len(merged) == 4
    assert merged.labels == ["eel", "tofu", "tea", "eel"]
    assert len(Detections.merge([])) == 0


def test_arrays_are_read_only():
    d = make()
    with pytest.raises(ValueError):
        d.xyxy[0, 0] = 5


@pytest.mark.parametrize("bad", [
    dict(xyxy=np.zeros((2, 4)), confidence=np.ones(3)),
    dict(xyxy=np.zeros((2, 4)), data={"label": np.array(["eel"])}),
])
def test_mismatched_lengths_are_refused(bad):
    with pytest.raises(ValueError):
        Detections(**bad)


def test_iou_of_identical_disjoint_and_half_overlapping_boxes():
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [20, 20, 30, 30], [5, 0, 15, 10]])
    assert box_iou(a, b).round(3).tolist() == [[1.0, 0.0, 0.333]]
