"""The page language: Accept-Language, the language menu on every page, the cookie, <html lang>."""

from __future__ import annotations

import re

import pytest

LANGS = {"en": "Games", "fr": "Parties", "is": "Spil", "pl": "Gry", "es": "Partidas"}


def _lang(html: str) -> str:
    match = re.search(r'<html lang="([^"]+)"', html)
    assert match
    return match.group(1)


@pytest.mark.parametrize(("header", "lang"), [
    ("fr-FR,fr;q=0.9,en;q=0.8", "fr"), ("is", "is"), ("pl-PL", "pl"), ("es-419,es;q=0.9", "es"),
    ("de-DE,de;q=0.9", "en"), ("", "en"), ("de, pl;q=0.5", "pl"),
])
def test_the_browsers_language_is_chosen(client, header, lang):
    page = client.get("/", headers={"Accept-Language": header} if header else {})
    html = page.get_data(as_text=True)
    assert _lang(html) == lang
    assert f'class="nav-link">{LANGS[lang]}</a>' in html
    assert "Accept-Language" in page.headers["Vary"]


@pytest.mark.parametrize("path", ["/", "/games/new"])
def test_every_page_offers_every_language(client, path):
    html = client.get(path).get_data(as_text=True)
    for code in LANGS:
        assert f'href="/language/{code}?next=' in html


def test_a_chosen_language_is_remembered_over_the_browsers(client):
    answer = client.get("/language/is?next=/games/new", headers={"Accept-Language": "fr"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/games/new"
    assert "lang=is" in answer.headers["Set-Cookie"]
    html = client.get("/games/new", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert _lang(html) == "is" and "Nýtt spil" in html


def test_the_menu_links_back_to_the_page_it_was_on(client):
    html = client.get("/games/new?x=1", headers={"Accept-Language": "es"}).get_data(as_text=True)
    link = re.search(r'href="(/language/pl\?next=[^"]+)"', html)
    assert link
    answer = client.get(link.group(1).replace("&amp;", "&"))
    assert answer.headers["Location"] == "/games/new?x=1"


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil.example"])
def test_the_language_switch_never_leaves_the_site(client, target):
    answer = client.get("/language/fr", query_string={"next": target})
    assert answer.status_code == 303 and answer.headers["Location"] == "/"


def test_an_unknown_language_is_a_404(client):
    assert client.get("/language/de").status_code == 404
    # a cookie naming a language sushicam lacks falls back to the browser's
    client.set_cookie("lang", "de")
    assert _lang(client.get("/", headers={"Accept-Language": "pl"}).get_data(as_text=True)) == "pl"


def test_page_scripts_get_the_catalog_of_the_page_language(client):
    answer = client.get("/i18n/messages.json", headers={"Accept-Language": "pl"}).get_json()
    assert answer["lang"] == "pl" and answer["plural_categories"] == ["one", "few", "many"]
    assert answer["messages"]["New game"] == "Nowa gra"
    assert client.get("/i18n/messages.json").get_json()["messages"] == {}


def test_page_scripts_get_their_catalog_and_the_rulebooks_card_names(client):
    """/i18n/js.json: the js domain's words and each edition's card names in the page language.

    Oracles: the Spanish rulebook (Sushi Go Party!) prints "Pedido especial" and "Bandeja para
    llevar"; the Polish one calls the anniversary edition's dumpling "Gyoza"; Polish counts
    one / few / many."""
    spanish = client.get("/i18n/js.json", headers={"Accept-Language": "es"}).get_json()
    assert spanish["lang"] == "es"
    assert spanish["messages"]["Saving…"] == "Guardando…"
    assert spanish["messages"]["{n} card"] == ["{n} carta", "{n} cartas"]
    assert spanish["messages"]["card family\x04Desserts"] == "Postres"
    assert spanish["cards"]["party"]["special-order"] == "Pedido especial"
    assert spanish["cards"]["party"]["takeout-box"] == "Bandeja para llevar"
    polish = client.get("/i18n/js.json", headers={"Accept-Language": "pl"}).get_json()
    assert polish["plural_categories"] == ["one", "few", "many"]
    assert polish["messages"]["{n} card"] == ["{n} karta", "{n} karty", "{n} kart"]
    assert polish["kinds"]["anniversary"]["dumpling"] == "Gyoza"
    english = client.get("/i18n/js.json").get_json()
    assert english["messages"] == {} and english["cards"] == {}


@pytest.mark.parametrize("path", ["/", "/games/new"])
def test_every_page_loads_the_script_catalog_before_its_scripts(client, path):
    html = client.get(path).get_data(as_text=True)
    scripts = re.findall(r'<script src="/static/([\w.]+)', html)
    assert scripts[0] == "i18n.js", scripts
    assert 'data-i18n-catalog="/i18n/js.json"' in html
