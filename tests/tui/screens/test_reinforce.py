"""Reinforcing from the TUI: asked who and why (the last answers remembered), confirmed,
and undone with ``u`` while the TUI is open: an undo line in the durable ledger."""

import json

import pytest
from textual.widgets import Input

from tests.tui.conftest import SMALL, TUI_NOW, WIDE, ledger_lines, settle
from tui.screens.decay import DecayScreen
from tui.screens.note import NoteScreen
from tui.screens.reinforce import ReinforceDialog
from tui.widgets.decay_table import DecayTable
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio
SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
DOC = "specs/drop-test-protocol.md"


def records(root):
    return [json.loads(line) for line in ledger_lines(root)]


def reinforcements(root, ref):
    with Vault(root) as vault:
        return {row.ref: row for row in vault.decay_report(now=TUI_NOW)}[ref].reinforcements


async def answer(pilot, by=None, why=None):
    """Fill in the dialog as a user would (select-all and type), then Enter."""
    dialog = pilot.app.screen
    assert isinstance(dialog, ReinforceDialog)
    for box_id, text in (("#reinforce-by", by), ("#reinforce-why", why)):
        if text is not None:
            box = dialog.query_one(box_id, Input)
            box.focus()
            box.value = ""
            await pilot.press(*text)
    dialog.query_one("#reinforce-why", Input).focus()
    await pilot.press("enter")
    await settle(pilot)


@SIZES
async def test_r_asks_who_and_why_then_logs_them(make_app, indexed_vault, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        app.open_note(f"{DOC}#Procedure")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert ledger_lines(indexed_vault) == []  # nothing logged before the answer
        await answer(pilot, by="ann", why="used it for the drop rig")
        assert isinstance(app.screen, NoteScreen)
    record = records(indexed_vault)[-1]
    assert (record["event"], record["path"], record["at"]) == ("reinforce", DOC, TUI_NOW)
    assert (record["by"], record["why"]) == ("ann", "used it for the drop rig")


async def test_the_next_dialog_remembers_the_last_answers(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await answer(pilot, by="bob", why="still the reference")
        await pilot.press("down", "r")
        await settle(pilot)
        dialog = app.screen
        assert dialog.query_one("#reinforce-by", Input).value == "bob"
        assert dialog.query_one("#reinforce-why", Input).value == "still the reference"


async def test_esc_cancels_and_nothing_is_logged(make_app, indexed_vault):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DecayScreen)
    assert ledger_lines(indexed_vault) == []


@SIZES
async def test_u_undoes_the_last_reinforcement_with_a_reversal_line(make_app, indexed_vault, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        table = app.screen.query_one(DecayTable)
        ref = table.selected_ref()
        bar_before = str(table.get_cell(ref, table.ordered_columns[2].key))
        await pilot.press("r")
        await settle(pilot)
        await answer(pilot, why="checking undo")
        assert str(table.get_cell(ref, table.ordered_columns[2].key)).endswith("1.00")
        await pilot.press("u")
        await settle(pilot)
        assert str(table.get_cell(ref, table.ordered_columns[2].key)) == bar_before
        await pilot.press("u")  # nothing left to undo in this session: says so
        await settle(pilot)
        assert any("nothing to undo" in n.message for n in app._notifications)
    assert [r["event"] for r in records(indexed_vault)] == ["reinforce", "undo"]
    assert reinforcements(indexed_vault, ref) == 0
