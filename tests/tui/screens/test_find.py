"""Find screen: a symbol, a path or a question; hit, junction or miss with its reason; Enter
opens the code (``Vault.show`` of the ref) in the note viewer, the notes saying why linked."""

import pytest
from textual.widgets import Footer, Input

from tests.tui.conftest import SMALL, TUI_NOW, WIDE, settle
from tui.screens.find import EMPTY_HELP, FindScreen
from tui.screens.note import NoteScreen
from tui.widgets.find_list import FindList
from tui.widgets.link_list import LinkList
from tui.widgets.note_body import NoteBody

pytestmark = pytest.mark.anyio
SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])


@pytest.fixture
def make_code_app(code_vault):
    from tui import create_app

    return lambda: create_app(code_vault, now=TUI_NOW, semantic=False)


async def find(app, pilot, query: str):
    await pilot.press("f6")
    await settle(pilot)
    assert isinstance(app.screen, FindScreen)
    await pilot.press(*query)
    await settle(pilot)
    return str(app.screen.query_one("#find-status").content), app.screen.query_one(FindList)


def rows(listed: FindList) -> list[str]:
    return [str(listed.get_option_at_index(n).prompt) for n in range(listed.option_count)
            if listed.get_option_at_index(n).id is not None]


@SIZES
async def test_a_symbol_is_a_hit_and_enter_opens_its_code_with_the_notes_saying_why(make_code_app, size):
    app = make_code_app()
    async with app.run_test(size=size) as pilot:
        status, listed = await find(app, pilot, "OrderBook.place")
        assert status.startswith("hit (symbol tier): 1 definition(s) named 'OrderBook.place'")
        assert rows(listed) == ["src/shop/orders.py#OrderBook.place\nmethod · lines 2-4\n"
                                "why: memory/order-checks.md"]
        assert app.screen.query_one(Footer).max_scroll_x == 0
        await pilot.press("down", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NoteScreen) and screen.page.ref == "src/shop/orders.py#OrderBook.place"
        assert str(screen.query_one("#note-title").content) == \
            "src/shop/orders.py#OrderBook.place · method · python · lines 2-4"
        source = screen.query_one(NoteBody).source
        assert "2      def place(self, order):" in source and "4          return order" in source
        assert screen.page.line == 2  # e opens the editor at the definition
        links = screen.query_one(LinkList)
        assert "[[memory/order-checks.md]]" in str(links.get_option_at_index(links.highlighted).prompt)
        await pilot.press("tab", "enter")  # from the code (no link in it) to the note that says why
        await settle(pilot)
        assert screen.page.ref == "memory/order-checks.md"
        await pilot.press("b")
        await settle(pilot)
        assert screen.page.code is not None


async def test_a_path_is_a_hit_on_the_file(make_code_app):
    app = make_code_app()
    async with app.run_test(size=WIDE) as pilot:
        status, listed = await find(app, pilot, "src/shop/orders.py")
        assert status.startswith("hit (path tier)") and rows(listed)[0].startswith("src/shop/orders.py\nfile · lines 1-11")
        await pilot.press("enter")  # Enter in the box goes to the hits, Enter again opens
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.page.code.symbol is None
        assert "def checkout(book, order):" in app.screen.query_one(NoteBody).source


@SIZES
async def test_a_close_name_is_a_junction_whose_suggestion_opens_to_confirm(make_code_app, size):
    app = make_code_app()
    async with app.run_test(size=size) as pilot:
        status, listed = await find(app, pilot, "OrderBok")
        assert status.startswith("junction (fuzzy tier): nothing is named 'OrderBok'")
        assert "suggestion: src/shop/orders.py#OrderBook" in status
        assert app.screen.query_one("#find-status").has_class("-junction")
        assert rows(listed)[0].startswith("? src/shop/orders.py#OrderBook\n")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.page.ref == "src/shop/orders.py#OrderBook"


async def test_a_miss_says_why_and_lists_nothing(make_code_app):
    app = make_code_app()
    async with app.run_test(size=WIDE) as pilot:
        status, listed = await find(app, pilot, "zzqx")
        assert status.startswith("miss: no symbol or indexed file is named 'zzqx'")
        assert listed.option_count == 0 and app.screen.query_one("#find-status").has_class("-miss")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, FindScreen) and isinstance(app.focused, Input)


async def test_a_question_in_words_is_answered_from_the_memory_notes(make_code_app):
    app = make_code_app()
    async with app.run_test(size=WIDE) as pilot:
        status, listed = await find(app, pilot, "why must a rejected order never reach the book")
        assert status.startswith("hit (memory tier)"), status
        assert any(row.startswith("memory/order-checks.md") for row in rows(listed))


async def test_the_notices_the_cli_gives_under_an_answer_are_shown(make_code_app, code_vault):
    """A memory note holding some of a question's words was shown as "hit (memory tier)" without
    the CLI's "memory notes only, none holding every word of the question; the code itself: ..."
    (qa145)."""
    from vault_engine.vault import Vault

    question = "how are rejected orders logged for the audit trail"
    with Vault(code_vault) as vault:
        expected = vault.find(question, k=20).notices
    assert expected and expected[0].startswith("memory notes only")
    app = make_code_app()
    async with app.run_test(size=WIDE) as pilot:
        status, _ = await find(app, pilot, question)
        assert [line for line in status.splitlines() if line.startswith("note: ")] == [f"note: {n}" for n in expected]


@pytest.mark.parametrize("query", ["   ", "[[", "#^|", "a" * 200, "src/../../etc/passwd", "OrderBook.", "é☕\\"])
async def test_odd_input_never_breaks_the_screen(make_code_app, query):
    app = make_code_app()
    async with app.run_test(size=SMALL) as pilot:
        status, _ = await find(app, pilot, query)
        assert isinstance(app.screen, FindScreen)
        assert status == EMPTY_HELP if not query.strip() else status.split(" ")[0].rstrip(":") in (
            "hit", "junction", "miss")


async def test_find_is_in_the_palette_the_help_and_works_without_code(make_app):
    from tests.tui.test_keys import help_text

    app = make_app()  # sample-vault alone: no code tap, find still answers (a miss, or memory)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("ctrl+p", *"go to find")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FindScreen)
        await pilot.press("tab", "question_mark")  # out of the box: ? there types a question mark
        await settle(pilot)
        text = help_text(app)
        assert "On Find" in text and "F6" in text and "Find" in text.split("Everywhere")[1], text
        await pilot.press("escape")
        await settle(pilot)
        app.screen.query_one("#find-query", Input).value = "OrderBook.place"
        await settle(pilot)
        status = str(app.screen.query_one("#find-status").content)
        assert status.startswith("miss"), status


async def test_enter_right_after_typing_finds_at_once_and_goes_to_the_results(make_code_app):
    app = make_code_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("f6")
        await settle(pilot)
        await pilot.press(*"OrderBook.check", "enter")  # before the debounce ran out
        await settle(pilot)
        assert isinstance(app.focused, FindList) and app.focused.refs == ["src/shop/orders.py#OrderBook.check"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen) and "return bool(order)" in app.screen.query_one(NoteBody).source


async def test_down_and_enter_right_after_a_new_query_never_open_a_place_of_the_previous_one(make_code_app):
    app = make_code_app()
    async with app.run_test(size=WIDE) as pilot:
        await find(app, pilot, "OrderBook.check")
        await pilot.press("escape", *"orders.py", "down", "enter")  # all before the debounce ran out
        await settle(pilot)
        # Enter opens a place of the new query, or (if it came while that query ran) waits
        # on its list: never OrderBook.check's page.
        if isinstance(app.screen, NoteScreen):
            assert app.screen.page.ref == "src/shop/orders.py"
        else:
            assert isinstance(app.focused, FindList) and app.focused.refs == ["src/shop/orders.py"]
