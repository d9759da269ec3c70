"""A note rendered as Markdown, its wiki links clickable, scrolled to a section."""

from __future__ import annotations

from textual.message import Message
from textual.widget import Widget
from textual.widgets import Markdown

from tui.formatting import FENCE, LINK_SCHEME, linkify, obsidian_markdown, properties_markdown
from vault_engine.model import NoteView, ResolvedLink

# Textual's Markdown lays out a widget per block (a table's per cell): a 76 KB note of 450
# blocks took 9.7 s to open, its blocks re-laid for seconds more, the screen frozen (qa55).
# A longer note is shown from the opened section for about this many lines, the rest a key away.
WINDOW_LINES = 150


def reading_window(lines: list[str], opened: int | None, limit: int = WINDOW_LINES) -> tuple[int, int, str]:
    """The rows of a note's body to draw, and the fence to close after them: all of a short
    note; of a long one, from the opened row (the top when none) to the first row at least
    ``limit`` rows further that starts a block, a table's row or a code line (a section of
    one 3,000-row table still took 20 s: qa58). Cut inside a code fence, the drawn part
    needs the fence's closing line, which is returned ("" otherwise)."""
    if len(lines) <= limit:
        return 0, len(lines), ""
    start = min(max(opened or 0, 0), len(lines) - 1)
    fence = ""  # the marker of the fence the row is in
    for row, line in enumerate(lines):
        if row >= start + limit and (fence or not line.strip() or line.startswith(("#", "|"))):
            return start, row, fence
        marker = FENCE.match(line)
        if marker and (not fence or marker[1].startswith(fence)):
            fence = "" if fence else marker[1]
    return start, len(lines), ""


class NoteBody(Markdown):
    """Shows one whole note; a click on a link posts ``NoteBody.LinkChosen``."""

    class LinkChosen(Message):
        """A link in the text was clicked."""

        def __init__(self, link: ResolvedLink) -> None:
            super().__init__()
            self.link = link

    def __init__(self, **kwargs) -> None:
        super().__init__(open_links=False, **kwargs)
        self._links: tuple[ResolvedLink, ...] = ()
        self._first_line = 1
        self.cut = (0, 0)  # rows of the note not drawn, above and below (reading_window)
        # (file line, scroll offset it gave) until the reader scrolls: see on_resize
        self._anchor: tuple[int, float] | None = None
        # (the first block of the section opened, the scroll offset then): Tab starts there
        self.opened_at: tuple[Widget, float] | None = None

    async def show(self, view: NoteView, line: int | None = None, scroll_y: float | None = None,
                   whole: bool = False) -> None:
        """Render ``view`` (a note; a long one from the section of ``line``, unless ``whole``:
        :func:`reading_window`) and scroll so file line ``line`` is at the top, or back to
        ``scroll_y`` (the same note read again: the reader stays where they were)."""
        lines = view.text.split("\n")[view.body_line - view.line_start:]
        opened = line - view.body_line if line is not None else None
        start, end, fence = (0, len(lines), "") if whole else reading_window(lines, opened)
        self.cut = (start, len(lines) - end)
        body = "\n".join(lines[start:end] + ([fence] if fence else []))
        if not "".join(lines).strip():  # all properties (42 of kepano's 103 notes): a blank page (qa93)
            body = properties_markdown(view.meta) or "*This note is empty.*"
        above = [f"*⋯ {start:,} lines above: `m` shows the whole note*", ""] if start else []
        below = ["", f"*⋯ {len(lines) - end:,} more lines: `m` shows the whole note*"] if end < len(lines) else []
        self._links = view.links
        self._first_line = view.body_line + start - len(above)  # the file line of the first row drawn
        self._anchor = None
        self.opened_at = None
        text = obsidian_markdown(linkify(body, view.links, view.body_line + start),
                                 opened - start if opened is not None else None)
        await self.update("\n".join([*above, text, *below]))
        # once the new blocks have a layout
        if scroll_y is None:
            self.call_after_refresh(self.scroll_to_line, line)
        elif self.parent is not None:
            self.call_after_refresh(self.parent.scroll_to, y=scroll_y, animate=False, immediate=True)

    def scroll_to_line(self, line: int | None) -> None:
        """Scroll the first block at or after file line ``line`` to the top (None: the top)."""
        container = self.parent
        if line is None or container is None:
            if container is not None:
                container.scroll_home(animate=False)
            return
        target = line - self._first_line  # 0-based line of the rendered body
        for block in self.children:
            start, end = getattr(block, "source_range", (0, 0))
            if end > target:
                container.scroll_to_widget(block, top=True, animate=False, immediate=True)
                self._anchor = (line, container.scroll_y)
                self.opened_at = (block, container.scroll_y)
                return

    def on_resize(self) -> None:
        """Keep the section at the top while the text is still reflowing: the link panel
        beside the note can take its width after the first scroll, moving every block."""
        container = self.parent
        if self._anchor is not None and container is not None:
            line, offset = self._anchor
            if container.scroll_y == offset:  # the reader has not scrolled since
                self.call_after_refresh(self.scroll_to_line, line)
            else:
                self._anchor = None

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        link = self._link_for(event.href)
        if link is not None:
            self.post_message(self.LinkChosen(link))

    def _link_for(self, href: str) -> ResolvedLink | None:
        if href.startswith(LINK_SCHEME):
            number = int(href[len(LINK_SCHEME):])
            return self._links[number] if number < len(self._links) else None
        # A Markdown-style link: find the index's entry for it.
        return next((link for link in self._links if f"]({href})" in link.raw
                     or link.raw.endswith(f"({href})")), None)
