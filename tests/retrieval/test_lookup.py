"""Finding the note and section a ref names (vault_engine/retrieval/lookup.py)."""

import unicodedata

import pytest

from vault_engine.errors import UnknownRef
from vault_engine.vault import Vault


def test_a_note_named_in_nfd_is_found_by_its_name_typed_in_nfc(make_vault):
    nfd = unicodedata.normalize("NFD", "Café notes.md")
    root = make_vault({nfd: "# Café\n## Menu\ntext\n", "Home.md": "[[Café notes#Menu]]\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        assert vault.show("Café notes.md").path == nfd  # the file keeps its own name
        assert vault.show("CAFÉ NOTES#Menu").heading == "Menu"
        assert [link.source for link in vault.links("café notes.md", backlinks=True)] == ["Home.md"]
        with pytest.raises(UnknownRef, match="no note 'Cafe notes.md'"):
            vault.show("Cafe notes.md")
