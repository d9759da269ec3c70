"""Snippets: the few lines of a section that best show why it matched. Pure."""

from __future__ import annotations

import re

from vault_engine.parsing.sections import starts_block
from vault_engine.stores.lexical import analyze, fold_accents, stem_prefix
from vault_engine.text import shortened

WIDTH = 240
# A line's first characters are what a snippet shows of it, and all its words are read only
# so far: a 1 MB note of one line had taken half a second a search to read (qa148)
LINE_READ = 10_000

_QUOTE_MARKS = re.compile(r"^(?:>\s?)+")
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+")


def make_snippet(text: str, query_terms: set[str], width: int = WIDTH) -> str:
    """The line with the most distinct query terms, widened with its neighbours up to
    ``width`` characters; the section's opening lines when nothing matches. A hard-wrapped
    line is shown from the start of its sentence, or after "…" when that lies further back,
    so a snippet never opens mid-sentence unannounced."""
    lines = _lines(text)
    if not lines:
        return ""
    best, best_score = 0, -1
    prefixes = [stem_prefix(term) for term in query_terms]  # lines without any: not analyzed
    if query_terms:
        for i, (line, _) in enumerate(lines):
            lowered = fold_accents(line.lower().replace("'", "").replace("’", ""))  # as analyze() sees it
            if not any(prefix in lowered for prefix in prefixes):
                continue
            score = len(query_terms.intersection(analyze(line[:LINE_READ])))
            if score > best_score:
                best, best_score = i, score
                if score == len(query_terms):  # no line can hold more
                    break
    if best_score <= 0:
        best = 1 if len(lines) > 1 and lines[0][0].startswith("#") else 0
    chosen = _from_sentence_start(lines, best)
    after = best + 1
    while len(chosen) < width and after < len(lines):
        chosen = f"{chosen} {lines[after][0]}"
        after += 1
    return shortened(chosen, width)


def _lines(text: str) -> list[tuple[str, bool]]:
    """Each line with text, without quote marks, and whether it continues the paragraph of
    the line before it (a hard-wrapped line: no blank line, heading or block start between)."""
    lines: list[tuple[str, bool]] = []
    broken = True
    for raw in text.split("\n"):
        line = _QUOTE_MARKS.sub("", raw.strip()).strip()
        if not line or line.startswith("```"):
            broken = True
            continue
        lines.append((line, not broken and not starts_block(line)))
        broken = line.startswith("#")  # a heading is a paragraph of its own
    return lines


def _from_sentence_start(lines: list[tuple[str, bool]], i: int) -> str:
    """Line ``i``, led by the part of the line before that its sentence starts in."""
    line, continues = lines[i]
    if not continues:
        return line
    before, before_continues = lines[i - 1]
    ends = list(_SENTENCE_END.finditer(before + " "))
    if ends:
        lead = before[ends[-1].end():].strip()
        return f"{lead} {line}" if lead else line
    return f"{before} {line}" if not before_continues else f"… {line}"
