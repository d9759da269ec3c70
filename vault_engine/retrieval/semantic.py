"""The semantic arm of search, term coverage, and the rule that makes a weak answer a miss.

The arm embeds the query with the same model as the sections, asks FAISS for the nearest
sections (each scored by its best window), scores the lexical arm's candidates exactly too,
and keeps only sections the ledger says are embedded, so a vector left behind by a crash
never stands for a new section.

**Term coverage** is how the lexical side is put on a fixed scale: the share of the query's
informative terms (weighted by inverse document frequency) that one section holds. BM25
over OR-ed terms matches almost any question somewhere: "how do I sync my tasks with google
calendar" shares "tasks" with every note of a task-plugin vault, which says nothing, and
misses "google" and "sync", which say the most.

**The miss rule** (DESIGN.md: a miss is a miss, never a guess): a search with the semantic
arm is a miss when no candidate covers ``miss_term_coverage`` of the query's weight (no
section matches lexically) AND the best cosine is below ``miss_cosine_floor`` (none matches
in meaning). Both live in ``[search]`` of vault-engine.toml; the defaults were calibrated
on the dev split of bench/data/search_eval.jsonl (bench/RESULTS.md).
"""

from __future__ import annotations

import functools
import math
import re
import threading
import weakref
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vault_engine.errors import ConfigError, ModelUnavailable
from vault_engine.indexing.embedding import MODEL_META, model_key
from vault_engine.stores.embedder import Embedder
from vault_engine.stores.ledger import Ledger
from vault_engine.stores.lexical import FIELDS, STOP_WORDS, WhooshIndex, analyze, stem, stem_prefix
from vault_engine.stores.vectors import FaissIndex

DEFAULT_COSINE_FLOOR = 0.56
DEFAULT_TERM_COVERAGE = 0.40
COVERAGE_TEXT_CHARS = 20_000  # of a section, enough for any question to be about


@dataclass(frozen=True, slots=True)
class MissRule:
    """When a search answers ``miss``: ``[search] miss_cosine_floor`` / ``miss_term_coverage``."""

    cosine_floor: float = DEFAULT_COSINE_FLOOR
    term_coverage: float = DEFAULT_TERM_COVERAGE

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> MissRule:
        """Validate ``[search]``; an out-of-range value names its key."""
        return cls(_unit_float(table, "miss_cosine_floor", DEFAULT_COSINE_FLOOR),
                   _unit_float(table, "miss_term_coverage", DEFAULT_TERM_COVERAGE))

    def is_miss(self, best_coverage: float, best_cosine: float | None) -> bool:
        """No section covers the query's informative terms, and none is close in meaning
        (``best_cosine`` None: no candidate had vectors, so meaning cannot vouch for any)."""
        if best_coverage >= self.term_coverage:
            return False
        return best_cosine is None or best_cosine < self.cosine_floor


def _unit_float(table: Mapping[str, Any], key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ConfigError(f"search.{key} must be a number within [0, 1]")
    return float(value)


def term_weights(lexical: WhooshIndex, terms: Iterable[str]) -> dict[str, float]:
    """BM25's inverse document frequency of each analyzed term. A term no section has weighs
    the most: it is the most specific thing the query says."""
    terms = list(dict.fromkeys(terms))
    if not terms or not lexical.exists():
        return {t: 1.0 for t in terms}
    reader = _reader(lexical)
    total = reader.doc_count()
    weights = {}
    for term in terms:
        df = max(reader.doc_frequency(field, term) for field in FIELDS)
        weights[term] = math.log(1.0 + (total - df + 0.5) / (df + 0.5))
    return weights


# One open Whoosh reader per lexical index: opening one reads every segment's term tables
# (measured: 150 ms at 30,000 sections, per query). Reopened when the index object or its
# generation changes, so counts are never stale after an index run.
_READERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_READERS_LOCK = threading.Lock()


def _reader(lexical: WhooshIndex):
    index = lexical.load()
    generation = index.latest_generation()
    with _READERS_LOCK:
        cached = _READERS.get(lexical)
        if cached is not None and cached[0] is index and cached[1] == generation:
            return cached[2]
        if cached is not None:
            cached[2].close()
        reader = index.reader()
        _READERS[lexical] = (index, generation, reader)
        return reader


def term_coverage(weights: Mapping[str, float], section_terms: set[str]) -> float:
    """Share of the query's term weight found in one section (0 for an empty query)."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for term, w in weights.items() if term in section_terms) / total


def terms_in(text: str, terms: Iterable[str]) -> set[str]:
    """The analyzed ``terms`` that :func:`analyze` would find in ``text``, without analyzing
    all of it: only words that start with a term's :func:`stem_prefix` are stemmed."""
    lowered = text.lower()
    found = set()
    for term in terms:
        for match in _word_pattern(term).finditer(lowered):
            word = match.group()
            if len(word) > 1 and word not in STOP_WORDS and stem(word) == term:
                found.add(term)
                break
    return found


@functools.lru_cache(maxsize=4096)
def _word_pattern(term: str) -> re.Pattern:
    """Whole tokens, as analyze() cuts them, that start like a word stemming to ``term``
    ("task.due.moment" is one token, not "task")."""
    return re.compile(r"(?<!\w)(?<!\w[.'’])" + re.escape(stem_prefix(term)) + r"\w*(?:[.'’]\w+)*")


def lexical_coverage(ledger: Ledger, lexical: WhooshIndex, query: str,
                     section_ids: Sequence[int]) -> dict[int, float]:
    """:func:`term_coverage` of each section, over what the lexical index holds of it: the
    note title, heading path, path and text."""
    if not section_ids:
        return {}
    weights = term_weights(lexical, analyze(query))
    sections = ledger.sections_by_ids(section_ids)
    notes = ledger.notes_by_ids(s.note_id for s in sections.values())
    found = {}
    for i, section in sections.items():
        note = notes.get(section.note_id)
        if note is not None:
            text = f"{note.title}\n{' '.join(section.heading_path)}\n{note.path}\n{section.text}"
            found[i] = term_coverage(weights, terms_in(text[:COVERAGE_TEXT_CHARS], weights))
    return found


class SemanticSearcher:
    """The semantic arm: query -> (section id, cosine) best first, embedded sections only."""

    def __init__(self, embedder: Embedder, vectors: FaissIndex, ledger: Ledger):
        self.embedder = embedder
        self.vectors = vectors
        self.ledger = ledger

    def search(self, query: str, limit: int, include: Iterable[int] = (),
               allowed: Container[int] | None = None) -> list[tuple[int, float]]:
        """The ``limit`` nearest sections (among ``allowed`` ones, for a filtered search), then
        the exact cosine of each ``include`` section that has vectors (the lexical arm's
        candidates, so fusion compares like with like)."""
        if not query.strip():
            return []
        vector = self.embedder.embed_queries([query])[0]
        found = dict(self.vectors.search(vector, limit, allowed))
        extra = [i for i in dict.fromkeys(include) if i not in found]
        found.update(self.vectors.similarities(vector, extra))
        live = self.ledger.embedded_ids(found)
        return [(i, score) for i, score in found.items() if i in live]


def open_arm(ledger: Ledger, vectors: FaissIndex, get_embedder, *,
             required: bool = False) -> tuple[SemanticSearcher | None, str | None]:
    """The semantic arm when it can run, else (None, a one-line notice). It can run when
    sections have vectors, made by the configured model, and that model loads. ``required``
    (``search --semantic``) turns the notice into a :class:`ModelUnavailable` error."""
    try:
        embedder = get_embedder()
        problem = embedder.problem()
        if problem:
            raise ModelUnavailable(problem)
        if not ledger.embedded_ids_exist():
            raise ModelUnavailable("no section has vectors yet: run `vault-engine index`")
        if ledger.get_meta(MODEL_META) != model_key(embedder):
            raise ModelUnavailable("the vectors were made by another model or window: "
                                   "run `vault-engine index` to embed again")
        embedder.prepare_queries()  # loads now, so a broken model is found before searching
    except ModelUnavailable as exc:
        if required:
            raise
        return None, f"semantic arm off: {exc}; searching by words only"
    return SemanticSearcher(embedder, vectors, ledger), None
