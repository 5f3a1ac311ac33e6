"""``sushicam score``: JSON out, --explain, and one stderr line with exit 2 for every bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from web.cli import main

ROOT = Path(__file__).resolve().parents[2]

GAME = {
    "edition": "original",
    "players": ["Ann", "Ben"],
    "rounds": [
        {"tableaux": {"Ann": ["maki-3", "maki-2", "tempura", "tempura"], "Ben": ["maki-1", ["wasabi", "squid-nigiri"]]}},
        {"tableaux": {"Ann": ["pudding"], "Ben": ["sashimi", "sashimi", "sashimi"]}},
        {"tableaux": {"Ann": ["dumpling"] * 3, "Ben": []}},
    ],
}


def write(tmp_path: Path, content) -> str:
    path = tmp_path / "game.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def test_score_prints_the_contract(tmp_path, capsys):
    assert main(["score", write(tmp_path, GAME)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["players"]["Ann"] | {"breakdown": None, "dessert_breakdown": None} == {
        "rounds": [11, 0, 6], "dessert": 6, "total": 23, "breakdown": None, "dessert_breakdown": None,
        "dessert_cards": 1}
    assert out["players"]["Ben"]["rounds"] == [3 + 9, 10, 0]
    assert out["winners"] == ["Ann"] and out["complete"] is True


def test_explain_reads_per_player_and_category(tmp_path, capsys):
    assert main(["score", write(tmp_path, GAME), "--explain"]) == 0
    text = capsys.readouterr().out
    assert "Maki: 5 icons, most: 6" in text
    assert "Nigiri: squid on wasabi 9: 9" in text
    assert "Pudding: 1 card, most: 6" in text
    assert "Winner: Ann" in text


BAD_INPUTS = [
    ("{not json", "invalid JSON at line 1"),
    ('{"edition": "original"}', "players: expected a list"),
    (json.dumps(dict(GAME, players=["Ann", "Ben", "Cid", "Dee", "Eve", "Fay"])), "6 players"),
    (json.dumps({**GAME, "rounds": [{"tableaux": {"Ann": ["tempora"], "Ben": []}}]}),
     "rounds[0].tableaux.Ann[0]: unknown card 'tempora'"),
    (json.dumps({**GAME, "rounds": [{"tableaux": {"Ann": [["tempura", "squid-nigiri"]], "Ben": []}}]}),
     "not on 'tempura'"),
    (json.dumps({**GAME, "rounds": [{"tableaux": {"Ann": ["eel"], "Ben": []}}]}), "not a card of the original"),
    (json.dumps({**GAME, "rounds": [{"tableaux": {"Ann": ["tempura"] * 15, "Ben": []}}]}), "holds 14"),
    (json.dumps({**GAME, "rounds": [{"tableaux": {"Ann": [], "Zed": []}}]}), "unknown player 'Zed'"),
    ("[]", "record: expected a JSON object"),
    ("\xff\xfe", "invalid JSON"),
    # issue 14: these were tracebacks
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    (json.dumps({**GAME, "edition": ["original"]}), "unknown edition ['original']"),
    (json.dumps({**GAME, "edition": {"original": 1}}), "unknown edition"),
    (json.dumps({**GAME, "players": ["Ann", "B\ud800n"]}), "players[1]: the name 'B\\ud800n' holds"),
    (json.dumps({**GAME, "players": ["Ann", "Ben\n"]}), "control characters"),
    (json.dumps({**GAME, "rounds": [{"tableaux": {"Ann": ["tofu"] * 101, "Ben": []}}]}),
     "rounds[0].tableaux.Ann: 101 cards: no round deals one player more than 100"),
]


@pytest.mark.parametrize(("content", "message"), BAD_INPUTS)
def test_invalid_input_is_one_line_and_exit_2(content, message, tmp_path, capsys):
    assert main(["score", write(tmp_path, content)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err
    assert captured.err.startswith("sushicam score: error: ")


def test_missing_file(tmp_path, capsys):
    assert main(["score", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.json: no such file" in err


def run_cli(*args, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", "score", *args], input=stdin, text=True,
                          capture_output=True, cwd=ROOT, timeout=60)


def test_real_process_reads_stdin():
    done = run_cli("-", stdin=json.dumps(GAME))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["players"]["Ann"]["total"] == 23


def test_real_process_bad_record_has_no_traceback():
    done = run_cli("-", stdin='{"edition": "party", "players": ["A"], "rounds": []}')
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "sushicam score: error: players: 1 player, but Sushi Go Party! is for 2-8"]
    assert "Traceback" not in done.stderr


# --- issue 46: inputs without end, and values too long to print ---------------------------------


def test_an_endless_file_is_refused_after_the_size_cap(capsys):
    assert main(["score", "/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert err == "sushicam score: error: /dev/zero: more than 1 MB, too large to be a game record\n"


class EndlessStdin:
    """A pipe that never ends (``yes |``): reading it all would take every byte of memory."""

    class Buffer:
        def __init__(self):
            self.asked: list[int] = []

        def read(self, size: int = -1) -> bytes:
            assert size is not None and size >= 0, "stdin read without a limit"
            self.asked.append(size)
            return b" " * size

    def __init__(self):
        self.buffer = self.Buffer()

    def read(self, size: int = -1) -> str:
        return self.buffer.read(size).decode()


def test_endless_stdin_is_read_only_up_to_the_size_cap(monkeypatch, capsys):
    stdin = EndlessStdin()
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["score", "-"]) == 2
    assert sum(stdin.buffer.asked) <= 1_000_001
    assert capsys.readouterr().err == "sushicam score: error: -: more than 1 MB, too large to be a game record\n"


def test_a_number_of_thousands_of_digits_is_named_in_plain_words(tmp_path, capsys):
    assert main(["score", write(tmp_path, '{"edition": "original", "mochi": ' + "9" * 5000 + "}")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a number in the record has thousands of digits" in err
    assert "set_int_max_str_digits" not in err


def test_an_error_about_a_huge_name_is_a_short_line(tmp_path, capsys):
    """A 300 KB name listed twice: the error shows its start and its length, not all of it."""
    name = "Ann" + "n" * 300_000
    assert main(["score", write(tmp_path, {**GAME, "players": [name, name]})]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 200
    assert "players[1]: 'Annnnnn" in err and "(300003 characters) is listed twice" in err


def test_an_error_about_a_huge_name_in_a_path_is_a_short_line():
    """The name of a player in a tableau's path is cut as well; the path itself stays whole."""
    from scorer import RecordError, score_record

    name = "Zed" * 3_000_000  # 9 MB
    with pytest.raises(RecordError) as caught:
        score_record({**GAME, "rounds": [{"tableaux": {"Ann": [], "Ben": [], name: []}}]})
    assert len(str(caught.value)) < 300 and "unknown player 'ZedZed" in str(caught.value)
    assert caught.value.path == f"rounds[0].tableaux.{name}"
