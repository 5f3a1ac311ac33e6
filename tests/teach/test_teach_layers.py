"""The import rules of teaching (issue 11): read from the source, so a new import that breaks
one fails here, whatever the tests happen to import."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def within(names: set[str], package: str) -> set[str]:
    return {n for n in names if n == package or n.startswith(package + ".")}


def test_teaching_touches_neither_torch_nor_ultralytics_nor_the_web():
    for path in sorted((ROOT / "vision" / "teach").glob("*.py")):
        found = imports(path)
        assert not within(found, "torch") | within(found, "ultralytics"), path.name
        assert not within(found, "vision.training.yolo"), path.name
        assert not within(found, "web"), path.name


def test_no_teach_module_imports_the_command_line():
    """The CLI runs eval-teach and the rest; none of them reaches back into the CLI (no cycle)."""
    for path in sorted((ROOT / "vision" / "teach").glob("*.py")):
        if path.name != "cli.py":
            assert not within(imports(path), "vision.teach.cli"), path.name


def test_the_web_page_imports_no_command_line_module():
    found = imports(ROOT / "web" / "teach.py")
    assert not {n for n in found if n.endswith(".cli") or ".cli." in n}


def test_training_does_not_import_the_players_retraining():
    for path in sorted((ROOT / "vision" / "training").glob("*.py")):
        assert not within(imports(path), "vision.teach"), path.name


def test_the_web_side_of_teaching_loads_without_torch():
    """What the app imports for every photo and for the teach page pulls in no training stack."""
    code = ("import sys, vision.teach.models, vision.teach.library, vision.teach.find, web.teach; "
            "print(sorted(m for m in ('torch', 'ultralytics') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "[]"
