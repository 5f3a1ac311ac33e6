"""Synthetic table photos with exact labels, composed from the card faces."""

from vision.synth.compose import compose_table, random_tableau

__all__ = ["compose_table", "random_tableau"]
