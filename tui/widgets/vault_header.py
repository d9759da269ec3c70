"""The header on every screen: app name, vault path, index health, current work in one line,
and under it, only while there is one, the problem that keeps the vault from opening (a
broken vault-engine.toml) with what to fix."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Static

from tui.formatting import Health


class VaultHeader(Vertical):
    """Shows ``app.vault_label``, ``app.health``, ``app.activity`` and ``app.problem`` (it
    watches them)."""

    def __init__(self, screen_title: str) -> None:
        super().__init__()
        self.screen_title = screen_title

    def compose(self) -> ComposeResult:
        with Horizontal(id="header-line"):
            yield Label("vault-engine", id="header-app")
            yield Label(self.screen_title, id="header-screen")
            yield Label("", id="header-vault")
            yield Label("", id="header-activity")
            yield Label("", id="header-health")
        yield Static("", id="header-problem", markup=False)

    def on_mount(self) -> None:
        self.query_one("#header-vault", Label).update(self.app.vault_label)
        self.watch(self.app, "health", self._show_health)
        self.watch(self.app, "activity", self._show_activity)
        self.watch(self.app, "problem", self._show_problem)

    def _show_health(self, health: Health) -> None:
        label = self.query_one("#header-health", Label)
        label.update(health.text)
        label.set_class(health.warning, "-warning")

    def _show_activity(self, activity: str) -> None:
        self.query_one("#header-activity", Label).update(activity)
        self.set_class(bool(activity), "-busy")

    def _show_problem(self, problem: str) -> None:
        self.query_one("#header-problem", Static).update(problem)
        self.set_class(bool(problem), "-problem")
