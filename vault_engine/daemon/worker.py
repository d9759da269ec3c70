"""One thread owns the warm Vault; every call, read or write, runs there in turn.

Why one thread rather than a lock around shared objects or a Vault per thread:

- a ``sqlite3`` connection belongs to the thread that made it, and the Vault (ledger, Whoosh
  searcher, later the FAISS index and the loaded model) is not thread-safe;
- a second Vault would load the model and the vectors twice, and would see the ledger's new
  batch before Whoosh's (two commits): serializing on one thread means a query runs before
  or after a batch, never in between, so readers never see half-applied batches;
- the cost is that a query waits for the batch in progress. Batches are small (one save is
  ~50 ms) and background work is cut into small steps, so a query waits at most one step;
  a query that would wait long is answered ``busy`` and the CLI falls back in-process.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from vault_engine.layout import LEDGER_FILE, VECTORS_FILE, WHOOSH_DIR
from vault_engine.vault import Vault

log = logging.getLogger(__name__)
T = TypeVar("T")


class VaultWorker:
    """Runs functions of the Vault on its own thread, one at a time, in submission order."""

    def __init__(self, root: Path):
        self.root = root
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vault")
        self._vault: Vault | None = None
        self._index_identity: tuple | None = None
        self._waiting = 0  # submitted, not started (the embedding catch-up yields to them)
        self.busy = False  # a call is running
        self._count_lock = threading.Lock()

    def submit(self, fn: Callable[[Vault], T]) -> Future[T]:
        """Queue ``fn(vault)``; the future holds its result or its exception."""
        with self._count_lock:
            self._waiting += 1
        future = self._pool.submit(self._run, fn)
        future.add_done_callback(self._never_ran)
        return future

    def _never_ran(self, future: Future) -> None:
        if future.cancelled():
            self._started()

    @property
    def waiting(self) -> int:
        """Calls queued behind the one running."""
        return self._waiting

    def call(self, fn: Callable[[Vault], T]) -> T:
        """Run ``fn(vault)`` and wait for it."""
        return self.submit(fn).result()

    def reload(self) -> None:
        """Drop the Vault: the next call opens a fresh one (vault-engine.toml changed)."""
        self._pool.submit(self._close).result()

    def close(self) -> None:
        """Close the Vault on its thread, then stop the thread."""
        try:
            self._pool.submit(self._close).result(timeout=30)
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _started(self) -> None:
        with self._count_lock:
            self._waiting -= 1

    def _run(self, fn: Callable[[Vault], Any]) -> Any:
        self._started()
        if self._vault is not None and self._index_identity != _index_identity(self._vault):
            log.info("another process replaced index files: reopening the stores")
            self._close()
        self.busy = True
        try:
            if self._vault is None:
                self._vault = Vault(self.root)
            return fn(self._vault)
        finally:  # after our own writes: only another process's replacement counts next time
            self._index_identity = _index_identity(self._vault) if self._vault else None
            self.busy = False

    def _close(self) -> None:
        if self._vault is not None:
            self._vault.close()
        self._vault = None
        self._index_identity = None


def _index_identity(vault: Vault) -> tuple:
    """Which files the open stores are. Another process can replace them: ``index --rebuild``
    the Whoosh folder, ``index`` the vectors file (saved by atomic rename), removing
    .vault-engine/index/ the ledger. Handles opened before must then be reopened, or they
    would keep answering from the old files (the model stays loaded: it is not a store)."""
    found: list[tuple[int, int] | None] = []
    index = vault.config.index_dir
    for path in (index / WHOOSH_DIR, index / LEDGER_FILE, index / VECTORS_FILE):
        try:
            info = os.stat(path)
            found.append((info.st_dev, info.st_ino))
        except OSError:
            found.append(None)
    return tuple(found)
