"""Which grammar reads a file, and the grammars and queries themselves, loaded once per process.

Grammars come from the individual tree-sitter wheels (``tree-sitter-python``, ...), never
from a language pack that downloads them at run time: the tap must work offline. Each wheel
ships its ``queries/tags.scm``; TypeScript's covers only what it adds to JavaScript, so its
query is its own tags plus JavaScript's (the TypeScript grammar includes JavaScript's nodes).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import PurePosixPath


class UnsupportedLanguage(ValueError):
    """No grammar for this file or language name: the code tap skips it."""


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str
    package: str  # the grammar wheel's module
    entry: str  # its function that returns the grammar
    tags: tuple[str, ...]  # packages whose queries/tags.scm apply, in order
    family: str  # which extractor reads its trees: python | ecma | go | rust | java


SPECS = {
    "python": LanguageSpec("python", "tree_sitter_python", "language", ("tree_sitter_python",), "python"),
    "typescript": LanguageSpec("typescript", "tree_sitter_typescript", "language_typescript",
                               ("tree_sitter_typescript", "tree_sitter_javascript"), "ecma"),
    "tsx": LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx",
                        ("tree_sitter_typescript", "tree_sitter_javascript"), "ecma"),
    "javascript": LanguageSpec("javascript", "tree_sitter_javascript", "language",
                               ("tree_sitter_javascript",), "ecma"),
    "go": LanguageSpec("go", "tree_sitter_go", "language", ("tree_sitter_go",), "go"),
    "rust": LanguageSpec("rust", "tree_sitter_rust", "language", ("tree_sitter_rust",), "rust"),
    "java": LanguageSpec("java", "tree_sitter_java", "language", ("tree_sitter_java",), "java"),
}

EXTENSIONS = {
    ".py": "python", ".pyi": "python",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".go": "go", ".rs": "rust", ".java": "java",
}


def detect_language(path: str) -> str | None:
    """The language of a file by its extension, or None when the tap has no grammar for it.

    ``.d.ts`` files are TypeScript (declarations only). JSX needs no grammar of its own: the
    JavaScript grammar parses it.
    """
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())


def spec(language: str) -> LanguageSpec:
    """The spec of a language name; ``UnsupportedLanguage`` for any other name."""
    try:
        return SPECS[language]
    except KeyError:
        raise UnsupportedLanguage(
            f"no grammar for {language!r}: the code tap reads {', '.join(sorted(SPECS))}") from None


@cache
def grammar(language: str):
    """The tree-sitter ``Language`` (loaded on first use, then cached)."""
    from tree_sitter import Language

    s = spec(language)
    try:
        module = import_module(s.package)
    except ImportError as exc:
        raise UnsupportedLanguage(
            f"the grammar for {language} is not installed: pip install {s.package.replace('_', '-')}") from exc
    return Language(getattr(module, s.entry)())


@cache
def parser(language: str):
    """A parser for the language. Parsers are not thread-safe: one per process, used serially."""
    from tree_sitter import Parser

    return Parser(grammar(language))


@cache
def tags_source(language: str) -> str:
    """The text of the tags queries that apply to a language."""
    from importlib.resources import files  # 15 ms: only when a grammar is loaded

    return "\n".join((files(package) / "queries" / "tags.scm").read_text(encoding="utf-8")
                     for package in spec(language).tags)


# Captures of the tags queries that no extractor reads: every type name, constants, doc
# comments matched by quantified patterns (the extractors read comments beside a definition).
UNUSED_CAPTURES = ("name", "doc", "reference.type", "reference.implementation", "reference.class",
                   "definition.constant", "definition.module", "definition.macro")


@cache
def query(language: str, extra: str = ""):
    """The tags query plus an extractor's own patterns, compiled once: one pass over a tree
    yields both. Unused captures are disabled (fewer nodes cross into Python)."""
    from tree_sitter import Query

    compiled = Query(grammar(language), tags_source(language) + "\n" + extra)
    for name in UNUSED_CAPTURES:
        compiled.disable_capture(name)
    return compiled
