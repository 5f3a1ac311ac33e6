"""Synthetic table photos with exact labels, composed from the card faces."""

from vision.synth.compose import SceneConditions, compose_table, random_tableau

__all__ = ["SceneConditions", "compose_table", "random_tableau"]
