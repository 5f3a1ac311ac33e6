"""What the review's card picker offers for a game, and the numbers its keys use."""

from __future__ import annotations

import pytest

from scorer.menus import MENUS
from web.catalogue import game_cards


@pytest.mark.parametrize("menu", sorted(MENUS))
def test_a_card_back_only_comes_with_a_takeout_box(menu):
    offered = {c["slug"] for c in game_cards("party", menu, 4)}
    assert ("card-back" in offered) == ("takeout-box" in MENUS[menu].kinds)


def test_every_card_has_the_number_of_its_place_in_the_list():
    for edition, menu in (("original", None), ("party", "master-menu"), ("anniversary", None)):
        cards = game_cards(edition, menu, 3)
        assert [c["hotkey"] for c in cards] == list(range(1, len(cards) + 1))
        # the game's own cards come first, so their numbers are the small ones
        assert [c["in_game"] for c in cards] == sorted((c["in_game"] for c in cards), reverse=True)
