"""Make the bundled check sample round learning is judged on: ``models/exemplar-check.npz``.

Labelled embeddings and class probabilities (the classifier's, averaged over the photo views)
of the visible cards of photos drawn by the independent renderer (``vision.fieldtest``:
prints and layouts our training faces do not show), at their true boxes. No pixels are kept,
only what the classifier makes of them, so no card art is bundled. It is tied to the
classifier that made it (its fingerprint): run again when the classifier changes.

    python -m vision.training.check_sample [models]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

#: the renderer's seeds for the sample (apart from every field set's)
SEEDS = range(7100, 7124)


def make_check_sample(model_dir: str | Path = "models", seeds=SEEDS) -> Path:
    from vision.exemplars import fingerprint
    from vision.fieldtest.render import render_photo
    from vision.recognizer import Recognizer

    model_dir = Path(model_dir)
    recognizer = Recognizer.load(model_dir)
    labels, probabilities, embeddings = [], [], []
    for seed in seeds:
        image, truth = render_photo(seed, "tableau", (1280, 960))
        cards = [c for c in truth["cards"] if not c["hidden"] and c["label"] in recognizer.classes]
        if not cards:
            continue
        boxes = np.array([c["box"] for c in cards], np.float32)
        p, e = recognizer._looked_at(recognizer.classifier, image, boxes, recognizer.crop_size, embed=True)
        labels += [c["label"] for c in cards]
        probabilities.append(p)
        embeddings.append(e)
    import json

    meta = json.loads((model_dir / "meta.json").read_text())
    target = model_dir / "exemplar-check.npz"
    np.savez_compressed(target, labels=np.array(labels), probabilities=np.concatenate(probabilities),
                        embeddings=np.concatenate(embeddings).astype(np.float16),
                        fingerprint=np.array(fingerprint(model_dir / meta["classifier"]["file"])))
    return target


if __name__ == "__main__":  # pragma: no cover - a maintenance step
    print(make_check_sample(sys.argv[1] if len(sys.argv) > 1 else "models"))
