"""Training the models: the only code that touches torch and ultralytics (``yolo.py``).

They come with the ``train`` extra (``pip install -e '.[train]'``), not with the player's
install; a command that needs them calls :func:`require_training_stack` first.
"""

from __future__ import annotations

import importlib.util

#: what ``pip install -e '.[train]'`` adds and training cannot run without
TRAINING_MODULES = ("torch", "ultralytics")


class TrainingExtraMissingError(OSError):
    """torch or ultralytics is not installed (a player's install): the command cannot train.

    An ``OSError`` because what is wrong is the machine, not the input: the CLI reports it as
    one line and exits with status 2.
    """


def require_training_stack(modules: tuple[str, ...] = TRAINING_MODULES) -> None:
    """Raise :class:`TrainingExtraMissingError` naming what is missing, unless all ``modules``
    can be imported.

    >>> require_training_stack(("json",))
    >>> require_training_stack(("json", "no_such_module_here"))
    Traceback (most recent call last):
    ...
    vision.training.TrainingExtraMissingError: no_such_module_here is not installed: install the training extra: pip install -e '.[train]'
    """
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise TrainingExtraMissingError(
            f"{' and '.join(missing)} {verb} not installed: "
            "install the training extra: pip install -e '.[train]'")
