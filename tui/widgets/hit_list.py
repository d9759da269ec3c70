"""Search hits, three lines each: ref and where it lives, the snippet, the score breakdown."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.formatting import clip, clip_path, ruled_out_within
from vault_engine.model import Hit, SearchResult

SNIPPET_LINES = 2  # a snippet is cut to about this many lines of the list's width
SCROLLBAR = 3  # columns kept free for the scrollbar, so a line never wraps after layout


class HitList(OptionList):
    """The hits of one search; Enter (or a click) posts ``HitList.Opened``."""

    BINDINGS = [Binding("enter", "select", "Open")]

    class Opened(Message):
        """The user chose a hit: open the note at its section."""

        def __init__(self, hit: Hit) -> None:
            super().__init__()
            self.hit = hit

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hits: tuple[Hit, ...] = ()
        self._result: SearchResult | None = None
        self._width = 0

    @property
    def result(self) -> SearchResult | None:
        """The search whose hits are listed (None: none)."""
        return self._result

    @property
    def laid_out_width(self) -> int:
        """The width the listed hits were cut to (a resize cuts them again)."""
        return self._width

    def on_resize(self) -> None:
        if self.content_region.width != self._width:  # snippets are cut to the width
            highlighted = self.highlighted
            self.show(self._result)
            self.highlighted = highlighted

    def show(self, result: SearchResult | None) -> None:
        """Replace the list with the hits of ``result`` (None clears it)."""
        self._result = result
        self.hits = result.hits if result is not None else ()
        self.clear_options()
        # The list's width with its scrollbar's place (hit_prompt leaves it): the width without
        # it depended on whether the last hits had brought a scrollbar yet, and the same hits
        # were cut two columns narrower or not, by timing (a snapshot differed on a busy machine)
        width = self._width = self.content_region.width or 80
        for n, hit in enumerate(self.hits):
            self.add_options([Option(hit_prompt(hit, width), id=str(n)), None])  # None: a divider
        if self.hits:
            self.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Opened(self.hits[event.option_index]))


def hit_prompt(hit: Hit, width: int = 80) -> Text:
    """One hit as the list shows it: the ref (cut from the left to one line); the snippet,
    cut to about two lines; where it lives and how it scored (one line when they fit)."""
    width -= SCROLLBAR
    text = Text()
    text.append(clip_path(hit.ref, width), style="bold")
    if hit.via:
        text.append(f"\n{clip(f'via {hit.via}', width)}", style="italic")
    limit = max(60, SNIPPET_LINES * width) - 1
    snippet = hit.snippet if len(hit.snippet) <= limit else hit.snippet[:limit - 1].rstrip() + "…"
    text.append("\n" + (snippet or "(empty section)"))
    if hit.ruled_out:
        text.append("\n" + ruled_out_within(hit.ruled_out, width), style="bold yellow")
    where = " · ".join([hit.kind, f"tap {hit.tap}", *([hit.project] if hit.project else [])])
    scores = score_breakdown(hit)
    joined = f"{where} │ {scores}"
    text.append("\n" + (joined if len(joined) <= width else f"{where}\n{scores}"), style="dim")
    return text


def score_breakdown(hit: Hit) -> str:
    """``score 0.532 = lexical 8.12 · semantic 0.41 · decay ×0.62``; an arm that did not
    find the hit shows ``-``."""
    s = hit.scores
    lexical = "-" if s.lexical is None else f"{s.lexical:.2f}"
    semantic = "-" if s.semantic is None else f"{s.semantic:.2f}"
    return f"score {hit.score:.3f} = lexical {lexical} · semantic {semantic} · decay ×{s.decay:.2f}"
