"""The decisive hard case with the real embedding model, end to end through the Vault:
proposing the accepted design must not raise the rejected one (vault_engine/memory/deadends.py)."""

import pytest

from tests.conftest import FROZEN_NOW
from tests.memory.test_deadends import BILLING, FILES
from vault_engine.vault import Vault

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def vaults(tmp_path_factory):
    """The same vault with its decision written down, and without it."""
    opened = {}
    for name, summary in (("recorded", None), ("unrecorded", "We looked at where sessions live.")):
        root = tmp_path_factory.mktemp(name)
        for rel, text in FILES.items():
            if summary and rel.startswith("projects/billing/"):
                text = BILLING.replace(
                    "Decision: keep sessions in signed cookies (HMAC, key id inside the cookie).", summary)
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        vault = Vault(root)
        vault.index(embed=False, now=FROZEN_NOW)
        opened[name] = vault
    yield opened
    for vault in opened.values():
        vault.close()


def test_proposing_the_recorded_accepted_design_does_not_raise_the_rejected_one(vaults):
    check = vaults["recorded"].deadend_check("keep sessions in signed cookies", project="billing")
    assert check.arms == ("lexical", "semantic")
    assert "Keep sessions in a shared Redis" not in [r.text for r in check.rulings]


def test_where_nothing_chosen_is_recorded_similarity_alone_decides(vaults):
    """Same topic, same words, nothing saying cookies were chosen: the Redis ruling is raised
    (for the agent to read why), which is why the decision is worth writing down."""
    check = vaults["unrecorded"].deadend_check("keep sessions in signed cookies", project="billing")
    assert "Keep sessions in a shared Redis" in [r.text for r in check.rulings]


def test_a_paraphrase_of_the_rejected_design_raises_it(vaults):
    check = vaults["recorded"].deadend_check(
        "store the login state in one Redis instance that every app server shares", project="billing")
    assert check.status == "hit"
    top = check.rulings[0]
    assert (top.text, top.elsewhere) == ("Keep sessions in a shared Redis", False)
    assert "semantic" in top.arms


def test_the_same_idea_from_another_project_is_raised_but_flagged_elsewhere(vaults):
    check = vaults["unrecorded"].deadend_check("run the beamformer on the microcontroller", project="billing")
    assert [r.text for r in check.rulings][:1] == ["Beamforming on the MCU"]
    assert check.rulings[0].elsewhere is True and check.rulings[0].source == "working note"
    assert "Weaker evidence" in check.rendered


PLANNED = """---
type: checkpoint
project: billing
agent: claude-2c9
created: 2026-{month}T09:00:00Z
---
# Checkpoint: webhook retries
## Summary
Webhooks from the payment provider go through a durable outbox table and a retry worker.
## Next
- {next}
## Failed
{failed}"""
SYNC = "Retry failed webhooks synchronously inside the request handler"
OUTBOX = "Retry failed webhooks from the outbox with exponential backoff capped at 6 h; page after 24 h"


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    """An older checkpoint planned the synchronous retry; the latest ruled it out and plans the
    outbox's backoff instead."""
    root = tmp_path_factory.mktemp("planned")
    folder = root / "projects/billing/checkpoints"
    folder.mkdir(parents=True)
    (folder / "20261008T090000Z-claude-2c9.md").write_text(
        PLANNED.format(month="10-08", next=SYNC, failed="- Polling the provider for events -- rate limited\n"))
    (folder / "20261125T090000Z-claude-2c9.md").write_text(
        PLANNED.format(month="11-25", next=OUTBOX, failed=f"- {SYNC} -- the provider times out after 10 s\n"))
    with Vault(root) as vault:
        vault.index(embed=False, now=FROZEN_NOW)
        yield vault


def test_following_the_latest_checkpoints_plan_is_not_a_dead_end(planned):
    """An agent doing its brief's Next step was told it repeated the ruling beside it in meaning
    (cosine 0.75 to the ruling, 0.67 to the Summary): a Next step of the latest checkpoint is
    weighed as a chosen design."""
    for proposal in (OUTBOX, "have the retry worker resend failed webhooks from the outbox, backing off up to 6 hours"):
        check = planned.deadend_check(proposal, project="billing")
        assert check.arms == ("lexical", "semantic")
        assert SYNC not in [r.text for r in check.rulings], proposal
        # ...and said to be a step planned next, not a decision (a to-do had been "a chosen design": qa114)
        (kept_quiet,) = [r for r in check.closest if r.text == SYNC]
        assert "a planned next step" in kept_quiet.short_of and "chosen design" not in kept_quiet.short_of
        assert kept_quiet.to_json()["chosen_closest_planned"] is True


def test_an_older_checkpoints_plan_does_not_shield_the_ruling_that_ended_it(planned):
    check = planned.deadend_check("retry the failed webhook synchronously in the request handler", project="billing")
    assert [r.text for r in check.rulings][:1] == [SYNC]


def test_a_plan_does_not_shield_a_ruling_made_after_it(planned):
    """A decision record rejected the design the latest checkpoint planned, after it was planned:
    an agent going on with the plan was told nothing, the step standing against the record's
    ruling as if chosen over it (qa160)."""
    record = planned.root / "decisions/0001-webhook-retries.md"
    record.parent.mkdir(parents=True)
    record.write_text("---\nproject: billing\nstatus: accepted\ndate: 2026-11-30\ndeciders: Priya\n---\n# Webhook retries\n\n"
                      "## Considered Options\n\n* Provider-side redelivery only\n"
                      f"* {OUTBOX.split(';')[0]}\n\n"
                      "## Decision Outcome\n\nChosen option: \"Provider-side redelivery only\", because the "
                      "provider retries for three days.\n")
    try:
        planned.index(embed=False, now=FROZEN_NOW)
        check = planned.deadend_check(OUTBOX, project="billing")  # the step itself, word for word
        assert [r.text for r in check.rulings][:1] == [OUTBOX.split(";")[0]]
        record.write_text(record.read_text().replace("2026-11-30", "2026-11-20"))  # before the plan: it stands
        planned.index(embed=False, now=FROZEN_NOW)
        assert OUTBOX.split(";")[0] not in [r.text for r in planned.deadend_check(OUTBOX, project="billing").rulings]
    finally:
        record.unlink()
        planned.index(embed=False, now=FROZEN_NOW)


def test_another_projects_plan_does_not_shield_this_projects_ruling(planned):
    """Project beta's latest Next step, the outbox's backoff, silenced billing's ruling on its
    own proposal vault-wide: a plan is chosen for its own project's rulings only."""
    other = planned.root / "projects/beta/checkpoints/20261126T090000Z-codex.md"
    other.parent.mkdir(parents=True)
    other.write_text(PLANNED.format(month="11-26", next=SYNC, failed="").replace("billing", "beta"))
    try:
        planned.index(embed=False, now=FROZEN_NOW)
        check = planned.deadend_check("retry the failed webhook synchronously in the request handler",
                                      project="billing")
        assert [r.text for r in check.rulings][:1] == [SYNC]
    finally:
        other.unlink()
        planned.index(embed=False, now=FROZEN_NOW)
