"""Dead ends screen: every ruling newest first, filters, jump to the note, proposal check."""

import re
from dataclasses import replace

import pytest
from textual.widgets import Select

from tests.tui.conftest import INDEX_RUNS, SMALL, WIDE, settle, wait_until
from tui.screens.note import NoteScreen
from tui.widgets.dead_end_table import DeadEndTable
from vault_engine.vault import Vault

pytestmark = pytest.mark.anyio


def rulings(root, project=None):
    with Vault(root) as vault:
        return vault.deadend_list(project)


async def open_dead_ends(app, pilot):
    await pilot.press("f2")
    await settle(pilot)
    return app.screen.query_one(DeadEndTable)


async def choose(pilot, select_id, values, value):
    """Pick ``value`` in a Select with the keyboard: open it, move down past the blank
    ("All ...") and the ``values`` before it, Enter."""
    select = pilot.app.screen.query_one(select_id, Select)
    select.focus()
    await pilot.press("enter")
    await pilot.pause()
    for _ in range(1 + values.index(value)):
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_every_dead_end_is_listed_newest_first(make_app, indexed_vault, size):
    expected = rulings(indexed_vault)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        table = await open_dead_ends(app, pilot)
        assert [(r.ref, r.line) for r in table.rulings] == [(r.ref, r.line) for r in expected]
        whens = [r.when for r in table.rulings]
        assert whens == sorted(whens, reverse=True)
        detail = str(app.screen.query_one("#deadend-detail").render())
        first = expected[0]
        assert first.text in detail and first.reason in detail and first.agent in detail


async def test_filtering_by_project_and_by_source(make_app, indexed_vault):
    everything = rulings(indexed_vault)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_dead_ends(app, pilot)
        projects = sorted({r.project for r in everything if r.project})
        await choose(pilot, "#project-filter", projects, "drone-audio")
        drone = rulings(indexed_vault, "drone-audio")
        assert [r.ref for r in table.rulings] == [r.ref for r in drone] and len(drone) < len(everything)
        await choose(pilot, "#source-filter", ["checkpoint", "working note"], "working note")
        assert table.rulings and all(r.source == "working note" and r.project == "drone-audio"
                                     for r in table.rulings)
        assert len(table.rulings) == sum(r.source == "working note" for r in drone)
        count = str(app.screen.query_one("#deadend-count").render())
        assert count.startswith(f"{len(table.rulings)} of {len(everything)}")


RECORD = ("---\nstatus: accepted\ndate: 2026-10-01\n---\n# Log storage\n\n## Considered Options\n\n"
          "* Loki\n* Elasticsearch\n\n## Decision Outcome\n\nChosen option: \"Loki\", because it is cheap.\n")


async def test_a_project_filter_keeps_the_team_wide_rulings_the_cli_lists_for_it(make_app, indexed_vault):
    # a decision record of no project holds for every project: `deadend list --project P` lists
    # its rejected options, and the TUI's filter on P had dropped them (qa145)
    (indexed_vault / "decisions").mkdir()
    (indexed_vault / "decisions/0001-log-storage.md").write_text(RECORD, encoding="utf-8")
    with Vault(indexed_vault) as vault:
        vault.index(embed=False)
    drone = rulings(indexed_vault, "drone-audio")
    assert any(r.project is None for r in drone)  # the record's "Elasticsearch"
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_dead_ends(app, pilot)
        projects = sorted({r.project for r in table.rulings if r.project})
        await choose(pilot, "#project-filter", projects, "drone-audio")
        assert [r.ref for r in table.rulings] == [r.ref for r in drone]


async def test_filters_that_match_nothing_say_so_in_place_of_the_last_ruling(make_app, indexed_vault):
    """qa22 F2: the detail pane kept a ruling of another project under an empty table."""
    everything = rulings(indexed_vault)
    projects = sorted({r.project for r in everything if r.project})
    assert not any(r.project == "drone-audio" and r.source == "decision record" for r in everything)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_dead_ends(app, pilot)
        await choose(pilot, "#source-filter", ["checkpoint", "working note", "decision record"], "decision record")
        assert table.rulings
        await choose(pilot, "#project-filter", projects, "drone-audio")
        assert table.rulings == []
        assert str(app.screen.query_one("#deadend-detail").render()).startswith("No dead end matches these filters")


async def test_back_from_a_note_the_cursor_is_on_the_dead_end_opened(make_app):
    """qa22 F3: it went back to the first row, so reading rulings one by one meant scrolling again."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_dead_ends(app, pilot)
        await pilot.press("down", "down", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        await pilot.press("escape")
        await settle(pilot)
        table = app.screen.query_one(DeadEndTable)
        assert table.cursor_row == 3
        shown = str(app.screen.query_one("#deadend-detail").render())
        assert table.rulings[3].text[:30] in shown


async def test_enter_jumps_to_the_note_at_the_dead_end(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_dead_ends(app, pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        chosen = table.rulings[1]
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.page.note.path == chosen.path and app.screen.page.line == chosen.line


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_a_proposal_shows_what_deadend_check_says(make_app, indexed_vault, size):
    proposal = "drop the second microphone to save board space"
    with Vault(indexed_vault) as vault:
        expected = vault.deadend_check(proposal, lexical_only=True)
    assert expected.rulings  # the sample vault's checkpoint ruled this out
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await open_dead_ends(app, pilot)
        await pilot.press("p", *proposal)
        await settle(pilot)
        answer = app.screen.query_one("#proposal-answer")
        # word for word what the agent reads (the rows wrap with a hanging indent: see below)
        assert " ".join(rendered_rows(answer)).split() == expected.rendered.split()
        assert answer.has_class("-hit")


async def test_a_near_miss_shows_the_closest_rulings_as_the_cli_does(make_app, indexed_vault, cli):
    """The box said only "a miss, not a guess" where the CLI names the closest rulings and why
    they were not raised (qa55: the ruling sat in the table above it)."""
    proposal = "pot the microphone ports"
    printed = cli("--vault", indexed_vault, "deadend", "check", proposal, "--lexical").out
    assert "Closest recorded dead ends, not raised:" in printed
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await open_dead_ends(app, pilot)
        await pilot.press("p", *proposal)
        await settle(pilot)
        shown = " ".join(rendered_rows(app.screen.query_one("#proposal-answer"))).split()
        assert shown == printed.split()


async def test_a_proposal_of_stop_words_says_that_no_word_was_compared(make_app, indexed_vault):
    """The box said "a miss, not a guess" and left out why, which the CLI says on stderr (qa40)."""
    with Vault(indexed_vault) as vault:
        expected = vault.deadend_check("the of and", lexical_only=True)
    assert not expected.rulings and expected.notices
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await open_dead_ends(app, pilot)
        await pilot.press("p", *"the of and")
        await settle(pilot)
        shown = " ".join(" ".join(rendered_rows(app.screen.query_one("#proposal-answer"))).split())
        assert " ".join(expected.notices[0].split()) in shown


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_the_ruling_a_proposal_raises_is_marked_and_enter_opens_its_note(make_app, indexed_vault, size):
    proposal = "drop the second microphone to save board space"
    with Vault(indexed_vault) as vault:
        best = vault.deadend_check(proposal, lexical_only=True).rulings[0]
    app = make_app()
    async with app.run_test(size=size) as pilot:
        table = await open_dead_ends(app, pilot)
        await pilot.press("p", *proposal)
        await settle(pilot, rounds=6)
        assert (best.path, best.line) in table.marked
        row = table.rulings[table.cursor_row]
        assert (row.path, row.line) == (best.path, best.line)  # the cursor went to it
        assert str(table.get_row_at(table.cursor_row)[-1]).startswith("◆ ")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        assert (app.screen.page.note.path, app.screen.page.line) == (best.path, best.line)


async def test_enter_before_the_answer_opens_the_ruling_of_the_proposal_in_the_box(make_app, indexed_vault):
    """Enter pressed before the check answered had opened the previous proposal's ruling, and its
    `◆` marks stayed (qa153); typed ahead on a proposal that raises one, it opens that one."""
    raising = "drop the second microphone to save board space"
    with Vault(indexed_vault) as vault:
        best = vault.deadend_check(raising, lexical_only=True).rulings[0]
        assert not vault.deadend_check("use a bigger battery", lexical_only=True).rulings
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        table = await open_dead_ends(app, pilot)
        await pilot.press("p", *raising)
        await settle(pilot, rounds=6)
        assert table.marked
        box = app.screen.query_one("#proposal")
        box.value = ""
        await pilot.press(*"use a bigger battery", "enter")
        assert not table.marked  # at once: no answer to this proposal
        await settle(pilot, rounds=6)
        assert not isinstance(app.screen, NoteScreen) and not table.marked
        box.value = ""
        await pilot.press(*raising, "enter")  # before its check: opened once answered
        await settle(pilot, rounds=6)
        assert isinstance(app.screen, NoteScreen)
        assert (app.screen.page.note.path, app.screen.page.line) == (best.path, best.line)


async def test_a_ref_longer_than_the_answer_is_wide_folds_whole_at_80x24(make_app, indexed_vault):
    """It had been cut to `...claude-2c9.md#Fail…`, the one pointer to the ruling (qa153)."""
    proposal = "retry failed webhooks synchronously inside the request handler"
    with Vault(indexed_vault) as vault:
        ref = vault.deadend_check(proposal, lexical_only=True).rulings[0].ref
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await open_dead_ends(app, pilot)
        await pilot.press("p", *proposal)
        await settle(pilot, rounds=6)
        answer = app.screen.query_one("#proposal-answer")
        rows = [strip.text.strip() for strip in answer.render_lines(answer.size.region)]
        assert len(ref) > 60 and ref in "".join(rows) and "…" not in "".join(rows)


async def test_o_is_greyed_out_until_a_proposal_raises_a_ruling(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await open_dead_ends(app, pilot)
        assert app.screen.check_action("open_match", ()) is None
        await pilot.press("o")
        await settle(pilot)
        assert not isinstance(app.screen, NoteScreen)


def rendered_rows(widget) -> list[str]:
    """What a widget shows, row by row, as plain text."""
    return [strip.text.rstrip() for strip in widget.render_lines(widget.size.region)]


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x36", "80x24"])
async def test_the_answers_wrapped_lines_keep_their_hanging_indent(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await open_dead_ends(app, pilot)
        await pilot.press("p", *"drop the second microphone to save board space")
        await settle(pilot)
        rows = rendered_rows(app.screen.query_one("#proposal-answer"))
        start = next(n for n, row in enumerate(rows) if row.startswith("   Ruled out on"))
        end = next(n for n, row in enumerate(rows) if row.startswith("   Why it failed"))
        assert end - start > 1, rows  # the "Ruled out" line is long enough to wrap
        assert all(row.startswith("   ") and not row.startswith("    ") for row in rows[start:end + 1]), rows
        item = next(n for n, row in enumerate(rows) if row.startswith("1. Drop"))
        assert end > item


ZANZIBAR = "route payments through the zanzibar gateway"
ZANZIBAR_CHECKPOINT = """---
type: checkpoint
project: billing-service
agent: qa-bot
created: 2026-11-28T10:00:00Z
---
# Checkpoint: zanzibar gateway

## Failed
- Route payments through the zanzibar gateway
  - Reason: zanzibar drops idempotency headers
"""


def record_zanzibar(root):
    path = root / "projects/billing-service/checkpoints/20261128T100000Z-qa-bot.md"
    path.write_text(ZANZIBAR_CHECKPOINT, encoding="utf-8")


def answer_text(app):
    return " ".join(rendered_rows(app.screen.query_one("#proposal-answer")))


@INDEX_RUNS
async def test_the_proposal_is_checked_again_after_an_index(make_app, indexed_vault, index):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("f2")
        await settle(pilot)
        app.poll_freshness()  # the poll knows the index run before the one to come
        await pilot.press("p", *ZANZIBAR)
        await wait_until(pilot, lambda: "a miss, not a guess" in answer_text(app), "the miss")
        record_zanzibar(indexed_vault)
        await index(app, pilot, indexed_vault)
        await wait_until(pilot, lambda: "tried before" in answer_text(app), "the answer checked again")
        answer = app.screen.query_one("#proposal-answer")
        assert answer.has_class("-hit") and "zanzibar drops idempotency headers" in answer_text(app)
        assert app.screen.matched and app.screen.matched[0].path.endswith("20261128T100000Z-qa-bot.md")


async def test_the_proposal_is_checked_again_for_the_project_chosen(make_app, indexed_vault):
    proposal = "drop the second microphone to save board space"  # ruled out on drone-audio
    with Vault(indexed_vault) as vault:
        elsewhere = vault.deadend_check(proposal, project="billing-service", lexical_only=True)
    assert "not on billing-service" in elsewhere.rendered
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await open_dead_ends(app, pilot)
        await pilot.press("p", *proposal)
        await wait_until(pilot, lambda: "tried before" in answer_text(app), "the answer for every project")
        assert "not on billing-service" not in answer_text(app)
        projects = sorted({r.project for r in rulings(indexed_vault) if r.project})
        await choose(pilot, "#project-filter", projects, "billing-service")
        await wait_until(pilot, lambda: "not on billing-service" in answer_text(app), "the answer checked again")
        assert answer_text(app).split() == elsewhere.rendered.split()


async def test_a_proposal_typed_before_any_index_is_checked_when_one_is_built(sample_vault, monkeypatch):
    from tui import create_app

    monkeypatch.setenv("HOME", str(sample_vault.parent))
    app = create_app(sample_vault, semantic=False)  # never indexed
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("f2")
        await settle(pilot)
        await pilot.press("p", *"drop the second microphone to save board space")
        await settle(pilot)
        assert "tried before" not in answer_text(app)
        await pilot.press("f1", "f5")
        await wait_until(pilot, lambda: not app.indexing, "the index run")
        await pilot.press("f2")
        await wait_until(pilot, lambda: "tried before" in answer_text(app), "the answer once indexed")


def test_the_detail_of_a_record_without_date_or_authors_says_so_as_the_cli_does():
    """The detail pane said "undated · an unnamed agent" where the interruption says "the record
    gives no date or authors" (qa76)."""
    from tui.screens.dead_ends import detail
    from vault_engine.memory.results import Ruling

    record = Ruling("Use a ConfigMap", "no RBAC per bundle", None, None, None, "use-a-configmap", "decision record",
                    "keps/3257/README.md#Alternatives", "keps/3257/README.md", 40)
    assert detail(record).split("\n")[2] == "no date given · no authors given · no project · decision record"
    checkpoint = replace(record, source="checkpoint", when=1_790_000_000.0)
    assert detail(checkpoint).split("\n")[2] == "2026-09-21 · an unnamed agent · no project · checkpoint"


def test_the_detail_says_a_later_note_chose_the_ruling():
    """A Failed item retried and kept was shown as a dead end with nothing saying so (qa74)."""
    from tui.screens.dead_ends import detail
    from vault_engine.memory.results import LaterChoice, Ruling

    ruling = Ruling("Warm the cache at startup", "too slow", "search", "codex", 1_790_000_000.0, "warm", "checkpoint",
                    "a.md#Failed", "a.md", 9)
    assert "Chosen since" not in detail(ruling)
    later = LaterChoice("Warm the cache at startup, capped", 1_790_086_400.0, "gemini", "b.md#Decision")
    assert detail(replace(ruling, chosen_since=later)).split("\n")[-1] == (
        'Chosen since: on 2026-09-22 gemini chose "Warm the cache at startup, capped" (b.md#Decision): '
        "this dead end may no longer hold")


async def test_at_80x24_the_answer_shows_why_it_failed_and_pages_on_from_the_box(make_app, indexed_vault):
    """The answer ended before "Why it failed", under the selected ruling's pane, and could not
    be scrolled from the box (qa106)."""
    proposal = "drop the second microphone to save board space"
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await open_dead_ends(app, pilot)
        await pilot.press("p", *proposal)
        await settle(pilot)
        assert app.screen.has_class("-answering") and not app.screen.query_one("#deadend-detail").display
        assert "Whyitfailed" in screen_text(app)
        await pilot.press("ctrl+a", "ctrl+k")  # emptied: the ruling's pane comes back
        await settle(pilot)
        assert not app.screen.has_class("-answering") and app.screen.query_one("#deadend-detail").display
    async with make_app().run_test(size=(80, 16)) as pilot:  # too short for the whole answer
        app = pilot.app
        await open_dead_ends(app, pilot)
        await pilot.press("p", *proposal)
        await settle(pilot)
        scroll = app.screen.query_one("#proposal-answer-scroll")
        assert scroll.max_scroll_y > 0
        await pilot.press("pagedown")
        await settle(pilot)
        assert scroll.scroll_y > 0 and app.focused.id == "proposal"  # paged from where you type
        # to the answer's last line: the box had clipped what its scroll thought was in view (qa107)
        for _ in range(4):
            await pilot.press("pagedown")
        await settle(pilot)
        assert scroll.scroll_y == scroll.max_scroll_y
        assert "thistimeisdifferent;thedecisionisyours." in screen_text(app)


def screen_text(app) -> str:
    """What the screen shows, its rows joined without spaces (wrapping moves them)."""
    return re.sub(r"<[^>]*>|\s|&#160;", "", app.export_screenshot())
