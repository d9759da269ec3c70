"""The TUI's pure text helpers."""

from pathlib import Path

import pytest

from tui.formatting import (
    DAMAGED,
    LINK_SCHEME,
    Health,
    age_text,
    bar,
    clip,
    clip_path,
    display_path,
    health_of,
    iso_date,
    link_label,
    link_text,
    linkify,
    watcher_text,
)
from vault_engine.model import ResolvedLink


def link(raw: str, line: int, ref: str | None = "specs/a.md") -> ResolvedLink:
    return ResolvedLink(raw, ref, ref, None, ref is not None, False, raw.startswith("!"), line)


def test_display_path_shortens_home_and_leaves_other_paths():
    assert display_path(Path("/home/ann/notes/vault"), home=Path("/home/ann")) == "~/notes/vault"
    assert display_path(Path("/srv/vault"), home=Path("/home/ann")) == "/srv/vault"


def test_bar_fills_in_proportion_and_clamps():
    assert bar(0.5, width=10) == "█████░░░░░"
    assert bar(1.7, width=4) == "████"
    assert bar(-1, width=4) == "░░░░"


def test_ages_and_dates_read_short():
    assert [age_text(d) for d in (0.2, 3, 30, 400)] == ["today", "3 d", "4 w", "13 mo"]
    assert iso_date(1_795_953_600.0) == "2026-11-29"
    assert iso_date(None) == "undated"


def test_health_says_what_to_do_when_stale_or_the_watcher_died():
    fresh = health_of({"notes": 35, "stale": {"changed": 0, "missing": 0},
                       "watcher": {"state": "off"}})
    assert fresh == Health("35 notes · up to date · watcher off", warning=False)
    one = health_of({"notes": 1, "stale": {"changed": 0, "missing": 0}, "watcher": {"state": "off"}})
    assert one.text.startswith("1 note · ")  # "1 notes" (qa145)
    stale = health_of({"notes": 35, "stale": {"changed": 2, "missing": 1},
                       "watcher": {"state": "stale"}})
    assert stale == Health("35 notes · 3 stale: press F5 · watcher died", warning=True)
    # an interrupted run left the words index a step behind: it answers, so no DAMAGED (qa109)
    behind = {"notes": 35, "stale": {"changed": 0, "missing": 0}, "watcher": {"state": "off"},
              "damage": ["the lexical index is out of step with the ledger: ..."], "lexical": {"interrupted": True}}
    assert health_of(behind) == Health("35 notes · index BEHIND: press F5 · watcher off", warning=True)
    assert health_of({**behind, "damage": [*behind["damage"], "the vector index is damaged: ..."]}) == DAMAGED
    assert health_of({**behind, "lexical": {"interrupted": False}}) == DAMAGED


def test_watcher_states():
    assert watcher_text(None) == "watcher off"
    assert watcher_text({"state": "watching", "pid": 12}) == "watcher on"
    assert watcher_text({"state": "running"}) == "watcher on"


def test_linkify_rewrites_only_the_links_the_index_found_on_their_line():
    body = "See [[a|the spec]] and [[b]].\n`[[a]]` in code is not a link\n![[img.png]]"
    links = [link("[[a|the spec]]", 5), link("[[b]]", 5, ref=None), link("![[img.png]]", 7)]
    out = linkify(body, links, first_line=5).split("\n")
    assert out[0] == f"See [the spec]({LINK_SCHEME}0) and [b]({LINK_SCHEME}1)."
    assert out[1] == "`[[a]]` in code is not a link"  # the index found no link on line 6
    assert out[2] == f"[img.png]({LINK_SCHEME}2)"


def test_markdown_links_are_left_alone_and_labels_follow_obsidian():
    body = "[text](specs/a.md)"
    assert linkify(body, [link("[text](specs/a.md)", 1)], first_line=1) == body
    assert link_label("[[Note#Heading|shown]]") == "shown"
    assert link_label("![[Note#Heading]]") == "Note#Heading"


def test_list_lines_are_cut_to_fit_keeping_what_matters():
    assert clip("specs/audio-pipeline.md#Buffers", 12) == "specs/audio…"
    assert clip("short", 12) == "short"


CHECKPOINT = "projects/billing-service/checkpoints/20261029T154500Z-codex-a12.md:12"


@pytest.mark.parametrize("width", range(0, len(CHECKPOINT) + 2))
def test_a_cut_path_fits_its_width(width):
    cut = clip_path(CHECKPOINT, width)
    assert len(cut) <= width and (cut == CHECKPOINT) == (width >= len(CHECKPOINT))
    assert "…" in cut or width in (0, len(CHECKPOINT), len(CHECKPOINT) + 1)


def test_a_path_is_cut_in_the_middle_keeping_the_project_and_the_file_name():
    assert clip_path(CHECKPOINT, 80) == CHECKPOINT
    assert clip_path(CHECKPOINT, 60) == "projects/billing-service/…/20261029T154500Z-codex-a12.md:12"
    assert clip_path(CHECKPOINT, 40) == "projects/billing-service/…odex-a12.md:12"  # the project stays
    assert clip_path("projects/drone-audio/runbook.md", 30) == "projects/drone-aud…/runbook.md"
    assert clip_path("specs/audio-pipeline.md#Buffers#DMA ring", 38) == "specs/audio-pipe…e.md#Buffers#DMA ring"
    assert clip_path("one-very-long-name-without-any-folder.md", 20) == "one-ve…any-folder.md"


def test_markdown_links_are_listed_by_their_text_wiki_links_as_written():
    assert link_text("[Roadmap](Engineering%20Roadmap%208c1f.md)") == "[Roadmap]"
    assert link_text("![[glossary#Beamforming]]") == "![[glossary#Beamforming]]"


def test_callouts_and_tasks_are_shown_as_obsidian_shows_them_code_left_alone():
    from tui.formatting import obsidian_markdown

    body = ("> [!faq]- Why 48 kHz?\n> Because the codec.\n"
            "- [ ] Jonas: check\n- [x] done\n"
            "```\n- [ ] in code\n> [!note] in code\n```")
    assert obsidian_markdown(body).split("\n") == [
        "> **FAQ · Why 48 kHz?**\\", "> Because the codec.", "- ☐ Jonas: check", "- ☑ done",
        "```", "- [ ] in code", "> [!note] in code", "```"]
    assert obsidian_markdown("> [!deadend] Grommets")[2:] == "**Deadend · Grommets**"


def test_a_callouts_title_is_a_line_of_its_own():
    """The quote's next line ran on after the title in one paragraph: "Failed · Use the card's
    SPI mode at 50 MHz The signal integrity ..." (qa145). A hard break ends the title, and
    only where more of the quote follows (at a paragraph's end a backslash is shown)."""
    from markdown_it import MarkdownIt

    from tui.formatting import obsidian_markdown

    shown = obsidian_markdown("> [!failed] Use SPI at 50 MHz\n> The signal fell apart.\n\n> [!note] Alone\n")
    inline = [t for t in MarkdownIt("commonmark").parse(shown) if t.type == "inline"]
    parts = [(c.type, c.content) for c in inline[0].children if c.content or c.type != "text"]
    assert parts[-4:] == [("text", "Failed · Use SPI at 50 MHz"), ("strong_close", ""), ("hardbreak", ""),
                          ("text", "The signal fell apart.")]
    assert "hardbreak" not in [c.type for c in inline[1].children] and not inline[1].content.endswith("\\")
    # nor before a block of its own: a list under the title had shown a backslash (qa148)
    listed = obsidian_markdown("> [!failed] Simple title\n> - first\n> - second\n")
    assert listed.split("\n")[0] == "> **Failed · Simple title**"


def test_html_tags_are_their_text_so_a_paragraph_opening_with_one_is_shown():
    """Textual drops an HTML block: the paragraph of a line opening with a tag was gone (qa55)."""
    from tui.formatting import obsidian_markdown

    body = ("<b>bold</b> and [link](http://x.org) okapi, `<kbd>` stays\n"
            "| `done`<br>`not done` | a <br/> b |\n```\n<b>code</b>\n```\n<https://example.com>")
    assert obsidian_markdown(body).split("\n") == [
        "bold and [link](http://x.org) okapi, `<kbd>` stays", "| `done` / `not done` | a  /  b |",
        "```", "<b>code</b>", "```", "<https://example.com>"]


def test_the_opened_sections_heading_is_marked():
    from tui.formatting import obsidian_markdown

    body = "# Title\n\n## Summary\ntext\n## Failed\n- x"
    assert obsidian_markdown(body, opened_row=4).split("\n")[4] == "## ▶ Failed"
    assert obsidian_markdown(body, opened_row=3).split("\n")[3] == "▶ text"  # a backlink's line too


def test_only_resolved_wikilinks_become_links_each_numbered():
    from tui.formatting import link_wikilinks

    text, targets = link_wikilinks("see [[a#B|the b]] and [[gone]] and [[c]]",
                                   {"[[a#B|the b]]": "notes/a.md#B", "[[c]]": "c.md"})
    assert text == "see [the b](vault-link:0) and [[gone]] and [c](vault-link:1)"
    assert targets == ("notes/a.md#B", "c.md")


def test_hanging_lines_keep_each_lines_indent_and_list_marker_apart():
    from tui.formatting import HangingLine, hanging_lines

    text = "This was tried before.\n\n1. Drop the mic\n   Why it failed: drop test\n  - nested item"
    assert hanging_lines(text) == [HangingLine("", "This was tried before."), HangingLine("", ""),
                                   HangingLine("1. ", "Drop the mic"), HangingLine("   ", "Why it failed: drop test"),
                                   HangingLine("  - ", "nested item")]


def test_the_line_naming_a_quoted_note_starts_with_a_link_to_it_then_its_folder():
    from tui.formatting import link_note_lines

    text = "## Last checkpoint\nprojects/p/checkpoints/x.md, by a1, 2026-11-25\nprojects/p/checkpoints/x.md is here"
    linked, targets = link_note_lines(text, ["projects/p/checkpoints/x.md", "top.md"], first_number=3)
    assert linked.split("\n")[1] == f"[x.md]({LINK_SCHEME}3) in projects/p/checkpoints/, by a1, 2026-11-25"
    assert linked.split("\n")[2] == "projects/p/checkpoints/x.md is here"  # not a naming line
    assert targets == ("projects/p/checkpoints/x.md",)
    assert link_note_lines("top.md, by b", ["top.md"], 0) == (f"[top.md]({LINK_SCHEME}0), by b", ("top.md",))


def test_the_line_opened_is_marked_whatever_it_is():
    """A dead end opened at its Failed item's line was in view but unmarked (qa38 F6)."""
    from tui.formatting import obsidian_markdown

    text = "# T\n\n## Failed\n\n- **Redis** -- slow\n  - nested\n1. one\n> quoted\nplain\n- [ ] task"
    marked = {row: obsidian_markdown(text, row).split("\n")[row] for row in (2, 4, 5, 6, 7, 8, 9)}
    assert marked == {2: "## ▶ Failed", 4: "- ▶ **Redis** -- slow", 5: "  - ▶ nested", 6: "1. ▶ one",
                      7: "> ▶ quoted", 8: "▶ plain", 9: "- ▶ ☐ task"}
    assert obsidian_markdown(text, 1) == obsidian_markdown(text)  # a blank line: nothing to mark


def test_a_hits_rulings_fit_the_line_and_keep_the_count_of_the_others():
    """Cut at the width, "ruled out here" lost its second ruling and "(+1 more)" (qa38)."""
    from tui.formatting import ruled_out_within

    rulings = ("Retry failed webhooks synchronously inside the request handler",
               "Exactly-once delivery through Kafka transactions", "Sticky sessions")
    assert ruled_out_within(rulings, 80) == "ruled out here: Retry failed webhooks syn…; Exactly-once delivery thr… (+1 more)"
    assert ruled_out_within(rulings, 40) == "ruled out here: Retry failed … (+2 more)"
    assert ruled_out_within(rulings[1:], 81) == "ruled out here: Exactly-once delivery through Kafka transactions; Sticky sessions"
    assert all(len(ruled_out_within(rulings, width)) <= width for width in range(20, 160))


def test_a_paragraph_opening_with_an_html_comment_keeps_its_text():
    """`<!-- c --> text` vanished from the note view, which search's snippet showed (qa58)."""
    from tui.formatting import obsidian_markdown

    assert obsidian_markdown("<!-- a comment --> visible after it, kiwi") == " visible after it, kiwi"


def test_comments_are_hidden_as_in_reading_view_and_an_embeds_size_is_no_label():
    """data-engineering-wiki's `%% wiki footer ... %%` showed on nearly every note, and
    `![[clickhouse_logo.png|100]]` was drawn as "100" (qa106)."""
    from tui.formatting import link_label, obsidian_markdown

    body = "a %% hidden %% b\n%% wiki footer: Please don't edit %%\n%%\nblock\n%%\nafter\n```\n%% code %%\n```"
    assert obsidian_markdown(body).split("\n") == ["a  b", "", "", "", "", "after", "```", "%% code %%", "```"]
    assert link_label("![[Assets/clickhouse_logo.png|100]]") == "Assets/clickhouse_logo.png"
    assert link_label("![[a.png|100x80]]") == "a.png"
    assert link_label("[[Note|100]]") == "100"  # a link's alias may be a number
