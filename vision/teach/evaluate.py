"""``sushicam eval-teach``: does teaching work? Hold cards out, teach them, retrain, measure.

No photo of an unknown deck exists here, so the experiment plays one with bundled cards:

1. **before**: the bundled model with the held-out cards' outputs removed, so it cannot name
   them (its features did see them in training: see the caveat in the report);
2. **teach**: three composed photos of each held-out card alone on a table (perspective,
   light, clutter) go through :func:`vision.teach.library.teach`, as a player's photos would;
3. **retrain**: :func:`vision.teach.retrain.retrain` with the held-out cards' bundled faces hidden
   from the generator, so the taught faces are all it learns them from;
4. **measure**: card F1 (IoU >= 0.5 and the right name) on composed test tables drawn with the
   true digital faces, for the held-out cards and for the rest, before and after.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import cv2
from tqdm import tqdm

DEFAULT_HELD_OUT = ("eel", "onigiri-circle", "soy-sauce", "uramaki-4")
TEACH_PHOTOS = 3


def _before_model(model_dir: Path, hold: tuple[str, ...], store, work: Path) -> str:
    """The bundled model minus ``hold``'s outputs, stored as a version and made active."""
    from vision.training.classifier import export_classifier, widen_classifier

    meta = json.loads((model_dir / "meta.json").read_text())
    classes = [c for c in meta["classes"] if c not in hold]
    with store.staging() as staging:
        widen_classifier(model_dir / "classifier.pt", staging / "classifier.pt", classes)
        export_classifier(staging / "classifier.pt", int(meta["classifier"]["imgsz"]), staging / "classifier.onnx")
        for name in ("detector.onnx", "detector.pt"):
            if (model_dir / name).exists():
                shutil.copyfile(model_dir / name, staging / name)
        meta["classes"] = classes
        (staging / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
        (staging / "version.json").write_text(json.dumps(
            {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "kind": "held-out",
             "parent": "bundled", "held_out": list(hold)}) + "\n")
        version = store.commit(staging)
    store.use(version.name)
    return version.name


def teach_photos(hold: tuple[str, ...], boxes, library, seed: int = 90_000) -> dict[str, Any]:
    """Compose photos of each held-out card alone and teach them until 3 each are taken."""
    from vision.synth import compose_table
    from vision.teach.find import TeachError
    from vision.teach.library import TaughtFace, teach

    refused: Counter[str] = Counter()
    taught = {}
    for k, slug in enumerate(hold):
        faces: list[TaughtFace] = []
        for attempt in range(12):
            if len(faces) == TEACH_PHOTOS:
                break
            image, _ = compose_table(seed + 100 * k + attempt, [[slug]], size=(1280, 960))
            try:
                faces += teach(library, slug, [(f"{slug}-{attempt}.jpg", image)], boxes).faces
            except TeachError as exc:
                refused[type(exc).__name__] += 1
        taught[slug] = len(faces)
    return {"taught": taught, "refused": dict(refused)}


def compose_test_tables(folder: Path, hold: tuple[str, ...], count: int, seed: int = 80_000) -> list[dict]:
    """Composed test tables (true digital faces), the held-out cards four times as likely."""
    from vision.synth import compose_table

    folder.mkdir(parents=True, exist_ok=True)
    truths = []
    for i in tqdm(range(count), desc="compose test tables", unit="photo"):
        path = folder / f"t{i:04d}.json"
        if path.exists():
            truths.append(json.loads(path.read_text()))
            continue
        image, truth = compose_table(seed + i, faces="digital", slug_weights={s: 4.0 for s in hold})
        truth["image"] = f"t{i:04d}.jpg"
        cv2.imwrite(str(folder / truth["image"]), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        path.write_text(json.dumps(truth))
        truths.append(truth)
    return truths


def card_f1(model_dir: Path, folder: Path, truths: list[dict], hold: tuple[str, ...]) -> dict[str, Any]:
    """Card precision / recall / F1 (and names right when found) for the held-out cards and the rest."""
    from vision.teach.retrain import read_tables, score_tables

    read = read_tables(model_dir, folder, tqdm(truths, desc=f"read with {model_dir.name}", unit="photo"))
    rest = {label for _, visible, _ in read for label in (c["label"] for c in visible)} - set(hold)
    rest |= {label for labels, _, _ in read for label in labels} - set(hold)
    return {"held": asdict(score_tables(read, set(hold))), "rest": asdict(score_tables(read, rest))}


def run(work: Path, hold: tuple[str, ...] = DEFAULT_HELD_OUT, model_dir: Path | None = None,
        test_photos: int = 120, photos: int | None = None, epochs: int | None = None) -> dict[str, Any]:
    from vision.faces import SLUGS
    from vision.teach.find import card_boxes
    from vision.teach.library import FaceLibrary
    from vision.teach.models import REPO_MODELS, ModelStore
    from vision.teach.retrain import RetrainPlan, cpu_seconds, plan_with, retrain
    from vision.teach.wording import retrain_words

    unknown = [s for s in hold if s not in SLUGS or s == "card-back"]
    if unknown:
        raise ValueError(f"cannot hold out {', '.join(unknown)}: hold out bundled card faces")
    model_dir = Path(model_dir or REPO_MODELS)
    work = Path(work)
    data = work / "data"
    shutil.rmtree(data, ignore_errors=True)  # a fresh player: no faces, no corrections
    store = ModelStore(data, model_dir)
    before = _before_model(model_dir, hold, store, work)

    started, cpu_started = time.time(), cpu_seconds()
    boxes = card_boxes(store.active().path)
    teaching = teach_photos(hold, boxes, FaceLibrary(data))
    teach_wall, teach_cpu = time.time() - started, cpu_seconds() - cpu_started

    plan = plan_with(RetrainPlan(hidden=hold), photos=photos, epochs=epochs)
    result = retrain(data, plan, bundled=model_dir, keep_refused=True)  # measured even if refused

    truths = compose_test_tables(work / "test", hold, test_photos)
    scores = {"before": card_f1(store.get(before).path, work / "test", truths, hold)}
    if result.version:
        scores["after"] = card_f1(store.get(result.version).path, work / "test", truths, hold)
    return {
        "held_out": list(hold),
        "teaching": teaching,
        "retrain": {"accepted": result.accepted, "reason": retrain_words(result.decision),
                    "decision": result.decision.to_json(), "version": result.version,
                    "wall_min": round(result.wall_s / 60, 1), "cpu_min": round(result.cpu_s / 60, 1),
                    "classifier_val": result.metrics},
        "teach_wall_s": round(teach_wall, 1), "teach_cpu_s": round(teach_cpu, 1),
        "test_photos": len(truths),
        "card_f1": scores,
        "caveat": "the 'before' model lost only its output rows for the held-out cards; its "
                  "features were trained on them, so this is a lower bound on the difficulty of "
                  "a truly unseen deck",
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [f"held out: {', '.join(report['held_out'])}; taught "
             + ", ".join(f"{k} x{v}" for k, v in report["teaching"]["taught"].items())
             + (f"; photos refused: {report['teaching']['refused']}" if report["teaching"]["refused"] else ""),
             f"retrain: {report['retrain']['wall_min']} min wall, {report['retrain']['cpu_min']} CPU min; "
             f"{'switched' if report['retrain']['accepted'] else 'refused'}: {report['retrain']['reason']}",
             f"{'card F1':<10}{'held-out':>34}{'the rest':>34}"]
    for when, scores in report["card_f1"].items():
        cells = [f"{s['f1']:.3f} (P {s['precision']:.2f} R {s['recall']:.2f} named {s['named']:.2f})"
                 for s in (scores["held"], scores["rest"])]
        lines.append(f"{when:<10}{cells[0]:>34}{cells[1]:>34}")
    lines.append("named: share of the cards the detector found (IoU >= 0.5) that got the right name")
    lines.append(f"on {report['test_photos']} composed test tables "
                 f"({report['card_f1']['before']['held']['cards']} held-out cards, "
                 f"{report['card_f1']['before']['rest']['cards']} others)")
    return "\n".join(lines)
