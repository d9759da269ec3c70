"""The note viewer's page: the whole note, where to scroll, the backlinks."""

from tui.pages import read_note_page
from vault_engine.vault import Vault


def test_a_section_ref_gives_the_whole_note_scrolled_to_the_heading(indexed_vault):
    with Vault(indexed_vault) as vault:
        section = vault.show("specs/audio-pipeline.md#Buffers")
        page = read_note_page(vault, "specs/audio-pipeline.md#Buffers")
        whole = vault.show("specs/audio-pipeline.md")
        backlinks = vault.links("specs/audio-pipeline.md", backlinks=True)
    assert page.ref == "specs/audio-pipeline.md#Buffers"
    assert page.note.text == whole.text and page.note.heading is None
    assert page.line == section.line_start > 1
    assert [b.source for b in page.backlinks] == [b.source for b in backlinks]
    assert page.backlinks  # README and the design review link to the audio pipeline


def test_a_section_under_an_empty_title_opens_at_its_own_heading(make_vault):
    """An H1 with nothing under it is folded into the H2 that follows: the section's text
    starts at the H1, and the viewer marked the title, not `Usage` (qa38 F5)."""
    root = make_vault({"recurring.md": "---\npublish: true\n---\n\n# Recurring Tasks\n\n## Usage\n\nTasks recur.\n"},
                      config="[model]\nenabled = false\n")
    with Vault(root) as vault:
        vault.index()
        section = vault.show("recurring.md#Usage")
        page = read_note_page(vault, "recurring.md#Usage")
    lines = page.note.text.split("\n")
    assert section.line_start == 7 and lines[page.line - 1] == "## Usage"  # shown from Usage (qa83)


def test_a_note_ref_opens_at_the_top_unless_a_line_is_given(indexed_vault):
    with Vault(indexed_vault) as vault:
        assert read_note_page(vault, "glossary.md").line is None
        assert read_note_page(vault, "glossary.md", line=12).line == 12
