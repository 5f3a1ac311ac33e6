"""The live pipeline's parts: names cached for cards lying still, the overlay, the sources."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections
from vision.live.notes import NoteCause
from vision.live.pipeline import LabelCache, LiveGame, annotate, open_source
from vision.recognizer import CROP_ONLY, Recognizer


class ListedRegions:
    """A region detector answering from a list per frame; scores as given (0.9 by default)."""

    def __init__(self, frames):
        self.frames = iter(frames)

    def __call__(self, image, conf):
        regions = next(self.frames)
        boxes = np.array([r[:4] for r in regions], np.float32).reshape(-1, 4)
        scores = np.array([r[4] if len(r) > 4 else 0.9 for r in regions], np.float32)
        keep = scores >= conf
        return boxes[keep], scores[keep]


class CountingClassifier:
    """Names every crop ``classes[0]`` with probability ``p``; counts the crops."""

    def __init__(self, p: float = 0.8):
        self.p = p
        self.named = 0

    def __call__(self, crops):
        self.named += len(crops)
        out = np.zeros((len(crops), 3), np.float32)
        out[:, 0] = self.p
        out[:, 1] = 1 - self.p
        return out


def two_stage(frames, p: float = 0.8) -> Recognizer:
    # named from each region's crop alone: one crop named per region keeps the counts plain
    return Recognizer(ListedRegions(frames), CountingClassifier(p), ("tempura", "eel", "not-a-card"), 32,
                      views=CROP_ONLY)


def test_a_card_lying_still_is_named_again_only_every_few_frames():
    still = [10, 10, 60, 90]
    frames = [[still]] * 8 + [[still, [100, 10, 150, 90]]]
    recognizer = two_stage(frames)
    cache = LabelCache(recognizer, refresh=4)
    image = np.zeros((120, 200, 3), np.uint8)
    found = [cache.detect(image) for _ in frames]
    assert recognizer.classifier.named == 2 + 1 + 1  # frames 1 and 5 for the still card, 9 for both
    assert all(d.labels[0] == "tempura" for d in found)
    assert found[-1].labels == ["tempura", "tempura"]
    assert float(found[3].confidence[0]) == pytest.approx(0.9 * 0.8)


def test_the_live_reader_keeps_the_cards_the_recogniser_keeps():
    # region scores either side of the recogniser's two thresholds: 0.2 is never a region
    # (region_threshold 0.25); 0.35 x 0.8 = 0.28 falls short of min_confidence 0.3
    regions = [[10, 10, 60, 90, 0.2], [100, 10, 150, 90, 0.35], [10, 100, 60, 180, 0.9]]
    image = np.zeros((200, 200, 3), np.uint8)
    alone = two_stage([regions]).detect(image)
    live = LabelCache(two_stage([regions])).detect(image)
    assert alone.xyxy.tolist() == live.xyxy.tolist() == [[10, 100, 60, 180]]
    assert alone.labels == live.labels == ["tempura"]


def test_a_picture_that_is_not_colour_is_refused():
    with pytest.raises(ValueError, match="colour image"):
        LabelCache(two_stage([[]])).detect(np.zeros((10, 10), np.uint8))


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
    assert [(n.cause, n.count) for n in state.notes] == [(NoteCause.BACKGROUND, 1)]
    assert "before the game started" in state.to_json()["notes"][0]


def test_a_table_nobody_touches_is_read_again_only_now_and_then():
    from vision.live.pipeline import StillTable

    calls = []

    def detect(image):
        calls.append(image)
        return Detections.empty()

    rng = np.random.default_rng(0)
    table = rng.integers(60, 200, (720, 960, 3)).astype(np.float32)

    def shot(gain=1.0):  # sensor noise, and the exposure drifting a little
        return np.clip(table * gain + rng.normal(0, 3, table.shape), 0, 255).astype(np.uint8)

    still = StillTable(detect, every=5)
    for k in range(10):
        still(shot(1.0 + 0.03 * (k % 2)))
    assert len(calls) == 2  # frames 1 and 6
    hand = shot()
    hand[300:380, 400:470] = (120, 160, 215)  # a hand reaching over the table
    still(hand)
    assert len(calls) == 3 and calls[-1] is hand


def test_a_still_table_is_read_again_with_the_closer_look_and_a_changing_one_with_the_quick():
    from vision.live.pipeline import StillTable

    quick, close = [], []
    table = np.random.default_rng(1).integers(60, 200, (720, 960, 3)).astype(np.uint8)
    still = StillTable(lambda image: quick.append(image) or Detections.empty(), every=5,
                       detect_still=lambda image: close.append(image) or Detections.empty())
    for _ in range(21):
        still(table)
    # the first frame; frame 6 the closer look, which stands 15 frames: frame 21 looks again
    assert (len(quick), len(close)) == (1, 2)
    hand = table.copy()
    hand[300:380, 400:470] = (120, 160, 215)
    still(hand)
    assert (len(quick), len(close)) == (2, 2) and quick[-1] is hand


def test_a_stretch_of_cloth_boxed_as_one_card_is_not_a_card_in_play():
    """A region many cards wide (a stretch of cloth), read as a tempura for a while, comes
    with the first cards; it is no player's card, and it does not join the players' cards into
    one seat."""
    def frame(*cards):
        return Detections(xyxy=np.array([box for _, box in cards], float).reshape(-1, 4),
                          class_id=np.zeros(len(cards), int), confidence=np.full(len(cards), 0.9),
                          data={"label": np.array([label for label, _ in cards], dtype=object)})

    cloth = ("tempura", (83, 178, 625, 720))
    ann, ben, cid = ("eel", (404, 530, 458, 615)), ("tofu", (211, 255, 286, 302)), ("wasabi", (646, 189, 724, 270))
    game = LiveGame(["Ann", "Ben", "Cid"], "party")
    frames = [frame()] * 15 + [frame(ann, ben, cid, cloth)] * 30 + [frame(ann, ben, cid)] * 30
    for index, detections in enumerate(frames):
        state = game.update(detections, index / 10)
    assert game.record()["rounds"] == [{"turns": [{"reveals": {"Ann": ["eel"], "Ben": ["tofu"], "Cid": ["wasabi"]}}]}]
    assert not any(c["label"] == "tempura" and c["seat"] >= 0 for c in state.cards)


def test_a_sliver_the_recogniser_is_never_sure_of_is_no_card_of_any_turn():
    """The strip a wasabi leaves below the squid nigiri laid on it is boxed with the
    nigiri's edge and read as a second squid nigiri at 0.45 (detector score times the
    classifier's) for the rest of the round, under ``min_score``: it is no card of any turn.
    A card is in play once read at ``min_score``."""
    def frame(*cards):
        return Detections(xyxy=np.array([box for _, box, _ in cards], float).reshape(-1, 4),
                          class_id=np.zeros(len(cards), int), confidence=np.array([p for _, _, p in cards], float),
                          data={"label": np.array([label for label, _, _ in cards], dtype=object)})

    ann, ben = ("eel", (404, 530, 458, 615), 0.9), ("wasabi", (389, 86, 436, 144), 0.9)
    nigiri = ("squid-nigiri", (386, 73, 437, 132), 0.9)
    sliver = ("squid-nigiri", (406, 123, 443, 144), 0.45)  # the wasabi's strip and the nigiri's edge
    ann2 = ("tofu", (470, 530, 524, 615), 0.9)
    game = LiveGame(["Ann", "Ben"], "party")
    frames = ([frame()] * 15 + [frame(ann, ben)] * 40 + [frame(ann, nigiri, sliver)] * 10
              + [frame(ann, ann2, nigiri, sliver)] * 80)
    for index, detections in enumerate(frames):
        state = game.update(detections, index / 10)
    assert game.record()["rounds"] == [{"turns": [{"reveals": {"Ann": ["eel"], "Ben": ["wasabi"]}},
                                                  {"reveals": {"Ann": ["tofu"], "Ben": ["squid-nigiri"]}}]}]
    in_play = sorted(tuple(c["box"]) for c in state.cards if c["player"] is not None)
    assert in_play == sorted(tuple(float(v) for v in card[1]) for card in (ann, ann2, nigiri))


def test_a_card_the_detector_is_sure_of_is_in_play_however_unsure_its_name():
    """Ann's salmon nigiri, laid on her wasabi, is boxed at 0.95 but named at 0.51 (a print
    read half as salmon, half as another nigiri): 0.48 in all, under the 0.5 a card needs, yet
    the detector is sure it is a card: it is her card of the turn. A sliver (a wasabi's strip
    boxed with the edge of the nigiri on it) boxed at 0.69 only stays out of play."""
    from vision.detections import LABEL, LABEL_SCORE, REGION_SCORE

    def frame(*cards):  # each card (label, box, region score, name score)
        return Detections(xyxy=np.array([c[1] for c in cards], float).reshape(-1, 4),
                          class_id=np.zeros(len(cards), int),
                          confidence=np.array([c[2] * c[3] for c in cards], float),
                          data={LABEL: np.array([c[0] for c in cards], dtype=object),
                                REGION_SCORE: np.array([c[2] for c in cards], float),
                                LABEL_SCORE: np.array([c[3] for c in cards], float)})

    wasabi, ben = ("wasabi", (438, 490, 513, 520), 0.84, 1.0), ("eel", (340, 60, 430, 150), 0.9, 0.99)
    salmon = ("salmon-nigiri", (420, 514, 512, 646), 0.95, 0.51)  # on the wasabi, its name unsure
    ben2 = ("tofu", (440, 60, 530, 150), 0.9, 0.99)
    nigiri = ("squid-nigiri", (540, 60, 630, 150), 0.9, 0.99)  # Ben's third card
    sliver = ("squid-nigiri", (560, 140, 598, 161), 0.69, 0.64)  # boxed at its edge, never sure
    game = LiveGame(["Ann", "Ben"], "party")
    frames = ([frame()] * 15 + [frame(wasabi, ben)] * 40 + [frame(wasabi, salmon, ben, ben2)] * 50
              + [frame(wasabi, salmon, ben, ben2, nigiri, sliver)] * 60)
    for index, detections in enumerate(frames):
        state = game.update(detections, index / 10)
    turns = game.record()["rounds"][0]["turns"]
    assert [t["reveals"] for t in turns] == [{"Ann": ["wasabi"], "Ben": ["eel"]},
                                             {"Ann": ["salmon-nigiri"], "Ben": ["tofu"]},
                                             {"Ben": ["squid-nigiri"]}]
    in_play = sorted(tuple(c["box"]) for c in state.cards if c["player"] is not None)
    assert in_play == sorted(tuple(float(v) for v in card[1]) for card in (wasabi, salmon, ben, ben2, nigiri))


@pytest.mark.parametrize(("menu", "named"), [("cutthroat-combo", "eel"), (None, "tempura")])
def test_a_live_game_names_cards_only_as_its_menu_holds_them(menu, named):
    """The classifier takes the card for a tempura (0.8) over an eel (0.2): a Party game on a
    menu without tempura (Cutthroat Combo: eel, tofu...) has it read as an eel, the likeliest
    face that can lie on its table; a game with no menu takes the classifier's word."""
    from vision.live.pipeline import LivePipeline, live_detector

    regions = [[10, 100, 60, 180, 0.9]]
    detect = live_detector(two_stage([regions] * 3))
    LivePipeline(detect, LiveGame(["Ann", "Ben"], "party", menu=menu))
    found = detect(np.zeros((200, 200, 3), np.uint8))
    assert found.labels == [named]
    assert float(found.confidence[0]) == pytest.approx(0.9 * 0.8)  # as sure a card as it was


# --- the end of the picture: the turn in play closes ---------------------------------------


class FilmDetector:
    """Answers, frame after frame, what an imperfect recogniser reads in the film's frames."""

    def __init__(self, film, seed: int):
        from vision.synth.film import simulate_detections

        self.film, self.simulate = film, simulate_detections
        self.rng = np.random.default_rng([seed, 99])
        self.index = 0

    def __call__(self, image_bgr):
        detections = self.simulate(self.film.truth(self.index), self.rng)
        self.index += 1
        return detections


def _laid_last(film, before: float = np.inf) -> float:
    """When the last card laid (before ``before``) was turned face up in the film."""
    return max(c.face_up_at for c in film.cards if c.face_up_at < before)


@pytest.mark.parametrize(("script_name", "seed"), [("duel", 2), ("duel", 5), ("five", 1)])
def test_a_film_ending_a_second_after_its_last_cards_logs_every_turn(script_name, seed, request):
    """The table never lies still for long after the last cards of a film cut a second after
    they are laid: the end of the frames closes that turn (it was never logged: 5 of 6)."""
    from vision.live.pipeline import LivePipeline, follow
    from vision.synth.film import plan_film

    script = request.getfixturevalue(script_name)
    script = script[0] if isinstance(script, tuple) else script
    film = plan_film(script, fps=10.0, seed=seed)
    cut = int((_laid_last(film) + 1.0) * film.fps)
    frames = ((film.time(i), np.zeros((8, 8, 3), np.uint8)) for i in range(cut))
    game = LiveGame(script.players, script.edition)
    events = []
    state = follow(LivePipeline(FilmDetector(film, seed), game), frames,
                   on_state=lambda s, frame: events.extend(e for e in s.events if e.kind == "turn"))
    assert [r["turns"] for r in state.record["rounds"]] == [list(t) for t in script.rounds]
    assert len(events) == len(script.rounds[0])  # each turn announced once, the last one too


def test_the_players_end_a_round_whose_last_cards_were_just_laid(trio):
    """Ending the round a second after its last cards closes the turn in play and the round;
    the cards still lying there stay that round's, and the next rounds read as ever."""
    from vision.synth.film import plan_film, simulate_detections

    script, scores = trio
    film = plan_film(script, fps=10.0, seed=1)
    cut = int((_laid_last(film, before=film.turn_starts[1][0]) + 1.0) * film.fps)
    game = LiveGame(script.players, script.edition)
    rng = np.random.default_rng([1, 99])
    for index in range(film.n_frames):
        if index == cut:
            ended = game.end_round()
            assert [e.kind for e in ended.events] == ["turn", "round-end"]
            assert ended.record["rounds"] == [{"turns": list(script.rounds[0])}]
        game.update(simulate_detections(film.truth(index), rng), film.time(index))
    game.finish()
    assert [r["turns"] for r in game.record()["rounds"]] == [list(t) for t in script.rounds]
    result, error = game.scores()
    assert error is None
    assert {p: (v["rounds"], v["dessert"], v["total"]) for p, v in result["players"].items()} == \
        {p: tuple(v) for p, v in scores.items()}


def test_a_picture_ending_with_a_card_face_down_leaves_it_out_of_the_turn():
    """A card still face down when the picture ends was never revealed: the turn holds the
    cards revealed (the player with none is there to check), not the card back."""
    game = LiveGame(["Ann", "Ben"], "party")
    cards = Detections(xyxy=np.array([[300, 500, 400, 640], [300, 40, 400, 180]], np.float32),
                       confidence=np.array([0.9, 0.9], np.float32),
                       data={"label": np.array(["card-back", "tempura"], dtype=object)})
    game.update(Detections.empty(), 0.0)
    for k in range(20):
        game.update(cards, 1.5 + k / 10)
    assert game.record()["rounds"] == []  # the face-down card holds the turn back
    state = game.finish()
    assert state.record["rounds"] == [{"turns": [{"reveals": {"Ben": ["tempura"]}}]}]
    assert [e.kind for e in state.events] == ["turn"]
