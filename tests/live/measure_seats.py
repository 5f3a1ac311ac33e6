"""Seats learned from field films' true cards (not a test: a measuring script; no recogniser).

    PYTHONPATH=$PWD python tests/live/measure_seats.py PLAYERS TURNS SEED,SEED,...|FIRST-LAST [--no-menu]

Each film's cards are fed where they lie, as they are laid (``FilmCard.box``), to
``SeatMemory`` (cards at the wrong seat once every card has settled) and, with their names, to
``LiveGame`` (turns read exactly, as the film's log says). Films are drawn on ``PARTY_MENU``
(``--no-menu``: the film's whole card set). Seeds 20-25 are held out: measure them once, at the end.
"""

from __future__ import annotations

import sys

import numpy as np


def main(argv: list[str]) -> None:
    from measure_films import drawn_films

    from vision.detections import Detections
    from vision.live.pipeline import LiveGame
    from vision.live.tracker import SeatMemory

    players = int(argv[0])
    wrong_cards = all_cards = exact_turns = all_turns = 0
    for seed, film in drawn_films(argv):
        cards = sorted(film.cards, key=lambda c: c.laid_at)
        boxes = np.stack([c.box(film.camera) for c in cards])
        labels = np.array([c.slug for c in cards], dtype=object)
        laid = np.array([c.laid_at for c in cards])
        memory = SeatMemory(players)
        game = LiveGame(film.players, "party", menu=list(film.menu) if film.menu else None)
        for now in np.arange(0.0, film.duration, 0.1):
            k = int((laid <= now).sum())
            seated = memory.update(Detections(
                xyxy=boxes[:k], class_id=np.zeros(k, int), confidence=np.ones(k),
                data={"track_id": np.arange(k), "first_seen": laid[:k], "visible": np.ones(k, bool)}), now)
            game.update(Detections(xyxy=boxes[:k], class_id=np.zeros(k, int), confidence=np.full(k, 0.9),
                                   data={"label": labels[:k]}), float(now))
        wrong = sum(int(s) != film.players.index(c.player) for s, c in zip(seated.data["seat"], cards, strict=True))
        rounds = game.record()["rounds"]
        read = [t["reveals"] for t in rounds[0]["turns"]] if rounds else []
        exact = sum(a == b["reveals"] for a, b in zip(read, film.log, strict=False))
        wrong_cards, all_cards = wrong_cards + wrong, all_cards + len(cards)
        exact_turns, all_turns = exact_turns + exact, all_turns + len(film.log)
        print(f"seed {seed}: cards at the wrong seat {wrong}/{len(cards)}, turns exact {exact}/{len(film.log)}"
              + (f" ({len(read)} read)" if len(read) != len(film.log) else ""), flush=True)
    print(f"total: cards at the wrong seat {wrong_cards}/{all_cards}, turns exact {exact_turns}/{all_turns}")


if __name__ == "__main__":
    main(sys.argv[1:])
