"""A symbol's code page: its callers and callees as a tree (a level loaded as it is
expanded, cycles marked and never expanded, Enter opens a symbol's page), and none of the
keys that only mean something for a note (o, r)."""

import pytest
from textual.widgets import Footer

from tests.tui.conftest import SMALL, TUI_NOW, WIDE, settle
from tests.tui.test_keys import footer_keys, help_text
from tui.screens.find import FindScreen
from tui.screens.note import NoteScreen
from tui.screens.reinforce import ReinforceDialog
from tui.widgets.call_tree import CallTree
from vault_engine.errors import VaultError
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio
SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
PING = "src/shop/walk.py#ping"


@pytest.fixture
def make_call_app(call_vault):
    from tui import create_app

    return lambda: create_app(call_vault, now=TUI_NOW, semantic=False)


async def press(pilot, *keys):
    await pilot.press(*keys)
    await settle(pilot)


async def find_and_open(app, pilot, query: str) -> NoteScreen:
    """Find ``query`` (F6) and open its first place, as a user would."""
    await press(pilot, "f6", *query)
    assert isinstance(app.screen, FindScreen)
    await press(pilot, "down", "enter")
    assert isinstance(app.screen, NoteScreen)
    return app.screen


async def to_tree(pilot, screen) -> CallTree:
    """Tab from the link list (the focus on a page) to the call tree."""
    tree = screen.query_one(CallTree)
    while screen.focused is not tree:
        await press(pilot, "tab")
    return tree


async def cursor_to(pilot, tree: CallTree, line: str) -> None:
    """Move the cursor down to the node labelled ``line`` (as CallTree.labels writes it)."""
    target = tree.labels().index(line)
    while tree.cursor_line != target:
        await press(pilot, "down" if tree.cursor_line < target else "up")


@SIZES
async def test_a_symbol_from_find_shows_its_callers_and_callees_and_expands_them_a_level_at_a_time(
        make_call_app, size):
    app = make_call_app()
    async with app.run_test(size=size) as pilot:
        screen = await find_and_open(app, pilot, "ping")
        assert screen.page.ref == PING
        tree = await to_tree(pilot, screen)
        assert tree.display and tree.region.width > 20 and tree.region.height >= 6
        assert tree.labels() == ["ping", "  callers (2)", "    <module>  walk.py:1", "    pong  walk.py:6",
                                 "  callees (1)", "    pong  walk.py:6"]
        shown = footer_keys(app)
        assert shown.get("enter") == "Open" and shown.get("space") == "Expand"
        assert app.screen.query_one(Footer).max_scroll_x == 0  # fits at 80 columns too
        await cursor_to(pilot, tree, "    pong  walk.py:6")  # pong, under callers
        await press(pilot, "space")  # its own callers: ping, which is the root: a cycle
        assert tree.labels()[3:5] == ["    pong  walk.py:6", "      ping  walk.py:1  ↻ cycle"]
        await press(pilot, "down", "space", "right")  # a cycle does not expand
        assert tree.labels()[4:6] == ["      ping  walk.py:1  ↻ cycle", "  callees (1)"]
        await cursor_to(pilot, tree, "    pong  walk.py:6")
        await press(pilot, "left")  # collapse
        assert "      ping  walk.py:1  ↻ cycle" not in tree.labels()
        await press(pilot, "enter")  # opens pong's page
        assert screen.page.ref == "src/shop/walk.py#pong"
        assert tree.labels()[:3] == ["pong", "  callers (1)", "    ping  walk.py:1"]
        await press(pilot, "b")
        assert screen.page.ref == PING and tree.labels()[0] == "ping"


async def test_a_function_calling_itself_is_one_cycle_and_module_code_opens_the_file(make_call_app):
    app = make_call_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await find_and_open(app, pilot, "countdown")
        tree = await to_tree(pilot, screen)
        assert tree.labels()[-2:] == ["  callees (1)", "    countdown  walk.py:11  ↻ cycle"]
        await press(pilot, "escape", "escape", *"ping")  # Find again, a new query
        await press(pilot, "down", "enter")  # once its places are listed, as a user sees them
        tree = await to_tree(pilot, app.screen)
        await cursor_to(pilot, tree, "    <module>  walk.py:1")
        await press(pilot, "space")  # module-level code is a leaf: nothing to ask for
        assert tree.labels()[3] == "    pong  walk.py:6"
        await press(pilot, "enter")
        assert app.screen.page.ref == "src/shop/walk.py" and not tree.display  # a file: no tree


async def test_no_callers_says_so_and_a_failed_level_is_asked_again(make_call_app, monkeypatch):
    app = make_call_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await find_and_open(app, pilot, "OrderBook.place")
        tree = await to_tree(pilot, screen)
        assert tree.labels()[1:3] == ["  callers (0)",
                                      "    no callers found (never guessed)"]
        assert tree.labels()[3:] == ["  callees (1)", "    OrderBook.check  orders.py:6"]
        calls, failing = Vault.calls, [True]

        def flaky(vault, *args, **kwargs):
            if failing.pop(0) if failing else False:
                raise VaultError("the index is being rebuilt: try again")
            return calls(vault, *args, **kwargs)

        monkeypatch.setattr(Vault, "calls", flaky)
        await cursor_to(pilot, tree, "    OrderBook.check  orders.py:6")
        await press(pilot, "space")
        assert any("rebuilt" in n.message for n in app._notifications)
        assert tree.labels()[-1] == "    OrderBook.check  orders.py:6"  # collapsed again, nothing under it
        await press(pilot, "space")  # asked again: check has no callees of its own
        assert tree.labels()[-1].startswith("      no callees found")


async def test_a_search_hit_on_code_opens_the_same_page_with_its_tree(make_call_app):
    app = make_call_app()
    async with app.run_test(size=WIDE) as pilot:
        await press(pilot, *"countdown")
        await press(pilot, "down", "enter")
        screen = app.screen
        assert isinstance(screen, NoteScreen) and screen.page.code is not None
        assert screen.query_one(CallTree).display


@SIZES
async def test_o_and_r_are_gone_from_a_code_page_and_back_on_a_note(make_call_app, size):
    app = make_call_app()
    async with app.run_test(size=size) as pilot:
        screen = await find_and_open(app, pilot, "ping")
        shown = footer_keys(app)
        assert "o" not in shown and "r" not in shown and {"escape", "e", "c"} <= set(shown)
        await press(pilot, "o", "r")
        assert isinstance(app.screen, NoteScreen) and not app._notifications  # nothing opened or asked
        await press(pilot, "question_mark")
        text = help_text(app)
        assert "Obsidian" not in text and "Reinforce" not in text and "Edit" in text, text
        await press(pilot, "escape")
        screen.go("glossary.md")
        await settle(pilot)
        assert not screen.query_one(CallTree).display
        shown = footer_keys(app)
        assert {"o", "r"} <= set(shown) or size == SMALL and "r" in shown
        await press(pilot, "r")
        assert isinstance(app.screen, ReinforceDialog)
