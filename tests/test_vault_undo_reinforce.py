"""Vault.undo_reinforce: a reinforcement taken back through the durable log (vault.py)."""

import json

import pytest

from vault_engine.errors import BadArgument
from vault_engine.vault import Vault

NOW = 1_795_953_600.0


def test_undo_appends_a_reversal_line_and_the_age_comes_back(sample_vault):
    path = "specs/drop-test-protocol.md"
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=NOW)
        before = {r.path: r for r in vault.decay_report(now=NOW)}[path]
        done = vault.reinforce(path, by="ann", why="used it", now=NOW)
        assert {r.path: r for r in vault.decay_report(now=NOW)}[path].multiplier == 1.0
        undone = vault.undo_reinforce(done["path"], done["at"], by="ann", now=NOW + 5)
        after = {r.path: r for r in vault.decay_report(now=NOW)}[path]
        with pytest.raises(BadArgument, match="already undone"):
            vault.undo_reinforce(done["path"], done["at"], now=NOW + 6)
    assert undone["reinforcements"] == 0 and after.multiplier == before.multiplier
    lines = [json.loads(line) for line in
             (sample_vault / ".vault-engine/ledger/reinforcements.jsonl").read_text().splitlines()]
    assert [line["event"] for line in lines] == ["reinforce", "undo"]  # nothing erased
    assert lines[1]["undoes"] == NOW and lines[1]["path"] == path


def test_a_second_vault_sees_the_undo(sample_vault):
    with Vault(sample_vault) as first, Vault(sample_vault) as second:
        first.index(embed=False, now=NOW)
        done = first.reinforce("specs/drop-test-protocol.md", now=NOW)
        assert second.decay_report(now=NOW)  # reads the reinforcement
        first.undo_reinforce(done["path"], done["at"], now=NOW)
        rows = {r.path: r for r in second.decay_report(now=NOW)}
    assert rows["specs/drop-test-protocol.md"].reinforcements == 0
