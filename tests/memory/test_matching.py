"""Pure scoring of a proposal against a ruling (vault_engine/memory/matching.py)."""

import pytest

from vault_engine.errors import ConfigError
from vault_engine.memory.matching import (
    NOTHING_SHARED, PROPOSAL_WITHIN, RULING_WITHIN, SUBSTITUTION, DeadendSettings, Evidence,
    TermWeights, containment, content_words, leftovers, lexical_match, match_score, relation,
    semantic_match,
)

S = DeadendSettings()


def test_content_words_drop_stop_and_framing_words_and_possessives():
    words = content_words("Let's try to keep the client's sessions in a shared Redis")
    assert [w for w, _ in words.pairs] == ["client", "sessions", "shared", "Redis"]
    assert words.terms == {"client", "session", "share", "redi"}


def test_relation_names_how_two_texts_share_words():
    redis = content_words("Keep sessions in a shared Redis")
    assert relation(content_words("keep sessions in signed cookies"), redis) == SUBSTITUTION
    assert relation(content_words("sessions in Redis"), redis) == PROPOSAL_WITHIN
    assert relation(content_words("sessions in a shared Redis cluster"), redis) == RULING_WITHIN
    assert relation(content_words("hold login state centrally"), redis) == NOTHING_SHARED


def test_leftovers_are_the_words_that_differ():
    assert leftovers(content_words("keep sessions in signed cookies"),
                     content_words("Keep sessions in a shared Redis")) == ("signed cookies", "shared Redis")


def test_rare_words_weigh_more():
    weights = TermWeights([frozenset({"session", "redi"}), frozenset({"session", "sticki"}),
                           frozenset({"session", "cooki"})])
    assert weights("redi") > weights("session")
    covers_ruling, covers_proposal = containment(frozenset({"session"}), frozenset({"session", "redi"}), weights)
    assert covers_ruling < 0.5 and covers_proposal == 1.0


def test_lexical_match_wants_containment_both_ways_mostly():
    assert lexical_match(Evidence(1.0, 0.8), S)  # the proposal restates the ruling and adds a little
    assert not lexical_match(Evidence(1.0, 0.4), S)  # ...not when it is mostly about something else
    assert not lexical_match(Evidence(0.82, 0.77), S)  # one word swapped: CSV -> Parquet


def test_a_substitution_counts_only_when_the_differing_words_agree():
    base = Evidence(0.5, 0.5, cosine=0.8, relation=SUBSTITUTION)
    assert not semantic_match(Evidence(0.5, 0.5, cosine=0.8, relation=SUBSTITUTION, residual_cosine=0.12), S)
    assert semantic_match(Evidence(0.5, 0.5, cosine=0.8, relation=SUBSTITUTION, residual_cosine=0.4), S)
    assert not semantic_match(base, S)  # a substitution nobody compared is not a match


def test_an_accepted_design_vetoes_a_semantic_match():
    vetoed = Evidence(0.5, 0.5, cosine=0.9, relation=SUBSTITUTION, residual_cosine=0.9,
                      accepted="Decision: keep sessions in signed cookies.")
    assert not semantic_match(vetoed, S)
    assert match_score(vetoed, S) is None


def test_a_proposal_within_a_ruling_must_cover_most_of_it():
    assert not semantic_match(Evidence(0.57, 1.0, cosine=0.6, relation=PROPOSAL_WITHIN), S)
    assert semantic_match(Evidence(0.8, 1.0, cosine=0.6, relation=PROPOSAL_WITHIN), S)


def test_paraphrase_in_other_words_needs_only_the_cosine():
    assert semantic_match(Evidence(0.0, 0.0, cosine=S.semantic_min), S)
    assert not semantic_match(Evidence(0.0, 0.0, cosine=S.semantic_min - 0.01), S)
    assert not semantic_match(Evidence(0.0, 0.0, cosine=None), S)


def test_match_score_is_the_best_arm_that_fired():
    assert match_score(Evidence(1.0, 0.9, cosine=0.7, relation=RULING_WITHIN), S) == 1.0
    assert match_score(Evidence(0.2, 0.1, cosine=0.71234567), S) == 0.7123
    assert match_score(Evidence(0.2, 0.1, cosine=0.2), S) is None


def test_settings_from_config_validate_each_key():
    assert DeadendSettings.from_config({"semantic_min": 0.6, "candidates": 5}) == \
        DeadendSettings(semantic_min=0.6, candidates=5)
    with pytest.raises(ConfigError, match="deadend.semantic_min must be a number within"):
        DeadendSettings.from_config({"semantic_min": 1.5})
    with pytest.raises(ConfigError, match="deadend.candidates must be a whole number"):
        DeadendSettings.from_config({"candidates": 0})
    with pytest.raises(ConfigError, match="deadend.treshold is not a setting"):
        DeadendSettings.from_config({"treshold": 0.5})
