"""The adapter to ultralytics: the only module that imports it (training and export).

Ultralytics is set up to work offline before it is imported: no settings written to the
home folder, no font or weight downloads (fonts come from DejaVu, models are built from
their ``.yaml``), two CPU threads, no AMP check.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from vision.paths import REPO_ROOT

FONT_SOURCES = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
)
THREADS = int(os.environ.get("SUSHICAM_THREADS", "2"))


def _offline_setup() -> None:
    config_dir = Path(os.environ.setdefault("YOLO_CONFIG_DIR", str(REPO_ROOT / ".yolo")))
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_VERBOSE", "False")
    # the machine is shared: threads that sleep at barriers instead of spinning waste no
    # CPU when other jobs hold the cores (read by libgomp when torch loads, hence here)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    fonts = config_dir / "Ultralytics"
    fonts.mkdir(parents=True, exist_ok=True)
    source = next((p for p in FONT_SOURCES if p.exists()), None)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if source and not (fonts / name).exists():
            shutil.copyfile(source, fonts / name)


_offline_setup()

import torch  # noqa: E402
import ultralytics.utils.torch_utils as _torch_utils  # noqa: E402
from ultralytics import YOLO  # noqa: E402

_torch_utils.NUM_THREADS = THREADS
torch.set_num_threads(THREADS)


def _results_csv(trainer) -> dict:
    """``results.csv`` as columns of floats, read without polars."""
    import csv

    try:
        with open(trainer.csv, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    return {k.strip(): [float(r[k]) for r in rows] for k in (rows[0] if rows else {})}


try:
    import polars  # noqa: F401
except ImportError:
    # ultralytics needs polars only to read results.csv into its checkpoints; a machine
    # without it (the GPU image this project trains on) can still train
    from ultralytics.engine.trainer import BaseTrainer

    BaseTrainer.read_results_csv = _results_csv  # type: ignore[method-assign]

#: Settings shared by every training run: CPU, no AMP (its check downloads a model), no
#: plots (they need fonts and time), few dataloader workers on a 2-core machine.
COMMON = dict(device="cpu", amp=False, plots=False, workers=1, verbose=False, exist_ok=True,
              deterministic=True, seed=0)


def _last_checkpoint(run_dir: Path) -> Path | None:
    last = run_dir / "weights" / "last.pt"
    return last if last.exists() else None


def finished(run_dir: Path) -> bool:
    """A run whose last checkpoint has no optimizer state left (ultralytics strips it)."""
    last = _last_checkpoint(run_dir)
    if last is None:
        return False
    ckpt = torch.load(last, map_location="cpu", weights_only=False)
    return ckpt.get("optimizer") is None or ckpt.get("epoch", 0) == -1


def train(kind: str, data: str | Path, run_dir: str | Path, epochs: int, imgsz: int,
          batch: int, **overrides) -> Path:
    """Train (or resume) a ``detect`` or ``classify`` model; returns the best weights.

    From scratch (the ``.yaml`` architecture), or fine-tuned from ``start_from=<weights>``.

    ``run_dir`` is ``<project>/<name>``: a run found there with a ``last.pt`` is resumed
    from it (ultralytics ``resume=True``), a finished one is left as it is.
    """
    run_dir = Path(run_dir).resolve()
    last = _last_checkpoint(run_dir)
    if last is not None and finished(run_dir):
        return run_dir / "weights" / "best.pt"
    if last is not None:
        where = {k: overrides.get(k, COMMON[k]) for k in ("workers", "device")}
        YOLO(str(last)).train(resume=True, **where)
        return run_dir / "weights" / "best.pt"
    start_from = overrides.pop("start_from", None)
    arch = {"detect": "yolov8n.yaml", "classify": "yolov8n-cls.yaml"}[kind]
    model = YOLO(str(start_from), task=kind) if start_from else YOLO(arch, task=kind)
    model.train(data=str(data), epochs=epochs, imgsz=imgsz, batch=batch, project=str(run_dir.parent),
                name=run_dir.name, pretrained=bool(start_from), save_period=-1, **{**COMMON, **overrides})
    return run_dir / "weights" / "best.pt"


def class_names(weights: str | Path) -> list[str]:
    """The classes of a checkpoint's outputs, in their order."""
    checkpoint = torch.load(weights, map_location="cpu", weights_only=False)
    names = (checkpoint.get("model") or checkpoint["ema"]).names
    return [str(name) for _, name in sorted(names.items())] if isinstance(names, dict) else [str(n) for n in names]


def export_onnx(weights: str | Path, imgsz: int, target: str | Path, dynamic: bool = False) -> Path:
    """Export weights to ONNX (opset 12, no simplifier download) at ``target``.

    ``dynamic`` leaves the batch size, height and width free (the classifier names all crops
    in one call; the detector is fed photos scaled, not padded to a square).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    # ultralytics writes the export beside the weights: from a copy in a scratch folder, so
    # exporting models/detector.pt elsewhere never replaces the committed models/detector.onnx
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / Path(weights).name
        shutil.copyfile(weights, copy)
        exported = Path(YOLO(str(copy)).export(format="onnx", imgsz=imgsz, opset=12, simplify=False,
                                                dynamic=dynamic, device="cpu"))
        shutil.move(str(exported), target)
    return target


def average_weights(first: str | Path, second: str | Path, share: float, target: str | Path) -> Path:
    """A checkpoint whose weights are ``share`` of ``second``'s and the rest ``first``'s (two
    stages of one model: a fine-tuned model averaged with the one it started from keeps more
    of what that one knew, as in WiSE-FT). Integer buffers are ``second``'s."""
    base = torch.load(first, map_location="cpu", weights_only=False)
    tuned = torch.load(second, map_location="cpu", weights_only=False)
    # a checkpoint saved mid-run keeps its weights in "ema" alone ("model" is None)
    net = tuned["model"] or tuned["ema"]
    half = next(net.parameters()).dtype == torch.float16
    model = net.float()
    a, b = (base["model"] or base["ema"]).float().state_dict(), model.state_dict()
    model.load_state_dict({k: a[k] * (1 - share) + b[k] * share if b[k].is_floating_point() else b[k]
                           for k in b})
    tuned["model"] = model.half() if half else model
    tuned["ema"] = None
    target = Path(target)
    torch.save(tuned, target)
    return target
