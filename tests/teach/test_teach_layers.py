"""Teaching in the app loads without the training stack (the import rules themselves, read
from the source, are in tests/test_layers.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_web_side_of_teaching_loads_without_torch():
    """What the app imports for every photo and for the teach page pulls in no training stack."""
    code = ("import sys, vision.teach.models, vision.teach.library, vision.teach.find, web.teach; "
            "print(sorted(m for m in ('torch', 'ultralytics') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "[]"
