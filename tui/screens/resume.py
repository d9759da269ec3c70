"""Resume: projects on the left, the selected project's resume brief on the right."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.widgets import Footer, Markdown

from tui.formatting import LINK_SCHEME, unusable_text
from tui.keys import HELP_KEY, MODE_KEYS, NEXT_PANE
from tui.messages import IndexChanged
from tui.pages import read_resume_page
from tui.screens.keyed import KeyedScreen
from tui.widgets.markdown_pane import MarkdownPane
from tui.widgets.project_list import ProjectList
from tui.widgets.vault_header import VaultHeader
from vault_engine.vault import Vault

NARROW_COLUMNS = 90
BRIEF_TOKENS = 2000  # what an arriving agent gets by default
NO_PROJECTS = ("# No projects yet\n\nA project is a folder `projects/<name>/`, or `project:` in a "
               "note's frontmatter. Start one with a checkpoint:\n\n"
               "```\nvault-engine checkpoint new --project drone-audio --agent me --summary \"...\"\n```\n\n"
               "then press **F5** to index.")


class ResumeScreen(KeyedScreen):
    """Where each project left off, as an arriving agent reads it."""

    SCREEN_NAME = "Resume"
    CSS_PATH = "resume.tcss"
    WIDE_FOOTER = 110  # columns from which its keys and the function keys' names fit
    AUTO_FOCUS = "ProjectList"
    BINDINGS = [Binding("escape", "back_out", "Back to the projects, then Search", show=False),
                *NEXT_PANE, *MODE_KEYS, HELP_KEY]

    def __init__(self) -> None:
        super().__init__()
        self.project: str | None = None
        self.brief: Any | None = None  # the ResumeBrief shown
        self.targets: tuple[str, ...] = ()  # where its links go (tui/pages.py)
        self.open_when_briefed: str | None = None  # Enter pressed on a project before its brief came

    def compose(self) -> ComposeResult:
        yield VaultHeader("Resume")
        with Horizontal(id="resume-main"):
            yield ProjectList()
            with MarkdownPane(id="brief-scroll"):
                yield Markdown("", id="brief", open_links=False)
        yield Footer(compact=True)

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")

    def on_screen_resume(self) -> None:
        self.reload()

    def on_index_changed(self, _: IndexChanged) -> None:
        self.reload()

    @work(exclusive=True, group="projects", exit_on_error=False)
    async def reload(self) -> None:
        """Fetch the projects and list them, keeping the one shown."""
        projects = await self.app.browse(Vault.projects)
        if projects is None:
            if text := unusable_text(self.app.health):
                await self.query_one("#brief", Markdown).update(text)
            return
        if not projects:
            await self.query_one("#brief", Markdown).update(NO_PROJECTS)
        self.query_one(ProjectList).show(projects, keep=self.project)

    @on(ProjectList.Chosen)
    def project_chosen(self, event: ProjectList.Chosen) -> None:
        """The cursor moved to a project: show its brief."""
        self.project = event.project
        self.show_brief(event.project)

    @on(ProjectList.Opened)
    def open_checkpoint(self, event: ProjectList.Opened) -> None:
        """Enter on a project: open its latest checkpoint in the note viewer; pressed before
        its brief came, once it comes (it had said "no checkpoint yet" of a project with one, qa153)."""
        brief = self.brief if self.brief is not None and self.brief.project == event.project else None
        if brief is None:
            self.open_when_briefed = event.project
            self.show_brief(event.project)
            return
        if brief.checkpoint is None:
            self.notify(f"{event.project} has no checkpoint yet: an agent writes one with "
                        f"`vault-engine checkpoint new --project {event.project} --agent A`",
                        severity="warning")
            return
        self.app.open_note(brief.checkpoint.ref)

    @work(exclusive=True, group="brief", exit_on_error=False)
    async def show_brief(self, project: str) -> None:
        """Fetch the project's brief (2,000 tokens, as an agent gets it) and render it, its
        wikilinks followable (a click opens the note viewer there)."""
        page = await self.app.browse(read_resume_page, project, BRIEF_TOKENS, self.app.now)
        if page is None:
            return
        self.brief, self.targets = page.brief, page.targets
        shown = self.query_one("#brief", Markdown)
        if page.markdown != shown.source:  # else back from a note it links to: keep the place and link
            self.query_one(MarkdownPane).forget_links()
            await shown.update(page.markdown)
            self.query_one("#brief-scroll").scroll_home(animate=False)
        if self.open_when_briefed == project:
            self.open_when_briefed = None
            self.open_checkpoint(ProjectList.Opened(project))

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A link in the brief: a resolved wikilink opens its note at the section."""
        event.stop()
        if event.href.startswith(LINK_SCHEME):
            number = int(event.href[len(LINK_SCHEME):])
            if number < len(self.targets):
                self.app.open_note(self.targets[number])
