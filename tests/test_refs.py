"""Refs (vault_engine/refs.py)."""

from vault_engine.refs import ParsedRef, make_ref, parse_ref


def test_make_ref():
    assert make_ref("specs/auth.md") == "specs/auth.md"
    assert make_ref("specs/auth.md", "Token refresh") == "specs/auth.md#Token refresh"
    assert make_ref("notion/P.md", "H", "a" * 32) == "notion://" + "a" * 32 + "#H"


def test_parse_ref():
    assert parse_ref("specs/auth.md#Design#Tokens") == ParsedRef("specs/auth.md", None, "Design#Tokens")
    assert parse_ref("./a.md") == ParsedRef("a.md", None, None)
    assert parse_ref(".hidden/a.md").path == ".hidden/a.md"
    # a doubled or dotted component is the same path: `show specs//a.md` had said the note was
    # new since the index, `specs/./a.md` that a hidden name is never indexed (qa109)
    assert parse_ref("specs//a.md#Goal") == parse_ref("specs/./a.md#Goal") == ParsedRef("specs/a.md", None, "Goal")
    assert parse_ref(" specs\\a.md ").path == "specs/a.md"
    # a ".." inside the vault is taken back; one that leaves it stays, to be refused (qa111)
    assert parse_ref("specs/../specs/a.md").path == "specs/a.md"
    assert parse_ref("specs/../../a.md").path == "../a.md"
    ident = "0123456789abcdef0123456789ABCDEF"
    assert parse_ref(f"notion://{ident}#Goals") == ParsedRef(None, ident.lower(), "Goals")
    dashed = "01234567-89ab-cdef-0123-456789abcdef"
    assert parse_ref(f"notion://{dashed}").notion_id == dashed.replace("-", "")
    assert parse_ref("notion://not-a-notion-id#Intro") == ParsedRef(None, None, "Intro")  # no page id (qa33 R7)
    assert parse_ref(f"notion://{ident}# Goals ").heading == "Goals"


def test_a_notion_ref_that_names_no_page_says_so_not_how_to_write_paths(tmp_path):
    import pytest

    from vault_engine.errors import UnknownRef
    from vault_engine.vault import Vault

    (tmp_path / "a.md").write_text("# A\n\ntext here\n")
    with Vault(tmp_path) as vault:
        vault.index(embed=False)
        with pytest.raises(UnknownRef, match="names no Notion page: a page's ref is notion://"):
            vault.show("notion://not-a-notion-id")
        with pytest.raises(UnknownRef, match="no note of Notion page 0+ in the index") as raised:
            vault.show("notion://" + "0" * 32)
        assert "vault-relative" not in str(raised.value)  # paths are no help here (qa32 F9)
