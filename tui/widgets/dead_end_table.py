"""Recorded dead ends, newest first, filterable by project and source."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from tui.formatting import iso_date

# (label, width); the dead end itself takes the width left, the reason shows in the detail
# box. Below WIDE_COLUMNS the agent and source columns go (the detail box shows them too).
COLUMNS = (("When", 10), ("Agent", 11), ("Project", 15), ("Source", 12))
NARROW = ("When", "Project")
WIDE_COLUMNS = 100
MIN_TEXT = 20


class DeadEndTable(DataTable):
    """One row per ruling (objects with text, reason, project, agent, when, source, ref, line).

    Enter posts ``Jump``; moving the cursor posts ``Highlighted`` so the screen can show the
    whole ruling.
    """

    BINDINGS = [Binding("enter", "select_cursor", "Open", tooltip="Open the note the dead end was written in")]

    class Jump(Message):
        """Open the note the dead end was written in, at its line."""

        def __init__(self, ref: str, line: int | None) -> None:
            super().__init__()
            self.ref = ref
            self.line = line

    class Highlighted(Message):
        """The cursor is on this ruling (None: the table is empty)."""

        def __init__(self, ruling: Any | None) -> None:
            super().__init__()
            self.ruling = ruling

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.rulings: list[Any] = []
        self.marked: set[tuple[str, int]] = set()  # (path, line) of the rulings a proposal raised
        self._layout: tuple[int, ...] = ()

    def show(self, rulings: Sequence[Any]) -> None:
        """Replace the rows with ``rulings`` (already filtered, newest first); the cursor stays
        on the dead end it was on when that one is still listed (back from its note)."""
        was = self.rulings[self.cursor_row] if 0 <= self.cursor_row < len(self.rulings) else None
        self.rulings = list(rulings)
        self._fill()
        row = next((n for n, r in enumerate(self.rulings)
                    if was is not None and (r.path, r.line) == (was.path, was.line)), 0)
        if row:
            self.move_cursor(row=row)
        self.post_message(self.Highlighted(self.rulings[row] if self.rulings else None))

    def mark(self, keys: set[tuple[str, int]]) -> None:
        """Mark the rulings (``(path, line)``) the proposal just raised, and put the cursor on
        the first one listed, so the table shows what the answer below is about."""
        if keys == self.marked:
            return
        self.marked = keys
        self._fill()
        rows = [n for n, r in enumerate(self.rulings) if (r.path, r.line) in keys]
        if rows:
            self.move_cursor(row=rows[0])

    def on_resize(self) -> None:
        if self._columns_for(self.size.width) != self._layout:
            row = self.cursor_row
            self._fill()
            if self.row_count:
                self.move_cursor(row=min(row, self.row_count - 1))

    def _columns_for(self, width: int) -> tuple[int, ...]:
        """Indexes into COLUMNS shown at ``width``, then the width of the text column."""
        shown = tuple(n for n, (label, _) in enumerate(COLUMNS)
                      if width >= WIDE_COLUMNS or label in NARROW)
        used = sum(COLUMNS[n][1] + 2 * self.cell_padding for n in shown)
        return (*shown, max(MIN_TEXT, width - used - 2 * self.cell_padding - 2))

    def _fill(self) -> None:
        *shown, text_width = self._layout = self._columns_for(self.size.width or 80)
        self.clear(columns=True)
        for n in shown:
            self.add_column(COLUMNS[n][0], width=COLUMNS[n][1])
        self.add_column("Dead end", width=text_width)
        for key, r in enumerate(self.rulings):
            cells = (iso_date(r.when), r.agent or "-", r.project or "-", r.source)
            hit = (r.path, r.line) in self.marked
            text = Text.assemble(("◆ ", "bold yellow") if hit else "", r.text, no_wrap=True, overflow="ellipsis")
            if hit:
                text.stylize("bold")
            self.add_row(*(cells[n] for n in shown), text, key=str(key))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.Highlighted(self._ruling(event.row_key.value)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        ruling = self._ruling(event.row_key.value)
        if ruling is not None:
            self.post_message(self.Jump(ruling.ref, ruling.line))

    def _ruling(self, key: str | None) -> Any | None:
        index = int(key) if key is not None else -1
        return self.rulings[index] if 0 <= index < len(self.rulings) else None

