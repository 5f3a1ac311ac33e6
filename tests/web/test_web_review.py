"""The review value: from detections or a record's round, checked, back to a round."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.cards import CARDS
from vision.describe import describe_image
from web.review import (
    ReviewError,
    check_review,
    review_from_detections,
    review_from_round,
    round_from_review,
    training_boxes,
)

PLAYERS = ["Ann", "Ben", "Cid"]
SLUGS = sorted(CARDS)
NIGIRI = ["egg-nigiri", "salmon-nigiri", "squid-nigiri"]

entries = st.one_of(
    st.sampled_from(SLUGS),
    st.tuples(st.just("wasabi"), st.sampled_from(NIGIRI)).map(list),
    st.tuples(st.sampled_from(SLUGS), st.just("special-order")).map(list),
)
rounds = st.fixed_dictionaries(
    {"tableaux": st.fixed_dictionaries({p: st.lists(entries, max_size=8) for p in PLAYERS})}
)


@given(rounds)
def test_a_round_survives_the_review_unchanged(round_record):
    review = review_from_round(round_record, PLAYERS)
    checked = check_review(review, PLAYERS, {}, CARDS.__contains__)
    assert round_from_review(checked, PLAYERS) == round_record


@given(rounds, st.randoms())
def test_card_order_in_the_review_does_not_break_stacks(round_record, random):
    review = review_from_round(round_record, PLAYERS)
    random.shuffle(review["cards"])
    again = round_from_review(check_review(review, PLAYERS, {}, CARDS.__contains__), PLAYERS)
    for player in PLAYERS:
        stacks = lambda t: sorted(map(str, t))  # noqa: E731
        assert stacks(again["tableaux"][player]) == stacks(round_record["tableaux"][player])


@pytest.mark.parametrize("seats", [2, [[0, 0.6, 1, 1]]], ids=["split-by-position", "one-seat-area"])
def test_stacks_the_tableau_reader_found_are_linked_to_the_right_cards(recognizer, seats):
    # Seat 0 at the bottom: a wasabi covered by an egg nigiri (only the wasabi's top strip
    # shows, right above the nigiri), a wasabi alone and an egg nigiri alone in other columns;
    # across the table an eel (seat 1, or outside the one seat area drawn). The detector's boxes
    # of the strip and of the nigiri on it need not touch: here 4 px lie between them.
    strip, on_it = [0, 500, 100, 536], [0, 540, 100, 696]
    recognizer.cards = [("egg-nigiri", [400, 500, 500, 656], 0.9), ("wasabi", strip, 0.9),
                        ("wasabi", [200, 500, 300, 656], 0.9), ("egg-nigiri", on_it, 0.9),
                        ("eel", [200, 0, 300, 156], 0.9)]
    line = describe_image(recognizer, np.zeros((700, 600, 3), np.uint8), seats=seats)
    cards = review_from_detections([(7, None, line)])["cards"]
    by_id = {c["id"]: c for c in cards}
    stacked = [c for c in cards if c["on"]]
    assert [c["box"] for c in stacked] == [on_it]
    assert by_id[stacked[0]["on"]]["box"] == strip
    seat_0 = ["egg-nigiri", "egg-nigiri", "wasabi", "wasabi"] + (["eel"] if seats != 2 else [])
    assert sorted(c["label"] for c in cards if c["seat"] == 0) == sorted(seat_0)
    # a card outside every seat area is kept (first seat), to be moved by hand
    assert len(cards) == 5 and all(c["photo"] == 7 for c in cards)


def card(card_id, label="tempura", seat=0, **extra):
    return {"id": card_id, "label": label, "seat": seat, "photo": None, "box": None,
            "confidence": None, "on": None, **extra}


@pytest.mark.parametrize(
    ("review", "message"),
    [
        ([], "JSON object"),
        ({}, "no 'cards' list"),
        ({"cards": [card("a")] * 401}, "more than 400"),
        ({"cards": ["tempura"]}, "card 1: not an object"),
        ({"cards": [card("")]}, "'id' must be a short string"),
        ({"cards": [card("x" * 41)]}, "'id' must be a short string"),
        ({"cards": [card(5)]}, "'id' must be a short string"),
        ({"cards": [card("a", label=None)]}, "unknown card None"),
        ({"cards": [card("a", seat=True)]}, "seat True"),
        ({"cards": [card("a", seat=-1)]}, "seat -1"),
        ({"cards": [card("a", photo=3, box=[0, 0, 10, 10])]}, "not a photo of this round"),
        ({"cards": [card("a", photo=1, box=[0, 0, 10])]}, "'box' must be [x1, y1, x2, y2]"),
        ({"cards": [card("a", photo=1, box=[0, 0, "10", 10])]}, "'box' must be"),
        ({"cards": [card("a", photo=1, box=[5, 5, 5.5, 30])]}, "empty or outside"),
        ({"cards": [card("a", confidence="high")]}, "'confidence' must be a number"),
        ({"cards": [card("a", on=3)]}, "'on' must name a card id"),
        ({"cards": [card("a", "wasabi"), card("b", "egg-nigiri", on="a"), card("c", "egg-nigiri", on="a")]}, "two cards on it"),
        ({"cards": [], "scored_during_round": {}}, "must be a list"),
        ({"cards": [], "scored_during_round": [{"player": "Zed", "for": "uramaki", "points": 8}]}, "unknown player 'Zed'"),
        ({"cards": [], "scored_during_round": [{"player": "Ann", "for": "uramaki", "points": "8"}]}, "'points' must be a number"),
    ],
)
def test_check_review_names_the_problem(review, message):
    with pytest.raises(ReviewError) as error:
        check_review(review, PLAYERS, {1: (100, 100)}, CARDS.__contains__)
    assert message in str(error.value)


def test_boxes_are_clipped_to_the_photo_and_ordered():
    review = {"cards": [card("a", photo=1, box=[120, -5, 40, 60])]}
    checked = check_review(review, PLAYERS, {1: (100, 50)}, CARDS.__contains__)
    assert checked["cards"][0]["box"] == [40.0, 0.0, 100.0, 50.0]
    assert training_boxes(checked, 1) == [("tempura", [40.0, 0.0, 100.0, 50.0])]
    assert training_boxes(checked, 2) == []


def test_points_scored_during_the_round_go_into_the_round():
    review = {"cards": [card("a", "uramaki-3", seat=1)],
              "scored_during_round": [{"player": "Ann", "for": "uramaki", "points": 8, "extra": 1}]}
    checked = check_review(review, PLAYERS, {}, CARDS.__contains__)
    assert round_from_review(checked, PLAYERS) == {
        "tableaux": {"Ann": [], "Ben": ["uramaki-3"], "Cid": []},
        "scored_during_round": [{"player": "Ann", "for": "uramaki", "points": 8}],
    }


def test_the_recognisers_unsure_mark_reaches_the_review_and_survives_its_check():
    """The review page marks what ``vision.unsure.is_unsure`` marked, not its own threshold:
    a confident reading whose two best names were close is still unsure."""
    line = {"cards": [{"label": "miso-soup", "box": [0, 0, 10, 14], "confidence": 0.93, "unsure": True},
                      {"label": "eel", "box": [20, 0, 30, 14], "confidence": 0.45, "unsure": False}],
            "tableau": ["miso-soup", "eel"]}
    review = review_from_detections([(1, 0, line)])
    assert [c["unsure"] for c in review["cards"]] == [True, False]
    checked = check_review(review, PLAYERS, {1: (100, 100)}, CARDS.__contains__)
    assert [c["unsure"] for c in checked["cards"]] == [True, False]
    # a card a person chose (no confidence) is never unsure; an old review without marks has none
    review["cards"][0]["confidence"] = None
    del review["cards"][1]["unsure"]
    checked = check_review(review, PLAYERS, {1: (100, 100)}, CARDS.__contains__)
    assert [c["unsure"] for c in checked["cards"]] == [None, None]
