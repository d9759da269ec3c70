"""What ``find`` answered, one option per place: hits, or the suggestions of a junction."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.formatting import clip, clip_path

SCROLLBAR = 3  # columns kept free for the scrollbar, so a line never wraps after layout


class FindList(OptionList):
    """The hits of one ``find`` (or, for a junction, what it suggests); Enter posts ``Opened``."""

    BINDINGS = [Binding("enter", "select", "Open")]

    class Opened(Message):
        """Open ``ref`` (a symbol, a file or a memory note) in the note viewer."""

        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.refs: list[str] = []
        self._result: Any | None = None
        self._width = 0

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:  # lines are cut to the width
            highlighted = self.highlighted
            self.show(self._result)
            self.highlighted = highlighted

    def show(self, result: Any | None) -> None:
        """Replace the list with what ``result`` (a FindResult; None clears it) points at."""
        self._result = result
        self.clear_options()
        self.refs = []
        width = self._width = max(10, (self.scrollable_content_region.width or 80) - SCROLLBAR)
        if result is None:
            return
        for hit in result.hits:
            self._add(hit.ref, hit_prompt(hit, width))
        if result.status == "junction":
            for suggestion in (result.suggestion, *result.alternatives):
                if suggestion:
                    self._add(suggestion, suggestion_prompt(suggestion, width))
        if self.refs:
            self.highlighted = 0

    def _add(self, ref: str, prompt: Text) -> None:
        self.add_options([Option(prompt, id=str(len(self.refs))), None])  # None: a divider
        self.refs.append(ref)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        number = int(event.option.id or -1)
        if 0 <= number < len(self.refs):
            self.post_message(self.Opened(self.refs[number]))


def hit_prompt(hit: Any, width: int) -> Text:
    """A hit: its ref; its kind and lines (and its score when it was a guess); the notes that
    say why it is so, or a memory note's title."""
    where = f"{hit.kind} · lines {hit.line_start}-{hit.line_end}"
    if hit.kind == "memory" or hit.score < 1:
        where += f" · score {hit.score:.2f}"
    text = Text.assemble((clip_path(hit.ref, width), "bold"), "\n", (clip(where, width), "dim"))
    why = dict.fromkeys(w.ref for w in hit.why)  # a note naming it twice, once
    notes = ([f"why: {', '.join(why)}"] if why else []) + ([hit.title] if hit.title else [])
    for note in notes:
        text.append("\n" + clip(note, width), style="italic")
    return text


def suggestion_prompt(ref: str, width: int) -> Text:
    """A junction's suggestion: to confirm before acting on it."""
    return Text.assemble(("? ", "bold yellow"), (clip_path(ref, width - 2), "bold"), "\n",
                         (clip("  a suggestion, not a hit: open it to confirm", width), "dim"))
