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


def burst(app, *keys):
    """Keys queued all at once, as a paste or a terminal multiplexer delivers them (the
    Pilot's ``press`` lets the app settle after each key)."""
    from textual import events

    for key in keys:
        app.post_message(events.Key("space" if key == " " else key, key if len(key) == 1 else None))


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
        # Enter opens the new query's first hit, never the old one's (a burst lost it: qa22 F1)
        assert isinstance(app.screen, NoteScreen) and app.screen.page.ref == webhook[0]


async def test_a_pasted_query_down_and_enter_open_its_first_hit(make_app, indexed_vault):
    from tui.screens.note import NoteScreen

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        burst(app, *"signing key rotation", "down", "enter")  # as `tmux send-keys` sends them
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.page.ref == refs(indexed_vault, "signing key rotation")[0]
        assert app.screen_stack[-2].query_one("#query", Input).value == "signing key rotation"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape", "enter")  # back in the box, Enter on the same query: to the list only
        await settle(pilot)
        assert isinstance(app.focused, HitList) and not isinstance(app.screen, NoteScreen)
