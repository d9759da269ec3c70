"""Snapshots of every screen at 120x36 and 80x24, on an indexed copy of sample-vault/ with
the clock frozen. Review changes with ``pytest tests/tui/test_snapshots.py --snapshot-report``;
accept them with ``--snapshot-update``."""

import pytest
from textual.widgets import Input

from tests.tui.conftest import SMALL, WIDE, settle

SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])


async def typed(pilot, *keys):
    await settle(pilot)
    await pilot.press(*keys)
    await steady(pilot)


async def steady(pilot):
    """Settle, and stop cursors blinking: a snapshot must not depend on when it was taken."""
    await settle(pilot)
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


@SIZES
def test_search(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size,
                        run_before=lambda pilot: typed(pilot, *"token refresh"))


@SIZES
def test_search_empty(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=steady)


@SIZES
def test_note_viewer(snap_compare, make_app, size):
    async def open_note(pilot):
        pilot.app.open_note("specs/audio-pipeline.md#Buffers")
        await steady(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=open_note)


@SIZES
def test_dead_ends(snap_compare, make_app, size):
    keys = ("f2", "p", *"drop the second microphone to save board space")
    assert snap_compare(make_app(), terminal_size=size, run_before=lambda pilot: typed(pilot, *keys))


@SIZES
def test_resume(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=lambda pilot: typed(pilot, "f3"))


@SIZES
def test_decay(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=lambda pilot: typed(pilot, "f4"))


@SIZES
def test_help(snap_compare, make_app, size):
    async def open_help(pilot):
        pilot.app.open_note("specs/audio-pipeline.md#Buffers")
        await steady(pilot)
        await pilot.press("question_mark")
        await steady(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=open_help)


@SIZES
def test_find(snap_compare, code_vault, size):
    from tests.tui.conftest import TUI_NOW
    from tui import create_app

    app = create_app(code_vault, now=TUI_NOW, semantic=False)
    assert snap_compare(app, terminal_size=size, run_before=lambda pilot: typed(pilot, "f6", *"OrderBook.place"))


@SIZES
def test_find_opens_the_code(snap_compare, code_vault, size):
    from tests.tui.conftest import TUI_NOW
    from tui import create_app

    app = create_app(code_vault, now=TUI_NOW, semantic=False)
    async def open_suggestion(pilot):
        await typed(pilot, "f6", *"OrderBok")
        await typed(pilot, "down", "enter")

    assert snap_compare(app, terminal_size=size, run_before=open_suggestion)
