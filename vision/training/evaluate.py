"""``sushicam eval``: how well the recogniser reads generated test photos.

Per test set: card precision / recall / F1 (a card is found when a detection overlaps its
visible region with IoU >= 0.5 *and* names it right), the rate of seats whose tableau is
read exactly (order aside), stack recall, and milliseconds per photo (recognition and
reading, image decoding excluded). The ``test-print`` set shows the printed scans (never
trained on) for their ten slugs; ``test-digital`` shows only digital faces.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from scorer.cards import CARDS
from vision.boxes import greedy_matching, iou_matrix
from vision.detections import LABEL, TILT, Detections
from vision.faces import SLUGS
from vision.seats import split_seats
from vision.stacks import canonical, read_tableau, stacks_of
from vision.synth.dataset import RECIPES, generate, load_truths
from vision.tilts import card_tilts


def match_cards(pred: Detections, truth_cards: list[dict], iou: float = 0.5):
    """Greedy one-to-one matching by IoU; returns (pairs (i_pred, j_truth), ious)."""
    visible = [c for c in truth_cards if not c["hidden"]]
    if not len(pred) or not visible:
        return [], visible
    ious = iou_matrix(pred.xyxy, [c["box"] for c in visible])
    return greedy_matching(ious, iou), visible


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


def fruit_group(card: dict) -> str | None:
    """The group a fruit card's reading is reported in: its pair (``same`` fruit or
    ``mixed``) and how its print lays the icons out (the truth's ``layout``; the faces'
    own where the truth does not say: a same-fruit pair stacked, a mixed pair side by side);
    None for a card that is no fruit card.

    >>> fruit_group({"label": "fruit-orange-orange"}), fruit_group({"label": "fruit-pineapple-orange", "layout": "stacked"})
    ('same, stacked', 'mixed, stacked')
    >>> fruit_group({"label": "eel"}) is None
    True
    """
    parts = card["label"].split("-")
    if parts[0] != "fruit" or len(parts) != 3:
        return None
    same = parts[1] == parts[2]
    layout = card.get("layout") or ("stacked" if same else "side")
    return f"{'same' if same else 'mixed'}, {layout}"


def _fruit_counts(labels, pairs, visible: list[dict], counts: Counter) -> None:
    """Count into ``counts`` each found fruit card (``fruit <group> found``) and each named
    right (``fruit <group> right``), by :func:`fruit_group`."""
    for i, j in pairs:
        group = fruit_group(visible[j])
        if group is not None:
            counts[f"fruit {group} found"] += 1
            counts[f"fruit {group} right"] += labels[i] == visible[j]["label"]


def fruit_accuracy(counts: Counter) -> dict:
    """Of the fruit cards found, the share named right, by :func:`fruit_group` and in all
    (``{group: {"found", "right", "accuracy"}}``); empty where no fruit card was found."""
    groups = sorted({key[len("fruit "):-len(" found")] for key in counts if key.startswith("fruit ")
                     and key.endswith(" found")})
    out = {}
    for group in [*groups, "all"] if groups else []:
        keys = groups if group == "all" else [group]
        found = sum(counts[f"fruit {g} found"] for g in keys)
        right = sum(counts[f"fruit {g} right"] for g in keys)
        out[group] = {"found": found, "right": right, "accuracy": round(right / max(found, 1), 4)}
    return out


def _mark_families() -> dict[str, tuple[str, ...]]:
    """The kinds of the rulebook (``scorer.cards``) with more than one face among the faces
    the classifier names (``vision.faces.SLUGS``): each a family whose faces differ by one
    small printed mark (the two fruit, the onigiri's shape, the count of rolls, the fish)."""
    kinds: dict[str, list[str]] = {}
    for slug in SLUGS:
        if slug in CARDS:
            kinds.setdefault(CARDS[slug].kind, []).append(slug)
    return {kind: tuple(faces) for kind, faces in kinds.items() if len(faces) > 1}


#: the families whose kinds differ by a small printed mark, each reported apart as the share
#: of its cards found that are named as their own kind
MARK_FAMILIES: dict[str, tuple[str, ...]] = _mark_families()
_FAMILY_OF = {face: name for name, faces in MARK_FAMILIES.items() for face in faces}


def _family_counts(labels, pairs, visible: list[dict], counts: Counter) -> None:
    """Count into ``counts`` each found card of a :data:`MARK_FAMILIES` family (``family
    <name> found``) and each named as its own kind (``family <name> right``)."""
    for i, j in pairs:
        family = _FAMILY_OF.get(visible[j]["label"])
        if family is not None:
            counts[f"family {family} found"] += 1
            counts[f"family {family} right"] += labels[i] == visible[j]["label"]


def family_accuracy(counts: Counter) -> dict:
    """Of each :data:`MARK_FAMILIES` family's cards found, the share named as their own kind
    (``{family: {"found", "right", "accuracy"}}``, the families with a card found)."""
    return {name: {"found": counts[f"family {name} found"], "right": counts[f"family {name} right"],
                   "accuracy": round(counts[f"family {name} right"] / counts[f"family {name} found"], 4)}
            for name in MARK_FAMILIES if counts[f"family {name} found"]}


def _multiset_hits(truth: list, got: list) -> int:
    left = Counter(tuple(s) for s in got)
    hits = 0
    for stack in truth:
        if left[tuple(stack)] > 0:
            left[tuple(stack)] -= 1
            hits += 1
    return hits


def photo_group(truth: dict) -> str:
    """The subgroup a photo is reported in: the truth's own ``group`` (independent sets name
    theirs: one tableau, 2-5 seats, 6-8 seats, rectangular, close-up), else by seats."""
    if truth.get("group"):
        return truth["group"]
    return "one seat" if len(truth["seats"]) == 1 else "2-8 seats"


def evaluate_photos(recognizer, root: Path, truths: list[dict], name: str, readings: list | None = None) -> dict:
    """The figures of one set; each prediction's scores and whether it was right are appended
    to ``readings`` when given (for the "unsure" report)."""
    groups: dict[str, Counter[str]] = {"all": Counter()}
    confusions: Counter[str] = Counter()
    times = []
    for truth in tqdm(truths, desc=f"eval {name}", unit="photo"):
        counts: Counter[str] = Counter()
        image = cv2.imread(str(root / truth["image"]), cv2.IMREAD_COLOR)
        n_seats = len(truth["seats"])
        start = time.perf_counter()
        pred = recognizer.detect(image)
        seats = split_seats(pred.with_data(index=np.arange(len(pred))), n_seats=n_seats)
        tableaux = [read_tableau(s) for s in seats]
        times.append(time.perf_counter() - start)
        pred_seat = np.full(len(pred), -1)
        for s, part in enumerate(seats):
            pred_seat[part.data.get("index", np.zeros(0)).astype(int)] = s

        pairs, visible = match_cards(pred, truth["cards"])
        labels = pred.labels
        right = sum(labels[i] == visible[j]["label"] for i, j in pairs)
        for i, j in pairs:
            if labels[i] != visible[j]["label"]:
                confusions[f"{visible[j]['label']} -> {labels[i]}"] += 1
        counts["tp"] += right
        _fruit_counts(labels, pairs, visible, counts)
        _family_counts(labels, pairs, visible, counts)
        # a card is also in its right seat when the photo's split put it with its player's
        # tableau (only truths that know each card's seat can say)
        if all("seat" in visible[j] for _, j in pairs):
            counts["tp_seat"] += sum(labels[i] == visible[j]["label"] and pred_seat[i] == visible[j]["seat"]
                                     for i, j in pairs)
            counts["seat_known"] += 1
        counts["pred"] += len(pred)
        counts["truth"] += len(visible)
        counts["found_regions"] += len(pairs)
        if readings is not None:
            _record_readings(pred, pairs, visible, readings)
        if truth.get("kind") == "closeup":
            counts["closeups"] += 1
            counts["closeups_right"] += (right == len(visible) == len(pred))
        counts["photos_exact"] += _count_seats(truth, tableaux, counts)
        _count_from_truth_boxes(image, truth, visible, counts)
        groups["all"].update(counts)
        groups.setdefault(photo_group(truth), Counter()).update(counts)
    result = _summary(groups["all"], name, len(truths), times)
    result["top_confusions"] = dict(confusions.most_common(10))
    names = [g for g in groups if g != "all"]
    if not any(t.get("group") for t in truths):
        names = ["one seat", "2-8 seats"]
    result["by_seats"] = {
        group: _summary(groups.get(group, Counter()), f"{name} ({group})",
                        sum(photo_group(t) == group for t in truths), None)
        for group in names
    }
    return result


def _record_readings(pred: Detections, pairs: list, visible: list[dict], readings: list) -> None:
    """Each prediction's scores and whether it named its card right (the "unsure" report)."""
    matched = dict(pairs)
    labels = pred.labels
    for i in range(len(pred)):
        ok = i in matched and labels[i] == visible[matched[i]]["label"]
        readings.append({"right": bool(ok), "confidence": float(pred.confidence[i]),
                         **{k: float(pred.data[k][i]) for k in ("label_score", "label_margin", "region_score")
                            if k in pred.data}})


def _count_seats(truth: dict, tableaux: list, counts: Counter[str]) -> bool:
    """Count each seat read exactly and its stacks found into ``counts``; whether every seat
    of the photo was read exactly.

    A seat one of whose cards lies wholly under others (the truth marks it hidden) cannot be
    read exactly from the photo by anyone: the figure over the other seats is the one a
    reader can reach."""
    photo_exact = True
    covered_seats = {c.get("seat") for c in truth["cards"] if c["hidden"]}
    if None in covered_seats:  # a truth that does not say whose card is hidden
        covered_seats = {seat["seat"] for seat in truth["seats"]}
    for seat in truth["seats"]:
        got = tableaux[seat["seat"]]
        counts["seats"] += 1
        exact = canonical(got) == canonical(seat["tableau"])
        counts["exact"] += exact
        if seat["seat"] not in covered_seats:
            counts["seats_shown"] += 1
            counts["exact_shown"] += exact
        photo_exact &= exact
        true_stacks = stacks_of(seat["tableau"])
        counts["stacks"] += len(true_stacks)
        counts["stacks_found"] += _multiset_hits(true_stacks, stacks_of(got))
        counts["stacks_read"] += len(stacks_of(got))
    return photo_exact


def _count_from_truth_boxes(image: np.ndarray, truth: dict, visible: list[dict], counts: Counter[str]) -> None:
    """The reading logic alone: seats read exactly from the truth's own boxes and labels (and
    the tilts the photo shows in them, as the recogniser reads them)."""
    truth_boxes = np.array([c["box"] for c in visible], np.float64).reshape(-1, 4)
    truth_dets = Detections(truth_boxes, data={LABEL: np.array([c["label"] for c in visible]),
                                               TILT: card_tilts(image, truth_boxes)})
    for seat, part in zip(truth["seats"], split_seats(truth_dets, n_seats=len(truth["seats"])), strict=True):
        counts["exact_from_truth_boxes"] += canonical(read_tableau(part)) == canonical(seat["tableau"])


def _summary(counts: Counter, name: str, photos: int, times) -> dict:
    precision, recall, f1 = card_f1(counts["tp"], counts["pred"], counts["truth"])
    extra: dict[str, Any] = {}
    if counts["seat_known"]:
        extra["card_f1_seats"] = round(card_f1(counts["tp_seat"], counts["pred"], counts["truth"])[2], 4)
    if counts["closeups"]:
        extra["closeups_right"] = round(counts["closeups_right"] / counts["closeups"], 4)
    fruit = fruit_accuracy(counts)
    if fruit:
        extra["fruit_accuracy"] = fruit
    families = family_accuracy(counts)
    if families:
        extra["family_accuracy"] = families
    return {**extra,
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
        "seats_all_shown": counts["seats_shown"],
        "exact_tableau_all_shown": round(counts["exact_shown"] / max(counts["seats_shown"], 1), 4),
        "exact_photos": round(counts["photos_exact"] / max(photos, 1), 4),
        "exact_tableau_from_truth_boxes": round(counts["exact_from_truth_boxes"] / max(counts["seats"], 1), 4),
        "stacks": counts["stacks"],
        "stack_recall": round(counts["stacks_found"] / max(counts["stacks"], 1), 4),
        "stack_precision": round(counts["stacks_found"] / max(counts["stacks_read"], 1), 4),
        "ms_per_photo": round(1000 * float(np.mean(times)), 1) if times else None,
        "ms_per_photo_p95": round(1000 * float(np.percentile(times, 95)), 1) if times else None,
    }


def evaluate_sets(model_dir: Path, sets: list[str], data_root: Path, limit: int | None = None,
                  unsure: bool = False) -> dict:
    from vision.recognizer import Recognizer

    sets = expand_sets(sets)
    recognizer = Recognizer.load(model_dir)
    results = []
    readings: list[dict] | None = [] if unsure else None
    for name in sets:
        root = build_set(name, Path(data_root) / name, limit)
        truths = load_truths(root, "val")[:limit]
        results.append(evaluate_photos(recognizer, root, truths, name, readings))
    report: dict[str, Any] = {"model": str(model_dir), "results": results}
    if readings is not None:
        report["unsure"] = unsure_report(readings)
        report["unsure_calibrated"] = calibrate_unsure(readings)
    return report


def unsure_rates(readings: list[dict], rule) -> dict:
    """Of the cards a recogniser reported, the share of wrong ones (misnamed, or no card
    there) and of right ones that ``rule(reading)`` marks unsure."""
    wrong = [r for r in readings if not r["right"]]
    right = [r for r in readings if r["right"]]
    marked_wrong = sum(bool(rule(r)) for r in wrong)
    marked_right = sum(bool(rule(r)) for r in right)
    return {"wrong": len(wrong), "wrong_marked": marked_wrong,
            "wrong_marked_rate": round(marked_wrong / max(len(wrong), 1), 4),
            "right": len(right), "right_marked": marked_right,
            "right_marked_rate": round(marked_right / max(len(right), 1), 4)}


def unsure_report(readings: list[dict]) -> dict:
    """The rates of ``vision.unsure.is_unsure`` and of the rule before it (confidence < 0.5)."""
    from vision.unsure import is_unsure

    return {
        "before (confidence < 0.5)": unsure_rates(readings, lambda r: r["confidence"] < 0.5),
        "now (vision.unsure.is_unsure)": unsure_rates(
            readings, lambda r: is_unsure(r["confidence"], r.get("label_margin"))),
    }


def calibrate_unsure(readings: list[dict], most_right: float = 0.1) -> dict:
    """The thresholds of ``vision.unsure.is_unsure`` (confidence, margin between the two best
    names) that mark the most wrong cards while marking at most ``most_right`` of right ones
    (ties: fewer right ones marked). Calibrate on ``field-calib``, never on a test set."""
    from vision.unsure import is_unsure

    best = None
    for conf in np.round(np.arange(0.3, 0.96, 0.025), 3):
        for margin in np.round(np.arange(0.0, 0.91, 0.025), 3):
            rates = unsure_rates(readings, lambda r, c=conf, m=margin: is_unsure(
                r["confidence"], r.get("label_margin"), min_confidence=c, min_margin=m))
            if rates["right_marked_rate"] > most_right:
                continue
            key = (rates["wrong_marked_rate"], -rates["right_marked_rate"])
            if best is None or key > best[0]:
                best = (key, {"min_confidence": float(conf), "min_margin": float(margin), **rates})
    return best[1] if best else {}


def format_unsure(report: dict) -> str:
    lines = ["unsure mark: wrong cards marked / right cards marked"]
    for rule, r in report.items():
        lines.append(f"  {rule}: {r['wrong_marked']}/{r['wrong']} wrong ({100 * r['wrong_marked_rate']:.1f} %), "
                     f"{r['right_marked']}/{r['right']} right ({100 * r['right_marked_rate']:.1f} %)")
    return "\n".join(lines)


def bench_read(model_dir: Path, photos: int = 6, threads: int = 2) -> list[dict]:
    """Milliseconds per photo (recognition, seat split and tableau reading) at 1280x960 (one
    tableau) and 4032x3024 (a 2-5-seat table), the two sizes a reading time is promised for,
    and for a 6-8-seat table at 2016x1512 (small cards: the detector's second, closer look),
    on photos of the independent renderer (rendered in memory)."""
    from vision.fieldtest.render import render_photo
    from vision.recognizer import Recognizer

    recognizer = Recognizer.load(model_dir, threads=threads)
    rows = []
    for size, kind in (((1280, 960), "tableau"), ((4032, 3024), "table"), ((2016, 1512), "crowd")):
        images = [render_photo(900_000 + i, kind, size) for i in range(photos)]
        recognizer.detect(images[0][0])  # warm-up: the first run allocates
        times = []
        for image, truth in images:
            start = time.perf_counter()
            pred = recognizer.detect(image)
            for part in split_seats(pred, n_seats=len(truth["seats"])):
                read_tableau(part)
            times.append(time.perf_counter() - start)
        rows.append({"size": f"{size[0]}x{size[1]}", "kind": kind, "photos": photos, "threads": threads,
                     "ms_mean": round(1000 * float(np.mean(times)), 1),
                     "ms_p95": round(1000 * float(np.percentile(times, 95)), 1)})
    return rows


def expand_sets(sets: list[str]) -> list[str]:
    """Set names with families (``field``) spelt out; an unknown name is a ``ValueError``."""
    from vision.fieldtest.sets import FAMILIES, FIELD_SETS

    out = []
    for name in sets:
        for member in FAMILIES.get(name, (name,)):
            if member not in RECIPES and member not in FIELD_SETS:
                known = [*RECIPES, *FIELD_SETS, *FAMILIES]
                raise ValueError(f"unknown test set {member!r}: use one of {', '.join(known)}")
            if member not in out:
                out.append(member)
    return out


def build_set(name: str, root: Path, limit: int | None = None) -> Path:
    """Render a test set once: the training renderer's recipes (their first ``limit`` photos
    only, when given: photo i is the same whatever the count), or the independent renderer's
    ``field-*`` sets (``vision.fieldtest``, which training never uses)."""
    if name in RECIPES:
        recipe = RECIPES[name]
        if limit is not None and limit < recipe.val:
            recipe = dataclasses.replace(recipe, val=limit)
        return generate(recipe, root)
    from vision.fieldtest.sets import build

    return build(name, root)


COLUMNS = (("set", "set"), ("photos", "photos"), ("card_f1", "card F1"), ("card_f1_seats", "F1 in seat"),
           ("card_precision", "P"), ("card_recall", "R"), ("label_accuracy", "label acc"),
           ("exact_tableau", "exact tableau"), ("exact_tableau_all_shown", "exact (all shown)"),
           ("exact_photos", "exact photos"), ("stack_recall", "stacks"),
           ("closeups_right", "close-up right"), ("ms_per_photo", "ms/photo"))


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
    for key, title in (("fruit_accuracy", "fruit cards named right"),
                       ("family_accuracy", "kinds told by a mark, named right")):
        for result in report["results"]:
            if groups := result.get(key):
                parts = ", ".join(f"{name} {row['right']}/{row['found']} ({100 * row['accuracy']:.1f} %)"
                                  for name, row in groups.items())
                lines.append(f"{result['set']}: {title}: {parts}")
    return "\n".join(lines)
