"""Search: results as you type (debounced, in a worker), Enter opens the note at the section."""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.events import Key
from textual.widgets import Footer, Input, Select, Static

from tui.formatting import not_answered
from tui.keys import HELP_KEY, MODE_KEYS, NEXT_PANE
from tui.messages import IndexChanged
from tui.screens.keyed import KeyedScreen
from tui.search_options import ARMS, QueryHistory, filter_choices, history_path, load_history, save_history
from tui.widgets.hit_list import HitList
from tui.widgets.query_input import QueryInput
from tui.widgets.vault_header import VaultHeader
from vault_engine.model import SearchResult
from vault_engine.vault import Vault

DEBOUNCE_SECONDS = 0.25
HITS = 20
SEARCHING = "searching (the first hybrid search loads the model)…"
SLOW_SECONDS = 0.4  # show the loading indicator only when a search is this slow (model loading)
EMPTY_HELP = ("Type to search every section of the vault: words, a question, a file name.\n"
              "↓ moves to the results, Enter opens a note at the section, Esc comes back here.\n"
              "F2 dead ends · F3 resume · F4 decay · F5 index · F6 find · Ctrl+P commands")


class SearchScreen(KeyedScreen):
    """A query box over a list of hits."""

    SCREEN_NAME = "Search"
    CSS_PATH = "search.tcss"
    AUTO_FOCUS = "#query"
    BINDINGS = [
        Binding("down", "focus_hits", "Results", key_display="↓"),
        Binding("escape", "focus_query", "Back to the query box", show=False),
        Binding("up", "history_back", "History", key_display="↑"),
        Binding("ctrl+down", "history_forward", "Newer query in the history", show=False),
        *NEXT_PANE, *MODE_KEYS, HELP_KEY,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.history = QueryHistory()  # this vault's, read on mount
        self.recalled: str | None = None  # the query ↑/↓ put in the box
        self.history_saved = True  # False once a write failed: say so once, not at every query
        self.shown_for = ""  # the query whose hits are listed
        self.focus_pending = False  # ↓ typed ahead of the hits: the focus goes to them when they come
        self.open_pending = False  # ... and an Enter after it: the first of them opens

    def compose(self) -> ComposeResult:
        yield VaultHeader("Search")
        yield QueryInput(placeholder="Search the vault…", id="query", select_on_focus=False)
        with Horizontal(id="search-filters"):
            yield Select((), prompt="any kind", id="kind-filter", compact=True)
            yield Select((), prompt="any project", id="project-filter", compact=True)
            yield Select((), prompt="any tap", id="tap-filter", compact=True)
            yield Select(ARMS, allow_blank=False, id="arms-filter", compact=True,
                         value="hybrid" if self.app.semantic else "lexical")
        with VerticalScroll(id="search-summary-scroll") as notices:  # over two fifths of the screen:
            notices.can_focus = False  # its scrollbar says there is more (it had been cut unmarked, qa152)
            yield Static(EMPTY_HELP, id="search-summary", markup=False)
        yield HitList(id="hits")
        yield Footer(compact=True)

    @on(Input.Changed, "#query")
    def query_changed(self, event: Input.Changed) -> None:
        """Every keystroke: search again (debounced in the worker); a ↓ typed ahead still waits."""
        if event.value != self.recalled:
            self.history.typed(event.value)
        self.run_search(event.value, then_focus=self.focus_pending)

    @on(Input.Submitted, "#query")
    def query_submitted(self, event: Input.Submitted) -> None:
        """Enter in the box: remember the query, go to the hits. After a ↓ typed ahead of the
        hits (the focus is still here, waiting for them), it is the list's Enter: it opens the
        first hit once they come (a paste of "query ↓ Enter" lost it)."""
        self.remember(event.value)
        if self.focus_pending:
            self.open_pending = True
            return
        self.action_focus_hits()

    def on_mount(self) -> None:
        self.history = load_history(history_path(self.app.root))  # a few KB at most
        self.load_filters()

    @work(exclusive=True, group="search-filters", exit_on_error=False)
    async def load_filters(self) -> None:
        """Fill the filters with this vault's kinds, projects and taps (kept when still valid)."""
        choices = await self.app.browse(filter_choices)
        if choices is None:
            return
        for select_id, values in (("#kind-filter", choices.kinds), ("#project-filter", choices.projects),
                                  ("#tap-filter", choices.taps)):
            select = self.query_one(select_id, Select)
            chosen = select.value
            with select.prevent(Select.Changed):
                select.set_options((value, value) for value in values)
                if chosen in values:
                    select.value = chosen

    @on(Select.Changed)
    def filter_changed(self) -> None:
        """A filter or the arms changed: search again at once."""
        self.run_search(self.query_one("#query", Input).value, debounce=False)

    def selected(self, select_id: str) -> str | None:
        value = self.query_one(select_id, Select).value
        return None if value is Select.NULL else value

    def remember(self, query: str) -> None:
        """Put ``query`` in the history, and the history on disk for the next session."""
        self.history.add(query)
        try:
            save_history(self.history, history_path(self.app.root))
        except OSError as exc:
            if self.history_saved:
                self.notify(f"the query history cannot be saved ({exc.strerror or exc}): it lasts "
                            "until the TUI closes", title="History", severity="warning")
            self.history_saved = False

    def action_history_back(self) -> None:
        """↑ in the box: the previous query settled on (Enter, or a hit opened)."""
        query = self.history.back()
        if query is not None:
            self._recall(query)

    def action_history_forward(self) -> None:
        self._recall(self.history.forward())

    def _recall(self, query: str) -> None:
        box = self.query_one("#query", Input)
        self.recalled = query  # not typed: the walk goes on from here
        box.value = query
        box.cursor_position = len(query)
        box.focus()

    def on_index_changed(self, _: IndexChanged) -> None:
        self.load_filters()
        self.run_search(self.query_one("#query", Input).value, debounce=False)

    def action_focus_hits(self) -> None:
        """To the hits, once they are the ones of the query in the box: typing may be ahead
        of the debounce, and the previous query's hits must not take the Enter that follows."""
        query = self.query_one("#query", Input).value
        if query.strip() != self.shown_for:
            self.focus_pending = True
            self.run_search(query, debounce=False, then_focus=True)
            return
        self._focus_listed()

    def _focus_listed(self) -> None:
        hits = self.query_one(HitList)
        self.focus_pending, opening = False, self.open_pending
        self.open_pending = False
        if hits.option_count:
            hits.focus()
            if opening and hits.highlighted is not None:
                self.app.open_note(hits.hits[hits.highlighted].ref)

    def action_focus_query(self) -> None:
        """Esc: back to the box, the query selected, so typing starts a new one (arrows edit it)."""
        box = self.query_one("#query", Input)
        box.focus()
        box.select_all()

    def on_key(self, event: Key) -> None:
        """Typing while the hits have the focus goes on in the query box. And a terminal
        sends Esc with a letter typed right after it as one Alt+letter: that is Esc (back to
        the box, a new query) then the letter. The box takes the focus at once, so the keys
        already on their way go to the list first (it was focused when they arrived) and come
on here: they go on in the box too."""
        escaped = event.key.startswith("alt+")
        char = event.character or (event.key[4:] if escaped else None)  # some terminals send no character
        if not char or len(char) != 1 or not char.isprintable():
            return  # the box itself never lets a printable key through to here
        if not escaped and event.key in self.active_bindings:
            return  # a key of its own: ? and the like
        event.stop()
        event.prevent_default()
        box = self.query_one("#query", Input)
        self.set_focus(box)
        box.value = char if escaped else box.value + char
        box.cursor_position = len(box.value)

    @on(HitList.Opened)
    def open_hit(self, event: HitList.Opened) -> None:
        """Enter on a hit: open the note at its section (the query goes into the history)."""
        self.remember(self.query_one("#query", Input).value)
        self.app.open_note(event.hit.ref)

    @work(exclusive=True, group="search", exit_on_error=False)
    async def run_search(self, query: str, debounce: bool = True, then_focus: bool = False) -> None:
        """Debounce by sleeping first: a newer keystroke cancels this worker while it sleeps."""
        if debounce:
            await asyncio.sleep(DEBOUNCE_SECONDS)
        if not query.strip():
            self._show(None, EMPTY_HELP)
            if then_focus:
                self._focus_listed()  # nothing to go to: what waited for hits is dropped
            return
        slow = self.set_timer(SLOW_SECONDS, lambda: self._busy(True))
        said: list[str] = []
        try:
            result = await self.app.query(Vault.search, query, k=HITS, kind=self.selected("#kind-filter"),
                                          project=self.selected("#project-filter"),
                                          tap=self.selected("#tap-filter"),
                                          lexical_only=self.selected("#arms-filter") == "lexical",
                                          now=self.app.now, said=said)
        finally:
            slow.stop()
            self._busy(False)
        if result is not None:
            self._show(result, summary(result), query.strip())
        else:  # no hits of another query stay under this one
            self._show(None, not_answered(self.app.health, said, "searched"), query.strip())
        if then_focus:
            self._focus_listed()

    def _busy(self, busy: bool) -> None:
        """A spinner over the hits and a word in the header, for a slow search (the first
        hybrid search of a session loads the embedding model)."""
        self.query_one(HitList).loading = busy
        if busy:
            self.app.activity = SEARCHING
        elif self.app.activity == SEARCHING:
            self.app.activity = ""

    def _show(self, result: SearchResult | None, text: str, query: str = "") -> None:
        self.shown_for = query
        self.query_one("#search-summary", Static).update(text)
        self.query_one(HitList).show(result)


def summary(result: SearchResult) -> str:
    """The line above the hits: how many, which arms ran, and any notice."""
    arms = " + ".join(result.arms)
    if not result.hits:
        # why, as the CLI says it (qa145: the TUI had said only "Try other words")
        why = f" ({result.confidence_reason})" if result.confidence_reason else ""
        line = f"No match for “{result.query}” ({arms}): a miss, not a guess{why}. Try other words."
    else:
        count = "1 hit" if len(result.hits) == 1 else f"{len(result.hits)} hits"
        line = f"{count} ({arms}) · Enter opens the note at the section"
        line += "\n" + result.confidence_line  # as the CLI leads with it: trust the first hit, or look
    return "\n".join([line, *result.notices])
