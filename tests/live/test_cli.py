"""``sushicam live --video`` and ``sushicam bench-live`` as a user runs them."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.live import cli as live_cli
from vision.synth.film import plan_film, simulate_detections
from web.cli import main


@pytest.fixture
def duel_video(tmp_path, duel):
    """A video file with one frame per frame of the filmed duel (5 frames/s)."""
    script, _ = duel
    film = plan_film(script, fps=5.0, seed=1)
    path = tmp_path / "duel.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (64, 48))
    assert writer.isOpened()
    for _ in range(film.n_frames):
        writer.write(np.full((48, 64, 3), 80, np.uint8))
    writer.release()
    return path, film


def read_by_film(film):
    """A detector that reads, frame after frame, what the film shows (the picture is blank)."""
    rng = np.random.default_rng(4)
    calls = iter(range(10**9))

    def detect(image_bgr):
        return simulate_detections(film.truth(next(calls)), rng)

    return detect


def test_live_on_a_video_prints_each_turn_then_the_record_and_scores(duel_video, duel, monkeypatch, capsys, tmp_path):
    script, by_hand = duel
    path, film = duel_video
    monkeypatch.setattr(live_cli, "_load_detector", lambda model, threads=2, refresh=4, data_dir=None: read_by_film(film))
    out = tmp_path / "game.json"
    assert main(["live", "--video", str(path), "--players", "Ann,Ben", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    latest = {}  # a turn is printed when read, and again when an event joins it later
    for line in lines[:-1]:
        if line["event"] in ("turn", "turn-amended"):
            latest[(line["round"], line["turn"])] = line["log"]
    assert [latest[k] for k in sorted(latest)] == list(script.rounds[0])
    assert sum(line["event"] == "turn" for line in lines[:-1]) == len(script.rounds[0])
    assert [line["event"] for line in lines[:-1]][-1] == "round-end"
    final = lines[-1]
    assert final["record"]["rounds"] == script.record()["rounds"]
    assert {p: v["rounds"] for p, v in final["scores"]["players"].items()} == by_hand
    assert json.loads(out.read_text()) == final["record"]


@pytest.mark.parametrize(("args", "words"), [
    (["live", "--video", "missing.avi", "--players", "Ann,Ben"], "no video file"),
    (["live", "--camera", "0", "--players", "Ann"], "at least two"),
    (["live", "--camera", "0", "--players", "Ann,Ben", "--seat-points", "1,2"], "--seat-points"),
    (["live", "--camera", "0", "--players", "Ann,Ben", "--edition", "original", "--seat-points", "1,2;3"],
     "--seat-points"),
])
def test_live_errors_are_one_line_and_status_2(args, words, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err


def test_bench_live_without_a_model_is_one_line_and_status_2(tmp_path, capsys):
    assert main(["bench-live", "--model", str(tmp_path), "--frames", "5"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "meta.json" in err


def test_the_live_command_reads_games_without_the_web_app_and_serves_through_it():
    # the web app adds --serve to the live command; the vision package never imports web
    import ast
    from pathlib import Path

    import vision.live

    folder = Path(vision.live.__file__).parent
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {m for m in imported if m == "web" or m.startswith("web.")}, path.name
    from web.cli import build_parser

    args = build_parser().parse_args(["live", "--camera", "0", "--players", "Ann,Ben", "--serve", "--port", "5099"])
    assert args.serve and args.port == 5099


def test_bench_live_through_the_web_without_a_model_is_one_line_and_status_2(tmp_path, capsys):
    assert main(["bench-live", "--web", "--model", str(tmp_path), "--frames", "5"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "meta.json" in err


@pytest.mark.slow
@pytest.mark.parametrize("web", [False, True])
def test_bench_live_times_the_columns_film_and_counts_turns_read_exactly(model_dir, web, capsys):
    args = ["bench-live", "--model", str(model_dir), "--frames", "40", "--json"] + (["--web"] if web else [])
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["frames"] == 40 and report["fps"] > 0 and report["turns_in_script"] == 7
    assert 0 <= report["turns_exact"] <= report["turns_read"]


@pytest.mark.slow
def test_bench_live_reads_the_whole_columns_film_as_people_play_turn_by_turn(model_dir, capsys):
    """The scripted round (three salmon nigiri in one column, tempura columns, chopsticks),
    each card slid in by hand: every turn read as the film's own log has it."""
    assert main(["bench-live", "--model", str(model_dir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["turns_exact"], report["turns_read"], report["turns_in_script"]) == (7, 7, 7)


@pytest.mark.slow
@pytest.mark.parametrize("web", [False, True])
def test_bench_live_times_a_five_player_field_film(model_dir, web, capsys):
    args = ["bench-live", "--model", str(model_dir), "--film", "field", "--players", "5", "--turns", "2",
            "--frames", "30", "--json"]
    if web:
        assert main([*args, "--web"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["frames"] == 30 and report["fps"] > 0 and report["turns_in_script"] == 2
        return
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["frames"] == 30 and report["fps"] > 0 and report["turns_in_script"] == 2
    assert report["film"].startswith("field, 5 players")
    assert main([*args[:6], "6", *args[7:]]) == 2
    assert "--players: 2 to 5" in capsys.readouterr().err
