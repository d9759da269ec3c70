"""Importing a Notion export (vault_engine/sources/notion/export.py) through the Vault facade,
against the synthetic export in tests/fixtures/notion/ and copies of it broken on purpose."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.conftest import FROZEN_NOW, needs_corpus
from vault_engine.cli.notion_commands import render_report
from vault_engine.errors import NotionError, UnknownRef
from vault_engine.parsing.frontmatter import split_frontmatter
from vault_engine.sources.notion.export import parse_notion_date, split_export_name
from vault_engine.sources.notion.pages import body_digest, file_digest
from vault_engine.vault import Vault

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "notion" / "export" / "Team Space"
ROOT, AUTH, ROADMAP = ("1f0c2d3e4a5b46c7d8e9f00112233445", "2a1b3c4d5e6f47a8b9c0d1e2f3a4b5c6",
                       "3b2c4d5e6f7a48b9c0d1e2f3a4b5c6d7")
TOKEN, AUDIT = "4c3d5e6f7a8b49c0d1e2f3a4b5c6d7e8", "5d4e6f7a8b9c40d1e2f3a4b5c6d7e8f9"
NOTES = {"Team Space 12233445.md", "Auth spec f3a4b5c6.md", "Roadmap a4b5c6d7.md",
         "Token refresh b5c6d7e8.md", "Audit log c6d7e8f9.md"}
NO_MODEL = "[model]\nenabled = false\n"


@pytest.fixture
def vault(make_vault):
    root = make_vault({"specs/keep.md": "# Keep\nuntouched\n"}, config=NO_MODEL)
    with Vault(root) as opened:
        yield opened


@pytest.fixture
def export(tmp_path) -> Path:
    """A private copy of the fixture export that a test may change."""
    target = tmp_path / "export" / "Team Space"
    shutil.copytree(FIXTURE, target)
    return target


def note(vault: Vault, name: str) -> tuple[dict, str]:
    fm = split_frontmatter((vault.root / "notion" / name).read_text(encoding="utf-8"))
    return fm.meta, fm.body


def zip_folder(folder: Path, target: Path, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder.parent).as_posix())
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return target


def outside_notion(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and not p.relative_to(root).as_posix().startswith(("notion/", ".vault-engine/"))}


# -- what an import writes ----------------------------------------------------------------


def test_each_page_and_database_becomes_one_note_with_frontmatter(vault):
    report = vault.notion_import(FIXTURE, now=FROZEN_NOW)
    assert {p.name for p in (vault.root / "notion").glob("*.md")} == NOTES
    assert (report.pages, report.databases, len(report.new), report.problems) == (4, 1, 5, ())
    meta, body = note(vault, "Auth spec f3a4b5c6.md")
    assert meta.pop("body_hash") == body_digest(body)
    assert meta.pop("attachment_hashes") == {"flow diagram.png": file_digest(
        (FIXTURE / f"Team Space {ROOT}" / f"Auth spec {AUTH}" / "flow diagram.png").read_bytes())}
    assert meta == {"type": "notion", "notion_id": AUTH, "title": "Auth spec", "parent_id": ROOT,
                    "source": "Team Space", "imported": "2026-09-21T14:13:20Z",
                    "created_time": "2026-03-03T09:15:00Z",
                    "last_edited_time": "2026-11-20T16:05:00Z"}
    assert body.startswith("# Auth spec\n\nOwner: Dana Ortiz\n")
    assert note(vault, "Team Space 12233445.md")[0]["parent_id"] is None
    assert note(vault, "Roadmap a4b5c6d7.md")[0]["notion_object"] == "database"


def test_relative_and_relation_links_become_wikilinks_and_code_is_untouched(vault):
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    _, root = note(vault, "Team Space 12233445.md")
    assert "[[Auth spec f3a4b5c6|Auth spec]] and the [[Roadmap a4b5c6d7|Roadmap]]" in root
    assert "[Notion help](https://www.notion.so/help)" in root
    assert "`[not a link](Nothing%20here.md)`" in root
    _, auth = note(vault, "Auth spec f3a4b5c6.md")
    assert "Roadmap items: [[Token refresh b5c6d7e8|Token refresh]], [[Audit log c6d7e8f9|Audit log]]" in auth
    assert "# [not a link](Elsewhere.md) inside a code fence" in auth
    assert "| Rotate on every use? | [[Token refresh b5c6d7e8\\|Token refresh]] |" in auth
    assert "Spec: [[Auth spec f3a4b5c6|Auth spec]]" in note(vault, "Token refresh b5c6d7e8.md")[1]


def test_the_index_resolves_every_rewritten_link_and_reports_the_outside_one(vault):
    report = vault.notion_import(FIXTURE, now=FROZEN_NOW)
    assert (report.links_relative, report.links_resolved) == (10, 9)
    [outside] = report.unresolved
    assert outside.target.endswith("Archive page 6e5f7a8b9c0d41e2f3a4b5c6d7e8f9a0.md")
    links = [link for link in vault.all_links() if link.source.startswith("notion/")]
    unresolved = [link.raw for link in links if not link.resolved]
    assert unresolved == ["[[Archive page d7e8f9a0|Archive page]]"]
    assert len(links) == 12  # the 10 rewritten links and the 2 title cells linking row pages


def test_attachments_are_copied_next_to_their_page_and_links_reach_them(vault):
    report = vault.notion_import(FIXTURE, now=FROZEN_NOW)
    copied = vault.root / "notion" / "Auth spec f3a4b5c6" / "flow diagram.png"
    assert copied.read_bytes() == (FIXTURE / f"Team Space {ROOT}" / f"Auth spec {AUTH}" /
                                   "flow diagram.png").read_bytes()
    assert report.attachments == 1
    targets = {link.target_path for link in vault.links(f"notion://{AUTH}")}
    assert "notion/Auth spec f3a4b5c6/flow diagram.png" in targets


def test_a_database_becomes_a_table_from_the_all_csv_linking_its_rows(vault):
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    _, body = note(vault, "Roadmap a4b5c6d7.md")
    assert body.strip().split("\n") == [
        "# Roadmap", "",
        "| Name | Status | Owner | Spec |",
        "| --- | --- | --- | --- |",
        "| [[Token refresh b5c6d7e8\\|Token refresh]] | In progress | Dana Ortiz | [[Auth spec f3a4b5c6\\|Auth spec]] |",
        "| [[Audit log c6d7e8f9\\|Audit log]] | Planned | Lee Park, Kim Cho |  |",
    ]


def test_a_linked_view_of_a_database_links_the_rows_of_the_database_of_its_name(vault, export):
    """A project page's "Tasks" view has no pages of its own: its title cells linked nothing (qa68)."""
    page = next(export.rglob("Auth spec 2a1b3c4d5e6f47a8b9c0d1e2f3a4b5c6"))
    (page / "Roadmap 9e8d7c6b5a4f43e2d1c0b9a8f7e6d5c4.csv").write_text(
        "Name,Status\nToken refresh,In progress\nNot a row page,Planned\n", encoding="utf-8")
    vault.notion_import(export, now=FROZEN_NOW)
    _, body = note(vault, "Roadmap f7e6d5c4.md")
    assert body.strip().split("\n") == [
        "# Roadmap", "", "| Name | Status |", "| --- | --- |",
        "| [[Token refresh b5c6d7e8\\|Token refresh]] | In progress |",
        "| Not a row page | Planned |"]  # and no "## Pages" of the database's other rows


def test_notion_refs_work_in_show_search_and_links(vault):
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    view = vault.show(f"notion://{AUTH}#Token refresh")
    assert view.ref == f"notion://{AUTH}#Token refresh"
    assert "session family" in view.text
    dashed = "2a1b3c4d-5e6f-47a8-b9c0-d1e2f3a4b5c6"
    assert vault.show(f"notion://{dashed}").path == "notion/Auth spec f3a4b5c6.md"
    hits = vault.search("session family revokes", lexical_only=True, now=FROZEN_NOW).hits
    assert hits[0].ref == f"notion://{AUTH}#Token refresh" and hits[0].tap == "notion"
    backlinks = {link.source for link in vault.links(f"notion://{AUTH}", backlinks=True)}
    assert backlinks == {"notion/Team Space 12233445.md", "notion/Token refresh b5c6d7e8.md",
                         "notion/Roadmap a4b5c6d7.md"}
    # the short id of its file name names the page too (qa50: refused), when no other id ends so
    short = vault.show("notion://f3a4b5c6#Token refresh")
    assert (short.ref, short.path) == (f"notion://{AUTH}#Token refresh", "notion/Auth spec f3a4b5c6.md")
    with pytest.raises(UnknownRef, match="no note of a Notion page whose id ends with 0badc0de"):
        vault.show("notion://0badc0de")


def test_last_edited_time_dates_the_note_for_decay(vault):
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    later = FROZEN_NOW + 100 * 86400  # 2026-12-30: 40 days after last_edited_time
    row = next(r for r in vault.decay_report(now=later) if r.ref == f"notion://{AUTH}")
    assert (row.tap, round(row.age_days)) == ("notion", 40)
    assert row.multiplier == pytest.approx(max(0.1, 0.5 ** (row.age_days / 14)))


def test_a_database_is_as_new_as_its_newest_row(vault, export):
    """An export gives a database no time of its own: dated by the file's write, a database
    imported today outranked, under the notion tap's decay, every page of its rows (qa63)."""
    rows = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}"
    for name, created in ((f"Token refresh {TOKEN}.md", "March 3, 2026 9:15 AM"),
                          (f"Audit log {AUDIT}.md", "June 1, 2026 8:00 AM")):
        text = (rows / name).read_text(encoding="utf-8")
        (rows / name).write_text(text.replace("\nStatus:", f"\nCreated: {created}\nStatus:", 1), encoding="utf-8")
    vault.notion_import(export, now=FROZEN_NOW)
    assert note(vault, "Roadmap a4b5c6d7.md")[0]["last_edited_time"] == "2026-06-01T08:00:00Z"
    ages = {r.ref: round(r.age_days) for r in vault.decay_report(now=FROZEN_NOW)}
    assert ages[f"notion://{ROADMAP}"] == ages[f"notion://{AUDIT}"] > 40  # not 0: imported just now


def test_a_page_the_export_gives_no_date_is_as_old_as_the_typical_dated_page(vault):
    """Dated by the import, a workspace's undated pages were new and outranked, under the notion
    tap's decay, the page that answered, dated 2024: 22nd of 60, first without decay (qa75)."""
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    later = FROZEN_NOW + 100 * 86400
    ages = {r.title: round(r.age_days, 3) for r in vault.decay_report(now=later)}
    assert round(ages["Auth spec"]) == 40  # its last_edited_time
    assert ages["Token refresh"] == ages["Team Space"] == ages["Auth spec"]  # the only dated page: the median
    hits = vault.search("Token refresh", lexical_only=True, now=later).hits
    assert hits and all(h.age_days == pytest.approx(ages["Auth spec"], abs=1e-3) for h in hits)


# -- re-import ----------------------------------------------------------------------------


def test_an_undated_page_changed_in_notion_and_imported_again_stays_as_old_as_the_typical_page(vault, export):
    """A re-import that rewrote an undated page was read as an edit made now: the page became
    new and outranked, under decay, the page that answered (qa146). An edit made in the vault
    is one."""
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    page = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Token refresh {TOKEN}.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nAlso revoke the whole family on reuse.\n", encoding="utf-8")
    later = FROZEN_NOW + 100 * 86400
    assert [p.rsplit("/", 1)[-1] for p in vault.notion_import(export, now=later).updated] == ["Token refresh b5c6d7e8.md"]
    ages = {r.title: round(r.age_days, 3) for r in vault.decay_report(now=later)}
    assert ages["Token refresh"] == ages["Auth spec"] > 30  # the typical dated page's, as before (not 0)
    # what an earlier release recorded as an edit of a note the import wrote is none either:
    # read again, the note holds no edit (the evaluation's Notion databases had stayed new)
    vault.ledger.db.execute("UPDATE notes SET edited_at=? WHERE title='Token refresh'", (later,))
    vault.ledger.set_meta("extraction", "1|" + vault.ledger.get_meta("extraction").split("|", 1)[1])
    vault.ledger.db.commit()
    vault.index(embed=False, now=later)  # read again, as after an upgrade
    assert {r.title: round(r.age_days, 3) for r in vault.decay_report(now=later)}["Token refresh"] == ages["Auth spec"]
    note_path = vault.root / "notion" / "Token refresh b5c6d7e8.md"
    note_path.write_text(note_path.read_text(encoding="utf-8") + "\nMy own note on it.\n", encoding="utf-8")
    vault.index(embed=False, now=later)
    assert {r.title: round(r.age_days) for r in vault.decay_report(now=later)}["Token refresh"] == 0




def test_reimport_leaves_unchanged_notes_untouched(vault):
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    before = {p.name: p.stat().st_mtime_ns for p in (vault.root / "notion").rglob("*") if p.is_file()}
    report = vault.notion_import(FIXTURE, now=FROZEN_NOW + 3600)
    after = {p.name: p.stat().st_mtime_ns for p in (vault.root / "notion").rglob("*") if p.is_file()}
    assert (report.new, report.updated, report.unchanged, report.attachments) == ((), (), 5, 0)
    assert after == before
    assert report.index.modified == 0


def test_the_same_pages_downloaded_again_under_another_name_are_left_untouched(vault, tmp_path):
    """Notion names every download anew: each re-import rewrote every note for its `source` (qa56)."""
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    again = tmp_path / "Export-9d1c"
    shutil.copytree(FIXTURE, again)
    report = vault.notion_import(again, now=FROZEN_NOW + 3600)
    assert (report.new, report.updated, report.unchanged) == ((), (), 5)
    assert note(vault, "Audit log c6d7e8f9.md")[0]["source"] == "Team Space"
    audit = again / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Audit log {AUDIT}.md"
    audit.write_text(audit.read_text().replace("who, when and why", "who, when, why and from where"))
    report = vault.notion_import(again, now=FROZEN_NOW + 7200)
    assert report.updated == ("notion/Audit log c6d7e8f9.md",) and report.unchanged == 4
    assert note(vault, "Audit log c6d7e8f9.md")[0]["source"] == "Export-9d1c"  # a changed page: where it came from


def test_reimport_updates_a_changed_page_and_renames_a_retitled_one(vault, export):
    vault.notion_import(export, now=FROZEN_NOW)
    audit = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Audit log {AUDIT}.md"
    audit.write_text(audit.read_text().replace("who, when and why", "who, when, why and from where"))
    token = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Token refresh {TOKEN}.md"
    token.write_text(token.read_text().replace("# Token refresh", "# Token rotation"))
    report = vault.notion_import(export, now=FROZEN_NOW + 3600)
    assert "notion/Audit log c6d7e8f9.md" in report.updated
    assert report.renamed == (("notion/Token refresh b5c6d7e8.md", "notion/Token rotation b5c6d7e8.md"),)
    meta, body = note(vault, "Audit log c6d7e8f9.md")
    assert "from where" in body and meta["imported"] == "2026-09-21T15:13:20Z"
    assert note(vault, "Token rotation b5c6d7e8.md")[0]["notion_id"] == TOKEN
    assert not (vault.root / "notion" / "Token refresh b5c6d7e8.md").exists()
    assert "[[Token rotation b5c6d7e8|Token refresh]]" in note(vault, "Auth spec f3a4b5c6.md")[1]


def test_a_rename_names_the_notes_of_yours_whose_links_it_broke(vault, export):
    """The import never edits a note of yours: a link to the old name broke without a word (qa32 F3)."""
    vault.notion_import(export, now=FROZEN_NOW)
    (vault.root / "weekly.md").write_text("# Weekly\n\n- tokens: [[Token refresh b5c6d7e8]]\n- [[Audit log c6d7e8f9]]\n")
    token = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Token refresh {TOKEN}.md"
    token.write_text(token.read_text().replace("# Token refresh", "# Token rotation"))
    report = vault.notion_import(export, now=FROZEN_NOW + 3600)
    assert [n for n in report.notices if "renamed to" in n] == [
        "weekly.md:3: links 'Token refresh b5c6d7e8', a page's note renamed to 'Token rotation b5c6d7e8' "
        "by this run: update the link"]


def test_properties_added_in_the_vault_survive_a_reimport_and_are_named(vault, export):
    vault.notion_import(export, now=FROZEN_NOW)
    mine = vault.root / "notion" / "Audit log c6d7e8f9.md"
    tagged = mine.read_text().replace("title: Audit log\n", "title: Audit log\ntags: [design-debt]\nowner: priya\n")
    mine.write_text(tagged)
    audit = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Audit log {AUDIT}.md"
    audit.write_text(audit.read_text() + "\nUpstream line\n")
    report = vault.notion_import(export, now=FROZEN_NOW + 3600)
    assert mine.read_text() == tagged and report.updated == ()
    # counted: "1 pages; 0 new, 0 updated, 0 unchanged" left it out (qa32 F7)
    assert report.edited == ("notion/Audit log c6d7e8f9.md",)
    assert "4 unchanged, 1 kept as edited in the vault, 0 renamed" in render_report(report)
    assert [(p.path, "properties tags, owner added" in p.reason) for p in report.problems] == [
        ("notion/Audit log c6d7e8f9.md", True)]


def test_a_note_edited_in_the_vault_while_its_page_changed_in_notion_says_both_changed(vault, export):
    """"Kept as edited" read the same whether or not Notion's page had changed too (qa50)."""
    vault.notion_import(export, now=FROZEN_NOW)
    mine = vault.root / "notion" / "Audit log c6d7e8f9.md"
    mine.write_text(mine.read_text() + "\nMy own line.\n")
    quiet = vault.notion_import(export, now=FROZEN_NOW + 3600)
    (reason,) = [p.reason for p in quiet.problems if p.path == "notion/Audit log c6d7e8f9.md"]
    assert "changed in Notion too" not in reason  # nothing to merge: Notion's page is as written
    audit = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Audit log {AUDIT}.md"
    audit.write_text(audit.read_text() + "\nUpstream line\n")
    both = vault.notion_import(export, now=FROZEN_NOW + 7200)
    (reason,) = [p.reason for p in both.problems if p.path == "notion/Audit log c6d7e8f9.md"]
    assert reason.endswith("; the page changed in Notion too since, and that change is not in the note: "
                           "merge them by hand")
    assert mine.read_text().endswith("My own line.\n")  # still never overwritten


def test_a_renamed_page_whose_note_was_edited_keeps_its_name_and_links_follow_it(vault, export):
    vault.notion_import(export, now=FROZEN_NOW)
    mine = vault.root / "notion" / "Token refresh b5c6d7e8.md"
    mine.write_text(mine.read_text() + "\nMy own line.\n")
    token = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Token refresh {TOKEN}.md"
    token.write_text(token.read_text().replace("# Token refresh", "# Token rotation"))
    report = vault.notion_import(export, now=FROZEN_NOW + 3600)
    assert report.renamed == () and mine.read_text().endswith("My own line.\n")
    auth = note(vault, "Auth spec f3a4b5c6.md")[1]
    assert "[[Token refresh b5c6d7e8|Token refresh]]" in auth and "Token rotation b5c6d7e8" not in auth
    unresolved = [link.raw for link in vault.all_links() if not link.resolved]
    assert unresolved == ["[[Archive page d7e8f9a0|Archive page]]"]


def test_a_note_its_user_renamed_keeps_its_name_and_the_pages_links_follow_it(vault, export):
    """Renamed in Obsidian (which updated the links to it), a page's note was renamed back by
    the next import, and the links Obsidian had updated broke (qa50)."""
    vault.notion_import(export, now=FROZEN_NOW)
    os.replace(vault.root / "notion" / "Token refresh b5c6d7e8.md", vault.root / "notion" / "Tokens.md")
    token = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Token refresh {TOKEN}.md"
    token.write_text(token.read_text() + "\nUpstream line\n")
    report = vault.notion_import(export, now=FROZEN_NOW + 3600)
    assert report.renamed == () and "notion/Tokens.md" in report.updated  # the notes linking it too
    assert "Upstream line" in note(vault, "Tokens.md")[1]
    assert not (vault.root / "notion" / "Token refresh b5c6d7e8.md").exists()
    assert "[[Tokens|Token refresh]]" in note(vault, "Auth spec f3a4b5c6.md")[1]  # the import's links follow it
    token.write_text(token.read_text().replace("# Token refresh", "# Token rotation"))  # retitled in Notion too
    assert vault.notion_import(export, now=FROZEN_NOW + 7200).renamed == ()  # the user's name still stands


def test_pages_gone_from_the_export_are_reported_and_deleted_only_with_prune(vault, export):
    vault.notion_import(export, now=FROZEN_NOW)
    (export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Audit log {AUDIT}.md").unlink()
    kept = vault.notion_import(export, now=FROZEN_NOW)
    assert kept.gone == ("notion/Audit log c6d7e8f9.md",) and kept.pruned == ()
    assert (vault.root / "notion" / "Audit log c6d7e8f9.md").exists()
    assert any("an import that prunes deletes them" in n for n in kept.notices)  # the CLI says --prune
    pruned = vault.notion_import(export, prune=True, now=FROZEN_NOW)
    assert pruned.pruned == ("notion/Audit log c6d7e8f9.md",)
    assert not (vault.root / "notion" / "Audit log c6d7e8f9.md").exists()
    assert pruned.index.deleted == 1


def test_prune_keeps_and_names_the_users_files_in_a_vanished_pages_folder(vault, export):
    vault.notion_import(export, now=FROZEN_NOW)
    folder = vault.root / "notion" / "Auth spec f3a4b5c6"
    (folder / "my-sketch.png").write_bytes(b"my sketch bytes")
    (folder / "notes.txt").write_text("kept?")
    page = export / f"Team Space {ROOT}" / f"Auth spec {AUTH}.md"
    page.unlink()
    shutil.rmtree(page.with_suffix(""))
    report = vault.notion_import(export, prune=True, now=FROZEN_NOW)
    assert report.pruned == ("notion/Auth spec f3a4b5c6.md",)
    assert sorted(p.name for p in folder.iterdir()) == ["my-sketch.png", "notes.txt"]  # flow diagram.png pruned
    assert [p.path for p in report.problems if "kept, though the note" in p.reason] == [
        "notion/Auth spec f3a4b5c6/my-sketch.png", "notion/Auth spec f3a4b5c6/notes.txt"]


def test_a_note_moved_into_a_subfolder_is_updated_where_it_is(vault, export):
    vault.notion_import(export, now=FROZEN_NOW)
    (vault.root / "notion" / "team").mkdir()
    os.replace(vault.root / "notion" / "Audit log c6d7e8f9.md", vault.root / "notion" / "team" / "Audit log c6d7e8f9.md")
    audit = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}" / f"Audit log {AUDIT}.md"
    audit.write_text(audit.read_text() + "\nKeep it for a year.\n")
    report = vault.notion_import(export, now=FROZEN_NOW)
    assert report.updated == ("notion/team/Audit log c6d7e8f9.md",) and report.gone == ()
    assert not (vault.root / "notion" / "Audit log c6d7e8f9.md").exists()


def test_links_name_the_note_each_page_got_when_short_ids_clash(vault, tmp_path):
    plan_a, plan_b = "a" * 24 + "11112222", "b" * 24 + "11112222"
    export = tmp_path / "Export"
    export.mkdir()
    (export / f"Plan {plan_a}.md").write_text(f"# Plan\n\nFirst plan, see [Plan](Plan%20{plan_b}.md)\n")
    (export / f"Plan {plan_b}.md").write_text(f"# Plan\n\nSecond, back to [Plan](Plan%20{plan_a}.md)\n")
    report = vault.notion_import(export, now=FROZEN_NOW)
    assert sorted(report.new) == ["notion/Plan 11112222.md", f"notion/Plan {plan_b}.md"]
    assert f"see [[Plan {plan_b}|Plan]]" in note(vault, "Plan 11112222.md")[1]
    assert "back to [[Plan 11112222|Plan]]" in note(vault, f"Plan {plan_b}.md")[1]
    assert [link.source for link in vault.links(f"notion://{plan_b}", backlinks=True)] == [
        "notion/Plan 11112222.md"]


def test_links_to_a_page_whose_name_a_user_file_holds_name_its_full_id_note(vault):
    mine = vault.root / "notion" / "Audit log c6d7e8f9.md"
    mine.parent.mkdir()
    mine.write_text("# my own notes\n")
    vault.notion_import(FIXTURE, now=FROZEN_NOW)
    table = note(vault, "Roadmap a4b5c6d7.md")[1]
    assert f"[[Audit log {AUDIT}\\|Audit log]]" in table and "[[Audit log c6d7e8f9" not in table


def test_a_file_that_is_not_the_pages_note_is_never_overwritten(vault):
    mine = vault.root / "notion" / "Audit log c6d7e8f9.md"
    mine.parent.mkdir()
    mine.write_text("# my own notes\n")
    report = vault.notion_import(FIXTURE, now=FROZEN_NOW)
    assert mine.read_text() == "# my own notes\n"
    assert f"notion/Audit log {AUDIT}.md" in report.new


# -- zips ---------------------------------------------------------------------------------


def test_a_zip_and_a_zip_of_part_zips_import_like_the_folder(vault, tmp_path):
    single = zip_folder(FIXTURE, tmp_path / "Export-single.zip")
    assert len(vault.notion_import(single, now=FROZEN_NOW).new) == 5
    outer = tmp_path / "Export-nested.zip"
    with zipfile.ZipFile(outer, "w") as archive:
        archive.writestr("Export-nested-Part-1.zip", single.read_bytes())
    shutil.rmtree(vault.root / "notion")
    report = vault.notion_import(outer, now=FROZEN_NOW)
    assert {p.name for p in (vault.root / "notion").glob("*.md")} == NOTES
    assert (report.source, report.problems, report.links_resolved) == ("Export-nested.zip", (), 9)


def test_zip_entries_with_dotdot_or_absolute_paths_are_refused(vault, tmp_path):
    evil = zip_folder(FIXTURE, tmp_path / "evil.zip", extra={
        "../escape 11111111111111111111111111111111.md": b"# escape\n",
        "/abs 22222222222222222222222222222222.md": b"# abs\n",
        "Team Space/../../up 33333333333333333333333333333333.md": b"# up\n"})
    report = vault.notion_import(evil, now=FROZEN_NOW)
    refused = [p for p in report.problems if "refused" in p.reason]
    assert len(refused) == 3 and all("outside the export" in p.reason for p in refused)
    assert {p.name for p in (vault.root / "notion").glob("*.md")} == NOTES
    assert not list(tmp_path.rglob("escape*")) and not list(tmp_path.rglob("up 3*"))


def test_a_corrupt_zip_is_one_clear_error(vault, tmp_path):
    broken = tmp_path / "Export-broken.zip"
    broken.write_bytes(b"PK\x03\x04 this is not a zip")
    with pytest.raises(NotionError, match="Export-broken.zip: not a readable zip"):
        vault.notion_import(broken, now=FROZEN_NOW)
    assert not (vault.root / "notion").exists()


def test_a_corrupt_nested_zip_is_reported_and_the_rest_imported(vault, tmp_path):
    outer = zip_folder(FIXTURE, tmp_path / "Export.zip", extra={"Part-2.zip": b"not a zip at all"})
    report = vault.notion_import(outer, now=FROZEN_NOW)
    [problem] = report.problems
    assert problem.path == "Export.zip!Part-2.zip" and "nested zip cannot be read" in problem.reason
    assert len(report.new) == 5


def test_prune_deletes_nothing_when_a_part_or_a_page_of_the_export_could_not_be_read(vault, export, tmp_path):
    """An unreadable part zip: "the rest is imported, re-download the export", and the same run
    deleted 11 of 28 notes, the pages of that part (qa50)."""
    vault.notion_import(export, now=FROZEN_NOW)
    roadmap = export / f"Team Space {ROOT}" / f"Roadmap {ROADMAP}"
    shutil.move(roadmap, tmp_path / "elsewhere")  # its pages travel in the part that cannot be read
    outer = zip_folder(export, tmp_path / "Export.zip", extra={"Part-2.zip": b"not a zip at all"})
    report = vault.notion_import(outer, prune=True, now=FROZEN_NOW)
    assert report.gone and report.pruned == ()
    assert all((vault.root / rel).exists() for rel in report.gone)
    assert any(n.startswith(f"--prune would delete {len(report.gone)} note(s) in notion/, but 1 part(s) or page(s)")
               for n in report.notices), report.notices
    (export / f"Team Space {ROOT}" / "Loose notes.md").write_text("# Loose notes\nno id: no page\n")
    read_whole = vault.notion_import(export, prune=True, now=FROZEN_NOW)
    assert read_whole.pruned == report.gone  # a file that is no page does not hold the prune back


# -- bad input ----------------------------------------------------------------------------


def test_a_binary_page_file_is_refused_not_written_for_index_to_skip(vault, export):
    (export / f"Team Space {ROOT}" / "Bin 77777777777777777777777777777777.md").write_bytes(b"\x00\x01\x02binary")
    report = vault.notion_import(export, now=FROZEN_NOW)
    (problem,) = [p for p in report.problems if "Bin 7777" in p.path]
    assert "binary content (NUL bytes)" in problem.reason and "re-export it from Notion" in problem.reason
    assert not list((vault.root / "notion").rglob("Bin *"))
    # UTF-16 is said as a vault's note says it, not "binary" (qa137)
    (export / f"Team Space {ROOT}" / "Wide 66666666666666666666666666666666.md").write_bytes(
        "# Wide\ntext\n".encode("utf-16"))
    (wide,) = [p for p in vault.notion_import(export, now=FROZEN_NOW).problems if "Wide 6666" in p.path]
    assert wide.reason == "UTF-16 text in an export file: skipped; re-save it as UTF-8, or re-export it from Notion"


def test_bad_files_get_one_line_each_and_the_rest_is_imported(vault, export):
    space = export / f"Team Space {ROOT}"
    (space / "Loose notes.md").write_text("# Loose notes\nno id\n")
    copy = space / "~copies" / f"Audit log {AUDIT}.md"  # sorts after the original
    copy.parent.mkdir()
    copy.write_text("# Audit log copy\n")
    (space / f"Roadmap {ROADMAP}_all.csv").write_bytes("Name,Owner\nToken refresh,Jos\xe9\n".encode("latin-1"))
    (space / f"Roadmap {ROADMAP}.csv").unlink()
    before = outside_notion(vault.root)
    report = vault.notion_import(export, now=FROZEN_NOW)
    reasons = {p.path.rsplit("/", 1)[-1]: p.reason for p in report.problems}
    assert reasons.keys() == {"Loose notes.md", f"Audit log {AUDIT}.md", f"Roadmap {ROADMAP}_all.csv"}
    assert "no Notion id in the file name" in reasons["Loose notes.md"]
    assert f"same Notion id {AUDIT}" in reasons[f"Audit log {AUDIT}.md"]
    assert "not UTF-8 (byte 0xe9 on line 2)" in reasons[f"Roadmap {ROADMAP}_all.csv"]
    assert {p.name for p in (vault.root / "notion").glob("*.md")} == NOTES - {"Roadmap a4b5c6d7.md"}
    assert "privilege change" in note(vault, "Audit log c6d7e8f9.md")[1]  # the first one won
    assert outside_notion(vault.root) == before


@pytest.mark.parametrize("into", ["../outside", "/tmp/elsewhere", ".vault-engine", "", "a/../../b"])
def test_into_must_stay_inside_the_vault(vault, into):
    with pytest.raises(NotionError, match="must name a folder inside the vault"):
        vault.notion_import(FIXTURE, into=into, now=FROZEN_NOW)


@pytest.mark.parametrize("into", ["vault-engine.toml", "specs/keep.md/notion"])
def test_into_an_existing_file_is_one_clear_error(vault, into):
    with pytest.raises(NotionError, match="is a file: pick another folder"):
        vault.notion_import(FIXTURE, into=into, now=FROZEN_NOW)
    assert not (vault.root / "notion").exists()


def test_into_a_folder_no_notion_tap_owns_says_so(vault):
    report = vault.notion_import(FIXTURE, into="specs/notion", now=FROZEN_NOW)
    assert len(report.new) == 5 and report.new[0].startswith("specs/notion/")
    assert any("not owned by a notion tap" in n for n in report.notices)


def test_a_missing_export_is_one_clear_error(vault, tmp_path):
    with pytest.raises(NotionError, match="does not exist: pass a Notion export"):
        vault.notion_import(tmp_path / "nope.zip", now=FROZEN_NOW)


# -- small pure pieces --------------------------------------------------------------------


@pytest.mark.parametrize("name, expected", [
    ("Auth spec 2a1b3c4d5e6f47a8b9c0d1e2f3a4b5c6.md", ("Auth spec", AUTH, ".md")),
    ("Roadmap 3B2C4D5E6F7A48B9C0D1E2F3A4B5C6D7_all.csv", ("Roadmap", ROADMAP, ".csv")),
    ("Team Space 1f0c2d3e4a5b46c7d8e9f00112233445", ("Team Space", ROOT, "")),
    ("flow diagram.png", ("flow diagram", None, ".png")),
])
def test_split_export_name(name, expected):
    assert split_export_name(name) == expected


@pytest.mark.parametrize("text, expected", [
    ("September 17, 2024 1:52 PM", "2024-09-17T13:52:00Z"),
    ("November 7, 2022", "2022-11-07T00:00:00Z"),
    ("2024/09/17 13:52", "2024-09-17T13:52:00Z"),
    ("09/10/2024", None),  # day first or month first: not guessed
    ("soon", None),
])
def test_parse_notion_date(text, expected):
    assert parse_notion_date(text) == expected


# -- the real exports ---------------------------------------------------------------------


@pytest.mark.corpus
def test_the_six_real_exports_import_every_page_and_leave_only_true_misses(make_vault):
    corpus = needs_corpus("notion-export")
    exports = sorted(p for p in corpus.iterdir() if p.is_dir())
    pages_in_exports = sum(1 for e in exports for _ in e.rglob("*.md"))
    with Vault(make_vault({}, config=NO_MODEL)) as vault:
        reports = [vault.notion_import(e, into=f"notion/{e.name}", now=FROZEN_NOW) for e in exports]
        assert sum(r.pages for r in reports) == pages_in_exports == 66
        assert all(r.problems == () for r in reports)
        for report in reports:  # a link is resolved, or reported: never silently dropped
            assert report.links_resolved + len(report.unresolved) == report.links_relative
        view = vault.show("notion://e445ee1fb7ff4591be2de17d906df97e#About this project")
        assert "customer satisfaction" in view.text
        links = [link for link in vault.all_links() if link.source.startswith("notion/")]
    # Every link the index leaves unresolved points at something no export contains.
    names = {p.name for p in corpus.rglob("*")}
    paths = {p.relative_to(corpus).as_posix() for p in corpus.rglob("*")}
    short_ids = {split_export_name(n)[1][-8:] for n in names if split_export_name(n)[1]}
    unresolved = [link for link in links if not link.resolved]
    for link in unresolved:
        if link.raw.startswith("[["):
            assert link.raw[2:].split("|")[0][-8:] not in short_ids, link.raw
        else:  # kept as written: no file of the export is at that path under its page's folder
            # (another page's file of the same name is not it: qa50's Untitled.png)
            target = unquote(link.raw.rsplit("](", 1)[-1].rstrip(")"))
            assert not any(path.endswith("/" + target) for path in paths), link.raw
    assert len(unresolved) < len(links) / 10


@pytest.mark.model
def test_imported_pages_are_found_by_meaning_with_the_real_model(vault):
    report = vault.notion_import(FIXTURE, now=FROZEN_NOW)
    assert report.index.embedded == 0  # [model] enabled = false in this vault
    with Vault(vault.root, config=_model_on(vault)) as hybrid:
        assert hybrid.index(now=FROZEN_NOW).embedded >= 7
        result = hybrid.search("what happens to the session when a refresh token is reused",
                               k=3, now=FROZEN_NOW)
    assert result.arms == ("lexical", "semantic")
    closest = max(result.hits, key=lambda hit: hit.scores.semantic or 0.0)
    assert closest.ref == f"notion://{AUTH}#Token refresh"
    assert closest.ref in [hit.ref for hit in result.hits[:2]]


def _model_on(vault: Vault):
    from vault_engine.config import parse_config

    return parse_config(vault.root, {})


def test_a_folder_that_is_no_export_is_refused_and_prunes_nothing(vault, export, tmp_path):
    vault.notion_import(export, now=FROZEN_NOW)
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "readme.txt").write_text("not an export\n")
    (stray / "note.md").write_text("# A plain note\n")
    with pytest.raises(NotionError, match="holds no Notion pages"):
        vault.notion_import(stray, prune=True, now=FROZEN_NOW)
    assert {p.name for p in (vault.root / "notion").glob("*.md")} == NOTES


def test_another_exports_folder_is_refused_and_nothing_written(vault, export, tmp_path):
    """Told "kept, not pruned" once, the same import with --prune deleted the other export's
    notes on its next run (qa32 F4, qa34 N1): nothing is written into such a folder."""
    vault.notion_import(export, now=FROZEN_NOW)
    before = {p.relative_to(vault.root): p.read_bytes() for p in (vault.root / "notion").rglob("*") if p.is_file()}
    other = tmp_path / "other" / "Elsewhere"
    other.mkdir(parents=True)
    (other / "Unrelated page 99aa88bb77cc66dd55ee44ff33001122.md").write_text("# Unrelated page\nHello.\n")
    for _ in range(2):
        with pytest.raises(NotionError, match=f"none of the {len(NOTES)} note.s. in notion/ is a page of other: "
                                              "that folder holds another export, so nothing was imported"
                                              ".*--into notion/other"):
            vault.notion_import(other.parent, prune=True, now=FROZEN_NOW)
    after = {p.relative_to(vault.root): p.read_bytes() for p in (vault.root / "notion").rglob("*") if p.is_file()}
    assert after == before
    report = vault.notion_import(other.parent, into="notion/other", prune=True, now=FROZEN_NOW)
    assert report.new == ("notion/other/Unrelated page 33001122.md",) and report.pruned == ()


def test_a_copy_of_a_pages_note_never_takes_the_page_over(vault, export):
    """Obsidian's "Make a copy" sorts first: the next import moved the page's links onto the
    copy and said to delete the page's own note (qa32 F1)."""
    vault.notion_import(export, now=FROZEN_NOW)
    notion = vault.root / "notion"
    copy = notion / "Auth spec f3a4b5c6 1.md"
    copy.write_text((notion / "Auth spec f3a4b5c6.md").read_text().replace("# Auth spec", "# Auth spec (my draft)"))
    before = copy.read_bytes()
    report = vault.notion_import(export, now=FROZEN_NOW)
    assert copy.read_bytes() == before
    assert [p.path for p in report.problems] == ["notion/Auth spec f3a4b5c6 1.md"]
    assert "the page's note: left as it is" in report.problems[0].line()
    assert not any("f3a4b5c6 1" in p.read_text() for p in notion.glob("*.md") if p != copy)
    assert report.updated == () and report.new == ()


def test_a_page_whose_note_lives_outside_into_is_said_to_be_written_there(vault, export):
    """A second import --into another folder updated the first one's notes in place while
    its summary named the other folder alone (qa32 F2)."""
    vault.notion_import(export, now=FROZEN_NOW)
    page = vault.root / "notion" / "Auth spec f3a4b5c6.md"
    page.write_text(page.read_text().replace("title: Auth spec", "title: Auth spec, as it was", 1))
    report = vault.notion_import(export, into="notion/again", now=FROZEN_NOW + 5)
    assert not (vault.root / "notion" / "again").exists() or not any((vault.root / "notion" / "again").iterdir())
    assert any("already had a note outside notion/again/, written there" in n for n in report.notices)


def test_a_prune_that_would_delete_most_of_the_folder_deletes_nothing(vault, export):
    """An export sharing a few pages with the folder's was accepted, and its --prune deleted
    the other export's notes (25 of 30, qa36 N5): most of a folder is no vanished page."""
    vault.notion_import(export, now=FROZEN_NOW)
    space = export / f"Team Space {ROOT}"
    shutil.rmtree(space / f"Roadmap {ROADMAP}")
    for leftover in (f"Roadmap {ROADMAP}.csv", f"Roadmap {ROADMAP}_all.csv", f"Auth spec {AUTH}.md"):
        (space / leftover).unlink()
    shutil.rmtree(space / f"Auth spec {AUTH}")
    report = vault.notion_import(export, prune=True, now=FROZEN_NOW + 60)
    assert report.pruned == () and len(report.gone) == 4
    assert any(n.startswith("--prune would delete 4 of the 5 notes in notion/, most of it: this export is no mirror")
               for n in report.notices)
    assert NOTES <= {p.name for p in (vault.root / "notion").glob("*.md")}


def test_an_attachment_changed_since_the_import_is_kept_and_named_on_reimport(vault, export):
    """An annotated diagram had been replaced by the export's on every re-import, without a word
    (qa154); one unchanged since is brought up to date, as before."""
    vault.notion_import(export, now=FROZEN_NOW)
    copied = vault.root / "notion" / "Auth spec f3a4b5c6" / "flow diagram.png"
    copied.write_bytes(copied.read_bytes() + b"MY ANNOTATIONS")
    report = vault.notion_import(export, now=FROZEN_NOW + 60)
    assert copied.read_bytes().endswith(b"MY ANNOTATIONS") and report.attachments == 0
    said = [p for p in report.problems if p.path == "notion/Auth spec f3a4b5c6/flow diagram.png"]
    assert len(said) == 1 and said[0].reason.startswith("changed since the import wrote it")
    source = export / f"Team Space {ROOT}" / f"Auth spec {AUTH}" / "flow diagram.png"
    copied.write_bytes(source.read_bytes())  # put back as imported; then Notion's copy changes
    source.write_bytes(source.read_bytes() + b"NEW IN NOTION")
    report = vault.notion_import(export, now=FROZEN_NOW + 120)
    assert copied.read_bytes().endswith(b"NEW IN NOTION") and report.attachments == 1
    assert not [p for p in report.problems if p.path.endswith("flow diagram.png")]


def test_a_property_named_as_markdown_starts_keeps_the_page_s_other_properties():
    """`[Internal] Owner: Bob` had turned the whole block into text: the page's relations stayed
    raw and its dates were lost (qa154). A first paragraph of list items is no block."""
    from vault_engine.sources.notion.export import property_block

    page = ["# Conduct interviews", "", "Priority: High", "[Internal] Owner: Bob", "- Stage: 2",
            "Created: May 1, 2024 9:00 AM", "", "Body."]
    assert property_block(page) == (2, 6)
    assert property_block(["# Notes", "", "- a: 1", "- b: 2", "", "Body."]) == (0, 0)


def test_a_markdown_or_csv_file_a_page_links_to_is_its_attachment(vault, export):
    """`README.md` and `data.csv` attached to a page had been skipped as pages without an id, and
    the page's links to them reported missing (qa154)."""
    folder = export / f"Team Space {ROOT}" / f"Auth spec {AUTH}"
    (folder / "README.md").write_text("# Attached readme\n")
    (folder / "data.csv").write_text("a,b\n1,2\n")
    page = export / f"Team Space {ROOT}" / f"Auth spec {AUTH}.md"
    page.write_text(page.read_text() + f"\n[readme](Auth%20spec%20{AUTH}/README.md) and "
                                       f"[data](Auth%20spec%20{AUTH}/data.csv)\n")
    report = vault.notion_import(export, now=FROZEN_NOW)
    copied = vault.root / "notion" / "Auth spec f3a4b5c6"
    assert (copied / "README.md").read_text() == "# Attached readme\n" and (copied / "data.csv").exists()
    assert not [p for p in report.problems if p.path.endswith(("README.md", "data.csv"))]
    targets = {link.target_path for link in vault.links(f"notion://{AUTH}")}
    assert {"notion/Auth spec f3a4b5c6/README.md", "notion/Auth spec f3a4b5c6/data.csv"} <= targets


def test_a_database_s_rows_are_its_folder_s_pages_read_once_for_all():
    """Each database had read every page's folder again (8,000 pages and 800 databases: 22.7 s
    to convert, qa154); the pages under each folder are listed once."""
    from vault_engine.sources.notion.archive import ExportTree
    from vault_engine.sources.notion.export import Catalog, ExportEntry

    ids = [f"{n:032x}" for n in range(1, 6)]
    catalog = Catalog(ExportTree("x"))
    for ident, path in zip(ids, [f"Top {ids[0]}.md", f"Top {ids[0]}/A {ids[1]}.md", f"Top {ids[0]}/B {ids[2]}.md",
                                 f"Top {ids[0]}/DB {ids[3]}.md", f"Top {ids[0]}/DB {ids[3]}/Row {ids[4]}.md"]):
        catalog.pages[ident] = ExportEntry(path, ident, path)
    assert [p.notion_id for p in catalog.pages_under(ids[0])] == [ids[1], ids[2], ids[3]]
    assert [p.notion_id for p in catalog.pages_under(ids[3])] == [ids[4]] and catalog.pages_under(ids[4]) == []
