"""What the stored vectors were made with, and whether the vectors file can be used.

The indexer (indexing/embedding.py) records ``model_key`` in the ledger's meta when it embeds;
the semantic arm (retrieval/semantic.py) compares it with the configured model's before it
searches. Both read the same key and the same damage check from here, so retrieval never
imports the indexer.
"""

from __future__ import annotations

import math

from vault_engine.errors import VectorsDamaged
from vault_engine.stores.embedder import Embedder
from vault_engine.stores.ledger import Ledger
from vault_engine.stores.vectors import FaissIndex

# Bump when the text a section is embedded as changes (indexing/embedding.py: section_prefix,
# split_windows, parsing/readable.py): the cache and FAISS are rebuilt.
RECIPE = "title>path|readable text;overlap=1/8;v9"  # v9: placeholders in <> kept
MODEL_META = "embed_model"  # the ledger meta key holding the model_key of the stored vectors


def coverage_said(share: float) -> str:
    """The share of sections with vectors as a person reads it, rounded down: 99.75% is "99%",
    never "100%" while some lack them (qa81, qa84), and a sliver is "under 1%", not "0%"."""
    percent = math.floor(share * 100)
    return f"{percent}%" if percent or share <= 0 else "under 1%"


def model_key(embedder: Embedder) -> str:
    """What the vectors depend on: the model, its window and the text recipe."""
    return f"{embedder.identity}|window={embedder.max_tokens}|{RECIPE}"


def changed_part(before: str, now: str) -> str:
    """What changed between the making of two sets of vectors (:func:`model_key`): the model,
    its window, or how a note's text is prepared for it. An upgrade that prepares the text
    otherwise had said "the embedding model changed" of the same model (qa99)."""
    model, window, *recipe = before.split("|")
    model_now, window_now, *recipe_now = now.split("|")
    if model != model_now:
        return "the embedding model changed"
    if window != window_now:
        return "the model's window changed"
    return f"this release prepares notes for the model otherwise ({'|'.join(recipe)} → {'|'.join(recipe_now)})"


def vector_damage(ledger: Ledger, vectors: FaissIndex) -> str | None:
    """Why the vectors file cannot be used, or None: gone while the ledger records embedded
    sections, unreadable, or holding vectors we never write. (Counts that differ are a
    catch-up, or a crash between saving FAISS and the ledger: the reconcile fixes those,
    searches filter by the ledger.)"""
    if not vectors.exists():
        return "the vectors file is missing" if ledger.embedded_ids_exist() else None
    try:
        vectors.load()
    except VectorsDamaged as exc:
        return exc.reason
    return None
