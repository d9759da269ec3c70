"""Where Vault calls run: one long-lived thread per lane, each owning its own Vault.

A Vault holds a sqlite3 connection (and, once the semantic arm loads it, the embedding
model), and a sqlite3 connection must stay on the thread that opened it. So the TUI never
touches a Vault on the event loop: each lane is a single worker thread that opens its Vault
on first use and runs every call submitted to it, in order. Screens await a lane from async
Textual workers (``@work(exclusive=True)``); the UI thread only ever sees the returned values.

Two lanes keep a slow call from blocking a quick one: ``query`` runs searches and dead-end
checks (the calls that may load the model, which then stays warm for the next keystroke),
``browse`` runs everything else (show, links, status, decay, reinforce, resume). Indexing
opens a Vault of its own on a thread worker (see ``VaultApp.action_index``).

When an exclusive worker is cancelled (the user typed again), the awaited future is
cancelled too: a call still waiting in the lane's queue is dropped, a running one finishes
and its result is discarded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from vault_engine.vault import Vault

T = TypeVar("T")
VaultOpener = Callable[[Path], Vault]


class VaultLane:
    """One thread that owns one Vault; ``await lane.call(fn, ...)`` runs ``fn(vault, ...)`` there."""

    def __init__(self, root: Path, name: str, open_vault: VaultOpener = Vault):
        self.root = root
        self.name = name
        self._open_vault = open_vault  # tests open theirs with a fake embedder
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"vault-{name}")
        self._vault: Vault | None = None  # touched only on the lane's thread
        self._pending: set[Future] = set()

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(vault, *args, **kwargs)`` on the lane's thread and return its result."""
        future = self._executor.submit(self._run, fn, args, kwargs)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return await asyncio.wrap_future(future)

    def _run(self, fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
        if self._vault is None:
            self._vault = self._open_vault(self.root)
        return fn(self._vault, *args, **kwargs)

    def close(self) -> None:
        """Drop queued calls, close the Vault on its own thread, then stop the thread."""
        for future in list(self._pending):
            future.cancel()  # only succeeds for calls that have not started
        self._executor.submit(self._close_vault)
        self._executor.shutdown(wait=True)

    def _close_vault(self) -> None:
        if self._vault is not None:
            self._vault.close()
            self._vault = None
