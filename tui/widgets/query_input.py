"""A one-line input for what a person types or pastes: a query, a symbol, a proposal."""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class QueryInput(Input):
    """Textual's input keeps a pasted text's first line alone, without a word: a question
    copied from an issue over three lines was searched as its first (qa145). Every line is
    kept here, joined by spaces, as the CLI reads a query."""

    def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()  # Input's own handler would then paste the first line again
        super()._on_paste(events.Paste(" ".join(event.text.split())))
        event.stop()
