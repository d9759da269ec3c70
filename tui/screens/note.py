"""Note viewer: the note as Markdown at its section, links and backlinks, browser history."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.widgets import Footer, Static

from tui.calls import call_level
from tui.handoff import NoEditor, editor_command, obsidian_url, url_opener
from tui.keys import HELP_KEY, NEXT_PANE
from tui.messages import IndexChanged
from tui.pages import Gone, NotePage, read_note_page, reread_note_page
from tui.screens.keyed import KeyedScreen
from tui.widgets.call_tree import CallTree
from tui.widgets.link_list import LinkList
from tui.widgets.markdown_pane import MarkdownPane
from tui.widgets.note_body import NoteBody
from tui.widgets.vault_header import VaultHeader
from vault_engine.vault import Vault

NARROW_COLUMNS = 100  # below this the link list goes under the note instead of beside it
NOTE_ONLY = frozenset({"obsidian", "obsidian_quietly", "reinforce"})  # code is no note of Obsidian's, nor decays
# nothing to act on once it is gone
ON_A_PAGE = frozenset({"reinforce", "edit", "obsidian", "obsidian_quietly", "copy_ref"})


@dataclass(frozen=True, slots=True)
class Visit:
    """A place in the viewer's history, and what was highlighted there when the reader
    left it: ``b`` comes back to the same link (in the list or in the text) and pane."""

    ref: str
    line: int | None = None
    listed: int | None = None  # the highlighted row of the link list
    in_text: int | None = None  # the current link of the text (MarkdownPane.link)
    focus: str | None = None  # id of the pane that had the focus


class NoteScreen(KeyedScreen):
    """One note at a time, with back/forward history like a browser."""

    SCREEN_NAME = "Note"
    CSS_PATH = "note.tcss"
    WIDE_FOOTER = 110  # its own keys, Tab and `o` take 104 columns
    AUTO_FOCUS = "#note-scroll"  # the text: ↓ and PgDn read on (they moved the links list, qa77)
    HISTORY = Binding.Group("Back/Fwd")
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("b", "back", "Back", group=HISTORY),
        Binding("f", "forward", "Forward", group=HISTORY),
        Binding("r", "reinforce", "Reinforce"),
        Binding("u", "app.undo_reinforce", "Undo reinforce", show=False),
        Binding("e", "edit", "Edit", tooltip="Open the note in $EDITOR at the section's line"),
        # shown in a wide footer only; the hidden twin does the work in a narrow one, where a
        # long note's `m` and `?` ran past the edge (qa93)
        Binding("o", "obsidian", "Obsidian", tooltip="Open the note in Obsidian"),
        Binding("o", "obsidian_quietly", "Obsidian", show=False),
        Binding("c", "copy_ref", "Copy", tooltip="Copy the ref (OSC 52) for an agent"),
        Binding("m", "whole_note", "Whole note", tooltip="A long note is drawn from its section: draw all of it"),
        *NEXT_PANE, HELP_KEY,
    ]

    def __init__(self, ref: str, line: int | None = None) -> None:
        super().__init__()
        self.history: list[Visit] = [Visit(ref, line)]
        self.position = 0
        self.page: NotePage | None = None
        self.edited = False  # the note was changed in the editor: reopen it at its section once indexed

    def compose(self) -> ComposeResult:
        yield VaultHeader("Note")
        yield Static("", id="note-title", markup=False)
        yield Static("", id="note-notices", markup=False)  # what `show` says of the file: changed, gone
        with Horizontal(id="note-main"):
            with MarkdownPane(id="note-scroll"):
                yield NoteBody(id="note-body")
            with Vertical(id="note-side"):
                yield LinkList(id="links")
                yield CallTree(id="calls")  # shown for a symbol's code only
        yield Footer(compact=True, show_command_palette=False)  # ? lists Ctrl+P: no room

    def on_mount(self) -> None:
        self.load(self.history[0])

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``o`` and ``r`` are hidden (and do nothing) on a code page: they mean a note. ``e``,
        ``o``, ``r`` and ``c`` are greyed out once the note is gone from the vault (``r`` did
        nothing, and said nothing, qa38)."""
        if action in NOTE_ONLY and self.page is not None and self.page.code is not None:
            return False
        if action in ON_A_PAGE and self.page is None:  # greyed out where the footer's width shows it
            # (hidden where it does not: `o Obsidian` had run past the edge at 80 columns, qa145)
            return None if super().check_action(action, parameters) is not False else False
        if action == "whole_note" and self.query_one(NoteBody).cut == (0, 0):
            return False
        return super().check_action(action, parameters)

    @work(exclusive=True, group="note", exit_on_error=False)
    async def action_whole_note(self) -> None:
        """Draw all of a long note, at the section it was opened at (slow for a long one:
        seconds, which the reader asked for)."""
        if self.page is not None:
            self.notify("drawing the whole note: a long one takes a few seconds")
            await self.query_one(NoteBody).show(self.page.note, None if self.page.code else self.page.line,
                                                whole=True)
            self.refresh_bindings()

    # -- history --------------------------------------------------------------------------

    def go(self, ref: str, line: int | None = None) -> None:
        """Open ``ref``, dropping any forward history (as a browser does)."""
        self._keep_place()
        del self.history[self.position + 1:]
        self.history.append(Visit(ref, line))
        self.position += 1
        self.load(self.history[self.position], new=True)

    def action_back(self) -> None:
        if self.position == 0:
            self.notify("no earlier note in this viewer's history", timeout=2)
            return
        self._keep_place()
        self.position -= 1
        self.load(self.history[self.position], restore=True)

    def action_forward(self) -> None:
        if self.position + 1 >= len(self.history):
            self.notify("no later note in this viewer's history", timeout=2)
            return
        self._keep_place()
        self.position += 1
        self.load(self.history[self.position], restore=True)

    def _keep_place(self) -> None:
        """Note in the history what is highlighted here, before leaving for another note."""
        if self.page is None:
            return
        focused = self.focused.id if self.focused is not None else None
        self.history[self.position] = replace(
            self.history[self.position], listed=self.query_one(LinkList).highlighted,
            in_text=self.query_one(MarkdownPane).link, focus=focused)

    def _restore_place(self, visit: Visit) -> None:
        """Highlight again what was highlighted when the reader left ``visit``."""
        links = self.query_one(LinkList)
        if visit.listed is not None and visit.listed < links.option_count:
            links.highlighted = visit.listed
        if visit.focus:
            for pane in self.query(f"#{visit.focus}"):
                pane.focus()
        if visit.in_text is not None:
            self.query_one(MarkdownPane).select_link(visit.in_text)

    def action_close(self) -> None:
        self.dismiss()

    @on(LinkList.Follow)
    def follow_listed_link(self, event: LinkList.Follow) -> None:
        """Enter on a link or backlink in the list."""
        self.go(event.ref, event.line)

    @on(NoteBody.LinkChosen)
    def follow_text_link(self, event: NoteBody.LinkChosen) -> None:
        """A click on a link in the text; an unresolved one only says so."""
        if event.link.resolved and event.link.ref:
            self.go(event.link.ref)
        else:
            self.notify(f"{event.link.raw} is unresolved: no note in the vault has that name",
                        severity="warning")

    # -- callers and callees -------------------------------------------------------------

    @on(CallTree.Expand)
    def expand_calls(self, event: CallTree.Expand) -> None:
        self._load_calls(event.node)

    @work(group="calls", exit_on_error=False)  # not exclusive: each node loads once, in turn
    async def _load_calls(self, node) -> None:
        """The direct callers (or callees) of ``node``'s symbol, under it in the tree."""
        data = node.data
        answer = await self.app.browse(Vault.calls, data.ref, direction=data.direction)
        self.query_one(CallTree).grow(node, None if answer is None else call_level(answer, data.above))

    @on(CallTree.Open)
    def open_call(self, event: CallTree.Open) -> None:
        """Enter on a caller or callee: its code page, in this viewer's history."""
        self.go(event.ref)

    # -- leaving with what you found ------------------------------------------------------

    def action_edit(self) -> None:
        """Open the note in $VISUAL/$EDITOR at the section's line; reload it afterwards."""
        if self.page is None:
            return
        try:
            file = getattr(self.page.code, "file", "")  # a code tap's file may lie outside the vault
            path = Path(file) if file else self.app.root / self.page.note.path
            command = editor_command(path, self.page.line or 1)
        except NoEditor as exc:
            self.notify(str(exc), title="Editor", severity="warning")
            return
        before = _stamp(path)
        self.app.run_outside(command)
        if _stamp(path) != before:  # its sections and links as the index has them are the old
            # text's: the ▶ and the scroll had landed on another section (qa153); the run's
            # end opens the page again at its section (on_index_changed)
            self.edited = True
            self.app.action_index()
        else:
            self.load(self.history[self.position])

    def action_obsidian_quietly(self) -> None:
        self.action_obsidian()

    def action_obsidian(self) -> None:
        """Open the note in Obsidian through its URL scheme."""
        if self.page is not None:
            url = obsidian_url(self.app.root, self.page.note.path)
            if self.app.hand_over(url_opener(url, sys.platform), url, title="Obsidian"):
                self.notify(url, title="Opening in Obsidian", timeout=4)

    def action_copy_ref(self) -> None:
        """Copy the ref of what is shown (OSC 52: works over ssh, in tmux with set-clipboard on)."""
        if self.page is not None:
            self.app.copy_to_clipboard(self.page.ref)
            self.notify(f"{self.page.ref}\nan agent reads it with: vault-engine show REF",
                        title="Ref copied", timeout=4)

    # -- loading and reinforcing ----------------------------------------------------------

    @work(exclusive=True, group="note", exit_on_error=False)
    async def load(self, visit: Visit, restore: bool = False, new: bool = False) -> None:
        """Fetch the page ``visit`` names and show it (a failure keeps the current page, and
        a ``new`` visit that failed leaves the history: an attachment followed was a step
        `b` stayed on, qa55); ``restore`` highlights again what was highlighted there."""
        page = await self.app.browse(read_note_page, visit.ref, visit.line)
        if page is None:
            if self.page is None:
                self.query_one("#note-title", Static).update(f"cannot open {visit.ref}: Esc goes back")
            elif new and self.history[self.position] is visit:
                del self.history[self.position]
                self.position -= 1
            return
        await self._show(page, visit, restore)

    def on_index_changed(self, _: IndexChanged) -> None:
        """An index run finished (F5, a terminal, the watcher): read the note shown again,
        the reader kept where they were."""
        if self.edited or (self.page is None and not self.query_one("#note-title").has_class("-gone")):
            self.edited = False  # edited here: at its section, the old place is another line now
            self.load(self.history[self.position])  # or it could not open: it may now
            return
        self._keep_place()
        self.reload(self.history[self.position], self.query_one(MarkdownPane).scroll_y)

    @work(exclusive=True, group="note", exit_on_error=False)
    async def reload(self, visit: Visit, scroll_y: float) -> None:
        """Show the note of ``visit`` as the index has it now, at scroll offset ``scroll_y``;
        when it is gone from the vault, say so over the text from before."""
        page = await self.app.browse(reread_note_page, visit.ref, visit.line)
        if isinstance(page, Gone):
            self.page = None  # e, o, r and c have no note to act on any more
            title = self.query_one("#note-title", Static)
            title.update(f"{page.ref} is gone from the vault (deleted or moved): the text below is "
                         "from before · Esc closes")
            title.add_class("-gone")
            self.refresh_bindings()
        elif page is not None:  # None: an error, already notified; the page stays
            await self._show(page, visit, restore=True, scroll_y=scroll_y)

    async def _show(self, page: NotePage, visit: Visit, restore: bool, scroll_y: float | None = None) -> None:
        self.page = page
        title = self.query_one("#note-title", Static)
        title.update(title_line(page))
        title.remove_class("-gone")
        # as the CLI's `show` says them (a note deleted since the index had opened as if it were
        # there, one edited since with no word, qa153); a code page has them in its text
        notices = self.query_one("#note-notices", Static)
        said = () if page.code is not None else page.note.notices
        notices.update("\n".join(said))
        notices.display = bool(said)
        self.query_one(LinkList).show(page.note.links, list(page.backlinks))
        self.query_one(MarkdownPane).forget_links()
        self._show_calls(page)
        self.refresh_bindings()  # o and r: a note's keys only
        await self.query_one(NoteBody).show(page.note, None if page.code else page.line, scroll_y)
        self.refresh_bindings()  # m: only a note drawn in part
        if restore:
            self.call_after_refresh(self._restore_place, visit)  # after the text scrolled to the line

    def _show_calls(self, page: NotePage) -> None:
        """A symbol's page has its call tree beside the links; any other page none."""
        symbol = page.code.symbol if page.code is not None else None
        self.set_class(symbol is not None, "-calls")
        self.query_one(CallTree).show(page.code.ref if symbol else None, symbol.symbol if symbol else "")

    def action_reinforce(self) -> None:
        """Record that this note proved useful (asked who and why first)."""
        if self.page is not None:
            self.app.ask_reinforce(self.page.note.path)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def title_line(page: NotePage) -> str:
    """``specs/auth.md#Token refresh · spec · tap specs · project drone-audio``; for code,
    the symbol's kind, language and lines."""
    note = page.note
    if page.code is not None:  # ``src/shop/orders.py#OrderBook.place · method · python · lines 2-4``
        return " · ".join([page.ref, note.kind, page.code.language,
                           f"lines {page.code.line_start}-{page.code.line_end}"])
    parts = [page.ref, note.kind, f"tap {note.tap}"] + ([f"project {note.project}"] if note.project else [])
    return " · ".join(parts)
