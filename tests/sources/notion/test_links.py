"""Links inside an export (vault_engine/sources/notion/links.py): resolved by id or path,
rewritten outside code, never pointed at another note."""

from __future__ import annotations

from vault_engine.sources.notion.archive import ExportFile
from vault_engine.sources.notion.links import (
    LinkTargets,
    owner_of,
    parent_id_of,
    rewrite_markdown_links,
    rewrite_relations,
)

PAGE, OTHER, DB = "11" * 16, "22" * 16, "33" * 16
STEMS = {PAGE: "Page 11111111", OTHER: "Other 22222222", DB: "Tasks 33333333"}
ATTACHMENTS = {f"Space/Page {PAGE}/photo one.png": ExportFile("x", lambda: b"png"),
               "Space/unique.pdf": ExportFile("y", lambda: b"pdf")}
FROM = f"Space/Page {PAGE}.md"


def targets() -> LinkTargets:
    return LinkTargets(ATTACHMENTS, dict(STEMS), {PAGE, OTHER, DB})


def test_links_after_a_code_block_are_rewritten_at_the_right_place():
    body = ("```\n[in code](Other%20" + OTHER + ".md)\n```\n\n"
            f"## After\n\n[Other](Page%20{PAGE}/Other%20{OTHER}.md) and "
            "[site](https://example.com)\n")
    out = rewrite_markdown_links(body, FROM, t := targets())
    assert out == ("```\n[in code](Other%20" + OTHER + ".md)\n```\n\n"
                   "## After\n\n[[Other 22222222|Other]] and [site](https://example.com)\n")
    assert (t.stats.relative, t.stats.resolved) == (1, 1)


def test_a_link_to_a_database_md_resolves_by_id_to_its_csv_note():
    # Notion links a full-page database as "Tasks <id>.md" although only the CSV exists.
    out = rewrite_markdown_links(f"[Tasks](Somewhere/Tasks%20{DB}.md)", FROM, targets())
    assert out == "[[Tasks 33333333|Tasks]]"


def test_attachments_resolve_relative_to_the_page_then_by_unique_name():
    t = targets()
    out = rewrite_markdown_links(f"![p](Page%20{PAGE}/photo%20one.png) [doc](../elsewhere/unique.pdf)",
                                 FROM, t)
    assert out == "![p](Page%2011111111/photo%20one.png) [doc](Page%2011111111/unique.pdf)"
    assert t.placed == {f"Space/Page {PAGE}/photo one.png": (PAGE, "photo one.png"),
                        "Space/unique.pdf": (PAGE, "unique.pdf")}


def test_a_missing_file_of_one_page_is_never_another_pages_file_of_that_name():
    """Rebranding's `Untitled.png`, missing from the export, showed Website redesign's (qa50)."""
    t = targets()
    out = rewrite_markdown_links(f"![lost](Other%20{OTHER}/photo%20one.png)", f"Space/Other {OTHER}.md", t)
    assert out == f"![lost](Other%20{OTHER}/photo%20one.png)"  # kept as written, and reported
    assert [u.reason.split(":")[0] for u in t.stats.unresolved] == ["file missing from the export"]
    elsewhere = rewrite_markdown_links("![moved](Misplaced/photo%20one.png)", f"Space/Other {OTHER}.md", t)
    assert elsewhere == "![moved](Page%2011111111/photo%20one.png)"  # no page folder named: by its name


def test_missing_files_and_pages_outside_the_export_are_reported():
    t = targets()
    out = rewrite_markdown_links(f"[gone](Page%20{PAGE}/missing.png) "
                                 f"[far](../Far%20{'44' * 16}/Far%20page%20{'44' * 16}.md)", FROM, t)
    assert out == f"[gone](Page%20{PAGE}/missing.png) [[Far page 44444444|far]]"
    assert [u.reason.split(":")[0] for u in t.stats.unresolved] == [
        "file missing from the export", "page neither in the export nor in the vault"]
    assert t.stats.resolved == 0 and t.stats.relative == 2


def test_relations_with_commas_in_titles_and_bare_paths():
    t = targets()
    value = (f"Plan, phase 2 (Other%20{OTHER}.md), Tasks (x/Tasks%20{DB}.csv)")
    assert rewrite_relations(value, FROM, t) == "[[Other 22222222|Plan, phase 2]], [[Tasks 33333333|Tasks]]"
    assert rewrite_relations("unique.pdf", FROM, t) == "[unique.pdf](Page%2011111111/unique.pdf)"
    assert rewrite_relations("0.25", FROM, t) == "0.25"
    assert rewrite_relations(f"A (Other%20{OTHER}.md)", FROM, t, in_table=True) == "[[Other 22222222\\|A]]"


def test_owner_and_parent_come_from_the_nearest_id_folder():
    assert owner_of(f"Space/Page {PAGE}/img/a b.png", STEMS) == (PAGE, "img/a b.png")
    assert owner_of("Space/loose.png", STEMS) == (None, "")
    assert parent_id_of(f"Space/Page {PAGE}/Tasks {DB}/Row {OTHER}.md") == DB
    assert parent_id_of("Space/Top.md") is None
