"""The key list: what works on the screen below, then what works everywhere."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.keys import EVERYWHERE, KeyLine


class HelpScreen(ModalScreen[None]):
    """A modal over the current screen; Esc, ``?`` or ``q`` closes it."""

    CSS_PATH = "help.tcss"
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("question_mark", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def __init__(self, screen_title: str, lines: list[KeyLine]) -> None:
        super().__init__()
        self.screen_title = screen_title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys · Esc closes"
            yield Static(key_table(f"On {self.screen_title}", self.lines), id="help-screen-keys")
            yield Static(key_table("Everywhere", [KeyLine(*row) for row in EVERYWHERE]),
                         id="help-everywhere")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


def key_table(title: str, lines: list[KeyLine]) -> Table:
    """Two columns, the keys in bold; a screen without keys of its own says so."""
    table = Table(title=Text(title, style="bold"), title_justify="left", show_header=False,
                  box=None, padding=(0, 2, 0, 0), expand=True)
    table.add_column("keys", style="bold", no_wrap=True, min_width=12)
    table.add_column("does", ratio=1)
    for line in lines or [KeyLine("", "no keys of its own")]:
        table.add_row(line.keys, line.does)
    return table
