"""Decay: documents of decaying taps, by tap, with their multiplier; reinforce from here."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

from tui.formatting import unusable_text
from tui.keys import HELP_KEY, MODE_KEYS
from tui.messages import IndexChanged, ReinforcementsChanged
from tui.screens.keyed import KeyedScreen
from tui.widgets.decay_table import DecayTable
from tui.widgets.vault_header import VaultHeader
from vault_engine.model import DecayRow
from vault_engine.vault import Vault

EMPTY = ("No decaying documents. Give a tap a half-life in vault-engine.toml, e.g. these lines\n"
         "(as they are: TOML puts a table's keys on lines of their own)\n\n"
         "[taps.specs]\npaths = [\"specs/**\"]\nhalf_life_days = 30\nfloor = 0.2\n\n"
         "then press F5 to index.")


class DecayScreen(KeyedScreen):
    """What is fading, and a key to say it still matters."""

    SCREEN_NAME = "Decay"
    CSS_PATH = "decay.tcss"
    WIDE_FOOTER = 110  # columns from which its keys and the function keys' names fit
    AUTO_FOCUS = "DecayTable"
    BINDINGS = [Binding("u", "app.undo_reinforce", "Undo"), Binding("escape", "back_out", "Back to Search", show=False),
                *MODE_KEYS, HELP_KEY]

    def compose(self) -> ComposeResult:
        yield VaultHeader("Decay")
        yield Static("", id="decay-summary", markup=False)
        yield DecayTable()
        yield Footer(compact=True)

    def on_screen_resume(self) -> None:
        self.reload()

    def on_index_changed(self, _: IndexChanged) -> None:
        self.reload()

    @work(exclusive=True, group="decay", exit_on_error=False)
    async def reload(self) -> None:
        """Fetch the decay report (with the app's clock) and redraw the table."""
        rows = await self.app.browse(Vault.decay_report, now=self.app.now)
        if rows is None:
            if text := unusable_text(self.app.health):
                self.query_one("#decay-summary", Static).update(text)
            return
        self.query_one(DecayTable).show(rows)
        self.query_one("#decay-summary", Static).update(summary(rows))

    @on(DecayTable.Reinforce)
    def reinforce_document(self, event: DecayTable.Reinforce) -> None:
        """``r`` on a row: ask who and why, then reinforce that document."""
        self.app.ask_reinforce(event.ref, event.title)

    def on_reinforcements_changed(self, _: ReinforcementsChanged) -> None:
        self.reload()

    @on(DecayTable.Open)
    def open_document(self, event: DecayTable.Open) -> None:
        """Enter on a row: open the document."""
        self.app.open_note(event.ref)


def summary(rows: list[DecayRow]) -> str:
    """``12 documents in 2 decaying taps · 3 at their floor · r reinforces, u undoes, Enter opens``."""
    if not rows:
        return EMPTY
    taps = sorted({r.tap for r in rows})
    floored = sum(r.multiplier <= r.floor + 1e-9 for r in rows)
    return (f"{len(rows)} documents in {len(taps)} decaying tap{'s' if len(taps) > 1 else ''} "
            f"({', '.join(taps)}) · {floored} at their floor · r reinforces, u undoes, Enter opens")
