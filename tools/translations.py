"""Extract, update, compile and check sushicam's gettext catalogs (Babel).

Three domains, each with its own extraction map at the repository root:

- ``messages`` (``babel.cfg``): the web pages' templates and Python, read by Flask-Babel from
  ``web/translations/<lang>/LC_MESSAGES/messages.mo``;
- ``js`` (``babel-js.cfg``): what the page scripts (``web/static/*.js``) write, from
  ``web/translations/<lang>/LC_MESSAGES/js.mo``, handed to the scripts as JSON by
  ``/i18n/js.json`` (``web/i18n.py``, read by ``web/static/i18n.js``);
- ``scorer`` (``babel-scorer.cfg``): ``sushicam score --explain`` and the scorer's breakdowns,
  read with stdlib gettext from ``scorer/locale/<lang>/LC_MESSAGES/scorer.mo``.

The compiled ``.mo`` files are committed beside their ``.po`` files and listed as package data,
so an editable install (``pip install -e .``) and a wheel both carry them without a build step;
``tests/test_translations.py`` fails when a ``.mo`` is not what its ``.po`` compiles to, when
the source has a wrapped string the catalogs lack, or when a message is left untranslated.

After wrapping strings::

    python tools/translations.py extract   # write the .pot templates from the source
    python tools/translations.py update    # merge them into every language's .po
    # translate the new entries (msgstr) in each .po, then
    python tools/translations.py compile   # write the .mo files

A domain's name after the command (``python tools/translations.py update js``) runs it on that
domain only.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("fr", "is", "pl", "es")
#: gettext's plural rules where they differ from Babel's CLDR-derived ones: French and Spanish
#: have a singular and a plural (CLDR adds a form for a million and up, which no count here
#: reaches); Icelandic (two: 1, 21, 31... are singular, 11 is not) and Polish (three: 1; 2-4,
#: 22-24...; the rest) are Babel's.
PLURAL_FORMS = {"fr": (2, "(n > 1)"), "es": (2, "(n != 1)")}


@dataclass(frozen=True)
class Domain:
    name: str
    mapping: Path
    directory: Path
    keywords: dict

    def pot(self) -> Path:
        return self.directory / f"{self.name}.pot"

    def po(self, lang: str) -> Path:
        return self.directory / lang / "LC_MESSAGES" / f"{self.name}.po"

    def mo(self, lang: str) -> Path:
        return self.directory / lang / "LC_MESSAGES" / f"{self.name}.mo"


_GETTEXT = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
            "npgettext": ((1, "c"), 2, 3), "lazy_gettext": None, "lazy_ngettext": (1, 2)}

DOMAINS = (
    Domain("messages", ROOT / "babel.cfg", ROOT / "web" / "translations", _GETTEXT),
    Domain("scorer", ROOT / "babel-scorer.cfg", ROOT / "scorer" / "locale",
           {"N_": None, "NP_": (1, 2)}),
    Domain("js", ROOT / "babel-js.cfg", ROOT / "web" / "translations",
           {"_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}),
)


def extract(domain: Domain) -> Catalog:
    """The template catalog of ``domain``, read from the source."""
    with domain.mapping.open(encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    catalog = Catalog(project="sushicam", domain=domain.name, charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=domain.keywords, comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    ):
        if domain.name == "messages" and filename.startswith(("scorer/", "tests/", "tools/")):
            continue
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def read(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


def compiled(po: Path, lang: str) -> bytes:
    """The ``.mo`` bytes ``po`` compiles to."""
    out = io.BytesIO()
    write_mo(out, read(po, lang))
    return out.getvalue()


def write_pot(domain: Domain) -> None:
    domain.directory.mkdir(parents=True, exist_ok=True)
    with domain.pot().open("wb") as handle:
        write_po(handle, extract(domain), width=100, omit_header=False, sort_by_file=True,
                 include_lineno=False)


def update(domain: Domain) -> None:
    template = read(domain.pot())
    for lang in LANGUAGES:
        path = domain.po(lang)
        if path.exists():
            catalog = read(path, lang)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=lang, domain=domain.name, project="sushicam", charset="utf-8")
        if lang in PLURAL_FORMS:
            # Babel keeps the rule of a catalog in these two attributes (no public setter)
            catalog._num_plurals, catalog._plural_expr = PLURAL_FORMS[lang]  # type: ignore[attr-defined]
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        with path.open("wb") as handle:
            write_po(handle, catalog, width=100, sort_by_file=True, include_lineno=False)


def compile_all(domain: Domain) -> None:
    for lang in LANGUAGES:
        domain.mo(lang).write_bytes(compiled(domain.po(lang), lang))


def main(argv: list[str]) -> int:
    commands = {"extract": write_pot, "update": update, "compile": compile_all}
    names = [d.name for d in DOMAINS]
    if not 1 <= len(argv) <= 2 or argv[0] not in commands or not set(argv[1:]) <= set(names):
        print(f"usage: {Path(__file__).name} {{{','.join(commands)}}} [{'|'.join(names)}]", file=sys.stderr)
        return 2
    for domain in DOMAINS:
        if len(argv) == 1 or domain.name == argv[1]:
            commands[argv[0]](domain)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
