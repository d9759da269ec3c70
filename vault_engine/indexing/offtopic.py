"""The vault's off-topic levels: how close in meaning questions about nothing in it come.

A cosine means different things in different vaults (a vault about cooking sits closer to
any everyday question than one about Kubernetes), so confidence and the miss rule use no
fixed floor: they ask how a question compares with questions about the weather, a pizza
place or a flat tyre. This module measures once per embedding run the cosine each of
:data:`PROBES` reaches among the vault's sections, and keeps two levels in the ledger's meta
for search (retrieval/confidence.py), one for each claim a search can make:

- ``best``, the best cosine of a probe the vault does not answer (:func:`unanswered_best`):
  a ``high`` answer must come closer than any off-topic question does;
- ``typical``, the median probe's: a miss must come no closer than a typical off-topic
  question does. The best probe sets no miss: in a personal vault of recipes and books, the
  cookie and holiday-reading probes reach 0.44, and two right answers below it were misses
  (qa42: "evergren notes", "how to say sorry properly" on kepano-obsidian);
- ``ceiling``, the probes' upper fence (Tukey's, Q3 + 1.5 x IQR): as close as an off-topic
  question can be expected to come, for meaning to beat when no note holds most of the
  question's words. Twenty probes are a sample: "what is the capital city of Australia?"
  came 0.182 from a record of nygard-adrs, over the best probe's 0.178 (qa105; the fence
  is 0.232).

Measured again only when the share of embedded sections moved by more than :data:`DRIFT`
since, or the model or :data:`RULE` changed.
"""

from __future__ import annotations

import statistics
from typing import NamedTuple

from vault_engine.stores.embedder import Embedder
from vault_engine.stores.ledger import Ledger
from vault_engine.stores.vectors import FaissIndex

META = "offtopic_cosine"  # "<best>\t<typical>\t<ceiling>\t<embedded sections when measured>\t<model key><RULE>"
DRIFT = 0.05
RULE = "/fence;median;ceiling"  # how the levels were read from the probes: levels read otherwise are read again
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


class OffTopic(NamedTuple):
    best: float  # a `high` answer comes closer than this
    typical: float  # a miss comes no closer than this
    ceiling: float  # ... nor than this when no note holds most of the question's words


def offtopic_levels(ledger: Ledger) -> OffTopic | None:
    """The measured levels, or None before any measure by this rule (no vectors yet, an
    older index: the next embedding run measures them)."""
    stored = ledger.get_meta(META)
    if not stored or not stored.endswith(RULE):
        return None
    best, typical, ceiling = stored.split("\t")[:3]
    return OffTopic(float(best), float(typical), float(ceiling))


def measure_offtopic(ledger: Ledger, vectors: FaissIndex, embedder: Embedder, model_key: str) -> None:
    """Measure and store the levels, unless the stored ones still stand for these vectors."""
    embedded = ledger.embedded_counts()[0]
    stored = ledger.get_meta(META)
    if stored:
        *_, at, key = stored.split("\t")
        if key == model_key + RULE and abs(embedded - int(at)) <= DRIFT * max(1, int(at)):
            return
    if not embedded:
        return
    cosines = [score for probe in embedder.embed_queries(list(PROBES)) for _, score in vectors.search(probe, 1)]
    best, typical, ceiling = (max(0.0, level) for level in (unanswered_best(cosines), statistics.median(cosines),
                                                            upper_fence(cosines)))
    with ledger.transaction():
        ledger.set_meta(META, f"{best:.4f}\t{typical:.4f}\t{ceiling:.4f}\t{embedded}\t{model_key}{RULE}")


def unanswered_best(cosines: list[float]) -> float:
    """The best cosine among the probes the vault does not answer. A probe far above the
    others (beyond Tukey's fence, Q3 + 1.5 x IQR) found a note on its own topic: one recipe
    in a vault of specs lifted the level over most right answers (qa29 N6)."""
    fence = upper_fence(cosines)
    return max((c for c in cosines if c <= fence), default=0.0)


def upper_fence(cosines: list[float]) -> float:
    """Tukey's upper fence of the probes' cosines, Q3 + 1.5 x IQR (with fewer than four, their
    best): how close an off-topic question comes at most, a probe beyond it an outlier."""
    if len(cosines) < 4:
        return max(cosines, default=0.0)
    q1, _, q3 = statistics.quantiles(cosines, n=4)
    return q3 + 1.5 * (q3 - q1)
