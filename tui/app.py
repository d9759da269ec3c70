"""The Textual app: screens as modes, the Vault lanes, index health in the header.

Screens get their data by awaiting ``app.browse(...)`` or ``app.query(...)`` from async
workers; those run the call on a lane thread that owns its own Vault (see lanes.py) and turn
a VaultError into a notification, never a traceback.
"""

from __future__ import annotations

import logging
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from textual import work
from textual.app import App, SuspendNotSupported, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from tui.formatting import (
    BROKEN_CONFIG,
    DAMAGED,
    NO_INDEX,
    Health,
    display_path,
    health_of,
)
from tui.identity import current_user
from tui.keys import FUNCTION_KEYS, screen_keys
from tui.lanes import VaultLane
from tui.messages import IndexChanged, ReinforcementsChanged
from tui.screens.dead_ends import DeadEndsScreen
from tui.screens.decay import DecayScreen
from tui.screens.find import FindScreen
from tui.screens.help import HelpScreen
from tui.screens.note import NoteScreen
from tui.screens.reinforce import ReinforceAnswer, ReinforceDialog
from tui.screens.resume import ResumeScreen
from tui.screens.search import SearchScreen
from vault_engine.errors import ConfigError, IndexDamaged, IndexMissing, VaultError
from vault_engine.model import Freshness, IndexReport, reinforcement_said
from vault_engine.vault import Vault

log = logging.getLogger(__name__)
T = TypeVar("T")
HERE = Path(__file__).parent
HEALTH_EVERY_SECONDS = 30.0  # status in full, whatever the poll says (a stalled watcher)
POLL_SECONDS = 1.0  # Vault.freshness: one stat per note, so the header follows edits at once
POLL_LOAD = 0.1  # ...but a poll takes at most this share of a core: a big vault polls less often
STAGES = {"read": "reading notes", "lexical": "words", "embed": "embedding"}  # index progress
UPGRADED = "vault-engine was installed again while the TUI ran: quit and start it again"

# (mode, title, help) for the key bindings and the command palette.
SCREENS = (
    ("search", "Search", "Search the vault as you type"),
    ("dead-ends", "Dead ends", "Every approach ruled out; check a proposal"),
    ("resume", "Resume", "Where each project left off"),
    ("decay", "Decay", "Fading documents by tap; reinforce them"),
    ("find", "Find", "Where a symbol, a file or an idea lives in the code"),
)


class VaultApp(App):
    """vault-engine for humans."""

    TITLE = "vault-engine"
    CSS_PATH = [HERE / "app.tcss", *sorted((HERE / "widgets").glob("*.tcss"))]
    MODES = {"search": SearchScreen, "dead-ends": DeadEndsScreen, "resume": ResumeScreen,
             "decay": DecayScreen, "find": FindScreen}
    DEFAULT_MODE = "search"
    # Hidden here: the main screens show them (tui/keys.py), the note viewer has no room.
    BINDINGS = [
        *(Binding(key, f"go_to('{mode}')", label, show=False) for key, mode, label in FUNCTION_KEYS),
        Binding("f5", "index", "Index", show=False),
        Binding("question_mark", "help", "Keys", key_display="?", show=False),
    ]
    GLOBAL_ACTIONS = {"go_to", "index", "help", "focus_next", "focus_next_quietly", "focus_previous",
                      "command_palette", "quit", "goto", "goto_short", "reindex", "reindex_short"}

    health: reactive[Health] = reactive(Health(""))
    activity: reactive[str] = reactive("")
    problem: reactive[str] = reactive("")  # what keeps the vault from opening, and what to fix

    def __init__(self, vault_path: Path, now: float | None = None, *, semantic: bool = True):
        super().__init__()
        self.root = Path(vault_path)
        self.now = now  # frozen in tests: every Vault call that takes `now=` gets it
        self.semantic = semantic
        self.indexing = False
        self.index_changes = 0  # index runs seen (here or elsewhere): a screen behind reloads on return
        self.vault_label = display_path(self.root)
        self.last_reinforce = ReinforceAnswer(current_user(), "")  # the dialog's defaults
        self.reinforced: list[dict[str, Any]] = []  # this session's, newest last: u undoes
        self.query_lane = VaultLane(self.root, "query")
        self.browse_lane = VaultLane(self.root, "browse")
        # Polling has a lane of its own: a scan of a big vault must not delay opening a note.
        self.poll_lane = VaultLane(self.root, "poll")
        self.freshness: Freshness | None = None

    def on_mount(self) -> None:
        self.refresh_health()
        self.set_interval(HEALTH_EVERY_SECONDS, self.refresh_health)
        self._poll_timer = self.set_timer(POLL_SECONDS, self.poll_freshness)

    def on_unmount(self) -> None:
        self.query_lane.close()
        self.browse_lane.close()
        self.poll_lane.close()

    # -- calls into the vault -------------------------------------------------------------

    async def browse(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """``fn(vault, ...)`` on the browse lane; None (and a notification) when it fails."""
        return await self._ask(self.browse_lane, fn, *args, **kwargs)

    async def query(self, fn: Callable[..., T], *args: Any, said: list[str], **kwargs: Any) -> T | None:
        """``fn(vault, ...)`` on the query lane (search, find, dead-end check); None when it
        fails. A user error's line goes into ``said``, not a toast: the screen shows it where
        its answer goes, in place of the last one (the previous query's hits stayed under a
        query of stop words, and Enter opened one of them, qa38 F1)."""
        return await self._ask(self.query_lane, fn, *args, said=said, **kwargs)

    async def _ask(self, lane: VaultLane, fn: Callable[..., T], *args: Any, said: list[str] | None = None,
                   **kwargs: Any) -> T | None:
        try:
            return await lane.call(fn, *args, **kwargs)
        except IndexMissing as exc:
            if self.health != NO_INDEX:  # every screen asks at start: say it once, the header keeps it
                self.notify(str(exc), title="No index yet", severity="warning")
            self.health = NO_INDEX
        except IndexDamaged as exc:
            if said is not None:  # where the answer goes, as any user error
                said.append(str(exc))
            elif self.health != DAMAGED:
                self.notify(str(exc), title="Index damaged", severity="error")
            self.health = DAMAGED
        except ConfigError as exc:
            self._config_broken(exc)
        except VaultError as exc:
            if said is None:
                self.notify(str(exc), title="vault-engine", severity="error")
            else:
                said.append(str(exc))
        except ImportError as exc:  # a module this process has not loaded yet, replaced on disk (qa171)
            log.exception("import failed in %s", getattr(fn, "__name__", fn))
            self.notify(f"{UPGRADED} ({exc})", title="vault-engine", severity="error")
        except Exception as exc:  # a bug must not kill the app: show it, log the traceback
            log.exception("unexpected error in %s", getattr(fn, "__name__", fn))
            self.notify(f"{type(exc).__name__}: {exc}", title="unexpected error", severity="error")
        return None

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker runs with exit_on_error=False: a failure is shown, never a traceback."""
        if event.state == WorkerState.ERROR:
            if event.worker.group == "index":
                self.indexing, self.activity = False, ""
            error = event.worker.error
            log.error("worker %s failed", event.worker.name, exc_info=error)
            if isinstance(error, ImportError):
                self.notify(f"{UPGRADED} ({error})", title="vault-engine", severity="error")
            else:
                self.notify(f"{type(error).__name__}: {error}", title="unexpected error", severity="error")

    # -- health and indexing --------------------------------------------------------------

    @work(exclusive=True, group="health", exit_on_error=False)
    async def refresh_health(self) -> None:
        """Recompute the header's index health (status scans the vault: off the UI thread)."""
        status = await self.browse(Vault.status)
        if status is not None:
            self.health = health_of(status)

    @work(group="poll", exit_on_error=False)  # not exclusive: the lane runs polls one by one
    async def poll_freshness(self) -> None:
        """Refresh the header when a note changed on disk or the watcher's state did; reload
        the screen when an index run finished elsewhere (a terminal, the watcher)."""
        started = time.perf_counter()
        try:
            now = await self.poll_lane.call(Vault.freshness)
        except ConfigError as exc:  # the next poll opens the vault again: a fix shows at once
            self._config_broken(exc)
            return  # not "fixed" because an earlier poll had an answer: a toast every second (qa38 F2)
        except VaultError:
            now = self.freshness  # status, on the next full refresh, says what is wrong
        finally:
            self._poll_timer.stop()  # one chain of polls, whoever called this one
            delay = max(POLL_SECONDS, (time.perf_counter() - started) / POLL_LOAD)
            self._poll_timer = self.set_timer(delay, self.poll_freshness)
        if self.problem and now is not None:  # vault-engine.toml was fixed: every screen asks again
            self.problem = ""
            self.refresh_health()
            self._index_changed()
        before, self.freshness = self.freshness, now
        if now == before:
            return
        self.refresh_health()  # also the first time: a change since the mount's status
        if before is not None and now.last_index != before.last_index and not self.indexing:
            self._index_changed()

    def _config_broken(self, exc: ConfigError) -> None:
        """Say in the header what is wrong with vault-engine.toml and what to do; notify once."""
        message = str(exc)
        if "vault-engine.toml" not in message:  # a key's error names the key, not the file
            message = f"vault-engine.toml: {message}"
        problem = f"{message}\nFix vault-engine.toml and save it: the screens fill in by themselves."
        if problem != self.problem:
            self.notify(message, title="vault-engine.toml", severity="error")
        self.problem = problem
        self.health = BROKEN_CONFIG

    def action_go_to(self, mode: str) -> None:
        """A screen's function key: that screen; on a note opened from it, back to it. F1 on a
        note opened from Search left the note on top, as switching to the current mode does
        nothing (qa93)."""
        if mode == self.current_mode:
            while len(self.screen_stack) > 1:
                self.pop_screen()
        else:
            self.switch_mode(mode)

    def action_index(self) -> None:
        """Bring the index up to date without freezing the UI; progress shows in the header."""
        if self.indexing:
            self.notify("already indexing: progress is in the header", timeout=3)
            return
        self.indexing, self.activity = True, "indexing…"
        self._run_index()

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def _run_index(self) -> None:
        # A Vault of its own: it lives and dies on this worker thread.
        def progress(stage: str, done: int, total: int) -> None:
            """Called on the indexing thread: hand the numbers to the UI thread."""
            name, _, runner = stage.partition(":")  # "embed:onnxruntime": what embeds, too
            label = STAGES.get(name, name) + (f" ({runner})" if runner else "")
            self.call_from_thread(setattr, self, "activity", f"{label} {done}/{total}")

        def waiting(line: str) -> None:  # another process writes the index: this run waits for it
            self.call_from_thread(setattr, self, "activity", f"{line}…")

        try:
            with Vault(self.root) as vault:
                report = vault.index(progress=progress, now=self.now, embed=self.semantic, waiting=waiting)
        except VaultError as exc:
            self.call_from_thread(self._index_failed, str(exc))
            return
        self.call_from_thread(self._index_done, report)

    def _index_done(self, report: IndexReport) -> None:
        self.indexing, self.activity = False, ""
        again = f", {report.read_again} read again" if report.read_again else ""
        self.notify(f"{report.new} new, {report.modified} modified{again}, {report.deleted} deleted; "
                    f"{report.sections} sections ({report.seconds:.1f} s)", title="Indexed")
        if report.skipped:  # every run lists every file still skipped: one notice, not one each
            first = report.skipped[0]
            more = f" (and {len(report.skipped) - 1} more: `vault-engine status` lists them)" \
                if len(report.skipped) > 1 else ""
            self.notify(f"skipped {first.path}: {first.reason}{more}", severity="warning")
        self.refresh_health()
        self.freshness = None  # the poll must not report this run as one from elsewhere
        self._index_changed()

    def _index_changed(self) -> None:
        """The screen in front reloads now; the others when they come back (KeyedScreen)."""
        self.index_changes += 1
        self.screen.index_seen = self.index_changes  # type: ignore[attr-defined]
        self.screen.post_message(IndexChanged())

    def _index_failed(self, message: str) -> None:
        self.indexing, self.activity = False, ""
        self.notify(message, title="Index failed", severity="error")

    # -- reinforcing ----------------------------------------------------------------------

    def ask_reinforce(self, ref: str, title: str | None = None) -> None:
        """Ask who and why (the last answers filled in), then log the reinforcement; the dialog
        names the document by ``title`` too (a Notion page's ref is only its id, qa68)."""
        def answered(answer: ReinforceAnswer | None) -> None:
            if answer is not None:
                self.last_reinforce = answer
                self._reinforce(ref, answer)

        self.push_screen(ReinforceDialog(ref, self.last_reinforce, title), answered)

    @work(group="reinforce", exit_on_error=False)
    async def _reinforce(self, ref: str, answer: ReinforceAnswer) -> None:
        done = await self.browse(Vault.reinforce, ref, by=answer.by, why=answer.why or None, now=self.now)
        if done is not None:
            self.reinforced.append(done)
            self.notify(f"{done['ref']}: {reinforcement_said(done)} · u undoes", title="Reinforced")
            self.screen.post_message(ReinforcementsChanged())

    def action_undo_reinforce(self) -> None:
        """``u``: take back the last reinforcement made in this session (an undo line)."""
        if not self.reinforced:
            self.notify("nothing reinforced since the TUI opened: nothing to undo", timeout=3)
            return
        self._undo(self.reinforced.pop())

    @work(group="reinforce", exit_on_error=False)
    async def _undo(self, done: dict[str, Any]) -> None:
        undone = await self.browse(Vault.undo_reinforce, done["path"], done["at"],
                                   by=self.last_reinforce.by, now=self.now)
        if undone is not None:
            self.notify(f"{done['ref']} is back to its age before", title="Reinforcement undone")
            self.screen.post_message(ReinforcementsChanged())

    # -- navigation -----------------------------------------------------------------------

    def open_note(self, ref: str, line: int | None = None) -> None:
        """Open the note viewer at ``ref`` (at file line ``line`` when given) on top of the
        current screen; Esc comes back."""
        self.push_screen(NoteScreen(ref, line))

    def action_help(self) -> None:
        """``?``: the keys of the screen in front (hidden ones too), then the global ones."""
        if isinstance(self.screen, HelpScreen):
            return
        active = [a.binding for a in self.screen.active_bindings.values() if own_binding(a.node, a.binding)]
        # the screen's own keys too where the focused widget's shadow them: ↑ recalls the history
        # from the query box, though the hit list's ↑ moves its cursor (qa38)
        shadowed = [b for b in tui_bindings(self.screen) if self._offered(b)]
        bindings = [b for b in [*active, *shadowed]
                    if b.action.removeprefix("app.").split("(")[0] not in self.GLOBAL_ACTIONS]
        display = {b.key: self.get_key_display(b) for b in bindings}
        title = getattr(self.screen, "SCREEN_NAME", type(self.screen).__name__)
        self.push_screen(HelpScreen(title, screen_keys(bindings, display)))

    def _offered(self, binding: Binding) -> bool:
        """Whether the screen in front offers ``binding`` (greyed out counts: a code page has
        no `o` or `r` at all)."""
        from textual.actions import parse

        where, name, parameters = parse(binding.action)
        return (self if where == "app" else self.screen).check_action(name, parameters) is not False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``?`` in a text box types a question mark: the footer greys the key out there."""
        if action == "help" and isinstance(self.focused, Input):
            return None
        return True

    def run_outside(self, command: list[str]) -> bool:
        """Run ``command`` (an editor) in the terminal, the TUI suspended until it exits;
        False (and a notification) when it cannot start or fails."""
        try:
            done = self._run_suspended(command)
        except OSError as exc:
            self.notify(f"cannot run {command[0]}: {exc.strerror or exc}", title="Editor", severity="error")
            return False
        if done.returncode != 0:
            self.notify(f"{command[0]} exited with code {done.returncode}", title="Editor", severity="warning")
        return done.returncode == 0

    def _run_suspended(self, command: list[str]) -> subprocess.CompletedProcess:
        try:
            with self.suspend():
                return subprocess.run(command, check=False)
        except SuspendNotSupported:  # no terminal to hand over (tests, a web driver)
            return subprocess.run(command, check=False, stdin=subprocess.DEVNULL, capture_output=True)

    def hand_over(self, command: list[str], what: str, title: str) -> bool:
        """Start ``command`` (the system's URL opener) detached from the TUI; False (and one
        error titled ``title``, saying what is missing) when it cannot start."""
        try:
            subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        except FileNotFoundError:
            package = " (it comes with xdg-utils)" if command[0] == "xdg-open" else ""
            self.notify(f"{command[0]} is not installed (not found on $PATH): install it{package}, "
                        f"or open {what} yourself",
                        title=title, severity="error", timeout=15)
            return False
        except OSError as exc:
            self.notify(f"cannot run {command[0]} ({exc.strerror or exc}): open {what} yourself",
                        title=title, severity="error", timeout=15)
            return False
        return True

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The command palette: Textual's own commands (its key panel replaced by the key
        list), then one per screen and the index."""
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command
        yield SystemCommand("Keys", "Every key of this screen and the global ones (?)", self.action_help)
        for mode, title, help_text in SCREENS:
            yield SystemCommand(f"Go to {title}", help_text, lambda m=mode: self.action_go_to(m))
        yield SystemCommand("Index now", "Bring the index up to date (F5)", self.action_index)
        yield SystemCommand("Refresh index health", "Re-read stale files and the watcher state",
                            self.refresh_health)


def tui_bindings(node: object) -> list[Binding]:
    """The keys ``node``'s classes in ``tui`` define (not those Textual's widgets bring)."""
    return [b for cls in type(node).__mro__ if cls.__module__.startswith("tui.")
            for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]


def own_binding(node: object, binding: Binding) -> bool:
    """A key this app defines (on ``node``'s class or a base of it in ``tui``), not one
    Textual's widgets bring (cursor keys, scrolling): those work as in every Textual app."""
    return (binding.key, binding.action) in {(b.key, b.action) for b in tui_bindings(node)}
