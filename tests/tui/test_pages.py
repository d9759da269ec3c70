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


def test_a_note_ref_opens_at_the_top_unless_a_line_is_given(indexed_vault):
    with Vault(indexed_vault) as vault:
        assert read_note_page(vault, "glossary.md").line is None
        assert read_note_page(vault, "glossary.md", line=12).line == 12
