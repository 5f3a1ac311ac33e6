"""The player's language: Flask-Babel's catalogs, chosen per request, switchable on every page.

The language is, in order: the one the player picked in the page's language menu (kept in the
``lang`` cookie for a year), else the best of the browser's ``Accept-Language`` among
:data:`LANGUAGES`, else English. Pages are translated with gettext catalogs
(``web/translations/<lang>/LC_MESSAGES/messages.mo``, domain ``messages``); what the scorer
says (breakdowns, card names) comes from the scorer's own catalog (:mod:`scorer.i18n`) and
card-name table (:mod:`scorer.names`), rendered in the same language. Numbers and dates go
through Flask-Babel's ``format_number``/``format_datetime`` (Babel's locale data), also
installed as the Jinja filters ``numberformat`` and ``datetimeformat``; a stored time reads through the ``when`` filter.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from pathlib import Path

from babel.support import Translations
from flask import Blueprint, Flask, abort, has_request_context, jsonify, redirect, request
from flask_babel import Babel, format_datetime, get_locale, get_translations
from werkzeug.wrappers import Response

from scorer.cards import ALL_EDITIONS, CARDS, KINDS
from scorer.i18n import ENGLISH, LANGUAGES, render
from scorer.names import card_name, kind_name
from scorer.scoring import EDITION_NAMES, VARIANT_NAMES

TRANSLATIONS_DIR = Path(__file__).with_name("translations")
COOKIE = "lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
#: each language in its own words, as the language menu lists it
LANGUAGE_NAMES = {
    "en": "English",
    "fr": "Français",
    "is": "Íslenska",
    "pl": "Polski",
    "es": "Español",
}

bp = Blueprint("i18n", __name__)
babel = Babel()


def select_locale() -> str:
    """The request's language: the cookie's, else the browser's best, else English (and English
    outside a request: the CLI's messages)."""
    if not has_request_context():
        return ENGLISH
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES, default=ENGLISH) or ENGLISH


def current_language() -> str:
    locale = get_locale()
    return locale.language if locale is not None and locale.language in LANGUAGES else ENGLISH


def page_language() -> str:
    """The request's language, or English outside a request (the CLI, doctests)."""
    return current_language() if has_request_context() else ENGLISH


def when(stamp: str) -> str:
    """A stored UTC time (``2026-12-01T21:51:00Z``) as the page's language writes a date and time;
    English pages keep the ISO form (``2026-12-01 21:51``)."""
    if page_language() == ENGLISH:
        return f"{stamp[:10]} {stamp[11:16]}"
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    return format_datetime(moment, "short")


def edition_names() -> dict[str, str]:
    """Each edition's name in the page's language (the scorer's catalog)."""
    lang = page_language()
    return {key: render(name, lang) for key, name in EDITION_NAMES.items()}


def variant_name(key: str) -> str:
    return render(VARIANT_NAMES[key], page_language()) if key in VARIANT_NAMES else key


def _local_path(target: str | None) -> str:
    """``target`` when it is a path of this site, else the home page (no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


@bp.get("/language/<code>")
def choose(code: str) -> Response:
    """Switch to ``code`` and go back to the page the menu was opened on (``?next=``)."""
    if code not in LANGUAGES:
        abort(404)
    response = redirect(_local_path(request.args.get("next")), code=303)
    response.set_cookie(COOKIE, code, max_age=COOKIE_MAX_AGE, samesite="Lax", httponly=True)
    return response


#: the gettext plural forms of each catalog, in order, as the browser's ``Intl.PluralRules``
#: names them: a script picks ``forms[categories.indexOf(rules.select(n))]`` (no eval needed)
PLURAL_CATEGORIES = {
    "en": ("one", "other"), "fr": ("one", "other"), "es": ("one", "other"),
    "is": ("one", "other"), "pl": ("one", "few", "many"),
}


@bp.get("/i18n/messages.json")
def messages() -> Response:
    """The page language's catalog for the page scripts: ``{msgid: text or [plural forms]}``.

    The scripts' strings are extracted into the same ``messages`` catalog as the templates'
    (``babel.cfg``); the scripts read them here (context ``"ctx\x04msgid"``, as gettext keys it).
    """
    lang = current_language()
    catalog = _entries(get_translations())
    response = jsonify({"lang": lang, "plural_categories": PLURAL_CATEGORIES[lang], "messages": catalog})
    response.cache_control.max_age = 3600
    return response


def _entries(translations: object) -> dict[str, object]:
    """A gettext catalog as JSON: ``{msgid: text}``, ``{msgid: [plural forms]}`` for plurals,
    ``"context\x04msgid"`` for messages with a context (as gettext keys them)."""
    catalog: dict[str, object] = {}
    for key, text in getattr(translations, "_catalog", {}).items():
        if isinstance(key, tuple):
            forms = catalog.setdefault(key[0], [])
            if isinstance(forms, list):
                forms.append(text)
        elif key:
            catalog[key] = text
    return catalog


@cache
def script_catalog(lang: str) -> dict[str, object]:
    """What ``/i18n/js.json`` answers in ``lang``: the ``js`` domain's messages, the plural
    categories of its forms, and every card's and kind's name in each edition as that
    language's rulebook prints it (:mod:`scorer.names`). English has no messages (the scripts'
    own text is the English) and no names (the pages carry the English names already)."""
    if lang == ENGLISH or lang not in LANGUAGES:
        return {"lang": ENGLISH, "plural_categories": PLURAL_CATEGORIES[ENGLISH], "messages": {},
                "cards": {}, "kinds": {}}
    translations = Translations.load(str(TRANSLATIONS_DIR), [lang], domain="js")
    editions = sorted(ALL_EDITIONS)
    return {
        "lang": lang,
        "plural_categories": PLURAL_CATEGORIES[lang],
        "messages": _entries(translations),
        "cards": {e: {slug: card_name(slug, lang, e) for slug in CARDS} for e in editions},
        "kinds": {e: {kind: kind_name(kind, lang, e) for kind in KINDS} for e in editions},
    }


@bp.get("/i18n/js.json")
def js_catalog() -> Response:
    """The page scripts' words and the card names in the page's language (``web/static/i18n.js``
    fetches it once per page, before the scripts write any text)."""
    response = jsonify(script_catalog(current_language()))
    response.cache_control.max_age = 3600
    return response


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS_DIR))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", ENGLISH)
    babel.init_app(app, locale_selector=select_locale)
    app.jinja_env.filters["when"] = when

    @app.context_processor
    def language():
        lang = current_language()
        next_page = request.full_path.rstrip("?") if request else "/"
        return {
            "current_language": lang,
            "language_names": LANGUAGE_NAMES,
            "language_next": next_page,
            # the scorer's words and the cards' printed names, in the page's language
            "scorer_text": lambda value: render(value, lang),
            "card_name": lambda slug, edition=None: card_name(slug, lang, edition),
            "edition_names": edition_names(),
            "variant_name": variant_name,
        }

    @app.after_request
    def vary_on_language(response):
        # the same URL answers in the language the browser asks for
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
        return response
