"""Term coverage: how much of a query's informative words one section holds.

The share of the query's terms, each weighted by its inverse document frequency, that a
section holds as the lexical index does (its note's title, tags and properties, its heading
path, path and text). BM25 over OR-ed terms matches almost any question somewhere: "how do I
sync my tasks with google calendar" shares "tasks" with every note of a task-plugin vault,
which says nothing, and misses "google" and "sync", which say the most. Coverage says that
on a fixed [0, 1] scale, whatever the query: the miss rule and single-arm confidence read it
(retrieval/confidence.py).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Iterator, Mapping

from vault_engine.parsing.frontmatter import property_words
from vault_engine.stores.ledger import NoteRow, SectionRow
from vault_engine.stores.lexical import (
    WhooshIndex,
    dotted_parts,
    fold_accents,
    holds_cjk,
    is_term,
    normal_word,
    stem,
    stem_prefix,
)

# Of a section: the lexical index reads all of it, and a word 22,000 characters into a long
# transcript made its only hit "hold no word" (qa27 F1); the cap bounds a 10 MB note's scan.
COVERAGE_TEXT_CHARS = 1_000_000


def term_weights(lexical: WhooshIndex, terms: Iterable[str]) -> dict[str, float]:
    """BM25's inverse document frequency of each analyzed term. A term no section has weighs
    the most: it is the most specific thing the query says."""
    return weighed_terms(lexical, terms)[0]


def weighed_terms(lexical: WhooshIndex, terms: Iterable[str]) -> tuple[dict[str, float], list[str]]:
    """:func:`term_weights`, and the terms no section holds, in the query's order."""
    total, frequencies = lexical.doc_frequencies(dict.fromkeys(terms))
    return ({t: math.log(1.0 + (total - df + 0.5) / (df + 0.5)) for t, df in frequencies.items()},
            [t for t, df in frequencies.items() if df == 0])


def term_coverage(weights: Mapping[str, float], section_terms: set[str]) -> float:
    """Share of the query's term weight found in one section (0 for an empty query)."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for term, w in weights.items() if term in section_terms) / total


def terms_in(text: str, terms: Iterable[str]) -> set[str]:
    """The analyzed ``terms`` that :func:`analyze` would find in ``text``, without analyzing
    all of it: only words that start with a term's :func:`stem_prefix` are stemmed."""
    folded = fold_accents(text)  # as normal_word() folds each word; cased, for the code names
    return {term for term in terms if next(_written_as(term, folded), None) is not None}


def written_as(term: str, text: str, *, nearest: str = "") -> str | None:
    """A word of ``text`` that :func:`analyze` reads as ``term``, as written there (None when
    none is): "custom" for the term "custom", "causes" for "caus". With ``nearest``, the form
    spelled most like it ("suggestions" rather than "suggest" for "sugestions")."""
    forms = _written_as(term, fold_accents(text))
    if not nearest:
        return next(forms, None)
    from vault_engine.retrieval.typos import osa_distance

    return min(forms, key=lambda form: osa_distance(nearest, form.lower()), default=None)


def _written_as(term: str, folded: str) -> Iterator[str]:
    if holds_cjk(term):  # a pair of characters, anywhere in a run written without spaces
        if term in folded:
            yield term
        return
    for match in _word_pattern(term).finditer(folded):
        raw = match.group()
        word = normal_word(raw)  # as analyze() reads it: "Vashti's" holds "vashti" (qa28 F2)
        if match.start() and folded[match.start() - 1] == ".":  # inside a dotted name: its part
            words = dotted_parts("." + raw.split(".")[0])
        else:
            words = [word, *dotted_parts(raw)] if is_term(word) else []
        yield from (w for w in words if stem(w) == term)


@functools.lru_cache(maxsize=4096)
def _word_pattern(term: str) -> re.Pattern:
    """Tokens, as analyze() cuts them, or a dotted name's parts, that start like a word
    stemming to ``term`` ("task.isRecurring" holds "isrecurr", not "recurr")."""
    version = "v?" if term[:1].isdigit() else ""  # "v2.3.1" is the word "2.3.1" (normal_word)
    return re.compile(r"(?<!\w)(?<!\w['’])" + version + re.escape(stem_prefix(term)) + r"\w*(?:[.'’]\w+)*",
                      re.IGNORECASE)


def section_coverage(weights: Mapping[str, float],
                     sections: Iterable[tuple[NoteRow, SectionRow, Iterable[str]]]) -> float:
    """:func:`term_coverage` of what the lexical index holds of a section (:func:`indexed_text`;
    with its tags), or of a few read together (a section and the one that embeds it)."""
    held = set().union(*(terms_in(indexed_text(note, section, tags)[:COVERAGE_TEXT_CHARS], weights)
                         for note, section, tags in sections))
    return term_coverage(weights, held)


def indexed_text(note: NoteRow, section: SectionRow, tags: Iterable[str]) -> str:
    """What the lexical index reads of a section: its note's title, its heading path, the
    note's ``tags`` (all of them, inline ones too, as the index gives each section: with its
    frontmatter's alone, a hit its inline tag found "did not hold every word", qa127), for
    its first section the words of the note's properties, path and text."""
    properties = property_words(note.meta) if section.ord == 0 else ""
    return "\n".join([note.title, " ".join(section.heading_path), " ".join(tags), properties, note.path, section.text])
