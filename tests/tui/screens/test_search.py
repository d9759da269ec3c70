"""Search screen: results as you type, the score breakdown, Enter opens the note."""

import pytest

from tests.tui.conftest import SMALL, TUI_NOW, WIDE, settle
from tui.screens.note import NoteScreen
from tui.widgets.hit_list import HitList, score_breakdown
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio


async def searched(pilot, query: str, rounds: int = 3) -> HitList:
    """Type ``query`` on the search screen and wait for its hits."""
    await pilot.press(*query)
    await settle(pilot, rounds)
    return pilot.app.screen.query_one(HitList)


def expected_refs(root, query):
    with Vault(root) as vault:
        return [h.ref for h in vault.search(query, k=20, lexical_only=True, now=TUI_NOW).hits]


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_results_appear_as_you_type(make_app, indexed_vault, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        hits = await searched(pilot, "token refresh")
        assert [h.ref for h in hits.hits] == expected_refs(indexed_vault, "token refresh")
        assert any(h.path == "specs/auth-sessions.md" for h in hits.hits)
        assert hits.option_count == len(hits.hits)
        summary = str(app.screen.query_one("#search-summary").render())
        assert summary.startswith(f"{len(hits.hits)} hits (lexical)")
        with Vault(indexed_vault) as vault:  # as the CLI leads with it (qa22 F12: the TUI never said)
            said = vault.search("token refresh", k=20, lexical_only=True, now=TUI_NOW).confidence_line
        assert summary.splitlines()[1] == said and said.startswith("confidence ")


async def test_a_long_notice_is_shown_whole_at_80x24(make_app):
    """A notice had been cut mid-sentence under a summary of five lines (qa145)."""
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await searched(pilot, "🚀 rollback")
        shown = app.screen.query_one("#search-summary")
        assert "(🔁 'recurring', 📅 'due date', 🚀 'launch')" in str(shown.render())
        needs = shown.get_content_height(shown.region.size, app.size, shown.content_region.width)
        assert needs > 5 and shown.content_region.height == needs
        assert app.screen.query_one(HitList).region.height >= 8  # and the hits keep room
        shown.update("\n".join(f"notice {n}: " + "word " * 20 for n in range(12)))
        await pilot.pause(0.1)
        scroll = app.screen.query_one("#search-summary-scroll")  # beyond two fifths: a scrollbar, not a
        assert scroll.show_vertical_scrollbar and scroll.max_scroll_y > 0  # cut left unmarked (qa152)


async def test_each_hit_shows_ref_kind_tap_snippet_and_score_breakdown(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        hits = await searched(pilot, "token refresh")
        first = hits.hits[0]
        prompt = str(hits.get_option_at_index(0).prompt)
        for part in (first.ref, first.kind, f"tap {first.tap}", first.snippet[:40],
                     score_breakdown(first)):
            assert part in prompt
        assert "lexical" in score_breakdown(first) and "decay ×" in score_breakdown(first)


async def test_a_hit_in_a_failed_list_says_what_it_rules_out(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        hits = await searched(pilot, "webhooks synchronously")
        n, failed = next((n, h) for n, h in enumerate(hits.hits) if h.ruled_out)
        assert "ruled out here: " + failed.ruled_out[0][:40] in str(hits.get_option(str(n)).prompt)


async def test_only_the_last_query_typed_is_shown(make_app, indexed_vault):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press(*"beamforming")
        await pilot.press(*["backspace"] * len("beamforming"))
        await pilot.press(*"idempotency")
        await settle(pilot)
        refs = [h.ref for h in app.screen.query_one(HitList).hits]
        assert refs == expected_refs(indexed_vault, "idempotency")


async def test_a_paste_over_several_lines_is_searched_whole(make_app, indexed_vault):
    """Textual's input kept a pasted text's first line alone, without a word (qa145)."""
    from textual import events
    from textual.widgets import Input

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        box = app.screen.query_one("#query", Input)
        box.post_message(events.Paste("token\nrefresh \r\n  rotation"))
        await settle(pilot)
        assert box.value == "token refresh rotation"
        refs = [h.ref for h in app.screen.query_one(HitList).hits]
        assert refs == expected_refs(indexed_vault, "token refresh rotation")
        box.post_message(events.Paste(" grace\nwindow"))  # its own first space kept (qa148)
        await settle(pilot)
        assert box.value == "token refresh rotation grace window"


async def test_a_miss_says_so_and_clearing_the_box_shows_the_help(make_app, indexed_vault):
    with Vault(indexed_vault) as vault:  # why, as the CLI says it (qa145: "Try other words" alone)
        why = vault.search("zeppelin", lexical_only=True, now=TUI_NOW).confidence_reason
    assert why
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press(*"zeppelin")
        await settle(pilot)
        summary = str(app.screen.query_one("#search-summary").render())
        assert f"No match for “zeppelin” (lexical): a miss, not a guess ({why})" in " ".join(summary.split())
        assert app.screen.query_one(HitList).option_count == 0
        await pilot.press(*["backspace"] * len("zeppelin"))
        await settle(pilot)
        assert "Type to search" in str(app.screen.query_one("#search-summary").render())


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_enter_opens_the_note_at_the_hit_and_escape_comes_back(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press(*"token refresh")
        await settle(pilot)
        first = app.screen.query_one(HitList).hits[0]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.page.ref == first.ref and app.screen.page.line == first.line_start
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one(HitList).hits[0] == first  # the results are still there


@pytest.mark.model
async def test_hybrid_search_with_the_real_model_reports_both_arms(make_app, indexed_vault):
    with Vault(indexed_vault) as vault:
        vault.index(now=TUI_NOW)  # embeds every section with the bundled model
    app = make_app(semantic=True)
    async with app.run_test(size=WIDE) as pilot:
        hits = (await searched(pilot, "keeping the user logged in", rounds=8)).hits
        summary = str(app.screen.query_one("#search-summary").render())
        assert "lexical + semantic" in summary
        assert any(h.scores.semantic is not None for h in hits)
        assert any(h.path == "specs/auth-sessions.md" for h in hits[:5])


async def test_a_query_typed_before_any_index_says_how_to_build_one(sample_vault, monkeypatch):
    """qa22 F8: only the header said so; the Search and Find bodies kept their empty help."""
    from tui import create_app
    from tui.formatting import NO_INDEX_TEXT

    monkeypatch.setenv("HOME", str(sample_vault.parent))
    app = create_app(sample_vault, semantic=False)  # never indexed
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press(*"sessions")
        await settle(pilot)
        assert str(app.screen.query_one("#search-summary").render()) == NO_INDEX_TEXT
        await pilot.press("f6", *"sessions")
        await settle(pilot)
        assert str(app.screen.query_one("#find-status").render()) == NO_INDEX_TEXT


def test_the_summary_counts_one_hit_as_one():
    from tui.screens.search import summary
    from vault_engine.model import Hit, Scores, SearchResult

    hit = Hit("a.md#A", "a.md", "A", "note", "vault", None, "A", "text", 1, 2, 1.0, Scores(1.0, None, 1.0, 1.0))
    said = summary(SearchResult("pomegranate", (hit,), ("lexical",), confidence="high", confidence_reason="why"))
    assert said.startswith("1 hit (lexical) · ")  # was "1 hits"
