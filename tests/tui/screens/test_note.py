"""Note viewer: rendered at the section, links and backlinks followed by keyboard, history,
unresolved links shown as such, reinforcing from the keyboard."""

import pytest
from textual.widgets import Footer

from tests.tui.conftest import SMALL, WIDE, settle
from tui.formatting import link_label
from tui.screens.note import NoteScreen
from tui.widgets.link_list import LinkList
from tui.widgets.note_body import NoteBody

pytestmark = pytest.mark.anyio
REVIEW = "meetings/2026-11-18 design review.md"


async def open_note(app, pilot, ref, line=None):
    app.open_note(ref, line)
    await settle(pilot)
    assert isinstance(app.screen, NoteScreen)
    return app.screen


def index_note(root, rel: str, text: str) -> None:
    """Write one more note into the indexed vault and index it, words only."""
    from tests.tui.conftest import TUI_NOW
    from vault_engine.vault import Vault

    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")
    with Vault(root) as vault:
        vault.index(embed=False, now=TUI_NOW)


def link_rows(screen) -> list[str]:
    links = screen.query_one(LinkList)
    return [str(links.get_option_at_index(n).prompt) for n in range(links.option_count)]


async def choose_link(pilot, screen, needle: str) -> None:
    """Move the cursor down to the first row showing ``needle`` and press Enter, as a user would."""
    links = screen.query_one(LinkList)
    links.focus()
    target = next(n for n, row in enumerate(link_rows(screen)) if needle in row)
    while links.highlighted != target:
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize("section", ["Signal chain", "Buffers"])
@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_a_section_ref_renders_the_note_scrolled_to_the_heading(make_app, size, section):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_note(app, pilot, f"specs/audio-pipeline.md#{section}")
        body = screen.query_one(NoteBody)
        headings = [title for _, title, _ in body.table_of_contents]
        assert [h.removeprefix("▶ ") for h in headings[:3]] == ["Audio pipeline", "Microphone array", "Signal chain"]
        assert [h for h in headings if h.startswith("▶ ")] == [f"▶ {section}"]  # which one was opened
        assert_heading_on_top(screen, section)


def assert_heading_on_top(screen, section: str) -> None:
    body, scroll = screen.query_one(NoteBody), screen.query_one("#note-scroll")
    heading = next(b for b in body.children if section in str(getattr(b, "_content", "")))
    assert scroll.scroll_y > 0  # not at the top...
    # ...but with the section's heading at the top (below its own top margin)
    assert heading.region.y - scroll.region.y == heading.styles.margin.top


async def test_the_section_stays_on_top_while_the_text_reflows(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, "specs/audio-pipeline.md#Buffers")
        await pilot.resize_terminal(104, 36)  # narrower text: every paragraph wraps anew
        await settle(pilot)
        assert_heading_on_top(screen, "Buffers")


async def test_following_a_link_then_back_and_forward(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, REVIEW)
        await choose_link(pilot, screen, "[[auth-sessions#Token refresh]]")
        assert screen.page.ref == "specs/auth-sessions.md#Token refresh"
        await pilot.press("b")
        await settle(pilot)
        assert screen.page.ref == REVIEW
        await pilot.press("f")
        await settle(pilot)
        assert screen.page.ref == "specs/auth-sessions.md#Token refresh"
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, NoteScreen)


async def test_a_link_that_cannot_open_leaves_no_step_in_the_history(make_app):
    """An attachment followed said it is no note, and stayed a step that `b` went back to (qa55)."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, REVIEW)
        await choose_link(pilot, screen, "[[auth-sessions#Token refresh]]")
        screen.go("attachments/mic-array-layout.png")
        await settle(pilot)
        assert screen.page.ref == "specs/auth-sessions.md#Token refresh"
        assert [v.ref for v in screen.history] == [REVIEW, "specs/auth-sessions.md#Token refresh"]
        await pilot.press("b")
        await settle(pilot)
        assert screen.page.ref == REVIEW


async def test_a_backlink_opens_the_linking_note_at_the_link(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, "specs/webhook-delivery.md")
        rows = link_rows(screen)
        assert any(row.startswith("← ") and row.split("\n")[0].endswith("design review.md:21")
                   for row in rows)
        await choose_link(pilot, screen, "design review.md:21")
        assert screen.page.note.path == REVIEW and screen.page.line == 21


async def test_unresolved_links_are_listed_as_such_and_cannot_be_followed(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, REVIEW)
        links = screen.query_one(LinkList)
        rows = link_rows(screen)
        assert rows[0].startswith("Links (") and ", 1 unresolved)" in rows[0]
        index = next(n for n, row in enumerate(rows) if "[[capacity-plan-2027]]" in row)
        assert "unresolved" in rows[index] and links.get_option_at_index(index).disabled


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_the_link_column_keeps_the_project_folder_of_a_long_path(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_note(app, pilot, "specs/auth-sessions.md")
        backlinks = [row.split("\n")[0] for row in link_rows(screen) if row.startswith("← ")]
        width = screen.query_one(LinkList).scrollable_content_region.width
        assert sum(row.startswith("← projects/billing-service/") for row in backlinks) == 6
        for row in backlinks:  # cut in the middle, never from the left
            assert not row.startswith("← …") and row.endswith(tuple("0123456789")) and len(row) < width, row


LONG_CODE = ("result = some_function(argument_one, argument_two, argument_three, argument_four, "
             "argument_five, argument_six)  # THE_END")


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_a_long_code_line_wraps_instead_of_being_cut(make_app, indexed_vault, size):
    from textual.widgets.markdown import MarkdownFence

    index_note(indexed_vault, "notes/code.md",
               f"# Code\n\nBefore.\n\n```python\n{LONG_CODE}\nshort = 1\n```\n\nAfter.\n")
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_note(app, pilot, "notes/code.md")
        fence = screen.query_one(MarkdownFence)
        assert fence.max_scroll_x == 0 and fence.region.right <= screen.query_one("#note-scroll").region.right
        assert "THE_END" in app.export_screenshot()  # the end of the line is on the screen


async def test_the_tui_reads_frontmatter_where_the_index_does_and_links_keep_their_lines(make_app, indexed_vault):
    """The TUI split frontmatter itself: every link's line was off by the block's length (qa33
    R6). Only `---` closes it, as in Obsidian (qa151): a block "closed" by YAML's `...` is text."""
    from vault_engine.vault import Vault

    index_note(indexed_vault, "notes/props.md",
               "---\ntitle: Props\nowner: SECRET_OWNER\n---\n# Props\n\nSee [[design review]] here.\n")
    index_note(indexed_vault, "notes/dots.md", "---\nThe call went long\n...\n# Dotted\n\nSee [[design review]].\n")
    with Vault(indexed_vault) as vault:
        assert (vault.show("notes/props.md").body_line, vault.show("notes/dots.md").body_line) == (5, 1)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, "notes/props.md")
        assert "SECRET_OWNER" not in app.export_screenshot()
        assert screen.query_one(NoteBody)._first_line == 5
        screen = await open_note(app, pilot, "notes/dots.md")
        assert "The call went long" in app.export_screenshot().replace("&#160;", " ")
        assert screen.query_one(NoteBody)._first_line == 1


async def test_a_long_note_is_drawn_from_its_section_and_m_draws_all_of_it(make_app, indexed_vault):
    """A 76 KB note took 9.7 s to open, the screen frozen (qa55): a long one is drawn from the
    section asked for, for about WINDOW_LINES lines, and `m` draws the whole of it."""
    from tui.widgets.note_body import WINDOW_LINES

    sections = "".join(f"## Part {n}\n\n" + "".join(f"Line {n}.{i} of the part.\n\n" for i in range(20))
                       for n in range(40))  # 40 sections of 42 lines
    index_note(indexed_vault, "notes/long.md", f"# Long\n\n{sections}")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, "notes/long.md#Part 20")
        body = screen.query_one(NoteBody)
        above, below = body.cut
        assert above == 2 + 20 * 42 and below > 0 and 1682 - above - below < WINDOW_LINES + 42
        shown = "\n".join(str(getattr(b, "_content", "")) for b in body.children)
        assert "Part 20" in shown and f"⋯ {above:,} lines above: m shows the whole note" in shown
        assert "Part 19" not in shown and f"⋯ {below:,} more lines" in shown
        assert_heading_on_top(screen, "Part 20")
        assert any(key == "m" and b.enabled for key, b in app.active_bindings.items())
        await pilot.press("m")
        await settle(pilot, rounds=6)
        assert body.cut == (0, 0)
        assert_heading_on_top(screen, "Part 20")  # still at the section asked for
        screen = await open_note(app, pilot, "meetings/2026-11-18 design review.md")
        assert screen.query_one(NoteBody).cut == (0, 0)  # a short note: all of it, and no m
        assert not any(key == "m" and b.enabled for key, b in app.active_bindings.items())


def test_the_reading_window_cuts_a_huge_block_and_closes_a_fence_it_cuts():
    """A section of one 3,000-row table still took 20 s to open (qa58): a table is cut at a
    row, a fence at a line and closed, anything else where a block starts."""
    from tui.widgets.note_body import reading_window

    text = ["text"] * 10 + ["", "more"] * 10
    assert reading_window(text, None, limit=12) == (0, 12, "")  # the blank line where a block starts
    assert reading_window(text, 5, limit=100) == (0, 30, "")  # short enough: all of it
    table = ["# T", "| a | b |", "|---|---|"] + ["| 1 | 2 |"] * 50
    assert reading_window(table, 0, limit=20) == (0, 20, "")  # the first 17 rows, header kept
    code = ["# C", "````python"] + ["x = 1"] * 50 + ["````", "after"]
    assert reading_window(code, 0, limit=20) == (0, 20, "````")  # drawn closed
    assert reading_window(["a"] * 50, 40, limit=20) == (40, 50, "")


def lit_text(pane) -> str:
    """The text of the link drawn as the current one."""
    spot = pane.spots()[pane.link]
    return str(spot.block.content)[spot.start:spot.end]


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_tab_walks_the_links_of_the_text_and_enter_follows_one(make_app, size):
    from tui.widgets.markdown_pane import LIT, MarkdownPane

    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_note(app, pilot, REVIEW)
        pane, body = screen.query_one(MarkdownPane), screen.query_one(NoteBody)
        assert app.focused is pane and pane.link is None  # an opened note is read: its text has focus (qa77)
        await pilot.press("tab", "tab")
        assert pane.link == 1 and app.focused is pane
        assert screen.query_one(Footer).max_scroll_x == 0  # Enter (follow) and the rest fit
        spot = pane.spots()[1]
        assert any(span.style == LIT for span in spot.block.content.spans)  # drawn as the current one
        assert spot.href == "vault-link:1" and lit_text(pane) == link_label(body._links[1].raw)
        await pilot.press("shift+tab")
        assert pane.link == 0 and not any(span.style == LIT for span in spot.block.content.spans)
        target = body._links[1].ref
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert screen.history[screen.position].ref == target and screen.page.ref != REVIEW


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_tab_in_the_text_starts_from_the_section_opened_not_the_notes_first_link(make_app, size):
    """Opened at its #Next section, the second Tab scrolled back up to the Summary's link, and
    Enter followed [[auth-sessions]] instead of the [[auth-sessions#Token refresh]] in view
    (qa68); where the whole note fits (120x36), the Summary's link was the first in view (qa71)."""
    from tui.widgets.markdown_pane import MarkdownPane

    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_note(app, pilot, "projects/billing-service/checkpoints/20261029T154500Z-codex-a12.md#Next")
        pane = screen.query_one(MarkdownPane)
        top = pane.scroll_y
        assert (top > 0) == (size == SMALL)  # scrolled past the Summary's link, or all of it in view
        await pilot.press("tab")
        assert lit_text(pane) == "auth-sessions#Token refresh" and pane.scroll_y == top
        await pilot.press("enter")
        await settle(pilot)
        assert screen.page.ref == "specs/auth-sessions.md#Token refresh"


async def test_tab_past_the_last_link_leaves_the_text_and_shift_tab_comes_back_to_it(make_app):
    from tui.widgets.markdown_pane import MarkdownPane

    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_note(app, pilot, "specs/auth-sessions.md")
        pane = screen.query_one(MarkdownPane)
        count = len(pane.spots())
        assert count >= 2
        await pilot.press(*["tab"] * count)
        assert pane.link == count - 1
        await pilot.press("tab")
        assert app.focused is screen.query_one(LinkList) and pane.link is None
        await pilot.press("shift+tab")
        assert app.focused is pane and pane.link is None
        await pilot.press("enter")  # no link chosen: nothing to follow
        await settle(pilot)
        assert screen.page.note.path == "specs/auth-sessions.md"
        await pilot.press("shift+tab", "shift+tab")  # from the end
        assert pane.link == count - 2
        await pilot.press("enter")
        await settle(pilot)
        assert screen.page.note.path != "specs/auth-sessions.md"


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_back_restores_the_link_highlighted_in_the_list(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_note(app, pilot, REVIEW)
        chosen = next(n for n, row in enumerate(link_rows(screen)) if "[[auth-sessions#Token refresh]]" in row)
        await choose_link(pilot, screen, "[[auth-sessions#Token refresh]]")
        assert screen.page.ref == "specs/auth-sessions.md#Token refresh"
        await pilot.press("b")
        await settle(pilot)
        links = screen.query_one(LinkList)
        assert screen.page.ref == REVIEW and links.highlighted == chosen and app.focused is links
        assert chosen != next(n for n in range(links.option_count) if not links.get_option_at_index(n).disabled)


async def test_back_restores_the_link_chosen_in_the_text(make_app):
    from tui.widgets.markdown_pane import MarkdownPane

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_note(app, pilot, REVIEW)
        await pilot.press("tab", "tab", "tab")
        pane = screen.query_one(MarkdownPane)
        chosen = lit_text(pane)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.page.ref != REVIEW and pane.link is None
        await pilot.press("b")
        await settle(pilot)
        assert screen.page.ref == REVIEW and app.focused is pane
        assert pane.link == 2 and lit_text(pane) == chosen
        await pilot.press("f")
        await settle(pilot)
        assert screen.page.ref != REVIEW


TABLE_NOTE = """# Link table

Before the table: [[glossary]].

| topic | where |
|---|---|
| auth | [[auth-sessions]] and [[auth-sessions#Token refresh\\|refresh]] |
| hooks | [webhooks](../specs/webhook-delivery.md) |
| missing | [[no-such-note]] |

After the table: [[webhook-delivery]].
"""


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_links_in_a_table_are_walked_with_tab_in_reading_order_and_followed(make_app, indexed_vault, size):
    from tui.widgets.markdown_pane import LIT, MarkdownPane
    from vault_engine.vault import Vault

    (indexed_vault / "memory" / "link-table.md").write_text(TABLE_NOTE, encoding="utf-8")
    with Vault(indexed_vault) as vault:
        vault.index(embed=False)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_note(app, pilot, "memory/link-table.md")
        pane = screen.query_one(MarkdownPane)
        walked = []
        for _ in range(6):
            await pilot.press("tab")
            walked.append(lit_text(pane))
        assert walked == ["glossary", "auth-sessions", "refresh", "webhooks", "no-such-note", "webhook-delivery"]
        assert type(pane.spots()[3].block).__name__ == "MarkdownTableCellContents"
        await pilot.press("shift+tab")  # back to the unresolved one, in the table's last row
        await pilot.press("enter")
        await settle(pilot)
        assert screen.page.ref == "memory/link-table.md"  # an unresolved link goes nowhere...
        assert any("unresolved" in n.message for n in app._notifications)  # ...and says so
        await pilot.press("shift+tab")  # the Markdown link of the table's second row
        spot = pane.spots()[pane.link]
        assert any(span.style == LIT for span in spot.block.content.spans)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.page.ref == "specs/webhook-delivery.md"
        await pilot.press("b")
        await settle(pilot)
        assert screen.page.ref == "memory/link-table.md" and lit_text(pane) == "webhooks"  # as it was left


async def test_a_note_of_properties_only_shows_them(make_app, indexed_vault):
    """It opened as a blank page, where the search snippet and `show` give its properties (qa93)."""
    index_note(indexed_vault, "notes/blade-runner.md",
               '---\ncategories: ["[[Movies]]"]\ngenre: Sci-fi\ndirector: Ridley Scott\n---\n')
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await open_note(app, pilot, "notes/blade-runner.md")
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "Properties only" in shown and "Ridley Scott" in shown and "Sci-fi" in shown


async def test_a_note_gone_or_changed_since_the_index_says_so_as_show_does(make_app, indexed_vault):
    """It had opened as if it were there, where `show` says it is gone (qa153)."""
    from vault_engine.vault import Vault

    (indexed_vault / "specs/query-cache.md").unlink()
    edited = indexed_vault / "specs/auth-sessions.md"
    edited.write_text(edited.read_text() + "\nOne more line.\n")
    with Vault(indexed_vault) as vault:
        gone, changed = vault.show("specs/query-cache.md").notices, vault.show("specs/auth-sessions.md").notices
    assert gone and changed
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await open_note(app, pilot, "specs/query-cache.md")
        said = app.screen.query_one("#note-notices")
        assert said.display and str(said.render()) == "\n".join(gone)
        await open_note(app, pilot, "specs/auth-sessions.md")
        said = app.screen.query_one("#note-notices")
        assert said.display and str(said.render()) == "\n".join(changed)
        await open_note(app, pilot, "specs/drop-test-protocol.md")
        assert not app.screen.query_one("#note-notices").display
