"""Notion API sync (vault_engine/sources/notion/api.py): the real notion-client against a fake
Notion server on 127.0.0.1 (tests/sources/notion/fake_notion.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FROZEN_NOW
from tests.sources.notion.fake_notion import FakeNotion, Reply, block, dashed, error, mention, page, text
from vault_engine.config import parse_config
from vault_engine.errors import ConfigError, NotionError
from vault_engine.parsing.frontmatter import split_frontmatter
from vault_engine.sources.notion.api import SyncSettings, retry_after_seconds, sync_tap
from vault_engine.sources.notion.pages import body_digest
from vault_engine.vault import Vault

HANDBOOK, SESSIONS, RUNBOOK = ("a1" * 16, "b2" * 16, "c3" * 16)
INCIDENTS, SOURCE, OUTAGE, SLOW = ("d4" * 16, "e5" * 16, "f6" * 16, "a7" * 16)
EDITED = "2026-11-20T10:00:00.000Z"
TOKEN_ENV = "MY_NOTION_TOKEN"


def build_workspace(fake: FakeNotion) -> None:
    """A handbook page with every block kind sync converts, a child page, a database read
    through its data source, and a page only a search finds."""
    fake.pages[HANDBOOK] = page(HANDBOOK, "Platform handbook", EDITED, properties={
        "Owner": {"type": "people", "people": [{"object": "user", "name": "Dana Ortiz"}]}})
    fake.children[HANDBOOK] = [
        block("01" * 16, "heading_1", {"rich_text": [text("Overview")]}),
        block("02" * 16, "paragraph", {"rich_text": [
            text("Tokens rotate "), text("daily", bold=True), text(" (see "),
            mention(SESSIONS, "Session store"), text(" and "), text("the RFC", link="https://example.com/rfc"),
            text(").")]}),
        block("03" * 16, "toggle", {"rich_text": [text("Details")]}, has_children=True),
        block("04" * 16, "code", {"language": "python", "rich_text": [text("rotate(token)\nsave()")]}),
        block(SESSIONS, "child_page", {"title": "Session store"}),  # a child page block has the page id
        block("06" * 16, "ai_block", {}),
        block("07" * 16, "table", {"table_width": 2, "has_column_header": True}, has_children=True),
    ]
    fake.children["03" * 16] = [block("31" * 16, "bulleted_list_item", {"rich_text": [text("nested item")]},
                                      has_children=True)]
    fake.children["31" * 16] = [block("32" * 16, "to_do", {"rich_text": [text("deep task")], "checked": True})]
    fake.children["07" * 16] = [
        block("71" * 16, "table_row", {"cells": [[text("Key")], [text("Value")]]}),
        block("72" * 16, "table_row", {"cells": [[text("ttl")], [text("24 h | rolling")]]})]
    fake.pages[SESSIONS] = page(SESSIONS, "Session store", EDITED,
                                parent={"type": "page_id", "page_id": dashed(HANDBOOK)})
    fake.children[SESSIONS] = [block("51" * 16, "quote", {"rich_text": [text("Cookies are signed.")]})]
    fake.pages[RUNBOOK] = page(RUNBOOK, "Deploy runbook", EDITED)
    fake.children[RUNBOOK] = [block("61" * 16, "numbered_list_item", {"rich_text": [text("Drain the pool")]})]
    fake.databases[INCIDENTS] = {"object": "database", "id": dashed(INCIDENTS),
                                 "title": [text("Incidents")], "last_edited_time": EDITED,
                                 "parent": {"type": "page_id", "page_id": dashed(HANDBOOK)},
                                 "data_sources": [{"id": dashed(SOURCE), "name": "Incidents"}]}
    row_parent = {"type": "data_source_id", "data_source_id": dashed(SOURCE),
                  "database_id": dashed(INCIDENTS)}
    for ident, title, status in ((OUTAGE, "Login outage", "Resolved"), (SLOW, "Slow search", "Open")):
        fake.pages[ident] = page(ident, title, EDITED, parent=row_parent, properties={
            "Status": {"type": "status", "status": {"name": status}},
            "Severity": {"type": "number", "number": 2}})
        fake.children[ident] = [block(ident[:30] + "99", "paragraph", {"rich_text": [text(f"{title} notes")]})]
    fake.data_sources[SOURCE] = [OUTAGE, SLOW]


@pytest.fixture
def fake():
    with FakeNotion() as server:
        build_workspace(server)
        yield server


@pytest.fixture
def root(make_vault) -> Path:
    return make_vault({"specs/keep.md": "# Keep\n"})


def config_for(root: Path, fake: FakeNotion, **options):
    tap = {"page_ids": [HANDBOOK], "database_ids": [dashed(INCIDENTS)], "search": "runbook",
           "base_url": fake.url, "token_env": TOKEN_ENV, **options}
    return parse_config(root, {"taps": {"notion": tap}, "model": {"enabled": False}})


def run_sync(root: Path, fake: FakeNotion, *, prune: bool = False, sleeps: list | None = None,
             token: str | None = None, **options):
    sleeps = [] if sleeps is None else sleeps
    return sync_tap(config_for(root, fake, **options), prune=prune, now=FROZEN_NOW,
                    environ={TOKEN_ENV: token or fake.token}, sleep=sleeps.append)


def read_note(root: Path, name: str) -> tuple[dict, str]:
    fm = split_frontmatter((root / "notion" / name).read_text(encoding="utf-8"))
    return fm.meta, fm.body


# -- what a sync writes -------------------------------------------------------------------


def test_sync_writes_pages_children_rows_and_search_hits_as_notes(root, fake):
    report = run_sync(root, fake)
    names = {p.name for p in (root / "notion").glob("*.md")}
    assert names == {"Platform handbook a1a1a1a1.md", "Session store b2b2b2b2.md",
                     "Deploy runbook c3c3c3c3.md", "Incidents d4d4d4d4.md",
                     "Login outage f6f6f6f6.md", "Slow search a7a7a7a7.md"}
    assert (report.pages, report.databases, len(report.new), report.problems) == (5, 1, 6, ())
    meta, body = read_note(root, "Platform handbook a1a1a1a1.md")
    assert meta.pop("body_hash") == body_digest(body)
    assert meta == {"type": "notion", "notion_id": HANDBOOK, "title": "Platform handbook",
                    "parent_id": None, "source": "notion-api", "imported": "2026-09-21T14:13:20Z",
                    "created_time": "2026-11-01T09:00:00.000Z", "last_edited_time": EDITED,
                    "url": f"https://www.notion.so/Platform-handbook-{HANDBOOK}"}
    assert read_note(root, "Session store b2b2b2b2.md")[0]["parent_id"] == HANDBOOK
    assert read_note(root, "Login outage f6f6f6f6.md")[0]["parent_id"] == INCIDENTS


def test_blocks_become_markdown_with_nesting_links_and_a_placeholder(root, fake):
    run_sync(root, fake)
    _, body = read_note(root, "Platform handbook a1a1a1a1.md")
    assert body.strip().split("\n") == [
        "# Platform handbook", "",
        "Owner: Dana Ortiz", "",
        "# Overview", "",
        "Tokens rotate **daily** (see [[Session store b2b2b2b2|Session store]] and "
        "[the RFC](https://example.com/rfc)).", "",
        "- Details",
        "    - nested item",
        "        - [x] deep task", "",
        "```python", "rotate(token)", "save()", "```", "",
        "[[Session store b2b2b2b2|Session store]]", "",
        "*[Notion block 'ai_block' not converted: open the page in Notion to see it]*", "",
        "| Key | Value |", "| --- | --- |", "| ttl | 24 h \\| rolling |",
    ]


def test_block_children_are_paginated_with_start_cursor(root, fake):
    run_sync(root, fake)
    calls = fake.requests(f"/v1/blocks/{HANDBOOK}/children")
    assert [args.get("start_cursor") for _, _, args in calls] == [None, "2", "4", "6"]
    nested = {path.split("/")[3].replace("-", "") for _, path, _ in fake.requests("/v1/blocks/")}
    # every page, and every block that has children (toggle, list item, table) once
    assert nested == {HANDBOOK, SESSIONS, RUNBOOK, OUTAGE, SLOW, "03" * 16, "31" * 16, "07" * 16}
    assert len(fake.requests("/v1/blocks/")) == 11  # the handbook's 4 pages + one each for the rest


def test_a_database_is_read_through_its_data_sources(root, fake):
    run_sync(root, fake)
    assert [m for m, _, _ in fake.requests(f"/v1/data_sources/{dashed(SOURCE)}/query")] == ["POST"]
    meta, body = read_note(root, "Incidents d4d4d4d4.md")
    assert meta["notion_object"] == "database" and meta["parent_id"] == HANDBOOK
    assert "| [[Login outage f6f6f6f6\\|Login outage]] | Resolved | 2 |" in body
    assert "Status: Resolved" in read_note(root, "Login outage f6f6f6f6.md")[1]


def test_search_sends_the_query_and_pulls_what_it_finds(root, fake):
    run_sync(root, fake)
    [(_, _, args)] = fake.requests("/v1/search")
    assert args["query"] == "runbook" and args["filter"] == {"property": "object", "value": "page"}
    assert "1. Drain the pool" in read_note(root, "Deploy runbook c3c3c3c3.md")[1]


def test_the_client_speaks_the_data_source_api_version(root, fake):
    run_sync(root, fake)
    assert {h.get("Notion-Version") for h in fake.headers_seen} == {"2025-09-03"}


# -- incremental --------------------------------------------------------------------------


def test_unchanged_pages_are_not_fetched_again(root, fake):
    run_sync(root, fake)
    note = root / "notion" / "Platform handbook a1a1a1a1.md"
    mtime = note.stat().st_mtime_ns
    fake.log.clear()
    report = run_sync(root, fake)
    assert fake.requests("/v1/blocks/") == []
    assert (report.not_fetched, report.new, report.updated, report.unchanged) == (5, (), (), 1)
    assert note.stat().st_mtime_ns == mtime


def test_a_page_edited_in_notion_is_fetched_and_rewritten(root, fake):
    run_sync(root, fake)
    fake.pages[SESSIONS]["last_edited_time"] = "2026-11-25T08:30:00.000Z"
    fake.children[SESSIONS] = [block("51" * 16, "quote", {"rich_text": [text("Cookies are signed and sealed.")]})]
    fake.log.clear()
    report = run_sync(root, fake)
    assert {path for _, path, _ in fake.requests("/v1/blocks/")} == {f"/v1/blocks/{SESSIONS}/children"}
    assert report.updated == ("notion/Session store b2b2b2b2.md",) and report.not_fetched == 4
    assert "> Cookies are signed and sealed." in read_note(root, "Session store b2b2b2b2.md")[1]


def test_a_database_inline_in_a_synced_page_comes_with_its_rows(root, fake):
    """A page's `child_database` had been linked and never pulled, its link unresolved for good,
    without a word (qa170); pulled again when the page is unchanged, never taken for a page."""
    fake.children[HANDBOOK].append(block(INCIDENTS, "child_database", {"title": "Incidents"}))
    report = run_sync(root, fake, database_ids=[], search=None)
    names = {p.name for p in (root / "notion").glob("*.md")}
    assert {"Incidents d4d4d4d4.md", "Login outage f6f6f6f6.md", "Slow search a7a7a7a7.md"} <= names
    assert report.problems == () and report.databases == 1
    again = run_sync(root, fake, database_ids=[], search=None)
    assert again.problems == () and again.gone == () and again.databases == 1


def test_a_database_inside_a_toggle_of_an_unchanged_page_is_pulled_again(root, fake):
    """Notion names the toggle as the parent of what it holds: the database was never queried
    again while its page stayed unchanged, and its new rows never came (qa176)."""
    fake.children["03" * 16].append(block(INCIDENTS, "child_database", {"title": "Incidents"}))
    fake.databases[INCIDENTS]["parent"] = {"type": "block_id", "block_id": dashed("03" * 16)}
    run_sync(root, fake, database_ids=[], search=None)
    assert read_note(root, "Incidents d4d4d4d4.md")[0]["parent_id"] == HANDBOOK
    fresh = "b8" * 16
    fake.pages[fresh] = page(fresh, "Disk full", EDITED, parent=fake.pages[OUTAGE]["parent"])
    fake.children[fresh] = []
    fake.data_sources[SOURCE].append(fresh)
    again = run_sync(root, fake, database_ids=[], search=None)
    assert again.problems == () and (root / "notion" / "Disk full b8b8b8b8.md").is_file()


# -- failures -----------------------------------------------------------------------------


def test_a_429_waits_as_long_as_retry_after_says(root, fake):
    fake.fail_next(f"/v1/pages/{HANDBOOK}", error(429, "rate_limited", "Slow down.", **{"Retry-After": "7"}))
    sleeps: list[float] = []
    report = run_sync(root, fake, sleeps=sleeps)
    assert sleeps == [7.0]
    assert len(fake.requests(f"/v1/pages/{HANDBOOK}")) == 2
    assert report.problems == () and len(report.new) == 6


def test_endless_429s_skip_that_page_with_one_clear_line_and_the_rest_syncs(root, fake):
    """The whole run had ended, the pages fetched before it unwritten (qa170)."""
    for _ in range(10):
        fake.fail_next(f"/v1/pages/{RUNBOOK}", error(429, "rate_limited", "Slow down.", **{"Retry-After": "1"}))
    report = run_sync(root, fake, page_ids=[HANDBOOK, RUNBOOK], search=None)
    [problem] = report.problems
    assert problem.path == f"notion://{RUNBOOK}" and "still rate limiting after 5 waits" in problem.reason
    assert len(report.new) == 5


def test_an_answer_cut_off_skips_that_page_and_the_rest_syncs(root, fake):
    """A truncated body had ended the whole sync, naming no page and blaming base_url (qa170)."""
    fake.fail_next(f"/v1/pages/{RUNBOOK}", Reply(200, {}, raw=b'{"object": "page", "id": "'))
    report = run_sync(root, fake, page_ids=[HANDBOOK, RUNBOOK], search=None)
    [problem] = report.problems
    assert problem.path == f"notion://{RUNBOOK}" and "not JSON" in problem.reason and "base_url" not in problem.reason
    assert len(report.new) == 5


def test_a_401_names_the_variable_and_never_the_token(root, fake):
    with pytest.raises(NotionError) as caught:
        run_sync(root, fake, token="ntn_wrong_token_value")
    message = str(caught.value)
    assert f"rejected the token from ${TOKEN_ENV}" in message and "401" in message
    assert "ntn_wrong_token_value" not in message and fake.token not in message
    assert not (root / "notion").exists()


def test_a_missing_token_says_which_variable_to_set(root, fake):
    with pytest.raises(NotionError, match=f"\\${TOKEN_ENV} is not set"):
        sync_tap(config_for(root, fake), now=FROZEN_NOW, environ={})


def test_a_page_gone_from_notion_is_reported_and_its_note_kept_until_prune(root, fake):
    run_sync(root, fake)
    del fake.pages[RUNBOOK]
    kept = run_sync(root, fake)
    assert kept.gone == ("notion/Deploy runbook c3c3c3c3.md",)
    assert any(p.path == f"notion://{RUNBOOK}" and "404" in p.reason and "is kept (a sync that prunes deletes it)"
               in p.reason for p in kept.problems)
    assert (root / "notion" / "Deploy runbook c3c3c3c3.md").exists()
    pruned = run_sync(root, fake, prune=True)
    assert pruned.pruned == ("notion/Deploy runbook c3c3c3c3.md",)
    # not "is kept" in the very run that deletes it (qa34 N5)
    assert [p.reason.rsplit(": ", 1)[1] for p in pruned.problems if p.path == f"notion://{RUNBOOK}"] == [
        "its note notion/Deploy runbook c3c3c3c3.md is deleted by this sync's --prune"]
    assert not (root / "notion" / "Deploy runbook c3c3c3c3.md").exists()


def test_a_configured_page_that_404s_is_one_line_and_the_rest_syncs(root, fake):
    report = run_sync(root, fake, page_ids=[HANDBOOK, "ab" * 16])
    [problem] = report.problems
    assert problem.path == f"notion://{'ab' * 16}" and "taps.notion.page_ids" in problem.reason
    assert len(report.new) == 6


def test_the_token_is_never_written_to_the_vault(root, fake, monkeypatch, capsys):
    monkeypatch.setenv(TOKEN_ENV, fake.token)
    with Vault(root, config=config_for(root, fake)) as vault:
        report = vault.notion_sync(now=FROZEN_NOW)
    assert report.index.new == 7  # six Notion notes and specs/keep.md
    for path in root.rglob("*"):
        if path.is_file():
            assert fake.token.encode() not in path.read_bytes(), path
    out, err = capsys.readouterr()
    assert fake.token not in out + err


# -- settings -----------------------------------------------------------------------------


def test_settings_validate_the_tap_options(root):
    tap = parse_config(root, {"taps": {"notion": {"page_ids": ["nope"]}}}).tap("notion")
    with pytest.raises(ConfigError, match="taps.notion.page_ids has 'nope'"):
        SyncSettings.from_tap(tap)
    url_id = f"https://www.notion.so/team/Platform-handbook-{HANDBOOK}"
    tap = parse_config(root, {"taps": {"notion": {"page_ids": [url_id, dashed(SESSIONS)]}}}).tap("notion")
    assert SyncSettings.from_tap(tap).page_ids == (HANDBOOK, SESSIONS)


def test_a_misspelt_option_is_named(root):
    tap = parse_config(root, {"taps": {"notion": {"pages_ids": [HANDBOOK]}}}).tap("notion")
    with pytest.raises(ConfigError, match=r"taps.notion.pages_ids is not a setting \(did you mean page_ids\?\)"):
        SyncSettings.from_tap(tap)


def test_a_tap_that_names_nothing_says_what_to_add(root):
    with pytest.raises(NotionError, match="add page_ids, database_ids or search"):
        sync_tap(parse_config(root, {}), now=FROZEN_NOW, environ={"NOTION_TOKEN": "x"})


@pytest.mark.parametrize("value, attempt, expected", [
    ("7", 1, 7.0), (None, 3, 4.0), ("soon", 1, 1.0),
    ("3600", 1, 60.0),  # an hour had been waited (qa170): at most a minute
    ("Thu, 03 Dec 2026 10:00:30 GMT", 1, 30.0)])  # an HTTP date, as RFC 9110 allows
def test_retry_after_seconds(value, attempt, expected):
    now = 1796292000.0  # 2026-12-03 10:00:00 UTC
    assert retry_after_seconds(value, attempt, now=now) == expected


def test_a_page_renamed_in_notion_whose_note_was_edited_keeps_its_name_and_links_follow_it(root, fake):
    run_sync(root, fake)
    mine = root / "notion" / "Session store b2b2b2b2.md"
    mine.write_text(mine.read_text() + "\nMy own line.\n")
    later = "2026-11-25T08:30:00.000Z"
    fake.pages[SESSIONS] = page(SESSIONS, "Cookie store", later,
                                parent={"type": "page_id", "page_id": dashed(HANDBOOK)})
    fake.pages[HANDBOOK]["last_edited_time"] = later
    fake.children[HANDBOOK][4] = block(SESSIONS, "child_page", {"title": "Cookie store"})
    report = run_sync(root, fake)
    assert report.renamed == () and mine.read_text().endswith("My own line.\n")
    assert any(p.path == "notion/Session store b2b2b2b2.md" and "edited in the vault" in p.reason
               for p in report.problems)
    body = read_note(root, "Platform handbook a1a1a1a1.md")[1]
    assert "[[Session store b2b2b2b2" in body and "Cookie store b2b2b2b2" not in body


# -- qa86: a page that fails, a whole workspace gone, a deleted note, a rename ------------


def test_one_page_failing_is_named_and_the_rest_syncs(root, fake):
    """One page answering 500 stopped the whole sync, naming no page (qa86)."""
    for _ in range(3):  # the first try and both retries
        fake.fail_next(f"/v1/pages/{RUNBOOK}", error(500, "internal_server_error", "Unexpected error occurred."))
    report = run_sync(root, fake, page_ids=[HANDBOOK, RUNBOOK], search=None)
    [problem] = report.problems
    assert problem.path == f"notion://{RUNBOOK}" and "not synced this run (Notion answered 500" in problem.reason
    assert "the next sync tries again" in problem.reason and len(report.new) == 5
    assert report.gone == ()


def test_a_gateway_error_is_retried_as_a_server_error(root, fake):
    fake.fail_next(f"/v1/pages/{HANDBOOK}", error(502, "bad_gateway", "Bad Gateway"))
    report = run_sync(root, fake)
    assert report.problems == () and len(report.new) == 6


def test_prune_deletes_nothing_when_a_page_the_tap_names_is_gone(root, fake):
    """The integration disconnected: every page answers 404, and a sync that prunes had
    deleted the whole mirror (qa86)."""
    run_sync(root, fake)
    for table in (fake.pages, fake.databases):
        table.clear()
    report = run_sync(root, fake, prune=True)
    assert report.pruned == () and len(report.gone) == 6
    assert not any("is deleted by this sync's --prune" in p.reason for p in report.problems)  # qa91
    assert sum("(--prune deleted nothing: see below)" in p.reason for p in report.problems) == 6
    assert any("named in [taps.notion] answered that it is gone" in n and "nothing was pruned" in n
               for n in report.notices)
    assert len(list((root / "notion").glob("*.md"))) == 6


def test_a_page_whose_note_was_deleted_is_pulled_again(root, fake):
    """Under a parent unchanged in Notion it was never pulled again, though a conflict's advice
    is to delete the note to take Notion's version (qa86)."""
    run_sync(root, fake)
    (root / "notion" / "Session store b2b2b2b2.md").unlink()
    report = run_sync(root, fake)
    assert report.new == ("notion/Session store b2b2b2b2.md",)
    assert "> Cookies are signed." in read_note(root, "Session store b2b2b2b2.md")[1]


def test_a_rename_in_notion_writes_again_the_synced_notes_that_link_to_it(root, fake):
    """Notion leaves the pages that mention a renamed page as they were: their notes kept the
    old name, a broken link (qa86)."""
    run_sync(root, fake)
    fake.pages[SESSIONS] = page(SESSIONS, "Cookie store", "2026-11-25T08:30:00.000Z",
                                parent={"type": "page_id", "page_id": dashed(HANDBOOK)})
    report = run_sync(root, fake)  # the handbook's own time is unchanged
    assert report.renamed == (("notion/Session store b2b2b2b2.md", "notion/Cookie store b2b2b2b2.md"),)
    body = read_note(root, "Platform handbook a1a1a1a1.md")[1]
    assert "[[Cookie store b2b2b2b2" in body and "Session store b2b2b2b2" not in body
    assert "notion/Platform handbook a1a1a1a1.md" in report.updated
    assert (report.pages, report.not_fetched) == (5, 3)  # the handbook counted once (qa91)


def test_a_base_url_ending_in_v1_as_notion_documents_it_works(root, fake):
    report = run_sync(root, fake, base_url=fake.url + "/v1/")
    assert report.problems == () and len(report.new) == 6


def test_a_deleted_note_of_a_page_gone_from_notion_is_forgotten(root, fake):
    run_sync(root, fake)
    (root / "notion" / "Deploy runbook c3c3c3c3.md").unlink()
    del fake.pages[RUNBOOK]
    report = run_sync(root, fake, search=None)
    assert [p.reason for p in report.problems] == [
        "Notion has no such page (404 object_not_found): its note had been deleted in the vault: the page is forgotten"]
    assert run_sync(root, fake, search=None).problems == ()
