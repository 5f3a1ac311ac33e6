"""The README's worked scoring example is what `sushicam score` really prints."""

from __future__ import annotations

import json
import re
from pathlib import Path

from web.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_worked_example_explain_output_matches_readme(tmp_path, capsys):
    record = json.loads(_blocks("json")[0])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    console = next(b for b in _blocks("console") if "score game.json --explain" in b)
    expected = console.split("\n", 1)[1]

    assert main(["score", str(path), "--explain"]) == 0
    assert capsys.readouterr().out.strip() == expected.strip()


def test_worked_example_json_totals_match_readme(tmp_path, capsys):
    record = json.loads(_blocks("json")[0])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")

    assert main(["score", str(path)]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert {name: p["total"] for name, p in scores["players"].items()} == {
        "Ann": 20,
        "Ben": 23,
        "Cid": 1,
    }
    assert scores["winners"] == ["Ben"]


def test_invalid_record_error_line_matches_readme(tmp_path, capsys):
    bad = {
        "edition": "party",
        "players": ["Ann", "Ben"],
        "rounds": [{"tableaux": {"Ann": [["tempura", "squid-nigiri"]], "Ben": []}}],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    console = next(b for b in _blocks("console") if "score bad.json" in b)

    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.strip() == console.split("\n", 1)[1].strip()
