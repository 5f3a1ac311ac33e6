"""What the players said is what is kept: a full disk loses nothing and leaves no broken file,
a deleted game or a replaced photo leaves nothing behind, and of two edits of one round neither
is dropped without a word."""

from __future__ import annotations

import errno
import io
import json
import os
import re
import sqlite3

import numpy as np
import pytest

import web.files
import web.rounds

PLAYERS = ("Ann", "Ben")
# two tempura for Ann, a sashimi set for Ben, read on the table photo
CARDS = [("tempura", [10, 10, 60, 90], 0.9), ("tempura", [70, 10, 120, 90], 0.9),
         ("sashimi", [10, 200, 60, 280], 0.9), ("sashimi", [70, 200, 120, 280], 0.9),
         ("sashimi", [130, 200, 180, 280], 0.9)]


def review_state(client, game_id: int, number: int = 1) -> dict:
    page = client.get(f"/games/{game_id}/rounds/{number}/review")
    assert page.status_code == 200
    match = re.search(r'id="review-state">(.*?)</script>', page.data.decode(), re.S)
    return json.loads(match.group(1))


@pytest.fixture
def photo(images):
    """A photo with detail (a noisy JPEG of 100 KB or so), as a phone's is."""
    pixels = (np.random.default_rng(3).random((300, 400, 3)) * 255).astype(np.uint8)
    return images.jpeg(pixels)


@pytest.fixture
def played(client, make_game, recognizer, photo):
    """A two-player game whose round 1 is photographed; returns (game id, review state)."""
    recognizer.cards = CARDS
    game_id = make_game("original", PLAYERS)
    response = client.post(f"/games/{game_id}/rounds/1/capture",
                           data={"mode": "table", "table": (io.BytesIO(photo), "t.jpg")})
    assert response.status_code == 302
    return game_id, review_state(client, game_id)


def seat_of(review, label):
    return next(c for c in review["cards"] if c["label"] == label)


def files_under(folder) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


# --- a full disk ---------------------------------------------------------------------------------


def test_a_full_disk_while_copying_a_training_image_leaves_no_part_and_a_retry_copies_it(
    client, played, data_dir, monkeypatch
):
    game_id, state = played
    real_copy = web.files.shutil.copyfileobj

    def disk_fills(source, target, *args):
        target.write(source.read(4096))  # the disk holds the first 4 KB, then is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(web.files.shutil, "copyfileobj", disk_fills)
    body = {**state["review"], "version": state["version"]}
    response = client.post(f"/games/{game_id}/rounds/1/confirm", json=body)
    assert response.status_code == 507
    message = response.get_json()["error"]
    assert "full" in message and "confirm again" in message
    training = data_dir / "training"
    assert not any((training / "images").iterdir())  # neither a truncated image nor a part file
    assert client.get(f"/games/{game_id}/rounds/1/capture").status_code == 200
    assert client.get(f"/games/{game_id}/record.json").get_json()["rounds"]  # the round is kept

    monkeypatch.setattr(web.files.shutil, "copyfileobj", real_copy)
    again = client.post(f"/games/{game_id}/rounds/1/confirm", json=body)  # after freeing space
    assert again.status_code == 200 and again.get_json()["training_examples"] == 1
    (image,) = (training / "images").iterdir()
    (photo_file,) = (data_dir / "photos").iterdir()
    assert image.read_bytes() == photo_file.read_bytes()


def test_a_truncated_training_image_is_copied_again(client, played, data_dir):
    game_id, state = played
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=state["review"]).status_code == 200
    (image,) = (data_dir / "training" / "images").iterdir()
    whole = image.read_bytes()
    image.write_bytes(whole[: len(whole) // 3])  # what a full disk left before copies were atomic
    review = review_state(client, game_id)
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=review["review"]).status_code == 200
    assert image.read_bytes() == whole


def test_a_full_disk_while_saving_a_photo_leaves_no_part_file(client, make_game, photo, data_dir, monkeypatch):
    game_id = make_game("original", PLAYERS)
    real_fsync = os.fsync

    def no_room(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(web.files.os, "fsync", no_room)  # the bytes do not fit when flushed
    response = client.post(f"/games/{game_id}/rounds/1/capture",
                           data={"mode": "table", "table": (io.BytesIO(photo), "t.jpg")})
    assert response.status_code == 507 and "is full" in response.data.decode()
    assert files_under(data_dir / "photos") == []
    monkeypatch.setattr(web.files.os, "fsync", real_fsync)
    retry = client.post(f"/games/{game_id}/rounds/1/capture",
                        data={"mode": "table", "table": (io.BytesIO(photo), "t.jpg")})
    assert retry.status_code == 302 and len(files_under(data_dir / "photos")) == 1


def test_sqlite_s_disk_io_error_on_a_full_disk_is_a_full_disk(client, played, monkeypatch, data_dir):
    game_id, state = played

    def io_error(*_args, **_kwargs):
        exc = sqlite3.OperationalError("disk I/O error")
        exc.sqlite_errorname = "SQLITE_IOERR_WRITE"
        raise exc

    monkeypatch.setattr(web.rounds, "confirm_round", io_error)
    usage = web.errors.shutil.disk_usage(data_dir)
    monkeypatch.setattr(web.errors.shutil, "disk_usage", lambda _path: usage._replace(free=4096))
    response = client.post(f"/games/{game_id}/rounds/1/confirm", json=state["review"])
    assert response.status_code == 507
    assert "full" in response.get_json()["error"] and "confirm again" in response.get_json()["error"]
    monkeypatch.setattr(web.errors.shutil, "disk_usage", lambda _path: usage._replace(free=10**10))
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=state["review"]).status_code == 503


def test_the_pages_read_while_no_request_holds_the_database(client, played, data_dir):
    """SQLite deletes its -wal and -shm files when its last connection closes, and must create
    them again to read; on a full disk it cannot. The app keeps them while it runs."""
    game_id, _ = played
    client.get(f"/games/{game_id}")
    assert (data_dir / "sushicam.sqlite-wal").exists() and (data_dir / "sushicam.sqlite-shm").exists()


# --- deleting a game, re-taking a photo ----------------------------------------------------------


def test_deleting_a_game_removes_its_photos_and_training_examples(client, played, make_game, data_dir, photo):
    game_id, state = played
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=state["review"]).status_code == 200
    other, other_state = make_game("original", PLAYERS), None
    client.post(f"/games/{other}/rounds/1/capture", data={"mode": "table", "table": (io.BytesIO(photo), "o.jpg")})
    other_state = review_state(client, other)
    assert client.post(f"/games/{other}/rounds/1/confirm", json=other_state["review"]).status_code == 200
    kept_before = files_under(data_dir / "training")
    assert len([f for f in kept_before if f.startswith("images/")]) == 2

    page = client.get(f"/games/{game_id}").data.decode()
    assert "training" in re.search(r'data-confirm="([^"]*)"', page).group(1)  # the page says so
    assert client.post(f"/games/{game_id}/delete").status_code == 302
    (other_photo,) = (data_dir / "photos").iterdir()
    stem = other_photo.stem
    assert [f for f in files_under(data_dir / "training") if f.startswith(("images/", "labels/"))] == [
        f"images/{stem}.jpg", f"labels/{stem}.txt"]


def test_a_retaken_photo_takes_its_training_example_with_it(client, played, data_dir, photo):
    game_id, state = played
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=state["review"]).status_code == 200
    (first,) = (data_dir / "photos").iterdir()
    assert (data_dir / "training" / "images" / first.name).exists()
    client.post(f"/games/{game_id}/rounds/1/capture", data={"mode": "table", "table": (io.BytesIO(photo), "t2.jpg")})
    (second,) = (data_dir / "photos").iterdir()
    assert second.name != first.name
    left = files_under(data_dir / "training")
    assert f"images/{first.name}" not in left and f"labels/{first.stem}.txt" not in left
    review = review_state(client, game_id)
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=review["review"]).status_code == 200
    assert [f for f in files_under(data_dir / "training") if f.startswith(("images/", "labels/"))] == [
        f"images/{second.name}", f"labels/{second.stem}.txt"]


# --- two phones on one round ---------------------------------------------------------------------


def test_of_two_phones_confirming_one_round_the_second_is_told_and_shown_the_first(client, played):
    game_id, state = played
    phone_a = json.loads(json.dumps(state["review"]))
    phone_b = json.loads(json.dumps(state["review"]))
    seat_of(phone_a, "tempura")["label"] = "squid-nigiri"  # each corrects a different card
    seat_of(phone_b, "sashimi")["label"] = "egg-nigiri"
    first = client.post(f"/games/{game_id}/rounds/1/confirm", json={**phone_a, "version": state["version"]})
    assert first.status_code == 200
    second = client.post(f"/games/{game_id}/rounds/1/confirm", json={**phone_b, "version": state["version"]})
    assert second.status_code == 409
    answer = second.get_json()
    assert "another phone or tab" in answer["error"]
    assert answer["current"]["review"]["cards"] == review_state(client, game_id)["review"]["cards"]
    record = client.get(f"/games/{game_id}/record.json").get_json()
    assert "squid-nigiri" in record["rounds"][0]["tableaux"]["Ann"] + record["rounds"][0]["tableaux"]["Ben"]
    # phone B, having seen phone A's edit, confirms its own over it
    over = client.post(f"/games/{game_id}/rounds/1/confirm", json={**phone_b, "version": answer["current"]["version"]})
    assert over.status_code == 200
    record = client.get(f"/games/{game_id}/record.json").get_json()
    assert "egg-nigiri" in record["rounds"][0]["tableaux"]["Ann"] + record["rounds"][0]["tableaux"]["Ben"]


def test_the_same_edit_confirmed_twice_is_not_a_conflict(client, played):
    game_id, state = played
    body = {**state["review"], "version": state["version"]}
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=body).status_code == 200
    assert client.post(f"/games/{game_id}/rounds/1/confirm", json=body).status_code == 200


def test_an_edit_of_photos_retaken_on_another_phone_is_a_conflict(client, played, photo):
    game_id, state = played
    client.post(f"/games/{game_id}/rounds/1/capture", data={"mode": "table", "table": (io.BytesIO(photo), "t2.jpg")})
    response = client.post(f"/games/{game_id}/rounds/1/confirm", json={**state["review"], "version": state["version"]})
    assert response.status_code == 409 and response.get_json()["current"]["review"]["cards"]


def test_a_version_that_is_not_a_string_is_a_400(client, played):
    game_id, state = played
    response = client.post(f"/games/{game_id}/rounds/1/confirm", json={**state["review"], "version": 7})
    assert response.status_code == 400 and "version" in response.get_json()["error"]


def test_a_disk_that_really_fills_up(tmp_path):
    """The whole story on a real full disk: a 1 MB tmpfs in a private mount namespace (Linux, as
    root or with user namespaces); skipped where such a disk cannot be made."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) to make a small disk")
    folder = tmp_path / "disk"
    folder.mkdir()
    probe = Path(__file__).with_name("full_disk_probe.py")
    mount = f"mount -t tmpfs -o size=1m tmpfs {folder}"
    if subprocess.run(["unshare", "-rm", "sh", "-c", mount], capture_output=True).returncode != 0:
        pytest.skip("a tmpfs cannot be mounted here")
    run = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f'{mount} && exec "$0" "$1" "$2"', sys.executable, str(probe), str(folder)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    answers = json.loads(run.stdout.strip().splitlines()[-1])
    assert answers["capture"] == 200 and answers["review"] == 200 and answers["game"] == 200
    assert answers["confirm"] == 507 and "full" in answers["message"] and "confirm again" in answers["message"]
    assert answers["parts"] == []
    assert answers["again"] == 200 and answers["copy_whole"] and answers["rounds"] == 1
