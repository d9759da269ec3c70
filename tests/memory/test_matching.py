"""Pure scoring of a proposal against a ruling (vault_engine/memory/matching.py)."""

import pytest

from vault_engine.errors import ConfigError
from vault_engine.memory.matching import (
    DeadendSettings,
    Evidence,
    TermWeights,
    chosen_lead,
    closeness,
    content_terms,
    lexical_match,
    match_score,
    proposed_part,
    restated,
    rules_out_doing_without,
    says_doing_without,
    semantic_match,
    short_of,
    turned_down,
    what_it_will_do,
    wording_closeness,
    words_evidence,
)

S = DeadendSettings()


def test_content_terms_drop_stop_and_framing_words_possessives_and_link_targets():
    assert content_terms("Let's try to keep the client's sessions in a shared Redis") == \
        {"client", "session", "share", "redi"}
    assert content_terms("Call the fields `a` and `b`") == content_terms("Name the fields a/b")
    assert content_terms("Use [Maven](https://maven.apache.org/)") == {"maven"}


def test_rare_words_weigh_more_and_restated_is_a_share_of_the_other_side():
    weights = TermWeights.of([frozenset({"session", "redi"}), frozenset({"session", "sticki"}),
                           frozenset({"session", "cooki"})])
    assert weights("redi") > weights("session")
    assert restated(frozenset({"session"}), frozenset({"session", "redi"}), weights) < 0.5
    assert restated(frozenset({"session", "redi", "cluster"}), frozenset({"session", "redi"}), weights) == 1.0


def test_words_in_common_must_say_as_much_as_one_unique_word():
    weights = TermWeights.of([frozenset({"field"}), frozenset({"field", "name"}), frozenset({"maven"})])
    assert words_evidence(frozenset({"field", "owner"}), [frozenset({"field"})], weights) == (1.0, False)
    assert words_evidence(frozenset({"maven", "build"}), [frozenset({"maven"})], weights) == (1.0, True)
    share, _ = words_evidence(frozenset({"name"}), [frozenset({"field", "name"}), frozenset({"name"})], weights)
    assert share == 1.0  # the better of the text and the description's lead sentence


def test_the_words_arm_wants_nearly_every_content_word_and_enough_of_them():
    assert lexical_match(Evidence(1.0), S)
    assert lexical_match(Evidence(0.9), S)
    assert not lexical_match(Evidence(0.85), S)
    assert not lexical_match(Evidence(1.0, words_say_enough=False), S)


def test_words_defer_to_meaning_only_when_the_proposal_is_far_closer_to_a_chosen_design():
    assert not lexical_match(Evidence(1.0, cosine=0.40, cosine_accepted=0.55), S)  # the chosen design, naming the ruling's words
    assert lexical_match(Evidence(1.0, cosine=0.50, cosine_accepted=0.55), S)  # within the leeway
    assert lexical_match(Evidence(1.0, cosine=0.30, cosine_accepted=None), S)  # nothing chosen recorded
    assert lexical_match(Evidence(1.0), S)  # words only: no model, words alone decide


def test_the_meaning_arm_wants_the_ruling_closer_than_any_chosen_design():
    assert semantic_match(Evidence(0.0, cosine=0.6, cosine_accepted=0.5), S)
    assert not semantic_match(Evidence(0.0, cosine=0.6, cosine_accepted=0.56), S)  # within the margin
    assert not semantic_match(Evidence(0.0, cosine=0.6, cosine_accepted=0.7), S)  # closer to what was chosen
    assert semantic_match(Evidence(0.0, cosine=S.semantic_min), S)  # nothing chosen recorded
    assert not semantic_match(Evidence(0.0, cosine=S.semantic_min - 0.01), S)
    assert not semantic_match(Evidence(1.0, cosine=None), S)  # the arm did not run


def test_match_score_is_the_best_arm_that_fired():
    assert match_score(Evidence(1.0, cosine=0.7), S) == 1.0
    assert match_score(Evidence(0.2, cosine=0.71234567), S) == 0.7123
    assert match_score(Evidence(0.2, cosine=0.2), S) is None


def test_settings_from_config_validate_each_key():
    assert DeadendSettings.from_config({"semantic_min": 0.6}) == DeadendSettings(semantic_min=0.6)
    with pytest.raises(ConfigError, match="deadend.semantic_min must be a number within"):
        DeadendSettings.from_config({"semantic_min": 1.5})
    with pytest.raises(ConfigError, match="deadend.treshold is not a setting"):
        DeadendSettings.from_config({"treshold": 0.5})


@pytest.mark.parametrize("proposal, refused", [
    ("Use Gradle, not Maven", ", not Maven"),
    ("use picocli rather than Apache Commons CLI", "rather than Apache Commons CLI"),
    ("Escape colons in completion values instead of removing them", "instead of removing them"),
    ("Instead of another backend, improve the IPVS mode.", "Instead of another backend"),
    ("Use log/slog instead of klog for logging, now that Go ships it", "instead of klog for logging"),
    ("rather than javax.annotation.Nonnull, guard with requireNonNull", "rather than javax.annotation.Nonnull"),
    ("We build with Gradle, not Maven: add the fork to the build", ", not Maven"),
    ("Use Gradle (not Maven) for the build", "(not Maven)"),
    ("cache per node but not per query", "but not per query"),
    ("Do not use numbers in headings", "Do not use numbers in headings"),
    ("Don't keep tokens in localStorage, use a cookie", "Don't keep tokens in localStorage"),
    ("Use a cookie. Never store tokens in localStorage.", ". Never store tokens in localStorage"),
    ("Give operators day-long tokens so they never deal with refresh logic", ""),  # mid-sentence: proposed
    ("keep running and don't block termination", ""),
    ("Use cookies, never a shared Redis", ", never a shared Redis"),
    ("Use cookies -- not a shared Redis", "-- not a shared Redis"),
    ("Use cookies. Not Redis.", ". Not Redis"),
    ("We should not wait: retry synchronously", ""),
    ("Why not just add a PreferZone value", ""),
    # a quotation is mentioned, not said (madr/0002's option quotes its own title)
    ('Put the number in front, e.g., "# 2. Do not use numbers in headings".', ""),
    ("Keep the titles, e.g. “Never store tokens”, as they are", ""),
    ('Don\'t use "Redis" for sessions, use a cookie', 'Don\'t use "Redis" for sessions'),
    # the lesson written down, after a list item's or a comment's mark, on any line (qa96)
    ("# Never drop the second microphone (drop test).\nMICS = 2", "# Never drop the second microphone "),
    ("- Do not drop the second microphone", "- Do not drop the second microphone"),
    ("MICS = 2  # keep both\n// Don't drop the second mic\nx = 1", "// Don't drop the second mic"),
    ("1. Not the MCU: it lacks RAM", "1. Not the MCU"),
    ("-1 is not allowed here", ""),
    # a clause that says what it names was turned down: an agent's scene (qa129)
    ("The shields.io badge idea was rejected. Plan: a status key.", "The shields.io badge idea was rejected"),
    ("SnakeYAML only gives maps, so that's out. Going to use Jackson.", "SnakeYAML only gives maps, so that's out"),
    ("Client certificates aren't the answer because proxies strip them; use tokens",
     "Client certificates aren't the answer"),  # why is no part of what it turns down
    # ...to where the sentence goes on to something else, and a hedge is no refusal (qa132)
    ("Signed cookies were rejected by the security review, so we'll keep sessions in a shared Redis.",
     "Signed cookies were rejected by the security review"),
    ("Not sure if this was tried but let's keep sessions in a shared Redis", ""),
    ("Don't know if anyone tried this, I'll keep sessions in a shared Redis", ""),
    ("Keep not only the sessions but the carts in Redis", ""),
    # "Instead of Y X": no comma ends Y, the sentence refuses nothing, another sentence after it or not
    ("Instead of signed cookies keep sessions in a shared Redis. I'll add tests.", ""),
    ("Instead of signed cookies, keep sessions in a shared Redis. I'll add tests.", "Instead of signed cookies"),
    ("We ruled out polling last week; webhooks it is.", "We ruled out polling last week"),
    ("We dropped the second microphone. Tune the beamformer.", ""),  # "dropped" may report doing it
])
def test_what_a_proposal_turns_down(proposal, refused):
    assert turned_down(proposal) == refused


def test_what_a_proposal_proposes_keeps_its_quotations():
    text = 'Add the number, e.g., "# 2. Do not use numbers". Never renumber them.'
    assert proposed_part(text) == 'Add the number, e.g., "# 2. Do not use numbers".'
    assert proposed_part("Use Gradle, not Maven, for the build") == "Use Gradle, for the build"


@pytest.mark.parametrize("message, will_do", [
    # the scene first, then what the agent will do (qa114, qa116)
    ("Working on the stuck StatefulSet rollout bug now. My plan is to add a new update strategy type that "
     "deletes stuck pods at once.", "My plan is to add a new update strategy type that deletes stuck pods at once."),
    ("I'm fixing the slow du-based storage accounting. I'll back each emptyDir with a loop-mounted image, "
     "so the size is capped.", "I'll back each emptyDir with a loop-mounted image, so the size is capped."),
    ("Adding categories to the ADRs! Let's put a category key in the front matter of each record.",
     "Let's put a category key in the front matter of each record."),
    ("Picking up the deprecation ticket. Going to fix up the ipvs mode.", "Going to fix up the ipvs mode."),
    ("In our payments service, let's guard every argument with requireNonNull.",
     "let's guard every argument with requireNonNull."),
    # a trifle after the approach is a reading too: the check weighs each ruling by the closer one
    ("Use a ConfigMap for the trust bundle. I'll add the tests afterwards.", "I'll add the tests afterwards."),
    # said in the first sentence only, or no sentence says what it will do: the whole
    ("I'll serialize each chat as a JSON file. It is easy to inspect.", None),
    ("Keep sessions in a shared Redis", None),
    ("Keep sessions in a shared Redis. It is faster.", None),
])
def test_what_an_agent_will_do_after_saying_what_it_is_working_on(message, will_do):
    assert what_it_will_do(message) == (will_do or message)


@pytest.mark.parametrize("ruling, without", [
    ("No license", True), ("do not track status -- users ask for it", True), ("Don't do it.", True),
    ("- Never cache prices", True), ("Without a cache", True), ("None", True),
    ("Nothing-shared architecture", False), ("Notify on failure", False), ("Keep sessions in Redis", False),
])
def test_a_ruling_of_doing_without(ruling, without):
    assert rules_out_doing_without(ruling) is without


@pytest.mark.parametrize("proposal, without", [
    ("Let's not track the status at all", True), ("Skip the license for now", True), ("Drop the status field", True),
    ("Keep the status quo", True), ("We won't add links", True), ("No links between ADRs", True),
    ("Leave status tracking out", True),
    ("Track the status of each ADR in front matter", False), ("License MADR under CC0 only", False),
    ("Note the status in a notebook", False),
])
def test_a_proposal_of_doing_without(proposal, without):
    assert says_doing_without(proposal) is without


def test_closeness_is_both_ways_and_wording_counts_stop_words():
    weight = TermWeights.of([frozenset({"json"}), frozenset({"mvstore"})])
    proposal = content_terms("Use JSON format")
    assert closeness(proposal, proposal, weight) == 1.0
    assert closeness(proposal, content_terms("JSON"), weight) < closeness(proposal, content_terms("JSON format"), weight)
    assert closeness(proposal, content_terms("MVStore"), weight) == 0.0
    assert wording_closeness("Section X after Y", "Section X after Y") == 1.0
    assert wording_closeness("Section X after Y", "Section X before Y") == 0.75
    assert chosen_lead('Use JSON format, with Jackson, because it is simple.') == "Use JSON format, with Jackson, "
    assert chosen_lead("Use JSON format Good, because widely used") == "Use JSON format "


def test_short_of_names_the_chosen_design_that_kept_a_ruling_quiet():
    """"a chosen design is as close or closer" named none, so an agent could not check it (qa53)."""
    e = Evidence(0.25, True, 0.5, 0.62, chosen_text="Render invoice PDFs with WeasyPrint in the worker")
    assert short_of(e, S).endswith('but a chosen design is as close or closer (0.62: "Render invoice PDFs with '
                                   'WeasyPrint in the worker")')
    assert '0.470: "' + "x" * 79 + '…" (0.060 above raises it)' in short_of(Evidence(0.25, True, 0.5, 0.47, chosen_text="x" * 100), S)


def test_a_proposal_that_is_a_chosen_design_raises_nothing():
    assert match_score(Evidence(1.0, True, 0.9, 0.5, is_chosen=True), S) is None
    assert short_of(Evidence(1.0, True, 0.9, 0.5, is_chosen=True), S) == "the proposal is a chosen design, word for word"
    assert short_of(Evidence(1.0, True, 0.9, 0.5, is_chosen=True, chosen_text="Use SQS."), S) == \
        'the proposal is a chosen design, word for word: "Use SQS."'


def test_a_ruling_the_proposal_turns_down_is_never_raised():
    e = Evidence(1.0, True, 0.8, 0.5, turned_down=1.0)  # "Use Gradle, not Maven" and the ruling "Maven"
    assert match_score(e, S) is None
    # half of it, by weight, is enough: the meaning arm raised "A shared Redis holding the
    # sessions" for "Instead of a shared Redis, keep sessions in each pod" (qa30 F1)
    assert match_score(Evidence(1.0, True, 0.8, 0.5, turned_down=0.5), S) is None
    assert match_score(Evidence(1.0, True, 0.8, 0.5, turned_down=0.4), S) == 1.0  # less: raised


def test_a_negation_is_no_content_word():
    """madr/0010's ruling "Don't do it." was raised by every proposal with a "don't" (qa31 N1)."""
    assert content_terms("Don't do it.") == frozenset()
    assert content_terms("Don't deploy on Fridays") == content_terms("deploy on Fridays")


def test_short_of_says_which_bar_a_ruling_missed_in_the_rules_own_numbers():
    assert short_of(Evidence(0.5, True, 0.31, None), S) == (
        "its words 50% restated (90% raises it); meaning 0.31 (0.40 raises it)")
    assert short_of(Evidence(0.25, True, 0.55, 0.53), S) == (
        "its words 25% restated (90% raises it); meaning 0.550, only 0.020 above a chosen design's 0.530 "
        "(0.060 above raises it)")
    assert short_of(Evidence(0.25, True, 0.5, 0.52), S).endswith(  # not "as close" when it is farther (qa37 N2)
        "meaning 0.50, but a chosen design is as close or closer (0.52)")
    assert short_of(Evidence(0.5, True, 0.398, None), S).endswith(  # "0.40 (0.40 raises it)" looked met (qa47)
        "meaning 0.398 (0.400 raises it)")
    assert short_of(Evidence(1.0, True, 0.8, None, turned_down=0.7), S) == "the proposal turns it down"
    assert short_of(Evidence(1.0, False), S) == "its words 100% restated, but only common ones"
