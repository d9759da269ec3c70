"""Checkpoint parsing: every Failed/reason form, Summary and Next (vault_engine/parsing/checkpoints.py)."""

from pathlib import Path

import pytest

from vault_engine.config import parse_config
from vault_engine.parsing.checkpoints import (
    checkpoint_parts,
    item_reason,
    match_text,
    note_agent,
    read_list,
    split_reason,
)
from vault_engine.parsing.note import parse_note

CONFIG = parse_config(Path("/vault"), {})
PATH = "projects/drone-audio/checkpoints/20260314T102200Z-claude-7f3.md"
HEAD = "---\ntype: checkpoint\nproject: drone-audio\nagent: claude-7f3\ncreated: 2026-03-14T10:22:00Z\n---\n"


def dead_ends(body: str, path: str = PATH, head: str = HEAD):
    return parse_note(path, head + body, CONFIG).dead_ends


def test_nested_reason_item():
    found = dead_ends("# C\n## Failed\n- Drop the second microphone\n  - Reason: drop test failed at 1.2 m\n")
    assert [(d.text, d.reason) for d in found] == [("Drop the second microphone", "drop test failed at 1.2 m")]


@pytest.mark.parametrize("line", [
    "- Beamforming on the MCU — not enough RAM",
    "- Beamforming on the MCU -- not enough RAM",
    "- Beamforming on the MCU – not enough RAM",
    "* Beamforming on the MCU -- not enough RAM",
    "1. Beamforming on the MCU -- not enough RAM",
    "- [x] Beamforming on the MCU -- not enough RAM",
    "- Beamforming on the MCU\n  - **Reason:** not enough RAM",
    "- Beamforming on the MCU\n  - why: not enough RAM",
])
def test_every_reason_form(line):
    [found] = dead_ends(f"## Failed\n{line}\n")
    assert (found.text, found.reason) == ("Beamforming on the MCU", "not enough RAM")


def test_an_item_struck_through_is_reversed_and_no_dead_end():
    """A later checkpoint found the approach works: striking it out keeps the history and
    stops the ruling (it was read with its `~~` as a ruling still)."""
    found = dead_ends("# C\n## Failed\n- ~~Full CRDT library on the device -- 30 ms a keystroke~~ works now"
                      " with Automerge 2\n- Beamforming on the MCU -- not enough RAM\n")
    assert [d.text for d in found] == ["Beamforming on the MCU"]
    record = parse_note("decisions/0001.md", "# R\n## Alternatives\n- ~~Use Redis~~ reversed in 2027\n- Use Kafka\n",
                        CONFIG).dead_ends
    assert [d.text for d in record] == ["Use Kafka"]


def test_metadata_slug_line_and_heading():
    [found] = dead_ends("# Checkpoint\n## Failed\n- Beamforming on the MCU -- no RAM\n")
    assert (found.source, found.agent, found.line, found.heading) == ("checkpoint", "claude-7f3", 9, "Failed")
    assert found.when == 1773483720.0  # created: 2026-03-14T10:22:00Z
    assert found.slug == "beamforming-on-the-mcu"


def test_links_are_kept_and_a_dash_inside_a_link_or_code_does_not_split():
    [found] = dead_ends("## Failed\n- Use `--fast -- mode` with [[build -- notes]] -- broke [[ci#Runs]]\n")
    assert found.text == "Use `--fast -- mode` with [[build -- notes]]"
    assert found.reason == "broke [[ci#Runs]]"


def test_no_reason_is_none_and_other_nested_items_become_detail():
    first, second = dead_ends("## Failed\n- Warm the cache at startup\n- Foam windscreens\n"
                              "  - Reason: soaked up rain\n  - see [[rain-test]]\n")
    assert (first.text, first.reason) == ("Warm the cache at startup", None)
    assert second.reason == "soaked up rain; see [[rain-test]]"


def test_continuation_lines_join_the_item():
    [found] = dead_ends("## Failed\n- Keep sessions in a shared Redis\n  - Reason: the failover logged\n"
                        "    out every user at once\n")
    assert found.reason == "the failover logged out every user at once"


def test_a_callout_in_the_failed_list_is_a_ruling_and_a_quote_in_an_item_its_words():
    """Indented into an item, a `> [!failed]` callout had been the end of its reason, markup and
    all, and no ruling; a plain quote there had kept its `>` (qa142)."""
    found = dead_ends("## Failed\n- Cache in Redis -- evictions killed the hit rate\n"
                      "  > [!failed] Cache in memcached\n  > No persistence\n"
                      "- Poll every 5 s -- rate limited\n  > [!note] **Note** the limit is 600 an hour\n")
    assert [(d.text, d.reason, d.line) for d in found] == [
        ("Cache in Redis", "evictions killed the hit rate", 8), ("Cache in memcached", "No persistence", 9),
        ("Poll every 5 s", "rate limited Note the limit is 600 an hour", 11)]


def test_only_the_failed_part_counts_and_code_is_not_a_dead_end():
    body = ("## Summary\n- failed to compile, fixed it\n## Next\n- Tune the taps\n## Failed\n"
            "```\n- not a dead end\n```\nNothing else.\n- Real one -- why\n### Older attempts\n- Sub-one -- why\n")
    assert [d.text for d in dead_ends(body)] == ["Real one", "Sub-one"]


def test_a_paragraph_after_a_blank_line_ends_the_list():
    body = "## Failed\n- First -- a\n\nThe rest is prose\n- Second -- b\n"
    assert [d.text for d in dead_ends(body)] == ["First", "Second"]


def test_slugs_are_unique_within_a_note():
    found = dead_ends("## Failed\n- Same idea -- a\n- Same idea -- b\n")
    assert [d.slug for d in found] == ["same-idea", "same-idea-2"]


def test_other_kinds_have_no_checkpoint_dead_ends():
    note = parse_note("specs/audio.md", "# Audio\n## Failed\n- Something -- reason\n", CONFIG)
    assert note.kind == "spec" and note.dead_ends == ()


def test_summary_and_next_steps():
    note = parse_note(PATH, HEAD + "# C\n## Summary\nBoth mics stay.\nSee [[audio]].\n## Next steps\n"
                            "- Tune the taps\n- [ ] Check the membrane\n## Failed\n- X -- y\n", CONFIG)
    parts = checkpoint_parts(note.sections)
    assert parts.summary == "Both mics stay.\nSee [[audio]]."
    assert parts.next_steps == ("Tune the taps", "Check the membrane")


def test_a_line_of_a_link_alone_is_no_prose_of_the_summary():
    # `checkpoint new --link` writes the links under the Summary: the brief showed them as its
    # prose, beside its "Linked from the checkpoint" (qa118)
    note = parse_note(PATH, HEAD + "# C\n## Summary\nBoth mics stay, see [[audio]].\n\n- [[20221010T140000Z-a#Decision]]"
                            "\n[spec](specs/audio.md)\n- [[dsp]] explains the taps\n- [[a]], [[b]]\n## Goal\n[[ADR-0031]]\n",
                      CONFIG)
    parts = checkpoint_parts(note.sections)
    # a link with words of its own beside it is prose (qa119); a Decision may be a link to its record
    assert parts.summary == "Both mics stay, see [[audio]].\n\n- [[dsp]] explains the taps\n- [[a]], [[b]]"
    assert parts.goal == "[[ADR-0031]]"


def test_split_reason_without_a_separator():
    assert split_reason("Use --force-push") == ("Use --force-push", None)
    assert split_reason(" -- only a reason") == ("-- only a reason", None)


def test_read_list_nests_children():
    [item] = read_list(["- a", "  - b", "    - c", "  - d"])
    assert [c.text for c in item.children] == ["b", "d"]
    assert [c.text for c in item.descendants()] == ["b", "c", "d"]


def test_agent_from_frontmatter_or_checkpoint_file_name():
    assert note_agent("projects/p/checkpoints/20261008T113000Z-claude-2c9.md", {}) == "claude-2c9"
    assert note_agent("projects/p/checkpoints/2026-10-08T11:30:00Z-codex.md", {}) == "codex"
    assert note_agent("projects/p/working/claude-notes.md", {}) is None
    assert note_agent("x.md", {"agent": "gpt-5"}) == "gpt-5"


def test_match_text_drops_possessives():
    assert match_text("the client's header and the codec’s DSP") == "the client header and the codec DSP"


def test_a_timestamped_file_name_dates_a_checkpoint():
    from vault_engine.parsing.checkpoints import name_time

    assert name_time("projects/p/checkpoints/20261201T083000Z-codex-9.md") == 1796113800.0
    assert name_time("projects/p/checkpoints/2026-12-01T08:30:00Z-codex-9.md") == 1796113800.0
    assert name_time("projects/p/checkpoints/20261399T000000Z-x.md") is None  # no such day
    assert name_time("notes/plan.md") is None


def test_a_failed_items_reasons_read_links_as_their_text():
    (item,) = read_list(["- Poll the API -- [rate limited](https://example.org/429).",
                         "  - Reason: the vendor caps us.", "  - it also costs more"])
    assert item_reason(item) == ("Poll the API", "rate limited; the vendor caps us; it also costs more")


def test_parts_written_so_they_are_not_read_are_slips_status_names():
    """`## Faild` and a `**Failed:**` line: their rulings were dropped without a word (qa51)."""
    note = parse_note(PATH, HEAD + "# C\n## Summary\nok\n## Faild\n- OneSignal SDK -- pricing\n## Notes\n"
                      "**Failed:**\n- Realm sync -- slow\n## Next steps\n- go\n## Decisions\nx\n", CONFIG)
    assert note.dead_ends == ()
    assert note.yaml_error == (
        "heading 'Faild' is no part of a checkpoint (did you mean Failed?): what it lists is not read; "
        "'**Failed:**' is a bold line, not a heading: write '## Failed' for what it lists to be read; "
        "heading 'Decisions' is no part of a checkpoint (did you mean Decision?): what it lists is not read")
    plain = parse_note(PATH, HEAD + "# C\n## Failed\n- Realm -- slow\n## Notes\n**Bold** text\n", CONFIG)
    assert plain.yaml_error is None and [d.text for d in plain.dead_ends] == ["Realm"]
    # a bold label that goes on with what it says: the Decision had been read as none, unsaid (qa179)
    inline = parse_note(PATH, HEAD + "# C\n## Summary\nDocs.\n\n**Decision:** keep the per-node cap.\n", CONFIG)
    assert inline.yaml_error == ("'**Decision:** keep the per-node cap.' opens with a bold label, not a heading: "
                                 "write '## Decision' over it for what it says to be read")
    # its colon outside the stars too; under its own heading it is read, no slip (qa188)
    outside = parse_note(PATH, HEAD + "# C\n## Summary\nDocs.\n\n**Decision**: use the outbox\n", CONFIG)
    assert outside.yaml_error is not None and "'## Decision'" in outside.yaml_error
    under = parse_note(PATH, HEAD + "# C\n## Decision\n**Decision:** keep the per-node cap.\n", CONFIG)
    assert under.yaml_error is None


@pytest.mark.parametrize("heading", ["**Failed**", "*Failed*", "Failed (2)", "❌ Failed", "Failed:", "Dead ends:",
                                     "🚫 **Ruled out** (3)", "Failed: see below", "Failed — this session",
                                     "Failed / ruled out", "Failed - this week"])
def test_a_failed_heading_is_read_as_a_page_draws_it(heading):
    """`## **Failed**` had lost its every ruling without a word, `## Failed (2)` too, and
    `## ❌ Failed` or `## Failed:` had been a slip (qa151)."""
    note = parse_note(PATH, HEAD + f"# C\n## {heading}\n- Retry inside the handler -- side effects ran twice\n", CONFIG)
    assert [(d.text, d.reason) for d in note.dead_ends] == [("Retry inside the handler", "side effects ran twice")]
    assert note.yaml_error is None


def test_a_heading_that_names_a_part_among_other_words_is_a_slip():
    """`## What failed` had lost its rulings without a word (qa152)."""
    note = parse_note(PATH, HEAD + "# C\n## What failed\n- Retry inside the handler -- twice\n", CONFIG)
    assert note.dead_ends == () and note.yaml_error == (
        "heading 'What failed' is no part of a checkpoint (did you mean Failed?): what it lists is not read")


def test_a_failed_item_that_names_no_approach_is_a_slip_not_a_dead_end():
    """`- -- only reason` was a dead end named "-- only reason", and an empty item with a
    nested reason was dropped without a word (qa60)."""
    # (`- ` after an item, as `- -- only reason` over `- `, was read as a setext heading's
    # underline, and the nested reason alone became a dead end: qa64)
    note = parse_note(PATH, HEAD + "# C\n## Failed\n- -- only reason\n- \n  - Reason: gone\n- Realm -- slow\n"
                      "- ~~-- struck out~~\n", CONFIG)
    assert [d.text for d in note.dead_ends] == ["Realm"]
    assert note.yaml_error == (
        "the Failed item at line 9 names no approach ('-- only reason'): write '- APPROACH -- REASON' for it "
        "to be read as a dead end; the Failed item at line 10 names no approach (an empty item): write "
        "'- APPROACH -- REASON' for it to be read as a dead end")


def test_a_failed_item_without_a_dash_gives_its_reason_as_its_sentences_after_the_first():
    """"Keep sessions in a shared Redis." with the reason as the sentence after it (on the
    line below, or the same line) was all approach: "(no reason written)", and a word-for-word
    restatement 40% restated by words (qa132)."""
    found = dead_ends("# C\n## Failed\n- Keep sessions in a shared Redis.\n  The October failover logged out every user at once.\n"
                      "- Cache per node; restarts empty it\n- Shard by tenant id\n- Use v1.2 of the client. It crashed.\n"
                      # an abbreviation ends no sentence, nor does a full stop before a small letter (qa133)
                      "- Run approx. 50 workers per node. The nodes were OOM-killed.\n"
                      "- Serve from the St. Louis region. Latency doubled.\n- Use Redis, Memcached, etc. for the cache\n"
                      "- Host it in the U.S. East region. Latency hurt.\n")
    assert [(d.text, d.reason) for d in found] == [
        ("Keep sessions in a shared Redis", "The October failover logged out every user at once."),
        ("Cache per node; restarts empty it", None), ("Shard by tenant id", None), ("Use v1.2 of the client", "It crashed."),
        ("Run approx. 50 workers per node", "The nodes were OOM-killed."), ("Serve from the St. Louis region", "Latency doubled."),
        ("Use Redis, Memcached, etc. for the cache", None), ("Host it in the U.S. East region", "Latency hurt.")]


def test_a_failed_item_is_shown_as_a_reader_sees_it_bold_as_plain_code_kept():
    """"**Postgres advisory locks for invoice runs**" was shown with its stars, where a record's
    option is shown bold as plain (qa132); a code span keeps what it holds."""
    found = dead_ends("# C\n## Failed\n- **Postgres advisory locks** for `__invoice__` runs -- **lock** storms\n")
    assert [(d.text, d.reason) for d in found] == [("Postgres advisory locks for `__invoice__` runs", "lock storms")]
    # bold around a code span: its stars had stayed (qa169)
    held = dead_ends("# C\n## Failed\n- **Keep sessions in `Redis`** -- the **failover** logged everyone out\n")
    assert [(d.text, d.reason) for d in held] == [("Keep sessions in `Redis`", "the failover logged everyone out")]


def test_a_failed_item_of_a_title_then_a_paragraph_of_why_is_read_so():
    """A bold title, a blank line and a paragraph had been one run-on approach, "(no reason
    written)", a common layout of agents' output (qa151)."""
    note = parse_note(PATH, HEAD + "# C\n## Failed\n\n1. **Keep sessions in Redis**\n\n"
                      "   The failover logged everyone out.\n\n2. **Sticky sessions on the load balancer**\n\n"
                      "   A node loss logged its users out.\n   - Why: no session replication\n", CONFIG)
    assert [(d.text, d.reason) for d in note.dead_ends] == [
        ("Keep sessions in Redis", "The failover logged everyone out."),
        ("Sticky sessions on the load balancer", "A node loss logged its users out; no session replication")]


def test_a_failed_item_of_a_bold_title_then_its_why_on_the_next_line_is_read_so():
    """The why written straight under a bold title, no blank line between, had been glued to
    the title as one run-on approach with no reason (qa179)."""
    note = parse_note(PATH, HEAD + "# C\n## Failed\n1. **Expose the backoff delay as a Pod status field**\n"
                      "   API review: status churn on every restart.\n- **Keep sessions** in Redis, which\n"
                      "  failed over badly\n2. **Shard by tenant**\n   by hashing the id -- hot tenants overloaded one\n"
                      "3. **Poll the API**\n   Why: rate limited.\n", CONFIG)
    assert [(d.text, d.reason) for d in note.dead_ends] == [
        ("Expose the backoff delay as a Pod status field", "API review: status churn on every restart."),
        ("Keep sessions in Redis, which failed over badly", None),
        # a ` -- ` further on gives the reason, the line before it goes on with the approach; a
        # `Why:` label is no part of the reason (qa189)
        ("Shard by tenant by hashing the id", "hot tenants overloaded one"), ("Poll the API", "rate limited.")]


def test_a_failure_callout_nested_in_another_or_of_obsidians_own_type_is_a_ruling():
    """`> > [!failed]` inside a `[!note]` and Obsidian's own `[!failure]` had been no rulings (qa151)."""
    note = parse_note("projects/pay/working/claude-retries.md", (
        "## Notes\n> [!note] Session log\n> Tried a few things.\n> > [!failed] Retry inside the request handler\n"
        "> > Side effects ran twice.\n> Back to the plan.\n\n> [!failure] Keep sessions in Redis\n"
        "> The failover logged everyone out.\n\n> [!fail]- Poll the provider\n> rate limited\n"), CONFIG)
    assert [(d.text, d.reason) for d in note.dead_ends] == [
        ("Retry inside the request handler", "Side effects ran twice."),
        ("Keep sessions in Redis", "The failover logged everyone out."), ("Poll the provider", "rate limited")]
