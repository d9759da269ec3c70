import pytest

from vault_engine.sources.code import languages
from vault_engine.sources.code.languages import UnsupportedLanguage, detect_language
from vault_engine.sources.code.symbols import parse_source


@pytest.mark.parametrize("path, language", [
    ("a.py", "python"), ("x/b.ts", "typescript"), ("c.tsx", "tsx"), ("d.mts", "typescript"),
    ("e.cts", "typescript"), ("types.d.ts", "typescript"), ("f.js", "javascript"), ("g.jsx", "javascript"),
    ("h.mjs", "javascript"), ("i.cjs", "javascript"), ("j.go", "go"), ("k.rs", "rust"), ("L.java", "java"),
])
def test_detects_languages_by_extension(path, language):
    assert detect_language(path) == language


@pytest.mark.parametrize("path", ["README.md", "Makefile", "x.c", "x.rb", "noext"])
def test_other_files_have_no_language(path):
    assert detect_language(path) is None


def test_an_unknown_language_name_is_refused():
    with pytest.raises(UnsupportedLanguage, match="no grammar for 'cobol'"):
        parse_source("x.cbl", "", "cobol")


def test_grammars_and_queries_are_loaded_once():
    assert languages.parser("python") is languages.parser("python")
    assert languages.query("python", "") is languages.query("python", "")


@pytest.mark.parametrize("language", sorted(languages.SPECS))
def test_every_grammar_parses_an_empty_file(language):
    parsed = parse_source("empty", "", language)
    assert parsed.symbols == () and parsed.error is None
