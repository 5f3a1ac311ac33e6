"""The card detector's torch/ultralytics side for retraining: fine-tune, average, export.

As in :mod:`vision.training.classifier`, torch and ultralytics are imported inside the
functions: a player's install (no ``[train]`` extra) never imports them.
"""

from __future__ import annotations

from pathlib import Path

from vision.training.classifier import Progress, TrainingFailed, _quiet


def fine_tune_detector(base_pt: Path, data_yaml: Path, run_dir: Path, *, epochs: int, imgsz: int,
                       batch: int, lr0: float, share: float, progress: Progress = _quiet) -> Path:
    """Fine-tune the one-class detector ``base_pt`` on the YOLO data set ``data_yaml``; returns
    the weights of its last epoch averaged with ``base_pt``'s (``share`` the fine-tuned ones':
    a few hundred photos must not make it forget what it knew). The settings are those of
    the bundled detector's fine-tuning stages (``vision.training.train``, detector camera
    stage): AdamW, no warm-up, mosaic off for the last epochs; validated once, after the last
    (the retraining weighs it on its own held-out photos)."""
    from vision.training import yolo

    model = yolo.YOLO(str(base_pt), task="detect")

    def epoch_done(trainer) -> None:
        done = min(trainer.epoch + 1, trainer.epochs)  # called once more after the last epoch
        progress("detector", done / trainer.epochs, f"detector epoch {done} of {trainer.epochs}")

    model.add_callback("on_fit_epoch_end", epoch_done)
    model.train(data=str(data_yaml), epochs=epochs, imgsz=imgsz, batch=batch, project=str(run_dir.parent),
                name=run_dir.name, pretrained=True, optimizer="AdamW", lr0=lr0, warmup_epochs=0,
                close_mosaic=min(2, epochs), patience=100, save_period=-1, val=False, **yolo.COMMON)
    last = run_dir / "weights" / "last.pt"
    if not last.exists():
        raise TrainingFailed(f"the detector's training wrote no weights in {run_dir}")
    if share >= 1:
        return last
    return yolo.average_weights(base_pt, last, share, run_dir / "averaged.pt")


def export_detector(weights: Path, imgsz: int, target: Path) -> Path:
    """The detector as the recogniser loads it: ONNX, height and width free (a 4:3 photo is
    fed unpadded)."""
    from vision.training import yolo

    return yolo.export_onnx(weights, imgsz, target, dynamic=True)
