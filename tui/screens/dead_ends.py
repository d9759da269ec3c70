"""Dead ends: every approach ruled out, filterable, and a box to check a new proposal."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Input, Select, Static

from tui.formatting import iso_date, not_answered, unusable_text
from tui.keys import HELP_KEY, MODE_KEYS, NEXT_PANE
from tui.messages import IndexChanged
from tui.screens.keyed import KeyedScreen
from tui.widgets.dead_end_table import DeadEndTable
from tui.widgets.proposal_box import ProposalBox
from tui.widgets.vault_header import VaultHeader
from vault_engine.vault import Vault

DEBOUNCE_SECONDS = 0.4
SOURCES = (("checkpoints", "checkpoint"), ("working notes", "working note"), ("decision records", "decision record"))
EMPTY = ("No dead ends recorded yet. An agent records one in the Failed list of a checkpoint:\n"
         "vault-engine checkpoint new --project P --agent A --failed \"what — why\"\n"
         "or with a DEADEND: line in a working note; a decision record under decisions/ lists the options\n"
         "it rejected (templates/decision-record.md). Then press F5 to index.")


class DeadEndsScreen(KeyedScreen):
    """What was ruled out, by whom, when and why."""

    SCREEN_NAME = "Dead ends"
    CSS_PATH = "dead_ends.tcss"
    WIDE_FOOTER = 130  # columns from which its keys and the function keys' names fit
    AUTO_FOCUS = "DeadEndTable"
    BINDINGS = [
        Binding("p", "focus_proposal", "Propose"),
        Binding("o", "open_match", "Open match", tooltip="Open the note of the ruling the proposal raised"),
        Binding("escape", "back_out", "Back to the table, then Search", show=False),
        *NEXT_PANE, *MODE_KEYS, HELP_KEY,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rulings: list[Any] = []
        self.matched: tuple[Any, ...] = ()  # what the last proposal raised, best first
        self.matched_for: str | None = None  # the proposal those answer
        self.open_when_answered: str | None = None  # Enter pressed before its proposal was answered

    def compose(self) -> ComposeResult:
        yield VaultHeader("Dead ends")
        with Horizontal(id="deadend-filters"):
            yield Select((), prompt="All projects", id="project-filter")
            yield Select(SOURCES, prompt="All sources", id="source-filter")
            yield Static("", id="deadend-count", markup=False)
        yield DeadEndTable()
        yield Static("", id="deadend-detail", markup=False)
        yield ProposalBox()
        yield Footer(compact=True)

    def action_focus_proposal(self) -> None:
        self.query_one("#proposal").focus()

    def on_screen_resume(self) -> None:
        self.reload()

    def on_index_changed(self, _: IndexChanged) -> None:
        """Reload the table, and check the proposal in the box again: its answer was the old
        index's (a miss then may be a hit now)."""
        self.reload()
        self.check_again()

    @on(Select.Changed, "#project-filter")
    def project_changed(self) -> None:
        """The answer is for the chosen project (rulings of others are weaker evidence, said
        so): check the proposal in the box again for the new one."""
        self.check_again()

    def check_again(self) -> None:
        proposal = self.query_one("#proposal", Input).value
        if proposal.strip():
            self.check(proposal, debounce=False)

    @work(exclusive=True, group="dead-ends", exit_on_error=False)
    async def reload(self) -> None:
        """Fetch every dead end, refresh the project filter, keep the current choice."""
        rulings = await self.app.browse(Vault.deadend_list)
        if rulings is None:
            if text := unusable_text(self.app.health):
                self.query_one("#deadend-detail", Static).update(text)
            return
        self.rulings = list(rulings)
        projects = sorted({r.project for r in self.rulings if r.project})
        select = self.query_one("#project-filter", Select)
        chosen = select.value
        select.set_options((p, p) for p in projects)
        if chosen in projects:
            select.value = chosen
        self.apply_filters()

    @on(Select.Changed)
    def apply_filters(self) -> None:
        """Show the dead ends of the chosen project and source."""
        project, source = self.selected("#project-filter"), self.selected("#source-filter")
        shown = filter_rulings(self.rulings, project, source)
        self.query_one(DeadEndTable).show(shown)
        count = self.query_one("#deadend-count", Static)
        count.update(f"{len(shown)} of {len(self.rulings)}, newest first · Enter opens the note"
                     if self.rulings else "none recorded")
        if not self.rulings:
            self.query_one("#deadend-detail", Static).update(EMPTY)
        elif not shown:  # else the last row's ruling stayed, read as one of these (qa22 F2)
            self.query_one("#deadend-detail", Static).update(
                "No dead end matches these filters: choose All projects or All sources to see the others.")

    def selected(self, select_id: str) -> str | None:
        """The value of a filter, None for "All"."""
        value = self.query_one(select_id, Select).value
        return None if value is Select.NULL else value

    @on(DeadEndTable.Highlighted)
    def show_detail(self, event: DeadEndTable.Highlighted) -> None:
        """The highlighted dead end in full under the table."""
        if event.ruling is not None:
            self.query_one("#deadend-detail", Static).update(detail(event.ruling))

    @on(DeadEndTable.Jump)
    def jump(self, event: DeadEndTable.Jump) -> None:
        """Open the note the dead end was written in, at its line."""
        self.app.open_note(event.ref, event.line)

    @on(ProposalBox.Proposed)
    def proposal_changed(self, event: ProposalBox.Proposed) -> None:
        """Check the proposal once typing pauses; what the last one raised is no answer to it
        (its `◆` marks and `o` had stayed until the check answered, qa153)."""
        self._matched((), None)
        self.check(event.proposal)

    @work(exclusive=True, group="deadend-check", exit_on_error=False)
    async def check(self, proposal: str, debounce: bool = True) -> None:
        """Debounced like search: a newer keystroke cancels this worker while it sleeps."""
        if debounce:
            await asyncio.sleep(DEBOUNCE_SECONDS)
        box = self.query_one(ProposalBox)
        # while a proposal is answered, the answer takes the selected ruling's pane: at 80x24 it
        # had ended before "Why it failed" (qa106)
        self.set_class(bool(proposal.strip()), "-answering")
        if not proposal.strip():
            box.show_answer(None)
            self._matched((), proposal)
            return
        said: list[str] = []
        answer = await self.app.query(Vault.deadend_check, proposal,
                                      project=self.selected("#project-filter"),
                                      lexical_only=not self.app.semantic, said=said)
        if answer is not None:
            # the CLI's text, a miss's closest rulings too (qa55: a near miss read as a plain
            # miss); what it says on stderr beside it ("no word was compared") goes under it here
            notes = "".join(f"\n\n{notice}" for notice in answer.notices)
            box.show_answer(answer.printed + notes, hit=bool(answer.rulings))
            self._matched(answer.rulings, proposal)
        else:  # no rulings of another proposal stay marked ("o" would open one)
            box.show_answer(not_answered(self.app.health, said, "checked"))
            self._matched((), proposal)
        if self.open_when_answered == proposal:
            self.open_when_answered = None
            self.action_open_match()

    def _matched(self, rulings: tuple[Any, ...], proposal: str | None) -> None:
        self.matched, self.matched_for = tuple(rulings), proposal
        self.query_one(DeadEndTable).mark({(r.path, r.line) for r in rulings})
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``o`` is greyed out until a proposal raised a ruling."""
        if action == "open_match":
            return bool(self.matched) or None
        return super().check_action(action, parameters)

    @on(ProposalBox.OpenMatch)
    def action_open_match(self) -> None:
        """Open the best ruling the proposal in the box raised, at its line (Enter in the box,
        or o); pressed before it was answered, once it is: the previous proposal's ruling had
        opened (qa153)."""
        proposal = self.query_one("#proposal", Input).value
        if self.matched_for != proposal:
            self.open_when_answered = proposal
            self.check(proposal, debounce=False)
        elif self.matched:
            self.app.open_note(self.matched[0].path, self.matched[0].line)


def filter_rulings(rulings: Sequence[Any], project: str | None, source: str | None) -> list[Any]:
    """The rulings of ``project`` and ``source`` (None: any), order kept (newest first); a
    project's include those of no project, as `deadend list --project` does (a team-wide
    decision record holds for every project; the filter had dropped them, qa145)."""
    return [r for r in rulings
            if (project is None or r.project in (project, None)) and (source is None or r.source == source)]


def detail(ruling: Any) -> str:
    """The whole ruling: what, why, who, when, where."""
    reason = ruling.reason or "no reason written down"
    # what a record does not give is said so, as the CLI says it: "an unnamed agent" (qa76)
    missing = ruling.not_given
    when = iso_date(ruling.when) if ruling.when is not None or "date" not in missing else "no date given"
    who = ruling.agent or ("no authors given" if "authors" in missing else "an unnamed agent")
    later = ruling.chosen_since
    since = f"\nChosen since: {later.said}: this dead end may no longer hold" if later else ""
    return (f"{ruling.text}\nWhy: {reason}\n"
            f"{when} · {who} · {ruling.project or 'no project'} · {ruling.source}\n"
            f"{ruling.ref}{since}")
