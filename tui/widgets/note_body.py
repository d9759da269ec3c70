"""A note rendered as Markdown, its wiki links clickable, scrolled to a section."""

from __future__ import annotations

from textual.message import Message
from textual.widgets import Markdown

from tui.formatting import LINK_SCHEME, linkify, obsidian_markdown
from vault_engine.model import NoteView, ResolvedLink


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
        # (file line, scroll offset it gave) until the reader scrolls: see on_resize
        self._anchor: tuple[int, float] | None = None

    async def show(self, view: NoteView, line: int | None = None, scroll_y: float | None = None) -> None:
        """Render ``view`` (a whole note) and scroll so file line ``line`` is at the top, or
        back to ``scroll_y`` (the same note read again: the reader stays where they were)."""
        body = "\n".join(view.text.split("\n")[view.body_line - view.line_start:])
        self._links = view.links
        self._first_line = view.body_line
        self._anchor = None
        opened = line - self._first_line if line is not None else None
        await self.update(obsidian_markdown(linkify(body, view.links, self._first_line), opened))
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
