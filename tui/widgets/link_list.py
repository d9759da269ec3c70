"""A note's outgoing links and backlinks, followable with the keyboard."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.formatting import clip, clip_path, link_text
from vault_engine.model import ResolvedLink

SCROLLBAR = 3  # columns kept free for a vertical scrollbar (and a margin)


class LinkList(OptionList):
    """Outgoing links, then backlinks; Enter on one posts ``LinkList.Follow``.

    Unresolved links are listed (disabled) and say so: a miss, never a guess.
    """

    BINDINGS = [Binding("enter", "select", "Follow")]

    class Follow(Message):
        """Open the note (and section) ``ref`` names, at file line ``line`` when given."""

        def __init__(self, ref: str, line: int | None = None) -> None:
            super().__init__()
            self.ref = ref
            self.line = line

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._targets: dict[str, tuple[str, int | None]] = {}
        self._shown: tuple[tuple[ResolvedLink, ...], list[ResolvedLink]] = ((), [])
        self._width = 0

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:  # lines are cut to the width
            highlighted = self.highlighted
            self.show(*self._shown)
            self.highlighted = highlighted

    def show(self, outgoing: tuple[ResolvedLink, ...], backlinks: list[ResolvedLink]) -> None:
        """List ``outgoing`` links (those of the note) and ``backlinks`` (links to it)."""
        self._shown = (outgoing, backlinks)
        self._width = self.scrollable_content_region.width
        self.clear_options()
        self._targets = {}
        unresolved = sum(not link.resolved for link in outgoing)
        self.add_option(Option(Text(f"Links ({len(outgoing)}, {unresolved} unresolved)",
                                    style="bold"), disabled=True))
        self._add(outgoing, "→", backlink=False)
        self.add_option(None)  # a divider
        self.add_option(Option(Text(f"Backlinks ({len(backlinks)})", style="bold"), disabled=True))
        self._add(backlinks, "←", backlink=True)
        first = next((n for n in range(self.option_count)
                      if not self.get_option_at_index(n).disabled), None)
        self.highlighted = first

    def _add(self, links: list[ResolvedLink] | tuple[ResolvedLink, ...], arrow: str, backlink: bool) -> None:
        # Leave room for the scrollbar that appears once the list overflows: a line that
        # wraps after its height was measured would hide the line below it.
        width = (self.scrollable_content_region.width or 38) - SCROLLBAR
        if not links:
            self.add_option(Option(Text("  none", style="dim"), disabled=True))
        for link in links:
            option_id = f"link-{self.option_count}"
            target = link_target(link, backlink)
            if target is not None:
                self._targets[option_id] = target
            self.add_option(Option(link_prompt(link, arrow, backlink, width), id=option_id,
                                   disabled=target is None))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        target = self._targets.get(event.option.id or "")
        if target is not None:
            self.post_message(self.Follow(*target))


def link_target(link: ResolvedLink, backlink: bool) -> tuple[str, int | None] | None:
    """Where following ``link`` goes: a backlink opens the linking note at the link's line;
    an outgoing link its target note or section. Unresolved links and attachments go nowhere."""
    if backlink:
        return (link.source, link.line) if link.source else None
    if link.resolved and link.ref and not is_attachment(link):
        return (link.ref, None)
    return None


def is_attachment(link: ResolvedLink) -> bool:
    """A resolved link to a file that is not a note (an image, a PDF): nothing to open here."""
    return bool(link.resolved and link.target_path and not link.target_path.endswith(".md"))


def link_prompt(link: ResolvedLink, arrow: str, backlink: bool, width: int = 36) -> Text:
    """Two lines, each cut to ``width``: the link, then where it goes (or comes from)."""
    if backlink:
        source = clip_path(f"{link.source}:{link.line}", width - 2)
        first, second, styles = f"{arrow} {source}", f"  {link_text(link.raw)}", ("", "dim")
    elif not link.resolved:
        first, second = f"✗ {link_text(link.raw)}", "  unresolved: no note has this name"
        styles = ("red", "italic red")
    else:
        kind = "attachment " if is_attachment(link) else ""
        flag = " (ambiguous)" if link.ambiguous else ""
        target = clip_path(link.ref or "", width - 2 - len(kind) - len(flag))
        first, second, styles = f"{arrow} {link_text(link.raw)}", f"  {kind}{target}{flag}", ("", "dim")
    return Text.assemble((clip(first, width), styles[0]), "\n", (clip(second, width), styles[1]))
