"""The guided teach page: which cards are missing, uploading photos, faces, retraining, models."""

from __future__ import annotations

import io
import os
import time

import cv2
import numpy as np
import pytest

from tests.teach.conftest import REPO_MODELS
from vision.teach.models import StatusFile
from web.app import create_app


def jpeg(image) -> io.BytesIO:
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return io.BytesIO(data.tobytes())


@pytest.fixture()
def app(tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test",
                       "WTF_CSRF_ENABLED": False, "TEACH_DETECTOR": False,
                       "MODEL_DIR": str(tmp_path / "no-model")})


@pytest.fixture()
def client(app):
    return app.test_client()


JSON = {"Accept": "application/json"}


def test_the_page_lists_the_anniversary_cards_still_to_teach(client):
    page = client.get("/teach?edition=anniversary")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for name in ("Futomaki (2)", "Gyoza", "Mochi", "Bubble Tea (5)", "Old-Fashioned Pudding"):
        assert name in html
    state = client.get("/teach?edition=anniversary", headers=JSON).get_json()
    assert {"futomaki-1", "gyoza", "mochi", "strawberry-pudding-3"} <= set(state["missing"])
    assert "tofu" not in {row["slug"] for row in state["cards"]}  # not an anniversary card


def test_teaching_a_card_from_a_photo_moves_it_out_of_the_missing_list(client, tofu_photos):
    response = client.post("/teach/faces?edition=anniversary", headers=JSON,
                           data={"card": "mochi", "photos": [(jpeg(tofu_photos[0]), "one.jpg"),
                                                             (jpeg(tofu_photos[1]), "two.jpg")]})
    assert response.status_code == 201, response.get_json()
    faces = response.get_json()["faces"]
    assert [f["face"] for f in faces] == ["mochi__1", "mochi__2"]
    image = client.get(faces[0]["url"])
    assert image.status_code == 200 and image.mimetype == "image/jpeg"
    decoded = cv2.imdecode(np.frombuffer(image.data, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape[:2] == (523, 336)

    state = client.get("/teach?edition=anniversary", headers=JSON).get_json()
    mochi = next(row for row in state["cards"] if row["slug"] == "mochi")
    assert mochi["state"] == "taught" and mochi["faces"] == ["mochi__1", "mochi__2"]
    assert "mochi" not in state["missing"]

    # a browser's form post lands back on the page, with the faces shown
    page = client.post("/teach/faces?edition=anniversary", follow_redirects=True,
                       data={"card": "mochi", "photos": [(jpeg(tofu_photos[0]), "three.jpg")]})
    assert page.status_code == 200 and "mochi__3" in page.get_data(as_text=True)


def test_turn_and_remove_a_face(client, tofu_photos):
    client.post("/teach/faces", headers=JSON, data={"card": "gyoza", "photos": [(jpeg(tofu_photos[0]), "a.jpg")]})
    assert client.post("/teach/faces/gyoza__1/turn", headers=JSON).get_json() == {"face": "gyoza__1", "done": "turn"}
    assert client.post("/teach/faces/gyoza__1/remove", headers=JSON).status_code == 200
    assert client.get("/teach/faces/gyoza__1.jpg").status_code == 404
    assert client.post("/teach/faces/gyoza__1/remove", headers=JSON).status_code == 404
    assert client.get("/teach/faces/..__1.jpg").status_code == 404


@pytest.mark.parametrize(
    ("card", "photos", "status", "message"),
    [
        ("mochi", ["empty"], 400, "no card found in the photo"),
        ("mochi", ["two"], 400, "this photo shows 2 cards; photograph one card"),
        ("mochi", ["blurry"], 400, "too blurry"),
        ("mochii", ["tofu"], 400, "unknown card mochii (did you mean Mochi?)"),
        ("", ["tofu"], 400, "choose which card the photos show"),
        ("mochi", [], 400, "choose 1 to 3 photos of the card"),
        ("mochi", ["text"], 415, "not a photo sushicam reads: send a JPEG, PNG, WebP or HEIC photo"),
    ],
)
def test_bad_uploads_are_refused_with_the_reason(client, tofu_photos, empty_table_photo, two_cards_photo,
                                                 blurry_photo, card, photos, status, message):
    images = {"tofu": tofu_photos[0], "empty": empty_table_photo, "two": two_cards_photo, "blurry": blurry_photo}
    files = [(io.BytesIO(b"hello") if p == "text" else jpeg(images[p]), f"{p}.jpg") for p in photos]
    response = client.post("/teach/faces?edition=anniversary", headers=JSON, data={"card": card, "photos": files})
    assert response.status_code == status
    assert message in response.get_json()["error"]
    assert client.get("/teach", headers=JSON).get_json()["taught_total"] == 0
    # the page shows the same reason beside the form
    page = client.post("/teach/faces?edition=anniversary", data={"card": card, "photos": [
        (io.BytesIO(b"hello") if p == "text" else jpeg(images[p]), f"{p}.jpg") for p in photos]})
    assert page.status_code == status and message.replace("'", "&#39;") in page.get_data(as_text=True)


def test_an_unknown_edition_is_a_400(client):
    response = client.get("/teach?edition=deluxe", headers=JSON)
    assert response.status_code == 400 and "unknown edition deluxe" in response.get_json()["error"]


def test_retrain_needs_something_to_learn(client):
    response = client.post("/teach/retrain")
    assert response.status_code == 400 and "nothing to learn" in response.get_json()["error"]


def test_retrain_status_reports_a_run_that_died_as_failed(app, client):
    with app.app_context():
        StatusFile(app.config["DATA_DIR"]).write(state="running", stage="train", fraction=0.4,
                                                 message="epoch 2 of 5", pid=2**22 + 12345)
    status = client.get("/teach/retrain/status").get_json()
    assert status["state"] == "failed" and "did not change" in status["message"]


def test_a_second_retrain_is_refused_while_one_runs(app, client, tofu_photos):
    client.post("/teach/faces", headers=JSON, data={"card": "gyoza", "photos": [(jpeg(tofu_photos[0]), "a.jpg")]})
    with app.app_context():
        StatusFile(app.config["DATA_DIR"]).write(state="running", stage="train", fraction=0.4,
                                                 message="epoch 2 of 5", pid=os.getpid())
    response = client.post("/teach/retrain")
    assert response.status_code == 409 and "already running" in response.get_json()["error"]


def test_retrain_in_the_background_without_a_model_fails_cleanly(app, client, tofu_photos):
    """The button starts `sushicam retrain`; its failure is reported, and nothing else changes."""
    client.post("/teach/faces", headers=JSON, data={"card": "gyoza", "photos": [(jpeg(tofu_photos[0]), "a.jpg")]})
    started = client.post("/teach/retrain")
    assert started.status_code == 202 and started.get_json()["state"] == "running"
    deadline = time.time() + 60
    while (status := client.get("/teach/retrain/status").get_json())["state"] == "running":
        assert time.time() < deadline, status
        time.sleep(0.2)
    assert status["state"] == "failed"
    assert "incomplete" in status["message"]  # the model folder given has no model in it
    assert client.get("/teach", headers=JSON).get_json()["versions"] == []


@pytest.mark.parametrize(("form", "asked"), [({}, False), ({"detector": "1"}, True)])
def test_the_detector_box_asks_the_retraining_for_the_detector_too(client, tofu_photos, monkeypatch, form, asked):
    import web.teach

    commands = []

    class Started:
        pid = 4242

        def __init__(self, command, **options):
            commands.append(command)

        def wait(self):
            return 0

    client.post("/teach/faces", headers=JSON, data={"card": "gyoza", "photos": [(jpeg(tofu_photos[0]), "a.jpg")]})
    monkeypatch.setattr(web.teach.subprocess, "Popen", Started)  # the command, not the run
    started = client.post("/teach/retrain", headers=JSON, data=form)
    assert started.status_code == 202
    assert commands[0][3] == "retrain" and ("--detector" in commands[0]) == asked


def test_models_use_and_rollback_refuse_what_is_not_there(client):
    assert client.post("/teach/models/use", headers=JSON, data={"version": "nope"}).status_code == 404
    assert client.post("/teach/models/use", headers=JSON, data={}).status_code == 400
    response = client.post("/teach/models/rollback", headers=JSON)
    assert response.status_code == 409 and "nothing to roll back to" in response.get_json()["error"]


def test_retrain_without_the_training_extra_learns_by_exemplars(client, tofu_photos, monkeypatch):
    """No 503 on a player's install: the retraining process learns by exemplars (here with
    ``--exemplars``, as it does where torch is missing), and says there is nothing new when
    only taught faces are there (they are read without retraining)."""
    import sys
    import time

    client.post("/teach/faces", data={"card": "gyoza", "photos": [(jpeg(tofu_photos[0]), "a.jpg")]},
                headers=JSON)
    monkeypatch.setitem(sys.modules, "ultralytics", None)
    client.application.config["RETRAIN_ARGS"] = ["--exemplars"]
    client.application.config["MODEL_DIR"] = str(REPO_MODELS)
    answer = client.post("/teach/retrain", headers=JSON)
    assert answer.status_code == 202
    deadline = time.time() + 240
    while (state := client.get("/teach/retrain/status", headers=JSON).get_json())["state"] == "running":
        assert time.time() < deadline, state
        time.sleep(0.5)
    assert state["state"] == "failed" and "nothing new to learn" in state["message"]


class LockCheckingRecognizer:
    """A recogniser whose detector notes whether the app's recogniser lock was held."""

    def __init__(self):
        self.calls: list[bool] = []

    def detector(self, image, conf):
        from flask import current_app

        self.calls.append(current_app.extensions["sushicam.recognizer"].lock.locked())
        return np.zeros((0, 4), np.float32), np.zeros(0), np.zeros(0, int)


def test_finding_a_card_with_the_detector_runs_under_the_recognisers_lock(tmp_path, empty_table_photo):
    recognizer = LockCheckingRecognizer()
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test",
                      "WTF_CSRF_ENABLED": False, "MODEL_DIR": str(tmp_path / "no-model"),
                      "RECOGNIZER_FACTORY": lambda: recognizer})
    answer = app.test_client().post("/teach/faces", headers=JSON,
                                    data={"card": "gyoza", "photos": [(jpeg(empty_table_photo), "a.jpg")]})
    assert answer.status_code == 400  # no card on an empty table, detector or not
    assert recognizer.calls == [True]  # the detector was asked, and only under the lock


def test_one_bad_photo_among_good_ones_is_left_out_and_the_rest_kept(client, tofu_photos, blurry_photo):
    files = [(jpeg(tofu_photos[0]), "a.jpg"), (jpeg(blurry_photo), "shaky.jpg"), (io.BytesIO(b"hello"), "notes.jpg")]
    answer = client.post("/teach/faces?edition=anniversary", headers=JSON, data={"card": "mochi", "photos": files})
    assert answer.status_code == 201
    body = answer.get_json()
    assert [f["face"] for f in body["faces"]] == ["mochi__1"]
    assert [r["photo"] for r in body["refused"]] == ["notes.jpg", "shaky.jpg"]
    assert "too blurry" in body["refused"][1]["reason"]
    page = client.post("/teach/faces?edition=anniversary", follow_redirects=True, data={
        "card": "mochi", "photos": [(jpeg(tofu_photos[1]), "b.jpg"), (jpeg(blurry_photo), "shaky.jpg")]})
    assert "Left out shaky.jpg: " in page.get_data(as_text=True)


def test_more_than_ten_photos_of_a_card_are_not_refused(client, tofu_photos):
    files = [(jpeg(tofu_photos[i % 2]), f"p{i}.jpg") for i in range(12)]
    answer = client.post("/teach/faces?edition=anniversary", headers=JSON, data={"card": "mochi", "photos": files})
    assert answer.status_code == 201
    assert len(answer.get_json()["faces"]) == 10 and len(answer.get_json()["refused"]) == 2


def test_a_doubted_correction_is_shown_and_can_be_vouched_for(app, client):
    from vision.teach.corrections import vouched

    doubt = {"key": "round0:1", "photo": "round0", "line": 1, "label": "pudding",
             "read_as": "green-tea-ice-cream", "confidence": 0.99}
    StatusFile(app.config["DATA_DIR"]).write(state="done", accepted=True, version=None, message="ok",
                                             result={"metrics": {"doubtful": [doubt]}})
    page = client.get("/teach?edition=original").get_data(as_text=True)
    assert "you said <b>Pudding</b>; the model reads Green Tea Ice Cream (99% sure)" in page
    assert client.post("/teach/corrections/vouch", data={"key": "round0:1", "label": "tempura"}).status_code == 404
    answer = client.post("/teach/corrections/vouch?edition=original", data={"key": "round0:1", "label": "pudding"})
    assert answer.status_code == 302
    assert vouched(app.config["DATA_DIR"]) == {"round0:1": "pudding"}
    assert client.get("/teach?edition=original", headers=JSON).get_json()["doubts"] == []


@pytest.mark.parametrize("size", [(32, 65000), (65000, 32)])
def test_a_photo_of_an_extreme_aspect_ratio_is_left_out_and_the_good_ones_kept(client, tofu_photos, size):
    """A 32x65000 strip left GrabCut no rectangle: the whole upload was a 500."""
    strip = np.full((size[1], size[0], 3), (80, 120, 200), np.uint8)
    files = [(jpeg(tofu_photos[0]), "a.jpg"), (jpeg(strip), "strip.jpg")]
    answer = client.post("/teach/faces?edition=anniversary", headers=JSON, data={"card": "mochi", "photos": files})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    body = answer.get_json()
    assert [f["face"] for f in body["faces"]] == ["mochi__1"]
    assert [r["photo"] for r in body["refused"]] == ["strip.jpg"]
    alone = client.post("/teach/faces?edition=anniversary", headers=JSON,
                        data={"card": "mochi", "photos": [(jpeg(strip), "strip.jpg")]})
    assert alone.status_code == 400 and "strip.jpg" in alone.get_json()["error"]
