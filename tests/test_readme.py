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
    # by the Party rulebook: Ann 9 (squid on wasabi) + 5 (tempura pair); Ben 8 (first to 10
    # uramaki icons) + 5 (tempura and its copy) + 10 (sashimi set); Cid 7 (2 eel) + 5 (the next
    # uramaki place, 4 icons left beating Ann's 3)
    assert {name: p["total"] for name, p in scores["players"].items()} == {
        "Ann": 14,
        "Ben": 23,
        "Cid": 12,
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


def test_worked_example_is_a_legal_party_menu():
    """The example names its menu, and the scorer's menu rules (1 rolls, 3 appetizers,
    2 specials, 1 dessert) accept it and every card of the round is on it."""
    from scorer.cards import CARDS
    from scorer.menus import resolve_menu

    record = json.loads(_blocks("json")[0])
    menu = resolve_menu(record["menu"], len(record["players"]))
    kinds = {CARDS[s].kind for t in record["rounds"][0]["tableaux"].values()
             for entry in t for s in (entry if isinstance(entry, list) else [entry])}
    assert kinds <= set(menu.kinds)


def test_readme_leads_with_the_players_install_and_keeps_ci_on_its_test_command():
    text = README.read_text(encoding="utf-8")
    first = _blocks("sh")[0]
    assert first.strip() == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/sushicam serve"
    tests = _blocks("sh")[1].strip()
    assert "'.[train,test]'" in tests and tests.endswith(".venv/bin/python -m pytest")
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert ".venv/bin/pip install -q -e '.[train,test]'" in ci
    assert ci.rstrip().endswith(".venv/bin/python -m pytest")
    for command in ("--port", "sushicam faces", "sushicam eval-teach"):
        assert f"| `{command}" in text or f"[{command}" in text, command
