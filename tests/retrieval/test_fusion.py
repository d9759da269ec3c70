"""Fusion of the search arms (vault_engine/retrieval/fusion.py): pure functions."""

import pytest

from vault_engine.retrieval.fusion import RRF_K, fuse_lexical, fuse_rrf, fuse_semantic


def test_rank_fusion_rewards_agreement_and_first_in_both_scores_one():
    fused = fuse_rrf([(1, 5.0), (2, 4.0)], [(2, 0.9), (3, 0.8)])
    assert [f.id for f in fused] == [2, 1, 3]
    assert (fused[0].lexical, fused[0].semantic) == (4.0, 0.9)
    alone = fuse_rrf([(7, 3.0)], [(7, 0.5)])
    assert alone[0].fused == pytest.approx(1.0)


def test_each_arm_counts_by_rank_not_by_score():
    """BM25 and cosines are on different scales: only ranks are added."""
    a = fuse_rrf([(1, 100.0), (2, 1.0)], [(3, 0.9), (4, 0.1)])
    b = fuse_rrf([(1, 2.0), (2, 1.9)], [(3, 0.31), (4, 0.30)])
    assert [(f.id, round(f.fused, 6)) for f in a] == [(f.id, round(f.fused, 6)) for f in b]
    assert a[0].fused == pytest.approx((1 / (RRF_K + 1)) / (2 / (RRF_K + 1)))


def test_cosines_of_lexical_candidates_are_reported_but_not_ranked():
    fused = {f.id: f for f in fuse_rrf([(1, 5.0), (2, 4.0)], [(3, 0.9)], cosines={2: 0.2})}
    assert fused[2].semantic == 0.2 and fused[1].semantic is None
    assert fused[2].fused == pytest.approx((1 / (RRF_K + 2)) / (2 / (RRF_K + 1)))


def test_ties_break_by_id_so_results_are_stable():
    assert [f.id for f in fuse_rrf([(9, 1.0)], [(2, 0.5)])] == [2, 9]
    assert [f.id for f in fuse_semantic([(9, 0.5), (2, 0.5)])] == [2, 9]


def test_semantic_alone_ranks_by_cosine():
    assert [(f.id, f.fused, f.lexical) for f in fuse_semantic([(4, 0.2), (5, 0.9)])] == [(5, 0.9, None), (4, 0.2, None)]


def test_lexical_alone_keeps_bm25_gaps_scaled_to_the_best_hit():
    fused = fuse_lexical([(7, 20.0), (3, 19.0), (5, 5.0)])
    assert [(f.id, f.fused, f.lexical) for f in fused] == [(7, 1.0, 20.0), (3, 0.95, 19.0), (5, 0.25, 5.0)]
    assert fuse_lexical([]) == [] and fuse_rrf([], []) == []
