"""A one-line input for what a person types or pastes: a query, a symbol, a proposal."""

from __future__ import annotations

import re

from textual import events
from textual.widgets import Input

_LINE_BREAKS = re.compile(r"[ \t]*[\r\n]+[ \t]*")


class QueryInput(Input):
    """Textual's input keeps a pasted text's first line alone, without a word: a question
    copied from an issue over three lines was searched as its first (qa145). Every line is
    kept here, each line break a space, as the CLI reads a query; the spaces pasted stay
    (" in a shared Redis" pasted after "keep sessions" had lost its first, qa148)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A one-line box has nothing to scroll: the ↑ and ↓ Textual's inputs inherit for
        scrolling hid the screen's own (↓ results, ↑ history) from the footer, which showed only
        the function keys while the box had the focus, though the keys worked (qa171 L2)."""
        if action in ("scroll_up", "scroll_down"):
            return False
        return super().check_action(action, parameters)

    def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()  # Input's own handler would then paste the first line again
        super()._on_paste(events.Paste(_LINE_BREAKS.sub(" ", event.text)))
        event.stop()
