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
    ident = "0123456789abcdef0123456789ABCDEF"
    assert parse_ref(f"notion://{ident}#Goals") == ParsedRef(None, ident.lower(), "Goals")
    dashed = "01234567-89ab-cdef-0123-456789abcdef"
    assert parse_ref(f"notion://{dashed}").notion_id == dashed.replace("-", "")
