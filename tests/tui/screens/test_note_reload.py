"""The note viewer after an index run (F5, or one finished in a terminal): the note is read
again where the reader was, and a note gone from the vault is said to be gone."""

import pytest

from tests.tui.conftest import INDEX_RUNS, SMALL, WIDE, index_in_a_terminal, settle, wait_until
from tui.screens.note import NoteScreen
from tui.widgets.note_body import NoteBody

pytestmark = pytest.mark.anyio


async def open_glossary(app, pilot):
    app.poll_freshness()  # the poll knows the index run before the one to come
    app.open_note("glossary.md#Idempotency key")
    await settle(pilot)
    assert isinstance(app.screen, NoteScreen)
    return app.screen


@INDEX_RUNS
async def test_the_note_shown_is_read_again_where_the_reader_was(make_app, indexed_vault, index):
    note = indexed_vault / "glossary.md"
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_glossary(app, pilot)
        pane = screen.query_one("#note-scroll")
        pane.scroll_to(y=pane.scroll_y + 2, animate=False, immediate=True)  # the reader scrolled on
        await settle(pilot)
        where = pane.scroll_y
        assert where > 0
        note.write_text(note.read_text().replace("A client-chosen token", "A QA-CHANGED client-chosen token"))
        await index(app, pilot, indexed_vault)
        await wait_until(pilot, lambda: "QA-CHANGED" in screen.query_one(NoteBody).source, "the new text")
        assert app.screen is screen and pane.scroll_y == where
        assert "up to date" in app.health.text
        assert not any(n.severity == "error" for n in app._notifications)


@INDEX_RUNS
async def test_a_note_gone_from_the_vault_is_said_to_be_gone(make_app, indexed_vault, index):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_glossary(app, pilot)
        (indexed_vault / "glossary.md").unlink()
        await index(app, pilot, indexed_vault)
        title = screen.query_one("#note-title")
        await wait_until(pilot, lambda: title.has_class("-gone"), "the note said to be gone")
        assert str(title.render()).startswith("glossary.md is gone from the vault")
        assert screen.page is None  # e, o, r, c: no note to act on, and greyed out (r said nothing, qa38)
        assert all(screen.check_action(action, ()) is None for action in ("reinforce", "edit", "obsidian", "copy_ref"))
        await pilot.press("r")
        assert app.screen is screen  # no dialog for a note that is gone


async def test_at_80_columns_a_gone_notes_obsidian_key_stays_out_of_the_footer(make_app, indexed_vault):
    """Greyed out, `o Obsidian` came back into a narrow footer, where it is left out, and ran
    past its edge (qa145)."""
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_glossary(app, pilot)
        assert screen.check_action("obsidian", ()) is False  # the footer's width leaves it out
        (indexed_vault / "glossary.md").unlink()
        await index_in_a_terminal(app, pilot, indexed_vault)
        await wait_until(pilot, lambda: screen.page is None, "the note said to be gone")
        assert screen.check_action("obsidian", ()) is False and screen.check_action("reinforce", ()) is None


async def test_a_section_renamed_since_shows_the_whole_note_again(make_app, indexed_vault):
    note = indexed_vault / "glossary.md"
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_glossary(app, pilot)
        note.write_text(note.read_text().replace("## Idempotency key", "## Idempotency keys (QA)"))
        await index_in_a_terminal(app, pilot, indexed_vault)
        await wait_until(pilot, lambda: "(QA)" in screen.query_one(NoteBody).source, "the new text")
        assert screen.page.ref == "glossary.md" and not screen.query_one("#note-title").has_class("-gone")
