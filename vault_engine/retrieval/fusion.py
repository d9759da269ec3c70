"""Fusion of ranked lists from the search arms. Pure functions over (id, score) lists.

Reciprocal rank fusion, scaled so that a section ranked first by every arm that ran scores
1.0: ``fused = mean over arms of (K + 1) / (K + rank)``, an arm that did not return the
section contributing 0. Rank-based, so BM25's unbounded scores and cosine similarities need
no calibration against each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True, slots=True)
class Fused:
    id: int
    fused: float
    lexical: float | None
    semantic: float | None


def fuse(lexical: Sequence[tuple[int, float]] | None,
         semantic: Sequence[tuple[int, float]] | None, k: int = RRF_K) -> list[Fused]:
    """Merge the arms' rankings; ``None`` for an arm that did not run. Best first."""
    arms = [arm for arm in (lexical, semantic) if arm is not None]
    if not arms:
        return []
    lex = dict(lexical or ())
    sem = dict(semantic or ())
    totals: dict[int, float] = {}
    for arm in arms:
        for rank, (doc_id, _) in enumerate(arm, start=1):
            totals[doc_id] = totals.get(doc_id, 0.0) + (k + 1) / (k + rank)
    fused = [Fused(i, total / len(arms), lex.get(i), sem.get(i)) for i, total in totals.items()]
    fused.sort(key=lambda f: (-f.fused, f.id))
    return fused
