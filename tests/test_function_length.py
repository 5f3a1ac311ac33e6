"""No function or method of the source tree is longer than 80 lines (a house
rule): a longer one does several things, each of which wants a name.

Every ``.py`` under ``scorer/``, ``vision/``, ``web/`` and ``tools/`` is read with ``ast``; a
function's length runs from its ``def`` line to its last line, docstring, comments and blank
lines included (decorators not). A nested function counts within the one holding it, and on
its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("scorer", "vision", "web", "tools")
LONGEST = 80


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """``(qualified name, first line, length in lines)`` of every function in ``source``."""
    found: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                found.append((name, child.lineno, (child.end_lineno or child.lineno) - child.lineno + 1))
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def source_files() -> list[Path]:
    return [path for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
            if "__pycache__" not in path.parts]


def test_a_function_is_measured_from_its_def_to_its_last_line():
    source = "class A:\n    @staticmethod\n    def f():\n        '''doc'''\n\n        def g():\n            pass\n        return g\n"
    assert function_lengths(source) == [("A.f", 3, 6), ("A.f.g", 6, 2)]


def test_the_checker_reads_the_real_tree():
    files = {path.relative_to(ROOT).as_posix() for path in source_files()}
    assert {"scorer/game.py", "vision/live/tracker.py", "web/cli.py"} <= files
    assert any(name.startswith("tools/") for name in files)


def test_no_function_is_longer_than_80_lines():
    long = [f"{path.relative_to(ROOT)}:{line}: {name} ({length} lines)"
            for path in source_files()
            for name, line, length in function_lengths(path.read_text(encoding="utf-8"))
            if length > LONGEST]
    assert not long, f"functions longer than {LONGEST} lines (split them into named steps):\n" + "\n".join(long)
