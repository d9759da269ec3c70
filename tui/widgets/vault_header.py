"""The one-line header on every screen: app name, vault path, index health, current work."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from tui.formatting import Health


class VaultHeader(Horizontal):
    """Shows ``app.vault_label``, ``app.health`` and ``app.activity`` (it watches them)."""

    def __init__(self, screen_title: str) -> None:
        super().__init__()
        self.screen_title = screen_title

    def compose(self) -> ComposeResult:
        yield Label("vault-engine", id="header-app")
        yield Label(self.screen_title, id="header-screen")
        yield Label("", id="header-vault")
        yield Label("", id="header-activity")
        yield Label("", id="header-health")

    def on_mount(self) -> None:
        self.query_one("#header-vault", Label).update(self.app.vault_label)
        self.watch(self.app, "health", self._show_health)
        self.watch(self.app, "activity", self._show_activity)

    def _show_health(self, health: Health) -> None:
        label = self.query_one("#header-health", Label)
        label.update(health.text)
        label.set_class(health.warning, "-warning")

    def _show_activity(self, activity: str) -> None:
        self.query_one("#header-activity", Label).update(activity)
