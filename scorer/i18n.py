"""The scorer's words in the player's language, through stdlib gettext (domain ``scorer``).

The scorer builds what it says as :class:`Text`: an English message (the gettext msgid, with
its plural) and its arguments, rendered only when shown. ``str(text)`` is the English, which is
what the JSON of ``sushicam score`` carries, so its contract does not depend on a language;
``text.render("pl")`` reads the message from the compiled catalog
``scorer/locale/pl/LC_MESSAGES/scorer.mo`` with Polish plural forms, and card names from
:mod:`scorer.names` as the Polish rulebook prints them.

Messages are marked for extraction (``pybabel extract``, see ``babel.cfg``) with
``N_("...")`` and ``NP_("singular", "plural", n)``; their placeholders are ``str.format``
fields (``{n}`` is the count).

>>> cards = NP_("{n} card", "{n} cards", 3)
>>> str(cards), cards.render("fr"), NP_("{n} card", "{n} cards", 5).render("pl")
('3 cards', '3 cartes', '5 kart')
>>> NP_("{n} card", "{n} cards", 2).render("pl"), NP_("{n} card", "{n} cards", 22).render("pl")
('2 karty', '22 karty')
>>> str(joined([NP_("{n} card", "{n} cards", 1), N_("most")]))
'1 card, most'
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

LOCALE_DIR = Path(__file__).with_name("locale")
DOMAIN = "scorer"
ENGLISH = "en"
#: the languages the rulebooks come in, besides English (the catalogs under ``scorer/locale``)
LANGUAGES = (ENGLISH, "fr", "is", "pl", "es")


class Renderable(Protocol):
    def render(self, lang: str = ENGLISH) -> str: ...


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (English and unknown languages: the msgids themselves)."""
    if lang == ENGLISH or lang not in LANGUAGES:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


@dataclass(frozen=True)
class Text:
    """A message and its arguments (values, or other :class:`Text` and names, rendered alike)."""

    msgid: str
    plural: str | None = None
    n: int = 1
    args: tuple[tuple[str, object], ...] = ()

    def render(self, lang: str = ENGLISH) -> str:
        catalog = translations(lang)
        template = (catalog.gettext(self.msgid) if self.plural is None
                    else catalog.ngettext(self.msgid, self.plural, self.n))
        values = {key: render(value, lang) for key, value in self.args}
        return template.format(**({"n": self.n} | values))

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class Joined:
    """Parts shown one after the other, separated by ``sep`` (the same in every language)."""

    parts: tuple[object, ...]
    sep: str = ", "

    def render(self, lang: str = ENGLISH) -> str:
        return self.sep.join(render(p, lang) for p in self.parts)

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class ByLanguage:
    """A text that English writes one way (kept as it was) and the other languages another."""

    english: object
    other: object

    def render(self, lang: str = ENGLISH) -> str:
        return render(self.english if lang == ENGLISH else self.other, lang)

    def __str__(self) -> str:
        return self.render()


def render(value: object, lang: str = ENGLISH) -> str:
    """``value`` as ``lang`` reads it: a :class:`Text`-like object rendered, anything else str()."""
    method = getattr(value, "render", None)
    return method(lang) if callable(method) else str(value)


def N_(msgid: str, /, **args: object) -> Text:  # noqa: N802 (the gettext marker's usual name)
    """A message without a count."""
    return Text(msgid, None, 1, tuple(args.items()))


def NP_(singular: str, plural: str, n: int, /, **args: object) -> Text:  # noqa: N802
    """A message whose words follow the count ``n`` (``{n}`` in the text)."""
    return Text(singular, plural, n, tuple(args.items()))


def joined(parts: Iterable[object], sep: str = ", ") -> Joined:
    return Joined(tuple(parts), sep)


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language gettext would pick from ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``.

    As in GNU gettext, ``LANGUAGE`` (a colon-separated list) is read first, then the first of
    the others that is set; ``C``/``POSIX`` mean English. The first language sushicam has wins.

    >>> language_from_environment({"LANG": "fr_FR.UTF-8"})
    'fr'
    >>> language_from_environment({"LANGUAGE": "de:pl", "LANG": "fr_FR.UTF-8"})
    'pl'
    >>> language_from_environment({"LC_ALL": "C", "LANG": "is_IS.UTF-8"})
    'en'
    """
    env = os.environ if environ is None else environ
    locale = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    candidates: list[str] = []
    if env.get("LANGUAGE") and locale not in ("C", "POSIX"):
        candidates += env["LANGUAGE"].split(":")
    candidates.append(locale)
    for candidate in candidates:
        code = normalize(candidate)
        if code:
            return code
    return ENGLISH


def normalize(tag: str) -> str | None:
    """``"pl_PL.UTF-8"``, ``"es-419"``, ``"IS"`` -> the language sushicam has, else ``None``.

    >>> normalize("pl_PL.UTF-8"), normalize("es-419"), normalize("de_DE"), normalize("C")
    ('pl', 'es', None, 'en')
    """
    base = tag.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].strip().lower()
    if base in ("c", "posix"):
        return ENGLISH
    return base if base in LANGUAGES else None
