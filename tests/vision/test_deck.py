"""Naming only the cards a game's deck holds, and flagging what it cannot hold (issue 12.3).

The oracle is the Sushi Go Party! rulebook (``../shared/seeds/sushi-go-party.es.txt``):
its "SELECCIÓN DE PLATOS" tiles (lines 56-93) list each menu's eight dishes, its
"CONTENIDO" (lines 33-37) the copies of each card; both transcribed here by hand.
"""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.deck import BEYOND_DECK, NOT_IN_EDITION, NOT_IN_MENU, Deck, DeckError, flag_cards
from vision.describe import describe_image
from vision.detections import Detections
from vision.recognizer import CROP_ONLY, Recognizer
from vision.synth import compose_table

ROOT = Path(__file__).resolve().parents[2]

NIGIRI = {"egg-nigiri", "salmon-nigiri", "squid-nigiri"}
MAKI = {"maki-1", "maki-2", "maki-3"}
URAMAKI = {"uramaki-3", "uramaki-4", "uramaki-5"}
ONIGIRI = {"onigiri-circle", "onigiri-triangle", "onigiri-square", "onigiri-rectangle"}
FRUIT = {"fruit-watermelon-watermelon", "fruit-pineapple-pineapple", "fruit-orange-orange",
         "fruit-watermelon-pineapple", "fruit-pineapple-orange", "fruit-watermelon-orange"}

# the rulebook's tiles, one menu a line (GYOZA is the Party dumpling, PALILLOS chopsticks,
# BANDEJA PARA LLEVAR the take-out box, whose face-down cards show their backs)
RULEBOOK_MENUS = {
    # l. 56-58 MI PRIMERA COMIDA
    "my-first-meal": NIGIRI | MAKI | {"tempura", "sashimi", "miso-soup", "wasabi", "tea", "green-tea-ice-cream"},
    # l. 61-63 SUSHI GO!
    "sushi-go": NIGIRI | MAKI | {"tempura", "sashimi", "dumpling", "chopsticks", "wasabi", "pudding"},
    # l. 66-68 DELICATESSEN PARTY
    "party-sampler": NIGIRI | {"temaki", "tempura", "dumpling", "tofu", "wasabi", "menu", "green-tea-ice-cream"},
    # l. 71-73 MENÚ GOURMET
    "master-menu": NIGIRI | ONIGIRI | FRUIT | {"temaki", "tofu", "sashimi", "spoon", "takeout-box", "card-back"},
    # l. 76-78 SURTIDO DE PUNTOS
    "points-platter": NIGIRI | URAMAKI | ONIGIRI | {"dumpling", "edamame", "special-order", "tea",
                                                     "green-tea-ice-cream"},
    # l. 81-83 COMBO SALVAJE
    "cutthroat-combo": NIGIRI | {"temaki", "eel", "tofu", "miso-soup", "spoon", "soy-sauce", "pudding"},
    # l. 86-88 GRAN BANQUETE
    "big-banquet": NIGIRI | MAKI | {"tempura", "dumpling", "eel", "spoon", "chopsticks", "green-tea-ice-cream"},
    # l. 91-93 CENA PARA DOS
    "dinner-for-two": NIGIRI | URAMAKI | ONIGIRI | FRUIT | {"tofu", "miso-soup", "menu", "special-order"},
}


@pytest.mark.parametrize("menu", sorted(RULEBOOK_MENUS))
def test_a_menu_allows_exactly_the_faces_of_its_rulebook_tile(menu):
    assert Deck.of("party", menu).allowed == RULEBOOK_MENUS[menu]


def test_a_custom_menu_is_its_kinds_faces():
    kinds = ["nigiri", "uramaki", "tofu", "eel", "dumpling", "chopsticks", "menu", "pudding"]
    assert Deck.of("party", kinds).allowed == NIGIRI | URAMAKI | {"tofu", "eel", "dumpling", "chopsticks",
                                                                 "menu", "pudding"}


@pytest.mark.parametrize("edition, menu, words", [
    ("party", "omakase", "unknown menu"),
    ("original", "sushi-go", "only Sushi Go Party! has menus"),
    ("deluxe", None, "unknown edition"),
    ("party", ["nigiri", "maki", "temaki"], "kinds of rolls"),
])
def test_a_deck_that_cannot_be_is_refused_in_words(edition, menu, words):
    with pytest.raises(DeckError, match=words):
        Deck.of(edition, menu)


def cards(*labelled, seen_as=None):
    """Hand-built detections: (label, confidence) pairs, boxes side by side."""
    boxes = [[i * 100, 0, i * 100 + 80, 120] for i in range(len(labelled))]
    data = {"label": np.array([label for label, _ in labelled])}
    if seen_as is not None:
        data["seen_as"] = np.array(seen_as)
    return Detections(np.array(boxes, np.float32), confidence=np.array([c for _, c in labelled]), data=data)


def test_cards_beyond_a_deck_count_are_flagged_least_sure_first():
    # CONTENIDO: "EXTRAS 3 de cada: ... Wasabi"; four wasabi cannot all be wasabi
    found = flag_cards(cards(("wasabi", 0.9), ("wasabi", 0.5), ("wasabi", 0.8), ("wasabi", 0.95),
                             ("tempura", 0.6)), Deck.of("party", "sushi-go"))
    assert found.data["flag"].tolist() == ["", BEYOND_DECK, "", "", ""]


def test_the_twelve_nigiri_are_counted_together_across_toppings():
    # CONTENIDO: "NIGIRI 12: Nigiri", printed in three toppings
    labelled = [("salmon-nigiri", 0.9)] * 6 + [("egg-nigiri", 0.8)] * 4 + [("squid-nigiri", 0.7)] * 2
    deck = Deck.of("party", "cutthroat-combo")
    assert not any(flag_cards(cards(*labelled), deck).data["flag"])
    flags = flag_cards(cards(*labelled, ("egg-nigiri", 0.3)), deck).data["flag"].tolist()
    assert flags == [""] * 12 + [BEYOND_DECK]


def test_a_card_outside_the_menu_or_seen_as_one_is_flagged():
    deck = Deck.of("party", "sushi-go")
    found = flag_cards(cards(("eel", 0.9), ("tempura", 0.8), ("tempura", 0.7),
                             seen_as=["", "", "miso-soup"]), deck)
    assert found.data["flag"].tolist() == [NOT_IN_MENU, "", NOT_IN_MENU]
    # the original edition has no eel at all (its deck: sushi-go.fr.txt's contents)
    assert flag_cards(cards(("eel", 0.9)), Deck.of("original")).data["flag"].tolist() == [NOT_IN_EDITION]


class Boxes:
    """A detector that finds the given regions, whatever the photo."""

    def __init__(self, n):
        self.n = n

    def __call__(self, image, conf=0.25):
        return (np.array([[i * 100, 0, i * 100 + 80, 120] for i in range(self.n)], np.float32),
                np.full(self.n, 0.9, np.float32))


class Probabilities:
    """A classifier answering one scripted row per crop (so, per region: the recogniser
    below names each region from its crop alone)."""

    def __init__(self, rows):
        self.rows = np.array(rows, np.float32)

    def __call__(self, crops):
        return self.rows[:len(crops)]


CLASSES = ("eel", "not-a-card", "tempura", "wasabi")


def test_the_recogniser_names_only_allowed_faces_and_keeps_what_it_saw():
    recognizer = Recognizer(Boxes(3), Probabilities([
        [0.80, 0.05, 0.10, 0.05],  # an eel: outside the sushi-go menu
        [0.02, 0.03, 0.90, 0.05],  # a tempura
        [0.10, 0.85, 0.03, 0.02],  # a cup: no card at all
    ]), CLASSES, views=CROP_ONLY)
    image = np.zeros((200, 400, 3), np.uint8)
    free = recognizer.detect(image)
    assert free.labels == ["eel", "tempura"] and "seen_as" not in free.data
    limited = recognizer.detect(image, allowed=Deck.of("party", "sushi-go").allowed)
    assert limited.labels == ["tempura", "tempura"]
    assert limited.data["seen_as"].tolist() == ["eel", ""]
    # the flagged card keeps the confidence of what was seen: it reaches the player
    assert limited.confidence.tolist() == pytest.approx([0.9 * 0.8, 0.9 * 0.9])


@pytest.fixture(scope="module")
def eel_photo(faces, tmp_path_factory):
    image, _ = compose_table(31, [["eel", "tempura", "tempura", "wasabi"]], layout="loose", fill=0.8,
                             clutter=False)
    path = tmp_path_factory.mktemp("deck") / "eel.jpg"
    cv2.imwrite(str(path), image)
    return path


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_detect_with_a_menu_flags_the_card_it_cannot_hold(eel_photo):
    result = run_cli("detect", str(eel_photo), "--menu", "sushi-go")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)["cards"]
    flagged = [c for c in found if c.get("flag")]
    assert len(found) == 4 and len(flagged) == 1
    assert flagged[0]["flag"] == NOT_IN_MENU and flagged[0]["seen_as"] == "eel"
    assert flagged[0]["label"] in RULEBOOK_MENUS["sushi-go"]
    assert sorted(c["label"] for c in found if not c.get("flag")) == ["tempura", "tempura", "wasabi"]
    # the same photo with a custom menu that has eel: nothing to flag
    custom = run_cli("detect", str(eel_photo), "--menu", "nigiri,maki,tempura,sashimi,eel,chopsticks,wasabi,pudding")
    found = json.loads(custom.stdout)["cards"]
    assert sorted(c["label"] for c in found) == ["eel", "tempura", "tempura", "wasabi"]
    assert not any(c.get("flag") for c in found)


@pytest.mark.parametrize("args, words", [
    (["--menu", "omakase"], "unknown menu"),
    (["--edition", "original", "--menu", "sushi-go"], "only Sushi Go Party! has menus"),
])
def test_detect_refuses_a_deck_that_cannot_be_in_one_line(eel_photo, args, words):
    result = run_cli("detect", str(eel_photo), *args)
    assert result.returncode == 2 and result.stdout == ""
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_describe_image_flags_across_seats_against_one_deck(faces):
    recognizer = Recognizer.load(ROOT / "models")
    tableaux = [["wasabi", "wasabi", "tempura"], ["wasabi", "wasabi", "sashimi"]]
    image, _ = compose_table(32, tableaux, layout="loose", fill=0.85, clutter=False)
    line = describe_image(recognizer, image, seats=2, deck=Deck.of("party", "sushi-go"))
    flags = [c.get("flag", "") for seat in line["seats"] for c in seat["cards"] if c["label"] == "wasabi"]
    # four wasabi on the table, three in the deck (CONTENIDO: "3 de cada"): one is flagged
    assert sorted(flags) == ["", "", "", BEYOND_DECK]
