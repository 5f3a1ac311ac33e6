"""Teaching and learning by exemplars, on the player's install (no torch, no ultralytics).

The photos are composed at test time (``vision.synth`` from ``../shared/cards``); the card the
players teach is drawn here by hand with OpenCV (a card unlike any bundled face, as the
anniversary kinds are), and put on the table in place of a bundled face.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.teach.conftest import REPO_MODELS, save
from vision.exemplars import ExemplarRule, Exemplars, blend, unit
from vision.faces import FACE_SIZE, FaceSet, digital_faces
from vision.synth import compose_table

ROOT = Path(__file__).resolve().parents[2]

#: runs ``web.cli.main`` with torch, torchvision and ultralytics made unimportable, as on a
#: player's install; prints the command's stdout, then a last line saying whether any was imported
NO_TORCH = """
import json, sys
for name in ("torch", "torchvision", "ultralytics"):
    sys.modules[name] = None  # an import of it raises ImportError
import importlib.util
real_find_spec = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name.split(".")[0] in ("torch", "torchvision", "ultralytics") \\
    else real_find_spec(name, *a)
from web.cli import main
status = main(json.loads(sys.argv[1]))
print(json.dumps({"status": status}))
"""


def cli(*args: str) -> tuple[int, list[str], str]:
    done = subprocess.run([sys.executable, "-c", NO_TORCH, json.dumps(list(args))], cwd=ROOT, text=True,
                          capture_output=True, timeout=600)
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr
    return json.loads(lines[-1])["status"], lines[:-1], done.stderr


def drawn_card(seed: int = 0) -> np.ndarray:
    """A card face no bundled face resembles: stripes, rings and a name, drawn by hand."""
    rng = np.random.default_rng(seed)
    w, h = FACE_SIZE
    face = np.full((h, w, 3), (40, 170, 230), np.uint8)  # orange-yellow
    for x in range(-h, w, 40):
        cv2.line(face, (x, h), (x + h, 0), (120, 40, 20), 8)  # dark blue diagonals
    for _ in range(5):
        centre = (int(rng.integers(60, w - 60)), int(rng.integers(60, h - 60)))
        cv2.circle(face, centre, 42, (250, 250, 250), 10)
        cv2.circle(face, centre, 18, (30, 30, 160), -1)
    cv2.rectangle(face, (18, 18), (w - 18, 110), (255, 255, 255), -1)
    cv2.putText(face, "GYOZA", (34, 88), cv2.FONT_HERSHEY_DUPLEX, 2.2, (20, 20, 20), 4)
    cv2.rectangle(face, (4, 4), (w - 5, h - 5), (20, 20, 20), 6)
    return face


#: the bundled face the drawn card takes the place of on a composed table (a plain card)
STAND_IN = "eel"
TAUGHT = "gyoza"


@pytest.fixture(scope="module")
def drawn_faces() -> FaceSet:
    bundled = digital_faces()
    return FaceSet("drawn", {**bundled.faces, STAND_IN: (drawn_card(),)})


#: the cards laid around it
OTHERS = ("tofu", "squid-nigiri", "wasabi", "tempura")


def table_with_drawn(seed: int, faces: FaceSet, others=OTHERS):
    image, truth = compose_table(seed, [[STAND_IN, *others]], size=(1280, 960), layout="loose",
                                 clutter=False, faces=faces, fill=0.7)
    return image


def alone(seed: int, faces: FaceSet) -> np.ndarray:
    image, _ = compose_table(seed, [[STAND_IN]], size=(960, 720), clutter=False, faces=faces, fill=0.6)
    return image


def labels_of(line: str) -> list[str]:
    return sorted(card["label"] for card in json.loads(line)["cards"])


# --- the embedding output -------------------------------------------------------------------


def test_the_classifier_gives_its_embedding_and_the_same_probabilities():
    onnx = pytest.importorskip("onnx")
    import onnxruntime as ort
    from onnx import numpy_helper

    path = REPO_MODELS / "classifier.onnx"
    model = onnx.load(str(path))
    assert [o.name for o in model.graph.output] == ["output0", "embedding"]
    # the graph as exported, without the added output: probabilities must be the same, bit for bit
    plain = onnx.load(str(path))
    plain.graph.output.pop()
    plain.graph.node.remove(next(n for n in plain.graph.node if n.output[0] == "embedding"))
    crops = np.stack([cv2.resize(f, (96, 96)) for f in list(digital_faces().faces.values())[0][:1]] * 2
                     + [cv2.resize(drawn_card(s), (96, 96)) for s in range(3)])
    blob = cv2.dnn.blobFromImages(list(crops), 1 / 255, swapRB=True)
    probabilities, embedding = ort.InferenceSession(str(path)).run(None, {"images": blob})
    before = ort.InferenceSession(plain.SerializeToString()).run(None, {"images": blob})[0]
    assert np.array_equal(probabilities, before)
    # and the embedding is what the last linear layer reads: softmax(W e + b) gives them
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    logits = embedding @ weights[gemm.input[1]].T + weights[gemm.input[2]]
    expected = np.exp(logits - logits.max(1, keepdims=True))
    np.testing.assert_allclose(expected / expected.sum(1, keepdims=True), probabilities, atol=1e-5)
    meta = json.loads((REPO_MODELS / "meta.json").read_text())
    assert meta["classifier"]["embedding"] == "embedding"


# --- the rule ---------------------------------------------------------------------------------


def test_a_region_near_an_exemplar_takes_its_name_and_one_near_none_keeps_the_classifiers():
    rng = np.random.default_rng(0)
    tofu, eel = rng.normal(size=64), rng.normal(size=64)
    exemplars = Exemplars.of([tofu, tofu + 0.05 * rng.normal(size=64), eel], ["tofu", "tofu", "gyoza"])
    classes = ["eel", "tofu", "wasabi"]
    read = np.array([[0.8, 0.1, 0.1]] * 3, np.float32)  # the classifier: eel, surely
    regions = np.stack([tofu + 0.02 * rng.normal(size=64), eel, rng.normal(size=64)])
    out = blend(read, classes, regions, exemplars, ExemplarRule())
    names = [*classes, "gyoza"]
    assert [names[i] for i in out.argmax(1)] == ["tofu", "gyoza", "eel"]
    np.testing.assert_allclose(out[2], [0.8, 0.1, 0.1, 0.0])  # near no exemplar: unchanged


def test_a_close_call_between_two_exemplar_kinds_is_left_unsure():
    from vision.unsure import is_unsure

    rng = np.random.default_rng(1)
    shared = rng.normal(size=64)
    a, b = shared + 0.01 * rng.normal(size=64), shared + 0.01 * rng.normal(size=64)
    exemplars = Exemplars.of([a, b], ["maki-2", "maki-3"])
    out = blend(np.array([[0.9, 0.1]]), ["maki-2", "maki-3"], shared[None], exemplars)
    top = np.sort(out[0])[::-1]
    assert is_unsure(float(top[0]), float(top[0] - top[1]))


def test_a_card_taught_from_one_face_is_as_near_as_its_nearest_view():
    """A taught face gives three crops of one card (the whole card and two top strips): a
    region showing the whole card is that card, however unlike its strips it looks."""
    whole, strip, lower_strip, eel = np.eye(4)
    exemplars = Exemplars.of([whole, 0.6 * whole + 0.8 * strip, 0.6 * whole + 0.8 * lower_strip, eel],
                             ["gyoza"] * 3 + ["eel"], ["face"] * 3 + ["round:1"])
    read = np.array([[0.1, 0.9]], np.float32)  # the classifier: not a card
    out = blend(read, ["eel", "not-a-card"], whole[None], exemplars, ExemplarRule())
    # its similarity to the card is 1 (the whole crop), not (1 + 0.6 + 0.6) / 3 = 0.73
    np.testing.assert_allclose(out[0], [0.0, 0.0, 1.0], atol=1e-6)
    # crops without a source are cards of their own: three such crops are three cards, their mean
    apart = Exemplars.of(exemplars.vectors[:3], ["gyoza"] * 3)
    np.testing.assert_allclose(blend(read, ["eel", "not-a-card"], whole[None], apart, ExemplarRule())[0],
                               [0.1, 0.9, 0.0], atol=1e-6)


def test_each_kind_is_as_near_as_another_kind_comes_to_it():
    """A kind another kind lies close to (a maki-3 beside a taught maki-2: the embedding hardly
    sees the count) needs a region nearer than that; a kind nothing resembles (a drawn card)
    is read at a similarity one threshold for all would refuse."""
    from vision.exemplars import impostor_levels

    e = np.eye(6)
    exemplars = Exemplars.of([e[0], e[1]], ["maki-2", "gyoza"])
    impostors = Exemplars.of([0.88 * e[0] + np.sqrt(1 - 0.88 ** 2) * e[2]], ["maki-3"])  # cosine 0.88
    levels = impostor_levels(exemplars, impostors)
    assert levels["maki-2"] == pytest.approx(0.88, abs=1e-5) and levels["gyoza"] == pytest.approx(0.0, abs=1e-5)
    classes = ["eel", "maki-2", "maki-3"]
    read = np.array([[0.05, 0.25, 0.7], [0.8, 0.1, 0.1]], np.float32)  # the classifier: maki-3, eel
    regions = np.stack([0.86 * e[0] + np.sqrt(1 - 0.86 ** 2) * e[3],  # 0.86 from the maki-2: another maki-3
                        0.76 * e[1] + np.sqrt(1 - 0.76 ** 2) * e[4]])  # 0.76 from the drawn card
    names = [*classes, "gyoza"]
    rule = ExemplarRule()
    one_for_all = blend(read, classes, regions, exemplars, rule)
    assert [names[i] for i in one_for_all.argmax(1)] == ["maki-2", "eel"]  # both wrong
    own = blend(read, classes, regions, exemplars, rule, levels)
    assert [names[i] for i in own.argmax(1)] == ["maki-3", "gyoza"]
    np.testing.assert_allclose(own[0], [*read[0], 0.0], atol=1e-6)  # under the maki-2's own near: unchanged


def test_a_region_nearer_its_exemplar_than_any_labelled_crop_of_another_kind_is_that_kind():
    """A maki-2 exemplar that a maki-3 of the check sample lies near (0.88) sets the maki-2's
    near at 0.91. A region 0.84 from the maki-2 and 0.45 from the maki-3 is nearer the taught
    card than any other kind's crop: it is a maki-2. One 0.84 from the maki-2 and 0.86 from the
    maki-3 is not: the classifier keeps its say."""
    from vision.exemplars import impostor_levels

    e = np.eye(6)
    exemplars = Exemplars.of([e[0], e[1]], ["maki-2", "gyoza"])
    maki3 = 0.88 * e[0] + np.sqrt(1 - 0.88 ** 2) * e[2]
    impostors = Exemplars.of([maki3], ["maki-3"])
    levels = impostor_levels(exemplars, impostors)
    classes = ["eel", "maki-2", "maki-3"]
    read = np.array([[0.05, 0.25, 0.7]] * 2, np.float32)  # the classifier: maki-3 for both
    # away from the maki-3, along e[3]: cosine 0.84 to the maki-2, 0.84 * 0.88 = 0.74 to the maki-3 ...
    apart = 0.84 * e[0] + np.sqrt(1 - 0.84 ** 2) * e[3]
    # ... and toward it, along e[2]: 0.84 to the maki-2, about 0.99 to the maki-3
    toward = 0.84 * e[0] + np.sqrt(1 - 0.84 ** 2) * e[2]
    assert float(unit(apart[None])[0] @ unit(maki3[None])[0]) == pytest.approx(0.74, abs=0.01)
    regions = np.stack([apart, toward])
    names = [*classes, "gyoza"]
    without = blend(read, classes, regions, exemplars, ExemplarRule(), levels)
    assert [names[i] for i in without.argmax(1)] == ["maki-3", "maki-3"]  # under the maki-2's own near
    found = blend(read, classes, regions, exemplars, ExemplarRule(), levels, impostors)
    assert [names[i] for i in found.argmax(1)] == ["maki-2", "maki-3"]
    np.testing.assert_allclose(found[1], [*read[1], 0.0], atol=1e-6)


def test_a_kind_barely_ahead_of_another_among_the_exemplars_leaves_the_classifier_its_say():
    e = np.eye(3)
    exemplars = Exemplars.of([e[0], 0.8 * e[0] + 0.6 * e[1]], ["tofu", "eel"])  # two kinds at cosine 0.8
    read = np.array([[0.7, 0.3]] * 2, np.float32)  # the classifier: eel
    # both regions lie 0.9 from the tofu; the first 0.84 from the eel (0.06 behind), the second 0.6
    regions = np.stack([0.9 * e[0] + 0.2 * e[1] + np.sqrt(0.15) * e[2], 0.9 * e[0] - 0.2 * e[1] + np.sqrt(0.15) * e[2]])
    found = blend(read, ["eel", "tofu"], regions, exemplars, ExemplarRule())
    np.testing.assert_allclose(found[0], read[0], atol=1e-6)  # 0.06 ahead: not evidence enough
    assert found[1].argmax() == 1  # 0.3 ahead: the tofu
# --- teaching on the player's install ----------------------------------------------------------


@pytest.fixture()
def data(tmp_path) -> Path:
    return tmp_path / "data"


def test_a_drawn_anniversary_card_taught_from_three_photos_is_read_in_the_next_photo(tmp_path, data, drawn_faces):
    photos = [str(save(tmp_path / f"teach-{i}.jpg", alone(600 + i, drawn_faces))) for i in range(3)]
    tables = [str(save(tmp_path / f"table-{i}.jpg", table_with_drawn(700 + i, drawn_faces))) for i in range(3)]
    plain = str(save(tmp_path / "plain.jpg", compose_table(710, [["tofu", "squid-nigiri", "wasabi", "maki-2"]],
                                                           size=(1280, 960), layout="loose", clutter=False)[0]))
    status, before, _ = cli("detect", *tables, plain, "--data", str(data))
    assert status == 0
    assert not any(TAUGHT in labels_of(line) for line in before)  # the classifier has no gyoza

    status, taught, stderr = cli("teach", *photos, "--card", TAUGHT, "--data", str(data))
    assert status == 0, stderr
    assert len(taught) == 3  # one face per photo, no retraining

    status, after, stderr = cli("detect", *tables, plain, "--data", str(data))
    assert status == 0, stderr
    # the taught card and the cards around it, each named as laid
    truth = sorted([TAUGHT, *OTHERS])
    for line in after[:3]:
        assert labels_of(line) == truth, line
    # a photo without it reads as it did
    assert after[3] == before[3]


def test_a_card_learnt_from_one_confirmed_round_is_read_in_the_next_photo(tmp_path, data, drawn_faces):
    from web.training import save_example

    round_photo, truth = compose_table(800, [[STAND_IN, "tofu", "wasabi"]], size=(1280, 960), layout="loose",
                                       clutter=False, faces=drawn_faces, fill=0.7)
    path = save(tmp_path / "round-1.jpg", round_photo)
    boxes = [(TAUGHT if c["label"] == STAND_IN else c["label"], c["box"]) for c in truth["cards"] if not c["hidden"]]
    save_example(data, path, boxes, 1280, 960, ["tofu", "wasabi", TAUGHT])
    nxt = str(save(tmp_path / "next.jpg", table_with_drawn(801, drawn_faces)))
    # what a models folder reads with: the version learnt, made active
    status, lines, stderr = cli("retrain", "--data", str(data))
    assert status == 0, stderr
    result = json.loads(lines[-1])
    assert result["accepted"] and result["kind"] == "exemplars", result
    version = data / "models" / result["version"]
    status, after, stderr = cli("detect", nxt, "--model", str(version), "--data", str(tmp_path / "none"))
    assert status == 0, stderr
    assert labels_of(after[0]).count(TAUGHT) == 1, after
    # the version reads each kind by how near the bundled check sample's other kinds come to it
    from vision.recognizer import Recognizer

    learnt = Recognizer.load(version)
    assert learnt.impostors is not None and set(learnt.exemplar_levels) == set(learnt.exemplars.kinds())
    # nothing new to learn the second time: one line, status 2
    status, _, stderr = cli("retrain", "--data", str(data))
    assert status == 2 and "nothing new to learn" in stderr
    # undone by rolling back
    status, lines, _ = cli("models", "rollback", "--data", str(data))
    assert status == 0 and "bundled" in lines[-1]


def test_a_model_folder_without_the_embedding_reads_as_before(tmp_path, data, drawn_faces):
    onnx = pytest.importorskip("onnx")
    from vision.recognizer import Recognizer
    from vision.teach.learn import refresh_taught
    from vision.teach.library import FaceLibrary

    folder = tmp_path / "plain-model"
    shutil.copytree(REPO_MODELS, folder, ignore=shutil.ignore_patterns("*.md", "*.pt", "*.npz"))
    model = onnx.load(str(folder / "classifier.onnx"))
    model.graph.output.pop()
    model.graph.node.remove(next(n for n in model.graph.node if n.output[0] == "embedding"))
    onnx.save(model, str(folder / "classifier.onnx"))
    with_embedding = Recognizer.load(REPO_MODELS)
    image = table_with_drawn(900, drawn_faces)
    # taught exemplars in the data folder: a folder without embeddings reads without them
    library = FaceLibrary(data)
    library.root.mkdir(parents=True)
    cv2.imwrite(str(library.root / "gyoza__1.jpg"), drawn_card())
    (library.root / "gyoza__1.json").write_text(json.dumps({"slug": "gyoza", "number": 1}))
    refresh_taught(data, with_embedding, REPO_MODELS)
    plain = Recognizer.load(folder, data_dir=data)
    assert not plain.classifier.embeds and plain.exemplars is None
    assert plain.detect(image).labels == with_embedding.detect(image).labels
    assert TAUGHT in Recognizer.load(REPO_MODELS, data_dir=data).exemplars.kinds()  # read where it can be


# --- matching cost, the torch path's export, live frames ----------------------------------------


def test_cosines_are_the_dot_products_of_every_pair():
    from vision.exemplars import cosines, match

    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(7, 40)).astype(np.float32), rng.normal(size=(11, 40)).astype(np.float32)
    expected = [[sum(float(x) * float(y) for x, y in zip(row, col, strict=True)) for col in b] for row in a]
    np.testing.assert_allclose(cosines(a, b), expected, rtol=1e-4, atol=1e-4)
    # and the nearest kind is the one whose k nearest exemplars are nearest on average
    labels = ["tofu"] * 5 + ["eel"] * 6
    found = match(a, Exemplars.of(b, labels), k=2)
    unit_a = a / np.linalg.norm(a, axis=1, keepdims=True)
    unit_b = b / np.linalg.norm(b, axis=1, keepdims=True)
    for row in range(len(a)):
        sims = {kind: sorted((float(unit_a[row] @ unit_b[j]) for j in range(len(b)) if labels[j] == kind),
                             reverse=True)[:2] for kind in ("tofu", "eel")}
        best = max(sims, key=lambda kind: sum(sims[kind]))
        assert found.best[row] == best
        assert found.similarity[row] == pytest.approx(np.mean(sims[best]), abs=1e-4)


def test_a_classifier_the_torch_path_exports_gets_the_embedding_output(tmp_path, monkeypatch, drawn_faces):
    """``export_classifier`` (``sushicam train`` and ``retrain`` with the training extra): the
    ultralytics export stands in as the bundled graph without its embedding output."""
    onnx = pytest.importorskip("onnx")
    import types

    from vision.recognizer import Recognizer
    from vision.teach.learn import face_crops
    from vision.training.classifier import export_classifier

    plain = onnx.load(str(REPO_MODELS / "classifier.onnx"))
    plain.graph.output.pop()
    plain.graph.node.remove(next(n for n in plain.graph.node if n.output[0] == "embedding"))

    def export_onnx(weights, imgsz, target, dynamic=False):
        onnx.save(plain, str(target))
        return Path(target)

    import vision.training

    fake = types.SimpleNamespace(export_onnx=export_onnx)
    monkeypatch.setitem(sys.modules, "vision.training.yolo", fake)
    monkeypatch.setattr(vision.training, "yolo", fake, raising=False)  # where it was imported already
    folder = tmp_path / "version"
    shutil.copytree(REPO_MODELS, folder, ignore=shutil.ignore_patterns("*.md", "*.pt", "*.npz"))
    (folder / "classifier.onnx").unlink()
    export_classifier(tmp_path / "classifier.pt", 96, folder / "classifier.onnx", dynamic=True)
    exported = onnx.load(str(folder / "classifier.onnx"))
    assert [o.name for o in exported.graph.output] == ["output0", "embedding"]
    # a version made so reads a taught card by its exemplars, as the bundled model does
    recognizer = Recognizer.load(folder)
    assert recognizer.classifier.embeds
    crops = [crop for i in range(3) for crop in face_crops(drawn_card(i))]  # as a taught face gives them
    taught = recognizer.with_exemplars(Exemplars.of(recognizer.embed_crops(crops), [TAUGHT] * len(crops)))
    assert TAUGHT not in recognizer.detect(alone(650, drawn_faces)).labels
    assert TAUGHT in taught.detect(alone(650, drawn_faces)).labels


def test_live_frames_are_named_with_the_players_taught_cards(tmp_path, data, drawn_faces):
    from vision.live.cli import _load_detector
    from vision.live.pipeline import LabelCache
    from vision.recognizer import Recognizer
    from vision.teach.learn import refresh_taught
    from vision.teach.library import FaceLibrary

    library = FaceLibrary(data)
    library.root.mkdir(parents=True)
    for i in range(3):
        cv2.imwrite(str(library.root / f"{TAUGHT}__{i + 1}.jpg"), drawn_card(i))
        (library.root / f"{TAUGHT}__{i + 1}.json").write_text(json.dumps({"slug": TAUGHT, "number": i + 1}))
    refresh_taught(data, Recognizer.load(REPO_MODELS), REPO_MODELS)
    frame = table_with_drawn(700, drawn_faces)
    truth = sorted([TAUGHT, *OTHERS])
    # the live recogniser of the app's page (the app's, loaded with its data folder) ...
    recognizer = Recognizer.load(REPO_MODELS, data_dir=data)
    live = LabelCache(recognizer.for_live())
    first, cached = live.detect(frame), live.detect(frame)
    assert sorted(recognizer.detect(frame).labels) == truth  # as the photo of it reads
    assert live.classified == len(first)  # the second frame reused every name
    assert sorted(first.labels) == truth and sorted(cached.labels) == truth
    assert (first.class_id >= 0).all()  # the taught kind is one of the recogniser's classes
    # ... and of ``sushicam live`` with the data folder
    detector = _load_detector(REPO_MODELS, refresh=4, still=1, still_full=False, data_dir=data)
    assert sorted(detector(frame).labels) == truth
    # without the data folder a live frame knows no gyoza
    assert TAUGHT not in _load_detector(REPO_MODELS, refresh=4, still=1, still_full=False)(frame).labels
