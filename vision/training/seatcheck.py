"""Why seats are read wrong from a test set's own boxes: ``python -m vision.training.seatcheck ROOT...``.

``sushicam eval`` reports ``exact_tableau_from_truth_boxes``: the truth's boxes and labels
through ``split_seats`` and ``read_tableau``. This says, per photo, which seats fail and why:

- ``group``: the split gave the seat other cards than its player's (``+`` cards of another
  seat, ``-`` its own cards elsewhere);
- ``turn``: the right cards, read wrong at the turn the split gave, right at the player's own;
- ``hidden``: the right cards read wrong, and a card of the tableau is hidden under others in
  the photo (no reading of the boxes can find it);
- ``read``: the right cards read wrong even at the player's own turn (columns or stacks).

The player's own turn is the truth's ``angle`` (our renderer), or the direction from the
tableau's cards to ``player_xy`` (the independent renderer).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from vision.detections import LABEL, TILT, Detections
from vision.seats import angle_towards, split_seats
from vision.stacks import canonical, read_tableau
from vision.synth.dataset import load_truths
from vision.tilts import card_tilts


def true_turn(seat: dict, boxes: np.ndarray) -> float | None:
    """The turn the seat's player sits at, from the truth (None where it cannot say)."""
    if "angle" in seat:
        return float(seat["angle"]) % 360
    if "player_xy" not in seat or not len(boxes):
        return None
    middle = ((boxes[:, :2] + boxes[:, 2:]) / 2).mean(0)
    return angle_towards(np.asarray(seat["player_xy"], float) - middle)


def seat_failures(truth: dict, image: np.ndarray | None = None) -> list[tuple[int, str, str]]:
    """``(seat, cause, detail)`` for each seat of one photo not read exactly from its own boxes
    (and, given the ``image``, the tilts it shows in them, as ``sushicam eval`` reads them)."""
    visible = [c for c in truth["cards"] if not c["hidden"]]
    boxes = np.array([c["box"] for c in visible], float).reshape(-1, 4)
    owner = np.array([c.get("seat", 0) for c in visible], int)
    data = {LABEL: np.array([c["label"] for c in visible]), "index": np.arange(len(visible))}
    if image is not None:
        data[TILT] = card_tilts(image, boxes)
    detections = Detections(boxes, data=data)
    failures = []
    for s, part in enumerate(split_seats(detections, n_seats=len(truth["seats"]))):
        seat = truth["seats"][s]
        want = canonical(seat["tableau"])
        if canonical(read_tableau(part)) == want:
            continue
        got = set(part.data["index"].astype(int).tolist()) if len(part) else set()
        own = set(np.flatnonzero(owner == s).tolist())
        if got != own:
            failures.append((s, "group", f"+{sorted(got - own)} -{sorted(own - got)}"))
            continue
        turn = float(part.data["seat_angle"][0]) if len(part) else 0.0
        hidden = any(c["hidden"] and c.get("seat", 0) == s for c in truth["cards"])
        player = true_turn(seat, boxes[sorted(own)])
        if player is not None and canonical(read_tableau(part, player)) == want:
            failures.append((s, "turn", f"read at {turn:.0f}, the player sits at {player:.0f}"))
        else:
            failures.append((s, "hidden" if hidden else "read", f"got {read_tableau(part)} want {seat['tableau']}"))
    return failures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m vision.training.seatcheck", description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="+", type=Path, help="test sets (<root>/truth/val/*.json)")
    parser.add_argument("--limit", type=int, default=None, help="photos per set")
    parser.add_argument("--quiet", action="store_true", help="the totals only")
    args = parser.parse_args(argv)
    for root in args.roots:
        counts = {"seats": 0, "exact": 0, "group": 0, "turn": 0, "hidden": 0, "read": 0}
        for k, truth in enumerate(load_truths(root)[:args.limit]):
            image = cv2.imread(str(root / truth["image"]), cv2.IMREAD_COLOR) if truth.get("image") else None
            failures = seat_failures(truth, image)
            counts["seats"] += len(truth["seats"])
            counts["exact"] += len(truth["seats"]) - len(failures)
            for _, cause, _ in failures:
                counts[cause] += 1
            if failures and not args.quiet:
                print(f"{root.name} {k}: {len(truth['seats'])} seats: "
                      + "; ".join(f"seat {s} {cause} {detail}" for s, cause, detail in failures))
        share = counts["exact"] / max(counts["seats"], 1)
        print(f"{root.name}: {counts['exact']} of {counts['seats']} seats exact ({share:.3f}); wrong: "
              + ", ".join(f"{cause} {counts[cause]}" for cause in ("group", "turn", "hidden", "read")))


if __name__ == "__main__":
    main()
