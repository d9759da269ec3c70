"""App-wide messages (widget messages are nested in their widget classes)."""

from __future__ import annotations

from textual.message import Message


class IndexChanged(Message):
    """The index was just brought up to date: the visible screen should reload its data."""


class ReinforcementsChanged(Message):
    """A reinforcement was logged or undone: decay bars should be read again."""
