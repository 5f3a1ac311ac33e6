from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.faces import (
    FACE_SIZE,
    PRINTED_SLUGS,
    SLUGS,
    default_cards_dir,
    printed_faces,
    training_faces,
    unseen_print_faces,
)


def test_slugs_are_the_file_names_of_the_digital_faces(faces):
    names = {p.name.split("__")[0] for p in (default_cards_dir() / "party-digital").glob("*.jpg")}
    assert set(SLUGS) == names and len(SLUGS) == 38
    assert list(SLUGS) == sorted(SLUGS)  # ultralytics classify orders classes by folder name


def _saturation(band):
    return cv2.cvtColor(band, cv2.COLOR_BGR2HSV)[..., 1].mean()


@pytest.mark.parametrize("slug", PRINTED_SLUGS)
def test_each_printed_card_is_cropped_whole_and_upright(slug):
    face = printed_faces().faces[slug][0]
    assert face.shape[:2] == (FACE_SIZE[1], FACE_SIZE[0])
    h = face.shape[0]
    # an upright card: coloured background at the top, the grey text band at the bottom
    assert _saturation(face[int(h * 0.88):int(h * 0.95)]) < _saturation(face[int(h * 0.05):int(h * 0.15)])
    # and it looks like the same card's digital face (same background colour at the top)
    digital = training_faces().faces[slug][0]
    top = (slice(int(h * 0.04), int(h * 0.12)), slice(int(FACE_SIZE[0] * 0.45), int(FACE_SIZE[0] * 0.95)))
    distance = np.linalg.norm(face[top].reshape(-1, 3).mean(0) - digital[top].reshape(-1, 3).mean(0))
    assert distance < 80, f"{slug}: printed top colour far from the digital face's"


def test_training_faces_never_include_the_prints():
    train = training_faces()
    prints = printed_faces()
    for slug in PRINTED_SLUGS:
        assert all(not np.array_equal(a, prints.faces[slug][0]) for a in train.faces[slug])
    mixed = unseen_print_faces()
    assert np.array_equal(mixed.faces["tempura"][0], prints.faces["tempura"][0])
    assert mixed.faces["eel"] == train.faces["eel"]


def test_a_missing_card_folder_is_a_clear_error(tmp_path: Path):
    from vision.faces import CardsNotFoundError, digital_faces

    with pytest.raises(CardsNotFoundError, match="no card faces"):
        digital_faces(tmp_path)
