"""The watch service: catch up with the vault, then apply each burst of file events.

It wires the pieces of :mod:`vault_engine.indexing.watcher` to the warm Vault: the feed
(watchdog), the debouncer, and the worker thread that owns the Vault. A burst becomes one
``Vault.index_paths`` call (the same indexer as ``vault-engine index``, under the same writer
lock, so a concurrent ``index`` waits for the batch, and the batch for it). A full
``Vault.index`` runs instead when the whole vault must be compared: at start (changes made
while no watcher ran), after the kernel dropped events, after ``vault-engine.toml`` changed,
and after a failed batch.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from vault_engine.config import CONFIG_NAME, Config
from vault_engine.daemon.health import HealthRecorder
from vault_engine.daemon.worker import VaultWorker
from vault_engine.errors import (
    ConfigError,
    IndexFromNewerRelease,
    ModelUnavailable,
    VaultError,
    disk_full,
    write_refused,
)
from vault_engine.indexing.watcher import (
    IDLE_WORK,
    RESCAN,
    Burst,
    ChangeFeed,
    Debouncer,
    Settle,
    WatchSettings,
    watch_loop,
)
from vault_engine.model import IndexReport
from vault_engine.vault import Vault

log = logging.getLogger(__name__)

# The embedding catch-up runs between bursts in slices: it yields (the way Ctrl-C stops
# ``index``: what was embedded is kept) as soon as a change or a query waits, and after this
# many seconds, so that the writer lock is released now and then for a concurrent ``index``.
EMBED_SLICE_SECONDS = 5.0
# After a batch failed (a full disk), the whole vault is compared again this long after, or at
# the next change if that comes first: a failed save waited for another save, however long.
RETRY_SECONDS = 10.0


class WatchListener(Protocol):
    """What the shell running the watcher is told (from the watch thread)."""

    def applied(self, report: IndexReport, catch_up: bool) -> None: ...

    def problem(self, message: str) -> None: ...


class WatchService:
    """The watch thread: catch-up, then :func:`watch_loop` until :meth:`stop`."""

    def __init__(self, config: Config, worker: VaultWorker, health: HealthRecorder,
                 listener: WatchListener, on_fatal: Callable[[str], None]):
        self.config = config
        self.worker = worker
        self.health = health
        self.listener = listener
        self.on_fatal = on_fatal
        self.settings = WatchSettings.from_config(config)
        self.feed = ChangeFeed(config)
        self._thread: threading.Thread | None = None
        self._full_next = False
        self._retry: threading.Timer | None = None
        self._stop_requested = threading.Event()
        self._looping = threading.Event()  # in watch_loop: a query may ask it to settle
        self._embedding = IndexReport()  # the embedding catch-up's slices so far, said once it is done

    def start(self) -> None:
        """Watch first, then catch up: a change made during the catch-up is not lost."""
        self.feed.start()
        self._thread = threading.Thread(target=self._run, name="watch", daemon=True)
        self._thread.start()

    def settle(self, timeout: float) -> None:
        """Before a query is answered: apply the edits the watcher has seen and not applied
        yet (they wait for the vault to be quiet), waiting at most ``timeout`` seconds; not
        while catching up (the answer then says so) or stopped."""
        if not self._looping.is_set():
            return
        done = threading.Event()
        self.feed.queue.put(Settle(done))
        done.wait(timeout)

    def request_rescan(self) -> None:
        """Compare the whole vault at the next turn of the loop (the index was removed)."""
        self.listener.problem("the index folder, its `current` link or the generation it points at was removed; "
                              "building a new one")
        self.feed.queue.put(RESCAN)

    def wake_idle_work(self) -> None:
        """Another process swapped in a generation (``index --rebuild --no-embed``): embed
        what it lacks now, not only after the next save (status says the watcher does)."""
        self.feed.queue.put(IDLE_WORK)

    def stop(self) -> None:
        """Stop watching; the batch being applied is finished, pending events are left to
        the next start's catch-up."""
        self._stop_requested.set()
        if self.worker.busy:
            self.listener.problem("stopping: finishing the batch being applied first")
        self.feed.stop()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        try:
            self._apply_full(catch_up=True)
            self.health.set_state("watching")
            if self._stop_requested.is_set():
                return  # Ctrl-C during the catch-up: do not load the model on the way out
            self._warm_model()
            debouncer = Debouncer(self.settings.quiet, self.settings.max_wait)
            self._looping.set()
            try:
                watch_loop(self.feed.queue, debouncer, self._apply, on_pending=self._pending,
                           idle_step=self._embed_step)
            finally:
                self._looping.clear()
        except IndexFromNewerRelease as exc:  # every batch would fail so: stop, saying why
            self.health.error(str(exc), time.time())
            self.listener.problem(str(exc))
            self.on_fatal(str(exc))
        except Exception as exc:  # a bug: say so, and stop the daemon rather than go stale
            log.exception("the watcher stopped")
            try:
                self.health.error(f"the watcher stopped: {reason(exc)}", time.time())
            finally:
                self.on_fatal(f"the watcher stopped: {reason(exc)}")

    def _apply(self, burst: Burst) -> None:
        if burst.rescan or CONFIG_NAME in burst.paths or self._full_next:
            if CONFIG_NAME in burst.paths and not self._reload_config():
                return
            self._apply_full(catch_up=False, burst=burst)
            return
        self._record(lambda vault: vault.index_paths(burst.paths), burst, catch_up=False)

    def _reload_config(self) -> bool:
        """Reopen the Vault with the new vault-engine.toml; the feed filters by it too."""
        self.worker.reload()
        try:
            self.config = self.worker.call(lambda vault: vault.config)
        except VaultError as exc:
            self._failed(str(exc))
            return False
        self.feed.reconfigure(self.config)
        return True

    def _apply_full(self, *, catch_up: bool, burst: Burst | None = None) -> None:
        self._record(compare_all, burst, catch_up=catch_up)

    def _record(self, work: Callable[[Vault], IndexReport], burst: Burst | None,
                catch_up: bool) -> None:
        started = time.monotonic()
        try:
            report = self.worker.call(work)
        except IndexFromNewerRelease:
            raise
        except VaultError as exc:
            self._failed(str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - recorded, shown, and retried in full
            log.debug("batch failed", exc_info=True)
            self._failed(f"indexing failed: {reason(exc, self.config.state_dir)}")
            return
        self._full_next = False
        lag = time.monotonic() - (burst.first_event if burst else started)
        self.health.applied(report, lag, time.time(), catch_up=catch_up)
        for skipped in report.skipped:
            self.listener.problem(f"skipped {skipped.path}: {skipped.reason}")
        for notice in report.notices:  # as `index` says them: a vault made inside another, a repair
            self.listener.problem(notice)
        self.listener.applied(report, catch_up)

    def _failed(self, message: str) -> None:
        """A failed batch is not lost: the whole vault is compared again at the next change,
        or :data:`RETRY_SECONDS` later."""
        self._full_next = True
        if not self.config.root.is_dir():
            return  # the vault is gone: the heartbeat says so in one line, and stops the watcher
        self.health.error(message, time.time())
        self.listener.problem(f"{message} (the whole vault is compared again in {RETRY_SECONDS:.0f} s, "
                              "or at the next change)")
        if self._retry is None or not self._retry.is_alive():
            self._retry = threading.Timer(RETRY_SECONDS, self._retry_now)
            self._retry.daemon = True
            self._retry.start()

    def _retry_now(self) -> None:
        if self._full_next and not self._stop_requested.is_set():
            self.feed.queue.put(RESCAN)

    def _pending(self, debouncer: Debouncer) -> None:
        oldest = debouncer.oldest
        wall = None if oldest is None else time.time() - (time.monotonic() - oldest)
        self.health.pending(debouncer.pending, wall, time.time())

    def _warm_model(self) -> None:
        """Load the query side of the model now, so the first semantic query does not pay for it."""
        try:
            self.worker.call(lambda vault: vault.embedder().embed_queries(["warm up"]))
        except ModelUnavailable:
            pass  # lexical only: search says so itself
        except Exception as exc:  # noqa: BLE001 - the watcher still works by words
            self.health.error(f"the embedding model did not load: {reason(exc)}", time.time())
            self.listener.problem(f"the embedding model did not load ({exc}); searching by words only")

    def _embed_step(self) -> bool:
        """One slice of the embedding catch-up; True when it gave way with work left."""
        started = time.monotonic()
        yielded = False

        def should_stop() -> bool:
            """Give way to a waiting query or a new burst, and never hold the lock too long."""
            nonlocal yielded
            # a stop asked for too: the vault moved away while a slice ran on (qa137)
            busy = self.worker.waiting > 0 or not self.feed.queue.empty() or self._stop_requested.is_set()
            yielded = yielded or busy or time.monotonic() - started > EMBED_SLICE_SECONDS
            return yielded

        try:
            report = self.worker.call(lambda vault: vault.embed_pending(should_stop=should_stop))
        except IndexFromNewerRelease:
            raise
        except Exception as exc:  # noqa: BLE001 - recorded and shown; retried after the next burst
            # a broken vault-engine.toml stops the embedding too, but is no fault of it (qa49)
            said = str(exc) if isinstance(exc, ConfigError) else \
                f"embedding failed: {reason(exc, self.config.state_dir)}"
            self.health.error(said, time.time())
            self.listener.problem(said)
            return False
        # One line for the whole catch-up, once done: each slice had said only its own part
        # ("embedded 4 sections" for 40), and a catch-up always giving way to queries nothing (qa73)
        so_far = self._embedding
        self._embedding = replace(report, embedded=so_far.embedded + report.embedded,
                                  seconds=so_far.seconds + report.seconds)
        if not yielded:
            if self._embedding.embedded:
                self.listener.applied(self._embedding, False)
            self._embedding = IndexReport()
        return yielded


def compare_all(vault: Vault) -> IndexReport:
    """Compare the whole vault, then, in the same call, give what it read again the vectors
    the cache holds: a change of vault-engine.toml reads every note again, and a query
    answered between the two found no section with vectors (qa23 #3). Computing is left to
    the idle steps: the slice stops after its first encode call, if it makes one."""
    report = vault.index(embed=False)
    if not (report.new or report.modified or report.read_again or report.moved):
        return report
    cached = vault.embed_pending(should_stop=lambda: True)
    return replace(report, embedded=cached.embedded)


def reason(exc: BaseException, where: Path | None = None) -> str:
    """An error as one line for watch.json, which ``status`` shows: a VaultError's own message
    (it names the file and what to do), a full disk (on ``where``'s file system) said so,
    anything else with its type, never a Python repr."""
    if isinstance(exc, VaultError):
        return str(exc)
    refused = write_refused(exc)  # a read-only mount, a `ulimit -f` (qa101: "OSError: [Errno 27]")
    if refused is not None:
        return str(refused)
    return "the disk is full: free some space" if disk_full(exc, where) else f"{type(exc).__name__}: {exc}"
