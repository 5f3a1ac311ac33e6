"""The gettext catalogs: compiled and complete, plural forms per language, and ``sushicam score
--explain`` in the environment's language with the rulebooks' card names.

Oracles: the source's wrapped strings (extracted again here with Babel), each language's
grammar (Polish counts 1 / 2-4, 22-24 / 5-21, 25...; Icelandic counts 1, 21, 31 apart from 11),
and the names the rulebooks print (tests/test_card_names.py checks them against the books).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from scorer.i18n import NP_
from web.cli import main

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("translations_tool", ROOT / "tools" / "translations.py")
assert _spec and _spec.loader
tool = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = tool  # dataclasses look their module up there
_spec.loader.exec_module(tool)

CATALOGS = [(domain, lang) for domain in tool.DOMAINS for lang in tool.LANGUAGES]
IDS = [f"{domain.name}-{lang}" for domain, lang in CATALOGS]

#: translations that are rightly the English text: names of the game, and words the language
#: spells the same
SAME_IN = {
    "Sushi Go!": {"fr", "is", "pl", "es"},
    "Sushi Go Party!": {"fr", "is", "pl", "es"},
    "second": {"fr"},
    "{n} point": {"fr"},
    "{n} icon": {"pl"},  # "1 symbol" (Polish), like the English of "{n} symbol"
    "{n} symbol": {"pl"},
    # the page scripts' and pages' words spelt as in English
    "Nigiri": {"fr", "is", "pl", "es"},  # the family of nigiri cards: the card's name everywhere
    "Points": {"fr"},
    "Desserts": {"fr"},
    "nigiri": {"fr", "is", "pl", "es"},  # a menu fault's family of nigiri cards, as above
    "desserts": {"fr"},
    "%(width)s × %(height)s pixels": {"fr"},  # French says pixels too
    "Del": {"is", "pl"},  # the key as the keyboards of those languages label it
    "Total": {"fr", "es"},
    "Pause": {"fr"},
    "notes": {"fr"},
    "Menu (Sushi Go Party!)": {"fr", "pl"},
    "R%(number)s": {"es", "pl"},  # "Ronda", "Runda": the same letter
    # Polish says "menu" too (the Party card is "Menu")
    "menu: %(menu)s": {"pl"},
    "menu: %(problem)s": {"pl"},
}


def _key(message) -> tuple[str, str | None]:
    return (message.id[0] if isinstance(message.id, tuple) else message.id, message.context)


@pytest.mark.parametrize(("domain", "lang"), CATALOGS, ids=IDS)
def test_each_compiled_catalog_is_what_its_po_compiles_to(domain, lang):
    """The committed .mo files are what the package installs: they must match the .po."""
    assert domain.mo(lang).read_bytes() == tool.compiled(domain.po(lang), lang), (
        f"{domain.mo(lang)} is stale: run python tools/translations.py compile")


@pytest.mark.parametrize(("domain", "lang"), CATALOGS, ids=IDS)
def test_each_catalog_holds_every_wrapped_string_and_no_other(domain, lang):
    wrapped = {_key(m) for m in tool.extract(domain) if m.id}
    catalog = {_key(m) for m in tool.read(domain.po(lang), lang) if m.id}
    assert wrapped - catalog == set(), "run python tools/translations.py extract, update, then translate"
    assert catalog - wrapped == set(), "the catalog keeps strings the source no longer has"


def _has_words(text: str) -> bool:
    """Whether a message holds words, its placeholders ({name}, %(name)s) left out."""
    return bool(re.search(r"[^\W\d_]", re.sub(r"\{[^}]*\}|%\(\w+\)[sd]", "", text)))


@pytest.mark.parametrize(("domain", "lang"), CATALOGS, ids=IDS)
def test_no_message_is_left_untranslated(domain, lang):
    catalog = tool.read(domain.po(lang), lang)
    assert not catalog.fuzzy
    untranslated, english = [], []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if isinstance(message.id, tuple):
            assert len(strings) == catalog.num_plurals, message.id
        if message.fuzzy or not all(strings):
            untranslated.append(ids[0])
        elif any(s in ids for s in strings) and _has_words(ids[0]) and lang not in SAME_IN.get(ids[0], ()):
            english.append(ids[0])
        for s in strings:  # a translation names the same placeholders as its message
            assert set(re.findall(r"\{(\w+)\}", s)) <= set(re.findall(r"\{(\w+)\}", " ".join(ids))) | {"n"}, s
    assert untranslated == []
    assert english == [], "left in English"


def test_plural_forms_per_language():
    cards = [NP_("{n} card", "{n} cards", n) for n in (1, 2, 5, 12, 22, 25)]
    assert [c.render("pl") for c in cards] == ["1 karta", "2 karty", "5 kart", "12 kart", "22 karty", "25 kart"]
    icons = [NP_("{n} icon", "{n} icons", n) for n in (1, 2, 11, 21)]
    assert [i.render("is") for i in icons] == ["1 mynd", "2 myndir", "11 myndir", "21 mynd"]
    assert [NP_("{n} pair", "{n} pairs", n).render("fr") for n in (0, 1, 2)] == ["0 paire", "1 paire", "2 paires"]
    assert [NP_("{n} pair", "{n} pairs", n).render("es") for n in (0, 1, 2)] == ["0 parejas", "1 pareja", "2 parejas"]
    plurals = {lang: tool.read(tool.DOMAINS[1].po(lang), lang).num_plurals for lang in tool.LANGUAGES}
    assert plurals == {"fr": 2, "is": 2, "pl": 3, "es": 2}


# One game per rulebook's edition, each scoring many kinds of lines.
ORIGINAL = {
    "edition": "original", "players": ["Ann", "Ben", "Cid"],
    "rounds": [
        {"tableaux": {"Ann": ["maki-3", "maki-2", "tempura", "tempura", ["wasabi", "squid-nigiri"]],
                      "Ben": ["maki-3", "maki-2", "salmon-nigiri", "egg-nigiri", "chopsticks"],
                      "Cid": ["dumpling", "dumpling", "dumpling", "sashimi", "sashimi", "sashimi"]}},
        {"tableaux": {"Ann": ["pudding", "pudding"], "Ben": ["pudding"], "Cid": ["maki-1"]}},
        {"tableaux": {"Ann": ["wasabi"], "Ben": ["pudding"], "Cid": ["tempura"]}},
    ],
}
ANNIVERSARY = {
    "edition": "anniversary", "players": ["Ann", "Ben"],
    "rounds": [
        {"tableaux": {"Ann": ["futomaki-3", "gyoza", "gyoza", "strawberry-pudding-2"],
                      "Ben": ["futomaki-1", ["wasabi", "salmon-nigiri"], "chopsticks"]}},
        {"tableaux": {"Ann": ["sashimi"], "Ben": ["strawberry-pudding-4"]}},
        {"tableaux": {"Ann": ["tempura"], "Ben": ["egg-nigiri"]}},
    ],
}
PARTY = {
    "edition": "party", "players": ["Ann", "Ben", "Cid"],
    "rounds": [{"tableaux": {
        "Ann": ["miso-soup", "eel", "eel", "tofu", "soy-sauce", "salmon-nigiri"],
        "Ben": ["card-back", "card-back", "tofu", "tofu", "temaki", "squid-nigiri"],
        "Cid": ["eel", "temaki", "temaki", "green-tea-ice-cream", "egg-nigiri"]}}],
}

GAMES = {
    # language: (game, names its rulebook prints that the explanation must use)
    "fr": (ORIGINAL, ["Sushi au calamar", "Sushi au saumon", "Sushi à l'omelette", "Ravioli", "Dessert",
                      "Maki", "Sashimi", "Tempura"]),
    "is": (ORIGINAL, ["Smokkfisks-nigiri", "Laxa-nigiri", "Eggja-nigiri", "Hveitibollur", "Búðingur",
                      "Maki-rúllur"]),
    "pl": (ANNIVERSARY, ["Futomaki", "Gyoza", "Pudding truskawkowy", "Nigiri z łososiem", "Nigiri z jajkiem"]),
    "es": (PARTY, ["Sopa de miso", "Anguila", "Tofu", "Salsa de soja", "Bandeja para llevar", "Temaki",
                   "Nigiri de salmón", "Nigiri de calamar", "Nigiri de tortilla"]),
}
LOCALES = {"fr": "fr_FR.UTF-8", "is": "is_IS.UTF-8", "pl": "pl_PL.UTF-8", "es": "es_ES.UTF-8"}


def _explain(tmp_path, capsys, record, *extra) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["score", str(path), "--explain", *extra]) == 0
    return capsys.readouterr().out


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]+", text))


@pytest.mark.parametrize("lang", list(GAMES))
def test_explain_follows_LANG_with_the_rulebooks_card_names(lang, tmp_path, capsys, monkeypatch):
    record, names = GAMES[lang]
    english = _explain(tmp_path, capsys, record)
    monkeypatch.setenv("LANG", LOCALES[lang])
    text = _explain(tmp_path, capsys, record)
    for name in names:
        assert name in text
    # a leak: an English word of the English explanation that the language's own texts lack
    catalog = tool.read(tool.DOMAINS[1].po(lang), lang)
    own = set(record["players"])
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        own |= _words(" ".join(strings))
    from scorer.names import NAMES
    own |= _words(" ".join(n.text for n in NAMES[lang].values()))
    leaked = {w for w in _words(text) & _words(english) if w not in own}
    assert leaked == set()
    assert text.count("\n") == english.count("\n")  # the same lines, translated


def test_lang_option_wins_over_the_environment(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert "Ganador" in _explain(tmp_path, capsys, ORIGINAL, "--lang", "es") or "Ganadores" in _explain(
        tmp_path, capsys, ORIGINAL, "--lang", "es")
    monkeypatch.setenv("LANGUAGE", "pl:fr")
    assert "Runda 1" in _explain(tmp_path, capsys, ORIGINAL)
    monkeypatch.setenv("LC_ALL", "C")  # C means untranslated, whatever LANGUAGE says
    assert "Round 1" in _explain(tmp_path, capsys, ORIGINAL)


def test_the_json_is_the_same_in_every_language(tmp_path, capsys, monkeypatch):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(PARTY), encoding="utf-8")
    assert main(["score", str(path)]) == 0
    english = capsys.readouterr().out
    for lang in LOCALES.values():
        monkeypatch.setenv("LANG", lang)
        assert main(["score", str(path)]) == 0
        assert capsys.readouterr().out == english
