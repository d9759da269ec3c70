"""The watcher's state files (vault_engine/indexing/watch_state.py): health, liveness through
the pid lock (a real flock), stale-file detection, and the line `status` prints."""

from __future__ import annotations

import fcntl
import os

import pytest

from vault_engine import RELEASE
from vault_engine.config import parse_config
from vault_engine.indexing.watch_state import (
    health_path,
    pid_path,
    read_health,
    watcher_running,
    watcher_status,
    write_health,
)

HEALTH = {"pid": 4242, "release": RELEASE, "started": 1_790_000_000.0, "state": "watching", "last_event": None,
          "last_applied": 1_790_000_060.0, "pending": 2, "lag_seconds": 0.21, "batches": 3,
          "errors": [{"at": 1_790_000_050.0, "message": "bad.md: not UTF-8"}]}


@pytest.fixture
def config(tmp_path):
    """A vault whose ``.vault-engine/`` exists, as the watcher's pid lock makes it first."""
    (tmp_path / ".vault-engine").mkdir()
    return parse_config(tmp_path, {})


@pytest.fixture
def pid_lock(config):
    """Hold the pid lock the way a running `vault-engine watch` does."""
    fd = os.open(pid_path(config), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    yield
    os.close(fd)


def test_no_watcher_is_off(config):
    status = watcher_status(config)
    assert status["state"] == "off" and "vault-engine watch" in status["summary"]
    assert read_health(config) is None and not watcher_running(config)


def test_a_health_file_nested_too_deeply_reads_as_none(config):
    """`[[[...]]]` 3,000 deep in watch.json had broken `status` and `index` (qa137)."""
    health_path(config).write_text("[" * 3000 + "]" * 3000)
    assert read_health(config) is None


def test_a_live_watcher_reports_its_health(config, pid_lock):
    write_health(config, HEALTH)
    status = watcher_status(config)
    assert watcher_running(config)
    assert status["state"] == "watching" and status["pending"] == 2
    assert status["summary"] == (
        "watching (pid 4242) since 2026-09-21T14:13:20Z; last applied 2026-09-21T14:14:20Z "
        "(lag 0.21 s); 2 pending; 1 recent errors, none since the last apply; last: bad.md: not UTF-8 "
        "(at 2026-09-21T14:14:10Z)")
    # an error after the last apply is the watcher's state now ("6 recent errors" of a config
    # typo fixed since read as a watcher still failing, qa49)
    write_health(config, {**HEALTH, "errors": [{"at": 1_790_000_070.0, "message": "bad.md: not UTF-8"}]})
    assert watcher_status(config)["summary"].endswith("2 pending; 1 recent errors; last: bad.md: not UTF-8")


def test_a_watcher_catching_up_says_so_and_then_how_long_it_took(config, pid_lock):
    """During its catch-up a watcher reads no event: "last applied never; 0 pending" said it
    had nothing to do (qa39)."""
    write_health(config, {**HEALTH, "state": "catching-up", "last_applied": None, "pending": 0,
                          "lag_seconds": None, "errors": []})
    assert watcher_status(config)["summary"] == (
        "catching-up (pid 4242) since 2026-09-21T14:13:20Z; comparing every file with the index; "
        "edits saved meanwhile are applied next; 0 recent errors")
    write_health(config, {**HEALTH, "lag_seconds": None, "caught_up_seconds": 12.04, "pending": 0,
                          "errors": []})
    status = watcher_status(config)
    assert status["caught_up_seconds"] == 12.04 and status["summary"] == (
        "watching (pid 4242) since 2026-09-21T14:13:20Z; last applied 2026-09-21T14:14:20Z "
        "(caught up in 12.0 s); 0 pending; 0 recent errors")


def test_a_watcher_on_a_full_disk_says_so_whatever_it_last_wrote(config, pid_lock, monkeypatch):
    """It can write neither the index nor watch.json: "0 recent errors" was all status said (qa44)."""
    from vault_engine.indexing import watch_state

    write_health(config, {**HEALTH, "errors": []})
    assert "DISK" not in watcher_status(config)["summary"]
    monkeypatch.setattr(watch_state, "no_space_left", lambda path: path == config.state_dir)
    assert watcher_status(config)["summary"].endswith(
        "0 recent errors; THE DISK IS FULL: the watcher can write neither the index nor this report; "
        "free some space (it applies what waits within seconds)")


def test_health_left_by_a_dead_process_is_stale(config):
    write_health(config, HEALTH)
    pid_path(config).write_text("4242\n")  # the pid file stays after SIGKILL; its lock does not
    status = watcher_status(config)
    assert status["state"] == "stale"
    # the watcher ended; pid 4242 may be another process by now, so it is not called "gone"
    assert "left over from a watcher that has ended (it ran as pid 4242" in status["summary"]
    assert "2026-09-21T14:14:20Z" in status["summary"]


def test_an_unreadable_health_file_is_treated_as_absent(config):
    health_path(config).write_text("{half")
    assert read_health(config) is None
    assert watcher_status(config)["state"] == "off"


def test_write_health_leaves_no_temp_file(config):
    write_health(config, HEALTH)
    write_health(config, {**HEALTH, "pending": 0})
    assert read_health(config)["pending"] == 0
    assert [p.name for p in health_path(config).parent.iterdir()] == ["watch.json"]


def test_health_is_not_written_into_a_state_folder_removed_under_the_watcher(config):
    # rm -rf .vault-engine mid-batch: the last health write made it again, a dead watcher's
    # "watching" in a folder of no index (qa173 B3)
    config.state_dir.rmdir()
    write_health(config, HEALTH)
    assert not config.state_dir.exists()


def test_a_watcher_of_another_release_is_said_and_index_waits_for_it(config, pid_lock):
    """An old watcher left running across an upgrade: status called it healthy, and `index`
    left the embedding to it while it emptied each new index (qa99)."""
    from vault_engine.errors import VaultError
    from vault_engine.vault import Vault

    write_health(config, {**HEALTH, "release": "0.1.0 (ledger 12, extraction 30, code 11)"})
    status = watcher_status(config)
    assert status["state"] == "another-release" and status["summary"].startswith(
        "ANOTHER RELEASE: the watcher (pid 4242) was started by vault-engine 0.1.0 (ledger 12, extraction 30, "
        f"code 11), this is {RELEASE}: commands answer without it")
    (config.root / "a.md").write_text("# A\n\nalpha\n")
    with Vault(config.root) as vault, pytest.raises(VaultError, match=r"a watcher of another vault-engine release "
                                                                       r"runs for this vault \(pid 4242\)"):
        vault.index(embed=False)
