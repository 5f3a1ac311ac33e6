"""sushicam web package: the Flask app players use at the table, and ``sushicam serve``.

``create_app`` is imported lazily, so ``web.cli`` (the ``sushicam`` entry point) does not pay for
Flask when it runs ``sushicam score``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from web.app import create_app

        return create_app
    raise AttributeError(f"module 'web' has no attribute {name!r}")
