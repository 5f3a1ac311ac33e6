"""Where the project's folders are: defined once, imported everywhere else.

``REPO_ROOT`` is the checkout (the folder holding ``vision/``); the bundled models, the
generated datasets, the app's instance folder and the shared card faces
(``../shared/cards`` beside the checkout, never copied into it) are named from it.

>>> (MODELS_DIR.parent == REPO_ROOT, MODELS_DIR.name, DATASETS_BUILD_DIR.relative_to(REPO_ROOT).as_posix())
(True, 'models', 'datasets/build')
>>> SHARED_CARDS_DIR.relative_to(REPO_ROOT.parent).as_posix()
'shared/cards'
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
#: the committed models (detector.onnx, classifier.onnx, meta.json) the app reads photos with
MODELS_DIR = REPO_ROOT / "models"
#: generated photos and crops (never committed)
DATASETS_BUILD_DIR = REPO_ROOT / "datasets" / "build"
#: the app's data folder (SQLite store, taught faces, model versions) when none is given
INSTANCE_DIR = REPO_ROOT / "instance"
#: training runs (ultralytics' checkpoints)
RUNS_DIR = REPO_ROOT / "runs"
#: the card faces, beside the checkout (``$SUSHICAM_CARDS`` overrides: see vision.faces)
SHARED_CARDS_DIR = REPO_ROOT.parent / "shared" / "cards"
