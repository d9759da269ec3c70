"""The semantic arm of search: the query's nearest sections by meaning.

The arm embeds the query with the same model as the sections, asks FAISS for the nearest
sections (each scored by its best window), scores the lexical arm's candidates exactly too
(so every hit reports its cosine), and keeps only sections the ledger says are embedded, so a
vector left behind by a crash never stands for a new section.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from typing import Any

from vault_engine.errors import ModelUnavailable
from vault_engine.stores.embedder import Embedder, in_background, usable_embedder
from vault_engine.stores.ledger import Ledger
from vault_engine.stores.vector_state import MODEL_META, changed_part, coverage_said, model_key, vector_damage
from vault_engine.stores.vectors import FaissIndex


class SemanticSearcher:
    """The semantic arm: query -> (section id, cosine) best first, embedded sections only."""

    def __init__(self, embedder: Embedder, vectors: FaissIndex, ledger: Ledger):
        self.embedder = embedder
        self.vectors = vectors
        self.ledger = ledger
        self._ahead: tuple[str, Callable[[], Any]] | None = None  # a query being embedded, its vector

    def embed_ahead(self, query: str) -> None:
        """Start embedding ``query`` on a thread of its own, for the :meth:`search` that
        follows: ONNX Runtime lets go of the GIL, so the query's 4-5 ms run beside the lexical
        arm's Python on the host's other core (hybrid p50 at 47,703 sections 33 -> 29 ms,
        bench/RESULTS.md). Only by the export: the model's own path would import torch off
        the main thread."""
        if query.strip() and self.embedder.has_query_model():
            self._ahead = (query, in_background(lambda: self.embedder.embed_queries([query])[0],
                                                "vault-engine-query"))

    def _query_vector(self, query: str):
        ahead, self._ahead = self._ahead, None
        return ahead[1]() if ahead and ahead[0] == query else self.embedder.embed_queries([query])[0]

    def search(self, query: str, limit: int, include: Iterable[int] = (),
               allowed: Container[int] | None = None) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """The ``limit`` nearest sections best first (among ``allowed`` ones, for a filtered
        search), and the exact cosine of each ``include`` section that has vectors (the
        lexical arm's candidates)."""
        if not query.strip():
            return [], {}
        vector = self._query_vector(query)
        nearest = self.vectors.search(vector, limit, allowed)
        found = dict(nearest)
        extra = self.vectors.similarities(vector, [i for i in dict.fromkeys(include) if i not in found])
        live = self.ledger.embedded_ids([*found, *extra])
        return [(i, s) for i, s in nearest if i in live], {i: s for i, s in extra.items() if i in live}


def open_arm(ledger: Ledger, vectors: FaissIndex, get_embedder, *, required: bool = False,
             embedding_by: Callable[[], str | None] = lambda: None) -> tuple[SemanticSearcher | None, str | None]:
    """The semantic arm when it can run, else (None, a one-line notice). It can run when
    sections have vectors, made by the configured model, whose folder holds a model (whether
    it loads is found at the query). ``required`` (``search --semantic``) turns the notice
    into a :class:`ModelUnavailable` error. ``embedding_by()`` names who is embedding by
    itself (a running watcher, another process's ``index``): the notice then tells to wait,
    not to run ``index``."""
    if not ledger.section_count():  # a vault of no notes: "run `vault-engine index`" would not help (qa127)
        return None, None
    try:
        embedder = usable_embedder(get_embedder)
        if not ledger.embedded_ids_exist():
            who = embedding_by()
            raise ModelUnavailable("no section has vectors yet: " + (
                f"{who} is embedding them ({ledger.section_count()} sections to go); "
                "nothing to run, ask again in a moment" if who else "run `vault-engine index`"))
        damage = vector_damage(ledger, vectors)
        if damage:
            raise ModelUnavailable(f"the vector index is unusable ({damage}): run `vault-engine index` to "
                                   "repair it from the vector cache")
        made, key = ledger.get_meta(MODEL_META), model_key(embedder)
        if made != key:
            who = embedding_by()
            what = changed_part(made, key) if made else "the vectors were made by another model or window"
            raise ModelUnavailable(f"{what}: " + (
                f"{who} is embedding them again; nothing to run, ask again in a moment"
                if who else "run `vault-engine index` to embed again"))
        # The model itself is not waited for here: it loads in the background meanwhile
        # (Vault.search began it: prefetch_queries) and is needed at the query's embedding,
        # after the lexical arm. A model that fails to load turns the arm off there
        # (Searcher.search, arm_off).
    except ModelUnavailable as exc:
        if required:
            raise
        return None, arm_off(exc)
    return SemanticSearcher(embedder, vectors, ledger), None


def partial_notice(ledger: Ledger, vectors: FaissIndex, embedding_by: Callable[[], str | None]) -> str | None:
    """The notice of a search whose semantic arm reads only some sections (a watcher still
    embedding, an index stopped midway), or whose vectors are not the ones the ledger records
    (a vectors file copied from another vault, or put back from an older state: its meaning hits
    were wrong without a word, qa97), else None: a note without vectors is found by its words
    only, and the answer may change once the rest is embedded."""
    coverage = ledger.semantic_coverage()
    if coverage >= 1.0:
        held, recorded = vectors.count(), ledger.embedded_windows()
        if held == recorded or embedding_by() is not None:  # while another process embeds, counts pass each other
            return None
        return (f"the vector index holds {held} vectors where the index records {recorded} (a vectors file "
                "from another vault or an older state?): meaning hits may be wrong until `vault-engine index` "
                "brings them back in step")
    to_go = ledger.section_count() - round(coverage * ledger.section_count())
    who = embedding_by()
    return (f"the meaning arm reads {coverage_said(coverage)} of the sections (words read all): "
            + (f"{who} is embedding the rest ({to_go} to go); ask again in a moment"
               if who else f"run `vault-engine index` to embed the other {to_go}"))


def arm_off(exc: ModelUnavailable) -> str:
    """The notice of a search whose semantic arm cannot run."""
    return f"semantic arm off: {exc}; searching by words only"
