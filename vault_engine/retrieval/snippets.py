"""Snippets: the few lines of a section that best show why it matched. Pure."""

from __future__ import annotations

from vault_engine.stores.lexical import analyze, stem_prefix

WIDTH = 240


def make_snippet(text: str, query_terms: set[str], width: int = WIDTH) -> str:
    """The line with the most distinct query terms, widened with its neighbours up to
    ``width`` characters; the section's opening lines when nothing matches."""
    lines = [line.strip() for line in text.split("\n")]
    lines = [line for line in lines if line and not line.startswith("```")]
    if not lines:
        return ""
    best, best_score = 0, -1
    prefixes = [stem_prefix(term) for term in query_terms]  # lines without any: not analyzed
    if query_terms:
        for i, line in enumerate(lines):
            lowered = line.lower().replace("'", "").replace("’", "")  # as analyze() sees it
            if not any(prefix in lowered for prefix in prefixes):
                continue
            score = len(query_terms.intersection(analyze(line)))
            if score > best_score:
                best, best_score = i, score
    if best_score <= 0:
        best = 1 if len(lines) > 1 and lines[0].startswith("#") else 0
    chosen = lines[best]
    after = best + 1
    while len(chosen) < width and after < len(lines):
        chosen = f"{chosen} {lines[after]}"
        after += 1
    return chosen if len(chosen) <= width else chosen[: width - 1].rstrip() + "…"
