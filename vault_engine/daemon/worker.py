"""The daemon's Vault worker: one thread owns the warm Vault, and every call, read or write,
runs there in turn (:mod:`vault_engine.vault_thread` says why one thread).

A query waits for the batch in progress. Batches are small (one save is ~50 ms) and
background work is cut into small steps that yield to a waiting query, so a query waits at
most one step; a query that would wait long is answered ``busy`` and the CLI falls back
in-process.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vault_engine.vault import Vault
from vault_engine.vault_thread import VaultThread


class VaultWorker(VaultThread):
    """The Vault of ``root`` on its own thread, opened at the first call."""

    def __init__(self, root: Path):
        super().__init__(lambda: Vault(root), name="vault")
        self.root = root
        self.watcher_settle: Callable[[float], None] | None = None  # WatchService.settle, once it runs

    def settle(self, timeout: float) -> None:
        """Before a query: the daemon's watcher applies the edits it has seen and not applied
        yet, waiting at most ``timeout`` seconds, so the first query after a `git pull`
        answers from the pull: it had answered from the index before it, without a word (qa90)."""
        if self.watcher_settle is not None:
            self.watcher_settle(timeout)
