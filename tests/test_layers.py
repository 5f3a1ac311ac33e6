"""The import rules of docs/ARCHITECTURE.md, checked by reading every import of the source tree.

Imports are read with ``ast`` from every module of ``scorer/``, ``vision/`` and ``web/``,
including those inside functions (a lazy import still ties the modules together):

- the recognition core (``vision/*.py``) imports none of ``vision.synth``, ``vision.training``,
  ``vision.live``, ``vision.teach``, ``vision.fieldtest``;
- nothing under ``vision/`` imports ``web``; ``scorer/`` imports neither ``vision`` nor ``web``;
- ``vision.training`` (and ``vision.synth``, which it builds on) imports neither ``vision.live``
  nor ``vision.teach``: teaching uses training, not the other way round;
- what trains (``vision.synth``, ``vision.training.train``, ``yolo``, ``classifier``) imports
  no ``vision.fieldtest``, and ``vision.fieldtest`` imports no ``vision.synth``;
- only ``vision.training`` imports torch, torchvision or ultralytics;
- no module imports a command-line module (``vision.cli``, ``vision.*.cli``, ``scorer.cli``):
  ``web.cli`` registers them by name;
- the turn reader (``vision.live.turns``) imports neither numpy nor ``vision.boxes`` nor
  ``vision.detections``: it reads the card history's events (``vision.live.history``), never a box;
- the turn facts (``vision.live.facts``: what the turn reader made of the game, handed to the
  card history) import no numpy, ``vision.boxes``, ``vision.detections``, history or turn reader;
- no import cycles between modules.

And, run for real: reading a photo imports neither torch nor ultralytics.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scorer", "vision", "web")
TRAINING_STACK = ("torch", "torchvision", "ultralytics")
#: the modules that make training data or train (``vision.training.evaluate`` reads the field
#: sets to report them, and trains nothing)
TRAINS = ("vision.synth", "vision.training.train", "vision.training.yolo", "vision.training.classifier")
CORE_EXCLUDES = ("vision.synth", "vision.training", "vision.live", "vision.teach", "vision.fieldtest")

#: Violations other engineers are removing on their branches (issue 11), as ``"module -> import"``
#: (or ``"cycle: a -> b -> a"``). Delete each line as its fix lands; nothing else may be added.
KNOWN_VIOLATIONS: set[str] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "__pycache__" not in path.parts:
                modules[_module_name(path)] = path
    return modules


MODULES = source_modules()


def imports_of(name: str, path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` for every import in the file, ``from a import b`` read as ``a.b``
    where that is a module of ours, else ``a``; relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if sub in MODULES else base))
    return found


def _within(module: str, prefixes: tuple[str, ...] | str) -> bool:
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _is_core(module: str) -> bool:
    """``vision`` itself and its top-level modules (not its sub-packages)."""
    return module in MODULES and MODULES[module].parent == ROOT / "vision"


def _is_command_module(module: str) -> bool:
    """A module of ``sushicam`` subcommands; ``web.cli`` is the entry point that registers
    them (by name), and its ``CommandError`` is theirs to raise."""
    return module in MODULES and module.rsplit(".", 1)[-1] == "cli" and module != "web.cli"


RULES = {
    "the recognition core imports no synth, training, live, teach or fieldtest":
        lambda src, dst: _is_core(src) and _within(dst, CORE_EXCLUDES),
    "nothing in vision imports web":
        lambda src, dst: _within(src, "vision") and _within(dst, "web"),
    "scorer imports neither vision nor web":
        lambda src, dst: _within(src, "scorer") and _within(dst, ("vision", "web")),
    "training and synth import neither live nor teach":
        lambda src, dst: _within(src, ("vision.training", "vision.synth"))
        and _within(dst, ("vision.live", "vision.teach")),
    # the independent renderer is a test nothing is tuned to: what trains never draws from it,
    # and it draws nothing from the training renderer
    "what trains imports no fieldtest, and fieldtest no synth":
        lambda src, dst: (_within(src, TRAINS) and _within(dst, "vision.fieldtest"))
        or (_within(src, "vision.fieldtest") and _within(dst, "vision.synth")),
    "only vision.training imports torch, torchvision or ultralytics":
        lambda src, dst: _within(dst, TRAINING_STACK) and not _within(src, "vision.training"),
    "no module imports a command-line module":
        lambda src, dst: _is_command_module(dst) and src != dst,
    # the live reader's stages: the card history decides everything from boxes, the turn
    # reader reads its events and asks it by card
    "the turn reader reads no box: vision.live.turns imports no numpy, boxes or detections":
        lambda src, dst: src == "vision.live.turns" and _within(dst, ("numpy", "vision.boxes", "vision.detections")),
    # what the turn reader made of the game reaches the card history as a value, not a call
    "the turn facts are a value of the game: vision.live.facts imports no boxes, history or turns":
        lambda src, dst: src == "vision.live.facts" and _within(
            dst, ("numpy", "vision.boxes", "vision.detections", "vision.live.history", "vision.live.turns")),
}


@cache
def violations() -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for src, path in MODULES.items():
        for line, dst in imports_of(src, path):
            for rule, broken in RULES.items():
                if broken(src, dst):
                    found[rule].append((f"{src} -> {dst}", f"{path.relative_to(ROOT)}:{line}"))
    return found


@cache
def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for src, path in MODULES.items():
        for _, dst in imports_of(src, path):
            if dst in MODULES and dst != src:
                graph[src].add(dst)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (``a -> ... -> a``) through each strongly connected group of modules
    (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)

    found = []
    for group in groups:  # a shortest way back to the group's first module, for the message
        start, members = group[0], set(group)
        paths = {start: [start]}
        frontier = [start]
        while frontier and start not in {n for f in frontier for n in graph[f]}:
            frontier_next = []
            for f in frontier:
                for n in sorted(graph[f] & members):
                    if n not in paths:
                        paths[n] = paths[f] + [n]
                        frontier_next.append(n)
            frontier = frontier_next
        last = next(f for f in frontier if start in graph[f])
        found.append(paths[last] + [start])
    return found


def test_the_rules_are_read_from_the_real_tree():
    # the checker must see the modules and imports it judges, or every rule passes vacuously
    assert {"vision.recognizer", "vision.stacks", "web.cli", "scorer.game"} <= set(MODULES)
    graph = import_graph()
    assert "vision.detections" in graph["vision.recognizer"]
    assert "vision.describe" in graph["vision.cli"]  # imported inside the handler


def test_a_cycle_is_found_and_named():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("rule", list(RULES))
def test_import_rule(rule):
    broken = [(what, where) for what, where in violations().get(rule, []) if what not in KNOWN_VIOLATIONS]
    assert not broken, f"{rule}:\n" + "\n".join(f"  {where}: {what}" for what, where in broken)


def test_no_import_cycles():
    found = [" -> ".join(c) for c in cycles(import_graph())]
    new = [c for c in found if f"cycle: {c}" not in KNOWN_VIOLATIONS]
    assert not new, "import cycles:\n" + "\n".join(f"  {c}" for c in new)


READ_A_PHOTO = """
import json, sys
from web.cli import main
status = main(["detect", sys.argv[1]])
heavy = sorted(m for m in ("torch", "torchvision", "ultralytics") if m in sys.modules)
print(json.dumps({"status": status, "heavy": heavy}))
"""


def test_reading_a_photo_imports_neither_torch_nor_ultralytics(tmp_path):
    import cv2
    import numpy as np

    # a table with two cards' worth of coloured rectangles: what matters is that the whole
    # reading path (load both models, detect, classify, read the tableau) runs
    table = np.full((480, 640, 3), (60, 100, 140), np.uint8)
    cv2.rectangle(table, (100, 100), (200, 256), (240, 240, 240), -1)
    cv2.rectangle(table, (300, 120), (400, 276), (30, 30, 200), -1)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), table)
    done = subprocess.run([sys.executable, "-c", READ_A_PHOTO, str(photo)], cwd=ROOT, text=True,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert json.loads(lines[0])["image"] == str(photo)  # the detect line itself
    assert json.loads(lines[-1]) == {"status": 0, "heavy": []}


def test_every_known_violation_is_still_there():
    # a ratchet: once a fix lands, its line must go, so the violation cannot come back unseen
    found = {what for broken in violations().values() for what, _ in broken}
    found |= {f"cycle: {' -> '.join(c)}" for c in cycles(import_graph())}
    fixed = sorted(KNOWN_VIOLATIONS - found)
    assert not fixed, "fixed: delete from KNOWN_VIOLATIONS:\n" + "\n".join(f"  {f}" for f in fixed)
