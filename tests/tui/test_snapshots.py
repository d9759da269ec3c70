"""Snapshots of every screen at 120x36 and 80x24, on an indexed copy of sample-vault/ with
the clock frozen. Review changes with ``pytest tests/tui/test_snapshots.py --snapshot-report``;
accept them with ``--snapshot-update``."""

import pytest
from textual.widgets import Input

from tests.tui.conftest import SMALL, WIDE, wait_until
from tui.widgets.hit_list import HitList

SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])


def always() -> bool:
    return True


async def typed(pilot, *keys, until=always, what: str = "the screen to settle"):
    await steady(pilot)
    await pilot.press(*keys)
    await steady(pilot, until, what)


async def steady(pilot, until=always, what: str = "the screen to settle"):
    """Wait until ``until()`` holds and the app is quiet (tests/tui/conftest.py), then stop
    cursors blinking: a snapshot must not depend on when it was taken, nor on how busy the
    machine is (a fixed pause once took the search screen before it was done)."""
    await wait_until(pilot, until, what)
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await wait_until(pilot, always, "the cursors to stop")


def shows_hits_for(app, query: str) -> bool:
    """The search screen lists the hits of ``query``, laid out at the list's width."""
    hits = app.screen.query_one(HitList)
    return (hits.result is not None and hits.result.query == query and bool(hits.option_count)
            and hits.laid_out_width == hits.content_region.width)


@SIZES
def test_search(snap_compare, make_app, size):
    async def search(pilot):
        await typed(pilot, *"token refresh", until=lambda: shows_hits_for(pilot.app, "token refresh"),
                    what="the hits of 'token refresh'")

    assert snap_compare(make_app(), terminal_size=size, run_before=search)


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


@SIZES
def test_call_tree(snap_compare, call_vault, size):
    from tests.tui.conftest import TUI_NOW
    from tui import create_app
    from tui.widgets.call_tree import CallTree

    app = create_app(call_vault, now=TUI_NOW, semantic=False)

    def grown(pilot, count: int) -> bool:
        return len(pilot.app.screen.query_one(CallTree).labels()) == count

    async def expand_to_a_cycle(pilot):
        await typed(pilot, "f6", *"ping")
        await typed(pilot, "down", "enter", until=lambda: grown(pilot, 6), what="ping's callers and callees")
        await typed(pilot, "tab", "tab", "down", "down", "down", "space", until=lambda: grown(pilot, 7),
                    what="pong's callers (ping again: a cycle)")

    assert snap_compare(app, terminal_size=size, run_before=expand_to_a_cycle)
