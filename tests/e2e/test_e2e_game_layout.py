"""The game page's round summaries at a laptop's 1366 px: stacked cards wrap inside their
player's cell, and no card chip is cut off or runs into the next column."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PLAYERS = ["Annabelle", "Benedict", "Cid", "Dorothea"]
MENU = ["nigiri", "maki", "tempura", "sashimi", "dumpling", "wasabi", "special-order", "fruit"]
TABLEAUX = {  # a special order on a nigiri on a wasabi, on a tempura, on a nigiri; fruits beside
    "Annabelle": [["wasabi", "salmon-nigiri", "special-order"], "fruit-watermelon-pineapple", "fruit-pineapple-orange",
                  "maki-3", "tempura"],
    "Benedict": [["tempura", "special-order"], ["wasabi", "squid-nigiri"], "fruit-watermelon-orange", "dumpling", "maki-2"],
    "Cid": [["salmon-nigiri", "special-order"], "fruit-watermelon-watermelon", "sashimi", "sashimi", "sashimi"],
    "Dorothea": [["wasabi", "egg-nigiri"], "fruit-pineapple-pineapple", "dumpling", "tempura", "maki-1"],
}
ROUNDS = [{"tableaux": TABLEAUX}]


def inside(inner, outer, slack: float = 0.5) -> bool:
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def test_stacked_cards_stay_inside_their_cells_at_1366(browser, scripted_server, import_game, artifacts):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    import_game(page, scripted_server, {"edition": "party", "players": PLAYERS, "menu": MENU, "rounds": ROUNDS})
    page.locator("#round-1").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "game-1366-round-summary.png"), full_page=True)
    cells = page.locator("#round-1 .player-round")
    assert cells.count() == len(PLAYERS)
    for i in range(cells.count()):
        cell = cells.nth(i)
        cell_box = cell.bounding_box()
        chips = cell.locator(".tableau .chip")
        cards = sum(len(e) if isinstance(e, list) else 1 for e in TABLEAUX[PLAYERS[i]])
        assert chips.count() == cards  # every card of the tableau shows, stacked ones too
        boxes = []
        for j in range(chips.count()):
            chip = chips.nth(j)
            box = chip.bounding_box()
            assert inside(box, cell_box), (chip.inner_text(), box, cell_box)
            # nothing cut off within the chip: its text fits the chip
            assert chip.evaluate("(node) => node.scrollWidth <= node.clientWidth + 1"), chip.inner_text()
            boxes.append(box)
        for a in range(len(boxes)):
            for b in range(a + 1, len(boxes)):
                x = min(boxes[a]["x"] + boxes[a]["width"], boxes[b]["x"] + boxes[b]["width"]) - max(boxes[a]["x"], boxes[b]["x"])
                y = min(boxes[a]["y"] + boxes[a]["height"], boxes[b]["y"] + boxes[b]["height"]) - max(boxes[a]["y"], boxes[b]["y"])
                assert x <= 0.5 or y <= 0.5, "two chips overlap"
    page.close()
