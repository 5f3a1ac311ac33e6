"""Hand-made table scenes played through the whole live game (tracker, seats, turns).

Each scene is a list of cards laid, each slid in by a hand from its player's edge to where it
comes to lie, at 10 frames a second; what a camera sees of the table follows from the cards
alone: a card laid over part of another leaves the strip it does not cover, a hand over a card
hides it. The oracle is the scene's own turn log, written by hand from the cards laid; no test
here names a threshold or a box the reader keeps, so a change of tuning that still reads the
table right passes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from vision.detections import Detections
from vision.live.notes import NoteCause
from vision.live.pipeline import LiveGame

W, H = 60, 90  # a card's size in the picture (pixels)
FPS = 10.0
#: Two players, Ann at the bottom edge of the picture, Ben at the top.
PLAYERS = ("Ann", "Ben")
ANCHORS = ((400.0, 700.0), (400.0, 20.0))
EDGES = {"Ann": 760.0, "Ben": -100.0}  # where a player's hand brings a card from (its top, y)


@dataclass(frozen=True)
class Card:
    """A card ``player`` slides in from their edge, let go of at ``at`` where ``box`` lies."""

    player: str
    label: str
    at: float
    box: tuple[float, float, float, float]
    slide_s: float = 1.0  # how long the hand takes to bring it
    strip_as: str = ""  # the name its strip is read under once a card covers part of it (its own if "")


def column(x: float, y: float, k: int, step: float = 25.0, up: bool = True) -> tuple[float, float, float, float]:
    """The ``k``-th card (from 0) of a column of like cards at ``(x, y)``: each laid over the
    lower part of the one before, ``step`` pixels on, towards its player."""
    dy = step * k if up else -step * k
    return (x, y + dy, x + W, y + dy + H)


def _covered(box: np.ndarray, over: np.ndarray) -> np.ndarray | None:
    """What shows of ``box`` with ``over`` laid on it: the strip on one side, all of it where
    ``over`` covers a corner only, nothing where it covers it all."""
    x0, y0, x1, y1 = box
    ox0, oy0, ox1, oy1 = over
    if ox1 <= x0 or ox0 >= x1 or oy1 <= y0 or oy0 >= y1:
        return box
    if ox0 <= x0 and ox1 >= x1:  # across its width: the top or bottom strip shows
        if oy0 <= y0 and oy1 >= y1:
            return None
        return np.array([x0, y0, x1, oy0]) if oy0 > y0 else np.array([x0, oy1, x1, y1])
    if oy0 <= y0 and oy1 >= y1:  # across its height: the left or right strip shows
        return np.array([x0, y0, ox0, y1]) if ox0 > x0 else np.array([ox1, y0, x1, y1])
    return box


def frame(cards: list[Card], t: float, hidden: tuple[tuple[float, float, float, float, float, float], ...] = (),
          glimpses: tuple[tuple[str, float, float, tuple[float, float, float, float]], ...] = ()) -> Detections:
    """What a recogniser boxes at ``t``: each card laid so far where it lies (or on its way in,
    under the hand), less what later cards and hands cover. ``hidden``: ``(from, to, box)``
    stretches a hand covers; ``glimpses``: ``(label, from, to, box)`` boxes read in a hand."""
    boxes: list[tuple[str, np.ndarray]] = []
    for k, card in enumerate(cards):
        start = card.at - card.slide_s
        if t < start:
            continue
        rest = np.array(card.box, float)
        if t < card.at:  # on its way in: along the player's line, from the edge
            share = (t - start) / card.slide_s
            offset = (EDGES[card.player] - rest[1]) * (1 - share)
            boxes.append((card.label, rest + np.array([0, offset, 0, offset])))
            continue
        shown: np.ndarray | None = rest
        for later in cards[k + 1:]:
            if shown is not None and t >= later.at:
                shown = _covered(shown, np.array(later.box, float))
        if shown is not None and not any(a <= t < b and _covered(shown, np.array(hb)) is None
                                         for a, b, *hb in hidden):
            whole = shown is rest or bool(np.all(shown == rest))
            boxes.append((card.label if whole or not card.strip_as else card.strip_as, shown))
    boxes += [(label, np.array(box, float)) for label, a, b, box in glimpses if a <= t < b]
    return Detections(xyxy=np.array([b for _, b in boxes], np.float32).reshape(-1, 4),
                      confidence=np.full(len(boxes), 0.9, np.float32),
                      data={"label": np.array([label for label, _ in boxes], dtype=object)})


def play(cards: list[Card], until: float, **seen) -> LiveGame:
    """The scene filmed from 0 to ``until`` seconds, then the picture ends (``finish``)."""
    game = LiveGame(PLAYERS, "party", seat_anchors=ANCHORS)
    for k in range(int(until * FPS) + 1):
        game.update(frame(cards, k / FPS, **seen), k / FPS)
    game.finish()
    return game


def turns_read(game: LiveGame) -> list[dict[str, list[str]]]:
    rounds = game.record()["rounds"]
    return [t["reveals"] for t in rounds[0]["turns"]] if rounds else []


def test_cards_slid_in_by_hand_are_read_turn_by_turn():
    cards = [Card("Ann", "tempura", 3.0, (100, 560, 160, 650)), Card("Ben", "eel", 3.3, (100, 60, 160, 150)),
             Card("Ann", "salmon-nigiri", 9.0, (200, 560, 260, 650)), Card("Ben", "tofu", 9.5, (200, 60, 260, 150))]
    assert turns_read(play(cards, 16.0)) == [{"Ann": ["tempura"], "Ben": ["eel"]},
                                             {"Ann": ["salmon-nigiri"], "Ben": ["tofu"]}]


@pytest.mark.parametrize("label", ["tempura", "egg-nigiri", "maki-3"])
def test_cards_laid_over_the_lower_part_of_their_kind_are_each_a_new_card(label):
    """A column of like cards: each card laid over the lower part of the one before, which shows
    only its top strip from then on. Each is the card of its turn, none the card beneath."""
    ann = [Card("Ann", label, 3.0 + 6 * k, column(100, 500, k)) for k in range(3)]
    ben = [Card("Ben", name, 3.4 + 6 * k, (100 + 80 * k, 60, 160 + 80 * k, 150))
           for k, name in enumerate(("eel", "tofu", "sashimi"))]
    read = turns_read(play(sorted(ann + ben, key=lambda c: c.at), 22.0))
    assert read == [{"Ann": [label], "Ben": [name]} for name in ("eel", "tofu", "sashimi")]


def test_a_whole_card_laid_at_the_end_of_a_column_whose_strips_are_misread_is_a_new_card():
    """Five maki-3 in one column, each laid over the side of the one before (the column grows
    towards the left); the strips they leave show fewer rolls and are read as maki-1. Each
    maki-3 laid whole at the column's end is the card of its turn, not an earlier one of the
    column found again."""
    ann = [Card("Ann", "maki-3", 3.0 + 6 * k, (400 - 24 * k, 560, 460 - 24 * k, 650), strip_as="maki-1")
           for k in range(5)]
    ben = [Card("Ben", name, 3.4 + 6 * k, (100 + 70 * k, 60, 160 + 70 * k, 150))
           for k, name in enumerate(("eel", "tofu", "sashimi", "tempura", "dumpling"))]
    read = turns_read(play(sorted(ann + ben, key=lambda c: c.at), 34.0))
    assert read == [{"Ann": ["maki-3"], "Ben": [name]} for name in ("eel", "tofu", "sashimi", "tempura", "dumpling")]


def test_a_nigiri_laid_on_a_wasabi_is_a_card_of_its_own():
    """Party rulebook: a nigiri goes on a wasabi that has none; the wasabi shows only its top."""
    cards = [Card("Ann", "wasabi", 3.0, (100, 520, 160, 610)), Card("Ben", "eel", 3.3, (100, 60, 160, 150)),
             Card("Ann", "squid-nigiri", 9.0, (100, 545, 160, 635)), Card("Ben", "tofu", 9.4, (200, 60, 260, 150))]
    game = play(cards, 16.0)
    assert turns_read(game) == [{"Ann": ["wasabi"], "Ben": ["eel"]}, {"Ann": ["squid-nigiri"], "Ben": ["tofu"]}]
    assert game.scores()[1] is None


def test_a_hand_crossing_another_players_cards_lays_no_card_there():
    """Ann reaches across Ben's side: his cards are out of sight under her hand for a moment,
    and the card in her hand is boxed there for two frames under another name."""
    cards = [Card("Ann", "tempura", 3.0, (100, 560, 160, 650)), Card("Ben", "eel", 3.3, (300, 60, 360, 150)),
             Card("Ann", "tofu", 9.0, (200, 560, 260, 650)), Card("Ben", "sashimi", 9.6, (380, 60, 440, 150))]
    hand = (7.5, 8.2, 280, 40, 380, 170)  # over Ben's eel
    glimpse = ("maki-2", 7.6, 7.8, (290, 50, 350, 140))
    read = turns_read(play(cards, 16.0, hidden=(hand,), glimpses=(glimpse,)))
    assert read == [{"Ann": ["tempura"], "Ben": ["eel"]}, {"Ann": ["tofu"], "Ben": ["sashimi"]}]


def test_the_turn_in_play_when_the_picture_ends_is_closed_by_finish():
    """The film ends a second after the last cards were laid: too soon for the table to lie
    still, so only ``finish`` reads that turn."""
    cards = [Card("Ann", "tempura", 3.0, (100, 560, 160, 650)), Card("Ben", "eel", 3.3, (100, 60, 160, 150)),
             Card("Ann", "tofu", 9.0, (200, 560, 260, 650)), Card("Ben", "sashimi", 9.3, (200, 60, 260, 150))]
    game = LiveGame(PLAYERS, "party", seat_anchors=ANCHORS)
    for k in range(int(10.3 * FPS) + 1):
        game.update(frame(cards, k / FPS), k / FPS)
    assert turns_read(game) == [{"Ann": ["tempura"], "Ben": ["eel"]}]
    game.finish()
    assert turns_read(game) == [{"Ann": ["tempura"], "Ben": ["eel"]}, {"Ann": ["tofu"], "Ben": ["sashimi"]}]


def test_the_turn_in_play_is_closed_once_however_much_more_a_seat_shows_as_the_picture_ends():
    """The film ends a second after the last cards were laid, while the hand that laid Ben's
    is still over the table beside it, boxed as a card of another name. Ben laid one card in
    that turn: ``finish`` closes the turn in play with it, and reads no turn more from the box;
    ending the picture again reads nothing more either."""
    cards = [Card("Ann", "tempura", 3.0, (100, 560, 160, 650)), Card("Ben", "eel", 3.3, (100, 60, 160, 150)),
             Card("Ann", "tofu", 9.0, (200, 560, 260, 650)), Card("Ben", "sashimi", 9.3, (200, 60, 260, 150))]
    leaving = ("maki-2", 10.0, 11.0, (300, 40, 360, 130))  # the hand going back, boxed to the end
    game = LiveGame(PLAYERS, "party", seat_anchors=ANCHORS)
    for k in range(int(10.9 * FPS) + 1):
        game.update(frame(cards, k / FPS, glimpses=(leaving,)), k / FPS)
    game.finish()
    game.finish()
    assert turns_read(game) == [{"Ann": ["tempura"], "Ben": ["eel"]}, {"Ann": ["tofu"], "Ben": ["sashimi"]}]


def test_a_player_whose_card_is_never_seen_leaves_a_turn_without_them_and_a_note():
    cards = [Card("Ann", "tempura", 3.0, (100, 560, 160, 650)), Card("Ben", "eel", 3.3, (100, 60, 160, 150)),
             Card("Ann", "tofu", 9.0, (200, 560, 260, 650))]
    game = play(cards, 16.0)
    assert turns_read(game) == [{"Ann": ["tempura"], "Ben": ["eel"]}, {"Ann": ["tofu"]}]
    assert [(n.cause, n.round, n.turn, n.players) for n in game.turns.notes] == [
        (NoteCause.TURN_WITHOUT, 0, 1, ("Ben",))]
