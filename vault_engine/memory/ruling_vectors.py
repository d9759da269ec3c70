"""The semantic arm of ``deadend check``: cosines against cached ruling vectors.

Each dead end's text, its description and the accepted statements of its note are embedded
once and kept in ``deadend_vectors.sqlite`` of the live index generation (``index_dir``) through
:class:`~vault_engine.stores.vectors.VectorCache`, keyed by (model, text hash). A check then
embeds only the proposal. The file is separate from the section cache because that cache
prunes every hash that is not a section's; it is derived like the rest of the index folder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from vault_engine.errors import ModelUnavailable
from vault_engine.stores.embedder import Embedder, usable_embedder

RECIPE = "deadend-text;v1"  # bump when what a text is embedded as changes


def text_hash(text: str) -> str:
    """The cache key of a ruling text."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def lexical_only(exc: ModelUnavailable) -> str:
    """The notice of a check the model could not serve, found before it ran or while it ran."""
    return f"{exc}: only the lexical arm ran"


def open_ruling_arm(get_embedder: Callable[[], Embedder],
                    cache_path: Path) -> tuple[RulingEmbeddings | None, str | None]:
    """The semantic arm, or None and the one line saying why it cannot run (found without
    loading the model; the lexical arm still answers); or the arm and the line saying it runs
    slowly: without the export of the query model (an index built with ``--no-embed``) each
    check loads the model itself, 22-33 s a check on a busy machine, and had said nothing of
    it (qa196). The check needs no section's vector, so it still weighs meaning."""
    try:
        embedder = usable_embedder(get_embedder)
    except ModelUnavailable as exc:
        return None, lexical_only(exc)
    slow = None if embedder.has_query_model() else (
        "the index holds no export of the query model (built with --no-embed?): each check loads the model "
        "itself, several seconds; `vault-engine index` makes them fast")
    return RulingEmbeddings(embedder, cache_path), slow


class RulingEmbeddings:
    """Embeds proposals; the vectors of rulings and accepted statements come from the cache
    when they can."""

    def __init__(self, embedder: Embedder, cache_path: Path):
        self.embedder = embedder
        self.cache_path = cache_path
        self._proposal: tuple[str, object] | None = None  # the last proposal and its vector

    def cosines(self, proposal: str, texts: Sequence[str]) -> list[float]:
        """Cosine of the proposal with each text (vectors are unit length); the proposal is
        embedded once however many times one check asks."""
        if not texts:
            return []
        if self._proposal is None or self._proposal[0] != proposal:
            self._proposal = (proposal, self.embedder.embed_queries([proposal])[0])
        return [float(x) for x in self.ruling_vectors(texts) @ self._proposal[1]]

    def ruling_vectors(self, texts: Sequence[str]):
        """One unit vector per text: cached ones read, missing ones embedded and stored."""
        import numpy as np

        from vault_engine.stores.vectors import VectorCache

        hashes = [text_hash(t) for t in texts]
        cache = VectorCache(self.cache_path, f"{self.embedder.identity}|{RECIPE}")
        try:
            found = cache.get_many(hashes)
            missing = list({h: t for h, t in zip(hashes, texts) if h not in found}.items())
            if missing:
                fresh = self.embedder.embed([t for _, t in missing])
                new = {h: fresh[i:i + 1] for i, (h, _) in enumerate(missing)}
                cache.put_many(new)
                found.update(new)
        finally:
            cache.close()
        return np.vstack([found[h][0] for h in hashes])


def warm_ruling_vectors(texts: Sequence[str], embedder: Embedder, cache_path: Path) -> None:
    """Embed every ruling not cached yet, at index time, so the first ``deadend check`` after
    many new dead ends embeds only its proposal (the model is loaded by then anyway)."""
    if texts:
        RulingEmbeddings(embedder, cache_path).ruling_vectors(texts)
