"""A parsed source file as a document of the index: one section per symbol, so ``search``
finds code and prose together (kind ``code``, heading the qualified name), plus one for the
module's own lines (docstring, imports) before its first symbol. Pure."""

from __future__ import annotations

import re

from vault_engine.constants import CODE_KIND
from vault_engine.model import ParsedNote, Section
from vault_engine.sources.code.model import ParsedSource, Symbol

BODY_LINES = 60  # lines of a function body whose words are kept: its head says what it does
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
CONTAINERS = ("class", "interface", "struct", "trait", "impl", "enum")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def identifier_words(name: str) -> str:
    """``OrderBook.place_order`` -> ``order book place order``: the words BM25 can match."""
    return " ".join(p.lower() for p in _PART.findall(name))


def code_note(key: str, parsed: ParsedSource, text: str, tap: str) -> ParsedNote:
    """The index document of one source file (``key``: its ref path)."""
    lines = text.split("\n")
    sections = [_module_section(parsed, lines)]
    members: dict[str, list[str]] = {}
    for sym in parsed.symbols:
        if sym.parent:
            members.setdefault(sym.parent, []).append(sym.name)
    for sym in parsed.symbols:
        sections.append(_symbol_section(sym, lines, members.get(sym.qualname, [])))
    meta = {"tap": tap, "language": parsed.language, "lines": parsed.lines, "symbols": len(parsed.symbols)}
    return ParsedNote(key, key.rsplit("/", 1)[-1], CODE_KIND, None, meta, (), tuple(sections), (), None)


def _module_section(parsed: ParsedSource, lines: list[str]) -> Section:
    first = min((s.line_start for s in parsed.symbols), default=parsed.lines + 1)
    end = max(1, min(first - 1, parsed.lines))  # a file's last newline ends its last line, it opens none (qa196)
    head = " ".join(dict.fromkeys(_WORDS.findall("\n".join(lines[:min(end, BODY_LINES)]))))
    stem = parsed.path.rsplit("/", 1)[-1]
    text = f"{parsed.path}\n{identifier_words(stem.rsplit('.', 1)[0])}\n{head}"
    return Section(None, (), 0, 1, max(end, 1), text)


def _symbol_section(sym: Symbol, lines: list[str], members: list[str]) -> Section:
    depth = sym.qualname.count(".") + 1
    if sym.kind in CONTAINERS:  # its members have sections of their own: names only here
        body = "members: " + ", ".join(members) if members else ""
    else:  # each word of the body once: code repeats names, and every repeat cost index time
        # the lines after the header, or the header's own line when the body is on it
        # (`def g(): return persist_order()` had given search no word of its body, qa147)
        start = sym.def_line if sym.line_end > sym.def_line else sym.def_line - 1
        text = "\n".join(lines[start:min(sym.line_end, sym.def_line + BODY_LINES)])
        body = " ".join(dict.fromkeys(_WORDS.findall(text)))
    parts = [f"{sym.kind} {sym.qualname}", sym.signature, identifier_words(sym.qualname),
             sym.docstring or "", body]
    return Section(sym.qualname, (sym.qualname,), depth, sym.line_start, sym.line_end,
                   "\n".join(p for p in parts if p))
