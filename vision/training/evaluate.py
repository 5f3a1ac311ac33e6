"""``sushicam eval``: how well the recogniser reads generated test photos.

Per test set: card precision / recall / F1 (a card is found when a detection overlaps its
visible region with IoU >= 0.5 *and* names it right), the rate of seats whose tableau is
read exactly (order aside), stack recall, and milliseconds per photo (recognition and
reading, image decoding excluded). The ``test-print`` set shows the printed scans (never
trained on) for their ten slugs; ``test-digital`` shows only digital faces.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.detections import Detections, box_iou
from vision.seats import split_seats
from vision.stacks import canonical, read_tableau, stacks_of
from vision.synth.dataset import RECIPES, generate, load_truths


def match_cards(pred: Detections, truth_cards: list[dict], iou: float = 0.5):
    """Greedy one-to-one matching by IoU; returns (pairs (i_pred, j_truth), ious)."""
    visible = [c for c in truth_cards if not c["hidden"]]
    if not len(pred) or not visible:
        return [], visible
    ious = box_iou(pred.xyxy, np.array([c["box"] for c in visible]))
    pairs, used_p, used_t = [], set(), set()
    for flat in np.argsort(-ious, axis=None):
        i, j = np.unravel_index(flat, ious.shape)
        if ious[i, j] < iou:
            break
        if i in used_p or j in used_t:
            continue
        used_p.add(i)
        used_t.add(j)
        pairs.append((int(i), int(j)))
    return pairs, visible


def card_f1(right: int, predicted: int, truth: int) -> tuple[float, float, float]:
    """Card precision, recall and F1 from the cards named right (matched and the right name),
    the cards the model read and the cards really there; 0 where a count is 0.

    >>> card_f1(3, 4, 6)
    (0.75, 0.5, 0.6)
    """
    precision = right / predicted if predicted else 0.0
    recall = right / truth if truth else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _multiset_hits(truth: list, got: list) -> int:
    left = Counter(tuple(s) for s in got)
    hits = 0
    for stack in truth:
        if left[tuple(stack)] > 0:
            left[tuple(stack)] -= 1
            hits += 1
    return hits


def evaluate_photos(recognizer, root: Path, truths: list[dict], name: str) -> dict:
    groups = {"all": Counter(), "one seat": Counter(), "2-5 seats": Counter()}
    confusions = Counter()
    times = []
    for truth in tqdm(truths, desc=f"eval {name}", unit="photo"):
        counts = Counter()
        image = cv2.imread(str(root / truth["image"]), cv2.IMREAD_COLOR)
        n_seats = len(truth["seats"])
        start = time.perf_counter()
        pred = recognizer.detect(image)
        seats = split_seats(pred, n_seats=n_seats)
        tableaux = [read_tableau(s) for s in seats]
        times.append(time.perf_counter() - start)

        pairs, visible = match_cards(pred, truth["cards"])
        labels = pred.labels
        right = sum(labels[i] == visible[j]["label"] for i, j in pairs)
        for i, j in pairs:
            if labels[i] != visible[j]["label"]:
                confusions[f"{visible[j]['label']} -> {labels[i]}"] += 1
        counts["tp"] += right
        counts["pred"] += len(pred)
        counts["truth"] += len(visible)
        counts["found_regions"] += len(pairs)
        for seat in truth["seats"]:
            got = tableaux[seat["seat"]]
            counts["seats"] += 1
            counts["exact"] += canonical(got) == canonical(seat["tableau"])
            true_stacks = stacks_of(seat["tableau"])
            counts["stacks"] += len(true_stacks)
            counts["stacks_found"] += _multiset_hits(true_stacks, stacks_of(got))
            counts["stacks_read"] += len(stacks_of(got))
        # the reading logic alone, from the truth's own boxes and labels
        truth_dets = Detections(np.array([c["box"] for c in visible]).reshape(-1, 4),
                                data={"label": np.array([c["label"] for c in visible])})
        for seat, part in zip(truth["seats"], split_seats(truth_dets, n_seats=n_seats), strict=True):
            counts["exact_from_truth_boxes"] += canonical(read_tableau(part)) == canonical(seat["tableau"])
        groups["all"].update(counts)
        groups["one seat" if n_seats == 1 else "2-5 seats"].update(counts)
    result = _summary(groups["all"], name, len(truths), times)
    result["top_confusions"] = dict(confusions.most_common(10))
    result["by_seats"] = {
        group: _summary(groups[group], f"{name} ({group})",
                        sum((len(t["seats"]) == 1) == (group == "one seat") for t in truths), None)
        for group in ("one seat", "2-5 seats")
    }
    return result


def _summary(counts: Counter, name: str, photos: int, times) -> dict:
    precision, recall, f1 = card_f1(counts["tp"], counts["pred"], counts["truth"])
    return {
        "set": name,
        "photos": photos,
        "cards": counts["truth"],
        "card_precision": round(precision, 4),
        "card_recall": round(recall, 4),
        "card_f1": round(f1, 4),
        "region_recall": round(counts["found_regions"] / max(counts["truth"], 1), 4),
        "label_accuracy": round(counts["tp"] / max(counts["found_regions"], 1), 4),
        "seats": counts["seats"],
        "exact_tableau": round(counts["exact"] / max(counts["seats"], 1), 4),
        "exact_tableau_from_truth_boxes": round(counts["exact_from_truth_boxes"] / max(counts["seats"], 1), 4),
        "stacks": counts["stacks"],
        "stack_recall": round(counts["stacks_found"] / max(counts["stacks"], 1), 4),
        "stack_precision": round(counts["stacks_found"] / max(counts["stacks_read"], 1), 4),
        "ms_per_photo": round(1000 * float(np.mean(times)), 1) if times else None,
        "ms_per_photo_p95": round(1000 * float(np.percentile(times, 95)), 1) if times else None,
    }


def evaluate_sets(model_dir: Path, sets: list[str], data_root: Path, limit: int | None = None) -> dict:
    from vision.recognizer import Recognizer

    for name in sets:
        if name not in RECIPES:
            raise ValueError(f"unknown test set {name!r}: use one of {', '.join(RECIPES)}")
    recognizer = Recognizer.load(model_dir)
    results = []
    for name in sets:
        root = generate(RECIPES[name], Path(data_root) / name)
        truths = load_truths(root, "val")[:limit]
        results.append(evaluate_photos(recognizer, root, truths, name))
    return {"model": str(model_dir), "results": results}


COLUMNS = (("set", "set"), ("photos", "photos"), ("card_f1", "card F1"), ("card_precision", "P"),
           ("card_recall", "R"), ("label_accuracy", "label acc"), ("exact_tableau", "exact tableau"),
           ("stack_recall", "stacks"), ("ms_per_photo", "ms/photo"))


def format_table(report: dict) -> str:
    rows = [[title for _, title in COLUMNS]]
    for result in report["results"]:
        for row in (result, *result.get("by_seats", {}).values()):
            rows.append([str(row.get(key, "")) for key, _ in COLUMNS])
    widths = [max(len(r[k]) for r in rows) for k in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for result in report["results"]:
        if result["top_confusions"]:
            top = ", ".join(f"{k} x{v}" for k, v in list(result["top_confusions"].items())[:5])
            lines.append(f"{result['set']}: most confused: {top}")
    return "\n".join(lines)
