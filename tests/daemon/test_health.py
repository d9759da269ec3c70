"""The running watcher's health recorder (vault_engine/daemon/health.py) and the watch
settings it runs with (vault_engine/daemon/service.py)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import FROZEN_NOW
from vault_engine.config import parse_config
from vault_engine.daemon.health import MAX_ERRORS, HealthRecorder
from vault_engine.errors import ConfigError
from vault_engine.indexing.watch_state import health_path, read_health
from vault_engine.indexing.watcher import WatchSettings
from vault_engine.model import IndexReport


@pytest.fixture
def recorder(tmp_path):
    (tmp_path / ".vault-engine").mkdir()  # as the watcher's pid lock makes it first
    return HealthRecorder(parse_config(tmp_path, {}), pid=4242, started=FROZEN_NOW)


def test_a_burst_is_written_at_once_then_at_most_once_a_second(recorder):
    recorder.pending(1, FROZEN_NOW, FROZEN_NOW)
    assert read_health(recorder.config)["pending"] == 1
    recorder.pending(500, FROZEN_NOW, FROZEN_NOW + 0.5)  # a checkout streaming in
    assert read_health(recorder.config)["pending"] == 1  # not rewritten for every event
    recorder.pending(900, FROZEN_NOW, FROZEN_NOW + 1.2)
    assert read_health(recorder.config)["pending"] == 900


def test_an_applied_batch_clears_pending_and_records_lag(recorder):
    recorder.pending(3, FROZEN_NOW, FROZEN_NOW)
    recorder.applied(IndexReport(new=2, modified=1, sections=9), lag=0.2345, now=FROZEN_NOW + 1)
    health = read_health(recorder.config)
    assert (health["pending"], health["oldest_pending"], health["batches"]) == (0, None, 1)
    assert health["lag_seconds"] == 0.234 and health["last_applied"] == FROZEN_NOW + 1
    assert health["last_batch"]["new"] == 2 and health["pid"] == 4242


def test_the_catch_up_records_how_long_it_took_not_a_lag(recorder):
    """A 12 s catch-up at start was shown as "lag 12.00 s", as if an edit had waited 12 s."""
    recorder.applied(IndexReport(new=300), lag=12.04, now=FROZEN_NOW + 12, catch_up=True)
    health = read_health(recorder.config)
    assert health["caught_up_seconds"] == 12.04 and health["lag_seconds"] is None
    recorder.applied(IndexReport(modified=1), lag=0.25, now=FROZEN_NOW + 20)
    health = read_health(recorder.config)
    assert (health["lag_seconds"], health["caught_up_seconds"], health["batches"]) == (0.25, 12.04, 2)


def test_only_recent_errors_are_kept(recorder):
    for n in range(MAX_ERRORS + 5):
        recorder.error(f"problem {n}", FROZEN_NOW + n)
    errors = read_health(recorder.config)["errors"]
    assert len(errors) == MAX_ERRORS and errors[-1]["message"] == f"problem {MAX_ERRORS + 4}"


def test_remove_leaves_no_health_behind(recorder):
    recorder.set_state("watching")
    assert health_path(recorder.config).exists()
    recorder.remove()
    assert not health_path(recorder.config).exists()


def test_watch_settings_come_from_the_config(tmp_path):
    assert WatchSettings.from_config(parse_config(tmp_path, {})) == WatchSettings(0.1, 1.0)
    table = {"watch": {"debounce_ms": 250, "max_wait_ms": 100}}
    assert WatchSettings.from_config(parse_config(tmp_path, table)) == WatchSettings(0.25, 0.25)
    with pytest.raises(ConfigError, match="watch.debounce_ms"):
        WatchSettings.from_config(parse_config(tmp_path, {"watch": {"debounce_ms": "fast"}}))


def test_a_health_write_the_full_disk_refused_is_made_at_the_next_heartbeat(recorder, monkeypatch):
    """The write raised in the watch thread and ended it, the process living on and the index
    going stale under a status that said "watching" (qa44)."""
    from vault_engine.daemon import health

    recorder.pending(1, FROZEN_NOW, FROZEN_NOW)
    real = health.write_health

    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(health, "write_health", full)
    recorder.error("indexing failed: the disk is full", FROZEN_NOW)  # does not raise
    os.utime(health_path(recorder.config), (0, 0))
    recorder.beat()
    assert read_health(recorder.config)["errors"] == []  # the file as last written
    assert health_path(recorder.config).stat().st_mtime > 0  # yet touched: alive, not stalled (qa46)
    monkeypatch.setattr(health, "write_health", real)  # space again
    recorder.beat()
    assert [e["message"] for e in read_health(recorder.config)["errors"]] == ["indexing failed: the disk is full"]
