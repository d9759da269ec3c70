"""The watch service with the real embedding model (vault_engine/daemon/service.py): the
daemon embeds in the background after the lexical catch-up, keeps the model loaded, and a
CLI semantic search is answered warm without importing torch in the CLI."""

from __future__ import annotations

import shutil

import pytest

from tests.daemon.conftest import probe_cli, wait_for
from vault_engine.config import parse_config
from vault_engine.daemon.client import ask
from vault_engine.daemon.health import HealthRecorder
from vault_engine.daemon.service import WatchService
from vault_engine.errors import ConfigError, VaultError
from vault_engine.indexing.watch_state import read_health
from vault_engine.indexing.watcher import Burst
from vault_engine.stores.embedder import FakeEmbedder
from vault_engine.vault import Vault
from vault_engine.vault_thread import VaultThread

NOTES = {
    "tasks/recurrence.md": "# Recurring tasks\nA task with a recurrence rule is created again "
                           "after you complete it: every week, every month, or on a weekday.\n",
    "tasks/priorities.md": "# Priorities\nHigh, medium and low priority change the sort order.\n",
    "specs/storage.md": "# Storage\nNotes are plain Markdown files in a folder.\n",
}


def daemon_status(root) -> dict | None:
    answered, status = ask(root, "status")  # never falls back: the test asks the daemon only
    return status if answered else None


def fully_embedded(root, sections: int) -> bool:
    """Both facts from one status answer: read apart, the save could land in between and a
    coverage of 1.0 read before it would pass for the embedding of it."""
    status = daemon_status(root)
    return bool(status) and status["sections"] == sections and status["semantic"]["coverage"] == 1.0


@pytest.mark.model
def test_saves_are_embedded_in_the_background_and_searched_warm(make_vault, start_daemon):
    root = make_vault(NOTES)
    with Vault(root) as vault:
        vault.index(embed=False)  # words only: the daemon does the embedding catch-up
    daemon = start_daemon(root)
    wait_for(lambda: fully_embedded(root, sections=3), timeout=180, what="background catch-up")
    # Then the daemon writes the query model (once per model; a CLI call meanwhile waits up
    # to 5 s, then answers in-process): searched warm means after it.
    wait_for(lambda: list((root / ".vault-engine/index/current").glob("query-model-*.onnx")), timeout=120,
             what="the query model written")
    wait_for(lambda: daemon_status(root), timeout=30, what="the daemon free again")

    warm = probe_cli("--vault", root, "search", "a task that comes back every week once it is completed",
                     "--semantic", "--json")
    assert warm.code == 0 and warm.json["arms"] == ["semantic"]
    assert warm.json["hits"][0]["path"] == "tasks/recurrence.md"
    assert "torch" not in warm.loaded and "vault_engine.vault" not in warm.loaded

    (root / "tasks" / "reminders.md").write_text(
        "# Reminders\nAn alarm goes off on your phone before the deadline of a task.\n")
    wait_for(lambda: fully_embedded(root, sections=4), timeout=60, what="the save embedded")
    found = probe_cli("--vault", root, "search", "an alarm on my phone before the deadline",
                      "--semantic", "--json")
    assert found.json["hits"][0]["path"] == "tasks/reminders.md"
    assert "torch" not in found.loaded
    assert daemon.health()["errors"] == []


class FailingWorker:
    """A Vault worker whose every call fails with ``error``, as the watcher's Vault does once
    vault-engine.toml is broken under it."""

    waiting = 0

    def __init__(self, error: Exception):
        self.error = error

    def call(self, work):
        raise self.error


class Heard:
    def __init__(self):
        self.problems: list[str] = []

    def applied(self, report, catch_up):
        pass

    def problem(self, message):
        self.problems.append(message)


def watched_config(tmp_path):
    """A vault's config with its ``.vault-engine/``, as the watcher's pid lock makes it first."""
    (tmp_path / ".vault-engine").mkdir()
    return parse_config(tmp_path, {})


def failing_service(config, error: Exception, heard: Heard) -> WatchService:
    return WatchService(config, FailingWorker(error), HealthRecorder(config, 4242, 0.0), heard,
                        on_fatal=lambda why: None)


def test_a_broken_config_is_recorded_as_its_one_line_never_a_python_repr(tmp_path):
    config = watched_config(tmp_path)
    line = f"{tmp_path}/vault-engine.toml: Invalid value (at line 3, column 10); fix the file"
    heard = Heard()
    failing_service(config, ConfigError(line), heard)._embed_step()
    (error,) = read_health(config)["errors"]
    assert error["message"] == line  # not "embedding failed: ...": the config stopped it, not the model (qa49)
    assert heard.problems == [line]  # status's watcher line shows the same
    failing_service(config, OSError(5, "Input/output error"), heard)._embed_step()
    assert heard.problems[-1] == "embedding failed: OSError: [Errno 5] Input/output error"


class SlicedEmbedding:
    """A Vault worker whose embedding catch-up takes three slices of 4 sections, the first two
    giving way (a query waiting), as the watcher's does under a burst of saves."""

    def __init__(self):
        self.waiting = 1
        self.slices = 0

    def call(self, work):
        return work(self)

    def embed_pending(self, should_stop):
        from vault_engine.model import IndexReport

        self.slices += 1
        if self.slices == 3:
            self.waiting = 0
        should_stop()
        return IndexReport(embedded=4, seconds=1.5)


def test_the_embedding_catch_up_is_said_once_for_all_its_slices(tmp_path):
    """40 sections took 30 s to embed; the log said "embedded 4 sections in 1.86 s", its last
    slice's, and a catch-up giving way to queries all along said nothing (qa73)."""
    config = watched_config(tmp_path)
    heard = Heard()
    said = []
    heard.applied = lambda report, catch_up: said.append((report.embedded, report.seconds))
    service = WatchService(config, SlicedEmbedding(), HealthRecorder(config, 4242, 0.0), heard, on_fatal=print)
    assert [service._embed_step() for _ in range(3)] == [True, True, False]
    assert said == [(12, 4.5)]


def test_an_unexpected_error_is_recorded_with_its_type_not_its_repr(tmp_path):
    config = watched_config(tmp_path)
    failing_service(config, RuntimeError("boom"), Heard())._apply_full(catch_up=False)
    (error,) = read_health(config)["errors"]
    assert error["message"] == "indexing failed: RuntimeError: boom"


def test_an_index_of_a_newer_release_stops_the_watcher_saying_why(tmp_path):
    """Retrying could only fail again (or, before, drop the newer index and rebuild over it)."""
    from vault_engine.errors import from_newer_release

    config = watched_config(tmp_path)
    error = from_newer_release(tmp_path, "ledger version 99, this one reads 13")
    heard, stopped = Heard(), []
    service = WatchService(config, FailingWorker(error), HealthRecorder(config, 4242, 0.0), heard,
                           on_fatal=stopped.append)
    service._run()
    assert stopped == [str(error)] and heard.problems == [str(error)]
    assert [e["message"] for e in read_health(config)["errors"]] == [str(error)]


def test_a_failed_batch_is_tried_again_without_waiting_for_another_change(tmp_path, monkeypatch):
    """On a full disk a save's batch failed, and was tried again only at the next save (qa44)."""
    from vault_engine.daemon import service as module
    from vault_engine.errors import disk_is_full
    from vault_engine.indexing.watcher import RESCAN

    monkeypatch.setattr(module, "RETRY_SECONDS", 0.01)
    config = watched_config(tmp_path)
    heard = Heard()
    service = failing_service(config, disk_is_full(tmp_path / "ledger.sqlite"), heard)
    service._apply_full(catch_up=False)
    assert service.feed.queue.get(timeout=5) == RESCAN
    assert heard.problems[0].endswith("(the whole vault is compared again in 0 s, or at the next change)")


def test_a_batch_the_full_disk_failed_is_recorded_as_a_full_disk(tmp_path):
    """Its errors read "OperationalError: disk I/O error" (qa46)."""
    import sqlite3

    config = watched_config(tmp_path)
    failing_service(config, sqlite3.OperationalError("database or disk is full"), Heard())._apply_full(catch_up=False)
    (error,) = read_health(config)["errors"]
    assert error["message"] == "indexing failed: the disk is full: free some space"


def test_the_watcher_stops_the_daemon_even_when_it_cannot_record_why(tmp_path, monkeypatch):
    """Recording the error raised again (a full disk) and the watch thread died, the daemon
    running on without it (qa44)."""
    config = watched_config(tmp_path)
    recorder, stopped = HealthRecorder(config, 4242, 0.0), []
    monkeypatch.setattr(recorder, "error", lambda *args: (_ for _ in ()).throw(OSError(28, "full")))
    service = WatchService(config, FailingWorker(RuntimeError("boom")), recorder, Heard(), on_fatal=stopped.append)
    monkeypatch.setattr(service, "_apply_full", lambda **kwargs: (_ for _ in ()).throw(RuntimeError("boom")))
    with pytest.raises(OSError):
        service._run()
    assert stopped == ["the watcher stopped: RuntimeError: boom"]


def test_a_batch_failing_because_the_vault_is_gone_says_nothing_of_its_own(tmp_path):
    """The heartbeat's one line says the vault is gone; the batch's "does not exist: open an
    existing folder (the next change triggers a full comparison)" came second (qa23 #5)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    config = parse_config(vault, {})
    heard = Heard()
    service = failing_service(config, VaultError(f"vault folder {vault} does not exist"), heard)
    service._apply_full(catch_up=False)
    assert len(heard.problems) == 1  # while the vault is there, a failed batch is said
    shutil.rmtree(vault)
    service._apply_full(catch_up=False)
    assert len(heard.problems) == 1


def test_a_config_change_that_reads_every_note_again_keeps_the_vectors_for_every_query(make_vault):
    """The notes read again lost their vectors until the next idle step took them back from
    the cache: a query in between found none (qa23 #3). Now the batch takes them itself."""
    root = make_vault(NOTES)
    fake = FakeEmbedder(dimension=32)
    with Vault(root, embedder=fake) as vault:
        vault.index()
    computed = len(fake.texts)
    worker = VaultThread(lambda: Vault(root, embedder=fake))
    heard = Heard()
    service = WatchService(worker.call(lambda vault: vault.config), worker,
                           HealthRecorder(parse_config(root, {}), 4242, 0.0), heard, on_fatal=lambda why: None)
    try:
        (root / "vault-engine.toml").write_text("max_file_mb = 3\n")  # read with: every note again
        service._apply(Burst(frozenset({"vault-engine.toml"}), 0.0, 0.0, 1))
        status = worker.call(lambda vault: vault.status())
        assert status["semantic"]["coverage"] == 1.0 and status["semantic"]["agrees"]
        assert len(fake.texts) == computed  # from the cache: nothing computed
        (said,) = heard.problems  # the one notice `index` gives too, no failure
        assert said.startswith("every note was read again")
    finally:
        worker.close()
