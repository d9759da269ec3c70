"""Keys typed fast after Esc land where the user is looking: the query box.

A terminal sends Esc and a letter typed right after it as one Alt+letter (the Esc is part
of the escape sequence); these tests send exactly that, as tmux shows a terminal does."""

import pytest
from textual.widgets import Input

from tests.tui.conftest import SMALL, TUI_NOW, WIDE, settle
from tui.widgets.hit_list import HitList
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio
SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])


def refs(root, query):
    with Vault(root) as vault:
        return [h.ref for h in vault.search(query, k=20, lexical_only=True, now=TUI_NOW).hits]


async def at_the_hits(pilot, query):
    await pilot.press(*query)
    await settle(pilot)
    await pilot.press("down")
    assert isinstance(pilot.app.focused, HitList)


@SIZES
async def test_esc_then_a_new_query_typed_at_once_replaces_the_old_one(make_app, indexed_vault, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await at_the_hits(pilot, "token refresh")
        await pilot.press("alt+w", *"ebhook")  # Esc, "webhook", as fast as a terminal sends it
        await settle(pilot)
        assert app.screen.query_one("#query", Input).value == "webhook"
        assert [h.ref for h in app.screen.query_one(HitList).hits] == refs(indexed_vault, "webhook")


async def test_a_slow_esc_selects_the_query_so_typing_replaces_it(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await at_the_hits(pilot, "token refresh")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press(*"webhook")
        assert app.screen.query_one("#query", Input).value == "webhook"


async def test_typing_in_the_hit_list_goes_on_in_the_box(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await at_the_hits(pilot, "token")
        await pilot.press(*" refresh")
        assert app.screen.query_one("#query", Input).value == "token refresh"
        assert isinstance(app.focused, Input)


async def test_down_and_enter_right_after_a_new_query_never_open_a_hit_of_the_previous_one(make_app, indexed_vault):
    from tui.screens.note import NoteScreen

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await at_the_hits(pilot, "token refresh")
        await pilot.press("escape", *"webhook", "down", "enter")  # all before the debounce ran out
        await settle(pilot)
        webhook = refs(indexed_vault, "webhook")
        assert webhook[0] != refs(indexed_vault, "token refresh")[0]
        # Enter opens a hit of the new query, or (if it came while that query ran) waits on
        # its list: never the old query's first hit.
        if isinstance(app.screen, NoteScreen):
            assert app.screen.page.ref == webhook[0]
        else:
            assert isinstance(app.focused, HitList) and [h.ref for h in app.focused.hits] == webhook
