"""A scrolling pane over a Markdown document whose links the keyboard can reach.

Tab and Shift+Tab walk the links of the text in reading order, the current one drawn in
reverse; past the last (or before the first) they leave the pane, as in a browser. Enter
posts ``Markdown.LinkClicked`` for the current link, the message a mouse click posts, so
whoever handles clicks handles the keyboard too. The cells of a table are widgets of their
own (not blocks), so their links are looked for there as well.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.style import Style
from textual.widgets import Markdown, Static

from tui.keys import WIDE_FOOTER

LIT = "reverse bold"  # the current link
# What holds the text of a rendered document: its blocks, and the cells of its tables (not
# blocks: Textual's table renders each cell as a widget of its own, a private class).
TEXT_HOLDERS = "MarkdownBlock, MarkdownTableCellContents"


@dataclass(frozen=True, slots=True)
class LinkSpot:
    """Where a link of the rendered text is: its block (or table cell), its span there, its href."""

    block: Static
    start: int
    end: int
    href: str


class MarkdownPane(VerticalScroll):
    """Holds one ``Markdown``; ``link`` is the number of the current link (None: none)."""

    BINDINGS = [
        Binding("tab", "next_link", "Next link"),
        Binding("tab", "next_link_quietly", "Next link", show=False),  # the narrow footer's
        Binding("shift+tab", "previous_link", "Previous link", show=False),
        Binding("enter", "follow_link", "Follow"),
    ]

    def __init__(self, *children, **kwargs) -> None:
        super().__init__(*children, **kwargs)
        self.link: int | None = None
        self._spots: list[LinkSpot] = []
        self._read: object = None  # the blocks the spots were read from
        self._lit: tuple[Static, Content] | None = None  # a block drawn with LIT, and its own content

    @property
    def document(self) -> Markdown:
        return self.query_one(Markdown)

    def spots(self) -> list[LinkSpot]:
        """The links of the text as rendered now, in reading order (a table's row by row)."""
        blocks = list(self.document.query(TEXT_HOLDERS))
        if self._read != blocks:  # rendered anew: the cursor starts over
            self._unlight()
            self._read, self.link = blocks, None
            self._spots = [spot for block in blocks for spot in block_links(block)]
        return self._spots

    def forget_links(self) -> None:
        """The document is about to change: no current link."""
        self._unlight()
        self._read, self.link, self._spots = None, None, []

    def select_link(self, number: int | None) -> None:
        """Make link ``number`` the current one (None: none) and scroll it into view."""
        spots = self.spots()
        self._unlight()
        self.link = number if number is not None and 0 <= number < len(spots) else None
        if self.link is not None:
            spot = spots[self.link]
            content = spot.block.content if isinstance(spot.block.content, Content) else Content("")
            self._lit = (spot.block, content)
            spot.block.update(content.stylize(LIT, spot.start, spot.end))
            self.scroll_to_widget(spot.block, animate=False, immediate=True)
        self.screen.refresh_bindings()

    def _unlight(self) -> None:
        if self._lit is not None:
            block, content = self._lit
            self._lit = None
            if block.is_attached:
                block.update(content)

    def _offset(self, block: Static) -> int:
        """How far down the pane's whole text ``block`` starts (a table cell sits in rows
        inside the table: each container's offset in its own adds up)."""
        y, widget = 0, block
        while widget is not None and widget is not self:
            y += widget.virtual_region.y
            widget = widget.parent  # type: ignore[assignment]
        return y

    def _first_in_view(self) -> int | None:
        """The first link at or below the top of the view, or of the section the note was
        opened at while the reader has not scrolled since (a note short enough to fit shows
        its Summary's link above the opened section, qa71); None when none is."""
        top = self.scroll_y
        opened = getattr(self.document, "opened_at", None)  # (its first block, the scroll then)
        if opened is not None and opened[0].is_attached and opened[1] == self.scroll_y:
            top = max(top, self._offset(opened[0]))
        return next((n for n, spot in enumerate(self.spots()) if self._offset(spot.block) >= top), None)

    def action_next_link(self) -> None:
        spots = self.spots()
        # From the view, not from the note's first link: right after a hit opened its section,
        # Tab had scrolled back up to a link of the note's Summary (qa68)
        number = self._first_in_view() if self.link is None else self.link + 1
        number = len(spots) if number is None else number
        if number >= len(spots):
            self.select_link(None)
            self.screen.focus_next()
        else:
            self.select_link(number)

    def action_next_link_quietly(self) -> None:
        self.action_next_link()

    def action_previous_link(self) -> None:
        spots = self.spots()
        number = len(spots) - 1 if self.link is None else self.link - 1
        if number < 0:
            self.select_link(None)
            self.screen.focus_previous()
        else:
            self.select_link(number)

    def action_follow_link(self) -> None:
        spots = self.spots()
        if self.link is not None and self.link < len(spots):
            self.document.post_message(Markdown.LinkClicked(self.document, spots[self.link].href))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter is greyed out until Tab chose a link. A narrow footer has no room for Tab:
        there the hidden twin of its binding does the work."""
        if action == "follow_link":
            return self.link is not None or None
        if action in ("next_link", "next_link_quietly"):
            wide = getattr(self.screen, "wide_footer", self.screen.size.width >= WIDE_FOOTER)
            return wide == (action == "next_link")
        return True


def block_links(block: Static) -> list[LinkSpot]:
    """The links of one block or cell: the spans Textual's Markdown gives a ``link(href)`` click."""
    content = block.content
    if not isinstance(content, Content):
        return []
    spots = []
    for span in content.spans:
        style = span.style
        click = style.meta.get("@click", "") if isinstance(style, Style) else ""
        if click.startswith("link(") and click.endswith(")"):
            try:
                href = ast.literal_eval(click[len("link("):-1])
            except (ValueError, SyntaxError):
                continue
            spots.append(LinkSpot(block, span.start, span.end, str(href)))
    return spots
