"""The daemon's Vault worker: one thread owns the warm Vault, and every call, read or write,
runs there in turn (:mod:`vault_engine.vault_thread` says why one thread).

A query waits for the batch in progress. Batches are small (one save is ~50 ms) and
background work is cut into small steps that yield to a waiting query, so a query waits at
most one step; a query that would wait long is answered ``busy`` and the CLI falls back
in-process.
"""

from __future__ import annotations

from pathlib import Path

from vault_engine.vault import Vault
from vault_engine.vault_thread import VaultThread


class VaultWorker(VaultThread):
    """The Vault of ``root`` on its own thread, opened at the first call."""

    def __init__(self, root: Path):
        super().__init__(lambda: Vault(root), name="vault")
        self.root = root
