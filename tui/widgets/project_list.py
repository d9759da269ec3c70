"""The projects of the vault; moving the cursor posts ``ProjectList.Chosen``."""

from __future__ import annotations

from collections.abc import Sequence

from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class ProjectList(OptionList):
    """Project names, one per line: the cursor posts ``Chosen``, Enter posts ``Opened``."""

    BINDINGS = [Binding("enter", "select", "Open checkpoint")]

    class Chosen(Message):
        """Show the resume brief of this project."""

        def __init__(self, project: str) -> None:
            super().__init__()
            self.project = project

    class Opened(Message):
        """Open the latest checkpoint of this project."""

        def __init__(self, project: str) -> None:
            super().__init__()
            self.project = project

    def show(self, projects: Sequence[str], keep: str | None = None) -> None:
        """List ``projects``; the cursor goes to ``keep`` when listed, else the first."""
        self.clear_options()
        self.add_options(Option(name, id=name) for name in projects)
        if projects:
            self.highlighted = list(projects).index(keep) if keep in projects else 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Chosen(event.option.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Opened(event.option.id))
