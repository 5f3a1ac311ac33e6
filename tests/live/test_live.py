"""The live pipeline's parts: names cached for cards lying still, the overlay, the sources."""

from __future__ import annotations

import numpy as np
import pytest

from vision.live.pipeline import LabelCache, LiveGame, annotate, open_source


class TwoStageRecognizer:
    """Regions from a list per frame; the classifier names every crop ``classes[0]``."""

    classes = ("tempura", "eel")
    crop_size = 32
    min_confidence = 0.25

    def __init__(self, frames):
        self.frames = iter(frames)
        self.named = 0

    def detector(self, image, conf):
        boxes = np.array(next(self.frames), np.float32).reshape(-1, 4)
        return boxes, np.full(len(boxes), 0.9, np.float32)

    def classifier(self, crops):
        self.named += len(crops)
        out = np.zeros((len(crops), 2), np.float32)
        out[:, 0] = 0.8
        return out


def test_a_card_lying_still_is_named_again_only_every_few_frames():
    still = [10, 10, 60, 90]
    frames = [[still]] * 8 + [[still, [100, 10, 150, 90]]]
    recognizer = TwoStageRecognizer(frames)
    cache = LabelCache(recognizer, refresh=4)
    image = np.zeros((120, 200, 3), np.uint8)
    found = [cache.detect(image) for _ in frames]
    assert recognizer.named == 2 + 1 + 1  # frames 1 and 5 for the still card, 9 for both
    assert all(d.labels[0] == "tempura" for d in found)
    assert found[-1].labels == ["tempura", "tempura"]
    assert float(found[3].confidence[0]) == pytest.approx(0.9 * 0.8)


def test_a_picture_that_is_not_colour_is_refused():
    with pytest.raises(ValueError, match="colour image"):
        LabelCache(TwoStageRecognizer([[]])).detect(np.zeros((10, 10), np.uint8))


def test_the_overlay_draws_each_card_and_the_scores(duel, follow):
    script, _ = duel
    game = follow(script, 0)
    from vision.detections import Detections

    state = game.update(Detections.empty(), 100.0)
    image = np.full((720, 960, 3), 30, np.uint8)
    drawn = annotate(image, state)
    assert drawn.shape == image.shape and (drawn != image).any()
    assert state.to_json()["scores"]["players"]["Ann"]["total"] == 19


@pytest.mark.parametrize(("players", "edition", "words"), [
    (["Ann"], "party", "at least two"),
    (["Ann", "Ben"], "deluxe", "unknown edition"),
    (["A", "B", "C", "D", "E", "F"], "original", "2-5"),
])
def test_a_live_game_needs_players_and_an_edition(players, edition, words):
    with pytest.raises(ValueError, match=words):
        LiveGame(players, edition)


def test_a_source_is_a_camera_or_a_video(tmp_path):
    with pytest.raises(ValueError, match="not both"):
        open_source(0, tmp_path / "x.avi")
    with pytest.raises(OSError, match="no video file"):
        open_source(video=tmp_path / "missing.avi")


def test_what_lies_on_the_table_before_the_game_starts_is_not_played():
    from vision.detections import Detections

    def frame(*cards):
        return Detections(xyxy=np.array([b for _, b in cards], np.float32).reshape(-1, 4),
                          confidence=np.full(len(cards), 0.8),
                          data={"label": np.array([label for label, _ in cards], dtype=object)})

    pattern = ("tofu", (20, 300, 80, 390))  # a pattern on the cloth, read as a card from the start
    ann, ben = ("tempura", (400, 500, 460, 590)), ("eel", (400, 50, 460, 140))
    game = LiveGame(["Ann", "Ben"], "party")
    frames = [frame(pattern)] * 20 + [frame(pattern, ann, ben)] * 50
    for index, detections in enumerate(frames):
        state = game.update(detections, index / 10)
    assert game.record()["rounds"] == [{"turns": [{"reveals": {"Ann": ["tempura"], "Ben": ["eel"]}}]}]
    assert [c["status"] for c in state.cards if c["label"] == "tofu"] == ["background"]
    assert any("before the game started" in note for note in state.notes)
