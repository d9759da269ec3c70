"""Fusion of the search arms (vault_engine/retrieval/fusion.py): pure functions."""

import pytest

from vault_engine.retrieval.fusion import LEXICAL_WEIGHT, fuse, fuse_calibrated, fuse_lexical


def test_one_arm_keeps_its_order_and_the_first_scores_one():
    fused = fuse([(7, 12.0), (3, 9.5), (5, 1.0)], None)
    assert [f.id for f in fused] == [7, 3, 5]
    assert fused[0].fused == pytest.approx(1.0)
    assert fused[0].lexical == 12.0 and fused[0].semantic is None


def test_rank_fusion_of_both_arms_rewards_agreement():
    fused = fuse([(1, 5.0), (2, 4.0)], [(2, 0.9), (3, 0.8)])
    assert [f.id for f in fused] == [2, 1, 3]
    assert fused[0].lexical == 4.0 and fused[0].semantic == 0.9


def test_no_arm_no_result():
    assert fuse(None, None) == []


def test_calibrated_fusion_adds_a_weighted_coverage_to_the_cosine():
    fused = fuse_calibrated([(1, 30.0), (2, 10.0)], {1: 0.5, 2: 1.0}, {1: 0.60, 2: 0.58, 3: 0.70})
    by_id = {f.id: f for f in fused}
    assert by_id[1].fused == pytest.approx(0.60 + LEXICAL_WEIGHT * 0.5)
    assert by_id[2].fused == pytest.approx(0.58 + LEXICAL_WEIGHT * 1.0)
    assert by_id[3].fused == pytest.approx(0.70) and by_id[3].coverage is None
    assert [f.id for f in fused] == [3, 2, 1]
    assert by_id[1].lexical == 30.0 and by_id[1].semantic == 0.60


def test_a_strong_meaning_beats_a_weak_word_match():
    """The failure of rank fusion this scheme fixes: BM25 over OR-ed terms always finds
    something, and under RRF that weak match outvotes the section that means the query."""
    lexical = [(9, 14.0), (8, 13.0)]  # matched a common word only
    semantic = {7: 0.62, 9: 0.31, 8: 0.30}
    coverage = {9: 0.2, 8: 0.2}
    assert fuse_calibrated(lexical, coverage, semantic)[0].id == 7
    assert fuse(lexical, sorted(semantic.items(), key=lambda p: -p[1]))[0].id != 7


def test_a_section_without_vectors_gets_the_mean_cosine_of_its_lexical_peers():
    fused = fuse_calibrated([(1, 9.0), (2, 8.0), (4, 7.0)], {1: 1.0, 2: 1.0, 4: 1.0},
                            {1: 0.5, 2: 0.7})
    by_id = {f.id: f for f in fused}
    assert by_id[4].fused == pytest.approx(0.6 + LEXICAL_WEIGHT)
    assert by_id[4].semantic is None  # reported as missing, not as the stand-in


def test_semantic_alone_ranks_by_cosine():
    fused = fuse_calibrated([], {}, {4: 0.2, 5: 0.9})
    assert [(f.id, f.fused) for f in fused] == [(5, 0.9), (4, 0.2)]


def test_ties_break_by_id_so_results_are_stable():
    fused = fuse_calibrated([], {}, {9: 0.5, 2: 0.5})
    assert [f.id for f in fused] == [2, 9]


def test_lexical_alone_keeps_bm25_gaps_scaled_to_the_best_hit():
    fused = fuse_lexical([(7, 20.0), (3, 19.0), (5, 5.0)])
    assert [(f.id, f.fused, f.lexical) for f in fused] == [(7, 1.0, 20.0), (3, 0.95, 19.0), (5, 0.25, 5.0)]
    assert fuse_lexical([]) == []
