"""Issue 14 item 4, measured: how many clear photos of one card on a plain table are refused.

Not a test (a few minutes). Every face of ../shared/cards/party-digital and the printed wasabi,
each on a plain grey, brown and black table (the photos are built in memory, never saved)::

    PYTHONPATH=. python tests/teach/measure_plain_tables.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_plain_tables import CARDS, TABLES, face, on_plain_table  # noqa: E402

from vision.teach.find import TeachError, read_face  # noqa: E402


def main() -> None:
    names = [p.stem for p in sorted((CARDS / "party-digital").glob("*.jpg"))] + ["wasabi"]
    refused = []
    for k, name in enumerate(names):
        card = face(name)
        for table, colour in TABLES.items():
            try:
                read_face(on_plain_table(card, colour, 1000 * k + 10 * len(table)))
            except TeachError as exc:
                refused.append(f"{name} on {table}: {exc}")
    print(f"{len(refused)} of {len(names) * len(TABLES)} photos refused")
    print("\n".join(refused))


if __name__ == "__main__":
    main()
