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
