"""Teaching a card from photos: the face found, flattened, stored; bad photos refused."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.faces import FACE_SIZE
from vision.teach.find import (
    BlurryPhotoError,
    NoCardFoundError,
    Quad,
    SeveralCardsError,
    UnknownCardError,
    read_face,
)
from vision.teach.library import FaceLibrary, TaughtFace, teach
from vision.teach.retrain import Sources, compose_with_taught

from .conftest import one_card


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of two faces in grey, at a size where a few pixels do not matter."""
    a, b = (cv2.cvtColor(cv2.resize(x, (84, 131), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
            .astype(np.float32) for x in (a, b))
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def test_teaching_two_photos_stores_two_flat_upright_faces_of_the_card(tmp_path, tofu_photos, faces):
    library = FaceLibrary(tmp_path)
    taught = teach(library, "tofu", [("a.jpg", tofu_photos[0]), ("b.jpg", tofu_photos[1])]).faces

    assert [f.name for f in taught] == ["tofu__1", "tofu__2"]
    assert [f.name for f in library.faces()] == ["tofu__1", "tofu__2"]
    truth = faces.faces["tofu"][0]
    for face in taught:
        image = library.image(face.name)
        assert image.shape[:2] == (FACE_SIZE[1], FACE_SIZE[0])
        # the flat face is the tofu card, the right way up, and not some other card
        assert similarity(image, truth) > 0.8
        assert similarity(image, truth) > similarity(cv2.rotate(image, cv2.ROTATE_180), truth)
        assert similarity(image, truth) > max(similarity(image, faces.faces[s][0]) for s in ("eel", "edamame", "miso-soup"))
        # the sidecar says where it came from and parses back to the same value
        sidecar = (tmp_path / "faces" / f"{face.name}.json").read_text()
        assert TaughtFace.from_json(sidecar) == face
        assert json.loads(sidecar)["source"] in ("a.jpg", "b.jpg")
        assert len(Quad.parse(face.quad).corners) == 4
    assert library.face_set().slugs() == ("tofu",)
    assert len(library.face_set().faces["tofu"]) == 2


def test_an_anniversary_card_is_taught_and_reaches_the_photo_generator(tmp_path, tofu_photos, faces):
    library = FaceLibrary(tmp_path)
    teach(library, "futomaki-2", [("f.jpg", tofu_photos[0])])
    sources = Sources(faces, library.face_set(), None)

    assert sources.taught_only == ("futomaki-2",)
    labels = set()
    for seed in range(3):
        _, truth = compose_with_taught(seed, sources, (640, 480))
        labels |= {c["label"] for c in truth["cards"] if not c["hidden"]}
    assert "futomaki-2" in labels  # drawn as a stand-in and renamed back in the truth


def test_a_photo_without_a_card_is_refused(tmp_path, empty_table_photo):
    with pytest.raises(NoCardFoundError, match="no card found"):
        teach(FaceLibrary(tmp_path), "gyoza", [("table.jpg", empty_table_photo)])
    assert FaceLibrary(tmp_path).faces() == []


def test_a_photo_of_two_cards_is_refused(two_cards_photo):
    with pytest.raises(SeveralCardsError, match="this photo shows 2 cards; photograph one card at a time"):
        read_face(two_cards_photo)


def test_a_blurry_photo_is_refused(blurry_photo):
    with pytest.raises(BlurryPhotoError, match="too blurry"):
        read_face(blurry_photo)


def test_one_bad_photo_in_a_batch_is_left_out_alone_and_named(tmp_path, tofu_photos, blurry_photo,
                                                               empty_table_photo):
    taught = teach(FaceLibrary(tmp_path), "tofu", [("good.jpg", tofu_photos[0]), ("shaky.jpg", blurry_photo),
                                                   ("bare.jpg", empty_table_photo), ("good2.jpg", tofu_photos[1])])
    assert [(f.name, f.source) for f in taught.faces] == [("tofu__1", "good.jpg"), ("tofu__2", "good2.jpg")]
    assert [name for name, _ in taught.refused] == ["shaky.jpg", "bare.jpg"]
    assert "too blurry" in str(taught.refused[0][1]) and "no card found" in str(taught.refused[1][1])
    assert len(FaceLibrary(tmp_path).faces()) == 2


def test_a_batch_with_no_good_photo_stores_nothing_and_names_each_photo(tmp_path, blurry_photo):
    with pytest.raises(BlurryPhotoError, match="^shaky.jpg: the (card|photo) is too blurry.*; shaky2.jpg: "):
        teach(FaceLibrary(tmp_path), "tofu", [("shaky.jpg", blurry_photo), ("shaky2.jpg", blurry_photo)])
    assert FaceLibrary(tmp_path).faces() == []


def test_more_photos_than_needed_keep_the_sharpest(tmp_path, tofu_photos):
    photos = [(f"p{i}.jpg", image) for i, image in enumerate(tofu_photos + [one_card(seed, "tofu") for seed in (13, 14)])]
    sharpness = {name: read_face(image).sharpness for name, image in photos}
    taught = teach(FaceLibrary(tmp_path), "tofu", photos, keep=2)
    assert sorted(f.source for f in taught.faces) == sorted(sorted(sharpness, key=sharpness.get)[-2:])
    assert len(taught.refused) == 2 and all(why.fault == "not-kept" and why.kept == 2 for _, why in taught.refused)


def test_an_unknown_card_name_is_refused_with_a_suggestion(tmp_path, tofu_photos):
    with pytest.raises(UnknownCardError, match="did you mean mochi"):
        teach(FaceLibrary(tmp_path), "mochii", [("a.jpg", tofu_photos[0])])


def test_a_card_lying_on_its_side_is_stood_up(tofu_photos, faces):
    turned = cv2.rotate(tofu_photos[0], cv2.ROTATE_90_CLOCKWISE)
    face = read_face(turned).face
    assert face.shape[:2] == (FACE_SIZE[1], FACE_SIZE[0])
    assert similarity(face, faces.faces["tofu"][0]) > 0.8


def test_faces_are_numbered_on_and_can_be_turned_and_removed(tmp_path, tofu_photos):
    library = FaceLibrary(tmp_path)
    teach(library, "tofu", [("a.jpg", tofu_photos[0])])
    teach(library, "tofu", [("b.jpg", tofu_photos[1])])
    before = library.image("tofu__2")
    library.turn("tofu__2")
    assert similarity(library.image("tofu__2"), cv2.rotate(before, cv2.ROTATE_180)) > 0.95
    library.remove("tofu__1")
    assert [f.name for f in library.faces()] == ["tofu__2"]
    assert [f.name for f in teach(library, "tofu", [("c.jpg", tofu_photos[0])]).faces] == ["tofu__3"]


coordinate = st.floats(-5000, 5000, allow_nan=False).map(lambda v: round(v, 1))


@given(st.lists(st.tuples(coordinate, coordinate), min_size=4, max_size=4))
def test_a_quad_parses_back_from_its_text(corners):
    quad = Quad(tuple(corners))
    assert Quad.parse(str(quad)) == quad


@pytest.mark.parametrize("seed", [300, 306, 307, 309, 310])  # each was stored as one face before
def test_a_photo_of_a_whole_table_is_refused_with_how_many_cards_it_shows(seed, bundled_model):
    from vision.synth import compose_table
    from vision.teach.find import card_boxes

    image, truth = compose_table(seed, n_seats=1, size=(1280, 960))
    visible = sum(not c["hidden"] for c in truth["cards"])
    with pytest.raises(SeveralCardsError, match=r"^this photo shows (\d+) cards; photograph one card") as refused:
        read_face(image, card_boxes(bundled_model))
    shown = int(refused.value.args[0].split()[3])
    assert 2 <= shown <= visible
