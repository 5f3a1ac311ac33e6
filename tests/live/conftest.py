"""Scripted games for the live tests, and the detection-level run of a filmed game.

Each script is a whole game as its turn log; the film of it (``vision.synth.film``) shows
the cards laid turn by turn, hands crossing, a card covered for a while, nigiri laid on their
wasabi, cards the rules discard, the table cleared between rounds. A recogniser is stood in
for by ``simulate_detections`` (jitter, misses, misreads, ghosts) so these tests run in
seconds; ``test_model.py`` runs a short film through the real model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.live.pipeline import LiveGame
from vision.synth.film import (
    GameScript,
    columns_script,
    plan_film,
    simulate_detections,
)

REPO = Path(__file__).resolve().parents[2]
MODEL_DIR = REPO / "models"


def turn(events=None, **reveals):
    out = {"reveals": reveals}
    if events:
        out["events"] = events
    return out


#: Two players, one round: a nigiri on its wasabi, miso soups in different turns (both
#: stay), chopsticks used to play two cards, an uramaki race, a special order copying tempura.
#: Scores by hand (Party rules): Ann wasabi+squid 9, three tempura (two + a copy) 5, her 5
#: uramaki icons take the next place 5 = 19; Ben two lone miso soups 6, reached 10 uramaki
#: icons first 8, one sashimi 0 (pudding scores after round 3) = 14.
DUEL = GameScript(
    ("Ann", "Ben"), "party",
    ((turn(Ann=["wasabi"], Ben=["miso-soup"]),
      turn(Ann=["tempura"], Ben=["miso-soup"]),
      turn(Ann=["squid-nigiri"], Ben=["chopsticks"]),
      turn(Ann=["tempura"], Ben=["uramaki-5"]),
      turn(Ann=["uramaki-5"], Ben=["uramaki-5", "sashimi"], events=[{"player": "Ben", "event": "chopsticks-used"}]),
      turn(Ann=["special-order:tempura"], Ben=["pudding"])),),
    face_down=frozenset({(0, 1)}), covered=frozenset({(0, 3)}),
)
DUEL_ROUNDS = {"Ann": [19], "Ben": [14]}

#: Three players, three rounds: two miso soups in one turn (both discarded), a take-out box
#: played for nothing and one that flips two nigiri, uramaki scored, puddings kept for the
#: end of the game, face-down turns, hands resting on cards.
TRIO = GameScript(
    ("Ann", "Ben", "Cid"), "party",
    ((turn(Ann=["wasabi"], Ben=["miso-soup"], Cid=["miso-soup"]),
      turn(Ann=["tempura"], Ben=["takeout-box"], Cid=["uramaki-4"]),
      turn(Ann=["squid-nigiri"], Ben=["tempura"], Cid=["uramaki-4"]),
      turn(Ann=["tempura"], Ben=["eel"], Cid=["uramaki-3"]),
      turn(Ann=["pudding"], Ben=["eel"], Cid=["miso-soup"])),
     (turn(Ann=["salmon-nigiri"], Ben=["eel"], Cid=["tempura"]),
      turn(Ann=["egg-nigiri"], Ben=["uramaki-5"], Cid=["pudding"]),
      turn(Ann=["takeout-box"], Ben=["wasabi"], Cid=["tempura"],
           events=[{"player": "Ann", "event": "takeout-flip", "cards": ["salmon-nigiri", "egg-nigiri"]}]),
      turn(Ann=["eel"], Ben=["egg-nigiri"], Cid=["tempura"])),
     (turn(Ann=["wasabi"], Ben=["pudding"], Cid=["uramaki-3"]),
      turn(Ann=["tempura"], Ben=["eel"], Cid=["miso-soup"]),
      turn(Ann=["salmon-nigiri"], Ben=["miso-soup"], Cid=["pudding"]))),
    face_down=frozenset({(0, 2), (1, 1)}), covered=frozenset({(0, 3), (2, 0)}),
)
#: Per round, desserts, total, worked out by hand from the Party rulebook
#: (../shared/seeds/sushi-go-party.es.txt: nigiri 1/2/3, tripled on a wasabi; tempura pair 5;
#: eel 1 = -3, 2+ = 7; miso soup 3, but every miso of a turn with two or more is discarded;
#: take-out box: each card flipped 2; uramaki: first to 10 icons 8 at once (cards discarded),
#: at round end the most icons still in front take the next unscored place of 8/5/2;
#: pudding at game end: most +6, fewest -6, ties take the full points):
#:   round 1: Ann wasabi+squid 3x3 = 9, tempura pair 5, (pudding kept) = 14;
#:            Ben miso discarded (Cid's miso in the same turn), box flips nothing, one tempura 0,
#:            two eels 7 = 7;
#:            Cid miso discarded, uramaki 4+4+3 = 11 icons: first to 10 = 8, lone miso in
#:            turn 5 3 = 11.
#:   round 2: Ann salmon and egg flipped by the box 2+2, one eel -3 = 1;
#:            Ben one eel -3, uramaki 5 icons, the only uramaki left at round end: 8,
#:            wasabi+egg 1x3 = 3 = 8;
#:            Cid three tempura: one pair 5, (pudding kept) = 5.
#:   round 3: Ann wasabi+salmon 2x3 = 6, one tempura 0 = 6;
#:            Ben one eel -3, lone miso 3, (pudding kept) = 0;
#:            Cid uramaki 3 icons, the only uramaki at round end: 8, lone miso 3 = 11.
#:   puddings: Ann 1, Ben 1, Cid 2: Cid +6, Ann and Ben tie for fewest: -6 each.
#:   totals: Ann 14+1+6-6 = 15, Ben 7+8+0-6 = 9, Cid 11+5+11+6 = 33.
TRIO_SCORES = {"Ann": ([14, 1, 6], -6, 15), "Ben": ([7, 8, 0], -6, 9), "Cid": ([11, 5, 11], 6, 33)}

#: Three players laying like cards in columns (``vision.synth.film.columns_script``).
COLUMNS = columns_script()

#: Five players round the table (seats 72 degrees apart), columns at every seat.
FIVE = GameScript(
    ("Ann", "Ben", "Cid", "Dee", "Eve"), "party",
    ((turn(Ann=["tempura"], Ben=["wasabi"], Cid=["eel"], Dee=["salmon-nigiri"], Eve=["sashimi"]),
      turn(Ann=["tempura"], Ben=["squid-nigiri"], Cid=["eel"], Dee=["salmon-nigiri"], Eve=["sashimi"]),
      turn(Ann=["wasabi"], Ben=["tempura"], Cid=["chopsticks"], Dee=["egg-nigiri"], Eve=["sashimi"]),
      turn(Ann=["egg-nigiri"], Ben=["tempura"], Cid=["eel", "tempura"], Dee=["miso-soup"], Eve=["pudding"],
           events=[{"player": "Cid", "event": "chopsticks-used"}]),
      turn(Ann=["special-order:tempura"], Ben=["eel"], Cid=["pudding"], Dee=["salmon-nigiri"], Eve=["eel"]),
      turn(Ann=["pudding"], Ben=["eel"], Cid=["tempura"], Dee=["egg-nigiri"], Eve=["eel"])),),
    covered=frozenset({(0, 2)}),
)

def follow_detections(script: GameScript, seed: int, *, anchors: bool = False, fps: float = 10.0,
                      staging: dict | None = None, **noise) -> LiveGame:
    """Film ``script`` (``staging``: :func:`plan_film`'s options), read each frame as an
    imperfect recogniser would, follow the game."""
    film = plan_film(script, fps=fps, seed=seed, **(staging or {}))
    game = LiveGame(script.players, script.edition,
                    seat_anchors=film.seat_anchors() if anchors else None)
    rng = np.random.default_rng([seed, 99])
    for index in range(film.n_frames):
        detections = simulate_detections(film.truth(index), rng, **noise)
        game.update(detections, film.time(index))
    return game


@pytest.fixture(scope="session")
def duel() -> tuple[GameScript, dict]:
    """The two-player script and its scores computed by hand."""
    return DUEL, DUEL_ROUNDS


@pytest.fixture(scope="session")
def trio() -> tuple[GameScript, dict]:
    """The three-player, three-round script and its (rounds, dessert, total) per player,
    worked out by hand."""
    return TRIO, TRIO_SCORES


@pytest.fixture(scope="session")
def columns() -> GameScript:
    """Three players laying like cards in columns (see ``COLUMNS``)."""
    return COLUMNS


@pytest.fixture(scope="session")
def five() -> GameScript:
    """Five players round the table, columns at every seat (see ``FIVE``)."""
    return FIVE


@pytest.fixture(scope="session")
def follow():
    return follow_detections


@pytest.fixture(scope="session")
def model_dir() -> Path:
    if not (MODEL_DIR / "meta.json").exists():
        pytest.skip("no trained model in models/ yet")
    return MODEL_DIR
