"""Time /api/score and the import form on a record naming N distinct players (issue 14, item 7).

    PYTHONPATH=. python tests/bench/measure_score_names.py [N]   # N defaults to 40 000

Prints the status and seconds of each request, through Flask's test client (no network).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time

from web.app import create_app


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40_000
    record = {"edition": "party", "menu": "my-first-meal",
              "players": [f"player{i}" for i in range(count)], "rounds": []}
    body = json.dumps(record)
    with tempfile.TemporaryDirectory() as data:
        app = create_app({"TESTING": True, "DATA_DIR": data, "SECRET_KEY": "measure",
                          "WTF_CSRF_ENABLED": False})
        client = app.test_client()
        for name, send in (
            ("/api/score", lambda: client.post("/api/score", data=body, content_type="application/json")),
            ("/games/import", lambda: client.post("/games/import", data={"record_text": body})),
        ):
            start = time.perf_counter()
            response = send()
            took = time.perf_counter() - start
            print(f"{name}: {count} names, {len(body)} bytes -> {response.status_code} in {took:.2f} s")


if __name__ == "__main__":
    main()
