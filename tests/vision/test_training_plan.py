"""The training plan: the stages behind the committed models, as the model card tells them,
and ``sushicam train`` running a plan stage by stage, resuming across runs."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from vision.training.plan import (
    COMMITTED_PLAN,
    FROM_SCRATCH,
    Data,
    Stage,
    after,
    check_plan,
    plan_from_json,
    plan_table,
    plan_to_json,
    select,
)
from web.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _card_table() -> str:
    card = (ROOT / "models/README.md").read_text()
    lines = card.split("## How the models were made", 1)[1].splitlines()
    begin = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(begin, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[begin:end]) + "\n"


def test_the_model_cards_table_is_the_committed_plan():
    assert _card_table() == plan_table(COMMITTED_PLAN)


def test_the_committed_models_record_the_committed_plan():
    meta = json.loads((ROOT / "models/meta.json").read_text())
    assert tuple(plan_from_json(meta["plan"])) == COMMITTED_PLAN


def test_the_committed_plan_ends_each_model_with_the_sizes_the_app_reads_it_at():
    meta = json.loads((ROOT / "models/meta.json").read_text())
    last = {stage.model: stage for stage in COMMITTED_PLAN}
    assert last["detector"].feed_size == meta["detector"]["imgsz"]
    assert last["classifier"].feed_size == meta["classifier"]["imgsz"]
    assert last["counter"].feed_size == meta["counter"]["imgsz"]
    assert list(last["counter"].start.outputs) == meta["counter"]["classes"]


def test_the_plans_class_lists_are_the_recognisers():
    from vision.faces import SLUGS
    from vision.recognizer import NOT_A_CARD
    from vision.synth.dataset import COUNT_FACES
    from vision.synth.fruit import FRUIT_FACES
    from vision.training import plan

    assert tuple(sorted(SLUGS)) == plan.CARD_FACES and plan.NOT_A_CARD == NOT_A_CARD
    assert plan.COUNT_FACES == COUNT_FACES
    assert plan.FRUIT_FACES == FRUIT_FACES


def test_every_training_recipe_is_trained_on_and_fits_its_stages_model():
    from vision.synth.dataset import RECIPES
    from vision.training.train import stage_recipes

    used = {item.recipe for stage in COMMITTED_PLAN for item in stage.data}
    assert used == {name for name in RECIPES if name == "train" or name.startswith("train-")}
    for stage in COMMITTED_PLAN:
        assert [r.name for r in stage_recipes(stage)] == [item.recipe for item in stage.data]
    wrong = replace(COMMITTED_PLAN[1], data=(Data("train-wide-crops"),))  # crops for a detector
    with pytest.raises(ValueError, match="writes no photos for a detector"):
        stage_recipes(wrong)


def test_a_stage_is_written_and_read_back_as_json():
    records = json.loads(json.dumps(plan_to_json(COMMITTED_PLAN)))
    assert tuple(plan_from_json(records)) == COMMITTED_PLAN
    assert records[6]["start"] == {"stage": "classifier-ft", "outputs": sorted(records[6]["start"]["outputs"])}
    with pytest.raises(ValueError, match="unknown keys colour"):
        plan_from_json([{**records[0], "colour": "red"}])
    with pytest.raises(ValueError, match="missing epochs"):
        plan_from_json([{k: v for k, v in records[0].items() if k != "epochs"}])


@pytest.mark.parametrize("change, needle", [
    ({"imgsz": 100}, "multiple of 32"), ({"epochs": 0}, "epochs"), ({"model": "ranker"}, "model must be"),
    ({"share": 0.5}, "needs a start"), ({"share": 1.5}, "share"), ({"data": ()}, "no recipe"),
    ({"model": "detector", "start": after("x", ["card"])}, "only a classifying model's outputs"),
])
def test_a_stage_refuses_settings_no_training_can_have(change, needle):
    with pytest.raises(ValueError, match=needle):
        replace(COMMITTED_PLAN[0], **change)


def test_a_plan_starts_each_stage_from_an_earlier_one_of_its_model():
    first, second = COMMITTED_PLAN[0], COMMITTED_PLAN[1]
    with pytest.raises(ValueError, match="not an earlier stage"):
        check_plan([replace(first, start=after("detector")), second])
    with pytest.raises(ValueError, match="two stages"):
        check_plan([first, first])
    with pytest.raises(ValueError, match=r"\(classifier\) starts from 'detector' \(detector\)"):
        check_plan([second, replace(first, start=after("detector"))])


def test_a_run_takes_one_stage_or_a_stretch_of_the_plan():
    names = [s.name for s in COMMITTED_PLAN]
    assert [s.name for s in select(COMMITTED_PLAN)] == names
    assert [s.name for s in select(COMMITTED_PLAN, stage="counter")] == ["counter"]
    assert [s.name for s in select(COMMITTED_PLAN, last="detector-ft")] == names[:3]
    assert [s.name for s in select(COMMITTED_PLAN, first="counter")] == names[names.index("counter"):]
    with pytest.raises(ValueError, match="comes after"):
        select(COMMITTED_PLAN, first="counter", last="classifier")


def test_the_models_plan_keeps_the_record_of_the_models_left_as_they_were():
    from vision.training.train import models_plan

    plan = COMMITTED_PLAN
    by_name = {s.name: s for s in plan}
    # the detector written again from its third stage: the classifier's and counter's stages stay
    behind = models_plan(plan, {"detector": by_name["detector-ft"]}, plan)
    names = [s.name for s in behind]
    assert "detector-patterned" not in names and names[:3] == ["classifier", "detector", "detector-ft"]
    assert {"classifier-wide", "counter"} <= set(names)


@pytest.mark.parametrize("argv, needle", [
    (["--stage", "no-such-stage"], "no stage 'no-such-stage'"),
    (["--from", "counter", "--until", "classifier"], "comes after"),
    (["--stage", "counter", "--from", "classifier"], "--stage names one stage"),
    # a stage alone needs the one it starts from to have run
    (["--stage", "detector-ft"], "starts from stage 'detector', which has not run"),
])
def test_train_refuses_a_stage_the_plan_does_not_have_with_one_line(argv, needle, capsys, tmp_path):
    assert main(["train", "--models", str(tmp_path / "models"), "--runs", str(tmp_path / "runs"), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert not (tmp_path / "models").exists() and not (tmp_path / "runs").exists()


def test_train_refuses_a_plan_file_it_cannot_read(capsys, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text("[{\"name\": \"x\"")
    assert main(["train", "--plan", str(plan), "--models", str(tmp_path / "models")]) == 2
    assert "not JSON" in capsys.readouterr().err


#: three stages on a handful of photos: a classifier and a detector from scratch, and the
#: classifier fine-tuned from the first and averaged 1:1 with it
TINY = (
    Stage("cls", "classifier", FROM_SCRATCH, (Data("tiny", 0.5),), epochs=1, imgsz=32, batch=4),
    Stage("det", "detector", FROM_SCRATCH, (Data("tiny", 0.5),), epochs=1, imgsz=64, batch=2),
    Stage("cls-avg", "classifier", after("cls"), (Data("tiny", 0.5),), epochs=1, imgsz=32, batch=4,
          optimizer="AdamW", lr0=0.0001, share=0.5, epoch="last"),
)


def _trained(capsys: pytest.CaptureFixture[str]) -> dict[str, int]:
    """The stages ``sushicam train`` says it trained (its last line; ultralytics prints too)."""
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.mark.slow
def test_train_runs_a_plan_stage_by_stage_and_resumes_where_it_stopped(tmp_path, faces, capsys):
    import onnx

    from vision.runtime import OnnxDetector

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan_to_json(TINY)))
    runs, models = tmp_path / "runs", tmp_path / "models"
    where = ["--plan", str(plan_file), "--data", str(tmp_path / "build"), "--runs", str(runs),
             "--models", str(models), "--workers", "1"]
    # a first run stops after the first stage (as one killed between stages)
    assert main(["train", *where, "--until", "cls"]) == 0
    assert set(_trained(capsys)) == {"cls", "process_cpu_s"}
    assert sorted(p.name for p in models.iterdir()) == ["classifier.onnx", "classifier.pt", "meta.json"]
    assert [s["name"] for s in json.loads((models / "meta.json").read_text())["plan"]] == ["cls"]
    first = (runs / "cls/kept.pt").stat().st_mtime_ns, (runs / "cls/weights/last.pt").stat().st_mtime_ns
    # the next run skips it and trains the rest
    assert main(["train", *where]) == 0
    assert set(_trained(capsys)) == {"det", "cls-avg", "process_cpu_s"}
    assert ((runs / "cls/kept.pt").stat().st_mtime_ns, (runs / "cls/weights/last.pt").stat().st_mtime_ns) == first
    meta = json.loads((models / "meta.json").read_text())
    assert tuple(plan_from_json(meta["plan"])) == TINY
    assert meta["detector"]["imgsz"] == 64 and meta["classifier"]["imgsz"] == 32 and meta["classifier"]["crop"] == 96
    from vision.faces import SLUGS

    assert set(meta["classes"]) == set(SLUGS)
    detector = OnnxDetector(models / "detector.onnx", threads=1)
    assert detector.imgsz == 64
    outputs = [o.name for o in onnx.load(str(models / "classifier.onnx")).graph.output]
    assert "embedding" in outputs
    # everything done: a third run trains nothing, and a stage whose settings changed is refused
    assert main(["train", *where]) == 0
    assert set(_trained(capsys)) == {"process_cpu_s"}
    plan_file.write_text(json.dumps(plan_to_json((replace(TINY[0], epochs=2), *TINY[1:]))))
    assert main(["train", *where]) == 2
    assert "other settings" in capsys.readouterr().err

