"""``sushicam teach``, ``faces``, ``retrain``, ``models`` and ``eval-teach``.

Teach sushicam cards from photos, retrain from the taught faces and the corrected rounds, and
choose (or roll back) the model in use. Everything lives in the data folder the web app uses
(``--data``, default ``instance/``). Heavy libraries are imported inside the handlers only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from vision.paths import MODELS_DIR as DEFAULT_MODELS
from vision.paths import REPO_ROOT as ROOT

if TYPE_CHECKING:
    from vision.teach.models import StatusFile

DEFAULT_DATA = ROOT / "instance"
#: the detector's fine-tuning epochs ``retrain --detector`` asks for (about 80 s each on two
#: cores with 120 composed photos and 37 confirmed ones)
DETECTOR_EPOCHS = 5


def _data_folder(text: str) -> Path:
    """``--data``: a folder (made on first use), never an existing file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a data folder")
    return path


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is too few: give 1 or more")
    return value


def _data_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=_data_folder, default=DEFAULT_DATA, metavar="DIR",
                        help="the app's data folder (default: instance/, as `sushicam serve`)")


def _bundled_models_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--models", type=Path, default=DEFAULT_MODELS, metavar="DIR",
                        help="the bundled model folder (default models/)")


def register(subparsers: argparse._SubParsersAction) -> None:
    """``teach``, ``faces``, ``retrain``, ``models`` and ``eval-teach``."""
    _register_teaching(subparsers)
    _register_models(subparsers)


def _register_teaching(subparsers: argparse._SubParsersAction) -> None:
    teach = subparsers.add_parser(
        "teach", help="add photos of one card to the taught faces (for decks the model lacks)",
        description="Find the one card in each photo, flatten it and keep it as a face of CARD in "
                    "the data folder; the next photo read with that data folder (the app, `sushicam "
                    "detect --data`) names the card by it, no retraining needed. Take 1-3 photos of each "
                    "card, alone on a plain table, the whole card in the picture. Prints one JSON "
                    "line per face kept. A bad photo (no card, two cards, blurry) is left out with "
                    "one line on stderr saying why, and the others are kept (the 10 sharpest); "
                    "exit status 2 when no photo could be taught.")
    teach.add_argument("photos", nargs="+", type=Path, metavar="PHOTO", help="photos of one card")
    teach.add_argument("--card", required=True, metavar="SLUG",
                       help="the card's name as in spec/cards.md, e.g. gyoza, futomaki-2, mochi")
    _data_arg(teach)
    teach.add_argument("--no-detector", action="store_true",
                       help="find the card by image segmentation only (no trained detector)")
    _bundled_models_arg(teach)
    teach.set_defaults(handler=_teach)

    faces = subparsers.add_parser(
        "faces", help="list the taught faces, and the cards an edition still needs",
        description="List the taught faces; with --edition, also which cards of that edition the "
                    "model in use cannot name yet and nobody taught.")
    _data_arg(faces)
    faces.add_argument("--edition", choices=["original", "anniversary", "party"], default=None)
    faces.add_argument("--remove", metavar="FACE", default=None,
                       help="remove one taught face by name (e.g. gyoza__2)")
    _bundled_models_arg(faces)
    faces.set_defaults(handler=_faces)

    retrain = subparsers.add_parser(
        "retrain", help="learn from the rounds confirmed in the app (and, with the training extra, fine-tune)",
        description="On a player's install (no training extra), or with --exemplars: the cards of the "
                    "rounds confirmed in the app and not learnt from yet become exemplars, kept as a new "
                    "model version only if your other confirmed rounds and the bundled check sample read "
                    "at least as well with them (seconds). With the training extra: compose photos from "
                    "the bundled and taught faces, add the confirmed rounds, fine-tune the model in use, "
                    "compare both on held-out crops and switch to the new model only if it is not worse "
                    "on the cards already known (minutes). The old model stays available (`sushicam "
                    "models rollback`).")
    retrain.add_argument("--exemplars", action="store_true",
                         help="learn by exemplars even where the training extra is installed")
    _data_arg(retrain)
    retrain.add_argument("--photos", type=_positive, default=None, help="composed training photos (default 360)")
    retrain.add_argument("--epochs", type=_positive, default=None, help="fine-tuning epochs (default 6)")
    retrain.add_argument("--base", default=None, metavar="VERSION",
                         help="fine-tune this version instead of the active one")
    retrain.add_argument("--no-switch", action="store_true", help="keep the new version but do not use it")
    retrain.add_argument("--detector", action="store_true",
                         help="fine-tune the detector too, on the composed photos and every box confirmed in "
                              "the app (cards it missed that you added included): kept only if it reads the "
                              f"held-out photos at least as well; {DETECTOR_EPOCHS} epochs, about 8 minutes more")
    retrain.add_argument("--detector-epochs", type=_positive, default=None, metavar="N",
                         help="the detector's fine-tuning epochs (implies --detector)")
    _bundled_models_arg(retrain)
    retrain.add_argument("--status", action="store_true",
                         help="also write progress to <data>/models/retrain-status.json (for the web page)")
    retrain.set_defaults(handler=_retrain)


def _register_models(subparsers: argparse._SubParsersAction) -> None:
    models = subparsers.add_parser(
        "models", help="list the model versions, switch to one, or roll back",
        description="`list` the model versions of the data folder (* marks the one in use), `use "
                    "VERSION` to switch, `rollback` to go back to the one used before.")
    models.add_argument("action", choices=["list", "use", "rollback"])
    models.add_argument("version", nargs="?", default=None)
    _data_arg(models)
    _bundled_models_arg(models)
    models.set_defaults(handler=_models)

    evaluate = subparsers.add_parser(
        "eval-teach", help="measure teaching: hold cards out, teach them from 3 photos, retrain, F1",
        description="Hold some bundled cards out of the model, compose 3 teaching photos of each "
                    "(one card on a table), teach them, retrain, and report card F1 on composed "
                    "test tables for the held-out cards and for the rest, before and after, with "
                    "the time it took.")
    evaluate.add_argument("--hold", nargs="+", default=None, metavar="SLUG",
                          help="cards to hold out (default: eel, onigiri-circle, soy-sauce, uramaki-4)")
    evaluate.add_argument("--work", type=Path, default=ROOT / "datasets" / "build" / "eval-teach",
                          metavar="DIR", help="scratch folder (default datasets/build/eval-teach)")
    evaluate.add_argument("--test-photos", type=_positive, default=120)
    evaluate.add_argument("--photos", type=_positive, default=None, help="composed training photos")
    evaluate.add_argument("--epochs", type=_positive, default=None)
    evaluate.add_argument("--model", type=Path, default=DEFAULT_MODELS, metavar="DIR",
                          help="the model to start from (default models/)")
    evaluate.set_defaults(handler=_eval_teach)


def _read_photo(path: Path):
    import cv2

    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{path}: not an image OpenCV can read")
    return image


def _teach(args: argparse.Namespace) -> int:
    from vision.teach.find import TeachError, card_boxes, check_slug
    from vision.teach.library import FaceLibrary, teach
    from vision.teach.models import active_model_dir

    check_slug(args.card)
    photos, unreadable = [], []
    for path in args.photos:
        try:
            photos.append((str(path), _read_photo(path)))
        except (OSError, ValueError) as exc:
            unreadable.append(str(exc))
    if not photos:  # nothing to teach from: the usual one line, status 2
        raise ValueError("; ".join(unreadable))
    boxes = None if args.no_detector else card_boxes(active_model_dir(args.data, args.models))
    try:
        taught = teach(FaceLibrary(args.data), args.card, photos, boxes)
    except TeachError as exc:  # no photo taught: one line naming every photo and why
        raise type(exc)("; ".join([*unreadable, str(exc)])) from None
    _refresh_exemplars(args.data, args.models)
    for face in taught.faces:
        print(json.dumps({"face": face.name, "card": face.slug, "photo": face.source,
                          "sharpness": face.sharpness, "corners": face.quad}), flush=True)
    # the good photos are kept; each one left out gets its own line, saying why
    for why in unreadable + [f"{name}: {error}" for name, error in taught.refused]:
        print(f"sushicam teach: {why}", file=sys.stderr)
    return 0


def _refresh_exemplars(data: Path, bundled: Path) -> None:
    """The taught faces as exemplars, read from the next photo on (``vision.teach.learn``)."""
    from vision.recognizer import Recognizer
    from vision.teach.learn import refresh_taught
    from vision.teach.models import active_model_dir

    model_dir = active_model_dir(data, bundled)
    recognizer = Recognizer.load(model_dir)
    if getattr(recognizer.classifier, "embeds", False):
        refresh_taught(data, recognizer, model_dir)


def _reads_exemplars(data: Path, bundled: Path) -> bool:
    """Whether the model in use reads taught cards by exemplars (its classifier has the
    embedding output: ``vision.training.embedding``)."""
    from vision.runtime import OnnxClassifier
    from vision.teach.models import active_model_dir

    model_dir = active_model_dir(data, bundled)
    try:
        meta = json.loads((model_dir / "meta.json").read_text())
        return OnnxClassifier(model_dir / meta["classifier"]["file"], threads=1).embeds
    except (OSError, ValueError, KeyError, RuntimeError):  # no usable model: nothing reads them yet
        return False


def _faces(args: argparse.Namespace) -> int:
    from vision.teach.library import FaceLibrary
    from vision.teach.models import edition_status

    library = FaceLibrary(args.data)
    if args.remove:
        library.remove(args.remove)
        _refresh_exemplars(args.data, args.models)
        print(f"removed {args.remove}")
        return 0
    for face in library.faces():
        print(f"{face.name:<28} sharpness {face.sharpness:>6.0f}  from {face.source or '-'}  {face.taught}")
    if args.edition:
        status = edition_status(args.data, args.edition, args.models)
        missing = [row["slug"] for row in status if row["state"] == "missing"]
        taught = [row["slug"] for row in status if row["state"] == "taught"]
        weak = [row["slug"] for row in status if row["state"] == "weak"]
        # a model reading exemplars names a taught card by its photos from the next photo on;
        # one without the embedding output waits for a retrain to learn it
        when = "read from the next photo" if _reads_exemplars(args.data, args.models) else "for the next retrain"
        print(f"{args.edition}: the model in use knows {len(status) - len(missing) - len(taught) - len(weak)} of "
              f"{len(status)} cards"
              + (f"; learnt too poorly to read (teach more photos, retrain): {', '.join(weak)}" if weak else "")
              + (f"; taught, {when}: {', '.join(taught)}" if taught else "")
              + (f"; still to teach: {', '.join(missing)}" if missing else "; nothing missing"))
    return 0


def _progress_bar() -> Callable[[str, float, str], None]:
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def progress(stage: str, fraction: float, message: str) -> None:
        if stage not in ("train",):
            return
        bar = bars.get(stage) or bars.setdefault(stage, tqdm(total=100, desc=stage, unit="%"))
        bar.n = int(fraction * 100)
        bar.set_postfix_str(message)
        bar.refresh()

    return progress


def _missing_training_stack(args: argparse.Namespace, status=None) -> bool:
    """Say so (one line, and in the status file) when torch/ultralytics are not installed."""
    from vision.training import TrainingExtraMissingError, require_training_stack

    try:
        require_training_stack()
    except TrainingExtraMissingError as exc:
        if status:
            status.write(state="failed", message=str(exc))
        print(f"sushicam {args.command}: error: {exc}", file=sys.stderr)
        return True
    return False


def _retrain(args: argparse.Namespace) -> int:
    from vision.teach.models import StatusFile
    from vision.teach.retrain import RetrainPlan, plan_with, retrain
    from vision.teach.wording import retrain_words

    detector_epochs = args.detector_epochs or (DETECTOR_EPOCHS if args.detector else None)
    plan = plan_with(RetrainPlan(), photos=args.photos, epochs=args.epochs, detector_epochs=detector_epochs)
    status = StatusFile(args.data) if args.status else None
    from vision.training import TrainingExtraMissingError, require_training_stack

    try:
        require_training_stack()
    except TrainingExtraMissingError:
        args.exemplars = True  # a player's install: learn by exemplars
    if args.exemplars:
        return _learn_exemplars(args, status)
    bar = _progress_bar()

    def progress(stage: str, fraction: float, message: str) -> None:
        bar(stage, fraction, message)
        if status:
            status(stage, fraction, message)

    try:
        result = retrain(args.data, plan, bundled=args.models, base=args.base, progress=progress,
                         activate=not args.no_switch)
    except BaseException as exc:
        _failed(status, exc)
        raise
    said = retrain_words(result.decision)
    if status:
        status.write(state="done", accepted=result.accepted, version=result.version, message=said,
                     result=result.to_dict())
    print(json.dumps({**result.to_dict(), "reason": said}))
    return 0


def _failed(status: StatusFile | None, exc: BaseException) -> None:
    """A retraining that stopped on ``exc``: its failure in the status file (the page words it)."""
    from vision.teach.models import failure_of

    if status:
        status.write(state="failed", failure=failure_of(exc),
                     message=str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)


def _learn_exemplars(args: argparse.Namespace, status: StatusFile | None) -> int:
    """``retrain`` by exemplars: the confirmed rounds not learnt from yet (``vision.teach.learn``)."""
    from vision.recognizer import Recognizer
    from vision.teach.learn import learn_rounds
    from vision.teach.models import NothingNewError, active_model_dir
    from vision.teach.wording import learn_words

    if status:
        status.write(state="running", stage="exemplars", fraction=0.0, message="learning from your confirmed rounds")
    try:
        recognizer = Recognizer.load(active_model_dir(args.data, args.models), data_dir=args.data)
        learnt = learn_rounds(args.data, recognizer, args.models) if getattr(
            recognizer.classifier, "embeds", False) else None
        if learnt is None:
            raise NothingNewError("nothing new to learn: every confirmed round is learnt from already, and "
                                  "taught cards are read without retraining")
    except BaseException as exc:
        _failed(status, exc)
        raise
    said = learn_words(learnt.decision)
    result = {"version": learnt.version, "accepted": learnt.kept, "decision": learnt.decision.to_json(),
              "reason": said, "base": learnt.parent, "photos": learnt.photos, "cards": learnt.cards,
              "kind": "exemplars"}
    if status:
        status.write(state="done", accepted=learnt.kept, version=learnt.version, message=said, result=result)
    print(json.dumps(result))
    return 0


def _models(args: argparse.Namespace) -> int:
    from vision.teach.models import ModelStore
    from vision.teach.wording import version_line

    store = ModelStore(args.data, args.models)
    if args.action == "list":
        active = store.active().name
        for version in store.versions():
            print(("* " if version.name == active else "  ") + version_line(version))
        return 0
    if args.action == "use":
        if not args.version:
            raise ValueError("which version? `sushicam models use VERSION` (see `sushicam models list`)")
        print(f"now using {store.use(args.version).name}")
        return 0
    if args.version:
        raise ValueError("`sushicam models rollback` takes no version (use `models use VERSION`)")
    print(f"now using {store.rollback().name}")
    return 0


def _eval_teach(args: argparse.Namespace) -> int:
    from vision.teach.evaluate import DEFAULT_HELD_OUT, format_report, run

    if _missing_training_stack(args):
        return 2
    report = run(args.work, hold=tuple(args.hold or DEFAULT_HELD_OUT), model_dir=args.model,
                 test_photos=args.test_photos, photos=args.photos, epochs=args.epochs)
    print(format_report(report))
    target = args.work / "report.json"
    target.write_text(json.dumps(report, indent=1) + "\n")
    print(f"report written to {target}", file=sys.stderr)
    return 0
