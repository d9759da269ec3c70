"""Tier 4 of ``find``: architectural memory notes (kind ``memory``, frontmatter ``facet``)
by BM25 over words only: deterministic, no embeddings. A note answers when it holds enough
of the question's informative words (IDF-weighted coverage), so an off-topic question that
shares a word or two with a note is a clean miss, not a weak hit."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from vault_engine.retrieval.find.facets import DEFAULT_MIN_COVERAGE, DEFAULT_RANKING, FACETS, MEMORY_KIND  # noqa: F401
from vault_engine.stores.ledger import Ledger, NoteRow
from vault_engine.stores.lexical import WhooshIndex, analyze, stem_prefix

CHECKED = 12  # notes, best BM25 first, whose coverage is computed: a note that holds most of
# the question ranks high by BM25 too, and reading every match of 1,000 notes cost 150 ms


@dataclass(frozen=True, slots=True)
class MemoryHit:
    note: NoteRow
    line_start: int
    line_end: int
    score: float
    coverage: float


def facet_of(note: NoteRow) -> str | None:
    facet = note.meta.get("facet")
    return str(facet) if facet is not None else None


def memory_hits(query: str, ledger: Ledger, lexical: WhooshIndex, *, facet: str | None = None,
                k: int = 5, min_coverage: float = DEFAULT_MIN_COVERAGE,
                rank_by: str = DEFAULT_RANKING) -> list[MemoryHit]:
    """Memory notes that answer ``query``, best BM25 first; empty when none covers enough."""
    ranked = lexical.search(query, limit=50, kind=MEMORY_KIND)
    if not ranked:
        return []
    sections = ledger.sections_by_ids([sid for sid, _ in ranked])
    notes = ledger.notes_by_ids({s.note_id for s in sections.values()})
    best: dict[int, tuple[float, int]] = {}
    for sid, score in ranked:
        section = sections.get(sid)
        if section is None or (facet and facet_of(notes[section.note_id]) != facet):
            continue
        if section.note_id not in best or score > best[section.note_id][0]:
            best[section.note_id] = (score, sid)
    weights = _idf(lexical, query)
    hits = []
    checked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:max(CHECKED, k)]
    for note_id, (score, _) in checked:
        text = "\n".join(s.text for s in ledger.sections_of(note_id))
        coverage = _coverage(weights, text)
        if coverage >= min_coverage:
            hits.append(MemoryHit(notes[note_id], 1, _last_line(ledger, note_id), score, coverage))
    if rank_by == "coverage":
        hits.sort(key=lambda h: (-round(h.coverage, 6), -h.score, h.note.path))
    else:
        hits.sort(key=lambda h: (-h.score, h.note.path))
    return hits[:k]


def best_coverage(query: str, ledger: Ledger, lexical: WhooshIndex, facet: str | None = None) -> float:
    """The highest coverage any memory note reaches (for tuning the threshold)."""
    found = memory_hits(query, ledger, lexical, facet=facet, k=1, min_coverage=0.0)
    return found[0].coverage if found else 0.0


def _idf(lexical: WhooshIndex, query: str) -> dict[str, float]:
    terms = list(dict.fromkeys(analyze(query)))
    total, frequencies = lexical.doc_frequencies(terms)
    return {t: math.log(1 + (total - frequencies[t] + 0.5) / (frequencies[t] + 0.5)) for t in terms}


def _coverage(weights: dict[str, float], text: str) -> float:
    if not weights:
        return 0.0
    # Only lines holding a term's stem prefix can hold the term (lexical.stem_prefix): analyze
    # those alone, a third of the memory tier's time before.
    prefixes = [stem_prefix(t) for t in weights]
    lines = [line for line in text.lower().split("\n") if any(p in line for p in prefixes)]
    present = Counter(analyze("\n".join(lines)))
    return sum(w for t, w in weights.items() if present[t]) / sum(weights.values())


def _last_line(ledger: Ledger, note_id: int) -> int:
    return max((s.line_end for s in ledger.sections_of(note_id)), default=1)


def facet_counts(ledger: Ledger) -> dict:
    """Memory notes per facet, and the notes whose facet is missing or unknown (status)."""
    counts = {facet: 0 for facet in FACETS}
    unknown = []
    for note in (n for n in ledger.notes() if n.kind == MEMORY_KIND):
        facet = facet_of(note)
        if facet in counts:
            counts[facet] += 1
        else:
            unknown.append({"path": note.path, "facet": facet})
    return {"facets": counts, "unknown_facet": unknown}
