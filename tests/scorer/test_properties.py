"""Property tests (hypothesis): seat order, tie splits, and sums."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scorer import DeckCountError, score_record
from scorer.ranking import award_places, most_and_fewest

ORIGINAL_CARDS = ["tempura", "sashimi", "dumpling", "maki-1", "maki-2", "maki-3", "egg-nigiri",
                  "salmon-nigiri", "squid-nigiri", "wasabi", "chopsticks", "pudding"]
# one valid menu's worth: temaki; tempura, eel, tofu; wasabi, tea; green tea ice cream
PARTY_CARDS = ["temaki", "tempura", "eel", "tofu", "squid-nigiri", "wasabi", "tea",
               "green-tea-ice-cream", "card-back"]


def entry(cards):
    return st.one_of(st.sampled_from(cards), st.sampled_from(
        [["wasabi", "squid-nigiri"], ["wasabi", "egg-nigiri"]]))


@st.composite
def games(draw, edition="original", cards=ORIGINAL_CARDS, max_players=5):
    players = [f"P{i}" for i in range(draw(st.integers(2, max_players)))]
    rounds = []
    for _ in range(draw(st.integers(1, 3))):
        rounds.append({"tableaux": {p: draw(st.lists(entry(cards), max_size=4)) for p in players}})
    return {"edition": edition, "players": players, "rounds": rounds}


def scored(record: dict) -> dict:
    """The scores, or the example is dropped when the draw holds more cards than the deck."""
    try:
        return score_record(record)
    except DeckCountError:
        assume(False)
        raise


@settings(max_examples=60, deadline=None)
@given(games(), st.randoms())
def test_seat_order_does_not_change_scores(record, rnd):
    before = scored(record)["players"]
    shuffled = dict(record, players=list(record["players"]))
    rnd.shuffle(shuffled["players"])
    after = score_record(shuffled)["players"]
    assert {p: s["total"] for p, s in before.items()} == {p: s["total"] for p, s in after.items()}


@settings(max_examples=60, deadline=None)
@given(games("party", PARTY_CARDS, 8), st.randoms())
def test_party_seat_order_does_not_change_scores(record, rnd):
    before = scored(record)["players"]
    shuffled = dict(record, players=list(reversed(record["players"])))
    after = score_record(shuffled)["players"]
    assert {p: s["total"] for p, s in before.items()} == {p: s["total"] for p, s in after.items()}


@given(st.dictionaries(st.text(min_size=1, max_size=3), st.integers(0, 9), min_size=1, max_size=8))
def test_split_ties_never_pay_more_than_the_pot(values):
    awards = award_places(values, (6, 3), split=True)
    assert sum(points for points, _, _ in awards.values()) <= 9
    for place, pot in enumerate((6, 3)):
        assert sum(p for p, at, _ in awards.values() if at == place) <= pot
    ends = most_and_fewest(values, most=6, fewest=-6, split=True)
    assert sum(p for p, _ in ends.values() if p > 0) <= 6
    assert sum(p for p, _ in ends.values() if p < 0) >= -6


@settings(max_examples=60, deadline=None)
@given(st.one_of(games(), games("party", PARTY_CARDS, 8)))
def test_totals_equal_the_sum_of_their_parts(record):
    for score in scored(record)["players"].values():
        assert score["rounds"] == [sum(line["points"] for line in r) for r in score["breakdown"]]
        assert score["dessert"] == sum(line["points"] for line in score["dessert_breakdown"])
        assert score["total"] == sum(score["rounds"]) + score["dessert"]
