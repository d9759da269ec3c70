"""The vault's off-topic level: how close in meaning a question about nothing in it comes.

A cosine means different things in different vaults (a vault about cooking sits closer to
any everyday question than one about Kubernetes), so the miss rule does not use a fixed floor:
it asks whether a question is any closer to the vault than questions about the weather, a
pizza place or a flat tyre are. This module measures that once per embedding run, as the best
cosine any of :data:`PROBES` reaches among the vault's sections (but a probe the vault answers,
see :func:`unanswered_best`), and keeps it in the ledger's
meta; search reads it (retrieval/confidence.py). Measured again only when the share of
embedded sections moved by more than :data:`DRIFT` since, or the model changed.
"""

from __future__ import annotations

import statistics

from vault_engine.stores.embedder import Embedder
from vault_engine.stores.ledger import Ledger
from vault_engine.stores.vectors import FaissIndex

META = "offtopic_cosine"  # "<level>\t<embedded sections when measured>\t<model key><RULE>"
DRIFT = 0.05
RULE = "/fence"  # how the level was read from the probes: a level read otherwise is read again
PROBES = (
    "what is the weather going to be tomorrow", "best pizza place near me",
    "how tall is the eiffel tower", "who won the football match last night",
    "recipe for chocolate chip cookies", "how do I train my dog to sit",
    "cheap flights to lisbon in may", "what time does the pharmacy close",
    "lyrics of a famous love song", "how many calories are in a banana",
    "symptoms of the common cold", "how to tie a tie", "history of the roman empire",
    "how do plants make their food", "good books for a long summer holiday",
    "how to change a flat bicycle tyre", "what is the capital of australia",
    "exercises for lower back pain", "how do volcanoes erupt",
    "tips for growing tomatoes on a balcony",
)


def offtopic_level(ledger: Ledger) -> float | None:
    """The measured level, or None before any measure (no vectors yet, an older index)."""
    stored = ledger.get_meta(META)
    return float(stored.split("\t")[0]) if stored else None


def measure_offtopic(ledger: Ledger, vectors: FaissIndex, embedder: Embedder, model_key: str) -> None:
    """Measure and store the level, unless the stored one still stands for these vectors."""
    embedded = ledger.embedded_counts()[0]
    stored = ledger.get_meta(META)
    if stored:
        _, at, key = stored.split("\t", 2)
        if key == model_key + RULE and abs(embedded - int(at)) <= DRIFT * max(1, int(at)):
            return
    if not embedded:
        return
    level = unanswered_best([score for probe in embedder.embed_queries(list(PROBES))
                             for _, score in vectors.search(probe, 1)])
    with ledger.transaction():
        ledger.set_meta(META, f"{level:.4f}\t{embedded}\t{model_key}{RULE}")


def unanswered_best(cosines: list[float]) -> float:
    """The best cosine among the probes the vault does not answer. A probe far above the
    others (beyond Tukey's fence, Q3 + 1.5 x IQR) found a note on its own topic: one recipe
    in a vault of specs lifted the level over most right answers (qa29 N6)."""
    if len(cosines) < 4:
        return max(cosines, default=0.0)
    q1, _, q3 = statistics.quantiles(cosines, n=4)
    return max(c for c in cosines if c <= q3 + 1.5 * (q3 - q1))
