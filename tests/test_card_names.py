"""Card names as each language's rulebook prints them (scorer/names.py, docs/card-names.md).

The oracle is the rulebooks' text in ../shared/seeds: every name the table attributes to a
rulebook must be printed on the line it cites.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.cards import CARDS
from scorer.names import NAMES, RULEBOOKS, card_name, kind_name, markdown_table, required_keys

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"

CITED = [(lang, key, name) for lang, table in NAMES.items() for key, name in table.items() if not name.ours]


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


@pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside the repository")
@pytest.mark.parametrize(("lang", "key", "name"), CITED, ids=[f"{lang}-{key}" for lang, key, _ in CITED])
def test_each_rulebook_name_is_printed_on_the_line_it_cites(lang, key, name):
    lines = (SEEDS / RULEBOOKS[lang]).read_text(encoding="utf-8").splitlines()
    assert name.line is not None and 1 <= name.line <= len(lines)
    assert _fold(name.text) in _fold(lines[name.line - 1]), (
        f"{RULEBOOKS[lang]} line {name.line} does not print {name.text!r}: {lines[name.line - 1]!r}")


@pytest.mark.parametrize("lang", list(NAMES))
def test_every_card_has_a_name_in_every_language(lang):
    """No kind falls back to English: each language's table holds every kind and named face."""
    missing = [key for key in required_keys() if key not in NAMES[lang]]
    assert not missing
    for slug, face in CARDS.items():
        for edition in face.editions:
            name = card_name(slug, lang, edition)
            assert name and name.strip() == name


def test_the_books_own_names_are_used():
    """The names the issue quotes from the French, Icelandic, Polish and Spanish books."""
    assert [card_name(s, "fr") for s in ("salmon-nigiri", "dumpling", "chopsticks")] == [
        "Sushi au saumon", "Ravioli", "Baguettes"]
    assert [card_name(s, "is").lower() for s in ("salmon-nigiri", "dumpling", "chopsticks")] == [
        "laxa-nigiri", "hveitibollur", "matprjónar"]
    assert [card_name(s, "pl", "anniversary").lower() for s in ("salmon-nigiri", "chopsticks", "gyoza")] == [
        "nigiri z łososiem", "pałeczki", "gyoza"]
    assert [card_name(s, "es", "party") for s in ("special-order", "miso-soup", "green-tea-ice-cream", "takeout-box")] == [
        "Pedido especial", "Sopa de miso", "Helado de té verde", "Bandeja para llevar"]


def test_names_follow_the_edition_played():
    # the anniversary edition renames the dumpling and the pudding; the others keep them
    assert kind_name("dumpling", "fr", "original") == "Ravioli"
    assert kind_name("dumpling", "fr", "anniversary") == "Gyoza"
    assert kind_name("pudding", "pl", "anniversary") == "Stary, dobry pudding"
    assert kind_name("pudding", "pl", "party") == "Pudding"
    assert kind_name("pudding", "en", "anniversary") == "Old-Fashioned Pudding"


def test_the_document_is_the_table():
    text = (ROOT / "docs" / "card-names.md").read_text(encoding="utf-8")
    assert markdown_table() in text, "docs/card-names.md is stale: rewrite its table with python -m scorer.names"
