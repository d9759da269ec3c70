"""Confidence and the miss rule (vault_engine/retrieval/confidence.py): pure functions."""

import pytest

from vault_engine.errors import ConfigError
from vault_engine.retrieval.confidence import (
    DEFAULT_TERM_COVERAGE,
    Evidence,
    MissRule,
    judged,
    judged_miss,
)

BOTH = ("lexical", "semantic")


def confidence(e: Evidence, offtopic: float = 0.0) -> str:
    return judged(e, offtopic)[0]


def test_two_arms_are_confident_when_their_best_hits_share_a_note():
    assert confidence(Evidence(BOTH, "a.md", "a.md", 0.3, 0.1, first_hit="a.md")) == "high"
    assert confidence(Evidence(BOTH, "a.md", "b.md", 0.9, 1.0, 1.0)) == "low"
    assert confidence(Evidence(BOTH, None, "b.md", 0.9)) == "low"  # words found nothing


def test_agreeing_arms_are_not_confident_when_meaning_is_no_closer_than_off_topic_questions():
    # kepano: "sync my vault between Mac and iPhone with iCloud" -> Readme.md, cos 0.23, "high"
    agreeing = Evidence(BOTH, "Readme.md", "Readme.md", 0.23, 0.4, 0.4, first_hit="Readme.md")
    assert confidence(agreeing, offtopic=0.30) == "low"
    assert confidence(agreeing, offtopic=0.20) == "high"


def test_a_low_confidence_says_which_evidence_was_missing():
    # "words and meaning disagree" was said when the words had found nothing at all
    assert judged(Evidence(BOTH, None, "a.md", 0.6, terms=2))[1] == \
        "only the meaning matched: no note holds the query's words"
    assert judged(Evidence(BOTH, None, "a.md", 0.6))[1] == \
        "only the meaning matched: the query has no word to search by (only stop words or punctuation)"  # "the": every note has it
    # each arm's note named: which disagreement was meant could not be told (qa131)
    assert judged(Evidence(BOTH, "a.md", "b.md", 0.6))[1] == \
        "words and meaning disagree on the best note (words: a.md, meaning: b.md)"
    assert judged(Evidence(BOTH, "notion/a 1.md", "b.md", 0.6, lexical_top_named="notion://1 (A)"))[1] == \
        "words and meaning disagree on the best note (words: notion://1 (A), meaning: b.md)"
    assert "off-topic" in judged(Evidence(BOTH, "a.md", "a.md", 0.2, first_hit="a.md"), offtopic=0.3)[1]
    # the note is named, and how to rank it first: it may be out of the hits shown (qa75)
    assert judged(Evidence(BOTH, "a.md", "a.md", 0.6, first_hit="b.md", decayed=True))[1] == (
        "the note words and meaning found first (a.md) is not the first hit (decay moved another above it; "
        "`--no-decay` ranks it as found)")
    # a Notion page by its ref and title, as the hits name it: its path matched none of them (qa78)
    page = Evidence(BOTH, "notion/a 1.md", "notion/a 1.md", 0.6, first_hit="b.md", lexical_top_named="notion://1 (A)")
    assert judged(page)[1] == "the note words and meaning found first (notion://1 (A)) is not the first hit"
    # placed lower by a section that says nothing, not by decay: decay is not blamed (qa36 N4)
    assert judged(Evidence(BOTH, "a.md", "a.md", 0.6, first_hit="b.md"))[1] == (
        "the note words and meaning found first (a.md) is not the first hit")


def test_keywords_of_which_no_note_holds_one_are_not_answered_with_confidence():
    # "HTTP 429", "kafka avro": both arms agreed on a note about HTTP or Kafka, "high" (qa28 F3)
    keywords = Evidence(BOTH, "a.md", "a.md", 0.6, 0.5, 0.5, first_hit="a.md", unheld=("429",), terms=2)
    assert judged(keywords) == ("low", "no note holds '429': the hit may be about something else")
    # a question's other words are partly context a small vault never holds ("I'm", "weekends")
    question = Evidence(BOTH, "a.md", "a.md", 0.6, 0.5, 0.5, first_hit="a.md", unheld=("weekends",), terms=9)
    assert confidence(question) == "high"
    assert confidence(Evidence(BOTH, "a.md", "a.md", 0.6, 0.5, 0.5, first_hit="a.md", terms=2)) == "high"


def test_a_question_naming_what_no_note_holds_is_low_and_says_so():
    """"sync my Obsidian Tasks with Todoist": the arms found notes on sync and Tasks; no note
    says Todoist, which is what the question is about."""
    agreeing = Evidence(BOTH, "a.md", "a.md", 0.6, 0.5, 0.5, first_hit="a.md", unheld=("Todoist", "ticking"),
                        unheld_names=("Todoist",), terms=9)
    assert judged(agreeing) == ("low", "no note holds 'Todoist': the hit may be about something else")
    disagreeing = Evidence(BOTH, "a.md", "b.md", 0.6, unheld=("Todoist", "ticking"), unheld_names=("Todoist",),
                           terms=9)
    assert judged(disagreeing) == ("low", "words and meaning disagree on the best note (words: a.md, meaning: b.md); "
                                          "no note holds 'Todoist'")
    # the words found nothing at all: said once
    assert judged(Evidence(BOTH, None, "a.md", 0.6, unheld=("Zqx",), unheld_names=("Zqx",), terms=1))[1] == \
        "only the meaning matched: no note holds the query's words"


def test_a_miss_says_the_words_found_nothing_when_they_did_not():
    # "zzqx" was a miss because "words and meaning disagree", though no note held a word of it (qa28 M3)
    assert judged_miss(True, Evidence(BOTH, None, "a.md", 0.1, terms=1))[1] == (
        "no note holds the query's words, and none comes closer in meaning than off-topic questions do")
    assert judged_miss(True, Evidence(BOTH, None, "a.md", 0.1))[1] == (  # "how do I"
        "the query has no word to search by (only stop words or punctuation), and none comes closer in meaning than off-topic "
        "questions do")
    assert judged_miss(True, Evidence(BOTH, "b.md", "a.md", 0.1))[1].startswith("words and meaning disagree")
    # --semantic: the words were never searched, so no "no note holds the query's words" (qa42)
    assert judged_miss(True, Evidence(("semantic",), None, "a.md", 0.1, terms=2))[1].startswith(
        "the words were not searched (meaning only)")
    assert judged_miss(True, Evidence(("semantic",), None, "a.md", 0.1))[1].startswith(  # `--semantic "?"` (qa128)
        "the query has no word to search by (only stop words or punctuation)")
    assert judged_miss(False) == ("low", "no section matched the query")


def test_agreeing_arms_say_nothing_for_a_first_hit_decay_put_before_their_note():
    """"words and meaning found the same note first" above a newer note neither arm put first."""
    assert confidence(Evidence(BOTH, "old.md", "old.md", 0.5, 1.0, 0.2, first_hit="new.md")) == "low"


def test_one_arm_is_confident_when_its_first_hit_holds_every_query_word():
    assert confidence(Evidence(("lexical",), "a.md", top_coverage=1.0, terms=2)) == "high"
    assert confidence(Evidence(("lexical",), "a.md", top_coverage=0.8, terms=2)) == "low"
    assert confidence(Evidence(("semantic",), None, "a.md", 0.7, top_coverage=1.0, terms=2)) == "high"


def test_a_miss_needs_disagreement_few_words_and_no_closer_than_off_topic():
    rule = MissRule(cosine_floor=0.3, term_coverage=0.34)
    weak = Evidence(BOTH, "a.md", "b.md", 0.25, 0.2)
    assert rule.is_miss(weak)
    assert not rule.is_miss(Evidence(BOTH, "a.md", "a.md", 0.25, 0.2))  # the arms agree
    assert not rule.is_miss(Evidence(BOTH, "a.md", "b.md", 0.25, 0.5))  # enough of the words
    assert not rule.is_miss(Evidence(BOTH, "a.md", "b.md", 0.31, 0.2))  # closer than off-topic
    assert rule.is_miss(Evidence(BOTH, None, "b.md", None, 0.0))  # no candidate had vectors
    assert not rule.is_miss(Evidence(("lexical",), "a.md", None, None, 0.0))  # words only: never


def test_the_floor_is_the_measured_off_topic_level_unless_configured():
    assert MissRule.from_config({}) == MissRule(0.0, DEFAULT_TERM_COVERAGE, 0.0)
    assert MissRule.from_config({}, typical=0.2, ceiling=0.31) == MissRule(0.2, DEFAULT_TERM_COVERAGE, 0.31)
    assert MissRule.from_config({"miss_cosine_floor": 0.25}, typical=0.2, ceiling=0.31) == \
        MissRule(0.25, DEFAULT_TERM_COVERAGE, 0.25)  # one floor, as configured


def test_words_that_no_note_holds_leave_meaning_the_best_off_topic_level_to_beat():
    """"zxqv blorp fnord" came closer than the typical off-topic question and was a hit once
    the miss read that level (qa43); words that found something leave it the typical one
    (qa42's right answers at 0.39, under a personal vault's best level of 0.44)."""
    rule = MissRule(cosine_floor=0.2, wordless_floor=0.44)
    assert rule.is_miss(Evidence(BOTH, None, "b.md", 0.39))  # no note holds a word of it
    assert not rule.is_miss(Evidence(BOTH, "a.md", "b.md", 0.39, 0.26))  # the words found a.md
    assert rule.is_miss(Evidence(BOTH, "a.md", "b.md", 0.19, 0.26))
    assert not rule.is_miss(Evidence(("semantic",), None, "b.md", 0.39))  # words never searched
    assert judged_miss(True, Evidence(BOTH, None, "b.md", 0.39, terms=3))[1] == (
        "no note holds the query's words, and none comes closer in meaning than off-topic questions do")
    assert MissRule.from_config({"miss_term_coverage": 1}).term_coverage == 1.0
    with pytest.raises(ConfigError, match="search.miss_cosine_floor must be a number within"):
        MissRule.from_config({"miss_cosine_floor": 1.5})
    with pytest.raises(ConfigError, match="search.miss_term_coverage"):
        MissRule.from_config({"miss_term_coverage": "high"})


def test_a_filtered_search_that_found_no_words_says_the_filters_left_them_out():
    """--exclude-tests left the words in tests only: "no note holds the query's words" was false (qa37 N6)."""
    filtered = Evidence(BOTH, None, "a.md", 0.1, terms=2, filtered=True)
    assert judged_miss(True, filtered)[1].startswith("no section the filters leave holds the query's words")
    assert judged_miss(False, filtered)[1] == "no section the filters leave matched the query"
    assert judged_miss(True, Evidence(BOTH, None, "a.md", 0.1, terms=2))[1].startswith("no note holds the query's words")


def test_a_query_without_a_word_is_said_so_in_every_mode():
    """`--semantic "how do I"` was "the first hit does not hold every word of the query", and
    "?!" a query of "only stop words" (qa127)."""
    assert judged(Evidence(("semantic",), None, "a.md", 0.3, first_hit="a.md")) == (
        "low", "the query has no word to search by (only stop words or punctuation): meaning alone answered")
    assert judged(Evidence(("semantic",), None, "a.md", 0.3, terms=2, first_hit="a.md"))[1] == \
        "the first hit does not hold every word of the query"
