"""Listing and checking dead ends through a real ledger and Whoosh index
(vault_engine/memory/deadends.py); the model-backed hard case is in test_deadends_model.py."""

import datetime as dt

import pytest

from tests.conftest import FROZEN_NOW
from vault_engine.errors import BadArgument, UnknownProject
from vault_engine.memory.deadends import ChosenDesigns, check_proposal, load_rulings
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.vault import Vault

BILLING = """---
type: checkpoint
project: billing
agent: codex-a12
created: 2026-10-29T15:45:00Z
---
# Checkpoint: where sessions live
## Summary
Decision: keep sessions in signed cookies (HMAC, key id inside the cookie).
## Failed
- Keep sessions in a shared Redis
  - Reason: the failover logged out every user at once
- Sticky sessions on the load balancer -- deploys replace the pods
"""
DRONE = """---
type: checkpoint
project: drone
agent: claude-7f3
created: 2026-11-14T10:22:00Z
---
# Checkpoint: mics
## Failed
- Drop the second microphone to save board space -- the drop test failed at 1.2 m
"""
DRONE_NOTES = """---
agent: gemini-5d2
created: 2026-04-02T00:00:00Z
---
# Firmware
DEADEND: Beamforming on the MCU -- not enough RAM for two buffers
"""
CREATED_BILLING = int(dt.datetime(2026, 10, 29, 15, 45, tzinfo=dt.UTC).timestamp())
FILES = {
    "projects/billing/checkpoints/20261029T154500Z-codex-a12.md": BILLING,
    "projects/drone/checkpoints/20261114T102200Z-claude-7f3.md": DRONE,
    "projects/drone/working/gemini-5d2-firmware.md": DRONE_NOTES,
}


@pytest.fixture
def vault(make_vault):
    embedder = FakeEmbedder()
    with Vault(make_vault(FILES), embedder=embedder) as v:
        v.index(embed=False, now=FROZEN_NOW)
        yield v


def test_every_dead_end_is_in_the_ledger_with_its_note(vault):
    rulings = {r.text: r for r in load_rulings(vault.ledger)}
    assert set(rulings) == {"Keep sessions in a shared Redis", "Sticky sessions on the load balancer",
                            "Drop the second microphone to save board space", "Beamforming on the MCU"}
    redis = rulings["Keep sessions in a shared Redis"]
    assert (redis.project, redis.agent, redis.source, redis.slug) == ("billing", "codex-a12", "checkpoint",
                                                                      "keep-sessions-in-a-shared-redis")
    assert redis.ref == "projects/billing/checkpoints/20261029T154500Z-codex-a12.md#Failed"
    assert rulings["Beamforming on the MCU"].source == "working note"


def test_list_is_newest_first_and_filters_by_project(vault):
    assert [r.text for r in vault.deadend_list()][:2] == [
        "Drop the second microphone to save board space", "Keep sessions in a shared Redis"]
    assert {r.project for r in vault.deadend_list("drone")} == {"drone"}
    with pytest.raises(UnknownProject, match="known projects: billing, drone"):
        vault.deadend_list("biling")


def test_a_ruling_of_no_project_holds_for_every_project(make_vault):
    # a team-wide decision record was "weaker evidence: ruled out on no project", and no
    # project's list or brief showed it
    record = ("---\ntype: decision\ndate: 2026-11-27\n---\n# Language for new services\n"
              "## Considered Options\n* Go\n* Rust\n## Decision Outcome\nChosen option: \"Go\", because we know it.\n")
    with Vault(make_vault({**FILES, "decisions/0003-language.md": record})) as v:
        v.index(embed=False, now=FROZEN_NOW)
        check = v.deadend_check("write the merge server in Rust", project="drone", lexical_only=True)
        assert [(r.text, r.elsewhere) for r in check.rulings] == [("Rust", False)]
        assert "Weaker evidence" not in check.rendered
        assert "Rust" in [r.text for r in v.deadend_list("drone")]
        brief = v.resume("drone", now=FROZEN_NOW)  # bearing on none of its next steps: counted
        assert "Rust" not in [r.text for r in brief.earlier] and brief.team_wide_unshown == 1


@pytest.mark.parametrize("goal,failed,proposal,chosen", [
    # "Chosen instead: ... capped at `col_max` (30);" stopped where the decision was (qa24 #9)
    ("Width follows the terminal, capped at 30; help wraps below the option.\nAnother sentence.",
     "Truncate the help with an ellipsis -- hides text", "truncate the help with an ellipsis",
     "Width follows the terminal, capped at 30; help wraps below the option."),
    # "Chosen instead: ... ([source](https://stackoverflow.com/a/1984458/873282))" (qa59)
    ("Render the filters with [Apache Velocity](https://velocity.apache.org) templates.",
     "Render the filters with FreeMarker templates -- a second template language",
     "render the filters with FreeMarker templates", "Render the filters with Apache Velocity templates."),
], ids=["a-semicolon", "a-link"])
def test_chosen_instead_is_the_goals_first_sentence_as_read(make_vault, goal, failed, proposal, chosen):
    note = ("---\ntype: checkpoint\nproject: p\ncreated: 2026-11-20T10:00:00Z\n---\n# C\n"
            f"## Goal\n{goal}\n## Failed\n- {failed}\n")
    with Vault(make_vault({"projects/p/checkpoints/20261120T100000Z-a.md": note})) as v:
        v.index(embed=False, now=FROZEN_NOW)
        (ruling,) = v.deadend_check(proposal, lexical_only=True).rulings
        assert ruling.chosen == chosen


def test_a_near_verbatim_proposal_is_a_lexical_hit_with_the_contract_fields(vault):
    check = vault.deadend_check("let's keep the sessions in a shared Redis", lexical_only=True)
    assert (check.status, check.arms) == ("hit", ("lexical",))
    data = check.to_json()
    ruling = data["rulings"][0]
    assert set(ruling) >= {"text", "reason", "project", "agent", "when", "slug", "source", "score",
                           "elsewhere", "ref"}
    assert (ruling["text"], ruling["agent"], ruling["when"], ruling["elsewhere"]) == (
        "Keep sessions in a shared Redis", "codex-a12", CREATED_BILLING, False)
    assert ruling["score"] == 1.0 and ruling["arms"] == ["lexical"]


def test_a_miss_names_its_closest_rulings_and_why_each_fell_short(vault):
    """"Nothing close" and "just below the bar" looked the same (qa35 A5)."""
    check = vault.deadend_check("move the sessions into a shared cache", lexical_only=True)
    assert check.status == "miss" and check.rulings == ()
    [near] = [r for r in check.closest if r.text == "Keep sessions in a shared Redis"]
    assert near.short_of.startswith("its words ") and "restated (90% raises it)" in near.short_of
    data = check.to_json()
    assert data["closest"][0]["short_of"] and data["closest"][0]["scores"]["lexical"] > 0
    refused = vault.deadend_check("keep sessions in each pod's memory, not in a shared Redis", lexical_only=True)
    assert [r.short_of for r in refused.closest if r.text == "Keep sessions in a shared Redis"] == [
        "the proposal turns it down"]
    hit = vault.deadend_check("let's keep the sessions in a shared Redis", lexical_only=True)
    assert hit.closest == () and "closest" in hit.to_json()
    assert vault.deadend_check("bake sourdough bread", lexical_only=True).closest == ()  # no word in common
    # another project's ruling says so, as when it is raised (qa37 N3)
    elsewhere = vault.deadend_check("move the sessions into a shared cache", project="drone", lexical_only=True)
    assert [r.elsewhere for r in elsewhere.closest if r.text == "Keep sessions in a shared Redis"] == [True]


def test_a_proposal_that_turns_the_ruling_down_does_not_raise_it(vault):
    # "Use Gradle, not Maven" raised Maven, and the prompt hook interrupted the person (qa24 #2)
    turned_down = vault.deadend_check("keep sessions in each pod's memory, not in a shared Redis", lexical_only=True)
    assert turned_down.status == "miss"
    proposed = vault.deadend_check("keep sessions in a shared Redis rather than in each pod", lexical_only=True)
    assert [r.text for r in proposed.rulings][:1] == ["Keep sessions in a shared Redis"]
    for refusing in ("keep sessions in each pod (not in a shared Redis)", "keep sessions in each pod and not in a shared Redis"):
        assert vault.deadend_check(refusing, lexical_only=True).status == "miss"
    # no comma to end what "Instead of" turns down: nothing else is proposed, so it is no refusal
    # (read as all refused, a restatement was missed without a word: qa26 N1)
    unended = vault.deadend_check("instead of signed cookies keep sessions in a shared Redis", lexical_only=True)
    assert [r.text for r in unended.rulings][:1] == ["Keep sessions in a shared Redis"]
    # a sentence that opens with "Don't" or "Never" states the lesson, as ", not" does
    for lesson in ("Don't keep sessions in a shared Redis, keep them in each pod",
                   "Never keep sessions in a shared Redis; each pod keeps its own"):
        assert vault.deadend_check(lesson, lexical_only=True).status == "miss"
    # a proposal that opens by refusing refuses all it names, nothing proposed besides (qa31 N2)
    for alone in ("Don't keep sessions in a shared Redis", "Never keep sessions in a shared Redis"):
        assert vault.deadend_check(alone, lexical_only=True).status == "miss", alone
    # ...and raises nothing at all, not even a ruling it shares a word with: it proposes nothing
    # (the meaning arm raised "Storing idempotency keys in Redis" for a Redlock lesson, qa51)
    rulings = load_rulings(vault.ledger)
    lesson = check_proposal("Don't use Redis for sessions or anything else", rulings, semantic=FixedArm(0.9), accepted=outright())
    assert lesson.status == "miss" and lesson.closest[0].short_of == "the proposal turns it down"
    assert check_proposal("Use Redis for sessions", rulings, semantic=FixedArm(0.9), accepted=outright()).status == "hit"
    for refusing in ("Keep sessions in each pod, never in a shared Redis", "Keep them in each pod -- not in a shared Redis",
                     "Keep sessions in each pod. Not in a shared Redis."):
        assert vault.deadend_check(refusing, lexical_only=True).status == "miss", refusing


def test_rulings_of_other_projects_are_flagged_elsewhere(vault):
    check = vault.deadend_check("keep sessions in a shared Redis", project="drone", lexical_only=True)
    assert check.rulings[0].elsewhere is True
    assert "not on drone" in check.rendered
    same = vault.deadend_check("keep sessions in a shared Redis", project="billing", lexical_only=True)
    assert same.rulings[0].elsewhere is False


def test_an_unknown_project_still_checks_and_says_so(vault):
    check = vault.deadend_check("keep sessions in a shared Redis", project="brand-new", lexical_only=True)
    assert check.rulings[0].elsewhere is True
    assert any("brand-new" in n for n in check.notices)


def test_a_miss_is_a_miss(vault):
    check = vault.deadend_check("add a dark mode toggle to the settings page", lexical_only=True)
    assert (check.status, check.rulings) == ("miss", ())
    assert check.to_json()["status"] == "miss"
    assert "miss, not a guess" in check.rendered


def test_working_note_rulings_are_marked_weaker(vault):
    check = vault.deadend_check("beamforming on the MCU", lexical_only=True)
    assert check.rulings[0].source == "working note"
    assert "working note, possibly a first impression" in check.rendered


def test_a_check_without_the_query_models_export_says_it_loads_the_model_and_still_weighs_meaning(vault,
                                                                                               monkeypatch):
    """An index built with --no-embed: each check loaded the whole model, 22-33 s, without a
    word (qa196); it needs no section's vector, so meaning is still weighed."""
    monkeypatch.setattr(vault.embedder(), "has_query_model", lambda: False)
    check = vault.deadend_check("remove a microphone from the board")
    assert check.arms == ("lexical", "semantic")
    assert check.notices[0] == ("the index holds no export of the query model (built with --no-embed?): each check "
                                "loads the model itself, several seconds; `vault-engine index` makes them fast")
    monkeypatch.undo()
    assert not any("export" in n for n in vault.deadend_check("remove a microphone from the board").notices)


def test_ruling_vectors_are_cached_so_a_check_embeds_only_the_proposal(vault):
    vault.deadend_check("drop the second microphone")
    first = list(vault.embedder().texts)
    assert "Keep sessions in a shared Redis" in first
    vault.embedder().texts.clear()
    check = vault.deadend_check("remove a microphone from the board")
    assert check.arms == ("lexical", "semantic")
    assert "Keep sessions in a shared Redis" not in vault.embedder().texts
    assert "remove a microphone from the board" in vault.embedder().queries


def test_index_with_the_model_embeds_the_rulings_ahead_of_the_first_check(make_vault):
    with Vault(make_vault(FILES), embedder=FakeEmbedder()) as v:
        v.index(now=FROZEN_NOW)
        assert "Keep sessions in a shared Redis" in v.embedder().texts
        v.embedder().texts.clear()
        v.deadend_check("remove a microphone from the board")
        assert "Keep sessions in a shared Redis" not in v.embedder().texts


def test_without_a_model_the_lexical_arm_answers_and_says_so(make_vault):
    root = make_vault(FILES, config="[model]\nenabled = false\n")
    with Vault(root) as v:
        v.index(now=FROZEN_NOW)
        check = v.deadend_check("keep sessions in a shared Redis")
    assert check.arms == ("lexical",) and check.status == "hit"
    assert any("only the lexical arm ran" in n for n in check.notices)


def outright(*statements: str) -> ChosenDesigns:
    """Designs given outright, of no note, project, plan or date: each stands against every
    ruling, as a team-wide record's undated choice does."""
    return ChosenDesigns(lambda: list(statements), lambda ids: {}, dict, lambda project: (), lambda rulings: rulings,
                         lambda project: [(s, None) for s in statements])


class FixedArm:
    """A semantic arm that finds every ruling at ``ruling`` and every chosen design at
    ``chosen``: the rule alone decides."""

    def __init__(self, ruling=0.95, chosen=0.5, accepted=("keep sessions in signed cookies",)):
        self.ruling, self.chosen, self.accepted = ruling, chosen, set(accepted)

    def cosines(self, proposal, texts):
        return [self.chosen if t in self.accepted else self.ruling for t in texts]


def test_the_chosen_design_is_read_from_the_note_and_shown_when_stated_outright(vault, make_vault):
    assert "Decision: keep sessions in signed cookies (HMAC, key id inside the cookie)." in \
        vault.ledger.accepted_texts()
    summary_only = vault.deadend_check("keep sessions in a shared Redis", lexical_only=True)
    assert summary_only.rulings[0].chosen is None  # a Summary is weighed, not quoted
    goal = BILLING.replace("## Summary", "## Goal")
    with Vault(make_vault({"projects/billing/checkpoints/20261029T154500Z-codex-a12.md": goal})) as v:
        v.index(embed=False)
        check = v.deadend_check("keep sessions in a shared Redis", lexical_only=True)
    assert check.rulings[0].chosen.startswith("Decision: keep sessions in signed cookies")
    assert "Chosen instead: Decision: keep sessions in signed cookies" in check.rendered


def test_chosen_instead_is_the_decisions_sentence_that_clearly_speaks_of_the_ruling(make_vault):
    """A Decision of several sentences had shown its first, about another matter, beside each
    of its Failed items ("terraform/data moves to a separate private repository" beside a
    ruling on AMI lookups, qa118): another sentence is shown where it shares two more of the
    ruling's words, an identifier counting by its parts; one word more is no reason to leave
    the first ("Keep a Puppetmaster" had given way to a sentence on Puppet certificates, qa119)."""
    note = ("---\ntype: checkpoint\nproject: ops\nagent: codex-a12\ncreated: 2026-10-29T15:45:00Z\n---\n"
            "# Checkpoint: ops\n## Decision\nKeep a Puppetmaster. Keep sessions in signed cookies with a key id. "
            "Rotate the cookie_key monthly. Back up the Puppet certificates.\n## Failed\n"
            "- Masterless Puppet -- diverges from the architecture\n"
            "- Store sessions in plain cookies -- users tampered with them\n"
            "- Reuse one cookie key forever -- it leaked; rotate nothing\n")
    with Vault(make_vault({"projects/ops/checkpoints/20261029T154500Z-codex-a12.md": note})) as v:
        v.index(embed=False)
        chosen = {r.text: r.chosen for r in v.deadend_list()}
    assert chosen == {"Masterless Puppet": "Keep a Puppetmaster.",
                      "Store sessions in plain cookies": "Keep sessions in signed cookies with a key id.",
                      "Reuse one cookie key forever": "Rotate the cookie_key monthly."}


def test_chosen_instead_of_a_one_word_ruling_is_the_sentence_holding_it_and_a_records_its_chosen_option(make_vault):
    """"CC0 only" could never share two more words than the first sentence, and showed it; a
    MADR record's reasons listed under its `Chosen option` line had been shown in its place (qa169)."""
    note = ("---\ntype: checkpoint\nproject: adr\nagent: codex\ncreated: 2026-11-25T14:00:00Z\n---\n"
            "# Checkpoint: adr\n## Decision\nKeep status and date in YAML front matter. License the template as "
            "`MIT OR CC0-1.0`.\n## Failed\n- CC0 only -- no attribution\n")
    record = ("# Reload libraries\n\n## Considered Options\n\n* mtime polling\n* Move the file monitor into the "
              "server library\n\n## Decision Outcome\n\nChosen option: \"mtime polling\", because it is simple:\n\n"
              "* the server is pull-based\n* the file monitor in the server library would duplicate the watcher thread\n")
    with Vault(make_vault({"projects/adr/checkpoints/20261125T140000Z-codex.md": note,
                           "decisions/0061-reload.md": record})) as v:
        v.index(embed=False)
        chosen = {r.text: r.chosen for r in v.deadend_list()}
    assert chosen["CC0 only"] == "License the template as `MIT OR CC0-1.0`."
    assert chosen["Move the file monitor into the server library"].startswith("mtime polling, because")


def test_a_proposal_closer_to_a_chosen_design_than_to_the_ruling_is_quiet(vault):
    rulings = [r for r in load_rulings(vault.ledger) if r.text == "Keep sessions in a shared Redis"]
    accepted = outright("keep sessions in signed cookies")
    proposal = "store login state in signed cookies"
    assert check_proposal(proposal, rulings, semantic=FixedArm(0.9, 0.5), accepted=accepted).status == "hit"
    quiet = check_proposal(proposal, rulings, semantic=FixedArm(0.9, 0.88), accepted=accepted)
    assert quiet.status == "miss"
    assert quiet.closest[0].to_json()["chosen_closest"] == "keep sessions in signed cookies"  # which one (qa53)
    assert check_proposal(proposal, rulings, semantic=FixedArm(0.9, 0.88), accepted=outright()).status == "hit"  # nothing chosen


class SharedWordsArm:
    """A meaning arm that reads the share of a text's words the proposal holds: what the
    proposal says about a design, refused or not, brings it closer."""

    def cosines(self, proposal, texts):
        said = set(proposal.casefold().replace(",", " ").split())
        return [len(said & set(t.casefold().split())) / len(t.split()) for t in texts]


def test_the_meaning_arm_reads_what_the_proposal_proposes_not_what_it_turns_down(vault):
    """"Rather than writing a whole new backend, I'm going to fix up the ipvs mode" named the
    chosen design in what it turned down, which drew its meaning to that design: the ruling it
    restated word for word stayed quiet, "a chosen design is closer in meaning" (qa114)."""
    rulings = [r for r in load_rulings(vault.ledger) if r.text == "Keep sessions in a shared Redis"]
    accepted = outright("keep sessions in signed cookies")
    proposal = "rather than keep sessions in signed cookies, we keep sessions in a shared redis"
    check = check_proposal(proposal, rulings, semantic=SharedWordsArm(), accepted=accepted)
    assert check.status == "hit" and check.rulings[0].arms == ("lexical", "semantic")
    assert check.rulings[0].evidence.cosine_accepted == pytest.approx(3 / 5)  # "keep sessions in", not "signed cookies"


def test_the_meaning_arm_reads_what_the_agent_will_do_not_the_scene_it_sets(vault):
    """"Working on the stuck StatefulSet rollout bug now. My plan is to ..." The scene, set
    first, sits as near the design chosen for the same problem: restatements stayed quiet in
    the margin (qa114, qa116)."""
    rulings = [r for r in load_rulings(vault.ledger) if r.text == "Keep sessions in a shared Redis"]
    accepted = outright("keep sessions in signed cookies")
    proposal = "Signed cookies break checkout. I'll keep sessions in a shared Redis, one for every region."
    check = check_proposal(proposal, rulings, semantic=SharedWordsArm(), accepted=accepted)
    assert check.status == "hit" and check.rulings[0].arms == ("lexical", "semantic")
    assert check.rulings[0].evidence.cosine_accepted == pytest.approx(3 / 5)  # "keep sessions in": the scene unread
    # the approach first and a trifle after it: the ruling is weighed by the reading nearer to it
    # ("I'll add the unit tests ... afterwards" alone had been read, and raised another ruling: qa117)
    trifle = "Keep sessions in a shared Redis. I'll add the unit tests, the docs and the dashboards after that."
    check = check_proposal(trifle, rulings, semantic=SharedWordsArm(), accepted=accepted)
    assert check.status == "hit" and check.rulings[0].arms == ("lexical", "semantic")


def test_a_ruling_of_doing_without_is_restated_only_by_doing_without(make_vault):
    """MADR's "No license", "Do not add status": the option ruled out is doing without. "We need
    to track the status of each ADR" restated "do not track status" word for word, the negation
    being no word, and was told it had been tried (qa117)."""
    note = ("---\ntype: checkpoint\nproject: madr\nagent: claude-e19\ncreated: 2018-07-02T10:00:00Z\n---\n"
            "# Checkpoint: status\n## Goal\nA status field in the YAML front matter.\n## Next\n- write it up\n"
            "## Failed\n- do not track status -- users ask for it\n")
    with Vault(make_vault({"projects/madr/checkpoints/20180702T100000Z-claude-e19.md": note})) as v:
        v.index(embed=False)
        opposite = v.deadend_check("We need to track the status of each decision", lexical_only=True)
        assert opposite.status == "miss"
        assert opposite.closest[0].short_of == "it rules out doing without; the proposal does not say to do without"
        assert v.deadend_check("Let's not track the status of decisions", lexical_only=True).status == "hit"
        # refusing is how a ruling of doing without is restated, not turning it down (qa119)
        for restated in ("Do not track status", "Never track the status", "Leave status tracking out"):
            assert v.deadend_check(restated, lexical_only=True).status == "hit", restated


class ByTextArm:
    """A meaning arm that finds a text at the cosine of the first of its words it holds (0.45
    without any)."""

    def __init__(self, cosines):
        self.by_word = cosines

    def cosines(self, proposal, texts):
        return [next((c for word, c in self.by_word.items() if word in t), 0.45) for t in texts]


def test_a_word_for_word_match_set_aside_is_the_first_of_a_miss_closest(vault):
    """A ruling restated word for word and set aside by meaning had not been among a miss's
    three closest, ordered by meaning: "a miss, not a guess" said nothing of it (qa114, qa117)."""
    rulings = load_rulings(vault.ledger)
    accepted = outright("keep sessions in signed cookies")
    arm = ByTextArm({"cookies": 0.9, "Redis": 0.40, "failover": 0.40})  # the ruling and its reason
    check = check_proposal("keep sessions in a shared Redis cluster", rulings, semantic=arm, accepted=accepted)
    assert check.status == "miss" and len(check.closest) == 3
    assert check.closest[0].text == "Keep sessions in a shared Redis"  # meaning 0.40, the others 0.45
    assert check.closest[0].short_of.startswith("its words 100% restated, but a chosen design is closer in meaning")
    # then the checking project's own, as raised ones are: billing's, nearer in meaning, after drone's
    arm.by_word["Sticky"] = 0.5
    drone = check_proposal("keep sessions in a shared Redis cluster", rulings, semantic=arm, accepted=accepted,
                           project="drone")
    assert [r.elsewhere for r in drone.closest] == [True, False, False]  # the words-met one, then drone's


def test_a_near_verbatim_restatement_with_another_framing_verb_is_caught_by_words_alone(make_vault):
    files = {"projects/api/checkpoints/20260101T000000Z-claude-1.md": (
        "---\ntype: checkpoint\n---\n# C\n## Goal\nName them `ingest` and `egress` after the pipeline stage.\n"
        "## Failed\n- Name the queue types `hot`/`cold` -- readers took hot for urgent\n")}
    with Vault(make_vault(files)) as v:
        v.index(embed=False)
        check = v.deadend_check("Call the queue types `hot` and `cold`, since that is literally what they are",
                                lexical_only=True)
    assert check.status == "hit" and check.rulings[0].arms == ("lexical",)


def test_restating_why_a_checkpoint_item_failed_restates_no_ruling(make_vault):
    """A Failed item's reason says why it failed, not what was tried: "Crowdin" alone had raised
    "Keep untranslated keys with an empty value -- Crowdin does not support that" at 100%
    (qa125), where a decision record's description does say what its option was."""
    files = {"projects/l10n/checkpoints/20260101T000000Z-claude-1.md": (
        "---\ntype: checkpoint\n---\n# C\n## Goal\nLanguage files hold only translated strings.\n"
        "## Failed\n- Keep untranslated keys with an empty value -- Crowdin does not support that\n"),
        "decisions/0001-fetchers.md": (
            "# Fetcher URLs\n## Proposal\nLog every URL.\n## Alternatives\n### Per-fetcher URLs\n"
            "Build the query URL inside each fetcher's search method. Nobody could log it.\n")}
    with Vault(make_vault(files)) as v:
        v.index(embed=False)
        reason = v.deadend_check("Crowdin shows translators what is left", lexical_only=True)
        described = v.deadend_check("Build the query URL inside each fetcher's search method", lexical_only=True)
    assert reason.status == "miss"
    assert [r.text for r in described.rulings] == ["Per-fetcher URLs"]


def test_a_chosen_design_proposed_word_for_word_raises_no_option_it_holds(make_vault):
    """A record superseded by another had turned down "Amazon SQS standard queue"; proposing
    the superseding record's chosen option, word for word, was "tried before" by both arms."""
    old = ("---\nstatus: superseded by ADR-0011\n---\n# Queue for the invoice export\n## Considered Options\n"
           "* RabbitMQ classic queues\n* Amazon SQS standard queue\n## Decision Outcome\n"
           'Chosen option: "RabbitMQ classic queues", because we run RabbitMQ.\n')
    new = ("# Queue for the invoice export, again\n## Considered Options\n"
           "* Amazon SQS standard queue with an idempotent consumer\n* RabbitMQ classic queues\n"
           '## Decision Outcome\nChosen option: "Amazon SQS standard queue with an idempotent consumer", '
           "because SQS scales with the exports.\n")
    order = ("# Where the pros and cons go\n## Considered Options\n"
             '* Section "Pros and Cons" after "Decision Outcome"\n* Section "Pros and Cons" before "Decision Outcome"\n'
             '## Decision Outcome\nChosen option: "Section \'Pros and Cons\' after \'Decision Outcome\'", because it '
             "keeps the options together.\n")
    with Vault(make_vault({"decisions/0009.md": old, "decisions/0011.md": new, "decisions/0016.md": order})) as v:
        v.index(embed=False)
        chosen = v.deadend_check("Amazon SQS standard queue with an idempotent consumer", lexical_only=True)
        assert chosen.status == "miss"
        assert chosen.closest[0].short_of == ('the proposal is a chosen design, word for word: "Amazon SQS '
                                              'standard queue with an idempotent consumer"')
        # (which one it is, named: a ruling sharing one word seemed to be blamed, qa59)
        # the rejected option itself is still raised, and so is the option "before" (a stop
        # word) that the record turned down, where "after" was chosen
        assert v.deadend_check("Amazon SQS standard queue", lexical_only=True).status == "hit"
        assert v.deadend_check("Section 'Pros and Cons' after 'Decision Outcome'", lexical_only=True).status == "miss"
        before = v.deadend_check('Put the section "Pros and Cons" before "Decision Outcome"', lexical_only=True)
        assert [r.text for r in before.rulings] == ['Section "Pros and Cons" before "Decision Outcome"']
        # what the superseded record chose stands no more: the record that superseded it turned
        # it down, and that is raised (it had been hidden as "a chosen design", qa53)
        back = v.deadend_check("RabbitMQ classic queues", lexical_only=True)
        assert [(r.text, r.path) for r in back.rulings] == [("RabbitMQ classic queues", "decisions/0011.md")]


def test_proposing_a_chosen_design_that_holds_a_ruled_out_option_does_not_raise_it(make_vault):
    """JabRef's 0002 turned down "Log4j2" and chose "SLF4J with Log4j2 binding": proposing the
    choice in a sentence ("for logging") raised the option by words, in `--lexical` and in the
    hook without a watcher, though proposing it bare did not (qa191)."""
    record = ("# Use SLF4J for logging\n## Considered Options\n* SLF4J with Logback binding\n"
              "* SLF4J with Log4j2 binding\n* Log4j2\n## Decision Outcome\n"
              'Chosen option: "SLF4J with Log4j2 binding", because it comes out best.\n')
    with Vault(make_vault({"decisions/0002-logging.md": record})) as v:
        v.index(embed=False)
        chosen = v.deadend_check("Let's use SLF4J with the Log4j2 binding for logging.", lexical_only=True)
        assert chosen.status == "miss"
        assert chosen.closest[0].short_of == ('the proposal is a chosen design, word for word: '
                                              '"SLF4J with Log4j2 binding"')
        assert [r.text for r in v.deadend_check("Let's use Log4j2 directly for logging", lexical_only=True).rulings] \
            == ["Log4j2"]


def test_k_limits_the_rulings(vault):
    check = check_proposal("sessions", load_rulings(vault.ledger), k=1, semantic=FixedArm(), accepted=outright())
    assert len(check.rulings) == 1


def test_a_check_crosses_the_daemon_socket_unchanged(vault):
    """The warm daemon answers `deadend check` for the CLI: the result must survive its codec."""
    from vault_engine.daemon import protocol

    check = vault.deadend_check("keep sessions in a shared Redis", project="drone", lexical_only=True)
    assert protocol.decode(protocol.encode(check)) == check


def test_a_ruling_worded_x_rather_than_y_is_restated_by_its_x_alone(make_vault):
    """"Use a ConfigMap" restated 35% of KEP-3257's ruling "Use a ConfigMap rather than defining
    a new type": the words arm counted what the ruling compared it with (qa76)."""
    note = ("# Trust bundles\n## Failed\n- Use a ConfigMap rather than defining a new type -- no RBAC per bundle\n"
            "- Ship the bundle in the node image -- rotation needs a reimage\n")
    with Vault(make_vault({"projects/certs/checkpoints/20260101T000000Z-a.md": note})) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        found = vault.deadend_check("Store the CA trust bundle in a ConfigMap", lexical_only=True)
        assert [r.text for r in found.rulings] == ["Use a ConfigMap rather than defining a new type"]
        assert vault.deadend_check("define a new type for the bundle", lexical_only=True).status == "miss"


def test_a_project_no_note_names_is_said_with_the_one_it_may_mean(vault):
    """`--project biling` flagged every ruling "weaker evidence" with no word of billing (qa74)."""
    slipped = vault.deadend_check("keep sessions in a shared Redis", project="biling", lexical_only=True)
    assert ("project 'biling' has no notes in the index yet: every ruling is flagged elsewhere "
            "(did you mean billing?)") in slipped.notices
    assert not any("did you mean" in n for n in vault.deadend_check("x y", project="search", lexical_only=True).notices)


def test_a_project_that_is_a_path_never_sends_the_check_out_of_the_vault(vault, monkeypatch):
    """`--project ../../..` scanned the disk from / for notes "written since" (16 s) and called
    the index stale (qa132): only a folder directly inside projects/ is scanned."""
    scanned = []
    monkeypatch.setattr(vault._drift, "stale_notice", lambda *a, **kw: scanned.append(kw.get("under", a[2:])) or ())
    for project in ("../../..", "..", "billing/../..", "/", "billing/", "./billing"):  # not the folder's name (qa133)
        found = vault.deadend_check("keep sessions in a shared Redis", project=project, lexical_only=True)
        assert found.rulings and not any("stale" in n for n in found.notices)
    assert scanned == []
    vault.deadend_check("keep sessions in a shared Redis", project="billing", lexical_only=True)
    assert scanned == ["projects/billing"]


def test_a_check_says_when_its_projects_folder_holds_another_projects_notes(make_vault):
    """projects/payments/ holding notes of `project: pay`: `deadend list` and `resume` said so,
    the check flagged the folder's own ruling "weaker evidence" without a word (qa132)."""
    note = ("---\ntype: checkpoint\nproject: pay\ncreated: 2026-12-01T10:00:00Z\n---\n# Invoices\n"
            "## Failed\n- Shard the invoice table by merchant id -- hot merchants\n")
    with Vault(make_vault({"projects/payments/checkpoints/20261201T100000Z-a.md": note})) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        found = vault.deadend_check("Shard the invoice table by merchant id", project="payments", lexical_only=True)
    assert found.rulings and any(n.startswith("1 note(s) in projects/payments/ say `project: pay`") for n in found.notices)


def test_a_hit_on_a_stale_index_says_a_ruling_written_since_may_match_better(vault):
    """A checkpoint written since the last index held the closer ruling; the hit, on another,
    said nothing of it (qa74)."""
    fresh = vault.deadend_check("keep sessions in a shared Redis", lexical_only=True)
    assert fresh.rulings and not any("stale" in n for n in fresh.notices)
    (vault.root / "projects/billing/checkpoints/20261030T100000Z-codex-a12.md").write_text(
        BILLING.replace("created: 2026-10-29T15:45:00Z", "created: 2026-10-30T10:00:00Z"), encoding="utf-8")
    stale = vault.deadend_check("keep sessions in a shared Redis", project="billing", lexical_only=True)
    assert stale.rulings and any(n.startswith("the index is stale: 1 new, 0 changed, 0 missing in projects/billing/")
                                 for n in stale.notices), stale.notices


def test_a_vault_without_any_dead_end_says_so_rather_than_a_plain_miss(make_vault):
    with Vault(make_vault({"notes/a.md": "# A\nNothing ruled out here.\n"})) as v:
        v.index(embed=False)
        check = v.deadend_check("use dataview instead of tasks")
    assert (check.status, check.rulings) == ("miss", ())
    assert check.rendered.startswith("No dead end is recorded in this vault yet")
    assert "[kinds] decision" in check.rendered and "lexical arm only" not in check.rendered


NYGARD = """# 19. Centralise MySQL Databases

Date: 2017-08-02

## Status

Accepted

## Decision

We discussed three options: 1. one admin instance per database; 2. users in terraform; 3. one
admin machine. Option 2 was discounted.
"""


def test_decision_records_that_list_no_option_where_one_is_read_say_so(make_vault):
    """38 Nygard records were told "dead ends come from ... docs/architecture/decisions/", the
    folder they were in (qa66)."""
    with Vault(make_vault({"docs/architecture/decisions/0019-centralise.md": NYGARD})) as v:
        v.index(embed=False)
        check = v.deadend_check("manage the users in terraform")
        listed = v.deadend_list()  # said by `deadend list` too: "no dead ends recorded" alone (qa123)
    assert check.status == "miss" and "its 1 decision record(s) list no rejected option where one is read" in \
        check.rendered and "`## Alternatives`" in check.rendered, check.rendered
    assert check.arms == ()  # nothing compared, by either arm: it had said "lexical" beside a model (qa132)
    assert listed.rulings == () and any("its 1 decision record(s) list no rejected option" in n for n in listed.notices)
    note = "---\ntype: checkpoint\nproject: api\ncreated: 2026-10-29T15:45:00Z\n---\n# Checkpoint: api\n## Next\n- ship\n"
    with Vault(make_vault({"projects/api/checkpoints/20261029T154500Z-a.md": note})) as v:
        v.index(embed=False)
        (said,) = v.deadend_list(project="api").notices  # with --project too (qa124)
    assert said.startswith("no dead end is recorded in this vault: ")


RECORD = """# Parse YAML

## Considered Options

* Jackson
* SnakeYAML Engine

## Decision Outcome

Chosen option: "Jackson", because it is maintained.

## Pros and Cons of the Options

### SnakeYAML Engine

* Bad, because it is slow
"""


def test_list_gives_a_records_chosen_option_as_check_does_and_no_false_date(make_vault):
    root = make_vault({"decisions/0020-yaml.md": RECORD})
    with Vault(root) as v:
        v.index(embed=False)
        listed = v.deadend_list()
        check = v.deadend_check("parse the file with SnakeYAML Engine", lexical_only=True)
    assert [(r.text, r.reason, r.chosen) for r in listed] == [
        ("SnakeYAML Engine", "it is slow", 'Jackson, because it is maintained.')]
    assert check.rulings[0].chosen == listed[0].chosen
    assert listed[0].when is None  # no date in the record: not the day its file was copied
    assert "Rejected (the record gives no date or authors) (no project" in check.rendered  # said once (qa24 #9)


def test_a_check_cut_to_k_says_how_many_matched(make_vault):
    """`-k 1` said "1 recorded dead end matches" where two did."""
    twice = BILLING.replace("- Sticky sessions", "- Keep sessions in a shared Redis cluster -- same failover\n"
                                                  "- Sticky sessions")
    with Vault(make_vault({"projects/billing/checkpoints/20261029T154500Z-codex-a12.md": twice})) as v:
        v.index(embed=False, now=FROZEN_NOW)
        cut = v.deadend_check("keep sessions in a shared Redis cluster", k=1, lexical_only=True)
        assert (len(cut.rulings), cut.matched, cut.to_json()["matched"]) == (1, 2, 2)
        assert cut.rendered.startswith('This was tried before: 2 recorded dead ends match '
                                       '"keep sessions in a shared Redis cluster" (the closest 1 below).')
        whole = v.deadend_check("keep sessions in a shared Redis cluster", k=3, lexical_only=True)
        assert whole.rendered.startswith('This was tried before: 2 recorded dead ends match "keep sessions '
                                         'in a shared Redis cluster".')


def test_a_proposal_of_symbols_only_is_a_usage_error_not_a_miss(vault):
    """"🚀" was "a miss, not a guess", though nothing was compared (qa84); search says the same."""
    for lexical in (True, False):
        for proposal in ("🚀 ✅", "→ ≠ ±"):  # arrows and signs too (qa85)
            with pytest.raises(BadArgument, match="holds no word to check"):
                vault.deadend_check(proposal, lexical_only=lexical)
    assert vault.deadend_check("🚀 Keep sessions in a shared Redis", lexical_only=True).rulings


def test_the_checking_projects_own_ruling_comes_first_and_is_the_one_quoted(make_vault):
    """Another project's weaker evidence, a little closer, stood first and was the "we tried
    that" to say out loud, above this project's own ruling (qa89)."""
    def checkpoint(project: str, agent: str, created: str, failed: str) -> str:
        return (f"---\ntype: checkpoint\nproject: {project}\nagent: {agent}\ncreated: {created}\n---\n"
                f"# C\n## Failed\n- {failed} -- it broke\n")

    root = make_vault({
        "projects/alpha/checkpoints/a.md": checkpoint("alpha", "a1", "2026-10-01T00:00:00Z",
                                                      "Keep sessions in a shared Redis cluster behind the old gateway"),
        "projects/beta/checkpoints/b.md": checkpoint("beta", "b1", "2026-10-02T00:00:00Z",
                                                     "Keep sessions in a shared Redis cluster")})
    with Vault(root, embedder=FakeEmbedder()) as vault:
        vault.index(embed=True, now=FROZEN_NOW)
        anywhere = vault.deadend_check("keep sessions in a shared Redis cluster")
        assert [r.project for r in anywhere.rulings] == ["beta", "alpha"]  # the closer first
        alpha = vault.deadend_check("keep sessions in a shared Redis cluster", project="alpha")
        assert [(r.project, r.elsewhere) for r in alpha.rulings] == [("alpha", False), ("beta", True)]
        assert alpha.rulings[0].score < alpha.rulings[1].score
        assert '"We tried that on 2026-10-01, a1: it broke."' in alpha.rendered


def test_deadend_list_says_when_the_index_is_stale(make_vault, cli):
    """A teammate's pulled ruling was left out, and the list read as everything (qa90)."""
    root = make_vault(FILES, config="[model]\nenabled = false\n")
    assert cli("--vault", root, "index").code == 0
    assert cli("--vault", root, "deadend", "list", "--project", "billing", "--json").json["notices"] == []
    (root / "projects/billing/checkpoints/20261120T090000Z-bob-bot.md").write_text(
        "---\ntype: checkpoint\nproject: billing\nagent: bob-bot\ncreated: 2026-11-20T09:00:00Z\n---\n"
        "# Checkpoint\n## Failed\n- Run webhook retries on a cron every five minutes -- they piled up\n")
    listed = cli("--vault", root, "deadend", "list", "--project", "billing")
    assert "the index is stale: 1 new, 0 changed, 0 missing in projects/billing/" in listed.err
    assert "cron" not in listed.out
    whole = cli("--vault", root, "deadend", "list", "--json").json
    assert [n.split(" since")[0] for n in whole["notices"]] == ["the index is stale: 1 new, 0 changed, 0 missing"]


class FailingArm:
    """A semantic arm whose model fails in the middle of a check (the model loaded for the
    proposal, then unusable: out of memory, a damaged file read late)."""

    def cosines(self, proposal, texts):
        from vault_engine.errors import ModelUnavailable

        raise ModelUnavailable("the embedding model failed")


def test_a_model_failing_mid_check_leaves_the_words_arms_answer_said_as_such(vault):
    rulings = load_rulings(vault.ledger)
    check = check_proposal("keep sessions in a shared Redis", rulings, semantic=FailingArm(), accepted=outright())
    assert check.arms == ("lexical",)
    assert [r.text for r in check.rulings][:1] == ["Keep sessions in a shared Redis"]
    assert check.notices == ("the embedding model failed: only the lexical arm ran",)


def test_chosen_instead_of_a_records_option_is_its_outcome_not_the_chosen_options_pros_and_cons(make_vault):
    """The chosen option, described by its Good and Bad lines as each rejected option is, was
    shown as "Chosen instead: Use custom code style Good, because ... Bad, because ..." where it
    shared more of the ruling's words than the outcome did (JabRef's 0050, qa123)."""
    record = ("---\nstatus: accepted\ndate: 2024-05-02\n---\n# Code style\n## Considered Options\n"
              "* Use custom code style\n* Use eclipse formatter\n## Decision Outcome\n"
              'Chosen option: "Use custom code style", because comes out best.\n'
              "## Pros and Cons of the Options\n### Use custom code style\n"
              "* Good, because the IntelliJ formatter tooling works\n* Bad, because the eclipse formatter users lose\n"
              "### Use eclipse formatter\n* Bad, because the eclipse formatter plugin is not maintained\n")
    with Vault(make_vault({"decisions/0050-code-style.md": record})) as v:
        v.index(embed=False)
        (eclipse,) = v.deadend_check("use the eclipse formatter", lexical_only=True).rulings
    assert eclipse.chosen == "Use custom code style, because comes out best."


def test_a_scene_that_names_the_ruled_out_approach_as_rejected_does_not_raise_it(make_vault):
    """"The shields.io badge idea was rejected. Plan: put a status key in the front matter." had
    raised "Status as a shields.io badge" by its words (qa129: 4 of 8 such agent messages)."""
    files = {"projects/madr/checkpoints/20180418T112000Z-codex-1.md": (
        "---\ntype: checkpoint\n---\n# C\n## Goal\nKeep the status as a key in the YAML front matter.\n"
        "## Failed\n- Status as a shields.io badge -- hard to read in the source\n")}
    with Vault(make_vault(files)) as v:
        v.index(embed=False)
        scene = v.deadend_check("The shields.io badge idea for ADR status was rejected. Plan: put a status: key "
                                "in the YAML front matter.", lexical_only=True)
        proposed = v.deadend_check("Show the status as a shields.io badge", lexical_only=True)
    assert scene.status == "miss" and proposed.status == "hit"


def test_a_near_miss_says_what_was_chosen_over_it(make_vault):
    """A miss's closest rulings had `chosen: null`, where a raised one says what was chosen
    instead: an agent reading a near miss did not see the decision (qa129)."""
    files = {"projects/madr/checkpoints/20180418T112000Z-codex-1.md": (
        "---\ntype: checkpoint\n---\n# C\n## Goal\nKeep the status as a key in the YAML front matter.\n"
        "## Failed\n- Status as a shields.io badge image -- hard to read in the source\n")}
    with Vault(make_vault(files)) as v:
        v.index(embed=False)
        near = v.deadend_check("Render a badge image for it", lexical_only=True)
    assert near.status == "miss"
    assert [(r.text, r.chosen) for r in near.closest] == [
        ("Status as a shields.io badge image", "Keep the status as a key in the YAML front matter.")]
    assert near.to_json()["closest"][0]["chosen"] == "Keep the status as a key in the YAML front matter."


def test_a_wikilink_in_a_ruling_reads_as_its_text_as_a_markdown_link_does(make_vault):
    """Two Failed items alike but for their links' syntax: the Markdown link's was restated by
    words at 100%, the wikilink's at 51% (its target counted as words to repeat), and the
    sentence to say kept "[[billing-spec#Refund window|refund window]]" (qa132)."""
    note = ("---\ntype: checkpoint\nproject: pay\nagent: codex-b2\ncreated: 2026-12-02T10:00:00Z\n---\n"
            "# Refunds\n## Failed\n"
            "- Compute refunds from the [[billing-spec#Refund window|settlement ledger]] -- the "
            "[[billing-spec#Refund window|refund window]] needs the rate of the day\n"
            "- Compute credits from the [settlement ledger](specs/billing-spec.md#Refund%20window) -- the "
            "[refund window](specs/billing-spec.md) needs the rate of the day\n")
    with Vault(make_vault({"projects/pay/checkpoints/20261202T100000Z-codex-b2.md": note})) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        for what in ("refunds", "credits"):
            found = vault.deadend_check(f"Compute {what} from the settlement ledger", lexical_only=True)
            assert [round(r.evidence.words, 6) for r in found.rulings] == [1.0]
        said = vault.deadend_check("Compute refunds from the settlement ledger", project="pay", lexical_only=True)
    assert '"We tried that on 2026-12-02, codex-b2: the refund window needs the rate of the day."' in said.rendered


@pytest.mark.parametrize("proposal", [
    "Instead of signed cookies keep sessions in a shared Redis. I'll add tests.",
    "Signed cookies were rejected by the security review, so we'll keep sessions in a shared Redis. I'll add tests.",
    "Not sure if this was tried but let's keep sessions in a shared Redis",
    "Don't know if anyone tried this but I'll keep sessions in a shared Redis",
])
def test_a_restatement_is_raised_whatever_it_hedges_or_leaves_behind(vault, proposal):
    """A second sentence made the unended "Instead of ..." refuse the whole first one, a
    refusal ran past ", so", and a hedge opening "Not sure" turned every ruling down: each a
    miss, exit 0 under --fail-on-hit (qa132)."""
    found = vault.deadend_check(proposal, lexical_only=True)
    assert [r.text for r in found.rulings][:1] == ["Keep sessions in a shared Redis"]


def test_what_a_superseded_record_chose_is_chosen_no_more_though_it_rejects_nothing(make_vault):
    """A superseded record's Decision kept a word-for-word restatement quiet ("the proposal is a
    chosen design, word for word") and was "chosen since" the ruling in `deadend list`, where
    the same record with one rejected alternative did neither: its status had been read from
    its rulings' rows (qa132)."""
    failed = ("---\ntype: checkpoint\nproject: pay\nagent: a1\ncreated: 2026-12-01T10:00:00Z\n---\n# Locks\n"
              "## Failed\n- Redis Redlock for invoice runs -- clock drift double-charged a batch\n")
    record = ("---\ntype: decision\nproject: pay\nstatus: superseded by ADR-0012\ncreated: 2026-12-05\n---\n"
              "# Use Redlock\n## Decision\nUse Redis Redlock for invoice runs.\n")
    with Vault(make_vault({"projects/pay/checkpoints/20261201T100000Z-a1.md": failed,
                           "decisions/2026-12-05-use-redlock.md": record})) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        found = vault.deadend_check("Use Redis Redlock for invoice runs", project="pay", lexical_only=True)
        listed = vault.deadend_list(project="pay")
    assert [r.text for r in found.rulings] == ["Redis Redlock for invoice runs"]
    assert [r.chosen_since for r in listed] == [None]


@pytest.mark.parametrize("dated_by", ["created", "date"])  # `date` before `updated` too (qa178)
def test_a_choice_is_dated_as_its_notes_rulings_are_and_one_of_no_date_clears_no_failure(make_vault, dated_by):
    """A record dated 2026-10-01 (updated 2026-12-05) was "chosen since" a failure of
    2026-12-01 by its update's date, an undated spec by the day it was copied; and an undated
    record's choice kept the check quiet ("a chosen design, word for word") where the list
    said the ruling stands (qa132)."""
    failed = ("---\ntype: checkpoint\nproject: pay\nagent: a1\ncreated: 2026-12-01T10:00:00Z\n---\n# Invoices\n"
              "## Failed\n- Optimistic retries on the invoice table -- lost updates under load\n"
              "- Batch invoices nightly -- customers wanted them at once\n"
              "- Keep sessions in a shared Redis -- the failover logged out every user\n")
    record = (f"---\ntype: decision\nproject: pay\n{dated_by}: 2026-10-01\nupdated: 2026-12-05\nauthors: Ana Silva\n---\n"
              "# Invoice concurrency\n## Decision\nUse optimistic retries on the invoice table, with jitter.\n")
    spec = ("---\ntype: spec\nproject: pay\n---\n# Invoicing\n## Decision\n"
            "Batch invoices nightly and email them at 06:00.\n")
    team = ("---\ntype: decision\n---\n# Session store\n## Decision\nKeep sessions in a shared Redis.\n")
    with Vault(make_vault({"projects/pay/checkpoints/20261201T100000Z-a1.md": failed,
                           "decisions/0009-invoice-concurrency.md": record, "projects/pay/invoicing-spec.md": spec,
                           "decisions/0001-session-store.md": team})) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        listed = vault.deadend_list(project="pay")
        found = vault.deadend_check("Keep sessions in a shared Redis", project="pay", lexical_only=True)
    assert [(r.text, r.chosen_since) for r in listed if r.source == "checkpoint"] == [
        ("Optimistic retries on the invoice table", None), ("Batch invoices nightly", None),
        ("Keep sessions in a shared Redis", None)]
    assert [r.text for r in found.rulings] == ["Keep sessions in a shared Redis"]


def test_a_project_whose_folder_holds_only_another_projects_notes_is_said_to_be_renamed(make_vault):
    """Every note of projects/payments/ still says `project: pay`: `deadend list --project
    payments` (and resume) ended "no project 'payments'" without a word of the folder (qa133)."""
    from vault_engine.errors import UnknownProject

    note = ("---\ntype: checkpoint\nproject: pay\ncreated: 2026-12-01T10:00:00Z\n---\n# Invoices\n"
            "## Failed\n- Shard the invoice table by merchant id -- hot merchants\n")
    with Vault(make_vault({"projects/payments/checkpoints/20261201T100000Z-a.md": note})) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        with pytest.raises(UnknownProject, match=r"no project 'payments' in the index; known projects: pay .*; "
                                                 r"1 note\(s\) in projects/payments/ say `project: pay`"):
            vault.deadend_list(project="payments")


def test_what_was_chosen_instead_reads_a_wikilink_as_its_text(make_vault):
    """"Chosen instead" kept `[[signed-cookies|signed cookies]]` as written (qa133)."""
    note = ("---\ntype: checkpoint\nproject: web\ncreated: 2026-12-01T10:00:00Z\n---\n# Sessions\n"
            "## Goal\nKeep sessions in [[signed-cookies|signed cookies]].\n"
            "## Failed\n- Keep sessions in a shared Redis -- the failover logged out every user\n")
    with Vault(make_vault({"projects/web/checkpoints/20261201T100000Z-a.md": note})) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        found = vault.deadend_check("Keep sessions in a shared Redis", lexical_only=True)
    assert [r.chosen for r in found.rulings] == ["Keep sessions in signed cookies."]
