"""Resume screen: projects on the left, the brief an arriving agent reads on the right."""

import pytest
from textual.widgets import Markdown

from tests.tui.conftest import SMALL, TUI_NOW, WIDE, settle
from tui.pages import read_resume_page
from tui.screens.note import NoteScreen
from tui.widgets.project_list import ProjectList
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio


def brief(root, project):
    """The brief as the screen shows it: the agent's Markdown, resolved wikilinks as links."""
    with Vault(root) as vault:
        return read_resume_page(vault, project, 2000, TUI_NOW)


async def open_resume(app, pilot):
    await pilot.press("f3")
    await settle(pilot)
    return app.screen.query_one(ProjectList)


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_projects_on_the_left_and_the_first_ones_brief_on_the_right(make_app, indexed_vault, size):
    projects = sorted(p.name for p in (indexed_vault / "projects").iterdir())  # folder = project
    app = make_app()
    async with app.run_test(size=size) as pilot:
        listed = await open_resume(app, pilot)
        assert [listed.get_option_at_index(n).id for n in range(listed.option_count)] == projects
        assert app.screen.query_one("#brief", Markdown).source == brief(indexed_vault, projects[0]).markdown


async def test_moving_to_another_project_shows_its_brief(make_app, indexed_vault):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        listed = await open_resume(app, pilot)
        await pilot.press("down")
        await settle(pilot)
        project = listed.get_option_at_index(1).id
        shown = app.screen.query_one("#brief", Markdown).source
        assert shown == brief(indexed_vault, project).markdown and f"Resume: {project}" in shown


async def test_enter_opens_the_latest_checkpoint(make_app, indexed_vault):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        listed = await open_resume(app, pilot)
        expected = brief(indexed_vault, listed.get_option_at_index(0).id).brief.checkpoint.ref
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.page.ref == expected


async def test_enter_before_the_brief_came_opens_its_checkpoint_once_it_comes(make_app, indexed_vault, monkeypatch):
    """It had said "drone-audio has no checkpoint yet", of a project with one (qa153)."""
    import time

    import tui.screens.resume as screen

    def slow(*args, **kwargs):
        time.sleep(0.5)  # a larger vault's brief
        return read_resume_page(*args, **kwargs)

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        listed = await open_resume(app, pilot)
        project = listed.get_option_at_index(1).id
        expected = brief(indexed_vault, project).brief.checkpoint.ref
        monkeypatch.setattr(screen, "read_resume_page", slow)
        await pilot.press("down", "enter")
        assert not app._notifications  # no word before the brief: it is not known yet
        await settle(pilot, rounds=12)
        assert isinstance(app.screen, NoteScreen) and app.screen.page.ref == expected
        assert not app._notifications


async def test_a_vault_without_projects_says_how_to_start_one(make_vault):
    from tui import create_app

    root = make_vault({"notes/a.md": "# A\n\nno project here\n"})
    with Vault(root) as vault:
        vault.index(embed=False, now=TUI_NOW)
    app = create_app(root, now=TUI_NOW, semantic=False)
    async with app.run_test(size=SMALL) as pilot:
        listed = await open_resume(app, pilot)
        assert listed.option_count == 0
        shown = app.screen.query_one("#brief", Markdown).source
        assert "No projects yet" in shown and "vault-engine checkpoint new" in shown


async def test_the_briefs_wikilinks_are_links_to_what_the_index_resolved(make_app, indexed_vault):
    with Vault(indexed_vault) as vault:
        raw = vault.resume("billing-service", max_tokens=2000, now=TUI_NOW).markdown
    assert "[[auth-sessions#Decision]]" in raw
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        listed = await open_resume(app, pilot)
        listed.highlighted = [listed.get_option_at_index(n).id for n in range(listed.option_count)].index(
            "billing-service")
        await settle(pilot)
        body = app.screen.query_one("#brief", Markdown)
        assert "[[auth-sessions#Decision]]" not in body.source and "](vault-link:" in body.source
        number = app.screen.targets.index("specs/auth-sessions.md#Decision")
        body.post_message(Markdown.LinkClicked(body, f"vault-link:{number}"))  # a click on it
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.page.ref == "specs/auth-sessions.md#Decision"


def block_rows(screen, needle: str) -> list[str]:
    """The rows of the brief's block whose text holds ``needle``, as drawn."""
    from textual.widgets._markdown import MarkdownParagraph

    block = next(b for b in screen.query_one("#brief", Markdown).query(MarkdownParagraph) if needle in str(b.content))
    return [strip.text.strip() for strip in block.render_lines(block.size.region)]


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_the_checkpoint_path_wraps_between_words_never_inside_one(make_app, indexed_vault, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        listed = await open_resume(app, pilot)
        path = brief(indexed_vault, listed.get_option_at_index(0).id).brief.checkpoint.ref
        folder, _, name = path.rpartition("/")
        rows = block_rows(app.screen, name)
        words = " ".join(rows).split()
        assert name in words and f"{folder}/," in words, rows  # each whole on its row
        assert all(row.split()[-1] in words for row in rows)


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_the_briefs_links_are_followed_from_the_keyboard(make_app, indexed_vault, size):
    from tui.widgets.markdown_pane import MarkdownPane

    app = make_app()
    async with app.run_test(size=size) as pilot:
        listed = await open_resume(app, pilot)
        page = brief(indexed_vault, listed.get_option_at_index(0).id)
        await pilot.press("tab", "tab")  # from the projects into the brief, then its first link
        pane = app.screen.query_one(MarkdownPane)
        assert app.focused is pane and pane.link == 0
        await pilot.press("enter")  # the first link names the checkpoint
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.page.ref == page.brief.checkpoint.ref
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is pane and pane.link == 0  # back where it was
        await pilot.press("tab")  # the next link: a wikilink of the checkpoint's summary
        number = int(pane.spots()[pane.link].href.removeprefix("vault-link:"))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.history[0].ref == page.targets[number]
