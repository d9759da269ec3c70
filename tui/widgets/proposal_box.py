"""Type a proposal, see what ``deadend check`` says, exactly as an agent would read it."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from tui.formatting import hanging_lines
from tui.widgets.query_input import QueryInput

PROMPT = "Has this been tried? Type what you are about to try, in your own words"
HELP = ("The answer appears here as the agent sees it from "
        "`vault-engine deadend check PROPOSAL`.")


class ProposalBox(Vertical):
    """An input and the rendered answer; posts ``Proposed`` whenever the text changes.
    ``PgUp``/``PgDn`` in the input scroll the answer (the focus stays where you type)."""

    BINDINGS = [Binding("pagedown", "scroll_answer(1)", "More", show=False),
                Binding("pageup", "scroll_answer(-1)", "Back", show=False)]

    def action_scroll_answer(self, pages: int) -> None:
        scroll = self.query_one("#proposal-answer-scroll", VerticalScroll)
        (scroll.scroll_page_down if pages > 0 else scroll.scroll_page_up)(animate=False)

    class Proposed(Message):
        """The proposal text changed (the screen debounces and runs the check)."""

        def __init__(self, proposal: str) -> None:
            super().__init__()
            self.proposal = proposal

    def compose(self) -> ComposeResult:
        yield QueryInput(placeholder=PROMPT, id="proposal")
        with VerticalScroll(id="proposal-answer-scroll"):
            yield Static(HELP, id="proposal-answer", markup=False)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Proposed(event.value))

    class OpenMatch(Message):
        """Enter in the box: open the note of the best ruling the proposal raised."""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.OpenMatch())

    def show_answer(self, rendered: str | None, hit: bool = False) -> None:
        """Show the check's rendered text (None: the help line); a hit is highlighted."""
        answer = self.query_one("#proposal-answer", Static)
        answer.update(hanging(rendered) if rendered is not None else HELP)
        answer.set_class(hit, "-hit")
        self.query_one("#proposal-answer-scroll").scroll_home(animate=False)


def hanging(text: str) -> RenderableType:
    """The answer with each line's indent kept on its wrapped rows (a grid per indented line:
    the indent and list marker in a column of their own, the text wrapping beside it)."""
    rows: list[RenderableType] = []
    for line in hanging_lines(text):
        if not line.lead:
            rows.append(Text(line.text, overflow="fold"))
            continue
        grid = Table.grid(expand=True)
        grid.add_column(width=len(line.lead), no_wrap=True)
        grid.add_column(ratio=1, overflow="fold")  # a ref longer than the column folds: it had been
        grid.add_row(line.lead, Text(line.text, overflow="fold"))  # cut to `...#Fail…` at 80x24 (qa153)
        rows.append(grid)
    return Group(*rows)
