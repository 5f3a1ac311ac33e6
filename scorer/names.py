"""Card names as the rulebook of each language prints them, traced to the line they come from.

The rulebooks in ``../shared/seeds`` are the game's French and Icelandic (original edition),
Polish (10th anniversary edition) and Spanish (Sushi Go Party!) books. Each entry of
:data:`NAMES` is a :class:`Name`: the text, and the line of that language's rulebook
(:data:`RULEBOOKS`) that prints it, or ``None`` where the rulebook does not name the card (the
Party cards in the French, Icelandic and Polish books, the anniversary cards in the others):
those names are ours, written in the rulebook's style. ``docs/card-names.md`` is this table
(``python -m scorer.names`` writes it), and a test reads every cited name back from its line.

Entries are keyed by card kind (the category a breakdown shows), by slug where a face has a
name of its own (the three nigiri, the maki counts the original books print, gyoza), by
``"kind@edition"`` where an edition renames the card (the anniversary's old-fashioned pudding)
and by ``shape:``/``fruit:`` words for the onigiri and fruit faces. A card's name follows the
edition played: the dumpling is ``gyoza`` in the anniversary edition, its own slug.

>>> card_name("salmon-nigiri", "fr"), card_name("dumpling", "is"), card_name("chopsticks", "pl")
('Sushi au saumon', 'Hveitibollur', 'Pałeczki')
>>> card_name("special-order", "es"), card_name("maki-2", "fr"), card_name("uramaki-4", "es")
('Pedido especial', '2 Maki', 'Uramaki (4)')
>>> kind_name("pudding", "pl", "anniversary"), kind_name("dumpling", "pl", "anniversary")
('Stary, dobry pudding', 'Gyoza')
>>> card_name("fruit-watermelon-orange", "es"), card_name("onigiri-square", "pl")
('Fruta (sandía, naranja)', 'Onigiri (kwadrat)')
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.cards import ANNIVERSARY, CARDS, KINDS, card, display_name

#: the rulebook of each language, a file of ``../shared/seeds``
RULEBOOKS = {
    "fr": "sushi-go.fr.txt",
    "is": "sushi-go.is.txt",
    "pl": "sushi-go-10th-anniversary.pl.txt",
    "es": "sushi-go-party.es.txt",
}

#: kinds whose faces are told apart by the count printed on them: "Futomaki (2)"
COUNTED = ("maki", "futomaki", "uramaki", "strawberry-pudding", "frozen-yogurt", "bubble-tea")
SHAPES = ("circle", "triangle", "square", "rectangle")
FRUITS = ("watermelon", "pineapple", "orange")


@dataclass(frozen=True)
class Name:
    text: str
    line: int | None = None  # the rulebook line printing it; None: ours, in the book's style

    @property
    def ours(self) -> bool:
        return self.line is None


def _book(text: str, line: int) -> Name:
    return Name(text, line)


def _ours(text: str) -> Name:
    return Name(text, None)


NAMES: dict[str, dict[str, Name]] = {
    "fr": {
        "nigiri": _book("Sushi", 275),
        "egg-nigiri": _book("Sushi à l'omelette", 24),
        "salmon-nigiri": _book("Sushi au saumon", 22),
        "squid-nigiri": _book("Sushi au calamar", 23),
        "maki": _book("Maki", 91),
        "maki-1": _book("1 Maki", 27),
        "maki-2": _book("2 Maki", 25),
        "maki-3": _book("3 Maki", 26),
        "futomaki": _ours("Futomaki"),
        "temaki": _ours("Temaki"),
        "uramaki": _ours("Uramaki"),
        "tempura": _book("Tempura", 22),
        "sashimi": _book("Sashimi", 295),
        "dumpling": _book("Ravioli", 24),
        "gyoza": _ours("Gyoza"),
        "eel": _ours("Anguille"),
        "tofu": _ours("Tofu"),
        "edamame": _ours("Edamame"),
        "miso-soup": _ours("Soupe miso"),
        "onigiri": _ours("Onigiri"),
        "wasabi": _book("Wasabi", 26),
        "chopsticks": _book("Baguettes", 27),
        "soy-sauce": _ours("Sauce soja"),
        "tea": _ours("Thé"),
        "menu": _ours("Menu"),
        "spoon": _ours("Cuillère"),
        "special-order": _ours("Commande spéciale"),
        "takeout-box": _ours("Boîte à emporter"),
        "pudding": _book("Dessert", 25),
        "pudding@anniversary": _ours("Dessert d'antan"),
        "green-tea-ice-cream": _ours("Glace au thé vert"),
        "fruit": _ours("Fruits"),
        "strawberry-pudding": _ours("Dessert à la fraise"),
        "frozen-yogurt": _ours("Yaourt glacé"),
        "bubble-tea": _ours("Thé aux perles"),
        "mochi": _ours("Mochi"),
        "card-back": _ours("Carte retournée"),
        "shape:circle": _ours("cercle"),
        "shape:triangle": _ours("triangle"),
        "shape:square": _ours("carré"),
        "shape:rectangle": _ours("rectangle"),
        "fruit:watermelon": _ours("pastèque"),
        "fruit:pineapple": _ours("ananas"),
        "fruit:orange": _ours("orange"),
    },
    "is": {
        "nigiri": _book("Nigiri", 310),
        "egg-nigiri": _book("Eggja-nigiri", 166),
        "salmon-nigiri": _book("Laxa-nigiri", 162),
        "squid-nigiri": _book("Smokkfisks-nigiri", 156),
        "maki": _book("Maki-rúllur", 101),
        "maki-1": _book("1 Maki-rúlla", 28),
        "maki-2": _book("2 Maki-rúllur", 24),
        "maki-3": _book("3 Maki-rúllur", 26),
        "futomaki": _ours("Futomaki-rúllur"),
        "temaki": _ours("Temaki-rúllur"),
        "uramaki": _ours("Uramaki-rúllur"),
        "tempura": _book("Tempura", 17),
        "sashimi": _book("Sashimi", 19),
        "dumpling": _book("Hveitibollur", 21),
        "gyoza": _ours("Gyoza"),
        "eel": _ours("Áll"),
        "tofu": _ours("Tófú"),
        "edamame": _ours("Edamame-baunir"),
        "miso-soup": _ours("Misósúpa"),
        "onigiri": _ours("Onigiri"),
        "wasabi": _book("Wasabi", 38),
        "chopsticks": _book("Matprjónar", 40),
        "soy-sauce": _ours("Sojasósa"),
        "tea": _ours("Te"),
        "menu": _ours("Matseðill"),
        "spoon": _ours("Skeið"),
        "special-order": _ours("Sérpöntun"),
        "takeout-box": _ours("Nestisbox"),
        "pudding": _book("Búðingur", 36),
        "pudding@anniversary": _ours("Gamaldags búðingur"),
        "green-tea-ice-cream": _ours("Grænteís"),
        "fruit": _ours("Ávextir"),
        "strawberry-pudding": _ours("Jarðarberjabúðingur"),
        "frozen-yogurt": _ours("Frosin jógúrt"),
        "bubble-tea": _ours("Kúlute"),
        "mochi": _ours("Mochi"),
        "card-back": _ours("Spil á hvolfi"),
        "shape:circle": _ours("hringur"),
        "shape:triangle": _ours("þríhyrningur"),
        "shape:square": _ours("ferningur"),
        "shape:rectangle": _ours("rétthyrningur"),
        "fruit:watermelon": _ours("vatnsmelóna"),
        "fruit:pineapple": _ours("ananas"),
        "fruit:orange": _ours("appelsína"),
    },
    "pl": {
        "nigiri": _book("Nigiri", 554),
        "egg-nigiri": _book("Nigiri z jajkiem", 270),
        "salmon-nigiri": _book("Nigiri z łososiem", 266),
        "squid-nigiri": _book("Nigiri z kalmarem", 262),
        "maki": _ours("Maki"),
        "futomaki": _book("Futomaki", 223),
        "temaki": _ours("Temaki"),
        "uramaki": _ours("Uramaki"),
        "tempura": _book("Tempura", 235),
        "sashimi": _book("Sashimi", 243),
        "dumpling": _ours("Pierożki"),
        "gyoza": _book("Gyoza", 251),
        "eel": _ours("Węgorz"),
        "tofu": _ours("Tofu"),
        "edamame": _ours("Edamame"),
        "miso-soup": _ours("Zupa miso"),
        "onigiri": _ours("Onigiri"),
        "wasabi": _book("Wasabi", 274),
        "chopsticks": _book("Pałeczki", 280),
        "soy-sauce": _ours("Sos sojowy"),
        "tea": _ours("Herbata"),
        "menu": _ours("Menu"),
        "spoon": _ours("Łyżka"),
        "special-order": _ours("Zamówienie specjalne"),
        "takeout-box": _ours("Pudełko na wynos"),
        "pudding": _ours("Pudding"),
        "pudding@anniversary": _book("Stary, dobry pudding", 354),
        "green-tea-ice-cream": _ours("Lody z zielonej herbaty"),
        "fruit": _ours("Owoce"),
        "strawberry-pudding": _book("Pudding truskawkowy", 137),
        "frozen-yogurt": _book("Mrożony jogurt", 297),
        "bubble-tea": _book("Bubble tea", 325),
        "mochi": _book("Mochi", 374),
        "card-back": _ours("Karta zakryta"),
        "shape:circle": _ours("koło"),
        "shape:triangle": _ours("trójkąt"),
        "shape:square": _ours("kwadrat"),
        "shape:rectangle": _ours("prostokąt"),
        "fruit:watermelon": _ours("arbuz"),
        "fruit:pineapple": _ours("ananas"),
        "fruit:orange": _ours("pomarańcza"),
    },
    "es": {
        "nigiri": _book("Nigiri", 33),
        "egg-nigiri": _book("Nigiri de tortilla", 360),
        "salmon-nigiri": _book("Nigiri de salmón", 427),
        "squid-nigiri": _book("Nigiri de calamar", 427),
        "maki": _book("Maki", 34),
        "futomaki": _ours("Futomaki"),
        "temaki": _book("Temaki", 34),
        "uramaki": _book("Uramaki", 34),
        "tempura": _book("Tempura", 35),
        "sashimi": _book("Sashimi", 35),
        # the Party book calls the dumpling gyoza, the name the anniversary edition gives it
        "dumpling": _book("Gyoza", 35),
        "gyoza": _book("Gyoza", 35),
        "eel": _book("Anguila", 35),
        "tofu": _book("Tofu", 35),
        "edamame": _book("Edamame", 35),
        "miso-soup": _book("Sopa de miso", 35),
        "onigiri": _book("Onigiri", 35),
        "wasabi": _book("Wasabi", 36),
        "chopsticks": _book("Palillos", 36),
        "soy-sauce": _book("Salsa de soja", 36),
        "tea": _book("Té", 36),
        "menu": _book("Menú", 36),
        "spoon": _book("Cuchara", 36),
        "special-order": _book("Pedido especial", 36),
        "takeout-box": _book("Bandeja para llevar", 36),
        "pudding": _book("Pudin", 37),
        "pudding@anniversary": _ours("Pudin clásico"),
        "green-tea-ice-cream": _book("Helado de té verde", 37),
        "fruit": _book("Fruta", 37),
        "strawberry-pudding": _ours("Pudin de fresa"),
        "frozen-yogurt": _ours("Yogur helado"),
        "bubble-tea": _ours("Té de burbujas"),
        "mochi": _ours("Mochi"),
        "card-back": _ours("Carta volteada"),
        "shape:circle": _book("círculo", 263),
        "shape:triangle": _book("triángulo", 263),
        "shape:square": _book("cuadrado", 263),
        "shape:rectangle": _book("rectángulo", 263),
        "fruit:watermelon": _book("sandía", 477),
        "fruit:pineapple": _book("piña", 477),
        "fruit:orange": _book("naranja", 477),
    },
}

#: English kind names, as the breakdowns of ``sushicam score`` print them
ENGLISH_KINDS = {
    "nigiri": "Nigiri", "maki": "Maki", "futomaki": "Futomaki", "temaki": "Temaki",
    "uramaki": "Uramaki", "dumpling": "Dumpling", "onigiri": "Onigiri", "fruit": "Fruit",
    "strawberry-pudding": "Strawberry Pudding", "frozen-yogurt": "Frozen Yogurt",
    "bubble-tea": "Bubble Tea", "card-back": "Card Back",
}


def required_keys() -> list[str]:
    """The entries every language's table must hold, so no card falls back to English."""
    return [*KINDS, "egg-nigiri", "salmon-nigiri", "squid-nigiri", "gyoza", "pudding@anniversary",
            *(f"shape:{s}" for s in SHAPES), *(f"fruit:{f}" for f in FRUITS)]


def kind_name(kind: str, lang: str, edition: str | None = None) -> str:
    """A kind's name (a breakdown's category) in ``lang``, as ``edition`` calls it."""
    if lang not in NAMES:
        if kind == "dumpling" and edition == ANNIVERSARY:
            return "Gyoza"
        if kind in ENGLISH_KINDS:
            return ENGLISH_KINDS[kind]
        return display_name(next(c.slug for c in CARDS.values() if c.kind == kind), edition)
    table = NAMES[lang]
    if kind == "dumpling" and edition == ANNIVERSARY:
        return table["gyoza"].text
    if f"{kind}@{edition}" in table:
        return table[f"{kind}@{edition}"].text
    return table[kind].text


def card_name(slug: str, lang: str, edition: str | None = None) -> str:
    """One face's name in ``lang`` (English: :func:`scorer.cards.display_name`)."""
    face = card(slug)
    if lang not in NAMES:
        return display_name(slug, edition)
    table = NAMES[lang]
    if slug in table:
        return table[slug].text
    kind = kind_name(face.kind, lang, edition)
    if face.kind in COUNTED:
        return f"{kind} ({face.icons})"
    if face.kind == "onigiri":
        return f"{kind} ({table['shape:' + slug.removeprefix('onigiri-')].text})"
    if face.kind == "fruit":
        return f"{kind} ({', '.join(table['fruit:' + f].text for f in face.fruits)})"
    return kind


def markdown_table() -> str:
    """docs/card-names.md's table: every entry, each language's name and where it comes from."""
    langs = list(NAMES)
    head = "| entry | English | " + " | ".join(f"{lang} ({RULEBOOKS[lang]})" for lang in langs) + " |"
    rows = [head, "|" + "---|" * (len(langs) + 2)]
    for key in sorted(set().union(*NAMES.values()), key=_entry_order):
        cells = []
        for lang in langs:
            name = NAMES[lang].get(key)
            if name is None:
                cells.append("")
            else:
                cells.append(f"{name.text} *(ours)*" if name.ours else f"{name.text} (line {name.line})")
        rows.append(f"| `{key}` | {_english(key)} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def _entry_order(key: str) -> tuple[int, str]:
    order = list(NAMES["es"]) + sorted(k for lang in NAMES.values() for k in lang if k not in NAMES["es"])
    return (order.index(key), key)


def _english(key: str) -> str:
    if key.startswith(("shape:", "fruit:")):
        return key.split(":", 1)[1]
    if key == "pudding@anniversary":
        return display_name("pudding", ANNIVERSARY)
    if key in CARDS and key not in KINDS:
        return display_name(key)
    return kind_name(key, "en")


DOC_START = "<!-- table: python -m scorer.names -->"


if __name__ == "__main__":  # pragma: no cover
    print(markdown_table(), end="")
