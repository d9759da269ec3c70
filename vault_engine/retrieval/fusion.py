"""Fusion of the search arms' answers. Pure functions over ranked (id, score) lists.

* **Both arms: reciprocal rank fusion.** A section scores ``1 / (RRF_K + rank)`` in each arm
  that found it, summed and divided by the best possible sum, so a section first in both arms
  scores 1.0. Ranks need no calibration between BM25 and cosines, which is why it carries
  from vault to vault: chosen leaving one corpus out over four real corpora against score
  mixtures and cosine-plus-coverage (bench/search_lab.py; figures in bench/RESULTS.md).
* **Lexical alone: BM25 scaled by the best hit's**, so the first hit scores 1.0 and the gaps
  between hits stay what BM25 says. Decay multiplies this score afterwards, and rank-based
  scores would let a 0.92 decay bury the clearly best match under weaker ones.
* **Semantic alone: the cosine.**

Every list is cut at the same depth whatever ``k`` a search asks for (retrieval/search.py),
so the first hits never depend on how many were asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

RRF_K = 5


@dataclass(frozen=True, slots=True)
class Fused:
    id: int
    fused: float
    lexical: float | None  # BM25, when the lexical arm found the section
    semantic: float | None  # cosine, when the section has vectors


def fuse(lexical: Sequence[tuple[int, float]] | None, semantic: Sequence[tuple[int, float]] | None,
         cosines: Mapping[int, float] | None = None) -> list[Fused]:
    """The arms' rankings fused by what ran and found something. An arm that ran and found
    nothing fuses as an arm not run: RRF over one list halved its scores and made them ranks
    (a filter no embedded section passes, qa33 R5)."""
    if lexical and semantic:
        return fuse_rrf(lexical, semantic, cosines)
    if semantic:
        return fuse_semantic(semantic)
    return fuse_lexical(lexical or ())


def fuse_rrf(lexical: Sequence[tuple[int, float]], semantic: Sequence[tuple[int, float]],
             cosines: Mapping[int, float] | None = None, k: float = RRF_K) -> list[Fused]:
    """Reciprocal rank fusion of both arms, scaled so 1.0 is first in both. Best first.
    ``cosines`` adds the exact cosine of sections the semantic list did not reach (reported,
    not ranked: a rank beyond the list's depth counts nothing)."""
    bm25, cos = dict(lexical), {**(cosines or {}), **dict(semantic)}
    totals: dict[int, float] = {}
    for ranking in (lexical, semantic):
        for rank, (doc_id, _) in enumerate(ranking, start=1):
            totals[doc_id] = totals.get(doc_id, 0.0) + 1.0 / (k + rank)
    best = 2.0 / (k + 1)
    fused = [Fused(i, total / best, bm25.get(i), cos.get(i)) for i, total in totals.items()]
    fused.sort(key=lambda f: (-f.fused, f.id))
    return fused


def fuse_lexical(lexical: Sequence[tuple[int, float]]) -> list[Fused]:
    """BM25 divided by the best BM25 of the query: 1.0 for the first hit. Best first."""
    best = max((score for _, score in lexical), default=0.0) or 1.0
    fused = [Fused(i, score / best, score, None) for i, score in lexical]
    fused.sort(key=lambda f: (-f.fused, f.id))
    return fused


def fuse_semantic(semantic: Sequence[tuple[int, float]]) -> list[Fused]:
    """The cosine is the score. Best first, ties by id."""
    fused = [Fused(i, score, None, score) for i, score in semantic]
    fused.sort(key=lambda f: (-f.fused, f.id))
    return fused
