"""Fusion of the search arms' answers. Pure functions over (id, score) lists and maps.

Two schemes, chosen by which arms ran:

* **Both arms: calibrated score fusion.** ``fused = cosine + LEXICAL_WEIGHT * coverage``,
  where ``cosine`` is the section's similarity to the query (its best window) and
  ``coverage`` the share of the query's informative (IDF-weighted) terms the section holds.
  Both are on a fixed [0, 1] scale whatever the query, unlike BM25, so they add up. Every
  candidate of either arm gets its exact cosine (the semantic arm scores the lexical
  candidates too). Measured on bench/data/search_eval.jsonl against reciprocal rank fusion:
  RRF lets a weak lexical match (BM25 over OR-ed terms finds *something* for any question)
  outvote a strong semantic one; see bench/RESULTS.md for the numbers.
* **Lexical alone: BM25 scaled by the best hit's**, so the first hit scores 1.0 and the gaps
  between hits stay what BM25 says. Decay multiplies this score afterwards, and rank-based
  scores would let a 0.92 decay bury the clearly best match under weaker ones.
  (Reciprocal rank fusion, :func:`fuse`, stays as the baseline bench/eval_search.py compares.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

RRF_K = 60
LEXICAL_WEIGHT = 0.1  # calibrated in bench/eval_search.py --fusions


@dataclass(frozen=True, slots=True)
class Fused:
    id: int
    fused: float
    lexical: float | None  # BM25, when the lexical arm found the section
    semantic: float | None  # cosine, when the section has vectors
    coverage: float | None = None  # share of the query's informative terms, lexical hits only


def fuse(lexical: Sequence[tuple[int, float]] | None,
         semantic: Sequence[tuple[int, float]] | None, k: int = RRF_K) -> list[Fused]:
    """Reciprocal rank fusion; ``None`` for an arm that did not run. Best first.

    Used when one arm ran (it then keeps that arm's order); both arms use
    :func:`fuse_calibrated`, which measured better.
    """
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


def fuse_lexical(lexical: Sequence[tuple[int, float]]) -> list[Fused]:
    """BM25 divided by the best BM25 of the query: 1.0 for the first hit. Best first."""
    best = max((score for _, score in lexical), default=0.0) or 1.0
    fused = [Fused(i, score / best, score, None) for i, score in lexical]
    fused.sort(key=lambda f: (-f.fused, f.id))
    return fused


def fuse_calibrated(lexical: Sequence[tuple[int, float]], coverage: Mapping[int, float],
                    cosine: Mapping[int, float], weight: float = LEXICAL_WEIGHT) -> list[Fused]:
    """``cosine + weight * coverage`` over the union of both arms' candidates. Best first.

    A lexical candidate without vectors yet (embedding still catching up) is given the mean
    cosine of the other lexical candidates, so it is neither buried nor favoured; its
    reported ``semantic`` score stays None.
    """
    bm25 = dict(lexical)
    known = [cosine[i] for i in bm25 if i in cosine]
    neutral = sum(known) / len(known) if known else 0.0
    fused = []
    for i in dict.fromkeys([*bm25, *cosine]):
        cover = coverage.get(i) if i in bm25 else None
        total = cosine.get(i, neutral) + weight * (cover or 0.0)
        fused.append(Fused(i, total, bm25.get(i), cosine.get(i), cover))
    fused.sort(key=lambda f: (-f.fused, f.id))
    return fused
