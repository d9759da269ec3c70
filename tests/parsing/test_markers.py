"""Working-note dead-end markers: explicit markers only (vault_engine/parsing/markers.py)."""

from pathlib import Path

import pytest

from vault_engine.config import parse_config
from vault_engine.parsing.note import parse_note

CONFIG = parse_config(Path("/vault"), {})
PATH = "projects/drone-audio/working/gemini-5d2-firmware.md"


def marked(body: str, path: str = PATH):
    note = parse_note(path, "---\nagent: gemini-5d2\ncreated: 2026-04-02\n---\n" + body, CONFIG)
    return [(d.text, d.reason) for d in note.dead_ends], note


@pytest.mark.parametrize("callout", ["deadend", "failed", "DeadEnd", "FAILED"])
def test_callout_title_is_the_approach_and_body_the_reason(callout):
    found, _ = marked(f"# Notes\n> [!{callout}] Ring buffer in PSRAM\n> PSRAM is too slow\n> for DMA\n")
    assert found == [("Ring buffer in PSRAM", "PSRAM is too slow for DMA")]


def test_folded_callout_without_title_uses_its_first_line():
    found, _ = marked("> [!deadend]-\n> Switch to I2S TDM\n> Reason: the codec cannot do it\n")
    assert found == [("Switch to I2S TDM", "the codec cannot do it")]


def test_two_callouts_back_to_back_stay_apart():
    found, _ = marked("> [!deadend] A\n> why a\n> [!failed] B\n> why b\n")
    assert found == [("A", "why a"), ("B", "why b")]


@pytest.mark.parametrize("line", [
    "DEADEND: Poll the FIFO -- lost samples",
    "FAILED: Poll the FIFO — lost samples",
    "**DEADEND:** Poll the FIFO -- lost samples",
    "- DEADEND: Poll the FIFO -- lost samples",
    "- FAILED: Poll the FIFO\n  - Reason: lost samples",
    "1. FAILED: Poll the FIFO -- lost samples",
])
def test_marker_lines_and_items(line):
    found, _ = marked(f"# Notes\n{line}\n")
    assert found == [("Poll the FIFO", "lost samples")]


@pytest.mark.parametrize("line", [
    "- Glue the capsule to the frame #deadend -- vibration hum",
    "- Glue the capsule to the frame #DeadEnd\n  - Reason: vibration hum",
    "  - Glue the capsule to the frame #deadend -- vibration hum",
    "- Glue the capsule to the frame #deadend: vibration hum",  # the ":" was left in the approach (qa53)
])
def test_items_tagged_deadend(line):
    found, _ = marked(f"- Mounting\n{line}\n")
    assert found == [("Glue the capsule to the frame", "vibration hum")]


@pytest.mark.parametrize("line", [
    "- ~~Poll the FX provider every second -- rate limited~~ works now with the paid tier #deadend",
    "- ~~FAILED: Round FX amounts half-up -- off by a cent~~ fixed upstream",
    "- ~~DEADEND: Round FX amounts half-up~~",
    "- DEADEND: ~~Round FX amounts half-up -- off by a cent~~ works now",  # struck after its marker (qa133)
    "FAILED: ~~Round FX amounts half-up -- off by a cent~~ fixed",
    "> [!deadend] ~~Store rates as floats~~\n> drift of a cent; switched to decimals and it works",
])
def test_a_marker_struck_out_from_its_start_is_no_ruling(line):
    """Struck through, a Failed item is reversed and no ruling; a working note's marked item
    was still one, its "~~" split between approach and reason (qa132)."""
    found, _ = marked(f"# Notes\n{line}\n- FAILED: Poll the FIFO -- lost samples\n")
    assert found == [("Poll the FIFO", "lost samples")]


def test_a_marker_line_under_a_marked_item_is_a_ruling_of_its_own_not_its_reason():
    """Markdown reads the line as a lazy continuation of the item: it was both (qa51)."""
    found, _ = marked("# Notes\n- Cap retries at 3 attempts #deadend -- a 10-minute outage lost events\n"
                      "FAILED: tenacity wait_random_exponential without max -- waits grew to 9 hours\n")
    assert found == [("Cap retries at 3 attempts", "a 10-minute outage lost events"),
                     ("tenacity wait_random_exponential without max", "waits grew to 9 hours")]


def test_a_callout_on_the_line_under_a_tagged_item_is_a_ruling_of_its_own_not_its_reason():
    """A quote not indented into the item ends it, as Markdown reads it: the callout had been
    the end of the item's reason, and a ruling of its own too (qa140)."""
    found, _ = marked("# Notes\n- Verify webhook signatures with HMAC-MD5 -- the bank signs with SHA-256 #deadend\n"
                      "> [!failed] Batch-insert ledger rows with COPY in the handler\n"
                      "> The handler held a table lock for 8 s.\n")
    assert found == [("Verify webhook signatures with HMAC-MD5", "the bank signs with SHA-256"),
                     ("Batch-insert ledger rows with COPY in the handler", "The handler held a table lock for 8 s.")]
    # indented into the item, it was both still, its markup in the item's reason (qa141)
    found, _ = marked("# Notes\n- Compress frames with zstd -- CPU too high #deadend\n"
                      "  > [!failed] Compress frames with lz4\n  > ratio too low\n")
    assert found == [("Compress frames with zstd", "CPU too high"), ("Compress frames with lz4", "ratio too low")]


@pytest.mark.parametrize("text", [
    "this failed to compile, fixed it",
    "Failed: the first build, retried and it passed",
    "- the deadend sign on the road",
    "- tagged #deadends is another tag",
    "- in code `#deadend` only",
    "DEADEND without a colon",
    "```\nDEADEND: inside a code fence\n- x #deadend\n```",
    "> an ordinary quote with DEADEND: inside",
])
def test_prose_and_code_are_never_dead_ends(text):
    found, _ = marked(f"# Notes\n{text}\n")
    assert found == []


def test_markers_only_count_in_working_notes():
    note = parse_note("specs/audio.md", "# Audio\nDEADEND: something -- reason\n", CONFIG)
    assert note.dead_ends == ()


def test_working_note_metadata():
    _, note = marked("# Notes\nDEADEND: A -- b\n")
    [d] = note.dead_ends
    assert (d.source, d.agent, d.line, d.heading, d.slug) == ("working note", "gemini-5d2", 6, "Notes", "a")
    assert d.when is not None


def test_reading_order_across_marker_forms():
    found, _ = marked("> [!deadend] First\n> r1\n\nDEADEND: Second -- r2\n- Third #deadend -- r3\n")
    assert [t for t, _ in found] == ["First", "Second", "Third"]
