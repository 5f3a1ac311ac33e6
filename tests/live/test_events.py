"""The tracker's card states, the event step, the card history's events and what the turn reader
makes of them, on small hand-made frames."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from tests.live.stages import TrackedReader
from vision.detections import (
    LABEL,
    LABEL_SINCE,
    MOVED_AT,
    REST_BOX,
    SEAT,
    STATE,
    TRACK_ID,
    VISIBLE,
    Detections,
)
from vision.live.events import (
    Flipped,
    Forgotten,
    Laid,
    Left,
    Removed,
    Renamed,
    SeenAgain,
    TurnedDown,
    snapshot,
    step,
)
from vision.live.facts import CardTurn, Status, TurnFacts
from vision.live.history import CardHistory
from vision.live.tracker import CardState, CardTracker
from vision.live.turns import EventKind

CARD = (100, 100, 200, 255)


def frame(*cards) -> Detections:
    return Detections(xyxy=np.array([box for _, box in cards], float).reshape(-1, 4),
                      confidence=np.full(len(cards), 0.9),
                      data={LABEL: np.array([label for label, _ in cards], dtype=object)})


def follow(frames, start=0.0, tracker=None):
    """Feed ``frames`` at 10 a second; the events of every step, with the last output."""
    tracker = tracker or CardTracker()
    before, events, out = {}, [], None
    for k, detections in enumerate(frames):
        out = tracker.update(detections, start + k / 10)
        now = snapshot(out)
        events += step(before, now, start + k / 10)
        before = now
    return events, out, tracker


def test_a_card_arrives_then_lies_and_is_laid_once():
    events, out, _ = follow([frame(("tempura", CARD))] * 30)
    assert [type(e) for e in events] == [Laid]
    assert events[0].label == "tempura" and events[0].at >= 1.0  # once it has lain still a while
    assert out.data[STATE].tolist() == [CardState.LYING]
    assert out.data[REST_BOX].tolist() == [list(map(float, CARD))]
    assert out.data[MOVED_AT].tolist() == [0.0]


def test_a_card_under_a_hand_for_two_seconds_is_hidden_not_removed():
    events, out, _ = follow([frame(("eel", CARD))] * 20 + [frame()] * 20)
    assert [type(e) for e in events] == [Laid]
    assert out.data[STATE].tolist() == [CardState.HIDDEN]


def test_a_card_left_for_good_is_removed():
    events, out, _ = follow([frame(("eel", CARD))] * 20 + [frame()] * 60)
    assert [type(e) for e in events] == [Laid, Removed] and len(out) == 0


def test_a_strip_of_a_card_is_covered():
    strip = (100, 100, 200, 130)
    events, out, _ = follow([frame(("wasabi", CARD))] * 20 + [frame(("wasabi", strip))] * 3)
    assert out.data[STATE].tolist() == [CardState.COVERED]
    assert [type(e) for e in events] == [Laid]


def test_a_card_turned_up_is_flipped_and_one_read_again_is_renamed():
    flipped, _, _ = follow([frame(("card-back", CARD))] * 20 + [frame(("squid-nigiri", CARD))] * 30)
    assert [type(e) for e in flipped] == [Laid, Flipped] and flipped[1].face_up
    renamed, out, _ = follow([frame(("egg-nigiri", CARD))] * 20 + [frame(("salmon-nigiri", CARD))] * 40)
    assert [type(e) for e in renamed] == [Laid, Renamed]
    assert (renamed[1].before, renamed[1].label) == ("egg-nigiri", "salmon-nigiri")
    assert out.data[TRACK_ID].tolist() == [1]  # the same card all along


def seated(t, *cards) -> Detections:
    """The seats' output of one frame: ``(track id, label, seat)`` each, boxed at ``CARD``."""
    return Detections(xyxy=np.array([CARD] * len(cards), float).reshape(-1, 4),
                      data={TRACK_ID: np.array([c[0] for c in cards]),
                            LABEL: np.array([c[1] for c in cards], dtype=object),
                            SEAT: np.array([c[2] for c in cards]), VISIBLE: np.ones(len(cards), bool),
                            LABEL_SINCE: np.full(len(cards), t)})


def test_a_card_turned_up_under_a_new_track_is_the_card_seen_again_and_one_gone_has_left():
    """The history's events: a card laid face down whose track is lost as it is turned up, boxed
    face up where it lay under a new track, is that card (the ``turned-over`` rule); a card out
    of sight with nothing laid over it has left, since its last sighting, and seen for less than
    a second and a half, in no turn, it was never a card: the history forgets it."""
    history = CardHistory()
    assert history.update(seated(0.0, (1, "card-back", 0)), 0.0) == []
    assert history.update(seated(0.5, (1, "card-back", 0)), 0.5) == []
    assert history.update(seated(0.8, (2, "eel", 0)), 0.8) == [SeenAgain(2, 1, "turned-over", 0.8)]
    assert history.cards[1].label == "eel" and set(history.cards) == {1}
    assert history.update(seated(1.5), 1.5) == [Left(1, 0.8), Forgotten(1, "glimpse-left", 1.5)]
    assert history.update(seated(2.0), 2.0) == [] and not history.cards  # told once


def test_only_a_card_the_facts_say_was_revealed_is_turned_down_when_it_lies_face_down():
    """The history learns what was played only from the facts it is handed each frame. Ann's
    tempura, revealed in turn 1 by those facts, lies face down from 1 s on: once it has lain so
    for a second (``settle_s``) it is turned down, a take-out box's flip, told once. Her card
    laid face down beside it, never revealed, is a card waiting for its reveal, no flip; and
    handed facts with no card played, the history takes the tempura face down for no flip
    either."""
    tempura, back = (100, 100, 200, 255), (300, 100, 400, 255)
    revealed = CardTurn(Status.PLAYED, round=0, turn=0, text="tempura", face="tempura", revealed_at=0.0)
    played = TurnFacts(cards=MappingProxyType({1: revealed}))

    def turned_down(facts: TurnFacts) -> list:
        history, told = CardHistory(), []
        for k in range(30):
            t = k / 10
            label, since = ("tempura", 0.0) if t < 1.0 else ("card-back", 1.0)
            seen = Detections(xyxy=np.array([tempura, back], float),
                              data={TRACK_ID: np.array([1, 2]), LABEL: np.array([label, "card-back"], dtype=object),
                                    SEAT: np.array([0, 0]), VISIBLE: np.ones(2, bool),
                                    LABEL_SINCE: np.array([since, 0.0])})
            told += [e for e in history.update(seen, t, facts) if isinstance(e, TurnedDown)]
        assert history.cards[1].flipped == bool(told) and not history.cards[2].flipped
        return told

    assert turned_down(played) == [TurnedDown(1, 1.0)]
    assert turned_down(TurnFacts()) == []


def table(t, *cards) -> Detections:
    """The seats' output of one frame: ``(track id, label, seat, box)`` each, named so since 0."""
    return Detections(xyxy=np.array([c[3] for c in cards], float).reshape(-1, 4),
                      data={TRACK_ID: np.array([c[0] for c in cards], int),
                            LABEL: np.array([c[1] for c in cards], dtype=object),
                            SEAT: np.array([c[2] for c in cards], int), VISIBLE: np.ones(len(cards), bool),
                            LABEL_SINCE: np.zeros(len(cards))})


def test_a_played_card_lost_from_sight_and_seen_again_keeps_its_round_going():
    """Ann's tempura and Ben's eel make turn 1. The tempura's track is lost (it has left, by the
    history's events), then a new track boxes it again right where it lay: the history says it
    is the tempura seen again, and the turn reader has it played again, on the table. So when
    Ben's eel is cleared away the round goes on (the tempura still lies there); it ends only
    once the tempura has left too. Taken for gone still, the tempura would let the eel's going
    end the round while the tempura lies in sight."""
    ann, ben = (100, 100, 200, 255), (400, 100, 500, 255)
    game = TrackedReader(["Ann", "Ben"])
    events = []
    t = 0.0
    for _ in range(60):  # both cards laid and lying still: turn 1
        events += game.update(table(t, (1, "tempura", 0, ann), (2, "eel", 1, ben)), t)
        t += 0.1
    assert [e.turn.to_json() for e in events if e.kind == EventKind.TURN] == [
        {"reveals": {"Ann": ["tempura"], "Ben": ["eel"]}}]
    assert game.card_states()[1]["status"] == "played"
    events += game.update(table(t, (2, "eel", 1, ben)), t)  # the tempura's track lost
    assert game.card_states()[1]["status"] == "gone"
    t += 0.1
    for _ in range(10):  # boxed again where it lay, under a new track
        events += game.update(table(t, (3, "tempura", 0, ann), (2, "eel", 1, ben)), t)
        t += 0.1
    assert [d.rule for d in game.trace if d.track_id == 3] == ["strip-or-lost"]
    assert game.card_states()[3]["status"] == game.card_states()[1]["status"] == "played"
    for _ in range(30):  # the eel cleared away, the tempura still there
        events += game.update(table(t, (3, "tempura", 0, ann)), t)
        t += 0.1
    assert not [e for e in events if e.kind == EventKind.ROUND_END]
    events += game.update(table(t), t)  # the tempura cleared away too
    assert [e.kind for e in events if e.kind != EventKind.TURN] == [EventKind.ROUND_END]
    assert game.record()["rounds"] == [{"turns": [{"reveals": {"Ann": ["tempura"], "Ben": ["eel"]}}]}]
