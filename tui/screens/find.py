"""Find: where a symbol, a file or an idea lives in the code (``Vault.find``), as you type."""

from __future__ import annotations

import asyncio
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Input, Static

from tui.formatting import not_answered
from tui.keys import HELP_KEY, MODE_KEYS, NEXT_PANE
from tui.messages import IndexChanged
from tui.screens.keyed import KeyedScreen
from tui.widgets.find_list import FindList
from tui.widgets.query_input import QueryInput
from tui.widgets.vault_header import VaultHeader
from vault_engine.vault import Vault

DEBOUNCE_SECONDS = 0.25
HITS = 10  # find's own default
EMPTY_HELP = ("Type a symbol (OrderBook.place), a path (src/shop/orders.py) or a question in words.\n"
              "A hit is exact; a junction is a close name to confirm; a miss says why.\n"
              "↓ moves to the results, Enter opens the code with the notes that say why.")
STATUS_STYLE = {"hit": "-hit", "junction": "-junction", "miss": "-miss"}


class FindScreen(KeyedScreen):
    """A query box, what ``find`` said about it, and the places it points at."""

    SCREEN_NAME = "Find"
    CSS_PATH = "find.tcss"
    AUTO_FOCUS = "#find-query"
    BINDINGS = [
        Binding("down", "focus_hits", "Results", key_display="↓"),
        Binding("escape", "back_out", "Back to the query box, then Search", show=False),
        *NEXT_PANE, *MODE_KEYS, HELP_KEY,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.result: Any | None = None  # the FindResult shown
        self.shown_for = ""  # the query whose result is shown

    def compose(self) -> ComposeResult:
        yield VaultHeader("Find")
        yield QueryInput(placeholder="Find a symbol, a path, or ask…", id="find-query", select_on_focus=False)
        yield Static(EMPTY_HELP, id="find-status", markup=False)
        yield FindList(id="find-hits")
        yield Footer(compact=True)

    @on(Input.Changed, "#find-query")
    def query_changed(self, event: Input.Changed) -> None:
        self.run_find(event.value)

    @on(Input.Submitted, "#find-query")
    def query_submitted(self, event: Input.Submitted) -> None:
        """Enter in the box: find at once (typing may be ahead of the debounce), then go to
        the results."""
        self.run_find(event.value, debounce=False, then_focus=True)

    def on_index_changed(self, _: IndexChanged) -> None:
        self.run_find(self.query_one("#find-query", Input).value, debounce=False)

    def action_focus_hits(self) -> None:
        """To the places listed, once they are the ones of the query in the box: typing may be
        ahead of the debounce, and the previous query's list must not take the Enter that follows."""
        query = self.query_one("#find-query", Input).value.strip()
        if query != self.shown_for:
            self.run_find(query, debounce=False, then_focus=True)
            return
        self._focus_listed()

    def _focus_listed(self) -> None:
        hits = self.query_one(FindList)
        if hits.option_count:
            hits.focus()

    @on(FindList.Opened)
    def open_hit(self, event: FindList.Opened) -> None:
        """Enter on a place: the symbol's code (or the file, or the memory note) in the viewer."""
        self.app.open_note(event.ref)

    @work(exclusive=True, group="find", exit_on_error=False)
    async def run_find(self, query: str, debounce: bool = True, then_focus: bool = False) -> None:
        """Debounced like search: a newer keystroke cancels this worker while it sleeps."""
        if debounce:
            await asyncio.sleep(DEBOUNCE_SECONDS)
        if not query.strip():
            self._show(None)
            return
        said: list[str] = []
        result = await self.app.query(Vault.find, query.strip(), k=HITS, said=said)
        if result is not None:
            self._show(result, query.strip())
        else:  # no answer of another query stays under this one
            self._show(None, query.strip(), not_answered(self.app.health, said, "found"))
        if then_focus:
            self._focus_listed()

    def _show(self, result: Any | None, query: str = "", empty: str = EMPTY_HELP) -> None:
        self.result, self.shown_for = result, query
        status = self.query_one("#find-status", Static)
        status.update(empty if result is None else status_text(result))
        for name, css in STATUS_STYLE.items():
            status.set_class(result is not None and result.status == name, css)
        self.query_one(FindList).show(result)


def status_text(result: Any) -> str:
    """``hit (symbol tier): 1 definition(s) named 'OrderBook.place'``; a junction adds what
    it suggests, a miss what to try."""
    tier = f" ({result.tier} tier)" if result.tier else ""
    line = f"{result.status}{tier}: {result.reason}"
    if result.status == "junction" and result.suggestion:
        more = f" (or {', '.join(result.alternatives)})" if result.alternatives else ""
        line += f"\nsuggestion: {result.suggestion}{more} · Enter opens it to confirm"
    elif result.status == "hit":
        line += f"\n{len(result.hits)} place(s) · Enter opens the code with the notes that say why"
    else:
        line += "\nTry another name, a path, or a question in words (Search, F1, reads every note)."
    # what the CLI says under the answer too: "memory notes only, none holding every word of
    # the question; the code itself: ..." had been left out, the hit read as an answer (qa145)
    return "\n".join([line, *(f"note: {n}" for n in getattr(result, "notices", ()))])
