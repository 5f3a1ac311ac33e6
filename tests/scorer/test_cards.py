"""Own cases for every card and edge: ties at each place, 2 and 8 players, empty tableaux."""

from __future__ import annotations

import pytest

from scorer import score_record
from scorer.cards import CARDS
from scorer.families.desserts import bubble_tea_points
from scorer.menus import MENUS


def maki(n: int) -> list[str]:
    return ["maki-3"] * (n // 3) + ([f"maki-{n % 3}"] if n % 3 else [])


SPEC_SLUGS = ["egg-nigiri", "salmon-nigiri", "squid-nigiri", "maki-1", "maki-2", "maki-3", "futomaki-1", "futomaki-2", "futomaki-3", "temaki", "uramaki-3", "uramaki-4", "uramaki-5", "tempura", "sashimi", "dumpling", "gyoza", "eel", "tofu", "edamame", "miso-soup", "onigiri-circle", "onigiri-triangle", "onigiri-square", "onigiri-rectangle", "wasabi", "chopsticks", "soy-sauce", "tea", "menu", "spoon", "special-order", "takeout-box", "pudding", "green-tea-ice-cream", "fruit-watermelon-watermelon", "fruit-pineapple-pineapple", "fruit-orange-orange", "fruit-watermelon-pineapple", "fruit-pineapple-orange", "fruit-watermelon-orange", "mochi", "card-back"]


def test_catalogue_has_every_slug_of_cards_md():
    assert set(SPEC_SLUGS) <= set(CARDS)
    assert {f"bubble-tea-{n}" for n in range(1, 6)} <= set(CARDS)
    for card in CARDS.values():
        assert card.colour.startswith("#") and len(card.colour) == 7
        assert card.family in ("nigiri", "rolls", "appetizers", "specials", "desserts", "other")


def test_original_deck_is_108_cards():
    """sushi-go.fr.txt, MATÉRIEL: 108 cards."""
    assert sum(c.deck_count("original") or 0 for c in CARDS.values()) == 108


def test_every_party_menu_is_a_valid_menu():
    assert len(MENUS) == 8


@pytest.mark.parametrize(
    ("entry", "points"),
    [("egg-nigiri", 1), ("salmon-nigiri", 2), ("squid-nigiri", 3),
     (["wasabi", "egg-nigiri"], 3), (["wasabi", "salmon-nigiri"], 6), (["wasabi", "squid-nigiri"], 9),
     ("wasabi", 0), ("chopsticks", 0)],
)
@pytest.mark.parametrize("edition", ["original", "anniversary", "party"])
def test_nigiri_and_wasabi(edition, entry, points, make_record, category):
    result = score_record(make_record(edition, {"A": [entry], "B": []}))
    assert category(result, "A", "Nigiri") == points


@pytest.mark.parametrize(("count", "points"), [(1, 0), (2, 5), (3, 5), (4, 10)])
def test_tempura_pairs(count, points, round_points):
    assert round_points("original", {"A": ["tempura"] * count, "B": []})["A"] == points


@pytest.mark.parametrize(("count", "points"), [(2, 0), (3, 10), (5, 10), (6, 20)])
def test_sashimi_sets(count, points, round_points):
    assert round_points("original", {"A": ["sashimi"] * count, "B": []})["A"] == points


def test_gyoza_is_the_anniversary_dumpling(round_points):
    assert round_points("anniversary", {"A": ["gyoza"] * 4, "B": ["futomaki-1"]})["A"] == 10 + 3


@pytest.mark.parametrize(
    ("icons", "expected"),
    [
        ({"A": 3, "B": 3, "C": 3}, {"A": 2, "B": 2, "C": 2}),  # three tied first: 6 // 3, no second
        ({"A": 4, "B": 2, "C": 2, "D": 2}, {"A": 6, "B": 1, "C": 1, "D": 1}),  # three tied second: 3 // 3
        ({"A": 4, "B": 0, "C": 0}, {"A": 6, "B": 0, "C": 0}),  # no maki: no second place (original)
    ],
)
def test_original_maki_ties(icons, expected, round_points):
    tableaux = {p: maki(n) for p, n in icons.items()}
    assert round_points("original", tableaux) == expected


def test_party_maki_tie_at_every_place_with_eight_players(round_points):
    icons = {"A": 5, "B": 5, "C": 3, "D": 3, "E": 2, "F": 2, "G": 1, "H": 0}
    tableaux = {p: maki(n) for p, n in icons.items()}
    assert round_points("party", tableaux) == {"A": 6, "B": 6, "C": 4, "D": 4, "E": 2, "F": 2, "G": 0, "H": 0}


def test_uramaki_end_of_round_tie_pays_every_tied_player(round_points):
    tableaux = {"A": ["uramaki-4"], "B": ["uramaki-4"], "C": ["uramaki-3"]}
    assert round_points("party", tableaux) == {"A": 8, "B": 8, "C": 0}


def test_uramaki_after_three_places_scores_nothing(make_record):
    record = make_record("party", {"A": ["uramaki-5"], "B": [], "C": []})
    record["rounds"][0]["scored_during_round"] = [
        {"player": "B", "for": "uramaki", "points": 8}, {"player": "C", "for": "uramaki", "points": 5},
        {"player": "B", "for": "uramaki", "points": 2}]
    assert score_record(record)["players"]["A"]["rounds"] == [0]


def test_soy_sauce_most_colours_even_tied(round_points):
    tableaux = {"A": ["soy-sauce", "tempura", "egg-nigiri"], "B": ["sashimi", "tempura", "egg-nigiri"],
                "C": ["tempura"]}
    assert round_points("party", tableaux)["A"] == 4 + 1
    fewer = {"A": ["soy-sauce", "soy-sauce"], "B": ["sashimi", "tempura"], "C": []}
    assert round_points("party", fewer)["A"] == 0


def test_soy_sauce_counts_this_rounds_desserts_only(make_record):
    record = make_record("party", {"A": ["pudding"], "B": ["eel"], "C": []},
                         {"A": ["soy-sauce", "tofu"], "B": ["eel", "sashimi", "egg-nigiri"], "C": []})
    assert score_record(record)["players"]["A"]["rounds"][1] == 2  # tofu only: 2 colours < 3
    record["rounds"][1]["tableaux"]["A"].append("pudding")
    assert score_record(record)["players"]["A"]["rounds"][1] == 2 + 4


def test_takeout_cards_score_two_and_show_no_colour(round_points):
    assert round_points("party", {"A": ["card-back"] * 3, "B": []})["A"] == 6
    assert round_points("party", {"A": ["tea", "card-back", "card-back"], "B": []})["A"] == 4 + 1


def test_edamame_is_capped_at_four_per_card(round_points):
    tableaux = {p: ["edamame"] for p in "ABCDEFG"}
    assert set(round_points("party", tableaux).values()) == {4}
    assert round_points("party", {"A": ["edamame"], "B": [], "C": []})["A"] == 0


@pytest.mark.parametrize(("balls", "points"), [([1], 1), ([1, 2, 3, 4, 5], 20), ([1, 2, 3, 3, 4, 5], 21),
                                                ([1, 1, 2, 2], 8), ([1, 3, 5], 3), ([], 0)])
def test_bubble_tea_runs(balls, points):
    assert bubble_tea_points(balls) == points


def test_empty_tableaux_score_nothing(make_record):
    for edition in ("original", "party"):
        result = score_record(make_record(edition, {"A": [], "B": []}, {}, {}))
        assert all(s["total"] == 0 for s in result["players"].values())
        assert result["winners"] == ["A", "B"] and result["complete"]


def test_anniversary_nobody_with_futomaki_ties_first(round_points):
    """The book's "no futomaki can place first or second" read literally: all tie on 0 and split 6."""
    assert round_points("anniversary", {"A": [], "B": [], "C": []}) == {"A": 2, "B": 2, "C": 2}


def test_winner_tie_break_most_desserts(make_record):
    """Every book: a tie on points goes to the player with more dessert cards."""
    record = make_record("party", {"A": ["tempura", "tempura", "green-tea-ice-cream"],
                                   "B": ["tempura", "tempura", "green-tea-ice-cream", "green-tea-ice-cream"],
                                   "C": ["tempura", "tempura"]}, {}, {})
    result = score_record(record)
    assert {p: s["total"] for p, s in result["players"].items()} == {"A": 5, "B": 5, "C": 5}
    assert result["winners"] == ["B"]
    record["rounds"][1]["tableaux"]["A"] = ["green-tea-ice-cream"]
    assert score_record(record)["winners"] == ["A", "B"]  # still tied: both win


def test_sushi_golf_lowest_wins(make_record):
    record = make_record("anniversary", {"A": ["tempura", "tempura"], "B": ["futomaki-1"]}, {}, {},
                         variants=["sushi-golf"])
    result = score_record(record)
    totals = {p: s["total"] for p, s in result["players"].items()}
    assert result["winners"] == [min(totals, key=totals.get)]


def test_desserts_wait_for_round_three(make_record):
    result = score_record(make_record("original", {"A": ["pudding"], "B": []}))
    assert result["players"]["A"]["dessert"] == 0 and not result["complete"]
    assert result["players"]["A"]["dessert_cards"] == 1


def test_totals_and_breakdowns_add_up(make_record):
    record = make_record("party", {"A": ["temaki", ["wasabi", "squid-nigiri"], "pudding"], "B": ["eel"]},
                         {"A": ["temaki"], "B": ["pudding", "pudding"]}, {"A": [], "B": ["temaki"]})
    for score in score_record(record)["players"].values():
        assert score["rounds"] == [sum(line["points"] for line in r) for r in score["breakdown"]]
        assert score["dessert"] == sum(line["points"] for line in score["dessert_breakdown"])
        assert score["total"] == sum(score["rounds"]) + score["dessert"]
