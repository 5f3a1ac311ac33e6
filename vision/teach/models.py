"""The model versions of a data folder: which one the app reads every photo with, and the
retraining status the teach page polls.

Versions live in the data folder, the bundled model (``models/``) is never touched::

    <data>/models/<YYYYmmdd-HHMMSS>/   detector.onnx, classifier.onnx, classifier.pt,
                                       counter.onnx and fruit.onnx (the count
                                       classifier and the fruit reader, when meta.json
                                       names them), meta.json, version.json
    <data>/models/active               {"active": name, "history": [older names]}
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from vision import paths
from vision.recognizer import NOT_A_CARD
from vision.teach.library import FaceLibrary

REPO_MODELS = paths.MODELS_DIR
BUNDLED = "bundled"
MODELS_DIR = "models"
ACTIVE_FILE = "active"
STATUS_FILE = "retrain-status.json"
#: The files a model folder needs (what ``Recognizer.load`` reads), besides the count
#: classifier its ``meta.json`` may name.
MODEL_FILES = ("meta.json", "detector.onnx", "classifier.onnx")


# --- errors -------------------------------------------------------------------------------


class ModelStoreError(ValueError):
    """A model version that does not exist or cannot be used."""


class RetrainBusyError(ModelStoreError):
    """Another retraining is running on this data folder."""


class NothingToLearnError(ValueError):
    """No taught face and no corrected round: retraining would learn nothing."""


class NothingNewError(ValueError):
    """Every confirmed round is learnt from already, and taught cards need no retraining."""


# --- versions -----------------------------------------------------------------------------


#: what a version was made by: a retraining (``vision.teach.retrain``), a round learning
#: (``vision.teach.learn``), or ``sushicam eval-teach``'s base with some cards held out
VersionKind = Literal["retrained", "exemplars", "held-out"]
VERSION_KINDS: tuple[VersionKind, ...] = get_args(VersionKind)


@dataclass(frozen=True)
class Origin:
    """What a version was made from, as its ``version.json`` says (the models list words it)."""

    kind: VersionKind
    parent: str | None = None
    #: whether its retraining kept it (a refused one is only kept to look at)
    accepted: bool = True
    #: retrained: the cards new to it
    added: tuple[str, ...] = ()
    #: a round learning: the confirmed photos it learnt from and how many of each card
    photos: int = 0
    cards: tuple[tuple[str, int], ...] = ()
    #: eval-teach: the cards the bundled model was stripped of
    held_out: tuple[str, ...] = ()

    @classmethod
    def from_info(cls, info: dict[str, Any]) -> Origin | None:
        """The origin a ``version.json`` holds; None for one written before versions said it
        (its English ``summary`` is shown as it is) or one that is malformed."""
        kind = info.get("kind", "retrained" if "decision" in info else None)
        if kind not in VERSION_KINDS:
            return None
        names = lambda key: tuple(v for v in info.get(key, ()) if isinstance(v, str))  # noqa: E731
        cards = info.get("cards", {})
        photos = info.get("photos", [])
        parent = info.get("parent")
        return cls(kind, parent if isinstance(parent, str) else None, info.get("accepted", True) is not False,
                   names("added"), len(photos) if isinstance(photos, list) else 0,
                   tuple(sorted((str(k), int(v)) for k, v in cards.items() if isinstance(v, int)))
                   if isinstance(cards, dict) else (), names("held_out"))


@dataclass(frozen=True)
class ModelVersion:
    """One model folder: the bundled one, or a retrained version in the data folder."""

    name: str
    path: Path
    classes: tuple[str, ...]
    created: str = ""
    parent: str | None = None
    #: what it was made from (None: the bundled model, or a version written before it was said)
    origin: Origin | None = None
    #: the English line a version written before ``origin`` existed holds, shown as it is
    summary: str = ""
    #: cards this version has outputs for but read badly when it was made (see ``retrain``)
    weak: tuple[str, ...] = ()

    @property
    def bundled(self) -> bool:
        return self.name == BUNDLED

    @property
    def cards(self) -> int:
        """How many cards it names (its classes less "not a card")."""
        return sum(c != NOT_A_CARD for c in self.classes)


def _read_classes(path: Path) -> tuple[str, ...]:
    meta = json.loads((path / "meta.json").read_text())
    return tuple(meta.get("classes", ()))


def _reader_files(path: Path) -> list[str]:
    """The files of the mark readers (the count classifier, the fruit reader) ``meta.json``
    names (a model may have none)."""
    meta = json.loads((path / "meta.json").read_text())
    readers = [meta.get(name) for name in ("counter", "fruit")] if isinstance(meta, dict) else []
    return [str(r["file"]) for r in readers if isinstance(r, dict) and "file" in r]


def _timestamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime())


class ModelStore:
    """The model versions of a data folder, and which one is active."""

    def __init__(self, data_dir: str | Path, bundled: str | Path = REPO_MODELS):
        self.data_dir = Path(data_dir)
        self.root = self.data_dir / MODELS_DIR
        self.bundled_path = Path(bundled)

    # reading

    def _version(self, name: str, path: Path) -> ModelVersion:
        if not all((path / f).exists() for f in MODEL_FILES):
            raise ModelStoreError(f"model {name!r} in {path} is incomplete (needs {', '.join(MODEL_FILES)})")
        try:
            classes = _read_classes(path)
            readers = _reader_files(path)
            info = json.loads((path / "version.json").read_text()) if (path / "version.json").exists() else {}
        except (OSError, ValueError) as exc:
            raise ModelStoreError(f"model {name!r} in {path} is damaged: {exc}") from exc
        for reader in readers:
            if not (path / reader).exists():
                raise ModelStoreError(f"model {name!r} in {path} is incomplete (its meta.json names {reader})")
        if not isinstance(info, dict):
            info = {}
        weak = tuple(s for s in info.get("weak", ()) if isinstance(s, str))
        origin = Origin.from_info(info)
        summary = info.get("summary", "") if origin is None else ""
        return ModelVersion(name, path, classes, str(info.get("created", "")), info.get("parent"), origin,
                            summary if isinstance(summary, str) else "", weak)

    def get(self, name: str) -> ModelVersion:
        if name == BUNDLED:
            return self._version(BUNDLED, self.bundled_path)
        path = self.root / name
        if name.startswith(".") or "/" in name or not path.is_dir():
            known = ", ".join(v.name for v in self.versions())
            raise ModelStoreError(f"no model version {name!r} (known: {known})")
        return self._version(name, path)

    def versions(self) -> list[ModelVersion]:
        """The bundled model first, then the retrained versions, oldest first (damaged ones left out)."""
        found = []
        with contextlib.suppress(ModelStoreError):
            found.append(self._version(BUNDLED, self.bundled_path))
        if self.root.is_dir():
            for path in sorted(p for p in self.root.iterdir() if p.is_dir() and not p.name.startswith(".")):
                with contextlib.suppress(ModelStoreError):
                    found.append(self._version(path.name, path))
        return found

    def _pointer(self) -> dict[str, Any]:
        path = self.root / ACTIVE_FILE
        try:
            pointer = json.loads(path.read_text())
            if isinstance(pointer, dict) and isinstance(pointer.get("active"), str):
                history = [h for h in pointer.get("history", []) if isinstance(h, str)]
                return {"active": pointer["active"], "history": history}
        except (OSError, ValueError):
            pass
        return {"active": BUNDLED, "history": []}

    def active(self) -> ModelVersion:
        """The version in use; the bundled model when none was chosen or the chosen one is gone."""
        name = self._pointer()["active"]
        try:
            return self.get(name)
        except ModelStoreError:
            return self.get(BUNDLED)

    # changing

    def _write_pointer(self, pointer: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        partial = self.root / f".{ACTIVE_FILE}.part"
        partial.write_text(json.dumps(pointer) + "\n")
        os.replace(partial, self.root / ACTIVE_FILE)

    def use(self, name: str) -> ModelVersion:
        """Make ``name`` the active version (the one before it can be rolled back to)."""
        version = self.get(name)
        pointer = self._pointer()
        if pointer["active"] != name:
            history = (pointer["history"] + [pointer["active"]])[-20:]
            self._write_pointer({"active": name, "history": history})
        return version

    def rollback(self) -> ModelVersion:
        """Go back to the version active before this one."""
        pointer = self._pointer()
        history = list(pointer["history"])
        while history:
            previous = history.pop()
            try:
                version = self.get(previous)
            except ModelStoreError:
                continue  # removed since: go further back
            self._write_pointer({"active": previous, "history": history})
            return version
        raise ModelStoreError(f"nothing to roll back to: {pointer['active']!r} is the first model used")

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the data folder's retraining lock (released by the OS if the process dies)."""
        self.root.mkdir(parents=True, exist_ok=True)
        handle = open(self.root / ".retrain.lock", "a+")  # noqa: SIM115 - held for the block
        try:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RetrainBusyError("a retraining is already running on this data folder") from None
            yield
        finally:
            handle.close()

    def busy(self) -> bool:
        """Whether a retraining holds the lock now."""
        path = self.root / ".retrain.lock"
        if not path.exists():
            return False
        with open(path, "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
        return False

    @contextlib.contextmanager
    def staging(self) -> Iterator[Path]:
        """A fresh folder for a version being built; removed unless :meth:`commit` took it."""
        self.root.mkdir(parents=True, exist_ok=True)
        for old in self.root.glob(".staging-*"):  # left by a run that died: nothing uses it
            shutil.rmtree(old, ignore_errors=True)
        path = self.root / f".staging-{os.getpid()}-{time.time_ns()}"
        path.mkdir()
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)

    def commit(self, staging: Path) -> ModelVersion:
        """Give a finished staging folder its version name (not made active)."""
        name = _timestamp()
        n = 1
        while (self.root / name).exists():
            n += 1
            name = f"{_timestamp()}-{n}"
        info_path = staging / "version.json"
        info = json.loads(info_path.read_text()) if info_path.exists() else {}
        info["name"] = name
        info_path.write_text(json.dumps(info, indent=1) + "\n")
        os.replace(staging, self.root / name)
        return self.get(name)


def active_model_dir(data_dir: str | Path | None, bundled: str | Path = REPO_MODELS) -> Path:
    """The folder of the model in use for a data folder (the bundled one by default)."""
    if data_dir is None:
        return Path(bundled)
    return ModelStore(data_dir, bundled).active().path


def edition_status(data_dir: str | Path, edition: str, bundled: str | Path = REPO_MODELS
                   ) -> list[dict[str, Any]]:
    """Each card of ``edition``: ``{"slug", "name", "family", "taught", "state"}``.

    ``state`` is ``known`` (the model in use names it), ``weak`` (the model in use has it but
    could not read it when it was retrained: more photos needed), ``taught`` (the model has no
    class for it but players taught photos of it: read by them as exemplars from the next
    photo where the model has the embedding output, else learnt at the next retraining) or
    ``missing`` (nobody taught it yet).
    """
    from scorer.cards import CARDS, display_name

    if edition not in {e for card in CARDS.values() for e in card.editions}:
        raise ValueError(f"unknown edition {edition!r}: use original, anniversary or party")
    try:
        active = ModelStore(data_dir, bundled).active()
        weak, known = set(active.weak), set(active.classes) - set(active.weak)
    except ModelStoreError:  # no trained model at all: every card is still to teach
        weak, known = set(), set()
    taught = FaceLibrary(data_dir).counts()
    rows = []
    for slug, card in CARDS.items():
        if not card.in_edition(edition):
            continue
        state = "known" if slug in known else "weak" if slug in weak else "taught" if slug in taught else "missing"
        rows.append({"slug": slug, "name": display_name(slug, edition), "family": card.family,
                     "taught": taught.get(slug, 0), "state": state})
    return rows


# --- progress -----------------------------------------------------------------------------

#: why a retraining stopped without deciding (the status file's ``failure``, for the teach page
#: to word): nothing to learn, another one running, a base model that cannot be fine-tuned, an
#: error while it ran, or the process gone before it finished
Failure = Literal["nothing-to-learn", "busy", "no-base", "crashed", "stopped"]
FAILURES: tuple[Failure, ...] = get_args(Failure)


def failure_of(exc: BaseException) -> Failure:
    """The failure an exception that ended a retraining stands for."""
    if isinstance(exc, NothingToLearnError | NothingNewError):
        return "nothing-to-learn"
    if isinstance(exc, RetrainBusyError):
        return "busy"
    if isinstance(exc, ModelStoreError):
        return "no-base"
    return "crashed"



class StatusFile:
    """Progress written as JSON for the web page to poll: ``<data>/models/retrain-status.json``."""

    def __init__(self, data_dir: str | Path):
        self.path = Path(data_dir) / MODELS_DIR / STATUS_FILE
        self.started = time.time()

    def write(self, **fields: Any) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}.part")
        partial.write_text(json.dumps({"pid": os.getpid(), "started": self.started, **fields}))
        os.replace(partial, self.path)

    def __call__(self, stage: str, fraction: float, message: str) -> None:
        self.write(state="running", stage=stage, fraction=round(fraction, 3), message=message)

    def read(self) -> dict[str, Any]:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {"state": "idle"}
