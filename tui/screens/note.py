"""Note viewer: the note as Markdown at its section, links and backlinks, browser history."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer, Static

from tui.identity import current_user
from tui.pages import NotePage, read_note_page
from tui.widgets.link_list import LinkList
from tui.widgets.note_body import NoteBody
from tui.widgets.vault_header import VaultHeader
from vault_engine.vault import Vault

NARROW_COLUMNS = 100  # below this the link list goes under the note instead of beside it


class NoteScreen(Screen):
    """One note at a time, with back/forward history like a browser."""

    CSS_PATH = "note.tcss"
    AUTO_FOCUS = "#links"
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("b", "back", "Back"),
        Binding("f", "forward", "Forward"),
        Binding("r", "reinforce", "Reinforce"),
    ]

    def __init__(self, ref: str, line: int | None = None) -> None:
        super().__init__()
        self.history: list[tuple[str, int | None]] = [(ref, line)]
        self.position = 0
        self.page: NotePage | None = None

    def compose(self) -> ComposeResult:
        yield VaultHeader("Note")
        yield Static("", id="note-title", markup=False)
        with Horizontal(id="note-main"):
            with VerticalScroll(id="note-scroll"):
                yield NoteBody(id="note-body")
            yield LinkList(id="links")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.load(*self.history[0])

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")

    # -- history --------------------------------------------------------------------------

    def go(self, ref: str, line: int | None = None) -> None:
        """Open ``ref``, dropping any forward history (as a browser does)."""
        del self.history[self.position + 1:]
        self.history.append((ref, line))
        self.position += 1
        self.load(ref, line)

    def action_back(self) -> None:
        if self.position == 0:
            self.notify("no earlier note in this viewer's history", timeout=2)
            return
        self.position -= 1
        self.load(*self.history[self.position])

    def action_forward(self) -> None:
        if self.position + 1 >= len(self.history):
            self.notify("no later note in this viewer's history", timeout=2)
            return
        self.position += 1
        self.load(*self.history[self.position])

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

    # -- loading and reinforcing ----------------------------------------------------------

    @work(exclusive=True, group="note", exit_on_error=False)
    async def load(self, ref: str, line: int | None) -> None:
        """Fetch the page for ``ref`` and show it (a failure keeps the current page)."""
        page = await self.app.browse(read_note_page, ref, line)
        if page is None:
            if self.page is None:
                self.query_one("#note-title", Static).update(f"cannot open {ref}: Esc goes back")
            return
        self.page = page
        self.query_one("#note-title", Static).update(title_line(page))
        self.query_one(LinkList).show(page.note.links, list(page.backlinks))
        await self.query_one(NoteBody).show(page.note, page.line)

    @work(group="reinforce", exit_on_error=False)
    async def action_reinforce(self) -> None:
        """Record that this note proved useful (one line in the durable ledger)."""
        if self.page is None:
            return
        done = await self.app.browse(Vault.reinforce, self.page.note.path, by=current_user(),
                                     why="reinforced from the TUI note viewer", now=self.app.now)
        if done is not None:
            self.notify(f"reinforced {done['ref']}: its age starts again from now",
                        title="Reinforced")


def title_line(page: NotePage) -> str:
    """``specs/auth.md#Token refresh · spec · tap specs · project drone-audio``."""
    note = page.note
    parts = [page.ref, note.kind, f"tap {note.tap}"] + ([f"project {note.project}"] if note.project else [])
    return " · ".join(parts)
