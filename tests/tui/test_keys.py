"""Keys a Textual user expects: ``?`` lists them, Esc closes what ``?`` and Ctrl+P opened,
the footer shows Enter and Tab where they work and always fits its line."""

import io

import pytest
from rich.console import Console
from textual.command import CommandPalette
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

from tests.tui.conftest import SMALL, WIDE, settle
from tui.keys import screen_keys
from tui.screens.help import HelpScreen
from tui.screens.note import NoteScreen
from tui.screens.search import SearchScreen

pytestmark = pytest.mark.anyio
SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])


def footer_keys(app) -> dict[str, str]:
    """key -> description of what the footer shows now (a group's keys have no description)."""
    return {key.key: key.description for key in app.screen.query_one(Footer).query(FooterKey)}


def help_text(app) -> str:
    """The key list as the user reads it (its tables rendered to plain text)."""
    console = Console(width=100, record=True, file=io.StringIO())
    for static in app.screen.query("#help-box Static"):
        console.print(static.content)
    return console.export_text()


async def press(pilot, *keys):
    await pilot.press(*keys)
    await settle(pilot)


@SIZES
async def test_question_mark_lists_the_keys_of_the_screen_and_esc_closes_it(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await press(pilot, "f4", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = help_text(app)
        assert "On Decay" in text and "Reinforce" in text and "Everywhere" in text and "Ctrl+P" in text
        assert "Scroll Up" not in text  # Textual's own widget keys are not ours to list
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_in_the_query_box_a_question_mark_is_typed_not_a_help_screen(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await press(pilot, *"why?")
        assert app.screen.query_one("#query", Input).value == "why?"
        assert isinstance(app.screen, SearchScreen)


async def test_the_help_of_the_note_viewer_lists_its_keys_hidden_or_not(make_app):
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        app.open_note("specs/auth-sessions.md")
        await settle(pilot)
        await press(pilot, "question_mark")
        text = help_text(app)
        for does in ("Close", "Back", "Forward", "Reinforce", "Edit", "Obsidian", "Copy", "Follow"):
            assert does in text


async def test_the_help_lists_a_screens_keys_shadowed_by_the_focused_widget(make_app):
    """With the hits focused, the help left out ↑ (the query history: the list's ↑ moves its
    cursor), and Decay's `u` (qa38)."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await press(pilot, *"token refresh")
        await press(pilot, "down", "question_mark")
        assert isinstance(app.screen, HelpScreen) and "History" in help_text(app)
        await press(pilot, "escape", "f4")
        await settle(pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen) and "Undo" in help_text(app)


async def test_esc_closes_the_command_palette(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await press(pilot, "ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await press(pilot, "escape")
        assert isinstance(app.screen, SearchScreen)


async def test_the_palette_keys_command_opens_the_key_list(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await press(pilot, "ctrl+p", *"keys")
        await press(pilot, "enter")
        assert isinstance(app.screen, HelpScreen)


@SIZES
async def test_the_footer_shows_enter_and_tab_where_they_work_and_fits_its_line(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await press(pilot, *"token refresh")
        await press(pilot, "down")
        shown = footer_keys(app)
        assert shown.get("enter") == "Open"
        assert ("tab" in shown) == (size == WIDE)  # in 80 columns Tab works but has no room
        assert app.screen.query_one(Footer).max_scroll_x == 0
        await press(pilot, "enter")
        assert isinstance(app.screen, NoteScreen)
        await settle(pilot)
        shown = footer_keys(app)
        assert shown.get("enter") == "Follow" and {"escape", "e", "c", "r"} <= set(shown)
        assert ("o" in shown) == (size == WIDE)  # in 80 columns `o` works but has no room (qa93)
        assert app.screen.query_one(Footer).max_scroll_x == 0
        for key in ("f2", "f3", "f4"):
            await press(pilot, key)
            assert app.screen.query_one(Footer).max_scroll_x == 0, key


@SIZES
async def test_the_query_boxes_footer_shows_the_arrow_keys_that_work_there(make_app, size):
    """In the box only the function keys showed: the box's own ↑/↓ (scrolling, nothing to
    scroll on one line) hid the screen's ↓ results and ↑ history, which worked (qa171 L2)."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert type(app.focused).__name__ == "QueryInput"
        assert {"down": "Results", "up": "History"}.items() <= footer_keys(app).items()
        assert app.screen.query_one(Footer).max_scroll_x == 0
        await press(pilot, "f6")
        await settle(pilot)
        assert type(app.focused).__name__ == "QueryInput" and footer_keys(app).get("down") == "Results"
        assert app.screen.query_one(Footer).max_scroll_x == 0


@pytest.mark.parametrize("width", [80, 100, 109, 120])
async def test_a_long_notes_footer_fits_with_m_and_the_key_list(make_app, indexed_vault, width):
    """At 80 columns a long note's footer ended "c Copy m Whole no": `m` and `?` were cut (qa93)."""
    from tests.tui.screens.test_note import index_note

    index_note(indexed_vault, "notes/long.md", "# Long\n\n" + "\n\n".join(f"Paragraph {i} of text." for i in range(400)))
    app = make_app()
    async with app.run_test(size=(width, 30)) as pilot:
        app.open_note("notes/long.md")
        await settle(pilot)
        assert {"m", "question_mark"} <= set(footer_keys(app))
        assert app.screen.query_one(Footer).max_scroll_x == 0
        await press(pilot, "o")  # hidden or not, it works: its notice says how it opened, or failed
        assert app._notifications


async def test_f_keys_work_from_the_note_viewer_though_its_footer_leaves_them_out(make_app):
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        app.open_note("specs/auth-sessions.md")
        await settle(pilot)
        assert "f2" not in footer_keys(app)
        await press(pilot, "f2")
        assert type(app.screen).__name__ == "DeadEndsScreen"


async def test_tab_moves_between_panes_and_focus_is_drawn(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        app.open_note("specs/auth-sessions.md")
        await settle(pilot)
        text, links = app.focused, app.screen.query_one("#links")
        assert text is app.screen.query_one("#note-scroll")  # an opened note is read: its text (qa77)
        lit = text.styles.border_left[1]
        assert links.styles.border_left[1] != lit
        await press(pilot, *["tab"] * (len(text.spots()) + 1))  # past the text's last link
        assert app.focused is links
        assert links.styles.border_left[1] == lit and text.styles.border_left[1] != lit


def test_screen_keys_lists_each_action_once_with_the_apps_key_names():
    from textual.binding import Binding

    bindings = [Binding("escape", "close", "Close"), Binding("b", "back", "Back"),
                Binding("enter", "select", "Open"), Binding("enter", "select", "Open"),
                Binding("x", "quiet", "")]
    lines = screen_keys(bindings, {"escape": "esc", "enter": "⏎"})
    assert [(line.keys, line.does) for line in lines] == [("esc", "Close"), ("b", "Back"), ("⏎", "Open")]


@pytest.mark.parametrize("width", [80, 100, 112, 120])
async def test_every_main_screens_footer_fits_whatever_has_the_focus(make_app, width):
    app = make_app()
    async with app.run_test(size=(width, 30)) as pilot:
        for key in ("f1", "f2", "f3", "f4", "f6"):
            await press(pilot, key)
            for widget in app.screen.focus_chain:
                widget.focus()
                await pilot.pause(0.05)
                assert app.screen.query_one(Footer).max_scroll_x == 0, (key, widget)


async def test_escape_goes_back_to_the_first_pane_then_to_search(make_app):
    """Escape did nothing on Dead ends, Resume, Decay and Find (qa77)."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        for key, screen, home in (("f2", "DeadEndsScreen", "DeadEndTable"), ("f3", "ResumeScreen", "ProjectList"),
                                  ("f6", "FindScreen", "QueryInput")):
            await press(pilot, key)
            assert type(app.screen).__name__ == screen
            await press(pilot, "tab")  # away from where it opens
            await press(pilot, "escape")
            assert type(app.screen).__name__ == screen and type(app.focused).__name__ == home, key
            await press(pilot, "escape")
            assert type(app.screen).__name__ == "SearchScreen", key
        await press(pilot, "f4")  # one pane: straight back
        assert type(app.screen).__name__ == "DecayScreen"
        await press(pilot, "escape")
        assert type(app.screen).__name__ == "SearchScreen"
