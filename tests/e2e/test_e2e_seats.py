"""Seats read one place off (the photo taken from another side): one action turns every player's
cards one place, either way, or swaps two players' cards; Undo takes it back like any edit."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
PLAYERS = ["Ann", "Ben", "Cid"]
# as the photo was read: each player got the cards of the player before them
READ = {"Ann": ["sashimi", "sashimi", "sashimi"], "Ben": [["wasabi", "squid-nigiri"], "dumpling"],
        "Cid": ["tempura", "tempura"]}


def chips(page, player: str) -> list[str]:
    return page.locator(f'.seat-card[data-player="{player}"] .chip-btn').all_inner_texts()


def points(page, player: str) -> str:
    page.wait_for_function("() => !document.querySelector('.round-points.stale')")
    return page.locator(f'.seat-card[data-player="{player}"] [data-testid=round-points]').inner_text()


def test_seats_turn_and_swap_in_one_action_each(browser, scripted_server, import_game):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    game_url = import_game(page, scripted_server, {"edition": "original", "players": PLAYERS,
                                                   "rounds": [{"tableaux": READ}]})
    page.goto(game_url + "/rounds/1/review")
    page.wait_for_function("() => Number(document.body.dataset.scored || 0) > 0")
    before = {p: chips(page, p) for p in PLAYERS}
    assert before["Ann"] == ["Sashimi"] * 3

    # Ann's cards to Ben, Ben's to Cid, Cid's to Ann
    page.locator("#turn-next").tap()
    assert {p: chips(page, p) for p in PLAYERS} == {"Ann": before["Cid"], "Ben": before["Ann"], "Cid": before["Ben"]}
    # the rulebook: a tempura pair is 5 (Ann), three sashimi 10 (Ben), squid nigiri on wasabi 9 + a dumpling 1 (Cid)
    assert [points(page, p) for p in PLAYERS] == ["5", "10", "10"]
    page.locator("#undo").tap()
    assert {p: chips(page, p) for p in PLAYERS} == before

    # the other way: Ann's cards to Cid
    page.locator("#turn-previous").tap()
    assert {p: chips(page, p) for p in PLAYERS} == {"Ann": before["Ben"], "Ben": before["Cid"], "Cid": before["Ann"]}
    page.locator("#undo").tap()

    # two players swapped: Ben and Cid
    page.locator("#swap-a").select_option(label="Ben")
    page.locator("#swap-b").select_option(label="Cid")
    page.locator("#swap-seats").tap()
    assert {p: chips(page, p) for p in PLAYERS} == {"Ann": before["Ann"], "Ben": before["Cid"], "Cid": before["Ben"]}
    page.locator("#undo").tap()
    assert {p: chips(page, p) for p in PLAYERS} == before
    page.locator("#redo").tap()
    assert chips(page, "Ben") == before["Cid"]
    context.close()
