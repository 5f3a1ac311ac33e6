"""Teaching sushicam a deck: the guided page, face uploads, retraining with progress, models.

The page lists the cards of the chosen edition and which the model in use cannot name yet; the
player photographs each missing card (1-3 photos), confirms its name, sees the flattened face,
and presses *Retrain*. Retraining runs as a separate ``sushicam retrain`` process (minutes of
CPU; a crash there cannot take the app down), writing its progress to a JSON file the page
polls. Every route also answers JSON (``Accept: application/json``) for scripts and the page.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_babel import ngettext

from scorer.cards import CARDS
from scorer.editions import EDITIONS
from vision.paths import REPO_ROOT
from web import recognition, verdicts
from web.catalogue import card_label
from web.errors import error_response, json_view, upload_words, wants_json
from web.uploads import UploadError, http_status, read_image

bp = Blueprint("teach", __name__, url_prefix="/teach")

MAX_PHOTOS = 3


def _data_dir() -> Path:
    return Path(current_app.config["DATA_DIR"])


def _bundled() -> Path:
    return Path(current_app.config["MODEL_DIR"])


def _store():
    from vision.teach.models import ModelStore

    return ModelStore(_data_dir(), _bundled())


def _edition() -> str:
    edition = request.values.get("edition") or "anniversary"
    if edition not in EDITIONS:
        abort(400, _("unknown edition %(edition)s: choose one of the page's editions", edition=edition))
    return edition


def _card_boxes():
    """The card detector of the app's recogniser (the model in use), run under the recogniser's
    lock like every other inference; None without a model.

    ``TEACH_DETECTOR`` in the config set to False finds cards by segmentation only.
    """
    if current_app.config.get("TEACH_DETECTOR") is False:
        return None
    from vision.teach.find import detector_boxes

    try:
        recognition.get_recognizer()
    except recognition.RecognizerUnavailable:
        return None

    def boxes(image):
        with recognition.recognizer_in_use() as recognizer:
            return detector_boxes(recognizer)(image)

    return boxes


def _forget_models() -> None:
    """After a switch of model: the next photo is read (and the next card found) with the new one."""
    recognition.forget_recognizer()


def _taught_changed() -> None:
    """The taught faces changed: their exemplars are rewritten (``vision.teach.learn``) and the
    next photo is read with them. A recogniser that cannot embed (a test double, a model folder
    without the embedding output) leaves the faces for a retraining."""
    from vision.teach.learn import refresh_taught
    from vision.teach.models import active_model_dir

    try:
        recognizer = recognition.get_recognizer()
    except recognition.RecognizerUnavailable:
        return
    if not getattr(getattr(recognizer, "classifier", None), "embeds", False) or not hasattr(recognizer, "embed_crops"):
        return
    refresh_taught(_data_dir(), recognizer, active_model_dir(_data_dir(), _bundled()),
                   lock=lambda: recognition.recognizer_in_use())
    _forget_models()


# --- retraining status ----------------------------------------------------------------------


def _pid_alive(pid: Any) -> bool:
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError, TypeError):
        return False
    return True


def retrain_status() -> dict[str, Any]:
    """The last retraining's state: idle, running (stage, fraction), done or failed."""
    from vision.teach.models import StatusFile

    status = StatusFile(_data_dir()).read()
    if status.get("state") == "running" and not _pid_alive(status.get("pid")) and not _store().busy():
        status = {**status, "state": "failed", "failure": "stopped",
                  "message": "the retraining stopped before it finished; the model in use did not change"}
    seen = current_app.extensions.setdefault("sushicam.teach.seen", set())
    if status.get("state") == "done" and status.get("accepted") and status.get("version") not in seen:
        seen.add(status.get("version"))
        _forget_models()
    return status


# --- the page -------------------------------------------------------------------------------


def _page_state(edition: str) -> dict[str, Any]:
    from vision.teach.library import FaceLibrary
    from vision.teach.models import edition_status

    rows = edition_status(_data_dir(), edition, _bundled())
    faces: dict[str, list[str]] = {}
    for face in FaceLibrary(_data_dir()).faces():
        faces.setdefault(face.slug, []).append(face.name)
    for row in rows:
        row["faces"] = faces.get(row["slug"], [])
    store = _store()
    try:
        versions, active = store.versions(), store.active().name
    except ValueError:
        versions, active = [], None
    status = retrain_status()
    from vision.teach.learn import last_learnt

    learnt = last_learnt(_data_dir())
    return {"edition": edition, "cards": rows, "versions": versions, "active": active, "learnt": learnt,
            "learnt_reason": verdicts.learnt_reason(learnt) if learnt else "",
            "retrain": status, "retrain_words": verdicts.status_words(status, edition),
            "summaries": {v.name: verdicts.version_summary(v, edition) for v in versions},
            "taught_total": sum(len(v) for v in faces.values()),
            "missing": [r["slug"] for r in rows if r["state"] in ("missing", "weak")],
            "doubts": _doubts(status, edition)}


def _doubts(status: dict[str, Any], edition: str) -> list[dict[str, Any]]:
    """The corrections the last retraining left out (the model read them otherwise), less those
    the player has vouched for since."""
    from vision.teach.corrections import vouched

    result = status.get("result")
    listed = result.get("metrics", {}).get("doubtful", []) if isinstance(result, dict) else []
    trusted = vouched(_data_dir())
    doubts = []
    for doubt in listed if isinstance(listed, list) else []:
        if not isinstance(doubt, dict) or trusted.get(str(doubt.get("key"))) == doubt.get("label"):
            continue
        if doubt.get("label") in CARDS and doubt.get("read_as") in CARDS:
            doubts.append({**doubt, "label_name": card_label(doubt["label"], edition),
                           "read_as_name": card_label(doubt["read_as"], edition)})
    return doubts


def _render(edition: str, error: str | None = None, status: int = 200, card: str | None = None):
    state = _page_state(edition)
    if wants_json():
        body = {k: v for k, v in state.items() if k not in ("versions", "summaries")}
        body["versions"] = [v.name for v in state["versions"]]
        if error:
            body["error"] = error
        return jsonify(body), status
    state["cards"] = [{**row, "name": card_label(row["slug"], edition)} if row.get("slug") in CARDS else row
                      for row in state["cards"]]
    chosen = card or request.values.get("card") or (state["missing"][0] if state["missing"] else None)
    return render_template("teach.html", **state, editions=EDITIONS, chosen=chosen, error=error,
                           max_photos=MAX_PHOTOS), status


@bp.get("")
def page():
    return _render(_edition())


@bp.post("/faces")
def add_faces() -> ResponseReturnValue:
    """Teach one card from photos of it alone; a bad photo is left out (and said why), the rest kept."""
    from vision.teach.find import TeachError
    from vision.teach.library import FaceLibrary, teach

    edition = _edition()
    slug = (request.form.get("card") or "").strip()
    files = [f for f in request.files.getlist("photos") if f and f.filename]
    unreadable: list[tuple[str, str]] = []
    try:
        if not slug:
            return _render(edition, _("choose which card the photos show"), 400)
        if not files:
            return _render(edition, _("choose 1 to %(count)s photos of the card", count=MAX_PHOTOS), 400,
                           card=slug)
        max_pixels = current_app.config["MAX_IMAGE_PIXELS"]
        photos = []
        for f in files:
            name = f.filename or "photo"
            try:
                photos.append((name, read_image(f.read(), max_pixels, name).pixels))
            except UploadError as exc:  # one photo the browser could not send right: leave it out
                if len(files) == 1:
                    raise
                unreadable.append((name, upload_words(exc)))
        if not photos:
            return _render(edition, verdicts.joined([_("%(photo)s: %(reason)s", photo=n, reason=w)
                                                     for n, w in unreadable]), 400, card=slug)
        taught = teach(FaceLibrary(_data_dir()), slug, photos, _card_boxes())
        _taught_changed()
    except (TeachError, UploadError) as exc:
        status = http_status(exc) if isinstance(exc, UploadError) else 400
        why = upload_words(exc) if isinstance(exc, UploadError) else verdicts.teach_words(exc, edition)
        return _render(edition, verdicts.joined([*(_("%(photo)s: %(reason)s", photo=n, reason=w)
                                                   for n, w in unreadable), why]), status, card=slug or None)
    refused = unreadable + [(name, verdicts.teach_words(why, edition)) for name, why in taught.refused]
    if wants_json():
        return jsonify(faces=[{"face": f.name, "card": f.slug, "sharpness": f.sharpness,
                               "url": url_for("teach.face_image", name=f.name)} for f in taught.faces],
                       refused=[{"photo": name, "reason": why} for name, why in refused]), 201
    name = card_label(slug, edition)
    flash(ngettext("Learned %(num)d face of %(card)s: the next photo names it by them. Check them below.",
                   "Learned %(num)d faces of %(card)s: the next photo names it by them. Check them below.",
                   len(taught.faces), card=name), "ok")
    for photo, why in refused:
        flash(_("Left out %(photo)s: %(reason)s", photo=photo, reason=why), "warning")
    return redirect(url_for("teach.page", edition=edition) + f"#card-{slug}")


@bp.get("/faces/<name>.jpg")
def face_image(name: str):
    from vision.teach.library import FaceLibrary, FaceNotFoundError

    try:
        path = FaceLibrary(_data_dir()).image_path(name)
    except FaceNotFoundError:
        abort(404, _("no taught face %(face)s", face=name))
    return send_file(path, mimetype="image/jpeg", max_age=0)


def _face_action(name: str, action: str):
    from vision.teach.library import FaceLibrary, FaceNotFoundError

    library = FaceLibrary(_data_dir())
    try:
        if action == "remove":
            library.remove(name)
        else:
            library.turn(name)
    except FaceNotFoundError:
        abort(404, _("no taught face %(face)s", face=name))
    _taught_changed()
    if wants_json():
        return jsonify(face=name, done=action)
    flash(_("Removed %(face)s.", face=name) if action == "remove" else _("Turned %(face)s.", face=name), "ok")
    return redirect(url_for("teach.page", edition=_edition()) + f"#card-{name.split('__')[0]}")


@bp.post("/faces/<name>/remove")
def remove_face(name: str):
    return _face_action(name, "remove")


@bp.post("/faces/<name>/turn")
def turn_face(name: str):
    """Turn a face upside down (when the upright guess was wrong)."""
    return _face_action(name, "turn")


@bp.post("/corrections/vouch")
def vouch_correction():
    """The player confirms a correction the model doubted: the next retraining learns it."""
    from vision.teach.corrections import vouch

    key, label = (request.form.get("key") or "").strip(), (request.form.get("label") or "").strip()
    known = {d["key"]: d["label"] for d in _doubts(retrain_status(), _edition())}
    if known.get(key) != label or label not in CARDS:
        abort(404, _("no such doubted correction (it may have been confirmed already)"))
    vouch(_data_dir(), key, label)
    if wants_json():
        return jsonify(key=key, label=label, vouched=True)
    flash(_("Noted: that card is %(card)s. The next retraining learns it.", card=card_label(label, _edition())), "ok")
    return redirect(url_for("teach.page", edition=_edition()) + "#doubts")


# --- retraining and models ------------------------------------------------------------------


@bp.post("/retrain")
@json_view
def start_retrain():
    """Start ``sushicam retrain`` in the background; 202, or 409 while one runs."""
    from vision.teach.library import FaceLibrary
    from vision.teach.models import StatusFile

    # without the training extra `sushicam retrain` learns the confirmed rounds by exemplars
    store = _store()
    if store.busy() or retrain_status().get("state") == "running":
        return error_response(_("a retraining is already running; wait for it to finish"), 409)
    if not FaceLibrary(_data_dir()).faces() and not (_data_dir() / "training" / "classes.txt").exists():
        return error_response(_("nothing to learn yet: teach some cards or confirm some rounds first"), 400)
    log = store.root / "retrain.log"
    store.root.mkdir(parents=True, exist_ok=True)
    status = StatusFile(_data_dir())
    token = os.urandom(8).hex()
    # written before the process starts, so a poll never sees the previous run's state
    status.write(state="running", stage="start", fraction=0.0, message="starting", token=token)
    # the detector too where the player asks (the box beside the button): minutes more
    finder = ["--detector"] if request.form.get("detector") else []
    command = [sys.executable, "-m", "web.cli", "retrain", "--data", str(_data_dir()),
               "--models", str(_bundled()), "--status", *finder, *current_app.config.get("RETRAIN_ARGS", [])]
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    if status.read().get("token") == token:  # the process has not written its own state yet
        status.write(state="running", stage="start", fraction=0.0, message="starting", pid=process.pid)
    threading.Thread(target=_reap, args=(process, status, log), daemon=True).start()
    return jsonify(state="running", pid=process.pid, status_url=url_for("teach.status")), 202


def _reap(process: subprocess.Popen, status, log: Path) -> None:
    """Wait for the retraining process; if it died without a word, say so in its status."""
    code = process.wait()
    last = status.read()
    if last.get("state") == "running" and last.get("pid") in (process.pid, None):
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()] if log.exists() else []
        status.write(state="failed", pid=process.pid, failure="stopped",
                     message=f"the retraining process stopped (exit status {code})"
                     + (f": {lines[-1][:200]}" if lines else ""))


@bp.get("/retrain/status")
@json_view
def status():
    """The retraining's state, with ``words``: the line the page shows, in its language."""
    state = retrain_status()
    return jsonify({**state, "words": verdicts.status_words(state, _edition())})


@bp.post("/models/use")
def use_model():
    version = (request.form.get("version") or "").strip()
    if not version:
        abort(400, _("choose a model version"))
    try:
        used = _store().use(version)
    except ValueError:
        abort(404, _("no model version %(version)s", version=version))
    return _switched(used.name)


@bp.post("/models/rollback")
def rollback_model():
    try:
        used = _store().rollback()
    except ValueError:
        abort(409, _("nothing to roll back to: this is the first model used"))
    return _switched(used.name)


def _switched(name: str):
    _forget_models()
    if wants_json():
        return jsonify(active=name)
    flash(_("Now reading cards with model %(model)s.", model=name), "ok")
    return redirect(url_for("teach.page", edition=_edition()) + "#models")
