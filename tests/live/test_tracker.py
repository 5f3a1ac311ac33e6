"""The tracker stage on hand-made frames: ids stay, names settle, hidden cards are kept.

Every scene is made by hand: the boxes a detector gives as cards are laid, covered, boxed in
part or together with a hand, stated in shares of a card's size where the story needs it
(``of``). The truth is what the scene stages; the tests assert the tracker's ids and states
(``CardState``), and where a card is only to a tolerance, never a film's pixels."""

from __future__ import annotations

import numpy as np
import pytest

from vision.boxes import coverage_matrix as box_coverage
from vision.boxes import overlaps as box_overlaps
from vision.detections import FIRST_SEEN, STATE, TRACK_ID, VISIBLE, Detections
from vision.live.matching import Cards, pair
from vision.live.tracker import CardState, CardTracker, SeatMemory
from vision.live.tuning import TrackerTuning

Box = tuple[float, float, float, float]

CARD = (100.0, 100.0, 200.0, 255.0)  # a card about 100 x 155 px


def frame(*cards: tuple[str, tuple[float, float, float, float]], confidence: float = 0.9) -> Detections:
    return Detections(
        xyxy=np.array([box for _, box in cards], np.float32).reshape(-1, 4),
        confidence=np.full(len(cards), confidence),
        data={"label": np.array([label for label, _ in cards], dtype=object)},
    )


def run(tracker: CardTracker, frames: list[Detections], fps: float = 10.0) -> list[Detections]:
    return [tracker.update(d, i / fps) for i, d in enumerate(frames)]


def ids_by_label(tracked: Detections) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for label, track_id in zip(tracked.labels, tracked.data["track_id"].tolist(), strict=True):
        out.setdefault(label, []).append(track_id)
    return out


# --- hand-made scenes: what a detector boxes as cards are laid, covered and boxed in part ---
#
# Each scene places a card (its box in the frame, in pixels) and says, frame by frame at 10
# frames a second, what the detector boxes, every box given in shares of that card's width
# and height (``of``). The truth is what the scene stages: which cards lie on the table, and
# which of them is new.


def of(card: Box, x1: float, y1: float, x2: float, y2: float) -> Box:
    """The box whose edges lie at these shares of ``card``'s width (x) and height (y) from its
    top left corner: ``of(card, 0, 0, 1, 1)`` is the card, ``of(card, 0, 0.8, 1, 1)`` its
    bottom fifth; below 0 or past 1, beyond its edges."""
    cx1, cy1, cx2, cy2 = card
    w, h = cx2 - cx1, cy2 - cy1
    return (cx1 + x1 * w, cy1 + y1 * h, cx1 + x2 * w, cy1 + y2 * h)


def card_at(x: float, y: float, w: float, h: float) -> Box:
    return (x, y, x + w, y + h)


def states(tracked: Detections) -> dict[int, tuple[str, CardState]]:
    """Each card on the table: its name and state, by track id."""
    return {int(i): (label, CardState(s)) for i, label, s in zip(
        tracked.data[TRACK_ID], tracked.labels, tracked.data[STATE], strict=True)}


def track_at(tracked: Detections, place: Box, least: float = 0.8) -> list[int]:
    """The ids of the cards seen in this frame whose box overlaps ``place`` by ``least``."""
    if not len(tracked):
        return []
    iou, _ = box_overlaps(tracked.xyxy, np.array([place], float))
    return [int(i) for i, o, v in zip(tracked.data[TRACK_ID], iou[:, 0], tracked.data[VISIBLE], strict=True)
            if v and o >= least]


def lies_within(tracked: Detections, track_id: int, place: Box, least: float = 0.95) -> bool:
    """Whether card ``track_id``'s box lies (``least`` of it) within ``place``."""
    k = tracked.data[TRACK_ID].tolist().index(track_id)
    return bool(box_coverage(tracked.xyxy[k][None], np.array([place], float))[0, 0] >= least)


def scene(*steps: tuple[int, list[tuple[str, Box]]]) -> list[Detections]:
    """The frames of ``(frames, boxes)`` steps in turn."""
    return [frame(*boxes) for count, boxes in steps for _ in range(count)]


def test_a_card_under_a_hand_for_three_seconds_keeps_its_id():
    tracker = CardTracker()
    seen = run(tracker, [frame(("tempura", CARD))] * 10 + [frame()] * 30 + [frame(("tempura", CARD))] * 3)
    assert seen[9].data["track_id"].tolist() == seen[-1].data["track_id"].tolist()
    hidden = seen[25]
    assert hidden.data["visible"].tolist() == [False] and hidden.labels == ["tempura"]
    assert states(hidden) == {1: ("tempura", CardState.HIDDEN)}
    assert states(seen[-1]) == {1: ("tempura", CardState.LYING)}


def test_a_card_gone_for_longer_than_the_memory_leaves_the_table():
    tracker = CardTracker(TrackerTuning(keep_hidden_s=5.0))
    gone_at = []
    for i, detections in enumerate([frame(("tempura", CARD))] * 10 + [frame()] * 60):
        tracked = tracker.update(detections, i / 10)
        if tracker.gone:
            gone_at.append((i / 10, tracker.gone))
    assert len(tracked) == 0
    assert len(gone_at) == 1 and gone_at[0][1] == [1]  # gone once, when the memory ran out
    assert 0.9 + 5.0 < gone_at[0][0] <= 0.9 + 5.0 + 0.15


def test_a_one_frame_ghost_never_becomes_a_card():
    tracker = CardTracker()
    frames = [frame(("tempura", CARD))] * 5 + [frame(("tempura", CARD), ("eel", (400, 100, 500, 255)))]
    frames += [frame(("tempura", CARD))] * 15
    seen = run(tracker, frames)
    assert [t.labels for t in seen[:2]] == [[], []]  # a card counts from its third sighting
    assert all(tracked.labels == ["tempura"] for tracked in seen[2:])


def test_a_misread_frame_does_not_rename_a_card():
    tracker = CardTracker()
    frames = [frame(("tempura", CARD)), frame(("tempura", CARD)), frame(("tempura", CARD)),
              frame(("sashimi", CARD)), frame(("tempura", CARD)), frame(("sashimi", CARD))]
    seen = run(tracker, frames)
    assert [t.labels for t in seen[2:]] == [["tempura"]] * 4
    assert len({int(t.data["track_id"][0]) for t in seen[2:]}) == 1


def test_a_nigiri_laid_on_a_wasabi_is_a_new_card_and_the_wasabi_strip_keeps_its_id():
    x1, y1, x2, y2 = CARD
    strip = (x1, y1, x2, y1 + 0.24 * (y2 - y1))  # what the nigiri leaves of the wasabi
    nigiri = (x1, y1 + 0.24 * (y2 - y1), x2, y2 + 0.24 * (y2 - y1))
    tracker = CardTracker()
    seen = run(tracker, [frame(("wasabi", CARD))] * 5 + [frame(("wasabi", strip), ("squid-nigiri", nigiri))] * 5)
    before, after = ids_by_label(seen[4]), ids_by_label(seen[-1])
    assert after["wasabi"] == before["wasabi"]
    assert after["squid-nigiri"][0] not in before["wasabi"]
    assert states(seen[-1])[after["wasabi"][0]] == ("wasabi", CardState.COVERED)  # covered, not gone
    assert not tracker.gone


def test_another_card_laid_where_one_went_out_of_sight_is_a_new_card():
    tracker = CardTracker()
    seen = run(tracker, [frame(("chopsticks", CARD))] * 5 + [frame()] * 30 + [frame(("pudding", CARD))] * 5)
    labels = ids_by_label(seen[-1])
    assert set(labels) == {"chopsticks", "pudding"}  # the chopsticks are kept a while, not renamed
    assert labels["chopsticks"] != labels["pudding"]


def test_another_card_laid_where_a_card_lay_for_seconds_is_a_new_card():
    # a card that lay seconds, not a glimpse, taken away under the hand; another laid in its
    # place while the first is still kept: another name, out of sight for longer than a misread
    tracker = CardTracker()
    seen = run(tracker, [frame(("chopsticks", CARD))] * 30 + [frame()] * 30 + [frame(("pudding", CARD))] * 5)
    assert states(seen[-1]) == {1: ("chopsticks", CardState.HIDDEN), 2: ("pudding", CardState.ARRIVING)}


def one_card(lain: bool = False) -> Cards:
    """Matching's view of one eel lying whole at (0, 0, 100, 150), seen in the frame before;
    ``lain``: it has lain still and a hand was just over it."""
    box = np.array([[0, 0, 100, 150]], float)
    return Cards(boxes=box, full=box, rest=box, full_area=np.array([15000.0]), labels=["eel"],
                 unseen=np.array([0.0]), just_seen=np.array([True]), arriving=np.array([False]),
                 lain=np.array([lain]), glimpse=np.array([False]), confirmed=np.array([True]))


def test_a_card_seen_whole_a_few_pixels_off_takes_that_box_before_a_piece_within_it():
    """Matching alone: the card lying still is boxed whole a few pixels off, and in the same
    frame a piece lies within its box (the edge of the next card in a hand): the card is the
    whole box; taking the piece, it would follow the hand away."""
    boxes = np.array([[0, 0, 30, 150], [4, 4, 104, 154]], float)
    paired = pair(one_card(), boxes, ["eel", "eel"], TrackerTuning())
    assert paired.pairs == [(0, 1)] and paired.decided == {(0, 1): "whole_where_it_is_first"}


def test_a_card_lain_still_with_a_hand_just_over_it_does_not_take_a_box_partly_off_its_place():
    """Matching alone: a box smaller than the card, a quarter of it off where the card lay
    whole. With a hand just over a card that has lain still, that is the next card of its
    column on its way in over it: the card does not take it. Without a hand over it, it is
    the card boxed loosely."""
    partly_off = np.array([[40, -10, 115, 120]], float)
    assert pair(one_card(lain=True), partly_off, ["eel"], TrackerTuning()).pairs == []
    assert pair(one_card(), partly_off, ["eel"], TrackerTuning()).pairs == [(0, 0)]


def test_a_face_down_card_turned_up_keeps_its_id_and_takes_its_name():
    tracker = CardTracker()
    seen = run(tracker, [frame(("card-back", CARD))] * 10 + [frame(("maki-3", CARD))] * 12)
    assert seen[-1].labels == ["maki-3"]
    assert seen[-1].data["track_id"].tolist() == seen[9].data["track_id"].tolist()
    assert seen[-1].data["label_since"][0] > seen[9].data["label_since"][0]


def test_a_card_squared_up_or_moved_aside_keeps_its_id():
    x1, y1, x2, y2 = CARD
    squared = (x1 + 9, y1 - 8, x2 + 9, y2 - 8)  # nudged back into line
    aside = (x1 + 150, y1, x2 + 150, y2)  # moved to another column
    tracker = CardTracker()
    seen = run(tracker, [frame(("eel", CARD))] * 5 + [frame()] * 4 + [frame(("eel", squared))] * 5
               + [frame()] * 4 + [frame(("eel", aside))] * 5)
    assert seen[13].data["track_id"].tolist() == seen[4].data["track_id"].tolist()
    assert seen[-1].data["track_id"].tolist() == seen[4].data["track_id"].tolist()


def test_the_next_card_of_a_column_laid_over_one_whose_strip_goes_unseen_is_a_new_card():
    x1, y1, x2, y2 = CARD
    over = (x1, y1 + 0.3 * (y2 - y1), x2, y2 + 0.3 * (y2 - y1))
    tracker = CardTracker()
    seen = run(tracker, [frame(("tempura", CARD))] * 5 + [frame()] * 3 + [frame(("tempura", over))] * 5)
    assert len(seen[-1]) == 2 and len(set(seen[-1].data["track_id"].tolist())) == 2


def test_seats_are_learned_from_the_first_cards_bottom_first_then_clockwise():
    # four cards around a table: bottom, left, top, right as the picture shows them
    cards = [("eel", (450, 600, 550, 755)), ("eel", (50, 300, 150, 455)),
             ("eel", (450, 0, 550, 155)), ("eel", (850, 300, 950, 455))]
    memory = SeatMemory(4)
    tracked = CardTracker(TrackerTuning(confirm_hits=1)).update(frame(*cards), 0.0)
    assert memory.update(tracked).data["seat"].tolist() == [0, 1, 2, 3]


def test_a_new_card_goes_to_the_seat_whose_cards_are_nearest():
    memory = SeatMemory(2, anchors=[(500, 700), (500, 50)])
    tracker = CardTracker(TrackerTuning(confirm_hits=1))
    seated = memory.update(tracker.update(frame(("eel", (600, 620, 700, 775)), ("tofu", (420, 0, 520, 155))), 0.0))
    assert dict(zip(seated.labels, seated.data["seat"].tolist(), strict=True)) == {"eel": 0, "tofu": 1}


def test_seat_points_must_match_the_players():
    with pytest.raises(ValueError, match="3 seat points given for 2 players"):
        SeatMemory(2, anchors=[(0, 0), (1, 1), (2, 2)])


def test_a_card_slid_in_by_hand_keeps_one_id_on_its_way():
    # from the player's edge to its place, half its height a frame: boxes a frame apart
    # overlap by a third, less than any card lying still shares with itself
    x1, y1, x2, y2 = CARD
    path = [frame(("eel", (x1, y1 + 70 * k, x2, y2 + 70 * k))) for k in range(8, -1, -1)]
    seen = run(CardTracker(), path + [frame(("eel", CARD))] * 10)
    assert seen[-1].data["track_id"].tolist() == [1] and seen[-1].data["visible"].tolist() == [True]


def test_ann_at_the_bottom_keeps_a_card_laid_nearer_bens_first_card_than_her_own():
    """Seen in the browser on a 2-player table: Ann's first card at the bottom left, Ben's
    (upside down to the camera) at the top middle; Ann's chopsticks at the bottom right lie
    nearer Ben's card than Ann's, yet on Ann's side of the table."""
    memory = SeatMemory(2)
    tracker = CardTracker(TrackerTuning(confirm_hits=1))
    ann, ben = ("wasabi", (250, 520, 350, 675)), ("tempura", (550, 75, 650, 230))
    for k in range(12):
        memory.update(tracker.update(frame(ann, ben), k / 10), k / 10)
    chopsticks = ("chopsticks", (750, 480, 850, 635))
    seated = memory.update(tracker.update(frame(ann, ben, chopsticks), 1.2), 1.2)
    assert dict(zip(seated.labels, seated.data["seat"].tolist(), strict=True)) == {
        "wasabi": 0, "tempura": 1, "chopsticks": 0}


def test_seats_are_learned_from_cards_lying_still_not_from_one_on_its_way_in():
    # a card crossing the table under Ben's hand is seen for a few frames before any other
    memory = SeatMemory(2)
    tracker = CardTracker(TrackerTuning(confirm_hits=1))
    passing = ("eel", (450, 300, 550, 455))
    for k in range(5):
        memory.update(tracker.update(frame(passing), k / 10), k / 10)
    ann, ben = ("wasabi", (450, 600, 550, 755)), ("tempura", (450, 0, 550, 155))
    for k in range(5, 30):
        seated = memory.update(tracker.update(frame(ann, ben), k / 10), k / 10)
    seats = dict(zip(seated.labels, seated.data["seat"].tolist(), strict=True))
    assert (seats["wasabi"], seats["tempura"]) == (0, 1)



def seat_round(memory: SeatMemory, turns: list[list[tuple[str, tuple[float, float, float, float]]]],
               turn_s: float = 5.0) -> list[int]:
    """Each turn's cards laid at once, then the table still for a while: the seat of each
    card, in the order they were laid."""
    tracker = CardTracker(TrackerTuning(confirm_hits=1))
    laid: list = []
    seated = None
    for k, cards in enumerate(turns):
        laid += cards
        for step in range(int(turn_s * 10)):
            now = k * turn_s + step / 10
            seated = memory.update(tracker.update(frame(*laid), now), now)
    assert seated.data["track_id"].tolist() == list(range(1, len(laid) + 1))
    return seated.data["seat"].tolist()


def test_seats_are_the_players_rows_not_even_angles_round_the_table():
    """Three players seated unevenly round a webcam's view: Ann
    at the bottom (her cards upright), Ben at the upper left and Cid at the right (their
    cards lie sideways). Ann puts her pudding apart, at the right end of her row: seen from
    the table's middle it lies nearer Cid's direction; Ben's tempura ends his row, low on the
    left, nearer Ann's direction. Each lies in line with its player's row, facing the same way."""
    ann, ben, cid = 0, 1, 2
    turns = [
        [("wasabi", (645, 360, 775, 455)), ("salmon-nigiri", (255, 510, 340, 645)), ("salmon-nigiri", (140, 145, 270, 230))],
        [("eel", (160, 220, 275, 295)), ("onigiri-circle", (350, 500, 440, 635)), ("tofu", (620, 270, 740, 370))],
        [("maki-3", (440, 490, 540, 625)), ("maki-3", (595, 195, 715, 290)), ("wasabi", (170, 295, 285, 375))],
        [("tofu", (535, 480, 625, 610)), ("dumpling", (570, 130, 680, 215)), ("tofu", (175, 375, 295, 460))],
        [("pudding", (695, 460, 795, 590)), ("onigiri-circle", (545, 75, 655, 145)), ("tempura", (180, 460, 305, 550))],
    ]
    assert seat_round(SeatMemory(3), turns) == [cid, ann, ben, ben, ann, cid, ann, cid, ben, ann, cid, ben, ann, cid, ben]


def test_a_misread_box_on_a_first_card_founds_no_seat():
    """The detector also boxed the right half of Ben's first card for a while, under another
    name: that box lies on Ben's card, so it is not a third player; Ann's card, seen a
    moment later, is."""
    memory = SeatMemory(3)
    tracker = CardTracker(TrackerTuning(confirm_hits=1))
    cid, ben, half = ("squid-nigiri", (700, 285, 810, 385)), ("eel", (345, 75, 465, 155)), ("maki-2", (420, 100, 470, 155))
    ann = ("egg-nigiri", (325, 495, 405, 630))
    for k in range(15):
        memory.update(tracker.update(frame(cid, ben, half), k / 10), k / 10)
    for k in range(15, 30):
        seated = memory.update(tracker.update(frame(cid, ben, half, ann), k / 10), k / 10)
    seats = dict(zip(seated.labels, seated.data["seat"].tolist(), strict=True))
    assert (seats["egg-nigiri"], seats["eel"], seats["squid-nigiri"]) == (0, 1, 2)


def test_of_two_rows_a_card_could_extend_the_one_whose_player_laid_nothing_this_turn_takes_it():
    """Five players: Dan's first card is a pudding at the far end of
    his row; his second, a squid nigiri, starts his columns at the other end, right where
    Eve's row would go on. Eve laid her card that same turn; Dan laid none but this."""
    turns = [
        [("tea", (710, 310, 775, 360)), ("pudding", (470, 80, 525, 135)), ("squid-nigiri", (350, 125, 415, 180)),
         ("pudding", (240, 515, 305, 570)), ("egg-nigiri", (470, 575, 525, 650))],
        [("sashimi", (695, 270, 760, 320)), ("squid-nigiri", (645, 170, 700, 230)), ("wasabi", (515, 560, 570, 635)),
         ("egg-nigiri", (185, 320, 250, 370)), ("maki-2", (320, 150, 385, 210))],
    ]
    ann, ben, cid, dan, eve = range(5)
    assert seat_round(SeatMemory(5), turns) == [eve, dan, cid, ben, ann, eve, dan, ann, ben, cid]


def test_the_player_at_the_bottom_is_the_low_one_whose_cards_stand_upright():
    """Five players: Ann sits at the bottom, her cards upright; Eve's
    first card lies about as low and nearer straight below the middle of the first cards, but
    turned half towards the right side, where Eve sits."""
    turns = [[("onigiri-circle", (540, 560, 620, 640)), ("eel", (315, 525, 375, 600)), ("eel", (245, 155, 315, 205)),
              ("squid-nigiri", (400, 80, 460, 145)), ("tempura", (680, 225, 750, 290))]]
    ann, ben, cid, dan, eve = range(5)
    assert seat_round(SeatMemory(5), turns) == [eve, ann, ben, cid, dan]



def test_the_next_card_of_a_column_laid_over_one_showing_its_strip_is_a_new_card():
    """A tempura's strip lies in sight under the tempura laid over it; for one frame only the
    new card is found: that is the new card, not the old one moved (whose strip shows again)."""
    x1, y1, x2, y2 = CARD
    strip, over = (x1, y1, x2, y1 + 28), (x1 + 2, y1 + 28, x2 + 2, y2 + 28)
    tracker = CardTracker()
    seen = run(tracker, [frame(("tempura", CARD))] * 5 + [frame(("tempura", strip))] * 3
               + [frame(("tempura", over))] + [frame(("tempura", strip), ("tempura", over))] * 5)
    assert states(seen[-1]) == {1: ("tempura", CardState.COVERED), 2: ("tempura", CardState.ARRIVING)}
    assert track_at(seen[-1], strip, 0.95) == [1]  # the old one shows its strip



def test_a_card_lying_still_boxed_a_little_larger_is_the_same_card():
    """The detector's box of a card lying still varies by a few pixels, also after a hand
    passed over it, and from the closer look at a still table: no new card."""
    x1, y1, x2, y2 = CARD
    larger = (x1 - 3, y1 - 8, x2 + 3, y2 + 4)  # 8 % longer, 6 % wider
    frames = [frame(("tempura", CARD))] * 30 + [frame()] * 4 + [frame(("tempura", larger))] * 20
    seen = run(CardTracker(), frames)
    assert seen[-1].data["track_id"].tolist() == [1]



@pytest.mark.parametrize("second", [
    ("maki-2", (0.05, 0.05, 1.0, 1.0)),  # boxed again nearly the same
    ("maki-2", (0.7, 0.0, 1.03, 0.65)),  # and again as its right third (the rolls), a little past it
])
def test_one_card_boxed_twice_under_two_names_is_one_card(second):
    whole = card_at(200, 300, 85, 70)
    seen = run(CardTracker(), scene((12, [("maki-3", whole), (second[0], of(whole, *second[1]))])))
    assert states(seen[-1]) == {1: ("maki-3", CardState.LYING)}


def test_a_card_lost_on_its_way_in_and_found_where_it_came_to_rest_is_that_card_there():
    """A card slid in from its player's edge, boxed shorter as it comes (tilted in the hand),
    goes unseen under the hand for two frames, is seen nearer its place, unseen again, then
    lies at rest: one card, boxed where it came to rest (not where it was lost)."""
    rest = card_at(300, 460, 60, 100)
    on_its_way = [of(rest, 1.7, 2.0, 2.65, 2.5), of(rest, 1.3, 1.6, 2.3, 2.2), of(rest, 1.05, 1.2, 2.0, 1.8),
                  of(rest, 0.8, 0.9, 1.75, 1.5)]
    nearer = [of(rest, 0.15, 0.2, 1.15, 1.15), of(rest, 0.05, 0.2, 1.05, 1.1)]
    frames = (scene(*[(1, [("salmon-nigiri", b)]) for b in on_its_way]) + scene((2, []))
              + scene(*[(1, [("salmon-nigiri", b)]) for b in nearer]) + scene((2, []), (20, [("salmon-nigiri", rest)])))
    seen = run(CardTracker(), frames)
    assert states(seen[-1]) == {1: ("salmon-nigiri", CardState.LYING)}
    assert track_at(seen[-1], rest, 0.95) == [1]


def test_a_card_in_a_hand_boxed_larger_beside_a_card_lying_under_that_hand_is_a_card_of_its_own():
    """A card has lain still for seconds when the hand bringing the next card covers part of
    it, then all of it; the card in the hand is boxed most of a card's width off, a third
    larger, and misread under the lying card's name. A card moved keeps its size: that box
    is another card, and the lying one has not moved."""
    egg = card_at(640, 100, 88, 84)
    held = of(egg, -0.7, -0.55, 0.45, 0.6)
    frames = scene((30, [("egg-nigiri", egg)]), (3, [("egg-nigiri", of(egg, 0.1, 0.2, 1.0, 1.0))]), (9, []),
                   (3, [("egg-nigiri", held)]))
    seen = run(CardTracker(), frames)
    assert sorted(states(seen[-1])) == [1, 2]
    assert track_at(seen[-1], held) == [2]
    assert lies_within(seen[-1], 1, egg)


@pytest.mark.parametrize("size, piece, both", [
    ((40, 50), (0.0, 0.4, 0.95, 1.0), (0.0, -0.15, 1.0, 0.95)),  # a far card, a strip a seventh of it
    ((52, 61), (0.1, 0.4, 1.0, 1.0), (-0.05, -0.2, 1.0, 0.95)),  # the box a little past its side too
    ((100, 155), (0.0, 0.5, 1.0, 1.0), (0.0, -0.1, 1.0, 1.0)),  # a near card, a strip a tenth of it
], ids=["far", "far-wider", "near"])
def test_a_card_laid_over_a_same_named_one_boxed_with_the_strip_it_leaves_is_a_new_card(size, piece, both):
    """A card of the same name is laid over the lower part of one lying still (a column of
    its kind): a hand over it, a piece of the card below boxed for a frame, then the detector
    boxes both cards as one, reaching a strip past where the first lay. That box is the new
    card; the first lies under it."""
    lying = card_at(300, 100, *size)
    frames = scene((30, [("pudding", lying)]), (4, []), (1, [("pudding", of(lying, *piece))]), (1, []),
                   (20, [("pudding", of(lying, *both))]))
    seen = run(CardTracker(), frames)
    assert states(seen[-1]) == {1: ("pudding", CardState.HIDDEN), 2: ("pudding", CardState.LYING)}


def test_a_card_boxed_again_at_a_size_it_showed_before_is_the_same_card_though_a_strip_longer():
    """A card boxed whole, then for seconds a little shorter, then (after a hand passed over
    it) at its first size again: a tenth of its length past its last box, but no larger than
    it showed. A card laid over it makes a box larger than any it showed: this is the card."""
    first = card_at(480, 520, 74, 105)
    frames = scene((10, [("sashimi", first)]), (20, [("sashimi", of(first, 0, 0, 0.95, 0.9))]), (2, []),
                   (20, [("sashimi", first)]))
    seen = run(CardTracker(), frames)
    assert states(seen[-1]) == {1: ("sashimi", CardState.LYING)}


def test_a_card_seen_whole_again_where_it_lay_after_only_a_piece_of_it_showed_keeps_its_id():
    """A card lies whole for seconds, then for two frames only its left third is boxed (a
    hand reaching over it), then it is boxed whole again where it lay: the same card."""
    whole = card_at(660, 360, 90, 74)
    frames = scene((30, [("egg-nigiri", whole)]), (2, [("egg-nigiri", of(whole, -0.1, -0.05, 0.35, 0.7))]),
                   (2, []), (20, [("egg-nigiri", whole)]))
    seen = run(CardTracker(), frames)
    assert states(seen[-1]) == {1: ("egg-nigiri", CardState.LYING)}


def test_a_card_slid_over_a_same_named_one_is_a_new_card_and_the_one_below_keeps_its_strip():
    """The next card of a column slid down over the last one, which keeps a strip in sight
    along its top left. Under the hand the card below shows pieces of itself, and the new card
    on its way in is boxed mostly inside where the first lay, fitting that place a little
    better than the strip does. The new card is a card of its own; the first shows its strip."""
    lying = card_at(630, 490, 90, 78)
    strip = of(lying, 0.05, 0.0, 0.35, 0.6)
    frames = scene((30, [("dumpling", lying)]), (1, [("dumpling", of(lying, 0.05, 0, 0.9, 0.95))]),
                   (1, [("dumpling", of(lying, 0.05, 0, 0.4, 0.7))]), (4, []),
                   (1, [("dumpling", of(lying, 0.05, 0, 0.4, 0.65))]),
                   (1, [("dumpling", of(lying, 0.1, 0.05, 0.8, 0.9)), ("dumpling", of(lying, 0.05, 0.05, 0.35, 0.65))]),
                   (1, [("dumpling", of(lying, 0.15, 0.05, 1.1, 1.0)), ("dumpling", strip)]),
                   (20, [("dumpling", of(lying, 0.15, 0.1, 1.15, 1.15)), ("dumpling", strip)]))
    seen = run(CardTracker(), frames)
    assert states(seen[-1]) == {1: ("dumpling", CardState.COVERED), 2: ("dumpling", CardState.LYING)}
    assert lies_within(seen[-1], 1, lying)


def test_a_card_slid_sideways_over_a_same_named_one_is_a_new_card_while_the_strip_of_that_one_shows():
    """A column running sideways: the next card slid over the last from the left comes to
    rest a sixth of a card to the right. On its way in it is boxed for a frame almost exactly
    where the first lies whole, beside the strip of the first sticking out from under it."""
    lying = card_at(690, 345, 65, 43)
    strip = of(lying, -0.05, 0.05, 0.2, 0.9)
    frames = scene((30, [("tempura", lying)]), (1, [("tempura", of(lying, -0.05, 0.05, 0.9, 1.0))]),
                   (1, [("tempura", of(lying, 0.05, 0.0, 1.05, 1.0)), ("tempura", strip)]),
                   (1, [("tempura", of(lying, -0.05, 0.1, 0.2, 0.95))]), (4, []), (2, [("tempura", strip)]),
                   (20, [("tempura", of(lying, 0.15, 0.05, 1.15, 1.0)), ("tempura", strip)]))
    seen = run(CardTracker(), frames)
    assert states(seen[-1]) == {1: ("tempura", CardState.COVERED), 2: ("tempura", CardState.LYING)}


def test_a_card_laid_almost_where_a_same_named_one_lies_then_slid_off_it_is_a_new_card():
    """A column running sideways: the next card comes in under the hand, is boxed for one
    frame almost exactly where the last lies whole, then slides a fifth of a card left, the
    strip of the first sticking out beside it."""
    lying = card_at(200, 300, 74, 46)
    rest, strip = of(lying, -0.2, 0, 0.8, 1.0), of(lying, 0.75, 0.05, 1.0, 0.95)
    frames = scene((30, [("maki-3", lying)]), (2, [("maki-3", of(lying, 0.2, 0, 1.0, 1.0))]), (5, []),
                   (1, [("maki-3", of(lying, -0.05, 0, 0.95, 1.0))]), (20, [("maki-3", rest), ("maki-3", strip)]))
    seen = run(CardTracker(), frames)
    new = track_at(seen[-1], rest, 0.9)
    assert len(new) == 1 and new != [1]
    assert states(seen[-1])[1] == ("maki-3", CardState.COVERED)


def test_a_card_boxed_with_the_hand_over_it_past_two_of_its_sides_stays_one_card():
    """A hand reaching over a card is boxed with it for a few frames, past all four of its
    edges. The next card of a column reaches past the card on the side its column runs to,
    not on two: this is the card."""
    lying = card_at(410, 90, 70, 65)
    frames = scene((30, [("salmon-nigiri", lying)]), (3, []), (3, [("salmon-nigiri", of(lying, -0.1, -0.1, 1.15, 1.2))]),
                   (20, [("salmon-nigiri", lying)]))
    seen = run(CardTracker(), frames)
    assert all(sorted(states(t)) == [1] for t in seen[30:])
    assert states(seen[-1]) == {1: ("salmon-nigiri", CardState.LYING)}
    assert track_at(seen[-1], lying, 0.95) == [1]


def test_a_card_boxed_wider_toward_the_hand_laying_a_card_beside_it_is_no_card_laid_over_it():
    """Two wasabis side by side. As the hand lays a nigiri on the first, the second is boxed
    up to a fifth of a card wider and longer on the side of the hand. A column runs along
    its cards' length: a box past a card's side is no card laid over it, nor the card under
    the hand moved there. At the end: the first wasabi shows its strip above the nigiri, the
    second lies where it lay, the nigiri is a card of its own."""
    first = card_at(320, 485, 90, 120)
    second = of(first, 1.0, 0.1, 2.0, 1.15)
    strip, egg = of(first, 0.25, 0.0, 1.0, 0.25), of(first, -0.15, 0.2, 0.95, 1.05)
    frames = scene((30, [("wasabi", first), ("wasabi", second)]),
                   (1, [("wasabi", of(first, 1.05, 0.1, 1.95, 1.1)), ("egg-nigiri", of(first, -1.4, -0.1, 0.15, 1.4))]),
                   (1, []), *[(1, [("wasabi", of(first, *b))]) for b in ((0.85, 0.1, 2.0, 1.15), (0.85, 0.1, 2.05, 1.15),
                                                                       (0.85, 0.1, 2.05, 1.25), (1.05, 0.1, 2.0, 1.35))],
                   (1, [("wasabi", strip)]), (20, [("wasabi", second), ("wasabi", strip), ("egg-nigiri", egg)]))
    seen = run(CardTracker(), frames)
    shown = states(seen[-1])
    assert shown[1] == ("wasabi", CardState.COVERED) and lies_within(seen[-1], 1, first)
    assert shown[2][0] == "wasabi" and track_at(seen[-1], second, 0.95) == [2]
    assert sorted(label for label, _ in shown.values()) == ["egg-nigiri", "wasabi", "wasabi"]


def test_a_card_boxed_whole_beside_the_edge_of_the_next_card_in_a_hand_keeps_its_id():
    """A card lies sideways; the next of its kind comes in by hand to start a column beside
    it. For a few frames the new card's edge in the hand is boxed within the lying card's
    box: a part of that card, it seems, but the lying card is boxed whole a few pixels off in
    the same frames, and keeps that box. The new card is a card of its own."""
    lying = card_at(650, 400, 95, 71)
    rest = of(lying, -0.05, -0.9, 0.9, 0.05)
    frames = scene((30, [("salmon-nigiri", lying)]),
                   *[(1, [("salmon-nigiri", of(lying, *b))]) for b in ((0, 0, 0.95, 1.0), (0, 0, 1.0, 1.05),
                                                                      (-0.05, 0, 1.05, 1.0), (-0.05, 0, 1.0, 1.0))],
                   *[(1, [("salmon-nigiri", of(lying, *b)), ("salmon-nigiri", of(lying, *edge))])
                     for b, edge in (((0.05, 0, 1.0, 1.0), (-0.05, 0, 0.3, 0.75)), ((0.05, 0.1, 1.0, 1.0), (-0.05, 0, 0.2, 0.7)),
                                     ((0.05, 0.1, 1.0, 1.0), (-0.05, 0, 0.2, 0.7)), ((0.0, 0.05, 1.05, 1.05), (-0.05, 0, 0.3, 0.7)))],
                   (1, [("salmon-nigiri", of(lying, 0, -0.05, 1.05, 1.0)), ("salmon-nigiri", of(lying, -0.05, -0.95, 0.2, -0.25))]),
                   (1, [("salmon-nigiri", lying), ("salmon-nigiri", of(lying, -0.05, -0.9, 0.55, -0.1))]),
                   (1, [("salmon-nigiri", of(lying, -0.05, -0.9, 0.85, 0.0)), ("salmon-nigiri", lying)]),
                   (20, [("salmon-nigiri", rest), ("salmon-nigiri", lying)]))
    seen = run(CardTracker(), frames)
    assert track_at(seen[-1], lying, 0.95) == [1]
    new = track_at(seen[-1], rest, 0.95)
    assert len(new) == 1 and new != [1]


def test_a_card_boxed_together_with_the_next_card_coming_over_it_keeps_where_it_lies():
    """The next card of a column comes in by hand over the last, almost on it. For one frame
    the detector boxes both as one box, larger than the card and reaching past where it lay;
    then pieces of both under the hand; then the new card lies a fifth of a card off, the
    strip of the first beside it. A card lying still does not grow: it keeps its place, and
    the new card is a card of its own."""
    lying = card_at(650, 480, 107, 97)
    laid, strip = of(lying, 0.2, 0.1, 1.15, 1.1), of(lying, 0, 0, 0.4, 0.6)
    frames = scene((28, [("squid-nigiri", lying)]), (1, [("squid-nigiri", of(lying, 0, 0, 1.0, 1.0))]),
                   (1, [("squid-nigiri", of(lying, 0, 0, 1.2, 1.1))]), (5, []),
                   (1, [("squid-nigiri", of(lying, 0, 0, 0.4, 0.55)), ("squid-nigiri", of(lying, 0.15, 0.1, 0.55, 0.7))]),
                   (1, [("squid-nigiri", of(lying, 0, 0, 0.4, 0.55))]),
                   (1, [("squid-nigiri", of(lying, 0.2, 0.1, 1.0, 1.1)), ("squid-nigiri", strip)]),
                   (20, [("squid-nigiri", laid), ("squid-nigiri", strip)]))
    seen = run(CardTracker(), frames)
    new = track_at(seen[-1], laid, 0.95)
    assert len(new) == 1 and new != [1]
    assert 1 in states(seen[-1]) and lies_within(seen[-1], 1, lying)


def test_a_far_card_boxed_with_a_hand_passing_over_it_stays_one_card():
    """A far card (40 x 50 px) laid, lying still for seconds, boxed a pixel or two off now
    and then; a hand passing over it is boxed with it for half a second, a quarter of the
    card past its top or a tenth past its bottom, and hides it for two frames. Taken as the
    card, those boxes would make it larger than it is, and the card seen again at its own size
    a second card."""
    lying = card_at(540, 80, 40, 50)
    laid = [(0.05, 0.15, 0.95, 0.95), (0.05, 0.05, 0.95, 1.0), (0.05, 0.0, 0.95, 1.0)]
    hand = [(0.05, -0.3, 1.05, 1.05), (0.05, -0.2, 1.05, 1.05), None, None, (0.0, -0.05, 1.05, 1.1),
            (0.05, -0.25, 1.05, 1.05), (0.0, 0.0, 1.0, 1.1), (0.05, 0.0, 1.0, 1.05)]
    frames = scene(*[(1, [("squid-nigiri", of(lying, *b))]) for b in laid],
                   (30, [("squid-nigiri", lying)]), (2, [("squid-nigiri", of(lying, 0.05, 0.0, 1.0, 1.05))]),
                   (10, [("squid-nigiri", lying)]),
                   *[(1, [("squid-nigiri", of(lying, *b))] if b else []) for b in hand],
                   (20, [("squid-nigiri", lying)]))
    seen = run(CardTracker(), frames)
    assert states(seen[-1]) == {1: ("squid-nigiri", CardState.LYING)}


def test_a_card_lying_under_a_box_that_holds_it_is_not_found_again_where_a_same_named_card_comes_in():
    """Far cards: a tempura, a squid nigiri beside it, an egg nigiri's strip below. The
    next tempura is slid in over the first; the hand is boxed with the squid for a second,
    and the tempura on its way in is misread as a squid nigiri for a frame, a card's width
    from the squid. The squid lying under the box that holds it has not moved; it is not
    found again in that misread box. At the end: the squid where it lies, two tempura (the
    first one's strip and the second)."""
    t = card_at(494, 83, 40, 50)  # the first tempura
    first, strip, egg = ("tempura", t), ("tempura", of(t, 0.05, 0.7, 0.9, 1.0)), ("egg-nigiri", of(t, 1.05, 0.85, 1.8, 1.1))
    squid = of(t, 1.1, -0.05, 2.05, 0.95)

    def sq(*b):
        return ("squid-nigiri", of(t, *b))

    frames = scene((24, [first, ("squid-nigiri", squid), egg]),
                   (1, [sq(1.1, -0.35, 2.1, 1.0), ("tempura", of(t, 0.05, 0.6, 0.9, 1.0)), egg,
                        ("egg-nigiri", of(t, 0.15, -0.35, 1.2, 0.7))]),  # the hand coming in
                   (1, [sq(1.15, -0.25, 2.1, 1.0), egg]), (2, []), (1, [sq(1.1, -0.1, 2.1, 1.1)]),
                   # the squid boxed with the hand; the tempura coming in, misread
                   (1, [sq(1.15, -0.3, 2.1, 1.0), egg, sq(0.05, -0.2, 1.0, 1.0), ("wasabi", of(t, -0.2, -0.35, 0.6, 0.8))]),
                   (1, [sq(1.1, -0.1, 2.05, 1.05), ("tempura", of(t, 0, 0.7, 0.9, 1.0)),
                        ("tempura", of(t, 0.05, 0.35, 0.9, 0.8)), egg]),
                   (1, [sq(1.1, -0.05, 2.05, 1.0), ("tempura", of(t, 0.05, -0.1, 1.05, 0.8)), strip, egg]),
                   (20, [("squid-nigiri", squid), ("tempura", of(t, 0.05, -0.2, 1.05, 0.8)), strip, egg]))
    seen = run(CardTracker(), frames)
    squid_id = ids_by_label(seen[20])["squid-nigiri"][0]
    for tracked in seen[20:]:  # the squid that lay there stays where it lies throughout
        k = tracked.data[TRACK_ID].tolist().index(squid_id)
        assert box_overlaps(tracked.xyxy[k][None], np.array([squid]))[0][0, 0] >= 0.7
    assert ids_by_label(seen[-1])["squid-nigiri"] == [squid_id] and track_at(seen[-1], squid, 0.9) == [squid_id]
    assert len(ids_by_label(seen[-1])["tempura"]) == 2


def test_a_sliver_boxed_beside_a_card_under_a_hand_is_not_that_card_found_again():
    """A wasabi lies below a sashimi; the next wasabi is laid below the first. Under the
    hand the first is boxed in pieces, then not at all, and a sliver a fifth of a card wide
    is boxed beside the new one's place under the wasabi's name. A strip of a card lies
    where the card lay: the sliver is not the first wasabi, which is seen again where it lies."""
    w = card_at(175, 315, 83, 50)  # the first wasabi
    sashimi, second = ("sashimi", of(w, 0.05, -1.1, 1.05, -0.15)), ("wasabi", of(w, -0.1, 1.2, 0.95, 2.25))

    def wa(*b):
        return ("wasabi", of(w, *b))

    frames = scene((21, [sashimi, ("wasabi", w)]), (1, [wa(0, 0, 1, 1), sashimi]), (1, [("wasabi", w), sashimi]),
                   (1, [wa(0.15, 0, 1, 1), sashimi]), (1, [wa(0.75, -0.05, 1, 0.9), sashimi]), (1, [sashimi]),
                   (1, [sashimi, wa(0.05, -0.05, 1.05, 0.55)]), (1, [sashimi]), (1, [sashimi, wa(0.15, -0.05, 1, 0.65)]),
                   (1, [sashimi]), (1, [sashimi, wa(-0.15, 1.2, 0.8, 2.25), wa(0.75, 1.45, 0.95, 2.2)]),  # the sliver
                   (1, [second, sashimi, wa(0.8, 0, 1, 0.95)]), (1, [second, wa(0.75, 0, 1, 0.95), wa(0.5, 0, 0.8, 0.95), sashimi]),
                   (1, [second, sashimi, wa(0.25, 0, 1, 1)]), (20, [("wasabi", w), sashimi, second]))
    seen = run(CardTracker(), frames)
    first = ids_by_label(seen[20])["wasabi"][0]
    assert len(ids_by_label(seen[-1])["wasabi"]) == 2
    assert track_at(seen[-1], w, 0.95) == [first]


def test_a_card_misread_for_a_moment_is_not_revived_by_a_card_laid_there_seconds_later():
    """A hand over a wasabi: it is boxed in two pieces, then read as a squid nigiri for four
    frames, then as a wasabi again. Four seconds later a squid nigiri is laid on it; its
    first box lies where the misreading was. That glimpse is no card: the squid is a card
    first seen when it was laid."""
    w = card_at(340, 510, 75, 112)
    frames = scene((7, [("wasabi", w)]), (1, [("wasabi", of(w, 0, 0.25, 0.85, 1.0)), ("wasabi", of(w, 0.05, 0, 1, 0.55))]),
                   (4, [("squid-nigiri", w)]), (42, [("wasabi", w)]), (1, [("sashimi", of(w, 0, 0, 0.85, 1.15))]), (3, []),
                   (1, [("wasabi", of(w, 0.1, 0, 1, 0.2)), ("squid-nigiri", of(w, -0.05, 0.25, 0.8, 1.35)),
                        ("squid-nigiri", of(w, 0.15, 0.2, 0.95, 0.35))]),
                   (20, [("squid-nigiri", of(w, 0, 0.2, 1.0, 1.2)), ("wasabi", of(w, 0.1, 0, 1, 0.2))]))
    laid_at = (7 + 1 + 4 + 42 + 1 + 3) / 10
    seen = run(CardTracker(), frames)
    squids = [k for k, label in enumerate(seen[-1].labels) if label == "squid-nigiri"]
    assert len(squids) == 1
    assert seen[-1].data[FIRST_SEEN][squids[0]] >= laid_at - 1e-9
    assert states(seen[-1])[1] == ("wasabi", CardState.COVERED)


def test_a_card_boxed_whole_and_in_part_at_once_where_it_lay_the_frame_before_keeps_its_id():
    """Just after a hand passed over a card, the detector boxes it whole where it lay the
    frame before and, in the same frames, a piece of it along its top edge, reaching a little
    past the whole box. No card was laid: the whole box is the card."""
    lying = card_at(380, 510, 87, 120)
    frames = scene((30, [("dumpling", lying)]), (4, []), (3, [("dumpling", lying)]),
                   (20, [("dumpling", lying), ("dumpling", of(lying, 0.2, -0.05, 1.0, 0.2))]))
    seen = run(CardTracker(), frames)
    assert 1 in states(seen[-1]) and track_at(seen[-1], lying, 0.95) == [1]


def test_a_corner_of_a_card_boxed_apart_is_not_found_again_as_a_whole_card_beside_it():
    """The detector boxes a corner of a card apart from it, a track of its own. The next card
    of its kind is laid a strip off the first; under the hand the corner goes unseen. A card
    moved keeps its size: the new card, three times the corner's size, is a card of its own."""
    lying = card_at(690, 435, 94, 85)
    corner, strip, laid = of(lying, -0.05, -0.05, 0.3, 0.5), of(lying, -0.05, -0.05, 0.4, 0.5), of(lying, 0.15, 0.1, 1.2, 1.1)
    frames = scene((30, [("salmon-nigiri", lying), ("salmon-nigiri", corner)]), (1, [("salmon-nigiri", lying)]), (6, []),
                   (2, [("salmon-nigiri", strip)]), (20, [("salmon-nigiri", laid), ("salmon-nigiri", strip)]))
    seen = run(CardTracker(), frames)
    before = {i for tracked in seen[:31] for i in states(tracked)}  # the card (and its corner)
    new = track_at(seen[-1], laid, 0.95)
    assert len(new) == 1 and new[0] not in before


def test_a_corner_of_a_diagonal_card_boxed_again_is_no_second_card():
    """A card lying diagonally is boxed whole, and from two frames after it was laid its
    corner with the icon is boxed again under the same name, now and then, lying half or
    more within the whole box. One card laid is one card."""
    whole = card_at(290, 75, 57, 50)
    corner = of(whole, 0.6, 0.5, 1.1, 1.0)
    frames = scene((2, [("wasabi", of(whole, 0, -0.05, 1.0, 1.0))]),
                   (1, [("wasabi", of(whole, 0, -0.05, 0.85, 0.9)), ("wasabi", of(whole, 0.65, 0.45, 1.05, 1.0))]),
                   (8, [("wasabi", of(whole, 0, -0.05, 0.9, 0.95)), ("wasabi", of(whole, 0.65, 0.45, 1.1, 1.0))]))
    frames += scene((1, [("wasabi", whole), ("wasabi", corner)]), (1, [("wasabi", whole)])) * 20
    seen = run(CardTracker(), frames)
    assert [len(tracked) for tracked in seen[2:]] == [1] * (len(frames) - 2)  # one card, once confirmed
    assert {i for tracked in seen for i in states(tracked)} == {1}


def test_a_card_seen_whole_again_after_a_hand_hid_its_edge_keeps_its_id():
    """A hand reaching past a card hides its right edge, a little more from one frame to the
    next (each box near enough the one before to be the card lying still); seen whole again,
    it reaches past those boxes by a strip. A box no larger than the card has shown holds
    that card alone: no card was laid over it."""
    lying = card_at(700, 440, 97, 87)
    frames = scene((30, [("salmon-nigiri", lying)]), (2, []), (1, [("salmon-nigiri", of(lying, 0, 0, 0.9, 1.0))]), (1, []),
                   (1, [("salmon-nigiri", of(lying, -0.05, -0.05, 0.85, 1.0))]), (2, []),
                   (20, [("salmon-nigiri", of(lying, 0, 0.05, 1.0, 1.0))]))
    seen = run(CardTracker(), frames)
    assert states(seen[-1]) == {1: ("salmon-nigiri", CardState.LYING)}


@pytest.mark.parametrize("below, beside", [("egg-nigiri", "salmon-nigiri"), ("tempura", "tempura")],
                         ids=["nigiri-on-nigiri", "tempura-on-tempura"])
@pytest.mark.parametrize("unseen", [1, 12], ids=["beside-unseen-a-frame", "beside-unseen-a-second"])
def test_a_card_slid_over_the_lower_part_of_its_kind_beside_a_same_named_card_is_a_new_card(below, beside, unseen):
    """A column of one kind, and beside it a card of the name the new card has. The hand
    brings the new card from its player's edge (below) up to the lower part of the card at
    the foot of the column, hiding the card beside for a few frames, the new card unseen
    under it on the way. As the hand leaves, the card beside is unseen ``unseen`` frames more
    and the new card is boxed, narrowed by the hand's edge, about a card's width from it; then
    all three show: the strip of the card below, the new card, the card beside where it lay.
    The new card is a card of its own; the card below shows its strip; the card beside has
    not moved."""
    lying = card_at(350, 427, 77, 113)  # the foot of the column
    side = of(lying, 1.17, 0.25, 2.17, 1.3)  # the card beside, a card's width off
    rest, strip = of(lying, 0, 0.27, 1.0, 1.33), of(lying, 0, 0, 0.95, 0.31)
    frames = scene((30, [(below, lying), (beside, side)]),
                   (2, [(below, lying), (beside, of(lying, 1.17, 0.25, 2.1, 1.1))]),  # the hand over it
                   (1, [(below, lying)]), (1, [(below, of(lying, 0, 0, 0.85, 1.0))]), (2, []),
                   (4, [(beside, side)]), (unseen, []),  # the hand over it again as it lays the card
                   (1, [(below, strip), (beside, of(lying, -0.05, 0.27, 0.73, 1.37))]),
                   (2, [(below, strip), (beside, rest)]),
                   (20, [(below, strip), (beside, rest), (beside, side)]))
    seen = run(CardTracker(), frames)
    last = seen[-1]
    column_foot = ids_by_label(seen[20])[below][0]
    side_id = [i for i in ids_by_label(seen[20])[beside] if i != column_foot][0]
    assert len(last) == 3
    assert states(last)[column_foot] == (below, CardState.COVERED)
    assert track_at(last, side, 0.9) == [side_id] and states(last)[side_id] == (beside, CardState.LYING)
    added = track_at(last, rest, 0.9)
    assert len(added) == 1 and added[0] not in (column_foot, side_id)
    assert states(last)[added[0]] == (beside, CardState.LYING)
