"""Notion notes on disk (vault_engine/sources/notion/pages.py): names, frontmatter, writes."""

from __future__ import annotations

import os

import pytest

from tests.conftest import FROZEN_NOW
from vault_engine.errors import NotionError
from vault_engine.parsing.frontmatter import split_frontmatter
from vault_engine.sources.notion.pages import (
    Attachment,
    NotionPage,
    PageWriter,
    body_digest,
    check_into,
    normalize_id,
    note_stem_for,
    render_note,
    safe_title,
    scan_existing,
    wikilink,
    write_if_changed,
)

ID_A = "104d4deadd2c805fb3abcaab6d3727e7"
ID_B = "104d4deadd2c803a935ef9916d3727e7"  # same last 8 digits as ID_A


@pytest.mark.parametrize("title, expected", [
    ("Auth spec", "Auth spec"),
    ("Q3: plan / review #2 [draft]", "Q3 plan review 2 draft"),
    ('a*b?c"d<e>f|g^h\\i', "a b c d e f g h i"),
    ("  .hidden.  ", "hidden"),
    ("", "Untitled"),
    ("x" * 120, "x" * 80),
])
def test_safe_title(title, expected):
    assert safe_title(title) == expected


def test_stems_use_the_random_end_of_the_id():
    assert note_stem_for("Design", ID_A) == "Design 6d3727e7"


@pytest.mark.parametrize("text, expected", [
    ("104D4DEA-DD2C-805F-B3AB-CAAB6D3727E7", ID_A), (ID_A, ID_A), ("nope", None), (None, None)])
def test_normalize_id(text, expected):
    assert normalize_id(text) == expected


def test_wikilinks_escape_their_pipe_inside_tables():
    assert wikilink("Design 6d3727e7", "Design") == "[[Design 6d3727e7|Design]]"
    assert wikilink("Design 6d3727e7", "Design", in_table=True) == "[[Design 6d3727e7\\|Design]]"
    assert wikilink("Design 6d3727e7", "Design 6d3727e7") == "[[Design 6d3727e7]]"
    assert wikilink("Design 6d3727e7", "a [b] | c") == "[[Design 6d3727e7|a  b    c]]"


def test_rendered_frontmatter_reads_back_exactly():
    page = NotionPage(ID_A, "Plan: v2 — \"final\"", "# Plan\n\nbody", parent_id=None,
                      last_edited_time="2026-11-20T16:05:00Z", extra=(("notion_object", "database"),))
    fm = split_frontmatter(render_note(page, "Export.zip", "2026-11-29T10:00:00Z"))
    assert fm.error is None and fm.body == "# Plan\n\nbody\n"
    assert fm.meta == {"type": "notion", "notion_id": ID_A, "title": "Plan: v2 — \"final\"",
                       "parent_id": None, "source": "Export.zip", "imported": "2026-11-29T10:00:00Z",
                       "last_edited_time": "2026-11-20T16:05:00Z", "notion_object": "database",
                       "body_hash": body_digest("# Plan\n\nbody")}


def test_write_if_changed_keeps_an_identical_file_untouched(tmp_path):
    path = tmp_path / "a" / "note.md"
    assert write_if_changed(path, b"one") is True
    os.utime(path, ns=(1, 1))
    assert write_if_changed(path, b"one") is False and path.stat().st_mtime_ns == 1
    assert write_if_changed(path, b"two") is True and path.read_bytes() == b"two"
    assert [p.name for p in path.parent.iterdir()] == ["note.md"]  # no temp file left behind


def test_two_pages_with_one_name_get_distinct_files(tmp_path):
    pages = [NotionPage(ID_A, "Design", "# A"), NotionPage(ID_B, "Design", "# B")]
    result = PageWriter(tmp_path, "notion", "x", FROZEN_NOW, {}).write_all(pages)
    assert sorted(result.new) == [f"notion/Design {ID_A}.md", "notion/Design 6d3727e7.md"]
    assert "# B" in (tmp_path / "notion" / "Design 6d3727e7.md").read_text()  # lower id first


def test_attachments_go_into_the_folder_named_like_the_note(tmp_path):
    page = NotionPage(ID_A, "Design", "# A", attachments=(Attachment("img/a.png", lambda: b"png"),))
    result = PageWriter(tmp_path, "notion", "x", FROZEN_NOW, {}).write_all([page])
    assert (tmp_path / "notion" / "Design 6d3727e7" / "img" / "a.png").read_bytes() == b"png"
    assert result.attachments == 1


def test_prune_keeps_an_attachment_folder_that_holds_a_note(tmp_path):
    writer = PageWriter(tmp_path, "notion", "x", FROZEN_NOW, {})
    writer.write_all([NotionPage(ID_A, "Design", "# A",
                                 attachments=(Attachment("a.png", lambda: b"png"),))])
    mine = tmp_path / "notion" / "Design 6d3727e7" / "my notes.md"
    mine.write_text("mine")
    existing, _ = scan_existing(tmp_path, ["notion"])
    removed, kept = writer.prune([existing[ID_A]])
    assert removed == ["notion/Design 6d3727e7.md"]
    assert [p.path for p in kept] == ["notion/Design 6d3727e7/my notes.md"]
    assert mine.read_text() == "mine"
    assert not (tmp_path / "notion" / "Design 6d3727e7" / "a.png").exists()


def test_prune_deletes_only_the_unchanged_attachments_it_wrote_and_names_the_rest(tmp_path):
    writer = PageWriter(tmp_path, "notion", "x", FROZEN_NOW, {})
    writer.write_all([NotionPage(ID_A, "Design", "# A", attachments=(
        Attachment("a.png", lambda: b"png"), Attachment("img/b.png", lambda: b"b"),
        Attachment("c.png", lambda: b"c")))])
    folder = tmp_path / "notion" / "Design 6d3727e7"
    (folder / "my-sketch.png").write_bytes(b"my sketch")
    (folder / "notes.txt").write_text("kept?")
    (folder / "c.png").write_bytes(b"c, redrawn by me")
    existing, _ = scan_existing(tmp_path, ["notion"])
    assert existing[ID_A].local_edit is None  # attachment_hashes is the writer's own property
    removed, kept = writer.prune([existing[ID_A]])
    assert removed == ["notion/Design 6d3727e7.md"]
    assert [p.path for p in kept] == [f"notion/Design 6d3727e7/{n}" for n in ("c.png", "my-sketch.png", "notes.txt")]
    assert all("not written by the Notion import, or changed since: kept" in p.reason for p in kept)
    assert sorted(p.name for p in folder.rglob("*")) == ["c.png", "my-sketch.png", "notes.txt"]


def test_prune_of_a_note_without_attachment_hashes_keeps_every_file(tmp_path):
    folder = tmp_path / "notion" / "Design 6d3727e7"
    folder.mkdir(parents=True)
    (folder / "a.png").write_bytes(b"png")  # written by an import that recorded no hashes
    (tmp_path / "notion" / "Design 6d3727e7.md").write_text(
        f"---\nnotion_id: {ID_A}\nbody_hash: {body_digest('# A')}\n---\n# A\n")
    existing, _ = scan_existing(tmp_path, ["notion"])
    removed, kept = PageWriter(tmp_path, "notion", "x", FROZEN_NOW, existing).prune([existing[ID_A]])
    assert removed == ["notion/Design 6d3727e7.md"] and [p.path for p in kept] == ["notion/Design 6d3727e7/a.png"]
    assert (folder / "a.png").read_bytes() == b"png"


def test_a_note_without_body_hash_is_never_overwritten_or_pruned(tmp_path):
    """A page placed by hand (sample-vault's Notion pages) records no body_hash: whether it
    was edited cannot be told, so an import over it, or a prune, keeps it and says why."""
    note = tmp_path / "notion" / "Design 6d3727e7.md"
    note.parent.mkdir()
    note.write_text(f"---\nnotion_id: {ID_A}\n---\n# A\nmy own line\n")
    existing, _ = scan_existing(tmp_path, ["notion"])
    writer = PageWriter(tmp_path, "notion", "x", FROZEN_NOW, existing)
    result = writer.write_all([NotionPage(ID_A, "Renamed upstream", "# A, from Notion")])
    assert note.read_text().endswith("my own line\n") and not (tmp_path / "notion" / "Renamed upstream 6d3727e7.md").exists()
    assert [p.path for p in result.problems] == ["notion/Design 6d3727e7.md"]
    assert "no body_hash" in result.problems[0].reason and "delete it to take Notion's version" in result.problems[0].reason
    assert writer.prune([existing[ID_A]]) == ([], []) and note.exists()


def test_scan_existing_reports_two_notes_with_one_id(tmp_path):
    for name in ("a.md", "b.md"):
        (tmp_path / "notion").mkdir(exist_ok=True)
        (tmp_path / "notion" / name).write_text(f"---\nnotion_id: {ID_A}\n---\n# {name}\n")
    found, problems = scan_existing(tmp_path, ["notion", "notion"])
    assert found[ID_A].rel_path == "notion/a.md"
    assert [p.path for p in problems] == ["notion/b.md"]


def test_into_may_not_leave_the_vault_through_a_symlink(tmp_path):
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    vault.mkdir()
    outside.mkdir()
    (vault / "notion").symlink_to(outside)
    with pytest.raises(NotionError, match="leads outside the vault"):
        check_into(vault, "notion")
    assert check_into(vault, "./team/notion/") == "team/notion"


def import_over_an_edit(tmp_path, edit):
    """A note an import wrote, changed in the vault by ``edit`` (its text -> the new text),
    then imported again with new text from Notion: (note, edited text, writer, existing, result)."""
    PageWriter(tmp_path, "notion", "x", FROZEN_NOW, {}).write_all([NotionPage(ID_A, "Design", "# A\nold")])
    note = tmp_path / "notion" / "Design 6d3727e7.md"
    edited = edit(note.read_text())
    note.write_text(edited)
    existing, _ = scan_existing(tmp_path, ["notion"])
    writer = PageWriter(tmp_path, "notion", "x", FROZEN_NOW + 60, existing)
    return note, edited, writer, existing, writer.write_all([NotionPage(ID_A, "Design", "# A\nnew from Notion")])


def test_a_note_edited_in_the_vault_is_never_overwritten_or_pruned(tmp_path):
    note, edited, writer, existing, result = import_over_an_edit(
        tmp_path, lambda text: text.replace("old", "my local edit"))
    assert note.read_text() == edited
    assert [(p.path, "edited in the vault" in p.reason) for p in result.problems] == [(
        "notion/Design 6d3727e7.md", True)]
    assert writer.prune([existing[ID_A]]) == ([], []) and note.read_text() == edited


def test_an_unedited_note_is_updated(tmp_path):
    PageWriter(tmp_path, "notion", "x", FROZEN_NOW, {}).write_all([NotionPage(ID_A, "Design", "# A\nold")])
    existing, _ = scan_existing(tmp_path, ["notion"])
    result = PageWriter(tmp_path, "notion", "x", FROZEN_NOW + 60, existing).write_all(
        [NotionPage(ID_A, "Design", "# A\nnew")])
    assert result.updated == ["notion/Design 6d3727e7.md"] and result.problems == []


def test_properties_added_in_the_vault_count_as_an_edit(tmp_path):
    note, tagged, writer, existing, result = import_over_an_edit(
        tmp_path, lambda text: text.replace("title: Design\n", "title: Design\ntags: [design-debt]\nowner: priya\n"))
    assert note.read_text() == tagged and result.updated == []
    assert [p.reason.split(":")[0] for p in result.problems] == [
        "edited in the vault since the last Notion import or sync (properties tags, owner added)"]
    assert writer.prune([existing[ID_A]]) == ([], []) and note.read_text() == tagged


def test_a_changed_value_of_a_written_property_is_no_edit(tmp_path):
    PageWriter(tmp_path, "notion", "x", FROZEN_NOW, {}).write_all([NotionPage(ID_A, "Design", "# A\nold")])
    note = tmp_path / "notion" / "Design 6d3727e7.md"
    note.write_text(note.read_text().replace("title: Design", "title: Renamed here"))
    existing, _ = scan_existing(tmp_path, ["notion"])
    assert existing[ID_A].local_edit is None


def test_written_files_get_a_plain_files_mode_and_keep_their_own(tmp_path):
    old = os.umask(0o022)
    try:
        new, kept = tmp_path / "new.md", tmp_path / "kept.md"
        write_if_changed(new, b"one")
        kept.write_bytes(b"old")
        kept.chmod(0o640)
        write_if_changed(kept, b"new")
    finally:
        os.umask(old)
    assert (new.stat().st_mode & 0o777, kept.stat().st_mode & 0o777) == (0o644, 0o640)
