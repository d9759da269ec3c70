"""Notion blocks, rich text and properties as Markdown (vault_engine/sources/notion/markdown.py)."""

from __future__ import annotations

import pytest

from tests.sources.notion.fake_notion import block, dashed, mention, page, text
from vault_engine.sources.notion.markdown import (
    KnownPages,
    blocks_to_markdown,
    database_markdown,
    object_title,
    page_markdown,
    property_value,
    rich_text,
)

KNOWN_ID, UNKNOWN_ID = "ab" * 16, "cd" * 16
KNOWN = KnownPages({KNOWN_ID: "Design doc abababab"})


def md(*blocks) -> str:
    return blocks_to_markdown(list(blocks), KNOWN)


def para(*rich) -> dict:
    return block("01" * 16, "paragraph", {"rich_text": list(rich)})


# -- rich text ----------------------------------------------------------------------------


def test_annotations_keep_spaces_outside_the_markers():
    rich = [text("plain "), text("bold ", bold=True), text("italic", italic=True), text(" "),
            text("gone", strikethrough=True), text(" "), text("x = 1", code=True),
            text(" all", bold=True, italic=True)]
    assert rich_text(rich, KNOWN) == "plain **bold** *italic* ~~gone~~ `x = 1` ***all***"


def test_text_typed_as_plain_in_notion_is_plain_in_the_note():
    """A paragraph "# Not a heading" had become a heading, "[[x]]" a link and "*a*" italics;
    code holding a backtick had been cut (qa170)."""
    assert md(para(text("# Not a heading")), para(text("1. not a list")), para(text("- nor a bullet"))) == \
        "\\# Not a heading\n\n1\\. not a list\n\n\\- nor a bullet"
    assert rich_text([text("*a* [[x]] <b> $5 %%c%% ==h== snake_case __init__ #tag C#")], KNOWN) == \
        "\\*a\\* \\[\\[x\\]\\] \\<b> \\$5 \\%\\%c\\%\\% \\=\\=h\\=\\= snake_case \\_\\_init\\_\\_ \\#tag C#"
    assert rich_text([text("a\n- b "), text("*x*", code=True), text(" "), text("q `t` r", code=True)], KNOWN) == \
        "a\n\\- b `*x*` `` q `t` r ``"
    # a rule, a heading's underline, an indent, an entity and a block id stay text (qa176)
    assert rich_text([text("---\nTitle\n-\n    four in\nR&amp;D ^abc\n\ttab in")], KNOWN) == \
        "\\---\nTitle\n\\-\n\u00a0\u00a0\u00a0\u00a0four in\nR\\&amp;D \\^abc\n\u00a0\u00a0\u00a0\u00a0tab in"


def test_links_mentions_and_equations():
    rich = [text("see "), text("the RFC", link="https://example.com/rfc"), text(", "),
            mention(KNOWN_ID, "Design doc"), text(", "), mention(UNKNOWN_ID, "Later page"),
            text(", "), {"type": "equation", "equation": {"expression": "e^{i\\pi}"}, "plain_text": ""}]
    assert rich_text(rich, KNOWN) == ("see [the RFC](https://example.com/rfc), "
                                      "[[Design doc abababab|Design doc]], "
                                      "[[Later page cdcdcdcd|Later page]], $e^{i\\pi}$")


def test_a_link_to_a_known_notion_page_becomes_a_wikilink():
    rich = [text("spec", link=f"/{KNOWN_ID}"), text(" and "), text("other", link=f"/{UNKNOWN_ID}")]
    assert rich_text(rich, KNOWN) == (f"[[Design doc abababab|spec]] and "
                                      f"[other](https://www.notion.so/{UNKNOWN_ID})")


def test_user_and_date_mentions_keep_their_text():
    user = {"type": "mention", "mention": {"type": "user", "user": {"id": "u1"}}, "plain_text": "@Dana"}
    date = {"type": "mention", "mention": {"type": "date", "date": {"start": "2026-12-01"}},
            "plain_text": "December 1, 2026"}
    assert rich_text([user, text(" by "), date], KNOWN) == "@Dana by December 1, 2026"


def test_pipes_are_escaped_inside_tables():
    assert rich_text([text("a | b"), mention(KNOWN_ID, "Design doc")], KNOWN, in_table=True) == \
        "a \\| b[[Design doc abababab\\|Design doc]]"


# -- blocks -------------------------------------------------------------------------------


def test_headings_paragraphs_and_dividers_are_separated_by_blank_lines():
    blocks = [block("01" * 16, "heading_1", {"rich_text": [text("One")]}),
              para(text("first")), block("02" * 16, "divider"),
              block("03" * 16, "heading_3", {"rich_text": [text("Three")]}), para(text("last"))]
    assert md(*blocks) == "# One\n\nfirst\n\n---\n\n### Three\n\nlast"


def test_consecutive_list_items_stay_one_list_with_nested_children():
    child = block("11" * 16, "numbered_list_item", {"rich_text": [text("step one")]})
    parent = block("12" * 16, "bulleted_list_item", {"rich_text": [text("plan")]}, has_children=True)
    parent["children"] = [child, block("13" * 16, "to_do", {"rich_text": [text("done")], "checked": True})]
    todo = block("14" * 16, "to_do", {"rich_text": [text("open")], "checked": False})
    assert md(parent, todo) == "- plan\n    1. step one\n    - [x] done\n- [ ] open"


def test_toggles_quotes_and_callouts_carry_their_children():
    toggle = block("21" * 16, "toggle", {"rich_text": [text("More")]}, has_children=True)
    toggle["children"] = [para(text("hidden detail"))]
    quote = block("22" * 16, "quote", {"rich_text": [text("said once")]}, has_children=True)
    quote["children"] = [para(text("and again"))]
    callout = block("23" * 16, "callout", {"rich_text": [text("Heads up")], "icon": {"emoji": "💡"}})
    assert md(toggle, quote, callout) == (
        "- More\n    hidden detail\n\n> said once\n>\n> and again\n\n> [!note]\n> 💡 Heads up")


def test_code_keeps_its_language_and_text_verbatim():
    code = block("31" * 16, "code", {"language": "plain text",
                                      "rich_text": [text("a **not bold**\n```inner```")]})
    assert md(code) == "````\na **not bold**\n```inner```\n````"


def test_tables_use_the_first_row_as_header():
    table = block("41" * 16, "table", {"table_width": 2}, has_children=True)
    table["children"] = [block("42" * 16, "table_row", {"cells": [[text("k")], [text("v")]]}),
                         block("43" * 16, "table_row", {"cells": [[text("ttl")], []]})]
    assert md(table) == "| k | v |\n| --- | --- |\n| ttl |  |"


def test_child_pages_and_databases_are_links_to_their_notes():
    child = block(KNOWN_ID, "child_page", {"title": "Design doc"})
    database = block(UNKNOWN_ID, "child_database", {"title": "Bugs"})
    linked = block("51" * 16, "link_to_page", {"type": "page_id", "page_id": dashed(KNOWN_ID)})
    assert md(child, database, linked) == (
        "[[Design doc abababab|Design doc]]\n\n[[Bugs cdcdcdcd|Bugs]]\n\n[[Design doc abababab]]")


def test_media_and_bookmarks_link_their_urls():
    image = block("61" * 16, "image", {"type": "external", "external": {"url": "https://x.io/a.png"},
                                       "caption": [text("diagram")]})
    file = block("62" * 16, "file", {"type": "file", "file": {"url": "https://s3/f.pdf"}, "name": "f.pdf"})
    mark = block("63" * 16, "bookmark", {"url": "https://example.com", "caption": []})
    assert md(image, file, mark) == ("![diagram](https://x.io/a.png)\n\n[f.pdf](https://s3/f.pdf)"
                                     "\n\n[https://example.com](https://example.com)")


def test_columns_and_synced_blocks_show_their_content_in_order():
    column_list = block("71" * 16, "column_list", {}, has_children=True)
    left, right = block("72" * 16, "column", {}, True), block("73" * 16, "column", {}, True)
    left["children"], right["children"] = [para(text("left"))], [para(text("right"))]
    column_list["children"] = [left, right]
    assert md(column_list) == "left\n\nright"


def test_an_unknown_block_is_a_visible_placeholder_not_silence():
    odd = block("81" * 16, "meeting_notes", {}, has_children=True)
    odd["children"] = [para(text("still here"))]
    assert md(odd, block("82" * 16, "table_of_contents")) == (
        "*[Notion block 'meeting_notes' not converted: open the page in Notion to see it]*\n"
        "still here")


# -- pages, properties, databases ---------------------------------------------------------


def test_a_page_is_title_then_property_lines_then_body():
    obj = page(KNOWN_ID, "Design doc", "2026-11-20T10:00:00.000Z", properties={
        "Status": {"type": "status", "status": {"name": "Draft"}},
        "Tags": {"type": "multi_select", "multi_select": [{"name": "auth"}, {"name": "api"}]},
        "Empty": {"type": "rich_text", "rich_text": []},
        "Due": {"type": "date", "date": {"start": "2026-12-01", "end": "2026-12-05"}},
        "Done": {"type": "checkbox", "checkbox": False},
        "Related": {"type": "relation", "relation": [{"id": dashed(KNOWN_ID)}, {"id": dashed(UNKNOWN_ID)}]},
    })
    assert page_markdown(obj, [para(text("Body."))], KNOWN) == (
        "# Design doc\n\nStatus: Draft\nTags: auth, api\nDue: 2026-12-01 → 2026-12-05\nDone: No\n"
        f"Related: [[Design doc abababab]], notion://{UNKNOWN_ID}\n\nBody.\n")


@pytest.mark.parametrize("prop, expected", [
    ({"type": "number", "number": 3.0}, "3"),
    ({"type": "number", "number": 0.25}, "0.25"),
    ({"type": "formula", "formula": {"type": "string", "string": "ok"}}, "ok"),
    ({"type": "rollup", "rollup": {"type": "array", "array": [
        {"type": "select", "select": {"name": "a"}}, {"type": "number", "number": 2}]}}, "a, 2"),
    ({"type": "unique_id", "unique_id": {"prefix": "BUG", "number": 7}}, "BUG-7"),
    ({"type": "url", "url": "https://x.io"}, "https://x.io"),
    ({"type": "people", "people": [{"name": "Dana"}, {"id": "u2"}]}, "Dana, u2"),
    ({"type": "select", "select": None}, ""),
])
def test_property_values(prop, expected):
    assert property_value(prop, KNOWN) == expected


def test_titles_of_pages_databases_and_untitled_objects():
    assert object_title(page(KNOWN_ID, "Design doc", "x")) == "Design doc"
    assert object_title({"object": "database", "title": [text("Bugs")]}) == "Bugs"
    assert object_title({"object": "page", "properties": {}}) == "Untitled"


def test_a_database_note_is_a_table_of_its_rows():
    rows = [page(KNOWN_ID, "Design doc", "x", properties={"Status": {"type": "status", "status": {"name": "Draft | 1"}}}),
            page(UNKNOWN_ID, "Bug", "x", properties={"Owner": {"type": "rich_text", "rich_text": [text("Kim")]}})]
    assert database_markdown("Docs", rows, KNOWN).split("\n") == [
        "# Docs", "", "| Name | Status | Owner |", "| --- | --- | --- |",
        "| [[Design doc abababab\\|Design doc]] | Draft \\| 1 |  |",
        "| [[Bug cdcdcdcd\\|Bug]] |  | Kim |", ""]
