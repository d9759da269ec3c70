"""Decaying documents: tap, a bar for the multiplier, age, last reinforcement."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from tui.formatting import age_text, bar, iso_date
from vault_engine.model import DecayRow

COLUMNS = ("Document", "Tap", "Multiplier", "Age", "Reinforced")
CELL_PADDING, SCROLLBAR, MIN_NAME = 2, 2, 12  # a cell's padding, the vertical scrollbar, a name at least


class DecayTable(DataTable):
    """One row per document; ``r`` posts ``Reinforce``, Enter posts ``Open``."""

    BINDINGS = [Binding("enter", "select_cursor", "Open"), Binding("r", "reinforce", "Reinforce")]

    class Reinforce(Message):
        """Reset the age of the document ``ref`` names."""

        def __init__(self, ref: str, title: str) -> None:
            super().__init__()
            self.ref = ref
            self.title = title

    class Open(Message):
        """Open the document in the note viewer."""

        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.titles: dict[str, str] = {}  # what each row's ref names, for the reinforce dialog
        self.rows_shown: list[DecayRow] = []  # shown again, cut to the new width, on a resize

    def on_mount(self) -> None:
        if not self.columns:
            self.add_columns(*COLUMNS)

    def show(self, rows: list[DecayRow]) -> None:
        """Replace the rows, grouped by tap, most faded first within a tap; the cursor stays
        on the same document (a reinforced one moves down its group). A document's name is cut
        to what the other columns leave of the table's width: at 80 columns the last one had
        lost its count (`2026-12-07 ×`, qa153)."""
        kept, row_before = self.selected_ref(), self.cursor_row
        self.rows_shown = rows
        self.titles = {row.ref: row.title or row.path for row in rows}
        self.clear(columns=True)  # the columns' widths are measured again: a cut name is narrower
        self.add_columns(*COLUMNS)
        cells = [(row, row.tap, multiplier_cell(row), age_text(row.age_days), reinforced_cell(row))
                 for row in sorted(rows, key=lambda r: (r.tap, r.multiplier, r.path))]
        others = sum(max((len(str(c[n])) for c in cells), default=0) for n in range(1, 5))
        room = max(MIN_NAME, self.size.width - others - CELL_PADDING * len(COLUMNS) - SCROLLBAR) \
            if self.size.width else None
        for row, tap, multiplier, age, reinforced in cells:
            name = Text(row.title or row.path, overflow="ellipsis", no_wrap=True)
            if room is not None:
                name.truncate(room, overflow="ellipsis")
            self.add_row(name, tap, multiplier, age, reinforced, key=row.ref)
        if rows:
            refs = [row.ref for row in rows]
            self.move_cursor(row=self.get_row_index(kept) if kept in refs else
                             min(row_before, len(rows) - 1))

    def on_resize(self) -> None:
        if self.rows_shown:
            self.show(self.rows_shown)

    def selected_ref(self) -> str | None:
        """The ref of the row under the cursor (None when the table is empty)."""
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key((self.cursor_row, 0)).row_key.value

    def action_reinforce(self) -> None:
        ref = self.selected_ref()
        if ref is not None:
            self.post_message(self.Reinforce(ref, self.titles.get(ref, ref)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.Open(event.row_key.value))


def multiplier_cell(row: DecayRow) -> Text:
    """``██████░░░░ 0.61``, red near the floor, green when fresh."""
    style = "red" if row.multiplier <= row.floor + 0.05 else "yellow" if row.multiplier < 0.6 else "green"
    return Text.assemble((bar(row.multiplier), style), f" {row.multiplier:.2f}")


def reinforced_cell(row: DecayRow) -> str:
    """``2026-11-29 ×3``, or ``never``."""
    if row.last_reinforced is None:
        return "never"
    return f"{iso_date(row.last_reinforced)} ×{row.reinforcements}"
