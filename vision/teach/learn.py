"""Teaching and learning on the player's install: exemplars, no training (no torch).

Two ways the players' own cards become exemplars (``vision.exemplars``), read from the very
next photo on:

- **taught faces** (``sushicam teach``, the teach page): each flat face taught gives the
  crops a photo shows of it (the whole card, and the top strips a column leaves of a covered
  card), kept in ``<data>/exemplars/taught.npz`` (:func:`refresh_taught`);
- **confirmed rounds** (:func:`learn_rounds`, run in the background after a round is
  confirmed, or by ``sushicam retrain`` without the training extra): the cards of the rounds
  not yet learnt from become a candidate set, kept only when, with it, the players' other
  confirmed rounds and the bundled check sample (``models/exemplar-check.npz``: labelled
  embeddings of independently rendered crops) are named at least as well as without it
  (:func:`vision.teach.decision.decide_learning`). A kept set makes a new model version
  (``ModelStore``): the same networks and check sample (linked, not copied: the sample sets
  each kind's threshold, ``vision.exemplars``) and every round exemplar so far in
  ``exemplars.npz``, made active; the player sees what was learnt on the teach page and
  undoes it by rolling back.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.exemplars import (
    CHECK_FILE,
    CROP,
    EXEMPLARS_DIR,
    Exemplars,
    ExemplarSet,
    blend,
    fingerprint,
    load_set,
    make_set,
    save_set,
)
from vision.recognizer import NOT_A_CARD, Recognizer
from vision.teach.corrections import ConfirmedPhoto, read_confirmed
from vision.teach.decision import NOTHING_TO_LEARN, LearnDecision, Reading, decide_learning
from vision.teach.library import FaceLibrary
from vision.teach.models import REPO_MODELS, ModelStore, ModelVersion

TAUGHT_FILE = "taught.npz"
#: the confirmed photos already learnt from (kept or not): ``{"seen": [photo names]}``
LEDGER_FILE = "rounds.json"
#: the last round learning's outcome, for the teach page
LEARN_STATUS_FILE = "learn-status.json"
VERSION_EXEMPLARS = "exemplars.npz"
#: the share of a card's height the top strips taught faces give are cut at (a covered card's
#: strip is a fifth to a third of it: ``vision.synth.compose``), after the whole card
STRIP_SHARES = (1.0, 0.3, 0.2)
#: the other confirmed photos a candidate set is checked on (the most recent)
MAX_CHECK_PHOTOS = 40

Lock = Callable[[], contextlib.AbstractContextManager[Any]]


def _no_lock() -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext()


def exemplars_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / EXEMPLARS_DIR


def classifier_print(model_dir: str | Path) -> str:
    meta = json.loads((Path(model_dir) / "meta.json").read_text())
    return fingerprint(Path(model_dir) / meta["classifier"]["file"])


# --- taught faces -------------------------------------------------------------------------


def face_crops(face: np.ndarray) -> list[np.ndarray]:
    """The square crops a photo shows of a flat face: the whole card and its top strips."""
    h = face.shape[0]
    return [cv2.resize(face[:max(1, round(share * h))], (CROP, CROP), interpolation=cv2.INTER_AREA)
            for share in STRIP_SHARES]


def refresh_taught(data_dir: str | Path, recognizer: Recognizer, model_dir: str | Path,
                   lock: Lock = _no_lock) -> ExemplarSet:
    """Write ``<data>/exemplars/taught.npz`` from the taught faces: a face already in it keeps
    its exemplars (where the same classifier made them), a new one is embedded, a removed one
    goes. Turned faces are embedded again (their crops changed)."""
    library = FaceLibrary(data_dir)
    path = exemplars_dir(data_dir) / TAUGHT_FILE
    current = classifier_print(model_dir)
    old = None
    if path.exists():
        with contextlib.suppress(OSError, ValueError, KeyError):
            old = load_set(path)
    crops: list[np.ndarray] = []
    labels: list[str] = []
    sources: list[str] = []
    vectors: list[np.ndarray] = []
    fresh: list[int] = []
    for face in library.faces():
        image = cv2.imread(str(library.root / face.filename), cv2.IMREAD_COLOR)
        if image is None:
            continue
        these = face_crops(image)
        kept = None
        if old is not None and old.fingerprint == current:
            rows = np.flatnonzero(old.exemplars.sources == face.name)
            if len(rows) == len(these) and all(np.array_equal(old.crops[r], c) for r, c in zip(rows, these, strict=True)):
                kept = old.exemplars.vectors[rows]
        for i, crop in enumerate(these):
            crops.append(crop)
            labels.append(face.slug)
            sources.append(face.name)
            if kept is not None:
                vectors.append(kept[i])
            else:
                vectors.append(np.zeros(0, np.float32))
                fresh.append(len(crops) - 1)
    if fresh:
        with lock():
            embedded = recognizer.embed_crops([crops[i] for i in fresh])
        for i, vector in zip(fresh, embedded, strict=True):
            vectors[i] = vector
    found = ExemplarSet(np.asarray(crops, np.uint8).reshape(-1, CROP, CROP, 3),
                        Exemplars.of(np.asarray(vectors, np.float32).reshape(len(crops), -1) if crops
                                     else np.zeros((0, 0), np.float32), labels, sources), current)
    if not crops:
        path.unlink(missing_ok=True)
        return found
    save_set(path, found)
    return found


# --- confirmed rounds ---------------------------------------------------------------------


def read_sample(path: Path, classes: Sequence[str], exemplars: Exemplars, recognizer: Recognizer,
                current: str) -> Reading | None:
    """How many crops of the bundled check sample are named right (None: no sample for this
    classifier)."""
    if not path.exists():
        return None
    with np.load(path, allow_pickle=False) as data:
        if str(data["fingerprint"]) != current:
            return None
        labels, probabilities, embeddings = data["labels"].astype(str), data["probabilities"], data["embeddings"]
    levels = recognizer.with_exemplars(exemplars).exemplar_levels if len(exemplars) else None
    # the sample reads itself: each crop is a rival of every kind but its own, itself left out
    rivals = Exemplars.of(embeddings, labels)
    blended = blend(probabilities, classes, embeddings, exemplars, recognizer.exemplar_rule, levels, rivals,
                    np.arange(len(labels)))
    names = np.array(list(classes) + [k for k in exemplars.kinds() if k not in classes])
    return Reading(int((names[blended.argmax(1)] == labels).sum()), len(labels))


def read_rounds(recognizer: Recognizer, photos: Sequence[ConfirmedPhoto], lock: Lock = _no_lock) -> Reading:
    """The confirmed cards of ``photos`` named right by ``recognizer`` (each at its box)."""
    right = total = 0
    for photo in photos:
        image = cv2.imread(str(photo.image), cv2.IMREAD_COLOR)
        if image is None or not photo.cards:
            continue
        boxes = np.array([card.box for card in photo.cards], np.float32)
        with lock():
            named = recognizer.name(image, boxes).labels
        right += sum(str(n) == card.label for n, card in zip(named, photo.cards, strict=True))
        total += len(photo.cards)
    return Reading(right, total)


@dataclass
class Learnt:
    """What one round learning did, and why (its decision, worded by the teach page and the
    command line)."""

    decision: LearnDecision
    photos: list[str] = field(default_factory=list)
    cards: dict[str, int] = field(default_factory=dict)
    version: str | None = None
    parent: str | None = None
    finished: str = ""

    @property
    def kept(self) -> bool:
        return self.decision.kept

    def to_dict(self) -> dict[str, Any]:
        return {"kept": self.kept, "decision": self.decision.to_json(), "photos": self.photos, "cards": self.cards,
                "version": self.version, "parent": self.parent, "finished": self.finished}


def _ledger(data_dir: Path) -> set[str]:
    try:
        return set(json.loads((exemplars_dir(data_dir) / LEDGER_FILE).read_text()).get("seen", []))
    except (OSError, ValueError, AttributeError):
        return set()


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    partial.write_text(json.dumps(value, indent=1) + "\n")
    os.replace(partial, path)


def last_learnt(data_dir: str | Path) -> dict[str, Any] | None:
    """The last round learning's outcome (:meth:`Learnt.to_dict`; one written before decisions
    were stored holds an English ``reason`` instead of its ``decision``), if any."""
    try:
        found = json.loads((exemplars_dir(data_dir) / LEARN_STATUS_FILE).read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def version_exemplars(version: ModelVersion) -> ExemplarSet | None:
    """The round exemplars a model version reads with (None: none)."""
    meta = json.loads((version.path / "meta.json").read_text())
    entry = meta.get("exemplars")
    if not isinstance(entry, dict) or not (version.path / entry.get("file", "")).is_file():
        return None
    return load_set(version.path / entry["file"])


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system, or links not allowed: a copy
        shutil.copyfile(source, target)


def learn_rounds(data_dir: str | Path, recognizer: Recognizer, bundled: str | Path = REPO_MODELS,
                 lock: Lock = _no_lock, photos: Sequence[str] | None = None) -> Learnt | None:
    """Learn from the confirmed rounds not learnt from yet (``photos``: only those, by name);
    None when there is none. ``recognizer`` is the one in use (the active version's networks,
    its round exemplars and the taught ones); ``lock`` guards each inference with it."""
    data_dir = Path(data_dir)
    store = ModelStore(data_dir, bundled)
    with store.lock():
        confirmed = read_confirmed(data_dir / "training")
        seen = _ledger(data_dir)
        new = [p for p in confirmed if p.name not in seen and (photos is None or p.name in photos)]
        if not new:
            return None
        active = store.active()
        current = classifier_print(active.path)
        previous = version_exemplars(active)
        cards = [(photo, card) for photo in new for card in photo.cards if card.label != NOT_A_CARD]
        crops, labels, sources = [], [], []
        for photo in new:
            image = cv2.imread(str(photo.image), cv2.IMREAD_COLOR)
            if image is None:
                continue
            these = [c for c in photo.cards if c.label != NOT_A_CARD]
            per_card = recognizer.exemplar_crops(image, np.array([c.box for c in these], np.float32))
            for card, its_crops in zip(these, per_card, strict=True):
                crops += its_crops
                labels += [card.label] * len(its_crops)
                sources += [card.key] * len(its_crops)

        def embed(batch):
            with lock():
                return recognizer.embed_crops(batch)

        candidate = make_set(crops, labels, sources, embed, current)
        in_use = recognizer.exemplars if recognizer.exemplars is not None else Exemplars.empty()
        with_new = Exemplars.join([in_use, candidate.exemplars])
        others = [p for p in confirmed if p.name not in {n.name for n in new}][-MAX_CHECK_PHOTOS:]
        before = read_rounds(recognizer, others, lock)
        after = read_rounds(recognizer.with_exemplars(with_new), others, lock)
        own = recognizer.classes[:len(recognizer.classes) - len(recognizer.exemplar_kinds)]
        check = Path(bundled) / CHECK_FILE
        sample_before = read_sample(check, own, in_use, recognizer, current)
        sample_after = read_sample(check, own, with_new, recognizer, current)
        decision = decide_learning(before, after, sample_before, sample_after) if len(candidate) else NOTHING_TO_LEARN
        counts: dict[str, int] = {}
        for _, card in cards:
            counts[card.label] = counts.get(card.label, 0) + 1
        result = Learnt(decision, [p.name for p in new], counts, None, active.name,
                        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        if decision.kept:
            result.version = _commit_version(store, active, previous, candidate, result)
        _write_json(exemplars_dir(data_dir) / LEDGER_FILE, {"seen": sorted(seen | {p.name for p in new})})
        _write_json(exemplars_dir(data_dir) / LEARN_STATUS_FILE, result.to_dict())
    if result.version:
        store.use(result.version)
    return result


def _commit_version(store: ModelStore, base: ModelVersion, previous: ExemplarSet | None, candidate: ExemplarSet,
                    result: Learnt) -> str:
    with store.staging() as staging:
        meta = json.loads((base.path / "meta.json").read_text())
        # the check sample too: the version's reading sets each kind's near by it (vision.exemplars)
        files = {meta["detector"]["file"], meta["classifier"]["file"], "detector.pt", "classifier.pt", CHECK_FILE}
        for reader in ("counter", "fruit"):  # the readers of a family's mark
            if isinstance(meta.get(reader), dict):
                files |= {meta[reader]["file"], f"{reader}.pt"}
        for name in sorted(files):
            if (base.path / name).is_file():
                _link_or_copy(base.path / name, staging / name)
        parts = [previous, candidate] if previous is not None else [candidate]
        joined = ExemplarSet(np.concatenate([p.crops for p in parts]),
                             Exemplars.join(p.exemplars for p in parts), candidate.fingerprint)
        save_set(staging / VERSION_EXEMPLARS, joined)
        meta["exemplars"] = {"file": VERSION_EXEMPLARS}
        (staging / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
        info = {"created": result.finished, "parent": base.name, "kind": "exemplars", "photos": result.photos,
                "cards": result.cards, "decision": result.decision.to_json()}
        (staging / "version.json").write_text(json.dumps(info, indent=1) + "\n")
        return store.commit(staging).name

