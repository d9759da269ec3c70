"""The base of every screen: footer keys that fit the width, the function-key actions."""

from __future__ import annotations

from textual.events import Resize, ScreenResume
from textual.screen import Screen

from tui.keys import NARROW_ONLY, WIDE_FOOTER, WIDE_ONLY
from tui.messages import IndexChanged


class KeyedScreen(Screen):
    """Shows the wide or the narrow variant of its footer keys (tui/keys.py), and reloads when
    it comes back to the front after an index run it did not see (F5 on another screen)."""

    SCREEN_NAME = "this screen"
    WIDE_FOOTER = WIDE_FOOTER  # a screen with more keys of its own needs more columns
    index_seen = 0  # the app's index_changes when this screen last heard of one

    def on_screen_resume(self, _: ScreenResume) -> None:
        changes = getattr(self.app, "index_changes", 0)
        if changes != self.index_seen:
            self.index_seen = changes
            self.post_message(IndexChanged())

    @property
    def wide_footer(self) -> bool:
        """Whether the footer has room for the function keys' names."""
        return self.size.width >= self.WIDE_FOOTER

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """False hides a binding from the footer; the key then reaches the app's own binding."""
        wide = self.wide_footer
        if action in WIDE_ONLY:
            return wide
        if action in NARROW_ONLY:
            return not wide
        return True

    def on_resize(self, _: Resize) -> None:
        self.refresh_bindings()  # the footer asks check_action again

    def action_goto(self, mode: str) -> None:
        self.app.action_go_to(mode)

    def action_goto_short(self, mode: str) -> None:
        self.app.action_go_to(mode)

    def action_reindex(self) -> None:
        self.app.action_index()

    def action_reindex_short(self) -> None:
        self.app.action_index()

    def action_back_out(self) -> None:
        """Escape: back to the screen's first pane (where it opens), and from there to Search;
        it did nothing on Dead ends, Resume, Decay and Find (qa77)."""
        home = next(iter(self.query(self.AUTO_FOCUS)), None) if self.AUTO_FOCUS else None
        if home is not None and self.focused is not home:
            home.focus()
            if hasattr(home, "select_all"):  # a query box: typing starts a new query
                home.select_all()
        elif self.app.current_mode != "search":
            self.app.switch_mode("search")

    def action_focus_next(self) -> None:
        self.focus_next()

    def action_focus_next_quietly(self) -> None:
        self.focus_next()
