"""Reinforce, confirmed: who is vouching for the document and why, asked before it is logged."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


@dataclass(frozen=True, slots=True)
class ReinforceAnswer:
    """What the dialog was told; the app remembers it as the next dialog's default."""

    by: str
    why: str


class ReinforceDialog(ModalScreen[ReinforceAnswer | None]):
    """Two boxes and two buttons; Enter in the last box (or the button) confirms, Esc cancels."""

    CSS_PATH = "reinforce.tcss"
    AUTO_FOCUS = "#reinforce-why"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, ref: str, last: ReinforceAnswer, title: str | None = None) -> None:
        super().__init__()
        self.ref = ref
        self.last = last
        self.document_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="reinforce-box") as box:
            box.border_title = "Reinforce"
            title = self.document_title
            named = f"{title} ({self.ref})" if title and title != self.ref else self.ref
            yield Static(f"Reset the age of {named}: it proved useful. One line in the durable "
                         "ledger; u undoes it while the TUI is open.", id="reinforce-what", markup=False)
            yield Label("Who")
            yield Input(self.last.by, id="reinforce-by", placeholder="your name")
            yield Label("Why")
            yield Input(self.last.why, id="reinforce-why", placeholder="what it was useful for")
            with Horizontal(id="reinforce-buttons"):
                yield Button("Reinforce", variant="primary", id="reinforce-ok")
                yield Button("Cancel", id="reinforce-cancel")

    @on(Input.Submitted, "#reinforce-by")
    def next_box(self) -> None:
        self.query_one("#reinforce-why", Input).focus()

    @on(Input.Submitted, "#reinforce-why")
    @on(Button.Pressed, "#reinforce-ok")
    def confirm(self) -> None:
        by = self.query_one("#reinforce-by", Input).value.strip()
        why = self.query_one("#reinforce-why", Input).value.strip()
        if not by:
            self.notify("say who is reinforcing it (any name)", severity="warning")
            self.query_one("#reinforce-by", Input).focus()
            return
        self.dismiss(ReinforceAnswer(by, why))

    @on(Button.Pressed, "#reinforce-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
