"""Vault.undo_reinforce: a reinforcement taken back through the durable log (vault.py)."""

import json

import pytest

from vault_engine.errors import BadArgument, VaultError
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


def test_a_log_merged_with_a_teammates_lines_before_the_end_is_read_whole(sample_vault, caplog):
    """git merged a teammate's reinforcement before this clone's own last line: read on from
    the old offset, one line was lost for good and a valid one was called "not JSON" (qa25 #1)."""
    log = sample_vault / ".vault-engine/ledger/reinforcements.jsonl"
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=NOW)
        vault.reinforce("specs/drop-test-protocol.md", by="ana", now=NOW)
        vault.reinforce("specs/auth-sessions.md", by="ana", now=NOW + 1)
        assert {r.path for r in vault.decay_report(now=NOW) if r.reinforcements} == {
            "specs/drop-test-protocol.md", "specs/auth-sessions.md"}
    ana = log.read_text().splitlines()
    ben = json.dumps({"v": 1, "event": "reinforce", "ref": "specs/webhook-delivery.md", "path":
                      "specs/webhook-delivery.md", "at": NOW + 2, "by": "ben", "why": None})
    log.write_text("\n".join([ana[0], ben, ana[1]]) + "\n")  # the merge: ben's line between ana's
    with Vault(sample_vault) as vault:
        counts = {r.path: r.reinforcements for r in vault.decay_report(now=NOW) if r.reinforcements}
    assert counts == {"specs/drop-test-protocol.md": 1, "specs/auth-sessions.md": 1, "specs/webhook-delivery.md": 1}
    assert "not JSON" not in caplog.text


def test_reinforce_undo_from_the_cli_takes_back_the_newest_standing_one(sample_vault, cli):
    """Only the TUI's `u` could take a reinforcement back (qa88)."""
    path = "specs/drop-test-protocol.md"
    assert cli("--vault", sample_vault, "index", "--no-embed").code == 0
    assert cli("--vault", sample_vault, "reinforce", path, "--by", "ann", "--json").code == 0
    second = cli("--vault", sample_vault, "reinforce", path, "--by", "ann", "--json").json
    undone = cli("--vault", sample_vault, "reinforce", path, "--undo", "--json").json
    assert (undone["undone"], undone["reinforcements"]) == (second["at"], 1)
    # named as reinforce names it: a Notion page is asked for by its notion:// ref (qa98)
    assert {k: undone[k] for k in ("ref", "tap", "title")} == {k: second[k] for k in ("ref", "tap", "title")}
    said = cli("--vault", sample_vault, "reinforce", path, "--undo").out
    assert said.startswith(f"took back the reinforcement of {path} made ") and "own date again" in said
    refused = cli("--vault", sample_vault, "reinforce", path, "--undo")
    assert refused.code == 1 and "has no reinforcement to undo" in refused.err and "usage:" not in refused.err


def test_an_undo_with_a_log_that_is_no_file_refuses_naming_it(sample_vault, cli):
    """A named pipe in the log's place: the warning twice, then "no reinforcement to undo",
    which was not so (qa141)."""
    import os

    path = "specs/drop-test-protocol.md"
    assert cli("--vault", sample_vault, "index", "--no-embed").code == 0
    assert cli("--vault", sample_vault, "reinforce", path, "--by", "ann").code == 0
    log = sample_vault / ".vault-engine" / "ledger" / "reinforcements.jsonl"
    log.unlink()
    os.mkfifo(log)
    refused = cli("--vault", sample_vault, "reinforce", path, "--undo")
    assert (refused.code, refused.err) == (1, f"vault-engine: {log} is a named pipe (FIFO), not a file: move it aside "
                                              "(it stays yours) and run the command again\n")


def test_a_renamed_notes_reinforcement_is_undone_by_its_new_name(sample_vault):
    """After a rename, `reinforce --undo` had said "no reinforcement to undo" while `decay`
    showed the note reinforced: the undo looked for lines of its new path alone (qa149)."""
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=NOW)
        vault.reinforce("specs/drop-test-protocol.md", by="ann", now=NOW)
        (sample_vault / "specs/drop-test-protocol.md").rename(sample_vault / "specs/drop-tests.md")
        vault.index(embed=False, now=NOW + 10)
        assert {r.path: r for r in vault.decay_report(now=NOW + 10)}["specs/drop-tests.md"].reinforcements == 1
        undone = vault.undo_last_reinforce("specs/drop-tests.md", by="ann", now=NOW + 20)
        rows = {r.path: r for r in vault.decay_report(now=NOW + 20)}
        with pytest.raises(VaultError, match="has no reinforcement to undo"):
            vault.undo_last_reinforce("specs/drop-tests.md", now=NOW + 30)
    assert undone["undone"] == NOW and undone["reinforcements"] == 0
    assert rows["specs/drop-tests.md"].reinforcements == 0


def test_a_rename_is_in_the_log_before_the_ledger_forgets_the_old_path(sample_vault, monkeypatch):
    """A run killed between the ledger's commit and the `move` line had lost the reinforcement
    for good (qa149): the line is written first, so a run killed as it writes it has changed
    nothing, and the next run finds the rename again."""
    from vault_engine.stores.reinforcements import ReinforcementLog

    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=NOW)
        vault.reinforce("specs/drop-test-protocol.md", now=NOW)
    (sample_vault / "specs/drop-test-protocol.md").rename(sample_vault / "specs/drop-tests.md")
    append = ReinforcementLog.append

    def killed_at_a_move(log, record):
        if record.get("event") == "move":
            raise KeyboardInterrupt  # as a kill lands while the line is written
        append(log, record)
    monkeypatch.setattr(ReinforcementLog, "append", killed_at_a_move)
    with Vault(sample_vault) as vault, pytest.raises(KeyboardInterrupt):
        vault.index(embed=False, now=NOW + 10)
    monkeypatch.undo()
    with Vault(sample_vault) as vault:
        vault.index(embed=False, now=NOW + 20)
        rows = {r.path: r for r in vault.decay_report(now=NOW + 20)}
    assert rows["specs/drop-tests.md"].reinforcements == 1 and "specs/drop-test-protocol.md" not in rows
