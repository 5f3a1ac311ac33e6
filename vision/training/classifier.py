"""The card classifier's torch/ultralytics side for retraining: widen, fine-tune, export.

torch and ultralytics are imported inside the functions: a player's install (no ``[train]``
extra) never imports it: :func:`vision.training.require_training_stack` says what is missing first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

Progress = Callable[[str, float, str], None]


class TrainingFailed(RuntimeError):
    """The training step itself failed (the active model is unchanged)."""


def _quiet(stage: str, fraction: float, message: str) -> None:
    pass


def widen_classifier(source_pt: Path, target_pt: Path, classes: Sequence[str]) -> None:
    """Save ``source_pt`` with one output per ``classes`` entry, in that order.

    Rows of classes the source knew are copied (whatever their old position); a new class
    starts from small random weights and the mean bias, so it begins as an unlikely guess.
    """
    import torch

    from vision.training import yolo  # noqa: F401 - sets ultralytics up offline before unpickling

    checkpoint = torch.load(source_pt, map_location="cpu", weights_only=False)
    model = (checkpoint.get("ema") or checkpoint["model"]).float()
    head = model.model[-1].linear
    names = model.names if isinstance(model.names, dict) else dict(enumerate(model.names))
    old_index = {name: i for i, name in names.items()}
    linear = torch.nn.Linear(head.in_features, len(classes))
    with torch.no_grad():
        linear.weight.normal_(0.0, float(head.weight.std()) * 0.5)
        linear.bias.fill_(float(head.bias.mean()))
        for row, name in enumerate(classes):
            if name in old_index:
                linear.weight[row] = head.weight[old_index[name]]
                linear.bias[row] = head.bias[old_index[name]]
    model.model[-1].linear = linear
    model.names = dict(enumerate(classes))
    model.nc = len(classes)
    model.yaml["nc"] = len(classes)
    torch.save({"model": model, "train_args": checkpoint.get("train_args", {}), "date": None,
                "version": checkpoint.get("version")}, target_pt)


def fine_tune_classifier(widened_pt: Path, data: Path, run_dir: Path, *, epochs: int, imgsz: int,
                         batch: int, lr0: float, freeze: int, progress: Progress = _quiet) -> Path:
    """Fine-tune a (widened) classifier on the crop folders in ``data``; returns the best weights.

    ``freeze``: the first layers kept as they are (0: tune them all).
    """
    from vision.training import yolo

    model = yolo.YOLO(str(widened_pt), task="classify")

    def epoch_done(trainer) -> None:
        done = min(trainer.epoch + 1, trainer.epochs)  # called once more after the last epoch
        progress("train", done / trainer.epochs, f"epoch {done} of {trainer.epochs}")

    model.add_callback("on_fit_epoch_end", epoch_done)
    settings = {**yolo.COMMON, "verbose": False}
    model.train(data=str(data), epochs=epochs, imgsz=imgsz, batch=batch,
                project=str(run_dir.parent), name=run_dir.name, pretrained=True, lr0=lr0,
                optimizer="AdamW", warmup_epochs=0.5, cos_lr=True, fliplr=0.0, scale=0.15,
                erasing=0.0, auto_augment=None, hsv_h=0.01, hsv_s=0.3, hsv_v=0.3, patience=100,
                save_period=-1, freeze=freeze or None, **settings)
    best = run_dir / "weights" / "best.pt"
    if not best.exists():
        raise TrainingFailed(f"training wrote no weights in {run_dir}")
    return best


def export_classifier(weights: Path, imgsz: int, target: Path, dynamic: bool = False) -> Path:
    """Export a classifier to ONNX with its ``embedding`` output too
    (``vision.training.embedding``): a version the torch stack made reads the players'
    exemplars as the bundled one does."""
    from vision.training import yolo
    from vision.training.embedding import add_embedding_output

    return add_embedding_output(yolo.export_onnx(weights, imgsz, target, dynamic=dynamic))
