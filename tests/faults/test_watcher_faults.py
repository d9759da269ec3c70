"""The watcher under faults: stopped with SIGSTOP, its index deleted under it, its vault moved.

A real `vault-engine watch` process on a copy of sample-vault/ (words only), and the CLI in
fresh interpreters that report which modules they loaded: a command the daemon answered never
loads vault_engine.vault, one answered in-process does. No timing is asserted; waits are
bounded polls.
"""

from __future__ import annotations

import os
import shutil
import signal

from tests.daemon.conftest import probe_cli, wait_for


def watcher_entry(root) -> dict:
    return probe_cli("--vault", root, "status", "--json").json["watcher"]


def test_a_stopped_watcher_is_reported_stalled_and_commands_answer_without_it(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    warm = probe_cli("--vault", lexical_vault, "search", "token refresh", "--lexical", "--json")
    assert warm.code == 0 and "vault_engine.vault" not in warm.loaded  # the daemon answered
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        entry = wait_for(lambda: (e := watcher_entry(lexical_vault))["state"] == "stalled" and e,
                         timeout=30, what="status reports the stopped watcher as stalled")
        assert f"kill -CONT {daemon.proc.pid}" in entry["summary"]
        cold = probe_cli("--vault", lexical_vault, "search", "token refresh", "--lexical", "--json")
        assert cold.code == 0, cold.err
        assert "vault_engine.vault" in cold.loaded  # answered in-process, not left waiting
        assert [h["ref"] for h in cold.json["hits"]] == [h["ref"] for h in warm.json["hits"]]
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    wait_for(lambda: watcher_entry(lexical_vault)["state"] == "watching", timeout=30,
             what="the watcher is watching again after SIGCONT")


def test_an_index_deleted_under_the_watcher_is_rebuilt_in_full(lexical_vault, start_daemon):
    daemon = start_daemon(lexical_vault)
    daemon.idle()
    shutil.rmtree(lexical_vault / ".vault-engine" / "index")

    def searchable():
        probe = probe_cli("--vault", lexical_vault, "search", "token refresh", "--lexical", "--json")
        return probe.code == 0 and probe.json["hits"] and probe
    try:
        wait_for(searchable, timeout=60, what="the deleted index rebuilt by the watcher")
    except AssertionError as exc:
        raise AssertionError(f"{daemon.log.read_text()}\n{daemon.log.with_suffix('.out').read_text()}\n"
                             f"{probe_cli('--vault', lexical_vault, 'search', 'token refresh', '--lexical', '--json')}") from exc
    status = probe_cli("--vault", lexical_vault, "status", "--json").json
    notes = sum(1 for p in lexical_vault.rglob("*.md") if ".vault-engine" not in p.parts)
    assert status["notes"] == notes  # every note, not only the ones saved since
    assert status["lexical"]["agrees"] and not status["damage"]
    assert daemon.proc.poll() is None  # still watching


def test_a_moved_vault_stops_the_watcher_with_a_message_and_the_old_path_stays_gone(
        lexical_vault, start_daemon, tmp_path):
    daemon = start_daemon(lexical_vault)
    daemon.idle()
    moved = tmp_path / "moved-vault"
    os.rename(lexical_vault, moved)
    code = daemon.proc.wait(30)
    assert code != 0
    err = daemon.log.read_text()
    assert f"the vault folder {lexical_vault} is gone (moved or deleted)" in err, err
    assert not lexical_vault.exists()  # nothing recreated the old folder on the way out
    # the moved vault still works, its index intact
    probe = probe_cli("--vault", moved, "search", "token refresh", "--lexical", "--json")
    assert probe.code == 0 and probe.json["hits"], probe.err
    assert probe_cli("--vault", moved, "status", "--json").json["watcher"]["state"] in ("off", "stale")
