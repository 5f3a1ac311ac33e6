"""A record that cannot be true gets an error of the right kind naming the place."""

from __future__ import annotations

import copy

import pytest

from scorer import (
    DeckCountError,
    DessertError,
    DuringRoundError,
    EditionError,
    FormatError,
    MenuError,
    PlayerCountError,
    RecordError,
    StackError,
    TurnLogError,
    UnknownCardError,
    UnknownPlayerError,
    VariantError,
    score_record,
)
from scorer.game import Game
from scorer.menus import MENUS, validate_menu

BASE = {
    "edition": "party",
    "players": ["Ann", "Ben", "Cid"],
    "rounds": [{"tableaux": {"Ann": ["tempura"], "Ben": ["eel"], "Cid": []}}],
}


def edited(change) -> dict:
    record = copy.deepcopy(BASE)
    change(record)
    return record


def put(player: str, entries: list, *, edition: str = "party"):
    def change(record):
        record["edition"] = edition
        if edition != "party":  # eel is a Party card
            record["rounds"][0]["tableaux"] = {p: [] for p in record["players"]}
        record["rounds"][0]["tableaux"][player] = entries
    return change


CASES = [
    (put("Ann", ["tempora"]), UnknownCardError, "rounds[0].tableaux.Ann[0]", "unknown card 'tempora'"),
    (put("Ann", ["tempura", ["wasabi", "tempora"]]), UnknownCardError, "rounds[0].tableaux.Ann[1][1]", "tempora"),
    (lambda r: r["rounds"][0]["tableaux"].update(Zed=[]), UnknownPlayerError, "rounds[0].tableaux.Zed", "Zed"),
    (lambda r: r["rounds"][0]["tableaux"].pop("Cid"), UnknownPlayerError, "rounds[0].tableaux", "Cid"),
    (lambda r: r.update(players=[f"P{i}" for i in range(9)]), PlayerCountError, "players", "9 players"),
    (lambda r: r.update(players=["Ann"]), PlayerCountError, "players", "1 player, but"),
    (lambda r: r.update(edition="original", players=list("ABCDEF")), PlayerCountError, "players", "2-5"),
    (put("Ann", ["tempura"] * 9), DeckCountError, "rounds[0]", "9 'tempura' cards"),
    (put("Ann", ["egg-nigiri"] * 6, edition="original"), DeckCountError, "rounds[0]", "holds 5"),
    (put("Ann", ["maki-3"] * 13), DeckCountError, "rounds[0]", "13 maki cards"),
    (put("Ann", [["tempura", "salmon-nigiri"]]), StackError, "rounds[0].tableaux.Ann[0][1]", "not on 'tempura'"),
    (put("Ann", [["wasabi", "egg-nigiri", "salmon-nigiri"]]), StackError, "rounds[0].tableaux.Ann[0][2]", "wasabi"),
    (put("Ann", ["special-order"]), StackError, "rounds[0].tableaux.Ann[0]", "copies"),
    (put("Ann", [["eel", "tofu"]]), StackError, "rounds[0].tableaux.Ann[0][1]", "cannot lie on"),
    (put("Ann", []) and put("Ann", [[]]), StackError, "rounds[0].tableaux.Ann[0]", "empty stack"),
    (put("Ann", ["temaki"], edition="original"), EditionError, "rounds[0].tableaux.Ann[0]", "original edition"),
    (put("Ann", ["dumpling"], edition="anniversary"), EditionError, "rounds[0].tableaux.Ann[0]", "gyoza"),
    (put("Ann", [["tempura", "special-order"]], edition="original"), EditionError,
     "rounds[0].tableaux.Ann[0][1]", "special-order"),
    (lambda r: r.update(edition="deluxe"), EditionError, "edition", "unknown edition"),
    (lambda r: r.pop("edition"), FormatError, "edition", "missing"),
    (lambda r: r.update(rounds={}), FormatError, "rounds", "list"),
    (lambda r: r.update(rounds=r["rounds"] * 4), FormatError, "rounds", "4 rounds"),
    (lambda r: r.update(players=["Ann", "Ann", "Ben"]), FormatError, "players[1]", "twice"),
    (lambda r: r.update(colour="red"), FormatError, "colour", "unexpected"),
    (put("Ann", "tempura"), FormatError, "rounds[0].tableaux.Ann", "list"),
    (put("Ann", [3]), FormatError, "rounds[0].tableaux.Ann[0]", "slug"),
    (put("Ann", ["maki-1", "temaki"]), MenuError, "rounds[0].tableaux.Ann[1]", "kinds of rolls"),
    (lambda r: r.update(menu="sushi-go"), MenuError, "rounds[0].tableaux.Ben[0]", "not on the menu"),
    (lambda r: r.update(menu="tapas"), MenuError, "menu", "unknown menu"),
    (lambda r: r.update(menu=["nigiri", "maki"]), MenuError, "menu", "appetizers"),
    (put("Ann", ["menu"]) and (lambda r: (r.update(players=list("ABCDEFG")),
                                           r["rounds"][0].update(tableaux={p: [] for p in "ABCDEFG"}),
                                           r["rounds"][0]["tableaux"].update(A=["menu"]))),
     PlayerCountError, "rounds[0].tableaux.A[0]", "2-6 players"),
    (lambda r: (r.update(players=["Ann", "Ben"]), r["rounds"][0]["tableaux"].pop("Cid"),
                r["rounds"][0]["tableaux"].update(Ann=["edamame"])),
     PlayerCountError, "rounds[0].tableaux.Ann[0]", "3-8 players"),
    (lambda r: r.update(variants=["sushi-golf"]), VariantError, "variants[0]", "unknown party variant"),
    (lambda r: r.update(edition="anniversary", variants=["must-have-futomaki"],
                        rounds=[{"tableaux": {"Ann": [], "Ben": [], "Cid": []}}]),
     VariantError, "variants[0]", "2 players"),
    (lambda r: r.update(edition="anniversary", players=["Ann", "Ben"], variants=["sushi-golf", "two-way"],
                        rounds=[]), VariantError, "variants", "do not combine"),
    (lambda r: r["rounds"][0].update(scored_during_round=[{"player": "Ann", "for": "uramaki", "points": 5}]),
     DuringRoundError, "rounds[0].scored_during_round[0].points", "place 1"),
    (lambda r: r["rounds"][0].update(scored_during_round=[{"player": "Zed", "for": "uramaki", "points": 8}]),
     UnknownPlayerError, "rounds[0].scored_during_round[0].player", "Zed"),
    (lambda r: r["rounds"][0].update(scored_during_round=[{"player": "Ann", "for": "maki", "points": 8}]),
     FormatError, "rounds[0].scored_during_round[0].for", "maki"),
    (put("Ann", ["uramaki-5", "uramaki-5"]), DuringRoundError, "rounds[0].tableaux.Ann", "10 uramaki icons"),
    (lambda r: r["rounds"][0].update(scored_during_round=[
        {"player": "Ann", "for": "strawberry-pudding", "points": 2}]),
     EditionError, "rounds[0].scored_during_round[0]", "anniversary"),
    (lambda r: r.update(edition="anniversary", players=["Ann", "Ben"], rounds=[{
        "tableaux": {"Ann": ["strawberry-pudding-2"], "Ben": []},
        "scored_during_round": [{"player": "Ann", "for": "strawberry-pudding", "points": 2},
                                {"player": "Ann", "for": "strawberry-pudding", "points": 2}]}]),
     DuringRoundError, "rounds[0].scored_during_round[1]", "already holds"),
    (lambda r: r.update(edition="anniversary", players=["Ann", "Ben"], rounds=[{
        "tableaux": {"Ann": ["strawberry-pudding-2"], "Ben": ["mochi"]}}]),
     DessertError, "rounds[0].tableaux.Ben[0]", "one dessert per game"),
    (lambda r: r.update(rounds=[{"tableaux": {"Ann": ["pudding"] * 3, "Ben": ["pudding"] * 3, "Cid": []}}]),
     DeckCountError, "rounds[0]", "6 dessert cards played by round 1"),
    (lambda r: r["rounds"][0].update(turns=[{"reveals": {"Ann": ["eel"]}}]),
     TurnLogError, "rounds[0].tableaux.Ann", "differs from the turn log"),
    (lambda r: r["rounds"][0].update(turns=[{"reveals": {"Ann": ["tempura"]},
                                             "events": [{"player": "Ann", "event": "chopsticks-used"}]}]),
     TurnLogError, "rounds[0].turns[0].events[0]", "no chopsticks"),
    (lambda r: r["rounds"][0].update(turns=[{"reveals": {"Ann": ["tempura"]},
                                             "events": [{"player": "Ann", "event": "dance"}]}]),
     TurnLogError, "rounds[0].turns[0].events[0].event", "unknown event"),
    (lambda r: r.update(edition="anniversary", players=["Ann", "Ben"],
                        rounds=[{"tableaux": {"Ann": ["mochi"], "Ben": []}}] + [{"tableaux": {"Ann": [], "Ben": []}}] * 2),
     DessertError, "mochi.Ann", "die"),
    (lambda r: r.update(mochi={"Ann": 3}), EditionError, "mochi", "anniversary"),
]


@pytest.mark.parametrize(("change", "error", "path", "words"), CASES)
def test_invalid_records(change, error, path, words):
    with pytest.raises(error) as caught:
        score_record(edited(change))
    assert caught.value.path == path
    assert words in str(caught.value)
    assert isinstance(caught.value, RecordError) and isinstance(caught.value, ValueError)
    assert "\n" not in str(caught.value)


def test_not_an_object():
    with pytest.raises(FormatError, match="JSON object"):
        score_record(["not", "a", "record"])


def test_valid_base_record_scores():
    assert score_record(BASE)["players"]["Ben"]["rounds"] == [-3]


@pytest.mark.parametrize("key", sorted(MENUS))
def test_official_menus_satisfy_the_custom_menu_rule(key):
    validate_menu(MENUS[key].kinds)


def test_menu_limits_players():
    with pytest.raises(MenuError, match="spoon"):
        validate_menu(MENUS["master-menu"].kinds, players=2)
    with pytest.raises(MenuError, match="menu is played with 2-6"):
        validate_menu(MENUS["party-sampler"].kinds, players=8)


def test_records_parse_back_to_the_same_value():
    record = {
        "edition": "party", "players": ["Ann", "Ben"],
        "rounds": [{"tableaux": {
            "Ann": [["wasabi", "special-order:salmon-nigiri"], "salmon-nigiri", ["tofu", "special-order"]],
            "Ben": ["card-back", ["miso-soup"], ["wasabi", "special-order", "egg-nigiri"]]}}],
    }
    game = Game.from_record(record)
    assert Game.from_record(game.to_record()) == game
    assert score_record(game.to_record()) == score_record(record)


@pytest.mark.parametrize(("change", "cards"), [
    (put("Ann", ["tempura"] * 9), {"tempura"}),
    (put("Ann", ["maki-3"] * 13), {"maki-1", "maki-2", "maki-3"}),
    (lambda r: r.update(rounds=[{"tableaux": {"Ann": ["pudding"] * 3, "Ben": ["pudding"] * 3, "Cid": []}}]),
     {"pudding"}),
    (lambda r: r.update(menu="sushi-go"), {"eel"}),
    (lambda r: (r.update(players=["Ann", "Ben"]), r["rounds"][0]["tableaux"].pop("Cid"),
                r["rounds"][0]["tableaux"].update(Ann=["edamame"])), {"edamame"}),
])
def test_errors_about_many_cards_name_them(change, cards):
    """A deck count or menu error names no single place: it names the slugs at fault instead,
    so the app can mark every copy; the one-line message is the CLI's, unchanged."""
    with pytest.raises(RecordError) as caught:
        score_record(edited(change))
    assert set(caught.value.cards) == cards
    assert str(caught.value) == f"{caught.value.path}: {caught.value.message}"
