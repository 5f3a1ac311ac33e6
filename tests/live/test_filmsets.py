"""Film styles, the named film sets and ``sushicam eval-live`` that reads them.

The plain style's films are checked frame for frame against the renderer as it was before
styles existed (read from git), so the films every figure so far was measured on stay the same.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.fieldtest.cards import CARD_W_CM, PRINT_STYLES
from vision.fieldtest.film import NIGIRI, PARTY_MENU, PLAIN, STACKED, FilmStyle, render_film
from vision.fieldtest.sets import FILM_SETS, FilmSet, FilmSpec

ROOT = Path(__file__).resolve().parents[2]
#: the commit before film styles: its ``render_film`` is the plain style's oracle
BEFORE_STYLES = "912b483ddd8b5cd067f5ddde2d661f004d12e1dd"


def _film_before_styles():
    try:
        source = subprocess.run(["git", "show", f"{BEFORE_STYLES}:vision/fieldtest/film.py"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("the renderer before film styles is not in this checkout's git history")
    spec = importlib.util.spec_from_loader("film_before_styles", loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(source, "film_before_styles.py", "exec"), module.__dict__)
    return module


@pytest.mark.parametrize(("seed", "players", "turns", "menu"), [(5, 3, 4, None), (3, 5, 4, PARTY_MENU),
                                                                 (21, 3, 5, PARTY_MENU)])
def test_the_plain_style_renders_the_films_it_rendered_before_styles(seed, players, turns, menu):
    old = _film_before_styles().render_film(seed, players=players, turns=turns, menu=menu)
    new = render_film(seed, players=players, turns=turns, menu=menu)
    assert new.log == old.log and new.seats == old.seats and new.duration == old.duration
    assert new.style == old.style
    for index in (0, new.n_frames // 2, new.n_frames - 1):
        assert np.array_equal(new.render(index), old.render(index)), index


def _below(film, card):
    return next((c for c in film.cards if c.seat == card.seat and c.column == card.column and c.row == card.row - 1),
                None)


def test_a_stacked_film_lays_cards_on_their_own_kind_and_nigiri_on_wasabi():
    film = render_film(5008, players=3, turns=9, menu=PARTY_MENU, style=STACKED)
    pairs = [(_below(film, c), c) for c in film.cards]
    on_own_kind = [(b, c) for b, c in pairs if b is not None and b.slug == c.slug]
    assert len(on_own_kind) >= 2
    assert any(b is not None and b.slug == "wasabi" and c.slug in NIGIRI for b, c in pairs)
    # the card on top leaves the upper part of the one below in sight: a strip of STACKED.strip
    for below, card in on_own_kind:
        assert below.laid_at < card.laid_at
        shift = np.hypot(below.plane.x - card.plane.x, below.plane.y - card.plane.y)
        assert shift == pytest.approx(STACKED.strip, abs=1e-6)
    # a plain film of the same seed lays a column's cards a third of a card's width apart
    plain = render_film(5008, players=3, turns=9, menu=PARTY_MENU)
    for card in plain.cards:
        if (below := _below(plain, card)) is not None:
            shift = np.hypot(below.plane.x - card.plane.x, below.plane.y - card.plane.y)
            assert shift == pytest.approx(0.33 * CARD_W_CM, abs=1e-6)


def test_a_stacked_film_ends_a_second_after_its_last_cards_and_in_its_own_print():
    film = render_film(5001, players=3, turns=8, menu=PARTY_MENU, style=replace(STACKED, print_style="halftone"))
    last = max(c.laid_at for c in film.cards)
    assert film.duration == pytest.approx(last + 1.0, abs=0.15)
    assert all(h.end < film.duration for h in film.hands)  # no hand is over the table at the end
    assert film.style == "halftone"
    assert film.n_frames == int(film.duration * 10) and film.size == (960, 720)


def test_some_hands_of_a_stacked_film_lay_their_card_over_a_neighbours_cards():
    film = render_film(5008, players=3, turns=9, menu=PARTY_MENU, style=STACKED)

    def crosses(hand) -> bool:
        others = [np.float32(c.plane.corners()) for c in film.cards
                  if c.seat != hand.seat and c.laid_at < hand.start]
        for share in np.linspace(0, 1, 40):
            x, y = hand.path[0] * (1 - share) + hand.path[1] * share
            if any(cv2.pointPolygonTest(q, (float(x), float(y)), False) >= 0 for q in others):
                return True
        return False

    laying = [h for h in film.hands if h.carries is not None]
    assert sum(map(crosses, laying)) >= 2
    plain = render_film(5008, players=3, turns=9, menu=PARTY_MENU)
    assert sum(map(crosses, [h for h in plain.hands if h.carries is not None])) < sum(map(crosses, laying))


def test_a_film_style_says_what_is_wrong_with_it():
    with pytest.raises(ValueError, match="print"):
        FilmStyle(print_style="newsprint")
    with pytest.raises(ValueError, match="between 0 and 1"):
        FilmStyle(repeat=1.5)
    assert FilmStyle() == PLAIN and STACKED.print_style is None


def test_the_release_films_are_none_of_the_development_films():
    dev = {(f.players, f.seed) for name in FILM_SETS if name != "film-release" for f in FILM_SETS[name].films}
    assert {"film-dev", "film-plain-dev", "film-slide-dev"} <= set(FILM_SETS)
    release = FILM_SETS["film-release"].films
    assert not dev & {(f.players, f.seed) for f in release}
    assert "never tuned" in FILM_SETS["film-release"].purpose
    # stacked films of 2-5 players, 8-9 turns, every print; a few plain ones beside them
    stacked = [f for f in release if f.style.name == "stacked"]
    assert {f.players for f in stacked} == {2, 3, 4, 5} and {f.turns for f in stacked} <= {8, 9}
    assert {f.style.print_style for f in stacked} == set(PRINT_STYLES)
    assert 0 < sum(f.style == PLAIN for f in release) < len(stacked)
    assert len(FILM_SETS["film-dev"].films) >= 10 and all(f.style.name == "stacked" for f in FILM_SETS["film-dev"].films)


def test_eval_live_reports_each_film_and_every_wrong_turn(monkeypatch, capsys, model_dir):
    """A one-turn film of two players read with the real models: the command's figures are the
    film's turns against what the live game recorded, turn by turn."""
    from web.cli import main

    tiny = FilmSpec(2, 1, 5002, replace(STACKED, print_style="gloss"))
    monkeypatch.setitem(FILM_SETS, "tiny", FilmSet("tiny", (tiny,), "a test"))
    assert main(["eval-live", "--sets", "tiny", "--json", "--model", str(model_dir)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    film, totals = lines[0], lines[-1]["totals"]["tiny"]
    assert film["turns"] == 1 and film["players"] == 2 and film["print"] == "gloss"
    assert film["frames"] == tiny.render().n_frames and film["fps"] > 0
    assert film["exact"] + len([w for w in film["wrong"] if w["truth"] is not None]) == 1
    truth = tiny.render().log[0]["reveals"]
    for wrong in film["wrong"]:
        assert wrong["truth"] in (truth, None) and wrong["read"] != wrong["truth"]
    assert totals == {"films": 1, "exact": film["exact"], "turns": 1, "films_exact": int(not film["wrong"]),
                      "turns_read_too_many": max(film["turns_read"] - 1, 0), "fps": film["fps"]}


def test_a_film_read_by_a_reader_that_sees_nothing_has_every_turn_wrong(monkeypatch):
    from vision.detections import Detections
    from vision.fieldtest.liveeval import read_sets

    tiny = FilmSpec(2, 2, 5002, STACKED)
    monkeypatch.setitem(FILM_SETS, "tiny", FilmSet("tiny", (tiny,), "a test"))
    [reading] = read_sets(["tiny"], lambda: (lambda image: Detections.empty()))
    truth = [t["reveals"] for t in tiny.render().log]
    assert (reading.exact, reading.turns, reading.turns_read) == (0, 2, 0)
    assert [(w.turn, w.read, w.truth) for w in reading.wrong] == [(1, None, truth[0]), (2, None, truth[1])]


def test_eval_live_refuses_a_set_it_does_not_know(capsys):
    from web.cli import main

    assert main(["eval-live", "--sets", "film-nope"]) == 2
    err = capsys.readouterr().err
    assert "film-nope" in err and len(err.strip().splitlines()) == 1


def test_a_film_recorded_once_is_replayed_without_the_models_and_read_the_same(monkeypatch, tmp_path, capsys):
    """``eval-live --record DIR`` keeps each film's detections; ``--replay DIR`` reads them
    again with no film drawn and no recogniser, and the live reader reads the same turns."""
    import numpy as np

    from vision.detections import LABEL, Detections
    from vision.fieldtest.liveeval import read_sets, trace_path
    from vision.live.trace import Trace
    from web.cli import main

    tiny = FilmSpec(2, 1, 5002, STACKED)
    monkeypatch.setitem(FILM_SETS, "tiny", FilmSet("tiny", (tiny,), "a test"))

    def sees_a_card_later():
        frames = iter(range(10_000))

        def detect(image):
            if next(frames) < 8:
                return Detections.empty()
            return Detections(xyxy=[[100, 100, 160, 190]], confidence=[0.9],
                              data={LABEL: np.array(["egg-nigiri"], dtype=object)})
        return detect

    [live] = read_sets(["tiny"], sees_a_card_later, record=tmp_path)
    trace = Trace.from_json_text(trace_path(tmp_path, "tiny", tiny).read_text())
    assert len(trace.frames) == tiny.render().n_frames == live.frames
    assert trace.log == tiny.render().log and trace.frames[-1][1].labels == ["egg-nigiri"]
    [again] = read_sets(["tiny"], lambda: pytest.fail("no detector when replaying"), replay=tmp_path)
    assert (again.exact, again.turns, again.turns_read, again.wrong) == (live.exact, live.turns, live.turns_read, live.wrong)
    assert main(["eval-live", "--sets", "tiny", "--json", "--replay", str(tmp_path), "--model", str(tmp_path / "none")]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["totals"]["tiny"]["turns"] == 1
    assert main(["eval-live", "--sets", "tiny", "--replay", str(tmp_path / "nothing")]) == 2
