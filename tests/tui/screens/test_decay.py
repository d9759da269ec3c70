"""Decay screen: documents of decaying taps with their multiplier; reinforce from here."""

import json
import tomllib

import pytest

from tests.tui.conftest import SMALL, TUI_NOW, WIDE, ledger_lines, settle
from tui.screens.note import NoteScreen
from tui.widgets.decay_table import DecayTable
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio


def report(root):
    with Vault(root) as vault:
        return {row.ref: row for row in vault.decay_report(now=TUI_NOW)}


async def open_decay(app, pilot):
    await pilot.press("f4")
    await settle(pilot)
    return app.screen.query_one(DecayTable)


def cell_text(table, ref, column):
    return str(table.get_cell(ref, table.ordered_columns[column].key))


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_every_decaying_document_is_listed_by_tap_with_its_bar(make_app, indexed_vault, size):
    expected = report(indexed_vault)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        table = await open_decay(app, pilot)
        keys = [row.key.value for row in table.ordered_rows]
        assert sorted(keys) == sorted(expected)
        taps = [expected[k].tap for k in keys]
        assert taps == sorted(taps)  # grouped by tap
        for ref, row in expected.items():
            assert cell_text(table, ref, 2).endswith(f"{row.multiplier:.2f}")
            assert "█" in cell_text(table, ref, 2) or row.multiplier < 0.05


async def test_r_reinforces_the_selected_document_and_its_bar_fills(make_app, indexed_vault):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_decay(app, pilot)
        faded = table.selected_ref()  # the cursor starts on the most faded row of the first tap
        assert report(indexed_vault)[faded].multiplier < 1.0
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("enter")  # the dialog: who and why as suggested
        await settle(pilot)
        record = json.loads(ledger_lines(indexed_vault)[-1])
        assert (record["ref"], record["at"]) == (faded, TUI_NOW)
        assert cell_text(table, faded, 2) == "██████████ 1.00"
        assert table.selected_ref() == faded  # the cursor followed it down its group
        assert cell_text(table, faded, 4).startswith("2026-11-29 ×1")
    assert report(indexed_vault)[faded].multiplier == 1.0


async def test_the_reinforce_dialog_names_a_notion_page_by_its_title(make_app, indexed_vault):
    """"Reset the age of notion://2b6e9d14..." named no page a person knows (qa68)."""
    pages = {ref: row for ref, row in report(indexed_vault).items() if ref.startswith("notion://")}
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_decay(app, pilot)
        ref = next(iter(pages))
        table.move_cursor(row=table.get_row_index(ref))
        await pilot.press("r")
        await settle(pilot)
        said = str(app.screen.query_one("#reinforce-what").render())
        assert said.startswith(f"Reset the age of {pages[ref].title} ({ref}): it proved useful."), said


async def test_enter_opens_the_document(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_decay(app, pilot)
        ref = table.selected_ref()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.page.ref == ref


async def test_a_vault_without_decaying_taps_says_how_to_add_one(make_vault):
    from tui import create_app

    root = make_vault({"notes/a.md": "# A\n\nplain note in the vault tap, which never decays\n"})
    with Vault(root) as vault:
        vault.index(embed=False, now=TUI_NOW)
    app = create_app(root, now=TUI_NOW, semantic=False)
    async with app.run_test(size=SMALL) as pilot:
        table = await open_decay(app, pilot)
        assert table.row_count == 0
        said = str(app.screen.query_one("#decay-summary").render())
        toml = said[said.index("[taps."):said.index("then press")]
        assert tomllib.loads(toml)["taps"]["specs"]["half_life_days"] == 30  # pasted as shown, it is valid


async def test_at_80_columns_a_reinforced_row_is_whole_and_the_names_are_cut(make_app, indexed_vault):
    """The table had been 81 columns in a 79-column pane: `2026-12-07 ×`, the count lost (qa153)."""
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        table = await open_decay(app, pilot)
        faded = table.selected_ref()
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert table.virtual_size.width <= table.size.width and table.max_scroll_x == 0
        assert cell_text(table, faded, 4) == "2026-11-29 ×1"
        await pilot.resize_terminal(*WIDE)
        await settle(pilot)
        names = [str(table.get_cell(ref, table.ordered_columns[0].key)) for ref in table.titles]
        assert sorted(names) == sorted(table.titles.values())  # room for the whole names again
