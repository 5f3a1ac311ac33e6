"""The training plan: the stages that make the committed models, as values.

A :class:`Stage` trains one model (a kind of :data:`MODEL_KINDS`) for some epochs on the
photos or crops of some ``sushicam generate`` recipes, starting from a ``.yaml`` architecture
or from an earlier stage's kept weights (cut to other outputs where it says), and keeps its
weights whole or averaged with those it started from. :data:`COMMITTED_PLAN` lists the stages
behind ``models/`` in the order they run; ``sushicam train`` runs them
(:func:`vision.training.train.train_plan`) and ``models/README.md``'s table of them is
:func:`plan_table`'s (tests/vision/test_training_plan.py keeps the two the same).

A new model kind is a new :data:`MODEL_KINDS` entry and its stages in the plan; what a kind
writes into ``meta.json`` is :func:`vision.training.train.model_entry`'s.

No torch, ultralytics or OpenCV here: the plan is read, checked and printed without them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, TypedDict, cast

#: where a stage was trained for the committed models: a GPU's stage takes hours to a day on
#: two CPU cores, a CPU's at most a few hours
Device = Literal["cpu", "gpu"]
#: the epoch whose weights a stage keeps: the best on its validation split, or the schedule's
#: last (a stage whose validation crops are our renderer's, not the photos it is for)
Epoch = Literal["best", "last"]
Task = Literal["detect", "classify"]

#: what the card classifier's cards are named, besides the faces (vision.recognizer.NOT_A_CARD)
NOT_A_CARD = "not-a-card"
#: the card classifier's faces, as vision.faces.SLUGS names them (37 Party faces and the back),
#: written out here so that the plan is read without OpenCV; a test keeps the two the same
CARD_FACES = (
    "card-back", "chopsticks", "dumpling", "edamame", "eel", "egg-nigiri", "fruit-orange-orange",
    "fruit-pineapple-orange", "fruit-pineapple-pineapple", "fruit-watermelon-orange",
    "fruit-watermelon-pineapple", "fruit-watermelon-watermelon", "green-tea-ice-cream", "maki-1",
    "maki-2", "maki-3", "menu", "miso-soup", "onigiri-circle", "onigiri-rectangle", "onigiri-square",
    "onigiri-triangle", "pudding", "salmon-nigiri", "sashimi", "soy-sauce", "special-order", "spoon",
    "squid-nigiri", "takeout-box", "tea", "temaki", "tempura", "tofu", "uramaki-3", "uramaki-4",
    "uramaki-5", "wasabi",
)
#: the count classifier's outputs (vision.synth.dataset.COUNT_FACES)
COUNT_FACES = ("maki-1", "maki-2", "maki-3", "uramaki-3", "uramaki-4", "uramaki-5")
#: the fruit reader's outputs (vision.synth.fruit.FRUIT_FACES)
FRUIT_FACES = ("fruit-orange-orange", "fruit-pineapple-orange", "fruit-pineapple-pineapple",
               "fruit-watermelon-orange", "fruit-watermelon-pineapple", "fruit-watermelon-watermelon")


@dataclass(frozen=True)
class ModelKind:
    """A model ``sushicam train`` makes: written as ``models/<name>.pt`` and ``<name>.onnx``."""

    name: str
    task: Task
    #: the ultralytics architecture a stage from scratch builds
    architecture: str


MODEL_KINDS: dict[str, ModelKind] = {kind.name: kind for kind in (
    ModelKind("detector", "detect", "yolov8n.yaml"),
    ModelKind("classifier", "classify", "yolov8n-cls.yaml"),
    ModelKind("counter", "classify", "yolov8n-cls.yaml"),
    # the reader of a fruit card's two fruit (``vision.recognizer.Recognizer.refruit``)
    ModelKind("fruit", "classify", "yolov8n-cls.yaml"),
)}


@dataclass(frozen=True)
class Data:
    """A ``sushicam generate`` recipe a stage trains on, and the share of its photos generated
    (the first ones of each split: a smaller share is the start of a larger one)."""

    recipe: str
    share: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.share <= 1:
            raise ValueError(f"recipe {self.recipe}: share must lie in (0, 1], not {self.share}")


@dataclass(frozen=True)
class Start:
    """Where a stage's weights begin: its kind's ``.yaml`` (``stage`` empty) or the weights an
    earlier stage kept; ``outputs``, when given, cuts or widens those weights' class outputs to
    these classes, in this order (each class they knew keeps what it had learnt)."""

    stage: str = ""
    outputs: tuple[str, ...] = ()


FROM_SCRATCH = Start()


def after(stage: str, outputs: Iterable[str] = ()) -> Start:
    """The start from ``stage``'s kept weights (cut to ``outputs`` where given)."""
    return Start(stage, tuple(outputs))


class StageJSON(TypedDict):
    """A stage as ``meta.json``'s ``plan`` and ``sushicam train --plan FILE`` write it."""

    name: str
    model: str
    start: dict[str, Any]
    data: list[dict[str, Any]]
    epochs: int
    imgsz: int
    batch: int
    optimizer: str
    lr0: float | None
    warmup_epochs: float | None
    close_mosaic: int | None
    hours: float
    device: Device
    share: float
    epoch: Epoch
    feed: int
    mirror: float


@dataclass(frozen=True)
class Stage:
    """One training of one model: from ``start``, ``epochs`` on ``data`` at ``imgsz``."""

    name: str
    model: str
    start: Start
    data: tuple[Data, ...]
    epochs: int
    imgsz: int
    batch: int
    #: ultralytics' optimiser ("auto": its own choice) and, where set, its learning rate and
    #: warm-up epochs; ``close_mosaic``: a detector's last epochs without mosaic
    optimizer: str = "auto"
    lr0: float | None = None
    warmup_epochs: float | None = None
    close_mosaic: int | None = None
    #: a bound on the training time in hours (0: none): ultralytics then fits as many epochs as
    #: the time allows in place of ``epochs`` (the committed run fitted the epochs named)
    hours: float = 0.0
    device: Device = "cpu"
    #: how the stage is kept: its own weights' share in an average with those it started from
    #: (1: whole; 0.5: averaged 1:1). Fine-tuned alone, a stage reads its own kind of photos
    #: better and the others worse; the average keeps most of both
    share: float = 1.0
    epoch: Epoch = "best"
    #: the size the exported model is fed at (0: ``imgsz``)
    feed: int = 0
    #: the share of training crops mirrored: 0 for a card, which reads otherwise mirrored; a
    #: fruit card mirrored shows the same two fruit, the other way round
    mirror: float = 0.0

    def __post_init__(self) -> None:
        problems = [
            f"model must be one of {', '.join(MODEL_KINDS)}, not {self.model!r}" if self.model not in MODEL_KINDS else "",
            "it trains on no recipe" if not self.data else "",
            f"epochs must be at least 1, not {self.epochs}" if self.epochs < 1 else "",
            f"batch must be at least 1, not {self.batch}" if self.batch < 1 else "",
            f"imgsz must be a positive multiple of 32, not {self.imgsz}" if self.imgsz < 32 or self.imgsz % 32 else "",
            f"share must lie in (0, 1], not {self.share}" if not 0 < self.share <= 1 else "",
            f"hours must be 0 or more, not {self.hours}" if self.hours < 0 else "",
            "a stage averaged with its start needs a start" if self.share < 1 and not self.start.stage else "",
            "it starts from itself" if self.start.stage == self.name else "",
            "only a classifying model's outputs can be cut"
            if self.start.outputs and self.model in MODEL_KINDS and self.kind.task != "classify" else "",
        ]
        wrong = [p for p in problems if p]
        if wrong:
            raise ValueError(f"stage {self.name!r}: {'; '.join(wrong)}")

    @property
    def kind(self) -> ModelKind:
        return MODEL_KINDS[self.model]

    @property
    def feed_size(self) -> int:
        return self.feed or self.imgsz

    def to_json(self) -> StageJSON:
        record = asdict(self)
        record["start"] = {"stage": self.start.stage, "outputs": list(self.start.outputs)}
        record["data"] = [asdict(item) for item in self.data]
        return cast(StageJSON, record)

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Stage:
        """The stage ``record`` (:meth:`to_json`'s) describes; ``ValueError`` naming what is wrong."""
        if not isinstance(record, Mapping):
            raise ValueError(f"a stage is an object, not {record!r}")
        known = set(StageJSON.__annotations__)
        unknown = sorted(set(record) - known)
        missing = sorted({"name", "model", "data", "epochs", "imgsz", "batch"} - set(record))
        name = record.get("name", "?")
        if unknown or missing:
            raise ValueError(f"stage {name!r}: " + "; ".join(
                ([f"unknown keys {', '.join(unknown)}"] if unknown else [])
                + ([f"missing {', '.join(missing)}"] if missing else [])))
        try:
            start = record.get("start") or {}
            fields = {**record, "start": Start(str(start.get("stage", "")), tuple(start.get("outputs", ()))),
                      "data": tuple(Data(**item) for item in record["data"])}
            return cls(**fields)
        except (TypeError, AttributeError) as exc:
            raise ValueError(f"stage {name!r}: {exc}") from None


def check_plan(plan: Sequence[Stage]) -> None:
    """``ValueError`` unless every stage's name is its own and every stage starts from an earlier
    one of its own kind (or, cut to other outputs, of another classifying kind)."""
    seen: dict[str, Stage] = {}
    for stage in plan:
        if stage.name in seen:
            raise ValueError(f"two stages are named {stage.name!r}")
        source = stage.start.stage
        if source:
            if source not in seen:
                raise ValueError(f"stage {stage.name!r} starts from {source!r}, which is not an earlier stage")
            before = seen[source]
            if before.model != stage.model and not (stage.start.outputs and before.kind.task == stage.kind.task):
                raise ValueError(f"stage {stage.name!r} ({stage.model}) starts from {source!r} ({before.model})")
        seen[stage.name] = stage


def chain(plan: Sequence[Stage], name: str) -> list[Stage]:
    """The stages behind ``name``'s weights, first to last: the stage it started from, and so on
    back to one from scratch.

    >>> [s.name for s in chain(COMMITTED_PLAN, "detector-pile")]
    ['detector', 'detector-ft', 'detector-tables', 'detector-hires', 'detector-pile']
    """
    by_name = {stage.name: stage for stage in plan}
    stages = [by_name[name]]
    while stages[0].start.stage:
        stages.insert(0, by_name[stages[0].start.stage])
    return stages


def select(plan: Sequence[Stage], stage: str | None = None, first: str | None = None,
           last: str | None = None) -> list[Stage]:
    """The stages a run takes: ``stage`` alone, or those from ``first`` to ``last`` (each end
    the plan's own when not given), in the plan's order.

    >>> [s.name for s in select(COMMITTED_PLAN, first="classifier-wide", last="counter")]
    ['classifier-wide', 'detector-tilted-mixed', 'detector-tilted', 'counter']
    """
    names = [s.name for s in plan]
    for given in (stage, first, last):
        if given is not None and given not in names:
            raise ValueError(f"no stage {given!r} in the plan: its stages are {', '.join(names)}")
    if stage is not None:
        if first is not None or last is not None:
            raise ValueError("--stage names one stage: give it without --from or --until")
        return [s for s in plan if s.name == stage]
    begin = names.index(first) if first else 0
    end = names.index(last) if last else len(names) - 1
    if begin > end:
        raise ValueError(f"stage {first!r} comes after {last!r} in the plan")
    return list(plan[begin:end + 1])


def plan_to_json(plan: Sequence[Stage]) -> list[StageJSON]:
    return [stage.to_json() for stage in plan]


def plan_from_json(records: object) -> list[Stage]:
    """The plan a ``--plan`` file or ``meta.json``'s ``plan`` list holds; checked."""
    if not isinstance(records, list):
        raise ValueError("a plan is a list of stages")
    plan = [Stage.from_json(record) for record in records]
    check_plan(plan)
    return plan


def recorded_plan(meta: Mapping[str, Any]) -> list[Stage]:
    """The stages a ``meta.json`` says its models were made by. A record written before the plan
    was a list of stages (an object of settings, ``det_epochs`` and so on) names no stage: none."""
    record = meta.get("plan")
    if isinstance(record, list):
        return plan_from_json(record)
    return []


def _lr(value: float) -> str:
    """``5e-4`` for 0.0005: the learning rate as the table writes it."""
    mantissa, exponent = f"{value:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _start_words(stage: Stage, number: Mapping[str, int]) -> str:
    if not stage.start.stage:
        return f"from `{stage.kind.architecture}`"
    words = f"from {number[stage.start.stage]}"
    if stage.start.outputs:
        words += f", cut to {len(stage.start.outputs)} outputs"
    return words


def _schedule_words(stage: Stage) -> str:
    words = [f"{stage.epochs} epochs"]
    if stage.hours:
        words.append(f"bounded to {stage.hours:g} h")
    words.append(f"batch {stage.batch}")
    if stage.optimizer != "auto":
        words.append(stage.optimizer + (f" {_lr(stage.lr0)}" if stage.lr0 is not None else ""))
    if stage.mirror:
        words.append(f"{stage.mirror:.0%} of crops mirrored")
    return ", ".join(words)


def plan_table(plan: Sequence[Stage]) -> str:
    """The plan as the model card's Markdown table, one row a stage in the order they run."""
    number = {stage.name: index for index, stage in enumerate(plan, 1)}
    rows = ["| # | stage | model | start | schedule | data | size | where | kept |",
            "|---|---|---|---|---|---|---|---|---|"]
    for stage in plan:
        data = ", ".join(f"`{item.recipe}`" + (f" ({item.share:.0%})" if item.share < 1 else "")
                         for item in stage.data)
        size = f"{stage.imgsz}" + (f", fed at {stage.feed}" if stage.feed and stage.feed != stage.imgsz else "")
        kept = "whole"
        if stage.share < 1:
            mix = "1:1" if stage.share == 0.5 else f"{stage.share:.0%} its own"
            kept = f"averaged {mix} with {number[stage.start.stage]}"
        rows.append(f"| {number[stage.name]} | `{stage.name}` | {stage.model} | {_start_words(stage, number)} | "
                    f"{_schedule_words(stage)} | {data} | {size} | {stage.device.upper()} | "
                    f"{kept}, {stage.epoch} epoch |")
    return "\n".join(rows) + "\n"


def _recipes(*names: str) -> tuple[Data, ...]:
    return tuple(Data(name) for name in names)


class _Schedule(TypedDict, total=False):
    optimizer: str
    lr0: float
    warmup_epochs: float
    close_mosaic: int
    epoch: Epoch


#: the detector's fine-tuning settings from the camera stages on (AdamW, a small rate, no warm-up)
_CAMERA = _Schedule(optimizer="AdamW", lr0=0.0002, warmup_epochs=0.0, close_mosaic=2, epoch="last")
#: the classifier's print-style stages' settings
_PRINTS = _Schedule(optimizer="AdamW", lr0=0.0002, warmup_epochs=0.0, epoch="last")
_BASE = ("train",)
_CLASSIFIER_BASE = ("train", "train-crops", "train-negatives")

#: the stages behind the committed models, in the order they were trained (two chains, the
#: detector's and the classifier's, and the counter and the fruit reader cut from the
#: classifier's last stage)
COMMITTED_PLAN: tuple[Stage, ...] = (
    Stage("classifier", "classifier", FROM_SCRATCH, _recipes(*_BASE), epochs=12, imgsz=64, batch=64),
    Stage("detector", "detector", FROM_SCRATCH, _recipes(*_BASE), epochs=15, imgsz=416, batch=16, close_mosaic=3),
    Stage("detector-ft", "detector", after("detector"), _recipes(*_BASE), epochs=10, imgsz=640, batch=16,
          optimizer="AdamW", lr0=0.001, warmup_epochs=0.5, close_mosaic=4),
    Stage("detector-tables", "detector", after("detector-ft"), _recipes(*_BASE, "train-tables"), epochs=5,
          imgsz=640, batch=16, optimizer="AdamW", lr0=0.0005, warmup_epochs=0.3, close_mosaic=2),
    Stage("detector-hires", "detector", after("detector-tables"),
          _recipes(*_BASE, "train-tables", "train-tables-hires"), epochs=29, imgsz=960, batch=32,
          optimizer="AdamW", lr0=0.0005, warmup_epochs=0.5, close_mosaic=3, device="gpu", feed=832),
    Stage("classifier-ft", "classifier", after("classifier"), _recipes(*_BASE, "train-crops"), epochs=4,
          imgsz=96, batch=64, optimizer="AdamW", lr0=0.0005, warmup_epochs=0.0),
    Stage("classifier-neg", "classifier", after("classifier-ft", sorted((*CARD_FACES, NOT_A_CARD))),
          _recipes(*_CLASSIFIER_BASE), epochs=2, imgsz=96, batch=64, optimizer="AdamW", lr0=0.0003,
          warmup_epochs=0.0),
    Stage("classifier-tables", "classifier", after("classifier-neg"),
          _recipes(*_CLASSIFIER_BASE, "train-tables-crops", "train-tables-hires-crops"), epochs=14, imgsz=96,
          batch=256, optimizer="AdamW", lr0=0.0003, warmup_epochs=0.0, device="gpu"),
    Stage("classifier-camera", "classifier", after("classifier-tables"), _recipes("train-camera-crops"),
          epochs=39, imgsz=96, batch=64, hours=1.0, share=0.5, **_PRINTS),
    Stage("classifier-light", "classifier", after("classifier-camera"), _recipes("train-light-crops"),
          epochs=23, imgsz=96, batch=64, hours=0.75, share=0.5, **_PRINTS),
    Stage("detector-pile", "detector", after("detector-hires"),
          _recipes("train-camera-tables", "train-pile-tables"), epochs=4, imgsz=832, batch=8, hours=1.0,
          share=0.5, **_CAMERA),
    Stage("detector-mixed", "detector", after("detector-pile"),
          _recipes("train-camera-tables", "train-pile-tables", "train-turned-piles", "train-mixed-tables"),
          epochs=31, imgsz=832, batch=32, device="gpu", **_CAMERA),
    Stage("classifier-sheen", "classifier", after("classifier-light"), _recipes("train-sheen-crops"),
          epochs=25, imgsz=96, batch=64, share=0.5, **_PRINTS),
    Stage("classifier-wide", "classifier", after("classifier-sheen"), _recipes("train-wide-crops"),
          epochs=14, imgsz=96, batch=256, device="gpu", share=0.5, **_PRINTS),
    Stage("detector-tilted-mixed", "detector", after("detector-mixed"),
          _recipes("train-mixed-tables", "train-tilted-tables"), epochs=15, imgsz=832, batch=32, device="gpu",
          **_CAMERA),
    Stage("detector-tilted", "detector", after("detector-tilted-mixed"), _recipes("train-tilted-tables"),
          epochs=21, imgsz=832, batch=32, device="gpu", **_CAMERA),
    Stage("counter", "counter", after("classifier-wide", COUNT_FACES), _recipes("train-count-crops"),
          epochs=8, imgsz=128, batch=64, optimizer="AdamW", lr0=0.0003, warmup_epochs=0.0, epoch="last"),
    Stage("detector-patterned", "detector", after("detector-tilted"), _recipes("train-patterned-tables"),
          epochs=6, imgsz=832, batch=8, hours=0.6, share=0.5, **_CAMERA),
    Stage("fruit", "fruit", after("classifier-wide", FRUIT_FACES), _recipes("train-fruit-crops"),
          epochs=9, imgsz=128, batch=64, optimizer="AdamW", lr0=0.0003, warmup_epochs=0.0, hours=0.6,
          epoch="last", mirror=0.5),
    Stage("fruit-turned", "fruit", after("fruit", FRUIT_FACES), _recipes("train-fruit-turned-crops"),
          epochs=11, imgsz=128, batch=64, optimizer="AdamW", lr0=0.0002, warmup_epochs=0.0, hours=0.5,
          epoch="last", mirror=0.5),
)
check_plan(COMMITTED_PLAN)
