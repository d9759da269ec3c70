"""A Vault on its own thread: the one runtime of every long-lived interface (the daemon's
worker, the TUI's lanes, the MCP server).

Why one thread rather than a lock around shared objects or a Vault per call:

- a ``sqlite3`` connection belongs to the thread that made it, and the Vault (ledger, Whoosh
  searcher, the FAISS index and the loaded model) is not thread-safe;
- calls run one at a time in submission order, so a query runs before or after a batch of
  writes, never in between: readers never see half-applied batches;
- the cost is that a call waits for the one in progress; :attr:`VaultThread.waiting` and
  :attr:`VaultThread.busy` let long work yield to it or a caller give up on it.

A long-lived Vault must also answer from the index files of now, not from those it opened
first: before each call the thread compares which files the open stores are with the files
on disk, and closes the stores when another process replaced them (they reopen on the new
files when next used; the Vault object, and so a loaded model, stays); and it opens the vault
again when ``vault-engine.toml`` changed (a TUI or an MCP session answered by its first config,
and a file broken under it went unseen until a restart). A stand-in that has no
stores of its own (the CLI's daemon-first ``DaemonVault``) is opened with ``stores=False``:
nothing to check (and ``vault.py`` is not even imported for it).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from vault_engine.config import config_signature
from vault_engine.layout import LEDGER_FILE, VECTORS_FILE, WHOOSH_DIR

if TYPE_CHECKING:
    from vault_engine.vault import Vault

log = logging.getLogger(__name__)
T = TypeVar("T")
CLOSE_WAIT_SECONDS = 30.0


class VaultThread:
    """Runs ``fn(vault, ...)`` on one thread that owns the vault, one call at a time, in order.

    ``opener()`` makes the vault on the thread, at the first call: a :class:`Vault`, or with
    ``stores=False`` a stand-in duck-typed as one that has no index files of its own."""

    def __init__(self, opener: Callable[[], Any], name: str = "vault", *, stores: bool = True):
        self._opener = opener
        self._stores = stores  # the vault has index files: check them before each call
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._vault: Any = None  # touched only on the thread
        self._identity: tuple | None = None  # which index files the open stores are
        self._config_seen: tuple | None = None  # which vault-engine.toml the vault was opened with
        self._pending: set[Future] = set()  # not done yet: close() cancels those not started
        self._waiting = 0  # submitted, not started (the embedding catch-up yields to them)
        self._lock = threading.Lock()
        self.busy = False  # a call is running

    @property
    def waiting(self) -> int:
        """Calls queued behind the one running."""
        return self._waiting

    @property
    def opened(self) -> bool:
        """Whether the vault is open (the first call opens it, :meth:`close` closes it)."""
        return self._vault is not None

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        """Queue ``fn(vault, *args, **kwargs)``; the future holds its result or its exception.
        Cancelling the future drops the call if it has not started."""
        with self._lock:
            self._waiting += 1
        future = self._pool.submit(self._run, fn, args, kwargs)
        self._pending.add(future)
        future.add_done_callback(self._done)
        return future

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(vault, *args, **kwargs)`` and wait for it."""
        return self.submit(fn, *args, **kwargs).result()

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``await`` ``fn(vault, *args, **kwargs)`` from asyncio code; cancelling the awaiting
        task drops the call if it has not started (a running one finishes, its result unused)."""
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    def reload(self) -> None:
        """Drop the vault: the next call opens a fresh one (vault-engine.toml changed)."""
        self._pool.submit(self._close).result()

    def close(self, timeout: float | None = CLOSE_WAIT_SECONDS) -> None:
        """Drop the calls still queued, close the vault on its thread, then stop the thread."""
        for future in list(self._pending):
            future.cancel()  # only succeeds for calls that have not started
        try:
            self._pool.submit(self._close).result(timeout=timeout)
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)

    # -- on the thread ------------------------------------------------------------------------

    def _done(self, future: Future) -> None:
        self._pending.discard(future)
        if future.cancelled():
            self._started()

    def _started(self) -> None:
        with self._lock:
            self._waiting -= 1

    def _run(self, fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
        self._started()
        self.busy = True
        try:
            return fn(self._opened(), *args, **kwargs)
        finally:  # after our own writes: only another process's replacement counts next time
            self._identity = self._index_identity()
            self.busy = False

    def _opened(self) -> Any:
        if self._vault is not None and self._config_now() != self._config_seen:
            log.info("vault-engine.toml changed: opening the vault again")
            self._close()
        if self._vault is None:
            self._vault = self._opener()
            self._config_seen = self._config_now()
        elif self._identity != self._index_identity():
            log.info("another process replaced index files: reopening the stores")
            self._vault.close()  # the stores reopen when next used; the model stays loaded
        return self._vault

    def _config_now(self) -> tuple | None:
        """Which vault-engine.toml is on disk for the open vault (a stand-in of no folder: None)."""
        root = getattr(self._vault, "root", None)
        return config_signature(root) if root is not None else None

    def _index_identity(self) -> tuple | None:
        """Which index files the open stores are (None: nothing open, or a stand-in)."""
        if not self._stores or self._vault is None:
            return None
        return index_identity(self._vault)

    def _close(self) -> None:
        if self._vault is not None:
            self._vault.close()
        self._vault = None
        self._identity = None


def index_identity(vault: Vault) -> tuple:
    """Which files the open stores of ``vault`` are. Another process can replace them:
    ``index`` the vectors file (saved by atomic rename), a repair the Whoosh folder (deleted
    and made again in place), removing .vault-engine/index/ the ledger. Handles opened
    before must then be reopened, or they would keep answering from the old files. The
    Whoosh folder counts with its modification time: the filesystem (ext4) gives the freed
    inode number straight to the folder made again, so the inode alone would not tell."""
    index = vault.config.index_dir
    return (_stat(index / WHOOSH_DIR, with_time=True), _stat(index / LEDGER_FILE), _stat(index / VECTORS_FILE))


def _stat(path: os.PathLike[str], with_time: bool = False) -> tuple[int, ...] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns) if with_time else (info.st_dev, info.st_ino)
