"""The stateless JSON API: /api/score and /api/detect."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer import score_record
from web.app import create_app

RECORD = {
    "edition": "party",
    "players": ["Ann", "Ben", "Cid"],
    "menu": "sushi-go",
    "rounds": [
        {"tableaux": {"Ann": [["wasabi", "squid-nigiri"], "maki-3", "tempura", "tempura", "pudding"],
                      "Ben": ["sashimi", "sashimi", "sashimi"],
                      "Cid": ["dumpling"]}},
    ],
}


def test_score_answers_what_sushicam_score_prints(client, tmp_path):
    response = client.post("/api/score", json=RECORD)
    assert response.status_code == 200
    path = tmp_path / "game.json"
    path.write_text(json.dumps(RECORD))
    cli = subprocess.run([sys.executable, "-m", "web.cli", "score", str(path)], capture_output=True, text=True, check=True)
    assert response.get_json() == json.loads(cli.stdout)
    assert response.get_json()["players"]["Ann"]["rounds"] == [20]


def test_score_takes_json_whatever_the_content_type(client):
    response = client.post("/api/score", data=json.dumps(RECORD), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", "empty"),
        ("{nope", "not valid JSON"),
        ("\xff\xfe", "not"),
        ("[" * 10000 + "]" * 10000, "nested too deeply"),
        ("[]", "expected a JSON object"),
        ('{"edition": "party", "players": ["Ann"], "rounds": []}', "players"),
        (json.dumps({**RECORD, "rounds": [{"tableaux": {"Ann": ["tempora"], "Ben": [], "Cid": []}}]}), "rounds[0].tableaux.Ann[0]"),
        (json.dumps({**RECORD, "rounds": [{"tableaux": {"Ann": [["tofu", "egg-nigiri"]], "Ben": [], "Cid": []}}]}), "rounds[0].tableaux.Ann"),
    ],
)
def test_score_refuses_bad_records_with_a_message_naming_the_place(client, body, message):
    response = client.post("/api/score", data=body.encode("latin-1") if body.startswith("\xff") else body,
                           content_type="application/json")
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_score_refuses_a_huge_body(client):
    response = client.post("/api/score", data=b"[" + b"1," * 1_200_000 + b"1]", content_type="application/json")
    assert response.status_code == 413
    assert "error" in response.get_json()


def test_score_needs_post(client):
    response = client.get("/api/score")
    assert response.status_code == 405
    assert "error" in response.get_json()


def test_unknown_api_path_is_a_json_404(client):
    response = client.get("/api/nothing")
    assert response.status_code == 404
    assert "error" in response.get_json()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(json_values, st.fixed_dictionaries({"edition": st.sampled_from(["original", "party"]),
                                                           "players": st.lists(st.text(max_size=5), max_size=9),
                                                           "rounds": json_values})))
def test_score_never_answers_5xx(client, body):
    response = client.post("/api/score", json=body)
    assert response.status_code in (200, 400)
    assert response.is_json


def test_detect_answers_a_detect_line(client, recognizer, images):
    recognizer.cards = [("tempura", [10.0, 10.0, 60.0, 90.0], 0.9)]
    response = client.post("/api/detect", data={"image": (io.BytesIO(images.png(200, 150)), "table.png")})
    assert response.status_code == 200
    line = response.get_json()
    assert line["image"] == "table.png"
    # the "check this card" mark is the vision core's rule (vision.unsure), passed on as it is
    from vision.unsure import is_unsure

    assert line["cards"] == [{"id": 0, "label": "tempura", "box": [10.0, 10.0, 60.0, 90.0],
                              "confidence": 0.9, "on": None, "unsure": is_unsure(0.9)}]
    assert line["tableau"] == ["tempura"]


def test_detect_splits_seats_when_asked(client, recognizer, images):
    recognizer.cards = [("tempura", [10, 160, 60, 190], 0.9), ("eel", [10, 10, 60, 40], 0.9)]
    response = client.post("/api/detect", data={"image": (io.BytesIO(images.png(200, 200)), "t.png"), "seats": "2"})
    line = response.get_json()
    assert [s["seat"] for s in line["seats"]] == [0, 1]
    assert [s["tableau"] for s in line["seats"]] == [["tempura"], ["eel"]]


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        ({}, 400, "multipart form field named 'image'"),
        ({"image": (io.BytesIO(b"hello"), "a.jpg")}, 415, "send a JPEG, PNG, WebP or HEIC photo"),
        ({"image": (io.BytesIO(b""), "a.jpg")}, 400, "empty"),
        ({"seats": "many"}, 400, "'seats' must be a number"),
    ],
)
def test_detect_refuses_bad_uploads(client, images, data, status, message):
    if "seats" in data:
        data = {**data, "image": (io.BytesIO(images.png(50, 50)), "a.png")}
    response = client.post("/api/detect", data=data)
    assert response.status_code == status
    assert message in response.get_json()["error"]


def test_detect_without_a_model_says_so(data_dir, images):
    from web.app import create_app

    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                      "MODEL_DIR": str(data_dir / "no-model")})
    response = app.test_client().post("/api/detect", data={"image": (io.BytesIO(images.png(50, 50)), "a.png")})
    assert response.status_code == 503
    assert "could not be loaded" in response.get_json()["error"]


@pytest.mark.slow
def test_detect_with_the_committed_model_reads_a_composed_table(data_dir, real_recognizer, composed_table, images):
    from collections import Counter

    from web.app import create_app

    image, truth = composed_table
    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "SECRET_KEY": "t",
                      "RECOGNIZER_FACTORY": lambda: real_recognizer})
    response = app.test_client().post(
        "/api/detect", data={"image": (io.BytesIO(images.jpeg(image, 95)), "table.jpg"), "seats": "3"})
    assert response.status_code == 200
    line = response.get_json()
    # the model's accuracy is vision's to measure (sushicam eval); here: it reads this clean
    # photo nearly right, and every card it found lands in one seat
    found, expected = Counter(c["label"] for c in line["cards"]), Counter(c["label"] for c in truth["cards"] if c["box"])
    assert sum((found & expected).values()) >= 0.9 * sum(expected.values())
    assert sum(len(seat["cards"]) for seat in line["seats"]) == len(line["cards"])
    record = {"edition": "original", "players": ["A", "B", "C"],
              "rounds": [{"tableaux": {p: s["tableau"] for p, s in zip("ABC", line["seats"], strict=True)}}]}
    assert score_record(record)["players"]["A"]["rounds"]


# --- issue 46: photos a phone makes, and strips ------------------------------------------------


@pytest.mark.parametrize(("size", "fmt"), [((32, 65000), "PNG"), ((65000, 32), "JPEG")])
def test_detect_reads_a_photo_of_an_extreme_aspect_ratio(tmp_path, real_recognizer, size, fmt):
    """The detector's letterbox shrank a 32x65000 strip to 0 pixels wide: a 500."""
    from PIL import Image

    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test",
                      "RECOGNIZER_FACTORY": lambda: real_recognizer})
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 120, 80)).save(buffer, format=fmt)
    response = app.test_client().post("/api/detect", data={"image": (io.BytesIO(buffer.getvalue()), "strip")})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["cards"] == []


def test_detect_takes_a_heic_photo(client, recognizer):
    pillow_heif = pytest.importorskip("pillow_heif")
    buffer = io.BytesIO()
    pillow_heif.from_bytes("RGB", (64, 48), bytes(64 * 48 * 3)).save(buffer)
    response = client.post("/api/detect", data={"image": (io.BytesIO(buffer.getvalue()), "IMG_0001.HEIC")})
    assert response.status_code == 200, response.get_json()
    assert recognizer.calls == 1


@pytest.mark.parametrize("ext", [".png", ".webp"])
def test_detect_reads_a_60_megapixel_png_or_webp_at_a_reduced_size(tmp_path, recognizer, monkeypatch, ext):
    """Beyond 50 MP (what is decoded whole) a PNG or WebP was refused with 413: now it is
    streamed through a shrink and the recogniser sees at most the working 16 MP."""
    pytest.importorskip("pyvips")
    import cv2
    import numpy as np

    seen = []
    detect = recognizer.detect
    monkeypatch.setattr(recognizer, "detect", lambda image, allowed=None: (seen.append(image.shape),
                                                                           detect(image, allowed))[1])
    pixels = np.full((7500, 8000, 3), (80, 120, 200), np.uint8)
    ok, data = cv2.imencode(ext, pixels)
    del pixels
    assert ok
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test",
                      "RECOGNIZER_FACTORY": lambda: recognizer})  # the app's own pixel cap
    response = app.test_client().post("/api/detect", data={"image": (io.BytesIO(data.tobytes()), "big" + ext)})
    assert response.status_code == 200, response.get_json()
    assert seen and seen[0][0] * seen[0][1] <= 16_000_000 and seen[0][:2] == (3750, 4000)


def test_detect_reads_a_48_megapixel_heic_in_tiles(tmp_path, recognizer):
    """A 48 MP iPhone HEIC (a grid of 512-pixel tiles) was past the 40 MP that libheif may
    decode whole: 413. It is read a row of tiles at a time."""
    pillow_heif = pytest.importorskip("pillow_heif")
    from PIL import Image

    buffer = io.BytesIO()
    pillow_heif.from_pillow(Image.new("RGB", (8000, 6000), (200, 120, 80))).save(
        buffer, tile_size=512, quality=10, enc_params={"preset": "ultrafast"})
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test",
                      "RECOGNIZER_FACTORY": lambda: recognizer})
    response = app.test_client().post("/api/detect", data={"image": (io.BytesIO(buffer.getvalue()), "IMG_0002.HEIC")})
    assert response.status_code == 200, response.get_json()
    assert recognizer.calls == 1
