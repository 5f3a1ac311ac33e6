"""Every worked example of the Sushi Go rulebooks in ../shared/seeds, citing book and section."""

from __future__ import annotations

import pytest

from scorer import score_record
from scorer.families.desserts import fruit_points


def maki(n: int, slug: str = "maki") -> list[str]:
    """Cards giving ``n`` icons: 3s then a 2 or a 1."""
    cards = [f"{slug}-3"] * (n // 3)
    if n % 3:
        cards.append(f"{slug}-{n % 3}")
    return cards


# ---- majority of rolls -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("source", "edition", "icons", "expected"),
    [
        pytest.param(
            "sushi-go.fr.txt, DÉCOMPTE / MAKI, Exemple", "original",
            {"Bertrand": 5, "Paul": 3, "Manon": 3, "Elisa": 2},
            {"Bertrand": 6, "Paul": 1, "Manon": 1, "Elisa": 0}, id="fr-maki",
        ),
        pytest.param(
            # The Icelandic example reads "Kristján 5, Pétur 5, Anna 3, Lísa 2" yet pays
            # Kristján 6 and Pétur+Anna 1 each, which contradicts its own rule above it
            # ("if several are first they split the 6 and nobody gets second"); the French
            # book's same example has Pétur's counterpart on 3. We follow the rule.
            "sushi-go.is.txt, STIGAGJÖF / MAKI-RÚLLUR, Dæmi (rule, not the garbled figures)", "original",
            {"Kristján": 5, "Pétur": 5, "Anna": 3, "Lísa": 2},
            {"Kristján": 3, "Pétur": 3, "Anna": 0, "Lísa": 0}, id="is-maki-tie-for-first",
        ),
        pytest.param(
            "sushi-go-10th-anniversary.pl.txt, PUNKTACJA NA KONIEC RUNDY / FUTOMAKI, Przykład", "anniversary",
            {"Krzysiek": 5, "Filip": 3, "Martyna": 3, "Agnieszka": 2},
            {"Krzysiek": 6, "Filip": 1, "Martyna": 1, "Agnieszka": 0}, id="pl-futomaki",
        ),
    ],
)
def test_roll_majority_examples(source, edition, icons, expected, round_points):
    slug = "futomaki" if edition == "anniversary" else "maki"
    tableaux = {p: maki(n, slug) for p, n in icons.items()}
    assert round_points(edition, tableaux) == expected, source


def test_anniversary_player_without_futomaki_can_place(round_points):
    """sushi-go-10th-anniversary.pl.txt, FUTOMAKI, Ważne!: no futomaki can still be 2nd."""
    assert round_points("anniversary", {"A": ["futomaki-3"], "B": [], "C": []}) == {"A": 6, "B": 1, "C": 1}


def test_must_have_futomaki_two_player_rule(round_points):
    """sushi-go-10th-anniversary.pl.txt, ZASADA DLA 2 GRACZY: MUSISZ MIEĆ FUTOMAKI."""
    tableaux = {"A": ["futomaki-1"], "B": ["tempura"]}
    assert round_points("anniversary", tableaux) == {"A": 6, "B": 3}
    assert round_points("anniversary", tableaux, variants=["must-have-futomaki"]) == {"A": 6, "B": 0}


# ---- desserts ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("source", "edition", "slug", "counts", "expected"),
    [
        pytest.param(
            "sushi-go.fr.txt, FIN DU JEU / DESSERTS, Exemple", "original", "pudding",
            {"Bertrand": 4, "Paul": 3, "Manon": 0, "Elisa": 0},
            {"Bertrand": 6, "Paul": 0, "Manon": -3, "Elisa": -3}, id="fr-desserts",
        ),
        pytest.param(
            "sushi-go.is.txt, LOK SPILSINS / BÚÐINGUR, Dæmi", "original", "pudding",
            {"Kristján": 4, "Pétur": 3, "Líska": 0, "Anna": 0},
            {"Kristján": 6, "Pétur": 0, "Líska": -3, "Anna": -3}, id="is-pudding",
        ),
        pytest.param(
            "sushi-go-10th-anniversary.pl.txt, STARY, DOBRY PUDDING, Przykład", "anniversary", "pudding",
            {"Alicja": 4, "Olek": 3, "Janek": 0, "Maja": 0},
            {"Alicja": 6, "Olek": 0, "Janek": -3, "Maja": -3}, id="pl-old-fashioned-pudding",
        ),
        pytest.param(
            "sushi-go-party.es.txt, PUDIN, Ejemplo", "party", "pudding",
            {"Cristina": 4, "María": 2, "Lucas": 1, "Antón": 1},
            {"Cristina": 6, "María": 0, "Lucas": -6, "Antón": -6}, id="es-pudding",
        ),
    ],
)
def test_pudding_examples(source, edition, slug, counts, expected, dessert_points):
    desserts = {p: [slug] * n for p, n in counts.items()}
    assert dessert_points(edition, desserts) == expected, source


def test_frozen_yogurt_example(dessert_points):
    """sushi-go-10th-anniversary.pl.txt, MROŻONY JOGURT, Przykład: 7, 4, 0, 0."""
    desserts = {"Alicja": ["frozen-yogurt-4", "frozen-yogurt-3"], "Karol": ["frozen-yogurt-4"],
                "Janek": [], "Maja": []}
    assert dessert_points("anniversary", desserts) == {"Alicja": 6, "Karol": 0, "Janek": -3, "Maja": -3}


def test_bubble_tea_example(dessert_points):
    """sushi-go-10th-anniversary.pl.txt, BUBBLE TEA, Przykład: 2, 3, 4, 4 → 8 + 1."""
    desserts = {"Alicja": ["bubble-tea-2", "bubble-tea-3", "bubble-tea-4", "bubble-tea-4"], "Olek": []}
    assert dessert_points("anniversary", desserts)["Alicja"] == 9


def test_strawberry_pudding_end_of_game_example(make_record, category):
    """sushi-go-10th-anniversary.pl.txt, PUNKTACJA NA KONIEC GRY, Przykład: 8, 5, 3, 3."""
    players = ["Maja", "Janek", "Olek", "Alicja"]
    first = {"Maja": ["strawberry-pudding-4", "strawberry-pudding-4"], "Janek": ["strawberry-pudding-5"],
             "Olek": ["strawberry-pudding-3"], "Alicja": ["strawberry-pudding-3"]}
    record = make_record("anniversary", first, {}, {}, players=players)
    # the lead was taken by whoever got there first; Maja holds it at the end
    record["rounds"][0]["scored_during_round"] = [
        {"player": "Janek", "for": "strawberry-pudding", "points": 2},
        {"player": "Maja", "for": "strawberry-pudding", "points": 2},
    ]
    result = score_record(record)
    assert {p: result["players"][p]["dessert"] for p in players} == {"Maja": 0, "Janek": 0, "Olek": -3, "Alicja": -3}
    assert category(result, "Maja", "Strawberry Pudding") == category(result, "Janek", "Strawberry Pudding") == 2


def test_strawberry_pudding_two_players(dessert_points):
    """sushi-go-10th-anniversary.pl.txt, W GRZE 2-OSOBOWEJ: fewest lose 3, a tie loses nothing."""
    assert dessert_points("anniversary", {"A": ["strawberry-pudding-2"], "B": []}) == {"A": 0, "B": -3}
    tied = {"A": ["strawberry-pudding-2"], "B": ["strawberry-pudding-2"]}
    assert dessert_points("anniversary", tied) == {"A": 0, "B": 0}


def test_fruit_example(dessert_points):
    """sushi-go-party.es.txt, FRUTA, Ejemplo: 0 watermelon, 1 orange, 4 pineapple → -2 + 0 + 6 = 4;
    María, with no fruit, loses 6.

    Fruit cards carry two symbols, so the example's five symbols cannot be dealt: the
    symbol table itself is checked, then María's case through a whole record.
    """
    assert fruit_points({"watermelon": 0, "orange": 1, "pineapple": 4}) == 4
    desserts = {"Cristina": ["fruit-pineapple-pineapple", "fruit-pineapple-orange"], "María": []}
    # Cristina: 3 pineapple (3) + 1 orange (0) + 0 watermelon (-2)
    assert dessert_points("party", desserts) == {"Cristina": 1, "María": -6}


def test_green_tea_ice_cream(dessert_points):
    """sushi-go-party.es.txt, HELADO DE TÉ VERDE: each set of 4 scores 12, fewer nothing."""
    desserts = {"A": ["green-tea-ice-cream"] * 5, "B": ["green-tea-ice-cream"] * 3}
    assert dessert_points("party", desserts) == {"A": 12, "B": 0}


@pytest.mark.parametrize("edition", ["original", "anniversary", "party"])
def test_two_players_nobody_loses_for_pudding(edition, dessert_points):
    """sushi-go.fr.txt DESSERTS NOTE; sushi-go.is.txt ATH.; .pl STARY, DOBRY PUDDING 2-OSOBOWEJ; .es PUDIN."""
    assert dessert_points(edition, {"A": ["pudding"], "B": []}) == {"A": 6, "B": 0}


def test_all_tied_for_pudding_nobody_scores(dessert_points):
    """sushi-go.fr.txt, DESSERTS: "Dans le rare cas où tous les joueurs ont le même nombre..."."""
    assert dessert_points("original", {"A": ["pudding"], "B": ["pudding"], "C": ["pudding"]}) == {
        "A": 0, "B": 0, "C": 0}


def test_mochi_highest_die_wins_lowest_loses(make_record):
    """sushi-go-10th-anniversary.pl.txt, MOCHI: most pips +6, fewest -6 (split); cards score nothing."""
    record = make_record("anniversary", {"A": ["mochi", "mochi"], "B": ["mochi"], "C": []}, {}, {},
                         mochi={"A": 5, "B": 3})
    result = score_record(record)["players"]
    assert {p: s["dessert"] for p, s in result.items()} == {"A": 6, "B": 0, "C": -6}
    two = make_record("anniversary", {"A": ["mochi"], "B": []}, {}, {}, mochi={"A": 4})
    assert {p: s["dessert"] for p, s in score_record(two)["players"].items()} == {"A": 6, "B": 0}


# ---- strawberry pudding lead (turn order) ---------------------------------------------------

def test_strawberry_lead_example_1_tie_goes_to_who_played(make_record, category):
    """sushi-go-10th-anniversary.pl.txt, PUDDING TRUSKAWKOWY, Przykład 1: Kasia 4, Olek 2 plays 2 → Olek leads."""
    record = make_record("anniversary", players=["Kasia", "Olek"])
    record["rounds"] = [{"turns": [
        {"reveals": {"Kasia": ["strawberry-pudding-4"], "Olek": ["tempura"]}},
        {"reveals": {"Kasia": ["tempura"], "Olek": ["strawberry-pudding-2"]}},
        {"reveals": {"Kasia": ["sashimi"], "Olek": ["strawberry-pudding-2"]}},
    ]}]
    result = score_record(record)
    assert category(result, "Olek", "Strawberry Pudding") == 2
    assert category(result, "Kasia", "Strawberry Pudding") == 2  # she took it first, in turn 1


def test_strawberry_lead_example_2_both_played_nobody_leads(make_record, category):
    """sushi-go-10th-anniversary.pl.txt, PUDDING TRUSKAWKOWY, Przykład 2: both play, tie → Kasia keeps it."""
    record = make_record("anniversary", players=["Kasia", "Olek"])
    record["rounds"] = [{"turns": [
        {"reveals": {"Kasia": ["strawberry-pudding-2"], "Olek": ["tempura"]}},
        {"reveals": {"Kasia": ["strawberry-pudding-2"], "Olek": ["strawberry-pudding-4"]}},
    ]}]
    result = score_record(record)
    assert category(result, "Kasia", "Strawberry Pudding") == 2  # taken in turn 1 only
    assert category(result, "Olek", "Strawberry Pudding") == 0


# ---- Party card guide -----------------------------------------------------------------------

def test_uramaki_example(make_record):
    """sushi-go-party.es.txt, URAMAKI, Ejemplo: Cristina and María reach 12 together → 8 each;
    second place is skipped; at round end Lucas has the most left and scores the third place, 2."""
    players = ["Cristina", "María", "Lucas"]
    record = make_record("party", players=players)
    record["rounds"] = [{"turns": [
        {"reveals": {"Cristina": ["uramaki-5"], "María": ["uramaki-4"], "Lucas": ["uramaki-3"]}},
        {"reveals": {"Cristina": ["uramaki-3"], "María": ["uramaki-4"], "Lucas": ["uramaki-4"]}},
        {"reveals": {"Cristina": ["uramaki-4"], "María": ["uramaki-4"], "Lucas": ["tempura"]}},
    ]}]
    result = score_record(record)["players"]
    assert {p: result[p]["rounds"][0] for p in players} == {"Cristina": 8, "María": 8, "Lucas": 2}
    # the same round seen only at its end
    record["rounds"] = [{
        "tableaux": {"Cristina": [], "María": [], "Lucas": ["uramaki-3", "uramaki-4", "tempura"]},
        "scored_during_round": [{"player": "Cristina", "for": "uramaki", "points": 8},
                                {"player": "María", "for": "uramaki", "points": 8}],
    }]
    result = score_record(record)["players"]
    assert {p: result[p]["rounds"][0] for p in players} == {"Cristina": 8, "María": 8, "Lucas": 2}


def test_edamame_example(round_points):
    """sushi-go-party.es.txt, EDAMAME, Ejemplo: Cristina 3, Lucas 2, Antón 1 → 6, 4, 2."""
    tableaux = {"Cristina": ["edamame"] * 3, "Lucas": ["edamame"] * 2, "Antón": ["edamame"]}
    assert round_points("party", tableaux) == {"Cristina": 6, "Lucas": 4, "Antón": 2}


def test_onigiri_example(round_points):
    """sushi-go-party.es.txt, ONIGIRI, Ejemplo: circle, triangle, 2 squares → 9 + 1."""
    tableaux = {"Cristina": ["onigiri-circle", "onigiri-triangle", "onigiri-square", "onigiri-square"], "B": []}
    assert round_points("party", tableaux)["Cristina"] == 10


def test_tea_example(round_points):
    """sushi-go-party.es.txt, TÉ, Ejemplo: wasabi, squid, 2 salmon are four yellow cards → tea 4."""
    tableaux = {"Cristina": [["wasabi", "squid-nigiri"], "salmon-nigiri", "salmon-nigiri", "tea"], "B": []}
    # nigiri: squid on wasabi 9 + salmon 2 + 2; tea 4
    assert round_points("party", tableaux)["Cristina"] == 9 + 2 + 2 + 4


def test_miso_soup_two_in_one_turn_are_discarded(make_record):
    """sushi-go-party.es.txt, SOPA DE MISO: two or more in the same turn are all discarded."""
    record = make_record("party", players=["A", "B", "C"])
    record["rounds"] = [{"turns": [
        {"reveals": {"A": ["miso-soup"], "B": ["miso-soup"], "C": ["miso-soup"]}},
        {"reveals": {"A": ["miso-soup"], "B": ["tempura"], "C": ["eel"]}},
    ]}]
    result = score_record(record)["players"]
    assert {p: s["rounds"][0] for p, s in result.items()} == {"A": 3, "B": 0, "C": -3}


@pytest.mark.parametrize(
    ("stack", "points", "clause"),
    [
        (["wasabi", "squid-nigiri", "special-order"], 9 + 3, "NIGIRI: a copy of a nigiri on wasabi is NOT on wasabi"),
        (["wasabi", "special-order:salmon-nigiri"], 6, "NIGIRI: a copy may lie on a free wasabi"),
        (["wasabi", "special-order", "egg-nigiri"], 3, "WASABI: a copy of wasabi is another wasabi"),
        (["tempura", "special-order", "special-order"], 5, "PEDIDO ESPECIAL: a copy of a copy is the original"),
        (["card-back", "special-order"], 4, "a copy of a flipped card is flipped too: 2 points"),
        (["card-back", "special-order:tempura"], 2, "BANDEJA, Nota: a flipped original leaves its copy as it was"),
    ],
)
def test_special_order_clarifications(stack, points, clause, round_points):
    """sushi-go-party.es.txt, PEDIDO ESPECIAL, "Algunas clarificaciones"."""
    assert round_points("party", {"A": [stack], "B": []})["A"] == points, clause


def test_special_order_copying_a_dessert_counts_at_game_end(dessert_points):
    """sushi-go-party.es.txt, PEDIDO ESPECIAL: PUDIN, FRUTA, HELADO... a copy counts at the end."""
    assert dessert_points("party", {"A": [["pudding", "special-order"]], "B": ["pudding"], "C": []}) == {
        "A": 6, "B": 0, "C": -6}


@pytest.mark.parametrize(
    ("count", "eel", "tofu", "dumpling"),
    [(1, -3, 2, 1), (2, 7, 6, 3), (3, 7, 0, 6), (4, 7, 0, 10), (5, 7, 0, 15), (6, 7, 0, 15)],
)
def test_party_card_guide_tables(count, eel, tofu, dumpling, round_points):
    """sushi-go-party.es.txt, ANGUILA, TOFU and GYOZA tables."""
    assert round_points("party", {"A": ["eel"] * count, "B": []})["A"] == eel
    assert round_points("party", {"A": ["tofu"] * count, "B": []})["A"] == tofu
    assert round_points("party", {"A": ["dumpling"] * count, "B": []})["A"] == dumpling


def test_party_maki_ties_pay_full_and_next_count_takes_next_place(round_points):
    """spec/rules-notes.md (Party maki): ties pay full, next smaller count takes the next place."""
    tableaux = {"A": ["maki-3"], "B": ["maki-3"], "C": ["maki-2"], "D": []}
    assert round_points("party", tableaux) == {"A": 6, "B": 6, "C": 3, "D": 0}


def test_party_maki_six_to_eight_players(round_points):
    """sushi-go-party.es.txt, PREPARACIÓN 5 / GRAN BANQUETE tile: 6-8 players pay 6/4/2."""
    tableaux = {"A": ["maki-3"], "B": ["maki-2"], "C": ["maki-1"], "D": [], "E": [], "F": []}
    assert round_points("party", tableaux) == {"A": 6, "B": 4, "C": 2, "D": 0, "E": 0, "F": 0}


def test_temaki(round_points):
    """spec/rules-notes.md (Party temaki): most +4, fewest -4, nobody loses with 2 players."""
    assert round_points("party", {"A": ["temaki"] * 2, "B": ["temaki"], "C": []}) == {"A": 4, "B": 0, "C": -4}
    assert round_points("party", {"A": ["temaki"], "B": []}) == {"A": 4, "B": 0}
